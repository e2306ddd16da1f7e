"""Datasets: the embedded digits, Debian's fortunes and the user's own corpora as Bunches.

Nothing here downloads: the digits ship with scikit-learn, the fortunes with Debian's
``fortunes`` package, and the folder / CSV loaders read the user's files. Every loader
returns a :class:`sklearn.utils.Bunch` (or ``(X, y)`` with ``return_X_y=True``) whose
``target`` holds the class labels themselves, not integer codes, so fitted estimators carry
readable ``classes_``. The user's corpora are read as they come (:mod:`bayesnb.corpora`):
undecodable bytes are replaced, and undecodable files, empty documents and entries that are not
documents are said in one :class:`CorpusWarning` line each, naming the first few.
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

from bayesnb.corpora import (
    CorpusLog,
    CorpusWarning,
    class_documents,
    counting_decode_errors,
    decode_message,
    empty_texts,
    missing_labels,
    read_text,
    unlabelled_error,
)

__all__ = [
    "FORTUNES_PATH",
    "CorpusWarning",
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
# pandas.read_csv options under which data row k is the k-th non-blank record after the
# header line, so that a row can be named by the line of the file it starts on.
_ROW_KEEPING = frozenset(
    {"sep", "delimiter", "dtype", "converters", "usecols", "na_values", "keep_default_na"}
)


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
        feature_names=[f"px_{r}_{c}" for r in range(_DIGITS_SIDE) for c in range(_DIGITS_SIDE)],
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
    decoded as UTF-8 with undecodable bytes replaced (the files affected are named in a
    :class:`CorpusWarning`).

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
    log = CorpusLog()
    for name in chosen:
        file = root / name
        records = _split_fortunes(read_text(file, log))
        data.extend(records)
        target.extend([name] * len(records))
        filenames.extend([str(file)] * len(records))
    log.warn()
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
    errors: str = "replace",
) -> Bunch:
    """A text corpus in scikit-learn's ``load_files`` layout: one sub-folder per class.

    ``path/<class>/<document>``: every regular file below a class folder is one document of
    that class, at any depth (``ham/2024/1.txt`` is a ``ham`` document; scikit-learn's
    ``load_files`` reads only the files directly inside, and fails on a nested folder).
    Hidden files and folders (names starting with ``.``) and files directly in ``path`` are
    skipped. Documents are kept as they come: undecodable bytes are replaced, and empty
    documents are kept; both are said in a :class:`CorpusWarning`.

    Parameters
    ----------
    path : str or path-like
        The corpus folder.
    categories : str or list of str, optional
        Class folders to load; default all of them.
    encoding : str, default "utf-8"
        Text encoding of the documents.
    errors : str, default "replace"
        How undecodable bytes are handled (as in :meth:`bytes.decode`): ``"replace"`` keeps
        going with U+FFFD, ``"strict"`` raises.

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
        class, or (``errors="strict"``) a document cannot be decoded with ``encoding``.

    Warns
    -----
    CorpusWarning
        One line each, naming the first few: the files not valid in ``encoding`` (decoded
        with ``errors``), the empty documents, and the entries below the class folders that
        are not documents (broken links, sockets, links back to a folder already read);
        and each class folder without documents.
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
    log = CorpusLog(encoding, errors)
    for name in chosen:
        files = class_documents(root / name, log)
        if not files:
            warnings.warn(
                f"class folder {str(root / name)!r} holds no documents", CorpusWarning, stacklevel=2
            )
        for file in files:
            data.append(log.document(str(file), read_text(file, log)))
            target.append(name)
            filenames.append(str(file))
    if not data:
        raise ValueError(f"path {str(root)!r} holds no documents in its class folders {chosen}")
    log.warn()
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
        Passed to :func:`pandas.read_csv` (``sep``, ``encoding``, ...). ``encoding_errors``
        defaults to ``"replace"`` (undecodable bytes become U+FFFD); ``"strict"`` raises.

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
        A column is missing, or a row has no label (a missing or blank cell): the message
        names the line of the file where the first few such rows start (the header is line
        1), or their data row numbers when ``read_csv_kwargs`` may skip lines.

    Warns
    -----
    CorpusWarning
        The file is not valid in its encoding (decoded with ``encoding_errors``); rows with
        an empty text (kept as ``""``), counted and the first few lines named.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"path {str(file)!r} is not a file")
    kwargs = dict(read_csv_kwargs)
    log = CorpusLog(
        kwargs.pop("encoding", None) or "utf-8", kwargs.pop("encoding_errors", "replace")
    )
    log.sep = kwargs.get("sep", kwargs.get("delimiter", ","))
    # Lines of the file can be named for rows unless an option skips or merges lines.
    log.lines_known = set(kwargs) <= _ROW_KEEPING and isinstance(log.sep, str) and len(log.sep) == 1
    with counting_decode_errors(log.errors) as (handler, box):
        try:
            frame = pd.read_csv(file, encoding=log.encoding, encoding_errors=handler, **kwargs)
        except UnicodeDecodeError as exc:
            raise ValueError(decode_message(file, log.encoding, exc)) from exc
    if box[0]:
        log.undecodable.add(str(file))
    missing = [c for c in (label, text) if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{str(file)!r} lacks the column(s) {missing} (label={label!r}, text={text!r}); "
            f"its columns are {list(frame.columns)}"
        )
    unlabelled = missing_labels(frame[label])
    if unlabelled.size:
        raise unlabelled_error(file, unlabelled, label, log)
    for row in empty_texts(frame[text]):
        log.empty.add((file, int(row)))
    log.warn()
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
