"""``bayesnb predict``: a saved model applied to new documents, one CSV row per document.

A corpus on disk (a folder of documents, with or without class sub-folders, a CSV file with a
``text`` column, or a glob pattern) is read ``--chunk-size`` documents at a time and mapped
onto the model's columns by :class:`bayesnb.columns.TextColumns`: a vocabulary model keeps
the words it knows (the others are dropped, or pooled into UNK for ``unk=True``), a hashed
model hashes with its recorded settings. An embedded data set is scored on every row (text:
the fortunes, mapped the same way; tables: their columns must be the model's).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from bayesnb.cli.data import DEMO_SEED, is_corpus, load_data
from bayesnb.cli.errors import DataError, one_line
from bayesnb.validation import ESTIMATES

__all__ = ["add_arguments", "load_model", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``predict`` on its sub-command parser."""
    parser.description = (
        "Score every document of --data with the model saved in MODEL_FILE and write "
        "--out: one row per document with its name (its path, FILE.csv:ROW for a row of "
        "a CSV file, or the row number of an embedded data set), the predicted class and "
        "one probability column per class (proba_<class>). A corpus on disk is a folder "
        "of text files (class sub-folders or not), a CSV file with a 'text' column, or a "
        "quoted glob pattern; it is read --chunk-size documents at a time (constant "
        "memory), with progress on stderr. Words the model never saw are dropped, or "
        "pooled into UNK for a model fitted with unk=True; a model fitted with "
        "--hash-features hashes the text the same way. --estimate rescores with another "
        "estimate without refitting."
    )
    parser.add_argument("model_file", metavar="MODEL_FILE", help="a model saved by `fit`")
    parser.add_argument(
        "--data",
        required=True,
        metavar="SPEC",
        help="an embedded data set, or a folder, CSV file or quoted glob pattern of documents",
    )
    parser.add_argument(
        "--out", required=True, metavar="predictions.csv", help="the CSV file written ('-': stdout)"
    )
    parser.add_argument(
        "--estimate", choices=ESTIMATES, help="score with this estimate (default: the model's)"
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=10_000,
        metavar="N",
        help="documents read and scored at a time (10000)",
    )


def load_model(path: str | os.PathLike, estimate: str | None = None):
    """The model saved at ``path`` (rescored with ``estimate``); input errors as DataError.

    A file saved from a text pipeline gives the pipeline's estimator: it records the
    vectorizer, which :class:`bayesnb.columns.TextColumns` rebuilds for a corpus read in chunks.
    """
    from bayesnb.io import load
    from bayesnb.pipeline import final_estimator

    try:
        est = final_estimator(load(path))
    except FileNotFoundError:
        raise DataError(f"no model file at {str(path)!r}") from None
    except (OSError, ValueError) as exc:
        raise DataError(f"{str(path)!r} is not a bayesnb model file: {one_line(exc)}") from None
    if estimate is not None:
        try:
            est.set_params(estimate=estimate)
            est._check_params()
        except (TypeError, ValueError) as exc:
            raise DataError(
                f"{type(est).__name__} from {str(path)!r} cannot score with "
                f"estimate={estimate!r}: {one_line(exc)}"
            ) from None
    return est


def _text_chunks(est, spec: str, chunk_size: int):
    """``(columns, chunks, total)``: the mapping and ``(names, X)`` chunks of a text corpus."""
    from bayesnb import datasets
    from bayesnb.columns import TextColumns, iter_texts, text_files
    from bayesnb.corpora import is_csv

    try:
        columns = TextColumns(est)
    except ValueError as exc:
        raise DataError(f"--data {spec!r} is text, but {one_line(exc)}") from None
    if is_corpus(spec):
        try:
            files = text_files(spec)
        except (OSError, ValueError) as exc:
            raise DataError(f"--data {spec!r}: {one_line(exc)}") from None
        total = None if any(map(is_csv, files)) else len(files)
        texts = iter_texts(files, chunk_size)
    else:  # the embedded fortunes: small, in memory, named by row number
        cats = [c.strip() for c in spec.partition(":")[2].split(",") if c.strip()] or None
        try:
            docs, _ = datasets.load_fortunes(cats, return_X_y=True)
        except (OSError, ValueError) as exc:
            raise DataError(f"--data {spec!r}: {one_line(exc)}") from None
        total, texts = len(docs), _numbered(docs, chunk_size)

    def chunks() -> Iterator[tuple[list[str], object]]:
        for names, batch in texts:
            yield names, columns.transform(batch)

    return columns, chunks(), total


def _table_chunks(est, spec: str, chunk_size: int):
    """``(names, X)`` chunks of an embedded table whose columns are the model's."""
    from bayesnb.families import family_of

    data = load_data(spec, seed=DEMO_SEED)
    kinds = family_of(est).data_kinds
    if data.kind not in kinds:
        raise DataError(
            f"the {type(est).__name__} models {' or '.join(kinds)} data; --data {spec!r} holds "
            f"{data.kind} data"
        )
    names = getattr(est, "feature_names_in_", None)
    have = [str(f) for f in data.feature_names]
    if data.X.shape[1] != est.n_features_in_ or (
        names is not None and [str(f) for f in names] != have
    ):
        raise DataError(
            f"--data {spec!r} has {data.X.shape[1]} columns ({', '.join(have[:3])}, ...), not "
            f"the {est.n_features_in_} columns the {type(est).__name__} was fitted on"
        )
    return _numbered(data.X, chunk_size), data.X.shape[0]


def _numbered(rows, chunk_size: int):
    """``(names, rows)`` chunks of ``rows`` (a list or a matrix), named by their row numbers."""
    n = rows.shape[0] if hasattr(rows, "shape") else len(rows)
    for s in range(0, n, chunk_size):
        yield [str(i) for i in range(s, min(s + chunk_size, n))], rows[s : s + chunk_size]


def run(args) -> int:
    """``bayesnb predict``: 0 when the predictions are written; input errors raise
    :class:`DataError`."""
    from bayesnb.families import family_of
    from bayesnb.streaming import DocumentProgress

    spec = str(args.data).strip()
    est = load_model(args.model_file, args.estimate)
    text = is_corpus(spec) or spec.partition(":")[0] == "fortunes"
    columns = None
    if text:
        if "text" not in family_of(est).data_kinds:
            raise DataError(
                f"--data {spec!r} is text, but {str(args.model_file)!r} holds a "
                f"{type(est).__name__}, which models {' or '.join(family_of(est).data_kinds)} "
                "data, not word counts"
            )
        columns, chunks, total = _text_chunks(est, spec, args.chunk_size)
        scorer = columns.estimator
    else:
        chunks, total = _table_chunks(est, spec, args.chunk_size)
        scorer = est
    out = None if args.out == "-" else Path(args.out)
    bar = DocumentProgress("predict", total, True)
    notes = _Notes()
    n_docs = 0
    try:
        with _output(out) as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(["document", "predicted", *(f"proba_{c}" for c in est.classes_)])
            for names, X in chunks:
                if not names:  # a CSV file with a header only
                    continue
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", RuntimeWarning)
                    warnings.filterwarnings("ignore", message=".*does not have valid feature names")
                    proba = scorer.predict_proba(X)
                notes.add(caught)
                best = scorer.classes_[np.argmax(proba, axis=1)]
                for name, label, row in zip(names, best, proba, strict=True):
                    writer.writerow([name, label, *map(repr, row.tolist())])
                n_docs += len(names)
                bar.update(len(names))
            if n_docs == 0:
                raise DataError(f"--data {spec!r} holds no documents")
            if columns is not None and columns.n_tokens and columns.n_unseen == columns.n_tokens:
                raise DataError(
                    f"no word of --data {spec!r} is in the vocabulary of {str(args.model_file)!r} "
                    f"({columns.n_tokens:,} tokens read): it was fitted on other data"
                )
    except (DataError, BrokenPipeError):  # a closed stdout: main ends quietly
        bar.close(failed=True)
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        bar.close(failed=True)
        raise DataError(f"cannot predict --data {spec!r}: {one_line(exc)}") from None
    bar.close(f" ({columns.summary()})" if columns is not None else "")
    notes.print()
    if out is not None:
        print(
            f"predictions of {n_docs:,} documents ({type(est).__name__}, estimate="
            f"{est.estimate}): {out}"
        )
    return 0


class _Notes:
    """The model's warnings over all chunks, each said once on stderr with the chunks' total
    (a warning per chunk would repeat itself; "N document(s) ..." counts are summed)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, caught) -> None:
        for w in caught:
            text = " ".join(str(w.message).split())
            head, _, rest = text.partition(" ")
            n = int(head) if head.isdigit() else 1
            key = rest if head.isdigit() else text
            self.counts[key] = self.counts.get(key, 0) + n

    def print(self) -> None:
        for text, n in self.counts.items():
            print(f"bayesnb: note: {n:,} {text}", file=sys.stderr)


@contextmanager
def _output(path: Path | None):
    """The output file, written beside its target and renamed over it when complete (a
    failed run leaves no half-written predictions); stdout for None."""
    if path is None:
        try:
            yield sys.stdout
        finally:
            sys.stdout.flush()
        return
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        fh = tmp.open("w", newline="", encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot write --out {str(path)!r}: {one_line(exc)}") from None
    try:
        with fh:
            yield fh
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
