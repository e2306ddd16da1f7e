"""Command line: ``bayesnb demo`` (more subcommands join as their modules land).

``bayesnb demo`` fits every discrete event model under every estimate on the embedded data
(scikit-learn's digits, and Debian's fortunes when installed), prints the held-out metrics of
:func:`bayesnb.compare` (accuracy, log loss, Brier score, log predictive density) with the
time of each step, writes the table to ``<reports>/demo/results.csv`` and the fitted models
to ``<models>/``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

from bayesnb import datasets
from bayesnb.compare import all_estimates, compare
from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

__all__ = ["main"]

DEMO_SEED = 0
DEMO_TEST_SIZE = 0.3
DEMO_FORTUNES = ["art", "computers", "food", "law", "science"]

# "map" needs concentrations above 1 for an interior mode; alpha = 2 is add-one smoothing.
MAP_PRIOR = {"alpha": 2.0, "class_alpha": 2.0}
# Metrics of bayesnb.compare shown in the table, with their column formats.
_COLUMNS = {"accuracy": "{:.4f}", "log_loss": "{:.4f}", "brier": "{:.4f}", "lpd": "{:.1f}"}


@dataclass
class _Task:
    """One data set × model: an unfitted estimator (alpha = 1) and its train/test split."""

    data: str
    model: str
    estimator: object
    X_train: object
    X_test: object
    y_train: np.ndarray
    y_test: np.ndarray


def _digits_tasks(seed: int) -> list[_Task]:
    counts = datasets.load_digits_counts()
    binary = datasets.load_digits_binary()
    y = counts.target
    train, test = train_test_split(
        np.arange(len(y)), test_size=DEMO_TEST_SIZE, stratify=y, random_state=seed
    )

    def task(model: str, estimator, X) -> _Task:
        return _Task("digits", model, estimator, X[train], X[test], y[train], y[test])

    return [
        task("bernoulli", BernoulliNB(binarize=None), binary.data),
        task("multinomial", MultinomialNB(), counts.data),
        # Pixel intensities 0..16 as 17 categories per pixel.
        task("categorical", CategoricalNB(), counts.data),
    ]


def _fortunes_task(seed: int) -> _Task:
    data, y = datasets.load_fortunes(DEMO_FORTUNES, return_X_y=True)
    docs = np.asarray(data, dtype=object)
    d_train, d_test, y_train, y_test = train_test_split(
        docs, y, test_size=DEMO_TEST_SIZE, stratify=y, random_state=seed
    )
    vectorizer = CountVectorizer().fit(d_train)
    X_train, X_test = vectorizer.transform(d_train), vectorizer.transform(d_test)
    return _Task("fortunes", "multinomial", MultinomialNB(), X_train, X_test, y_train, y_test)


def _run_task(task: _Task, out_models: Path) -> pd.DataFrame:
    """Held-out metrics of the task's model under every estimate; the fitted models saved."""
    estimators = all_estimates(task.estimator, map_params=MAP_PRIOR)
    # The MLE gives probability 0 to unseen features by design: the table shows it (lpd =
    # -inf) instead of a warning per model.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        table = compare(
            estimators, task.X_train, task.y_train, task.X_test, task.y_test, loo=False
        ).to_dataframe()
    for name, est in estimators.items():
        est.fit(task.X_train, task.y_train).save(out_models / f"{task.data}-{task.model}-{name}.nc")
    table = table.rename_axis("estimate").reset_index()
    table.insert(0, "model", task.model)
    table.insert(0, "data", task.data)
    return table


def _format_table(table: pd.DataFrame) -> str:
    header = f"{'data':<9} {'model':<12} {'estimate':<8}"
    header += "".join(f"{c:>10}" for c in _COLUMNS) + f"{'fit_ms':>9}{'pred_ms':>9}"
    lines = [header]
    for r in table.itertuples():
        line = f"{r.data:<9} {r.model:<12} {r.estimate:<8}"
        line += "".join(f"{fmt.format(getattr(r, c)):>10}" for c, fmt in _COLUMNS.items())
        line += f"{1e3 * r.fit_time:>9.1f}{1e3 * r.score_time:>9.1f}"
        lines.append(line)
    return "\n".join(lines)


def run_demo(out_models: Path, out_reports: Path, *, seed: int = DEMO_SEED) -> pd.DataFrame:
    """Fit every model × estimate on the embedded data, print the table and write outputs.

    Parameters
    ----------
    out_models : Path
        Folder for the fitted models (``<data>-<model>-<estimate>.nc``).
    out_reports : Path
        Folder under which ``demo/results.csv`` is written.
    seed : int
        Seed of the stratified 70/30 train/test splits.

    Returns
    -------
    pandas.DataFrame
        One row per data set × model × estimate with the metrics of :func:`bayesnb.compare`.
    """
    start = t0 = time.perf_counter()
    tasks = _digits_tasks(seed)
    print(f"[{time.perf_counter() - t0:6.2f} s] digits: 1797 images, 64 pixels, 70/30 split")
    t0 = time.perf_counter()
    try:
        tasks.append(_fortunes_task(seed))
    except (FileNotFoundError, ValueError) as exc:  # not installed, or without those categories
        print(f"note: fortunes skipped ({exc})")
    else:
        t = tasks[-1]
        n_docs = t.X_train.shape[0] + t.X_test.shape[0]
        print(
            f"[{time.perf_counter() - t0:6.2f} s] fortunes: {n_docs} records in "
            f"{len(DEMO_FORTUNES)} categories, {t.X_train.shape[1]} words"
        )
    out_models.mkdir(parents=True, exist_ok=True)
    tables = []
    for task in tasks:
        t0 = time.perf_counter()
        tables.append(_run_task(task, out_models))
        print(f"[{time.perf_counter() - t0:6.2f} s] {task.data} {task.model}: 4 estimates")
    table = pd.concat(tables, ignore_index=True)
    print()
    print(_format_table(table))
    print()
    csv_path = out_reports / "demo" / "results.csv"
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    print(f"table written to {csv_path}; {len(table)} models written to {out_models}/")
    print(f"demo done in {time.perf_counter() - start:.2f} s")
    return table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayesnb",
        description="Generative classifiers done the Bayesian way (naive Bayes, GDA).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = sub.add_parser(
        "demo",
        help="fit every model under every estimate on the embedded data sets",
        description=(
            "Fit Bernoulli, multinomial and categorical naive Bayes under the mle, map, mean "
            "and bayes estimates on scikit-learn's digits (and multinomial NB on Debian's "
            "fortunes when installed); print held-out accuracy, log loss and timings."
        ),
    )
    demo.add_argument(
        "--out-models",
        type=Path,
        default=Path("models"),
        help="folder for the fitted models (default: models)",
    )
    demo.add_argument(
        "--out-reports",
        type=Path,
        default=Path("reports"),
        help="folder for reports; the table goes to <folder>/demo/results.csv (default: reports)",
    )
    demo.add_argument(
        "--seed", type=int, default=DEMO_SEED, help="seed of the 70/30 split (default: 0)"
    )
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
        The exit status (argparse exits with 2 on a usage error).
    """
    args = _parser().parse_args(argv)
    if args.command == "demo":
        run_demo(args.out_models, args.out_reports, seed=args.seed)
    return 0
