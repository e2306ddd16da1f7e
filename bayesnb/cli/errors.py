"""The command line's input errors: one line ``bayesnb: error: ...`` on stderr, exit status 2."""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["DataError", "one_line", "run_reporting_errors"]


class DataError(ValueError):
    """A ``--data`` specification that names nothing loadable (reported as a usage error)."""


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type name when it has none)."""
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


def run_reporting_errors(run: Callable[[], int]) -> int:
    """``run()``'s exit status, or 2 after printing a :class:`DataError` on one line."""
    try:
        return run()
    except DataError as exc:
        print(f"bayesnb: error: {one_line(exc)}", file=sys.stderr)
        return 2
