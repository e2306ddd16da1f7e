"""Streaming fits from disk: documents read in chunks and counted one chunk at a time.

Statistics are sums, so a corpus that does not fit in memory is fitted one chunk at a time;
only one chunk of texts and its sparse matrix are held at once (plus the model). Three
layouts are read, alone or mixed:

- a folder of class sub-folders, one document per file (scikit-learn's ``load_files``
  layout): the label is the sub-folder name, and files in folders nested below it are
  documents of that class too;
- a glob pattern or a list of text files: the label is each file's parent folder name;
- CSV files (``.csv`` or ``.csv.gz``) with a ``label`` and a ``text`` column, one document
  per row, parsed by pandas exactly as :func:`bayesnb.datasets.load_csv` parses a whole file
  (a missing text is ``""``; labels that are all integers become integers).

Texts become count vectors through a stateless or pre-fitted vectorizer: by default
:func:`default_vectorizer` (hashed columns, one pass), or the corpus's own vocabulary
collected by a first pass, :func:`scan_files` (the columns ``CountVectorizer().fit`` would
give on the whole corpus, so the streamed model equals the in-memory one). Progress goes to
stderr: at most one line a second while reading, and a summary line at the end. What the
reading meets (undecodable files, empty documents, entries that are not documents) is said in
one :class:`~bayesnb.corpora.CorpusWarning` line each; the files are listed and read by
:mod:`bayesnb.corpora`, shared with the in-memory loaders of :mod:`bayesnb.datasets`.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from bayesnb.corpora import (
    LABEL_COLUMN,
    TEXT_COLUMN,
    CorpusLog,
    chunks,
    is_csv,
    is_pattern,
    iter_documents,
    label_of,
    list_files,
)
from bayesnb.corpora import (
    CorpusWarning as CorpusWarning,  # re-exported (documented in bayesnb.datasets)
)
from bayesnb.validation import check_classes, check_int

__all__ = [
    "DEFAULT_N_FEATURES",
    "CorpusScan",
    "default_vectorizer",
    "fit_files",
    "is_pattern",
    "iter_documents",
    "list_files",
    "scan_files",
]

# 2^18 hashed columns: few collisions for a vocabulary of ~10^5 words, and a K × 2^18 float64
# count table is 2 MiB per class.
DEFAULT_N_FEATURES = 2**18

# Seconds between two progress lines: a line per chunk would flood a log file.
PROGRESS_INTERVAL = 1.0


def default_vectorizer(n_features: int = DEFAULT_N_FEATURES) -> HashingVectorizer:
    """The vectorizer used when none is given: raw token counts hashed to ``n_features``.

    ``alternate_sign=False`` keeps counts non-negative and ``norm=None`` keeps them counts
    (not unit vectors), as the multinomial and Bernoulli event models expect.
    """
    return HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)


# -- labels ----------------------------------------------------------------------------------
def _label_kind(raw_labels: Iterable[str], csv_only: bool) -> str:
    """How labels are typed: ``"i"``/``"f"`` when every CSV label is a number, else ``"U"``.

    The rule of ``pandas.read_csv`` on a whole column (what :func:`bayesnb.datasets.load_csv`
    gives); folder names are always text, so a corpus with folders keeps text labels.
    """
    if not csv_only:
        return "U"
    try:
        numbers = pd.to_numeric(pd.Series(list(raw_labels), dtype=object))
    except (ValueError, TypeError):
        return "U"
    return "i" if numbers.dtype.kind in "iu" else "f"


def _typed(raw: np.ndarray, kind: str) -> np.ndarray:
    if kind == "U":
        return raw
    try:
        numbers = pd.to_numeric(pd.Series(raw, dtype=object)).to_numpy()
    except (ValueError, TypeError):
        return raw  # a non-number among numeric classes: reported as an unknown label
    return numbers.astype(np.int64 if kind == "i" else np.float64)


# -- progress --------------------------------------------------------------------------------
class DocumentProgress:
    """Documents read and documents/s on stderr: at most one line per ``interval`` seconds
    (rewritten in place with ``\\r`` on a terminal), then one summary line."""

    def __init__(
        self,
        verb: str,
        total: int | None,
        enabled: bool,
        interval: float | None = None,
        stream: TextIO | None = None,
    ) -> None:
        self.verb, self.total, self.enabled = verb, total, enabled
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = self.last = time.perf_counter()
        self.done = 0
        self.pending = False  # a \r line without its newline yet

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    @property
    def rate(self) -> float:
        elapsed = self.elapsed
        return self.done / elapsed if elapsed > 0 else 0.0

    def _write(self, text: str, final: bool) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
            self.pending = not final
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if not self.enabled or now - self.last < self.interval:
            return
        self.last = now
        of = f" / {self.total:,}" if self.total else ""
        pct = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        self._write(
            f"{self.verb}: {self.done:,}{of} documents{pct}  {self.rate:,.0f} documents/s  "
            f"{self.elapsed:.1f} s",
            final=False,
        )

    def close(self, detail: str = "", failed: bool = False) -> None:
        if not self.enabled:
            return
        if failed:
            if self.pending:  # end the \r line so that the error starts on its own line
                self.stream.write("\n")
                self.stream.flush()
            return
        self._write(
            f"{self.verb}: {self.done:,} documents{detail} in {self.elapsed:.1f} s "
            f"({self.rate:,.0f} documents/s)",
            final=True,
        )


def _check_n_classes(classes: np.ndarray) -> None:
    if len(classes) < 2:
        raise ValueError(
            f"the documents hold {len(classes)} class(es) ({classes.tolist()}); a classifier "
            "needs at least 2 classes"
        )


# -- the vocabulary pass ---------------------------------------------------------------------
@dataclass
class CorpusScan:
    """What a first pass over a corpus found (:func:`scan_files`)."""

    files: list[Path]
    """The files read, in order; a document found below a class folder carries its class
    (a :class:`bayesnb.corpora.ClassFile`), so ``fit_files(est, scan.files)`` labels it so."""
    classes: np.ndarray
    """Every label, sorted (typed as :func:`bayesnb.datasets.load_csv` types them)."""
    n_documents: int
    """The number of documents."""
    vectorizer: CountVectorizer | None
    """Fitted on the corpus's vocabulary (None for a labels-only scan)."""


def scan_files(
    source: str | os.PathLike | Sequence[str | os.PathLike],
    vectorizer: CountVectorizer | None = None,
    chunk_size: int = 10_000,
    progress: bool = True,
    *,
    vocabulary: bool = True,
    encoding: str = "utf-8",
    errors: str = "replace",
    _log: CorpusLog | None = None,
) -> CorpusScan:
    """First pass over a corpus on disk: its labels, size and (optionally) vocabulary.

    The vocabulary pass keeps only the set of words, never the documents, and returns a
    ``CountVectorizer`` fitted on it: its columns are those ``vectorizer.fit`` on all
    documents in memory gives (every word, sorted), and it can then vectorise any chunk
    independently (:func:`fit_files`).

    Parameters
    ----------
    source
        As in :func:`fit_files`.
    vectorizer : CountVectorizer, optional
        Tokenisation settings (lowercase, token_pattern, ngram_range, stop_words, ...) and
        the vocabulary's pruning (``min_df``, ``max_df``, ``max_features``, as
        ``CountVectorizer.fit`` applies them: pruning keeps a document and a total count per
        word, still never the documents); default ``CountVectorizer()``. A fixed
        ``vocabulary`` is refused (nothing to scan for).
    chunk_size : int, default 10_000
        Documents read at a time.
    progress : bool, default True
        Progress and a summary line on stderr (``scan: ...``).
    vocabulary : bool, default True
        False reads the labels only (for a CSV file, its label column).
    encoding, errors
        Text encoding of the files and how undecodable bytes are handled
        (:meth:`bytes.decode`: ``"replace"`` keeps going with U+FFFD, ``"strict"`` raises).

    Returns
    -------
    CorpusScan

    Warns
    -----
    CorpusWarning
        One line each for the files decoded with ``errors``, the empty documents, and the
        entries below the class folders that are not documents, each naming the first few
        (:mod:`bayesnb.corpora`).

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`fit_files`; a ValueError also when the documents hold no word.
    """
    check_int(chunk_size, "chunk_size")
    if vectorizer is None:
        vectorizer = CountVectorizer()
    if vocabulary:
        if not isinstance(vectorizer, CountVectorizer):
            raise TypeError(
                "vectorizer must be a CountVectorizer (its tokenisation settings are used), got "
                f"{type(vectorizer).__name__}"
            )
        params = vectorizer.get_params()
        if params["vocabulary"] is not None:
            raise ValueError("scan_files collects a vocabulary: vectorizer must not fix one")
        prune = (params["min_df"], params["max_df"], params["max_features"]) != (1, 1.0, None)
        analyze = vectorizer.build_analyzer()
    log = CorpusLog(encoding, errors) if _log is None else _log
    files = list_files(source, log)
    csv_only = all(is_csv(p) for p in files)
    columns = (LABEL_COLUMN, TEXT_COLUMN) if vocabulary else (LABEL_COLUMN,)
    words: set[str] = set()
    doc_freq: Counter[str] = Counter()  # pruning only: documents and tokens per word
    term_freq: Counter[str] = Counter()
    raw_labels: set[str] = set()
    n_docs = 0
    if not vocabulary:
        # Folder names are known from the paths; only CSV files are read.
        raw_labels.update(label_of(p) for p in files if not is_csv(p))
        n_docs = sum(not is_csv(p) for p in files)
        files_read = [p for p in files if is_csv(p)]
    else:
        files_read = files
    bar = DocumentProgress("scan", None, progress)
    try:
        for labels, texts in chunks(files_read, chunk_size, log, columns):
            raw_labels.update(labels.tolist())
            if texts is not None and prune:
                for text in texts:
                    tokens = analyze(text)
                    doc_freq.update(set(tokens))
                    term_freq.update(tokens)
            elif texts is not None:
                for text in texts:
                    words.update(analyze(text))
            n_docs += len(labels)
            bar.update(len(labels))
        if n_docs == 0:
            raise ValueError(f"no documents found in {source!r}")
        kind = _label_kind(raw_labels, csv_only)
        classes = np.unique(_typed(np.asarray(sorted(raw_labels), dtype=str), kind))
        _check_n_classes(classes)
        fitted = None
        if vocabulary:
            words = _pruned(doc_freq, term_freq, n_docs, params) if prune else words
            if not words:
                raise ValueError(
                    f"the documents of {source!r} hold no words (empty vocabulary): they are "
                    "empty or contain only stop words or one-letter tokens"
                )
            fitted = clone(vectorizer).set_params(vocabulary=sorted(words))
            fitted.fit([])  # validates the fixed vocabulary; the object is then fitted
    except BaseException:
        bar.close(failed=True)
        raise
    bar.done = n_docs
    bar.close(f", {len(classes)} classes" + (f", {len(words):,} words" if vocabulary else ""))
    if _log is None:
        log.warn()
    return CorpusScan(files, classes, n_docs, fitted)


def _pruned(doc_freq: Counter, term_freq: Counter, n_docs: int, params: dict) -> set[str]:
    """The words ``CountVectorizer.fit`` keeps under ``min_df``, ``max_df`` and
    ``max_features`` (the same masks, in the same alphabetical order, so ties in the
    ``max_features`` ranking fall the same way)."""
    min_df, max_df, limit = params["min_df"], params["max_df"], params["max_features"]
    high = max_df if isinstance(max_df, Integral) else max_df * n_docs
    low = min_df if isinstance(min_df, Integral) else min_df * n_docs
    if high < low:
        raise ValueError("max_df corresponds to < documents than min_df")
    if not doc_freq:
        return set()
    terms = sorted(doc_freq)
    dfs = np.array([doc_freq[t] for t in terms], dtype=np.int64)
    # binary=True counts each word once per document, as CountVectorizer's X then does.
    tfs = dfs if params["binary"] else np.array([term_freq[t] for t in terms], dtype=np.int64)
    mask = (dfs <= high) & (dfs >= low)
    if limit is not None and mask.sum() > limit:
        keep = np.where(mask)[0][(-tfs[mask]).argsort()[:limit]]
        mask = np.zeros(len(terms), dtype=bool)
        mask[keep] = True
    if not mask.any():
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return {t for t, kept in zip(terms, mask, strict=True) if kept}


# -- the counting pass -----------------------------------------------------------------------
def fit_files(
    estimator,
    source: str | os.PathLike | Sequence[str | os.PathLike],
    vectorizer=None,
    chunk_size: int = 10_000,
    classes: Sequence | None = None,
    progress: bool = True,
    *,
    encoding: str = "utf-8",
    errors: str = "replace",
    total: int | None = None,
):
    """Fit ``estimator`` from documents on disk, ``chunk_size`` documents at a time.

    The result equals ``estimator.fit(vectorizer.transform(texts), labels)`` on all documents
    in memory (the statistics are sums); any previous fit is discarded. Each chunk is reduced
    to its statistics and added to the model; the model's derived quantities (learned
    hyperparameters, class prior) are computed once, at the end.

    Parameters
    ----------
    estimator : BernoulliNB, MultinomialNB or CategoricalNB
        Fitted in place.
    source : str, path-like, or a list of them
        A folder of class sub-folders (one document per file; hidden files and files directly
        in the folder are skipped, as in ``sklearn.datasets.load_files``), a folder of CSV
        files, a glob pattern (``"corpus/*/*.txt"``, ``"data/*.csv"``), or files. A CSV file
        (``.csv``, ``.csv.gz``) holds one document per row in columns ``label`` and ``text``;
        any other file is one document labelled by its parent folder's name.
    vectorizer : transformer, optional
        Stateless or already fitted (every chunk must map to the same columns), e.g. the
        vocabulary of :func:`scan_files`; default :func:`default_vectorizer` (hashed raw
        counts, 2^18 columns).
    chunk_size : int, default 10_000
        Documents per chunk (bounds the memory of the texts in flight).
    classes : array-like, optional
        Every label. None collects them first: folder names are known from the paths, CSV
        labels cost one extra pass over the label column. CSV labels are typed like the
        classes (numbers when the classes are numbers).
    progress : bool, default True
        Write ``fit: N documents  R documents/s  T s`` to stderr at most once a second, and a
        summary line at the end.
    encoding : str, default "utf-8"
        Text encoding of the files.
    errors : str, default "replace"
        How undecodable bytes are handled (as in :meth:`bytes.decode`): ``"replace"`` keeps
        going with U+FFFD, ``"strict"`` raises a ValueError naming the file.
    total : int, optional
        The number of documents, when known (:attr:`CorpusScan.n_documents`), for the
        progress line.

    Returns
    -------
    estimator
        The fitted estimator (a vocabulary's words are its ``feature_names_in_``).

    Raises
    ------
    FileNotFoundError
        When ``source`` names nothing.
    ValueError
        On a CSV file without ``label``/``text`` columns or with a row without a label (the
        message names its line), fewer than 2 classes, no documents, or a label outside
        ``classes``.

    Warns
    -----
    CorpusWarning
        As :func:`scan_files`: undecodable files, empty documents, entries not read.
    """
    from bayesnb.distributed.chunks import check_vectorizer, name_by_vocabulary
    from bayesnb.distributed.reduce import chunk_statistics

    check_int(chunk_size, "chunk_size")
    if not hasattr(estimator, "_statistics"):
        raise TypeError(f"{type(estimator).__name__} is not a bayesnb estimator; it cannot stream")
    vectorizer = default_vectorizer() if vectorizer is None else vectorizer
    check_vectorizer(vectorizer, estimator)
    estimator._check_params()
    log = CorpusLog(encoding, errors)
    if classes is None:
        # The labels pass reads CSV label columns only: what it met is met again below, but
        # for the entries the listing skipped.
        labels_log = CorpusLog(encoding, errors)
        scan = scan_files(
            source,
            chunk_size=chunk_size,
            progress=False,
            vocabulary=False,
            encoding=encoding,
            errors=errors,
            _log=labels_log,
        )
        files, classes, total = scan.files, scan.classes, scan.n_documents
        log.skipped = labels_log.skipped
    else:
        files, classes = list_files(source, log), check_classes(classes)
        if total is None and not any(is_csv(p) for p in files):
            total = len(files)
    _check_n_classes(classes)
    kind = {"i": "i", "u": "i", "f": "f"}.get(classes.dtype.kind, "U")  # as _label_kind
    n_features = int(vectorizer.transform([""]).shape[1])

    # Chunks are counted by a bare copy (as on a Dask worker) and added to the estimator:
    # partial_fit would also re-derive the hyperparameters after every chunk.
    shell = clone(estimator)
    shell.classes_ = classes
    shell.n_features_in_ = n_features
    estimator._forget_fit()
    estimator.classes_ = classes
    estimator.n_features_in_ = n_features
    estimator._reset_counts(n_features)

    bar = DocumentProgress("fit", total, progress)
    try:
        for i, (labels, texts) in enumerate(chunks(files, chunk_size, log)):
            X = vectorizer.transform(texts)
            stats = chunk_statistics(shell, X, _typed(labels, kind), None, i, False)
            if stats is not None:
                estimator._merge_statistics(stats)
            bar.update(len(texts))
        if bar.done == 0:
            raise ValueError(f"no documents found in {source!r}")
    except BaseException:
        bar.close(failed=True)
        vars(estimator).pop("classes_", None)  # no half-counted model that looks fitted
        raise
    estimator._statistics_changed()
    name_by_vocabulary(estimator, vectorizer)  # the words of a scan_files vocabulary
    bar.close()
    log.warn()
    return estimator
