"""The command line's input errors: one line ``bayesnb: error: ...`` on stderr, exit status 2;
a stdout closed by its reader ends the command quietly, as Unix tools do."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = ["EXIT_BROKEN_PIPE", "DataError", "one_line", "run_reporting_errors"]

#: The status of a command whose stdout was closed early (128 + SIGPIPE, what a shell reports
#: for a Unix tool stopped by ``| head``).
EXIT_BROKEN_PIPE = 141


class DataError(ValueError):
    """A ``--data`` specification that names nothing loadable (reported as a usage error)."""


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type name when it has none)."""
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


def run_reporting_errors(run: Callable[[], int]) -> int:
    """``run()``'s exit status, or 2 after printing a :class:`DataError` on one line, or
    :data:`EXIT_BROKEN_PIPE` without a word when the reader of stdout has gone."""
    try:
        return run()
    except DataError as exc:
        print(f"bayesnb: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Nobody reads the rest: stdout goes to devnull, so flushing what Python still
        # buffers at exit raises nothing and prints nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
