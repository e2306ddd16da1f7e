"""``bayesnb demo``: every model × estimate on the embedded data, the models and the report.

The data and models are :func:`_demo_studies`' (Debian's fortunes when installed,
``$BAYESNB_FORTUNES`` names another folder); progress and step times go to stderr, results to
stdout, the report's path last.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnb import datasets
from bayesnb.cli.data import DEMO_FORTUNES, DEMO_SEED, load_data
from bayesnb.cli.errors import DataError
from bayesnb.cli.models import fit_named
from bayesnb.cli.options import Progress
from bayesnb.columns import record_vectorizer

__all__ = ["add_arguments", "run", "run_demo"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``demo`` on its sub-command parser."""
    parser.description = (
        "Fit Bernoulli, multinomial and categorical naive Bayes (digits; multinomial and "
        "Bernoulli on Debian's fortunes when installed) and GDA (breast cancer, wine) under "
        "the mle, map, mean and bayes estimates; save one model per data set × model (the "
        "estimate is a parameter: `predict --estimate` rescores) and build the HTML "
        "report reports/demo/index.html."
    )
    parser.add_argument(
        "--out-models",
        type=Path,
        default=Path("models"),
        help="folder for the fitted models (default: models)",
    )
    parser.add_argument(
        "--out-reports",
        type=Path,
        default=Path("reports"),
        help="the report goes to <folder>/demo/ (default: reports)",
    )
    parser.add_argument(
        "--seed", type=int, default=DEMO_SEED, help="seed of the splits and draws (default: 0)"
    )
    parser.add_argument(
        "--no-nuts", action="store_true", help="skip the NUTS section (saves ~20-40 s)"
    )
    parser.add_argument("--no-fortunes", action="store_true", help="leave Debian's fortunes out")
    parser.add_argument(
        "--quick", action="store_true", help="fewer draws, grid points and repeats (a fast preview)"
    )


def run(args) -> int:
    """``bayesnb demo``: exit status 0 (input errors raise :class:`DataError`)."""
    run_demo(
        args.out_models,
        args.out_reports,
        seed=args.seed,
        nuts=not args.no_nuts,
        quick=args.quick,
        fortunes=not args.no_fortunes,
    )
    return 0


def _demo_studies(seed: int, fortunes: bool, notes: list[str]):
    from bayesnb.report import Study

    digits = load_data("digits", seed=seed)
    studies = [Study(digits, m) for m in ("bernoulli", "multinomial", "categorical")]
    if fortunes:
        try:
            fort = load_data("fortunes:" + ",".join(DEMO_FORTUNES), seed=seed)
        except DataError as exc:
            notes.append(
                "fortunes skipped, no real-text study: install Debian's fortunes "
                f"(sudo apt-get install fortunes) or set {datasets.FORTUNES_ENV}=FOLDER ({exc})"
            )
        else:
            # Categorical NB on word counts treats every count as a separate category: slow on
            # a 13k-word vocabulary and not a model of text, so fortunes get two event models.
            studies += [Study(fort, "multinomial"), Study(fort, "bernoulli")]
    for name in ("breast_cancer", "wine"):
        studies.append(Study(load_data(name, seed=seed), "gda"))
    return studies


def _table_lines(results) -> list[str]:
    head = (
        f"{'data':<14} {'model':<12} {'estimate':<9}{'accuracy':>9}{'log_loss':>9}"
        f"{'ECE':>7}{'lpd/doc':>10}{'elpd_loo':>11}"
    )
    lines = [head]
    for r in results:
        for est, row in r.table.iterrows():
            lpd = row["lpd_per_doc"]
            lines.append(
                f"{r.study.data.name:<14} {r.study.model:<12} {est:<9}{row['accuracy']:>9.4f}"
                f"{row['log_loss']:>9.4f}{row['ece']:>7.3f}"
                f"{'-inf' if np.isneginf(lpd) else f'{lpd:.4f}':>10}"
                f"{row['elpd_loo']:>11.1f}"
            )
    return lines


def run_demo(
    out_models: Path,
    out_reports: Path,
    *,
    seed: int = DEMO_SEED,
    nuts: bool = True,
    quick: bool = False,
    fortunes: bool = True,
) -> Path:
    """Fit every model × estimate on the embedded data, save the models, build the report.

    Returns
    -------
    Path
        ``<out_reports>/demo/index.html``.
    """
    from sklearn.base import clone
    from sklearn.feature_extraction.text import CountVectorizer

    from bayesnb.report import ReportBuilder

    start = time.perf_counter()
    notes: list[str] = []
    t0 = time.perf_counter()
    studies = _demo_studies(seed, fortunes, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    builder = ReportBuilder(studies, nuts=nuts, title="bayesnb demo", seed=seed, quick=quick)
    bar = Progress(1 + len(studies) + len(builder.steps))
    names = sorted({s.data.name for s in studies})
    bar.step(f"load data: {', '.join(names)}", time.perf_counter() - t0)
    out_models.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    unsaved: set[str] = set()
    for s in studies:
        t0 = time.perf_counter()
        # One file per data set × model: the estimate is a scoring parameter of the same
        # statistics (`inspect` and the report say how to rescore), so it is not a file each.
        fitted = fit_named(clone(s.estimator), s.data.X_train, s.data.y_train, s.data.feature_names)
        if s.data.kind == "text":  # load_data's words: CountVectorizer()'s columns
            record_vectorizer(fitted, CountVectorizer())
        path = out_models / f"{s.data.name}-{s.model}.nc"
        try:
            fitted.save(path)
            saved.append(path)
        except TypeError:  # bayesnb.io cannot save this model type yet
            unsaved.add(type(fitted).__name__)
        bar.step(f"fit and save: {s.label}", time.perf_counter() - t0)
    path = builder.run(out_reports / "demo", progress=bar.report_callback)
    results = builder.results.get("estimates", [])
    table = pd.concat(
        [
            r.table.assign(data=r.study.data.name, model=r.study.model)
            .rename_axis("estimate")
            .reset_index()
            for r in results
        ],
        ignore_index=True,
    )
    first = ["data", "model", "estimate"]
    table = table[first + [c for c in table.columns if c not in first]]
    table.to_csv(out_reports / "demo" / "results.csv", index=False)
    print("\n".join(_table_lines(results)))
    print()
    if unsaved:
        print(f"note: {', '.join(sorted(unsaved))} not saved: bayesnb.io cannot write it yet")
    print(
        f"{len(saved)} models written to {out_models}/ (one per data set × model, each with "
        f"its default estimate); table in {out_reports / 'demo' / 'results.csv'}"
    )
    if saved:
        print(
            f"rescore one under another estimate without refitting: bayesnb predict "
            f"{saved[0]} --data SPEC --out predictions.csv --estimate map; what a file holds: "
            f"bayesnb inspect {saved[0]}"
        )
    print(f"demo done in {time.perf_counter() - start:.1f} s")
    print(f"report: {path}")
    return path
