"""Command line: ``bayesnb demo | fit | predict | inspect | report | compare`` (``--help`` on
each).

What each command does and takes is its module's docstring and its ``--help``; ``--data`` is
read by :mod:`bayesnb.cli.data`.

Input errors (unknown data, bad paths, malformed files, a model that does not fit the data)
print one line ``bayesnb: error: ...`` on stderr and exit with status 2.

Layout
------
One module per command, listed in :data:`COMMANDS` (in ``--help`` order, with its one-line
help): ``demo``, ``fit``, ``predict``, ``inspect``, ``report``, ``compare``. Each exposes

- ``add_arguments(parser)``: sets the command's description and options on its sub-command
  parser;
- ``run(args) -> int``: runs it on the parsed arguments and returns the exit status; an
  input error raises :class:`~bayesnb.cli.errors.DataError`, which :func:`main` prints on one
  line and turns into status 2.

Only the module of the command given is imported (``bayesnb --help`` imports no data or model
code: scikit-learn, SciPy, ArviZ and PyMC take seconds), so a module may import what it needs
at its top. A new command is a module ``bayesnb/cli/<command>.py`` with these two functions
plus its entry in :data:`COMMANDS`. The shared modules: ``errors`` (:class:`DataError`, the
one-line report, a closed stdout), ``data`` (``--data`` loading, :func:`load_data`),
``options`` (``--alpha`` values, numeric range checks, the progress bar), ``text`` (the
vectorizer options of ``fit``) and ``models`` (the MODEL names and the estimators built for
them, from the family registry: see the "command line" section of
:class:`bayesnb.families.Family`).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from bayesnb.cli.errors import DataError, run_reporting_errors

__all__ = ["COMMANDS", "DEMO_FORTUNES", "DataError", "load_data", "main"]

#: The commands, in ``bayesnb --help`` order: name -> one-line help. The command ``NAME`` is
#: the module ``bayesnb.cli.NAME`` with ``add_arguments`` and ``run``.
COMMANDS = {
    "demo": "every model × estimate on the embedded data; models/ and reports/demo/",
    "fit": "fit one model on a data set and save it (netCDF)",
    "predict": "apply a saved model to documents; one CSV row per document",
    "inspect": "print what a saved model holds (no data is read)",
    "report": "HTML report of a saved model on a data set",
    "compare": "held-out metrics of several models on one data set",
}


def command_module(name: str):
    """The module of command ``name`` (imported on first use)."""
    return importlib.import_module(f"bayesnb.cli.{name}")


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``bayesnb``, with the options of ``command`` only (the others are named
    with their help, which is all ``bayesnb --help`` shows)."""
    parser = argparse.ArgumentParser(
        prog="bayesnb",
        description="Generative classifiers done the Bayesian way (naive Bayes, GDA).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, text in COMMANDS.items():
        if name == command:
            command_module(name).add_arguments(sub.add_parser(name, help=text))
        else:
            sub.add_parser(name, help=text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bayesnb`` console script.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 on a usage or input error (one line on stderr), 1 when a step that
        does not depend on the input failed (NUTS), 141 (128 + SIGPIPE) when the reader of
        stdout closed it early (``bayesnb predict ... --out - | head``), quietly.
    """
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    # ``bayesnb`` has no option of its own but --help: the command is the first argument.
    command = argv[0] if argv and argv[0] in COMMANDS else None
    args = _parser(command).parse_args(argv)

    def run() -> int:
        from bayesnb.cli.options import check_numbers

        check_numbers(args)
        return command_module(args.command).run(args)

    return run_reporting_errors(run)


def __getattr__(name: str):
    # The shared names of the command line, without importing them for ``bayesnb --help``.
    if name in ("DEMO_FORTUNES", "load_data"):
        from bayesnb.cli import data

        return getattr(data, name)
    raise AttributeError(f"module 'bayesnb.cli' has no attribute {name!r}")
