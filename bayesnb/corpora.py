"""Corpora as they come: which files a corpus holds, reading them, and what the user is told.

Shared by the in-memory loaders (:mod:`bayesnb.datasets`) and the streamed fits
(:mod:`bayesnb.streaming`), so both read the same documents and report the same things:

- every regular file below a class folder, at any depth, is a document of that class
  (``ham/2024/1.txt`` is a ``ham`` document); hidden files and folders (``.*``) are skipped.
  scikit-learn's ``load_files`` lists only the entries directly inside a class folder (and
  fails reading a nested folder); a corpus sorted into sub-folders is read whole here.
- bytes that are not valid in the encoding are decoded with ``errors`` (default
  ``"replace"``: U+FFFD); the files affected are counted in one :class:`CorpusWarning` that
  names the first few. ``errors="strict"`` makes them a ValueError instead.
- empty documents (nothing but whitespace) are kept, counted and named in one warning;
- entries below a class folder that are neither files nor folders (broken links, sockets) or
  that link back to a folder already read are named in one warning, never dropped silently;
- a CSV row without a label (a missing or blank cell) is a ValueError naming its line.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import glob
import gzip
import os
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "CorpusLog",
    "CorpusWarning",
    "class_documents",
    "is_pattern",
    "iter_documents",
    "list_files",
]

_GLOB_CHARS = frozenset("*?[")
# The columns of a CSV corpus: one document per row.
LABEL_COLUMN, TEXT_COLUMN = "label", "text"
# Names a warning or an error shows; the rest are counted.
_NAMED = 3


class CorpusWarning(UserWarning):
    """A corpus was read with something the user should know: undecodable bytes replaced,
    empty documents, or entries that are not documents."""


class ClassFile(Path):
    """A document path that knows its class: the class folder it was found below."""

    def __init__(self, *args, label: str | None = None) -> None:
        super().__init__(*args)
        self.label = label

    def __reduce__(self):
        return _class_file, (str(self), self.label)


def _class_file(path: str, label: str | None) -> ClassFile:
    return ClassFile(path, label=label)


def label_of(path: Path) -> str:
    """The class of a document file: its class folder, else its parent folder's name."""
    return getattr(path, "label", None) or path.parent.name


# -- what the user is told --------------------------------------------------------------------
class _Tally:
    """How many, and the first few (a name, or a CSV file and a 0-based data row)."""

    def __init__(self) -> None:
        self.n = 0
        self.first: list[str | tuple[Path, int]] = []

    def add(self, item: str | tuple[Path, int]) -> None:
        self.n += 1
        if len(self.first) < _NAMED:
            self.first.append(item)


class CorpusLog:
    """What one load of a corpus met; :meth:`warn` says it, one line per finding."""

    def __init__(self, encoding: str = "utf-8", errors: str = "replace") -> None:
        self.encoding, self.errors = encoding, errors
        self.undecodable = _Tally()  # files decoded with ``errors``
        self.empty = _Tally()  # documents holding nothing but whitespace
        self.skipped = _Tally()  # entries below a class folder that are not documents
        # How load_csv's rows map to lines of the file (its pandas options may skip lines).
        self.sep, self.lines_known = ",", True

    def document(self, name: str, text: str) -> str:
        """``text``, counted when empty."""
        if not text.strip():
            self.empty.add(name)
        return text

    def lines(self, path: Path, rows: Iterable[int]) -> dict[int, int]:
        """The lines of ``path`` where data ``rows`` start, when they can be known."""
        return csv_lines(path, rows, self.encoding, self.sep) if self.lines_known else {}

    def _names(self, tally: _Tally) -> str:
        lines = {}
        for path in {item[0] for item in tally.first if isinstance(item, tuple)}:
            rows = [item[1] for item in tally.first if isinstance(item, tuple) and item[0] == path]
            lines[path] = self.lines(path, rows)
        names = [
            item if isinstance(item, str) else f"{item[0]} {row_name(item[1], lines[item[0]])}"
            for item in tally.first
        ]
        more = tally.n - len(names)
        return ", ".join(names) + (f" and {more:,} more" if more else "")

    def messages(self) -> list[str]:
        """The findings, one line each."""
        out = []
        if self.undecodable.n:
            how = " (undecodable bytes became U+FFFD)" if self.errors == "replace" else ""
            out.append(
                f"{_count(self.undecodable.n, 'file')} not valid {self.encoding}, decoded with "
                f"errors={self.errors!r}{how}: {self._names(self.undecodable)}"
            )
        if self.empty.n:
            out.append(
                f"{_count(self.empty.n, 'empty document')} (kept; no text but whitespace): "
                f"{self._names(self.empty)}"
            )
        if self.skipped.n:
            out.append(
                f"{_count(self.skipped.n, 'entry', 'entries')} below the class folders not read "
                f"as documents: {self._names(self.skipped)}"
            )
        return out

    def warn(self, stacklevel: int = 2) -> None:
        """One :class:`CorpusWarning` per finding, attributed ``stacklevel`` frames up."""
        for message in self.messages():
            warnings.warn(message, CorpusWarning, stacklevel=stacklevel + 1)


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def row_name(row: int, lines: dict[int, int]) -> str:
    """A CSV data row (0-based, after the header) as the user finds it in the file."""
    return f"line {lines[row]}" if row in lines else f"data row {row + 1}"


def csv_lines(path: Path, rows: Iterable[int], encoding: str, sep: str = ",") -> dict[int, int]:
    """The line of ``path`` where each data row (0-based, after the header) starts.

    Rows as pandas' default parser counts them: blank lines are skipped and a quoted text may
    span lines. Read again only to name a row in a message, so it costs nothing otherwise.
    """
    wanted, out = set(rows), {}
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", encoding=encoding, errors="replace", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep)
        start, row = 1, -1  # the header is row -1
        for record in reader:
            if record:
                if row in wanted:
                    out[row] = start
                    if len(out) == len(wanted):
                        break
                row += 1
            start = reader.line_num + 1
    return out


def unlabelled_error(path: Path, rows: np.ndarray, label: str, log: CorpusLog) -> ValueError:
    """The error for CSV rows without a label: how many, and the lines of the first few."""
    rows = [int(r) for r in rows]
    lines = log.lines(path, rows[:_NAMED])
    named = ", ".join(row_name(r, lines) for r in rows[:_NAMED])
    more = f" and {len(rows) - _NAMED:,} more" if len(rows) > _NAMED else ""
    how = (
        "line numbers of the file, the header is line 1"
        if all(r in lines for r in rows[:_NAMED])
        else "data rows numbered from 1 after the header"
    )
    return ValueError(
        f"CSV file {str(path)!r} has {_count(len(rows), 'row')} without a {label!r} value: "
        f"{named}{more} ({how})"
    )


def missing_labels(labels: pd.Series) -> np.ndarray:
    """Positions of labels that are missing or blank text."""
    values = labels.to_numpy(dtype=object)
    blank = [v is None or (isinstance(v, str) and not v.strip()) for v in values]
    return np.flatnonzero(labels.isna().to_numpy() | np.asarray(blank, dtype=bool))


def empty_texts(texts: pd.Series) -> np.ndarray:
    """Positions of texts that are missing or only whitespace."""
    values = texts.to_numpy(dtype=object)
    return np.flatnonzero([not isinstance(v, str) or not v.strip() for v in values])


# -- decoding, counted -----------------------------------------------------------------------
_LOCAL = threading.local()
_COUNTED = "bayesnb.counted"


def _counted_handler(exc: UnicodeError):
    # pandas' parser decodes field by field with the handler named by ``encoding_errors``:
    # this one counts the hits and defers to the user's handler.
    box = getattr(_LOCAL, "box", None)
    if box is None:  # decoding outside counting_decode_errors (another thread): just replace
        return codecs.replace_errors(exc)
    box[0] += 1
    return codecs.lookup_error(box[1])(exc)


codecs.register_error(_COUNTED, _counted_handler)


@contextlib.contextmanager
def counting_decode_errors(errors: str):
    """``(encoding_errors, box)``: pass the first to pandas; ``box[0]`` counts the hits."""
    box = [0, errors]
    previous = getattr(_LOCAL, "box", None)
    _LOCAL.box = box
    try:
        yield ("strict" if errors == "strict" else _COUNTED), box
    finally:
        _LOCAL.box = previous


def decode_message(path: Path, encoding: str, exc: UnicodeDecodeError) -> str:
    return (
        f"cannot decode {str(path)!r} as {encoding}: {exc.reason} at byte {exc.start}; pass "
        "the right encoding= or errors='replace'"
    )


def read_text(path: Path, log: CorpusLog) -> str:
    """A file decoded as a whole (no newline translation); undecodable ones go to ``log``."""
    data = path.read_bytes()
    try:
        text = data.decode(log.encoding)
    except UnicodeDecodeError as exc:
        if log.errors == "strict":
            raise ValueError(decode_message(path, log.encoding, exc)) from exc
        text = data.decode(log.encoding, errors=log.errors)
        log.undecodable.add(str(path))
    return text


# -- which files -----------------------------------------------------------------------------
def is_csv(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".csv") or name.endswith(".csv.gz")


def _visible(path: Path) -> bool:
    return not path.name.startswith(".")


def is_pattern(text: str) -> bool:
    """Whether ``text`` is a glob pattern rather than the name of an existing path."""
    return bool(_GLOB_CHARS & set(text)) and not Path(text).exists()


def class_documents(folder: Path, log: CorpusLog | None = None) -> list[ClassFile]:
    """Every visible regular file below ``folder``, at any depth, sorted, labelled by it.

    Links are followed; a folder reached twice (a link back up the tree) is read once, and it
    and any entry that is neither a file nor a folder are counted in ``log.skipped``.
    """
    log = CorpusLog() if log is None else log
    found: list[ClassFile] = []
    seen = {folder.resolve()}
    # Depth first in sorted order, so the entries skipped are named in the order of the paths.
    pending = [iter(sorted(folder.iterdir()))]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
        elif not _visible(entry):
            continue
        elif entry.is_file():
            found.append(ClassFile(entry, label=folder.name))
        elif not entry.is_dir():
            log.skipped.add(f"{entry} (not a regular file)")
        elif entry.resolve() in seen:
            log.skipped.add(f"{entry} (a link to a folder already read)")
        else:
            seen.add(entry.resolve())
            pending.append(iter(sorted(entry.iterdir())))
    return sorted(found)


def list_files(
    source: str | os.PathLike | Sequence[str | os.PathLike], log: CorpusLog | None = None
) -> list[Path]:
    """The files a ``source`` names: folders, glob patterns, files, or a list of them.

    A folder of class sub-folders gives the files below each (:func:`class_documents`, each
    labelled by its class folder); a folder without sub-folders gives its CSV files.

    Raises
    ------
    FileNotFoundError
        A path that does not exist or a pattern that matches no file.
    ValueError
        An empty list, or a folder with neither class sub-folders nor CSV files.
    """
    if isinstance(source, str | os.PathLike):
        items = [source]
    else:
        items = list(source)
        if not items:
            raise ValueError("source is an empty list of paths")
    files: list[Path] = []
    for item in items:
        text = os.fspath(item)
        if isinstance(item, ClassFile):
            files.append(item)  # from an earlier listing: it keeps its class
        elif is_pattern(text):
            matched = sorted(Path(p) for p in glob.glob(text, recursive=True))
            matched = [p for p in matched if p.is_file()]
            if not matched:
                raise FileNotFoundError(f"source pattern {text!r} matches no file")
            files.extend(matched)
        elif Path(text).is_dir():
            files.extend(_folder_files(Path(text), log))
        elif Path(text).is_file():
            files.append(Path(text))
        else:
            raise FileNotFoundError(f"source {text!r} is neither a file, a folder nor a pattern")
    return files


def _folder_files(folder: Path, log: CorpusLog | None) -> list[Path]:
    """``load_files`` layout: the files below each class sub-folder; else the CSV files."""
    subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and _visible(p))
    if subfolders:
        return [f for sub in subfolders for f in class_documents(sub, log)]
    csvs = sorted(p for p in folder.iterdir() if p.is_file() and is_csv(p))
    if not csvs:
        raise ValueError(
            f"folder {str(folder)!r} has neither class sub-folders (one document per file) nor "
            "CSV files with label/text columns"
        )
    return csvs


# -- reading in chunks -----------------------------------------------------------------------
def _csv_chunks(
    path: Path, chunk_size: int, log: CorpusLog, columns: tuple[str, ...]
) -> Iterator[pd.DataFrame]:
    """The rows of a CSV file, ``chunk_size`` at a time, as raw strings (NaN when missing).

    Labels are read as text here and typed once for the whole corpus, so a chunk whose labels
    happen to be all digits is not typed differently from the rest.
    """
    with counting_decode_errors(log.errors) as (handler, box):
        try:
            # The header first: both columns must exist even when only labels are read.
            header = pd.read_csv(
                path, nrows=0, encoding=log.encoding, encoding_errors=handler
            ).columns
        except pd.errors.EmptyDataError:
            raise ValueError(f"CSV file {str(path)!r} is empty") from None
        missing = [c for c in (LABEL_COLUMN, TEXT_COLUMN) if c not in header]
        if missing:
            raise ValueError(
                f"CSV file {str(path)!r} lacks the column(s) {missing}; it needs '{LABEL_COLUMN}' "
                f"and '{TEXT_COLUMN}' columns, found {list(header)}"
            )
        reader = pd.read_csv(
            path,
            usecols=list(columns),
            dtype=dict.fromkeys(columns, str),
            chunksize=chunk_size,
            encoding=log.encoding,
            encoding_errors=handler,
        )
    row = 0
    with reader:
        while True:
            with counting_decode_errors(log.errors) as (_, box_chunk):
                frame = next(reader, None)
            box[0] += box_chunk[0]
            if frame is None:
                break
            unlabelled = missing_labels(frame[LABEL_COLUMN])
            if unlabelled.size:
                raise unlabelled_error(path, row + unlabelled, LABEL_COLUMN, log)
            if TEXT_COLUMN in columns:
                for i in empty_texts(frame[TEXT_COLUMN]):
                    log.empty.add((path, row + int(i)))
            row += len(frame)
            yield frame
    if box[0]:
        log.undecodable.add(str(path))


def _named_errors(frames: Iterable[pd.DataFrame], path: Path, encoding: str):
    """``frames``, with parse and decoding errors naming the file they come from."""
    try:
        yield from frames
    except UnicodeDecodeError as exc:
        raise ValueError(decode_message(path, encoding, exc)) from exc
    except pd.errors.ParserError as exc:
        raise ValueError(f"cannot parse CSV file {str(path)!r}: {exc}") from exc


def chunks(
    files: Iterable[Path],
    chunk_size: int,
    log: CorpusLog,
    columns: tuple[str, ...] = (LABEL_COLUMN, TEXT_COLUMN),
) -> Iterator[tuple[np.ndarray, list[str] | None]]:
    """``(raw labels, texts)`` of at most ``chunk_size`` documents at a time, in file order.

    Raw labels are strings (class folder names, or a CSV's label text); texts are None when
    only the label column is asked for. What the reading meets goes to ``log``.
    """
    want_text = TEXT_COLUMN in columns
    labels: list[str] = []
    texts: list[str] = []
    for path in files:
        if is_csv(path):
            if labels:  # documents before this file go first: file order is kept
                yield np.asarray(labels, dtype=str), texts if want_text else None
                labels, texts = [], []
            frames = _csv_chunks(path, chunk_size, log, columns)
            for frame in _named_errors(frames, path, log.encoding):
                raw = frame[LABEL_COLUMN].to_numpy(dtype=object).astype(str)
                text = frame[TEXT_COLUMN].fillna("").astype(str).tolist() if want_text else None
                yield raw, text
            continue
        labels.append(label_of(path))
        if want_text:
            texts.append(log.document(str(path), read_text(path, log)))
        if len(labels) == chunk_size:
            yield np.asarray(labels, dtype=str), texts if want_text else None
            labels, texts = [], []
    if labels:
        yield np.asarray(labels, dtype=str), texts if want_text else None


def iter_documents(
    files: Iterable[Path], encoding: str = "utf-8", *, errors: str = "replace"
) -> Iterator[tuple[str, str]]:
    """``(label, text)`` of every document of ``files``, in order.

    A CSV file yields its rows (columns ``label`` and ``text``; labels as written), any other
    file is one document labelled by its class folder (:func:`list_files`) or else its parent
    folder's name. Undecodable files and empty documents are said in :class:`CorpusWarning`\\ s
    once the documents are exhausted.
    """
    log = CorpusLog(encoding, errors)
    for labels, texts in chunks(files, 10_000, log):
        yield from zip(labels.tolist(), texts, strict=True)
    log.warn()
