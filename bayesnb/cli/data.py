"""``--data``: the embedded data sets, folders and CSV files of text, corpora on disk.

Text goes through scikit-learn's ``CountVectorizer``; its vocabulary becomes the model's
feature names, so a saved model scores new text with the same columns.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bayesnb import datasets
from bayesnb.cli.errors import DataError, one_line

__all__ = [
    "DATA_HELP",
    "DATA_NAMES",
    "DEMO_FORTUNES",
    "DEMO_SEED",
    "EMBEDDED",
    "is_corpus",
    "load_data",
    "vectorize",
]

DEMO_SEED = 0
DEMO_FORTUNES = ["art", "computers", "food", "law", "science"]
DATA_NAMES = ("digits", "breast_cancer", "wine", "iris", "fortunes[:cat1,cat2,...]")
DATA_HELP = (
    "digits, breast_cancer, wine, iris, fortunes[:cat1,cat2], a folder of class sub-folders, "
    "or a CSV file with 'label' and 'text' columns"
)
#: The embedded tables (the fortunes are embedded too, by name or ``fortunes:cat1,cat2``).
EMBEDDED = ("digits", "breast_cancer", "wine", "iris")


def _sklearn_table(name: str):
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    loader = {"breast_cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris}[name]
    bunch = loader()
    return bunch.data, np.asarray(bunch.target_names)[bunch.target], bunch.feature_names


def vectorize(texts: list[str], vocabulary=None, vectorizer=None):
    """``(X, words)``: the word counts of ``texts`` under a clone of ``vectorizer`` (default
    ``CountVectorizer()``), in the columns ``vocabulary`` when given (DataError: no words)."""
    from sklearn.base import clone
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer() if vectorizer is None else clone(vectorizer)
    if vocabulary is not None:
        vec.set_params(vocabulary=list(vocabulary))
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:  # e.g. "empty vocabulary; perhaps the documents only contain..."
        raise DataError(f"cannot turn the texts into word counts: {exc}") from exc
    return X.tocsr().astype(np.float64), vec.get_feature_names_out()


def load_data(
    spec: str,
    *,
    vocabulary=None,
    vectorizer=None,
    seed: int = DEMO_SEED,
    test_size: float = 0.3,
):
    """A ``--data`` specification as a :class:`bayesnb.report.Dataset`.

    Parameters
    ----------
    spec : str
        ``digits``, ``breast_cancer``, ``wine``, ``iris``, ``fortunes`` (all categories) or
        ``fortunes:cat1,cat2``, a folder of class sub-folders, or a CSV file with ``label`` and
        ``text`` columns.
    vocabulary : sequence of str, optional
        Fixed columns for text data (a saved model's feature names).
    vectorizer : CountVectorizer, optional
        The tokenisation and pruning of text data (default ``CountVectorizer()``; a clone is
        fitted, with ``vocabulary`` when given).
    seed, test_size
        The stratified split every report section uses.

    Raises
    ------
    DataError
        Unknown name, missing path, malformed file, or data a classifier cannot use.
    """
    from bayesnb.report import Dataset

    spec = str(spec).strip()
    name = spec
    binarize = 0.0
    try:
        if spec == "digits":
            d = datasets.load_digits_counts()
            X, y, names, kind = d.data, d.target, d.feature_names, "counts"
            binarize = 8.0  # intensities 0..16: "on" above the middle, as load_digits_binary
            desc = "scikit-learn's handwritten digits, 8×8 pixel intensities 0–16 as counts"
        elif spec in ("breast_cancer", "wine", "iris"):
            X, y, names = _sklearn_table(spec)
            kind, desc = "continuous", f"scikit-learn's {spec} data"
        elif spec == "fortunes" or spec.startswith("fortunes:"):
            cats = None
            if ":" in spec:
                cats = [c.strip() for c in spec.split(":", 1)[1].split(",") if c.strip()]
                if not cats:
                    raise DataError(f"--data {spec!r} names no categories after 'fortunes:'")
            texts, y = datasets.load_fortunes(cats, return_X_y=True)
            X, names = vectorize(texts, vocabulary, vectorizer)
            kind, name = "text", "fortunes"
            desc = "Debian's fortune cookies, one category per file"
        else:
            path = Path(spec)
            if path.is_dir():
                bunch = datasets.load_folder(path, errors="replace")
                texts, y = bunch.data, bunch.target
            elif path.is_file():
                texts, y = datasets.load_csv(path, return_X_y=True)
            elif "/" in spec or "\\" in spec or path.suffix:
                raise DataError(f"--data {spec!r}: no such file or folder")
            else:
                raise DataError(
                    f"unknown --data {spec!r}: expected one of {', '.join(DATA_NAMES)}, a folder "
                    "of class sub-folders, or a CSV file with 'label' and 'text' columns"
                )
            X, names = vectorize(list(texts), vocabulary, vectorizer)
            kind, name = "text", path.name or spec
            desc = f"text from {spec}"
        return Dataset(
            name,
            X,
            np.asarray(y),
            names,
            kind,
            desc,
            binarize=binarize,
            seed=seed,
            test_size=test_size,
        )
    except DataError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        # Missing files, unreadable CSVs (pandas' ParserError and EmptyDataError are
        # ValueErrors), missing columns, a single class: all input errors.
        raise DataError(f"--data {spec!r}: {one_line(exc)}") from exc


def is_corpus(spec: str) -> bool:
    """Whether ``--data`` names text files on disk (streamed by ``fit``), not an embedded set.

    An embedded name wins over a folder of that name (``./digits`` is the folder); a spec that
    exists, is a glob pattern, or looks like a path (a separator or a suffix) is on disk.
    """
    from bayesnb.streaming import is_pattern

    spec = str(spec).strip()
    if spec in EMBEDDED or spec == "fortunes" or spec.startswith("fortunes:"):
        return False
    path = Path(spec)
    return path.exists() or is_pattern(spec) or "/" in spec or "\\" in spec or bool(path.suffix)
