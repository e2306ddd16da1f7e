"""Streaming fits from disk: documents read in chunks and added with ``partial_fit``.

Statistics are sums, so a corpus that does not fit in memory is fitted one chunk at a time;
only one chunk of texts and its sparse matrix are held at once (plus the model). Three
layouts are read, alone or mixed:

- a folder of class sub-folders, one document per file (scikit-learn's ``load_files``
  layout): the label is the sub-folder name;
- a glob pattern or a list of text files: the label is each file's parent folder name;
- CSV files (``.csv`` or ``.csv.gz``) with a ``label`` and a ``text`` column, one document
  per row.

Texts become count vectors through a stateless (or pre-fitted) vectorizer, by default
:func:`default_vectorizer`. Progress goes to stderr as one ``\\r``-rewritten line.
"""

from __future__ import annotations

import csv
import glob
import gzip
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from bayesnb.validation import check_classes

__all__ = ["DEFAULT_N_FEATURES", "default_vectorizer", "fit_files", "iter_documents"]

# 2^18 hashed columns: few collisions for a vocabulary of ~10^5 words, and a K × 2^18 float64
# count table is 2 MiB per class.
DEFAULT_N_FEATURES = 2**18

_GLOB_CHARS = frozenset("*?[")


def default_vectorizer(n_features: int = DEFAULT_N_FEATURES) -> HashingVectorizer:
    """The vectorizer used when none is given: raw token counts hashed to ``n_features``.

    ``alternate_sign=False`` keeps counts non-negative and ``norm=None`` keeps them counts
    (not unit vectors), as the multinomial and Bernoulli event models expect.
    """
    return HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)


def _is_csv(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".csv") or name.endswith(".csv.gz")


def _visible(path: Path) -> bool:
    return not path.name.startswith(".")


def _expand(source: str | os.PathLike | Sequence[str | os.PathLike]) -> list[Path]:
    """The files named by ``source``: folders, glob patterns, files, or a list of them."""
    if isinstance(source, str | os.PathLike):
        items = [source]
    else:
        items = list(source)
        if not items:
            raise ValueError("source is an empty list of paths")
    files: list[Path] = []
    for item in items:
        text = os.fspath(item)
        if _GLOB_CHARS & set(text) and not Path(text).exists():
            matched = sorted(Path(p) for p in glob.glob(text, recursive=True))
            matched = [p for p in matched if p.is_file()]
            if not matched:
                raise FileNotFoundError(f"source pattern {text!r} matches no file")
            files.extend(matched)
        elif Path(text).is_dir():
            files.extend(_folder_files(Path(text)))
        elif Path(text).is_file():
            files.append(Path(text))
        else:
            raise FileNotFoundError(f"source {text!r} is neither a file, a folder nor a pattern")
    return files


def _folder_files(folder: Path) -> list[Path]:
    """``load_files`` layout: the files of each class sub-folder; else the folder's CSV files."""
    subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and _visible(p))
    if subfolders:
        return [
            f for sub in subfolders for f in sorted(sub.iterdir()) if f.is_file() and _visible(f)
        ]
    csvs = sorted(p for p in folder.iterdir() if p.is_file() and _is_csv(p))
    if not csvs:
        raise ValueError(
            f"folder {str(folder)!r} has neither class sub-folders (one document per file) nor "
            "CSV files with label/text columns"
        )
    return csvs


def _open_csv(path: Path, encoding: str) -> TextIO:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def _csv_rows(path: Path, encoding: str, columns: tuple[str, ...]) -> Iterator[dict]:
    with _open_csv(path, encoding) as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(
                f"CSV file {str(path)!r} lacks the column(s) {missing}; it needs 'label' and "
                f"'text' columns, found {reader.fieldnames}"
            )
        for line, row in enumerate(reader, start=2):
            if any(row[c] is None for c in columns):
                raise ValueError(f"CSV file {str(path)!r}, line {line}: missing fields")
            yield row


def iter_documents(files: Iterable[Path], encoding: str = "utf-8") -> Iterator[tuple[str, str]]:
    """``(label, text)`` of every document of ``files``, in order.

    A CSV file yields its rows (columns ``label`` and ``text``), any other file is one
    document labelled by its parent folder's name.
    """
    for path in files:
        if _is_csv(path):
            for row in _csv_rows(path, encoding, ("label", "text")):
                yield row["label"], row["text"]
        else:
            yield path.parent.name, path.read_text(encoding=encoding)


def _collect_classes(files: list[Path], encoding: str) -> np.ndarray:
    """Every label: parent folder names, plus one pass over the label column of each CSV."""
    labels = {p.parent.name for p in files if not _is_csv(p)}
    for path in files:
        if _is_csv(path):
            labels.update(row["label"] for row in _csv_rows(path, encoding, ("label", "text")))
    return np.array(sorted(labels))


class _Progress:
    """One stderr line ``\\r``-rewritten per chunk: documents, documents/s, elapsed time."""

    def __init__(self, total: int | None, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self.start = time.perf_counter()
        self.done = 0

    def update(self, n: int, final: bool = False) -> None:
        self.done += n
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        of = f" / {self.total:,}" if self.total is not None else ""
        sys.stderr.write(
            f"\rfit: {self.done:,}{of} documents  {rate:,.0f} documents/s  {elapsed:.1f} s"
            + ("\n" if final else "")
        )
        sys.stderr.flush()


def _chunks(docs: Iterator[tuple[str, str]], size: int) -> Iterator[tuple[list, list]]:
    labels: list[str] = []
    texts: list[str] = []
    for label, text in docs:
        labels.append(label)
        texts.append(text)
        if len(texts) == size:
            yield labels, texts
            labels, texts = [], []
    if texts:
        yield labels, texts


def fit_files(
    estimator,
    source: str | os.PathLike | Sequence[str | os.PathLike],
    vectorizer=None,
    chunk_size: int = 10_000,
    classes: Sequence | None = None,
    progress: bool = True,
    *,
    encoding: str = "utf-8",
):
    """Fit ``estimator`` from documents on disk, ``chunk_size`` documents at a time.

    The result equals ``estimator.fit(vectorizer.transform(texts), labels)`` on all documents
    in memory (the statistics are sums); any previous fit is discarded. Labels are strings
    (folder names or the CSV's ``label`` text).

    Parameters
    ----------
    estimator : BernoulliNB, MultinomialNB or CategoricalNB (any estimator with partial_fit)
        Fitted in place.
    source : str, path-like, or a list of them
        A folder of class sub-folders (one document per file; hidden files and files directly
        in the folder are skipped, as in ``sklearn.datasets.load_files``), a folder of CSV
        files, a glob pattern (``"corpus/*/*.txt"``, ``"data/*.csv"``), or files. A CSV file
        (``.csv``, ``.csv.gz``) holds one document per row in columns ``label`` and ``text``;
        any other file is one document labelled by its parent folder's name.
    vectorizer : transformer, optional
        Stateless or already fitted (every chunk must map to the same columns); default
        :func:`default_vectorizer` (hashed raw counts, 2^18 columns).
    chunk_size : int, default 10_000
        Documents per ``partial_fit`` call (bounds the memory of the texts in flight).
    classes : array-like, optional
        Every label. None collects them first: folder names are known from the paths, CSV
        labels cost one extra pass over the label column.
    progress : bool, default True
        Write ``fit: N documents  R documents/s  T s`` to stderr, rewritten with ``\\r``.
    encoding : str, default "utf-8"
        Text encoding of the files.

    Returns
    -------
    estimator
        The fitted estimator.

    Raises
    ------
    FileNotFoundError
        When ``source`` names nothing.
    ValueError
        On a CSV file without ``label``/``text`` columns, fewer than 2 classes, no documents,
        or a label outside ``classes``.
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int | np.integer):
        raise TypeError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(f"{type(estimator).__name__} has no partial_fit; it cannot stream")
    from bayesnb.distributed import _check_vectorizer

    vectorizer = default_vectorizer() if vectorizer is None else vectorizer
    _check_vectorizer(vectorizer, estimator)
    files = _expand(source)
    classes = _collect_classes(files, encoding) if classes is None else check_classes(classes)
    if len(classes) < 2:
        raise ValueError(
            f"the documents hold {len(classes)} class(es) ({classes.tolist()}); a classifier "
            "needs at least 2 classes"
        )
    total = None if any(_is_csv(p) for p in files) else len(files)
    bar = _Progress(total, progress)
    vars(estimator).pop("classes_", None)  # from scratch: the first partial_fit resets
    try:
        for labels, texts in _chunks(iter_documents(files, encoding), chunk_size):
            X = vectorizer.transform(texts)
            estimator.partial_fit(X, np.asarray(labels), classes=classes)
            bar.update(len(texts))
    finally:
        bar.update(0, final=True)
    if bar.done == 0:
        raise ValueError(f"no documents found in {source!r}")
    return estimator
