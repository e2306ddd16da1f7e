"""Command line: ``bayesnb demo | fit | predict | inspect | report | compare`` (``--help`` on
each).

``bayesnb demo`` is the main job: every model under every estimate on the embedded data
(scikit-learn's digits for the discrete models, breast cancer and wine for GDA, Debian's
fortunes when installed), the fitted models written to ``models/`` and the HTML report to
``reports/demo/index.html``. Progress and step times go to stderr, results to stdout, the
report's path last.

``--data`` takes ``digits``, ``breast_cancer``, ``wine``, ``iris``, ``fortunes[:cat1,cat2]``, a
folder with one sub-folder of text files per class, or a CSV file with ``label`` and ``text``
columns. Text goes through scikit-learn's ``CountVectorizer``; its vocabulary becomes the
model's feature names, so a saved model scores new text with the same columns. ``fit``
streams a corpus on disk (a folder, a CSV file, or a glob pattern of files) through
:func:`bayesnb.streaming.fit_files` in chunks of ``--chunk-size`` documents instead of loading
it: a first pass collects the labels and the vocabulary, a second counts (the result equals the
in-memory fit); ``--hash-features N`` counts hashed columns in a single pass. The model file
records the vectorizer (:mod:`bayesnb.columns`), so ``bayesnb predict MODEL --data SPEC --out
CSV`` maps a new corpus onto the model's columns the same way, streamed in chunks too, and
``bayesnb inspect MODEL`` prints what the file holds without reading any data.

Input errors (unknown data, bad paths, malformed files, a model that does not fit the data)
print one line ``bayesnb: error: ...`` on stderr and exit with status 2.

Layout
------
One module per command, listed in :data:`COMMANDS` (in ``--help`` order): ``demo``, ``fit``,
``predict``, ``inspect``, ``report``, ``compare``. Each exposes

- ``add_parser(subparsers) -> argparse.ArgumentParser``: adds the command and its options to
  the sub-command parsers of ``bayesnb``;
- ``run(args) -> int``: runs it on the parsed arguments and returns the exit status; an
  input error raises :class:`~bayesnb.cli.errors.DataError`, which :func:`main` prints on one
  line and turns into status 2.

A new command is a module ``bayesnb/cli/<command>.py`` with
these two functions plus its entry in :data:`COMMANDS`. The shared modules: ``errors``
(:class:`DataError`, the one-line report), ``data`` (``--data`` loading, :func:`load_data`),
``options`` (``--alpha`` values, numeric range checks, the progress bar) and ``models`` (the
MODEL names and the estimators built for them, from the family registry: see the
"command line" section of :class:`bayesnb.families.Family`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bayesnb.cli import compare, demo, fit, inspect, predict, report
from bayesnb.cli.data import DEMO_FORTUNES, load_data
from bayesnb.cli.errors import DataError, run_reporting_errors
from bayesnb.cli.options import check_numbers

__all__ = ["COMMANDS", "DEMO_FORTUNES", "DataError", "load_data", "main"]

#: The commands, in ``bayesnb --help`` order: name -> module with ``add_parser`` and ``run``.
COMMANDS = {
    "demo": demo,
    "fit": fit,
    "predict": predict,
    "inspect": inspect,
    "report": report,
    "compare": compare,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayesnb",
        description="Generative classifiers done the Bayesian way (naive Bayes, GDA).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS.values():
        command.add_parser(sub)
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
        does not depend on the input failed (NUTS).
    """
    args = _parser().parse_args(argv)

    def run() -> int:
        check_numbers(args)
        return COMMANDS[args.command].run(args)

    return run_reporting_errors(run)
