"""Datasets: the embedded digits, Debian's fortunes and the user's own corpora as Bunches.

Nothing here downloads: the digits ship with scikit-learn, the fortunes with Debian's
``fortunes`` package, and the folder / CSV loaders read the user's files. Every loader
returns a :class:`sklearn.utils.Bunch` (or ``(X, y)`` with ``return_X_y=True``) whose
``target`` holds the class labels themselves, not integer codes, so fitted estimators carry
readable ``classes_``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.utils import Bunch

__all__ = [
    "FORTUNES_PATH",
    "load_csv",
    "load_digits_binary",
    "load_digits_counts",
    "load_folder",
    "load_fortunes",
]

FORTUNES_PATH = Path("/usr/share/games/fortunes")
"""Where Debian's ``fortunes`` package installs its category files."""
#: Environment variable naming another fortunes folder (it wins over :data:`FORTUNES_PATH`).
FORTUNES_ENV = "BAYESNB_FORTUNES"

# Files beside the category files that are not categories: strfile indexes and the .u8
# symlinks Debian adds for UTF-8 locales (they point at the category files themselves).
_FORTUNE_SKIP_SUFFIXES = (".dat", ".u8")

_DIGITS_SIDE = 8


def _digits_feature_names() -> list[str]:
    return [f"px_{r}_{c}" for r in range(_DIGITS_SIDE) for c in range(_DIGITS_SIDE)]


def load_digits_counts(return_X_y: bool = False) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled handwritten digits as counts for the multinomial model.

    Each of the 64 pixels (an 8×8 grid) holds the number of set pixels in a 4×4 block of
    the original 32×32 bitmap, an integer 0..16: a document of 64 "words" whose counts are
    the intensities.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    Bunch
        ``data`` (float64 array of shape (1797, 64)), ``target`` (int array of digits 0..9),
        ``feature_names`` (``"px_<row>_<col>"``), ``target_names`` (0..9), ``DESCR``.
    (data, target) : tuple, when ``return_X_y`` is True
    """
    digits = load_digits()
    X = np.asarray(digits.data, dtype=np.float64)
    y = np.asarray(digits.target)
    if return_X_y:
        return X, y
    descr = (
        "Handwritten digits (scikit-learn's bundled UCI optdigits test set), 1797 images of "
        "8x8 pixels. Feature px_r_c counts the set pixels (0..16) in block (r, c): a count "
        "vector for the multinomial event model.\n\n" + digits.DESCR
    )
    return Bunch(
        data=X,
        target=y,
        feature_names=_digits_feature_names(),
        target_names=np.asarray(digits.target_names),
        DESCR=descr,
    )


def load_digits_binary(
    threshold: float = 8.0, return_X_y: bool = False
) -> Bunch | tuple[np.ndarray, np.ndarray]:
    """The digits binarised for the Bernoulli model: pixel ``> threshold`` is 1, else 0.

    Parameters
    ----------
    threshold : float, default 8.0
        Intensities (0..16) strictly above it are "on"; 8 is the middle of the range.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    Bunch or (data, target)
        As :func:`load_digits_counts`, with ``data`` holding 0.0 / 1.0.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, Real):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold!r}")
    bunch = load_digits_counts()
    X = (bunch.data > threshold).astype(np.float64)
    if return_X_y:
        return X, bunch.target
    bunch.data = X
    bunch.DESCR = (
        f"Handwritten digits binarised at intensity > {threshold:g}: 64 binary pixel features "
        "for the multivariate Bernoulli event model.\n\n" + bunch.DESCR
    )
    return bunch


# -- fortunes ---------------------------------------------------------------------------------
def _fortune_categories(path: Path) -> list[str]:
    """Category files of a fortunes folder (sub-folders such as ``off/`` are not categories)."""
    return sorted(
        entry.name
        for entry in path.iterdir()
        if entry.is_file()
        and not entry.name.startswith(".")
        and not entry.name.endswith(_FORTUNE_SKIP_SUFFIXES)
    )


def _split_fortunes(text: str) -> list[str]:
    """Records of a fortune file: separated by lines holding only ``%``; empty ones dropped."""
    records, lines = [], []
    for line in [*text.splitlines(), "%"]:
        if line.rstrip() == "%":
            record = "\n".join(lines).strip("\n")
            if record.strip():
                records.append(record)
            lines = []
        else:
            lines.append(line)
    return records


def _select(available: Sequence[str], categories, what: str, where: Path) -> list[str]:
    """The requested categories (all when None), sorted; unknown names raise ValueError."""
    if categories is None:
        return list(available)
    if isinstance(categories, str):
        categories = [categories]
    requested = list(dict.fromkeys(categories))
    if not requested:
        raise ValueError(f"categories must name at least one {what}, got an empty list")
    unknown = [c for c in requested if c not in available]
    if unknown:
        raise ValueError(
            f"categories holds unknown {what}(s) {unknown} in {where}; available: {list(available)}"
        )
    return sorted(requested)


def load_fortunes(
    categories: Iterable[str] | str | None = None,
    path: str | os.PathLike | None = None,
    return_X_y: bool = False,
) -> Bunch | tuple[list[str], np.ndarray]:
    """Debian's fortune cookies as a labelled text corpus: one category per file.

    Each category (``art``, ``computers``, ``food``, ...) is a plain-text file whose records
    are separated by lines holding only ``%``. Index files (``*.dat``), the ``*.u8``
    symlinks and sub-folders (``off/``) are ignored, empty records skipped, and the text is
    decoded as UTF-8 with undecodable bytes replaced.

    Parameters
    ----------
    categories : str or list of str, optional
        Category file names to load; default all of them.
    path : str or path-like, optional
        The fortunes folder; default ``$BAYESNB_FORTUNES`` when set, else
        ``/usr/share/games/fortunes``.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    Bunch
        ``data`` (list of str), ``target`` (array of category names, one per record),
        ``target_names`` (the sorted categories), ``filenames`` (array of the category file
        of every record), ``DESCR``.
    (data, target) : tuple, when ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        The folder is missing (install it with ``apt-get install fortunes``) or holds no
        category files.
    ValueError
        ``categories`` names a category the folder does not hold (the message lists those
        it does).
    """
    if path is None:
        path = os.environ.get(FORTUNES_ENV) or FORTUNES_PATH
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(
            f"fortunes folder not found: {root}. Install Debian's fortunes package "
            f"(`apt-get install fortunes`), set {FORTUNES_ENV} or pass path= to a folder of "
            "fortune files"
        )
    available = _fortune_categories(root)
    if not available:
        raise FileNotFoundError(
            f"fortunes folder {root} holds no category files (only *.dat/*.u8 or sub-folders); "
            "install them with `apt-get install fortunes`"
        )
    chosen = _select(available, categories, "category", root)
    data: list[str] = []
    target: list[str] = []
    filenames: list[str] = []
    for name in chosen:
        file = root / name
        records = _split_fortunes(file.read_bytes().decode("utf-8", errors="replace"))
        data.extend(records)
        target.extend([name] * len(records))
        filenames.extend([str(file)] * len(records))
    y = np.asarray(target, dtype=str)
    if return_X_y:
        return data, y
    return Bunch(
        data=data,
        target=y,
        target_names=np.asarray(chosen, dtype=str),
        filenames=np.asarray(filenames, dtype=str),
        DESCR=(
            f"Fortune cookies from {root} (Debian's fortunes package): {len(data)} records in "
            f"{len(chosen)} categories ({', '.join(chosen)}), labelled by the file they come from."
        ),
    )


# -- the user's own corpora -------------------------------------------------------------------
def load_folder(
    path: str | os.PathLike,
    categories: Iterable[str] | str | None = None,
    encoding: str = "utf-8",
    *,
    errors: str = "strict",
) -> Bunch:
    """A text corpus in scikit-learn's ``load_files`` layout: one sub-folder per class.

    ``path/<class>/<document>``: every regular file directly inside a class folder is one
    document. Hidden files and folders (names starting with ``.``) are skipped.

    Parameters
    ----------
    path : str or path-like
        The corpus folder.
    categories : str or list of str, optional
        Class folders to load; default all of them.
    encoding : str, default "utf-8"
        Text encoding of the documents.
    errors : str, default "strict"
        How undecodable bytes are handled (as in :meth:`bytes.decode`); ``"replace"`` keeps
        going with U+FFFD.

    Returns
    -------
    Bunch
        ``data`` (list of str), ``target`` (array of class names, one per document),
        ``target_names`` (the sorted class names), ``filenames`` (array of paths), ``DESCR``.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    NotADirectoryError
        ``path`` is a file.
    ValueError
        ``path`` has no class sub-folders or no documents, ``categories`` names an unknown
        class, or a document cannot be decoded with ``encoding``.
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"path {str(root)!r} does not exist")
    if not root.is_dir():
        raise NotADirectoryError(
            f"path {str(root)!r} is a file; load_folder needs a folder with one sub-folder "
            "per class"
        )
    available = sorted(
        entry.name for entry in root.iterdir() if entry.is_dir() and not entry.name.startswith(".")
    )
    if not available:
        raise ValueError(
            f"path {str(root)!r} has no class sub-folders; expected the layout "
            "<path>/<class name>/<document file>"
        )
    chosen = _select(available, categories, "class", root)
    data: list[str] = []
    target: list[str] = []
    filenames: list[str] = []
    for name in chosen:
        files = sorted(
            f for f in (root / name).iterdir() if f.is_file() and not f.name.startswith(".")
        )
        if not files:
            warnings.warn(
                f"class folder {str(root / name)!r} holds no documents", UserWarning, stacklevel=2
            )
        for file in files:
            try:
                data.append(file.read_bytes().decode(encoding, errors=errors))
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"cannot decode {str(file)!r} as {encoding}: {exc.reason} at byte "
                    f"{exc.start}; pass the right encoding= or errors='replace'"
                ) from exc
            target.append(name)
            filenames.append(str(file))
    if not data:
        raise ValueError(f"path {str(root)!r} holds no documents in its class folders {chosen}")
    return Bunch(
        data=data,
        target=np.asarray(target, dtype=str),
        target_names=np.asarray(chosen, dtype=str),
        filenames=np.asarray(filenames, dtype=str),
        DESCR=f"Text corpus from {root}: {len(data)} documents in {len(chosen)} classes.",
    )


def load_csv(
    path: str | os.PathLike,
    *,
    label: str = "label",
    text: str = "text",
    return_X_y: bool = False,
    **read_csv_kwargs,
) -> Bunch | tuple[list[str], np.ndarray]:
    """A labelled text corpus from a CSV file with a label column and a text column.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    label, text : str, default "label", "text"
        Names of the label and the text columns.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.
    **read_csv_kwargs
        Passed to :func:`pandas.read_csv` (``sep``, ``encoding``, ...).

    Returns
    -------
    Bunch
        ``data`` (list of str; a missing text is ``""``), ``target`` (array of labels as
        read), ``target_names`` (sorted unique labels), ``frame`` (the DataFrame), ``DESCR``.
    (data, target) : tuple, when ``return_X_y`` is True

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        A column is missing, or a row has no label.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"path {str(file)!r} is not a file")
    frame = pd.read_csv(file, **read_csv_kwargs)
    missing = [c for c in (label, text) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{str(file)!r} lacks the column(s) {missing} (label={label!r}, text={text!r}); "
            f"its columns are {list(frame.columns)}"
        )
    unlabelled = np.flatnonzero(frame[label].isna().to_numpy())
    if unlabelled.size:
        raise ValueError(
            f"{str(file)!r} has {unlabelled.size} row(s) without a {label!r} value "
            f"(first data rows, 0-based: {unlabelled[:5].tolist()})"
        )
    data = frame[text].fillna("").astype(str).tolist()
    y = frame[label].to_numpy()
    if return_X_y:
        return data, y
    return Bunch(
        data=data,
        target=y,
        target_names=np.unique(y),
        frame=frame,
        DESCR=f"Text corpus from {file}: {len(data)} rows, labels in column {label!r}.",
    )
