"""The vectorizer options of ``bayesnb fit`` on text: how words become the model's columns.

``--min-df``, ``--max-df``, ``--max-features``, ``--stop-words`` and ``--ngram-range`` are
``CountVectorizer``'s parameters of those names, with its meaning (a document frequency given
with a decimal point is a fraction of the documents, without one a number of documents). The
model file records them (:mod:`bayesnb.columns`), so ``bayesnb predict`` and ``bayesnb report``
tokenise new text the same way.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnb.cli.errors import DataError, one_line

__all__ = ["OPTIONS", "add_vectorizer_options", "vectorizer_settings"]

#: option -> the CountVectorizer parameter it sets
OPTIONS = {
    "--min-df": "min_df",
    "--max-df": "max_df",
    "--max-features": "max_features",
    "--stop-words": "stop_words",
    "--ngram-range": "ngram_range",
}
# the parameters that choose the vocabulary: they need one (not --hash-features)
PRUNING = ("min_df", "max_df", "max_features")


def add_vectorizer_options(parser: argparse.ArgumentParser) -> None:
    """Add the vectorizer options to ``parser`` (``fit``)."""
    group = parser.add_argument_group(
        "text columns",
        "CountVectorizer's parameters of these names, for text data; the model records them, "
        "so predict and report tokenise new text the same way",
    )
    group.add_argument(
        "--min-df",
        metavar="N|F",
        help="keep words in at least N documents, or in a fraction F (with a point: 0.01) of "
        "them (1)",
    )
    group.add_argument(
        "--max-df",
        metavar="N|F",
        help="keep words in at most N documents, or in a fraction F of them (1.0: no limit)",
    )
    group.add_argument(
        "--max-features",
        type=int,
        metavar="N",
        help="keep the N most frequent words (by total count) once --min-df/--max-df applied",
    )
    group.add_argument(
        "--stop-words",
        metavar="english|FILE",
        help="drop scikit-learn's English stop words, or the words of FILE (one per line)",
    )
    group.add_argument(
        "--ngram-range",
        metavar="MIN,MAX",
        help="columns of MIN to MAX consecutive words, e.g. 1,2 for words and word pairs (1,1)",
    )


def vectorizer_settings(args) -> dict:
    """The CountVectorizer parameters the options of ``args`` set (only those given).

    Raises
    ------
    DataError
        A value out of CountVectorizer's range, an unreadable stop-word file.
    """
    out = {}
    for option, key in (("--min-df", "min_df"), ("--max-df", "max_df")):
        text = getattr(args, key, None)
        if text is not None:
            out[key] = _document_frequency(option, text)
    if getattr(args, "max_features", None) is not None:  # >= 1: options.check_numbers
        out["max_features"] = args.max_features
    if getattr(args, "stop_words", None) is not None:
        out["stop_words"] = _stop_words(args.stop_words)
    if getattr(args, "ngram_range", None) is not None:
        out["ngram_range"] = _ngram_range(args.ngram_range)
    return out


def _document_frequency(option: str, text: str) -> int | float:
    expected = f"{option} must be a number of documents >= 1 or a fraction in [0, 1] (0.5)"
    text = text.strip()
    try:
        value = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise DataError(f"{expected}, got {text!r}") from None
    if (isinstance(value, int) and value < 1) or (isinstance(value, float) and not 0 <= value <= 1):
        raise DataError(f"{expected}, got {text!r}")
    return value


def _stop_words(text: str) -> str | list[str]:
    if text.strip() == "english":
        return "english"
    path = Path(text)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(
            f"--stop-words must be 'english' or a file of words, one per line: {one_line(exc)}"
        ) from None
    words = sorted({w.strip() for w in lines if w.strip()})
    if not words:
        raise DataError(f"--stop-words file {text!r} holds no words")
    return words


def _ngram_range(text: str) -> tuple[int, int]:
    expected = "--ngram-range must be MIN,MAX with integers 1 <= MIN <= MAX (1,2)"
    low, sep, high = text.partition(",")
    try:
        pair = (int(low), int(high)) if sep else (int(low), int(low))
    except ValueError:
        raise DataError(f"{expected}, got {text!r}") from None
    if not 1 <= pair[0] <= pair[1]:
        raise DataError(f"{expected}, got {text!r}")
    return pair
