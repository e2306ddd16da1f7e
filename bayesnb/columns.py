"""New text onto a saved model's columns: the vectorizer a model file records, and a corpus
read in chunks with the name of every document.

A model fitted on text by ``bayesnb fit`` records how its columns were made, in the estimator
attribute ``vectorizer_params_`` (saved in the model file's ``fitted`` JSON as
``vectorizer``): ``{"name": "CountVectorizer", ...tokenisation settings}`` for columns that are
the training corpus's words (the words themselves are the file's ``feature`` coordinate,
``feature_names_in_``; the record keeps ``min_df``, ``max_df`` and ``max_features`` too, how
those words were chosen), or ``{"name": "HashingVectorizer", "n_features": N, ...}`` for
hashed columns. Stop words (``"english"`` or a list) are part of the tokenisation settings.
:func:`saved_vectorizer` rebuilds the fitted vectorizer (what :func:`bayesnb.io.load` puts
back in front of a model saved from a pipeline). A file without the record but with feature
names (an older file, or a model fitted with ``feature_names_in_`` set) is read as a
vocabulary under ``CountVectorizer()``'s defaults.

:class:`TextColumns` turns texts into the model's columns: a vocabulary model keeps the words
it knows and counts the others, which are dropped, or pooled into one UNK column when the
model's family offers one (``Family.unseen_column``: MultinomialNB with ``unk=True``); a
hashed model hashes with the recorded settings, so every word lands in a column.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from bayesnb.corpora import is_csv, list_files
from bayesnb.families import family_of, has_family

__all__ = [
    "TextColumns",
    "iter_texts",
    "record_vectorizer",
    "saved_vectorizer",
    "text_files",
    "vectorizer_params",
]

_VECTORIZERS = {"CountVectorizer": CountVectorizer, "HashingVectorizer": HashingVectorizer}
# The settings recorded and read back: data (no callables), shared by both vectorizers unless
# listed in _HASHING_ONLY. A file is refused if it records anything else.
_SETTINGS = (
    "analyzer",
    "binary",
    "lowercase",
    "ngram_range",
    "stop_words",
    "strip_accents",
    "token_pattern",
)
_HASHING_ONLY = ("alternate_sign", "n_features", "norm")
# How the vocabulary was chosen: recorded so the file says how its columns were made (the
# words themselves are the columns, so predicting reads them, not these).
_COUNT_ONLY = ("max_df", "max_features", "min_df")


def vectorizer_params(vectorizer) -> dict:
    """The record of ``vectorizer`` (a CountVectorizer or HashingVectorizer) as JSON data.

    Raises
    ------
    TypeError
        Another transformer, or settings that are not data (a callable analyzer, tokenizer
        or preprocessor, stop words given as a set rather than ``"english"`` or a list).
    """
    name = type(vectorizer).__name__
    if name not in _VECTORIZERS or not isinstance(vectorizer, _VECTORIZERS[name]):
        raise TypeError(f"cannot record a {name}: only CountVectorizer and HashingVectorizer")
    params = vectorizer.get_params()
    if callable(params["analyzer"]) or params.get("tokenizer") or params.get("preprocessor"):
        raise TypeError(f"cannot record a {name} with a callable analyzer or tokenizer")
    stop = params.get("stop_words")
    if not (stop is None or stop == "english" or isinstance(stop, list | tuple)):
        raise TypeError(f"cannot record a {name} with stop words of type {type(stop).__name__}")
    out = {"name": name}
    for key in _settings(name):
        value = params[key]
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def _settings(name: str) -> tuple[str, ...]:
    return _SETTINGS + (_HASHING_ONLY if name == "HashingVectorizer" else _COUNT_ONLY)


def record_vectorizer(est, vectorizer) -> None:
    """Record on fitted ``est`` how its columns were made (saved with the model)."""
    est.vectorizer_params_ = vectorizer_params(vectorizer)


def _settings_of(record: dict) -> tuple[str, dict]:
    """The vectorizer name and keyword arguments of a record (ValueError naming what a file
    records that is refused)."""
    name = record.get("name")
    if name not in _VECTORIZERS:
        raise ValueError(f"the model records an unknown vectorizer {name!r}")
    unknown = set(record) - set(_settings(name)) - {"name"}
    if unknown:
        raise ValueError(f"the model's {name} record holds unknown settings {sorted(unknown)}")
    kwargs = {k: v for k, v in record.items() if k != "name"}
    if isinstance(kwargs.get("ngram_range"), list):  # JSON has no tuples
        kwargs["ngram_range"] = tuple(kwargs["ngram_range"])
    return name, kwargs


def _rebuild(record: dict, vocabulary):
    """The vectorizer of a record, fitted (a CountVectorizer with its words as a fixed
    ``vocabulary``)."""
    name, kwargs = _settings_of(record)
    if name == "CountVectorizer":
        kwargs["vocabulary"] = list(vocabulary)
    vec = _VECTORIZERS[name](**kwargs)
    try:
        vec.fit([])  # validates the settings (and a fixed vocabulary: no duplicate word)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the model's {name} record is invalid: {exc}") from None
    return vec


def saved_vectorizer(est):
    """The vectorizer recorded by ``est`` as it was fitted: its own parameters (those of the
    vectorizer of the saved pipeline, so ``clone`` and a refit behave as that one's) and, for a
    CountVectorizer, the model's words as its learned ``vocabulary_``.

    Raises
    ------
    ValueError
        ``est`` records no vectorizer, or a record that is refused.
    """
    record = getattr(est, "vectorizer_params_", None)
    if record is None:
        raise ValueError(f"the {type(est).__name__} records no text vectorizer")
    name, kwargs = _settings_of(record)
    words = [] if name == "HashingVectorizer" else [str(w) for w in est.feature_names_in_]
    fixed = _rebuild(record, words)  # validates the record and the words
    if name == "HashingVectorizer":
        return fixed
    vec = CountVectorizer(**kwargs)
    vec.vocabulary_ = dict(fixed.vocabulary_)  # what CountVectorizer.fit sets
    vec.fixed_vocabulary_ = False
    return vec


class TextColumns:
    """Texts as the columns of a fitted model (see the module docstring).

    Parameters
    ----------
    est : fitted estimator of a registered family

    Attributes
    ----------
    estimator : fitted estimator
        The estimator that scores the columns: ``est``, or a copy with one more column for
        the words ``est`` never saw (``Family.unseen_column``).
    vectorizer : CountVectorizer or HashingVectorizer
        Rebuilt from the model's record, fitted.
    hashed : bool
        Whether the model's columns are hashed.
    unseen : {"dropped", "pooled into UNK", None}
        What happens to words outside the vocabulary (None for a hashed model).
    n_tokens, n_unseen : int
        Tokens read so far and those outside the vocabulary.

    Raises
    ------
    ValueError
        A model that records neither its words nor a hashing vectorizer, or a record refused.
    """

    def __init__(self, est):
        record = getattr(est, "vectorizer_params_", None)
        names = getattr(est, "feature_names_in_", None)
        if record is None and names is None:
            raise ValueError(
                f"the {type(est).__name__} records neither its words nor a hashing vectorizer "
                "(it was not fitted on text by `bayesnb fit`), so text cannot be mapped onto "
                "its columns"
            )
        record = dict(record) if record is not None else {"name": "CountVectorizer"}
        self.hashed = record.get("name") == "HashingVectorizer"
        self.vectorizer = _rebuild(record, [] if self.hashed else [str(w) for w in names])
        width = int(self.vectorizer.transform([""]).shape[1])
        if width != est.n_features_in_:
            raise ValueError(
                f"the model's {record['name']} makes {width} columns, the model has "
                f"{est.n_features_in_}"
            )
        self.estimator = est
        self.unseen = None
        if not self.hashed:
            wider = family_of(est).unseen_column(est) if has_family(est) else None
            self.estimator = est if wider is None else wider
            self.unseen = "dropped" if wider is None else "pooled into UNK"
            self._analyze = self.vectorizer.build_analyzer()
        self.n_tokens = self.n_unseen = 0

    def transform(self, texts: Sequence[str]):
        """The sparse count matrix of ``texts`` in the columns of :attr:`estimator`."""
        X = self.vectorizer.transform(texts).tocsr().astype(np.float64)
        if self.hashed:
            self.n_tokens += int(X.sum())
            return X
        tokens = np.array([len(self._analyze(t)) for t in texts], dtype=np.float64)
        known = np.asarray(X.sum(axis=1)).ravel()
        if self.vectorizer.binary:  # a binary X counts distinct words, not tokens
            known = np.asarray((X > 0).sum(axis=1), dtype=np.float64).ravel()
        unseen = np.maximum(tokens - known, 0.0)
        self.n_tokens += int(tokens.sum())
        self.n_unseen += int(unseen.sum())
        if self.unseen == "pooled into UNK":
            column = (unseen > 0).astype(np.float64) if self.vectorizer.binary else unseen
            X = sp.hstack([X, sp.csr_matrix(column[:, None])], format="csr")
        return X

    def summary(self) -> str:
        """What the mapping did, e.g. ``"120 of 3,400 tokens not in the vocabulary: dropped"``."""
        if self.hashed:
            return f"{self.n_tokens:,} tokens hashed into {self.vectorizer.n_features:,} columns"
        return (
            f"{self.n_unseen:,} of {self.n_tokens:,} tokens not in the model's vocabulary: "
            f"{self.unseen}"
        )


# -- documents with their names ----------------------------------------------------------------
def text_files(source: str | os.PathLike) -> list[Path]:
    """The files of ``source`` as :func:`bayesnb.streaming.list_files` lists them, or the
    visible files of a plain folder of documents (new text need not be sorted by class).

    Raises
    ------
    FileNotFoundError, ValueError
        A path that names nothing; a folder without documents.
    """
    folder = Path(source)
    visible = (
        sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []
    )
    if folder.is_dir() and not any(p.is_dir() for p in visible):
        files = [p for p in visible if p.is_file()]
        if not files:
            raise ValueError(f"folder {str(folder)!r} holds no documents")
        return files
    return list_files(source)


def iter_texts(
    files: Sequence[Path], chunk_size: int, encoding: str = "utf-8", errors: str = "replace"
) -> Iterator[tuple[list[str], list[str]]]:
    """``(names, texts)`` of at most ``chunk_size`` documents at a time, in file order.

    A CSV file (``.csv``, ``.csv.gz``) yields its rows, named ``FILE:ROW`` (0-based data
    rows), from its ``text`` column (a ``label`` column is not needed); any other file is one
    document named by its path, its bytes decoded with ``errors``.
    """
    names: list[str] = []
    texts: list[str] = []
    for path in files:
        if is_csv(path):
            if names:
                yield names, texts
                names, texts = [], []
            yield from _csv_texts(path, chunk_size, encoding, errors)
            continue
        names.append(str(path))
        texts.append(path.read_bytes().decode(encoding, errors=errors))
        if len(names) == chunk_size:
            yield names, texts
            names, texts = [], []
    if names:
        yield names, texts


def _csv_texts(path: Path, chunk_size: int, encoding: str, errors: str):
    try:
        header = pd.read_csv(path, nrows=0, encoding=encoding, encoding_errors=errors).columns
    except pd.errors.EmptyDataError:
        raise ValueError(f"CSV file {str(path)!r} is empty") from None
    if "text" not in header:
        raise ValueError(f"CSV file {str(path)!r} has no 'text' column (found {list(header)})")
    reader = pd.read_csv(
        path,
        usecols=["text"],
        dtype={"text": str},
        chunksize=chunk_size,
        encoding=encoding,
        encoding_errors=errors,
    )
    row = 0
    with reader:
        for frame in reader:
            n = len(frame)
            yield [f"{path}:{i}" for i in range(row, row + n)], frame["text"].fillna("").tolist()
            row += n
