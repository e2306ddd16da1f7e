"""Options several commands share: ``--alpha`` values, range checks, the progress bar."""

from __future__ import annotations

import sys
import time

import numpy as np

from bayesnb.cli.data import DATA_HELP
from bayesnb.cli.errors import DataError

__all__ = [
    "CV_HELP",
    "TEMPERATURE_HELP",
    "Progress",
    "check_numbers",
    "parse_alpha",
    "parse_cv",
    "parse_temperature",
]

CV_HELP = (
    "N (N-fold stratified cross-validation, N >= 2 and at most the smallest class) or loo "
    "(leave-one-out)"
)


def _positive_or(text: str | None, option: str, word: str):
    """The value of ``option``: None (not given), ``word`` or a finite positive float."""
    if text is None or text == word:
        return text
    try:
        value = float(text)
    except ValueError:
        value = np.nan
    if not (np.isfinite(value) and value > 0):
        raise DataError(f"{option} must be a positive number or {word!r}, got {text!r}")
    return value


def parse_alpha(text: str | None):
    """The value of ``--alpha``: None (not given), ``"evidence"`` or a positive float."""
    return _positive_or(text, "--alpha", "evidence")


TEMPERATURE_HELP = (
    "likelihood temperature τ of the probabilities, p(c | x) ∝ p(c) p(x | c)^τ (1: the model "
    "as it is), or 'loo' to learn it by exact leave-one-out: calibrated probabilities on long "
    "documents; predictions are unchanged"
)


def parse_temperature(text: str | None):
    """The value of ``--temperature``: None (not given), ``"loo"`` or a positive float."""
    return _positive_or(text, "--temperature", "loo")


def parse_cv(text: str | None):
    """The value of ``--cv``: None (not given), ``"loo"`` or an integer number of folds >= 2."""
    if text is None:
        return None
    text = str(text).strip()
    if text.lower() == "loo":
        return "loo"
    try:
        folds = int(text)
    except ValueError:
        raise DataError(f"--cv must be {CV_HELP}, got {text!r}") from None
    if folds < 2:
        raise DataError(f"--cv must be {CV_HELP}, got {text!r}")
    return folds


def check_numbers(args) -> None:
    """Refuse out-of-range numeric options before any data is loaded or model fitted."""
    minimum = {
        "draws": 1,
        "chains": 1,
        "tune": 0,
        "seed": 0,
        "chunk_size": 1,
        "hash_features": 1,
        "top": 1,
        "max_features": 1,
        "max_iter": 1,
    }
    parse_cv(getattr(args, "cv", None))
    for name, low in minimum.items():
        value = getattr(args, name, None)
        if value is not None and value < low:
            option = name.replace("_", "-")
            raise DataError(f"--{option} must be an integer >= {low}, got {value}")
    test_size = getattr(args, "test_size", None)
    if test_size is not None and not 0 < test_size < 1:
        raise DataError(f"--test-size must be a fraction in (0, 1), got {test_size}")
    if not str(getattr(args, "data", "x")).strip():
        raise DataError("--data is empty: " + DATA_HELP)


class Progress:
    """A plain-text progress bar on stderr: one line per finished step, with its time."""

    def __init__(self, total: int, stream=None) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()

    def step(self, name: str, seconds: float) -> None:
        self.done = min(self.done + 1, self.total)
        width = 24
        fill = round(width * self.done / self.total)
        bar = "#" * fill + "." * (width - fill)
        print(
            f"[{bar}] {self.done:>2}/{self.total}  {seconds:6.2f} s  {name}",
            file=self.stream,
            flush=True,
        )

    def report_callback(self, _done: int, _total: int, name: str, seconds: float) -> None:
        self.step(name, seconds)
