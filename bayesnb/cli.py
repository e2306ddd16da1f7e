"""Command line: ``bayesnb demo | fit | report | compare`` (``--help`` on each).

``bayesnb demo`` is the main job: every model under every estimate on the embedded data
(scikit-learn's digits for the discrete models, breast cancer and wine for GDA, Debian's
fortunes when installed), the fitted models written to ``models/`` and the HTML report to
``reports/demo/index.html``. Progress and step times go to stderr, results to stdout, the
report's path last.

``--data`` takes ``digits``, ``breast_cancer``, ``wine``, ``iris``, ``fortunes[:cat1,cat2]``, a
folder with one sub-folder of text files per class, or a CSV file with ``label`` and ``text``
columns. Text goes through scikit-learn's ``CountVectorizer``; its vocabulary becomes the
model's feature names, so a saved model scores new text with the same columns.

Input errors (unknown data, bad paths, malformed files, a model that does not fit the data)
print one line ``bayesnb: error: ...`` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bayesnb import datasets
from bayesnb.compare import all_estimates, compare
from bayesnb.validation import ESTIMATES

__all__ = ["DEMO_FORTUNES", "DataError", "load_data", "main"]

DEMO_SEED = 0
DEMO_FORTUNES = ["art", "computers", "food", "law", "science"]
MODELS = ("bernoulli", "multinomial", "categorical", "gda")
DATA_NAMES = ("digits", "breast_cancer", "wine", "iris", "fortunes[:cat1,cat2,...]")
# "map" needs concentrations above 1 for an interior mode; alpha = 2 is add-one smoothing.
MAP_PRIOR = {"alpha": 2.0, "class_alpha": 2.0}
_MODEL_OF = {
    "BernoulliNB": "bernoulli",
    "MultinomialNB": "multinomial",
    "CategoricalNB": "categorical",
    "GDA": "gda",
}


class DataError(ValueError):
    """A ``--data`` specification that names nothing loadable (reported as a usage error)."""


# -- data ---------------------------------------------------------------------------------------
def _sklearn_table(name: str):
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    loader = {"breast_cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris}[name]
    bunch = loader()
    return bunch.data, np.asarray(bunch.target_names)[bunch.target], bunch.feature_names


def _vectorize(texts: list[str], vocabulary=None):
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(vocabulary=None if vocabulary is None else list(vocabulary))
    try:
        X = vec.fit_transform(texts)
    except ValueError as exc:  # e.g. "empty vocabulary; perhaps the documents only contain..."
        raise DataError(f"cannot turn the texts into word counts: {exc}") from exc
    return X.tocsr().astype(np.float64), vec.get_feature_names_out()


def load_data(spec: str, *, vocabulary=None, seed: int = DEMO_SEED, test_size: float = 0.3):
    """A ``--data`` specification as a :class:`bayesnb.report.Dataset`.

    Parameters
    ----------
    spec : str
        ``digits``, ``breast_cancer``, ``wine``, ``iris``, ``fortunes`` (all categories) or
        ``fortunes:cat1,cat2``, a folder of class sub-folders, or a CSV file with ``label`` and
        ``text`` columns.
    vocabulary : sequence of str, optional
        Fixed columns for text data (a saved model's feature names).
    seed, test_size
        The stratified split every report section uses.

    Raises
    ------
    DataError
        Unknown name, missing path, malformed file, or data a classifier cannot use.
    """
    from bayesnb.report import Dataset

    spec = str(spec).strip()
    name = spec
    binarize = 0.0
    try:
        if spec == "digits":
            d = datasets.load_digits_counts()
            X, y, names, kind = d.data, d.target, d.feature_names, "counts"
            binarize = 8.0  # intensities 0..16: "on" above the middle, as load_digits_binary
            desc = "scikit-learn's handwritten digits, 8×8 pixel intensities 0–16 as counts"
        elif spec in ("breast_cancer", "wine", "iris"):
            X, y, names = _sklearn_table(spec)
            kind, desc = "continuous", f"scikit-learn's {spec} data"
        elif spec == "fortunes" or spec.startswith("fortunes:"):
            cats = None
            if ":" in spec:
                cats = [c.strip() for c in spec.split(":", 1)[1].split(",") if c.strip()]
                if not cats:
                    raise DataError(f"--data {spec!r} names no categories after 'fortunes:'")
            texts, y = datasets.load_fortunes(cats, return_X_y=True)
            X, names = _vectorize(texts, vocabulary)
            kind, name = "text", "fortunes"
            desc = "Debian's fortune cookies, one category per file"
        else:
            path = Path(spec)
            if path.is_dir():
                bunch = datasets.load_folder(path, errors="replace")
                texts, y = bunch.data, bunch.target
            elif path.is_file():
                texts, y = datasets.load_csv(path, return_X_y=True)
            elif "/" in spec or "\\" in spec or path.suffix:
                raise DataError(f"--data {spec!r}: no such file or folder")
            else:
                raise DataError(
                    f"unknown --data {spec!r}: expected one of {', '.join(DATA_NAMES)}, a folder "
                    "of class sub-folders, or a CSV file with 'label' and 'text' columns"
                )
            X, names = _vectorize(list(texts), vocabulary)
            kind, name = "text", path.name or spec
            desc = f"text from {spec}"
        return Dataset(
            name,
            X,
            np.asarray(y),
            names,
            kind,
            desc,
            binarize=binarize,
            seed=seed,
            test_size=test_size,
        )
    except DataError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        # Missing files, unreadable CSVs (pandas' ParserError and EmptyDataError are
        # ValueErrors), missing columns, a single class: all input errors.
        raise DataError(f"--data {spec!r}: {_one_line(exc)}") from exc


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())


# -- progress -----------------------------------------------------------------------------------
class _Progress:
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


# -- estimators ---------------------------------------------------------------------------------
def _alpha(text: str | None):
    if text is None:
        return None
    if text == "evidence":
        return "evidence"
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"--alpha must be a positive number or 'evidence', got {text!r}") from None
    if not value > 0:
        raise DataError(f"--alpha must be a positive number or 'evidence', got {text!r}")
    return value


def _estimator(model: str, data, estimate: str = "mean", alpha=None):
    from bayesnb.report.data import default_estimator

    est = default_estimator(model, data).set_params(estimate=estimate)
    if alpha is not None:
        if model == "gda":
            raise DataError("--alpha does not apply to gda (its prior is Normal-Inverse-Wishart)")
        est.set_params(alpha=alpha)
    return est


def _check_model_data(model: str, data) -> None:
    """GDA models continuous measurements; the event models counts or text."""
    if model == "gda" and data.kind != "continuous":
        raise DataError(
            f"gda needs continuous features; --data {data.name!r} holds {data.kind} (use "
            "breast_cancer, wine or iris, or a discrete model)"
        )
    if model != "gda" and data.kind == "continuous":
        raise DataError(
            f"{model} needs counts or text; --data {data.name!r} holds continuous measurements "
            "(use gda)"
        )


def _fit_named(est, X, y, feature_names):
    """Fit and record the feature names (the vocabulary for text), so saved files carry them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit(X, y)
    est.feature_names_in_ = np.asarray([str(f) for f in feature_names], dtype=object)
    return est


def _save(est, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        est.save(path)
    except TypeError as exc:  # bayesnb.io does not know this model type
        raise DataError(f"cannot save {type(est).__name__}: {_one_line(exc)}") from exc
    except OSError as exc:
        raise DataError(f"cannot write --out {str(path)!r}: {_one_line(exc)}") from exc


# -- demo ---------------------------------------------------------------------------------------
def _demo_studies(seed: int, fortunes: bool, notes: list[str]):
    from bayesnb.report import Study

    digits = load_data("digits", seed=seed)
    studies = [Study(digits, m) for m in ("bernoulli", "multinomial", "categorical")]
    if fortunes:
        try:
            fort = load_data("fortunes:" + ",".join(DEMO_FORTUNES), seed=seed)
        except DataError as exc:
            notes.append(f"fortunes skipped ({exc}); install them with apt-get install fortunes")
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

    from bayesnb.report import ReportBuilder

    start = time.perf_counter()
    notes: list[str] = []
    t0 = time.perf_counter()
    studies = _demo_studies(seed, fortunes, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    builder = ReportBuilder(studies, nuts=nuts, title="bayesnb demo", seed=seed, quick=quick)
    bar = _Progress(1 + len(studies) + len(builder.steps))
    names = sorted({s.data.name for s in studies})
    bar.step(f"load data: {', '.join(names)}", time.perf_counter() - t0)
    out_models.mkdir(parents=True, exist_ok=True)
    saved, unsaved = 0, set()
    for s in studies:
        t0 = time.perf_counter()
        params = MAP_PRIOR if s.model != "gda" else {"class_alpha": 2.0}
        for estimate, est in all_estimates(s.estimator, map_params=params).items():
            fitted = _fit_named(clone(est), s.data.X_train, s.data.y_train, s.data.feature_names)
            try:
                fitted.save(out_models / f"{s.data.name}-{s.model}-{estimate}.nc")
                saved += 1
            except TypeError:  # bayesnb.io cannot save this model type yet
                unsaved.add(type(fitted).__name__)
        bar.step(f"fit and save: {s.label} × 4 estimates", time.perf_counter() - t0)
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
        f"{saved} models written to {out_models}/; table in {out_reports / 'demo' / 'results.csv'}"
    )
    print(f"demo done in {time.perf_counter() - start:.1f} s")
    print(f"report: {path}")
    return path


# -- fit / report / compare ---------------------------------------------------------------------
def _cmd_fit(args) -> int:
    from bayesnb.report.sections import sampler

    data = load_data(args.data, seed=args.seed)
    _check_model_data(args.model, data)
    est = _estimator(args.model, data, args.estimate, _alpha(args.alpha))
    t0 = time.perf_counter()
    try:
        _fit_named(est, data.X, data.y, data.feature_names)
    except ValueError as exc:
        raise DataError(
            f"{args.model} cannot be fitted to --data {args.data!r}: {_one_line(exc)}"
        ) from exc
    out = Path(args.out)
    _save(est, out)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*does not have valid feature names")
        acc = float(np.mean(est.predict(data.X) == data.y))
    alpha = getattr(est, "alpha_", None)
    print(
        f"fitted {type(est).__name__} (estimate={args.estimate}"
        + (f", alpha={float(np.mean(alpha)):.4g}" if alpha is not None else "")
        + f") on {data.X.shape[0]} documents × {data.X.shape[1]} features, "
        f"{len(est.classes_)} classes in {time.perf_counter() - t0:.2f} s; "
        f"training accuracy {acc:.4f}; log evidence {est.log_evidence():.1f}"
    )
    if args.nuts:
        from bayesnb.report import Study

        study = Study(data, args.model, estimator=est)
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # SamplingWarning's findings are in the summary printed below.
                warnings.simplefilter("ignore")
                tree = est.fit_pymc(
                    data.X,
                    data.y,
                    draws=args.draws,
                    tune=args.tune,
                    chains=args.chains,
                    random_seed=args.seed,
                    progressbar=False,
                )
        except Exception as exc:  # the saved model stands; say why NUTS did not
            print(f"bayesnb: NUTS failed: {_one_line(exc)}", file=sys.stderr)
            print(f"saved: {out}")
            return 1
        nuts_path = out.with_suffix(".nuts.nc")
        tree.to_netcdf(nuts_path, engine="h5netcdf")
        seconds = time.perf_counter() - t0
        check = sampler(study, tree=tree, fitted=est, wall_time=seconds)
        print(check.reading)
        print(f"NUTS draws: {nuts_path}")
    print(f"saved: {out}")
    return 0


def _cmd_report(args) -> int:
    import xarray as xr
    from sklearn.base import clone

    from bayesnb.io import load
    from bayesnb.report import ReportBuilder, Study

    path = Path(args.model_file)
    try:
        est = load(path)
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot load model {str(path)!r}: {_one_line(exc)}") from exc
    model = _MODEL_OF[type(est).__name__]
    names = getattr(est, "feature_names_in_", None)
    data = load_data(args.data, vocabulary=names, seed=args.seed)
    _check_fits(est, data, path, args.data)
    _check_model_data(model, data)
    study = Study(data, model, estimator=clone(est), fitted=est, source=str(path))
    nuts_tree = None
    nuts_path = path.with_suffix(".nuts.nc")
    if nuts_path.is_file():
        try:
            nuts_tree = xr.open_datatree(nuts_path, engine="h5netcdf").load()
        except (OSError, ValueError) as exc:
            raise DataError(
                f"cannot read the NUTS fit {str(nuts_path)!r}: {_one_line(exc)}"
            ) from exc
    builder = ReportBuilder(
        [study],
        nuts=args.nuts,
        nuts_tree=nuts_tree,
        title=f"bayesnb report: {path.name} on {data.name}",
        seed=args.seed,
        quick=args.quick,
    )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise DataError(f"--out {str(out)!r} is a file, not a folder")
    bar = _Progress(len(builder.steps))
    try:
        index = builder.run(out, progress=bar.report_callback)
    except OSError as exc:
        raise DataError(f"cannot write the report to {str(out)!r}: {_one_line(exc)}") from exc
    print(f"report: {index}")
    return 0


def _check_fits(est, data, path: Path, spec: str) -> None:
    """Refuse data that do not have the saved model's columns."""
    if data.X.shape[1] != est.n_features_in_:
        raise DataError(
            f"model {path.name} has {est.n_features_in_} features but --data {spec!r} "
            f"has {data.X.shape[1]}"
        )
    names = getattr(est, "feature_names_in_", None)
    if data.kind == "text":
        if data.X.sum() == 0:
            raise DataError(
                f"none of the {est.n_features_in_} words of model {path.name} occurs in "
                f"--data {spec!r}: it was not fitted on text like this"
            )
    elif names is not None and [str(n) for n in names] != [str(n) for n in data.feature_names]:
        raise DataError(
            f"model {path.name} was fitted on other features than --data {spec!r} "
            f"(first model feature {names[0]!r}, first data feature {data.feature_names[0]!r})"
        )


def _parse_models(specs: Sequence[str], data, alpha) -> dict:
    ests: dict = {}
    for spec in specs:
        model, _, estimate = spec.partition(":")
        if model not in MODELS:
            raise DataError(f"unknown model {model!r} in {spec!r}: expected one of {MODELS}")
        if estimate and estimate not in ESTIMATES:
            raise DataError(
                f"unknown estimate {estimate!r} in {spec!r}: expected one of {ESTIMATES}"
            )
        _check_model_data(model, data)
        base = _estimator(model, data, estimate or "mean", alpha)
        if estimate:
            ests[spec] = base
        else:
            params = MAP_PRIOR if model != "gda" else {"class_alpha": 2.0}
            for name, est in all_estimates(base, map_params=params).items():
                ests[f"{model}:{name}"] = est
    return ests


def _cmd_compare(args) -> int:
    from bayesnb.report import Study
    from bayesnb.report.sections import split_xy

    data = load_data(args.data, seed=args.seed, test_size=args.test_size)
    ests = _parse_models(args.models, data, _alpha(args.alpha))
    gda = any(k.startswith("gda") for k in ests)
    study = Study(data, "gda" if gda else "multinomial")
    Xtr, ytr, Xte, yte = split_xy(study)  # standardised when GDA takes part
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        try:
            if args.cv:
                ds = compare(ests, data.X, data.y, cv=args.cv, loo=not args.no_loo)
            else:
                ds = compare(ests, Xtr, ytr, Xte, yte, loo=not args.no_loo)
        except ValueError as exc:
            raise DataError(f"cannot compare on --data {args.data!r}: {_one_line(exc)}") from exc
    from bayesnb.loo import short_warning

    shown = dict.fromkeys(
        short_warning(str(w.message)) for w in caught if issubclass(w.category, UserWarning)
    )
    for message in shown:
        print(f"warning: {message}", file=sys.stderr)
    t = ds.to_dataframe()
    n_test = len(yte) if not args.cv else len(data.y) / args.cv
    how = f"{args.cv}-fold cross-validation" if args.cv else f"{len(yte)} held-out documents"
    print(f"{data.name}: {data.X.shape[0]} documents, {data.X.shape[1]} features; {how}")
    print(
        f"{'name':<22}{'accuracy':>9}{'log_loss':>9}{'brier':>8}{'ECE':>7}{'lpd/doc':>10}"
        f"{'elpd_loo':>11}{'bad_k':>7}"
    )
    for name, row in t.iterrows():
        lpd = row["lpd"] / n_test
        print(
            f"{name:<22}{row['accuracy']:>9.4f}{row['log_loss']:>9.4f}{row['brier']:>8.4f}"
            f"{row['ece']:>7.3f}{'-inf' if np.isneginf(lpd) else f'{lpd:.4f}':>10}"
            f"{row['elpd_loo']:>11.1f}{row['pareto_k_bad']:>7.0f}"
        )
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


# -- parser -------------------------------------------------------------------------------------
_DATA_HELP = (
    "digits, breast_cancer, wine, iris, fortunes[:cat1,cat2], a folder of class sub-folders, "
    "or a CSV file with 'label' and 'text' columns"
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayesnb",
        description="Generative classifiers done the Bayesian way (naive Bayes, GDA).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = sub.add_parser(
        "demo",
        help="every model × estimate on the embedded data; models/ and reports/demo/",
        description=(
            "Fit Bernoulli, multinomial and categorical naive Bayes (digits; multinomial and "
            "Bernoulli on Debian's fortunes when installed) and GDA (breast cancer, wine) under "
            "the mle, map, mean and bayes estimates; save the models and build the HTML report "
            "reports/demo/index.html."
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
        help="the report goes to <folder>/demo/ (default: reports)",
    )
    demo.add_argument(
        "--seed", type=int, default=DEMO_SEED, help="seed of the splits and draws (default: 0)"
    )
    demo.add_argument(
        "--no-nuts", action="store_true", help="skip the NUTS section (saves ~20-40 s)"
    )
    demo.add_argument("--no-fortunes", action="store_true", help="leave Debian's fortunes out")
    demo.add_argument(
        "--quick", action="store_true", help="fewer draws, grid points and repeats (a fast preview)"
    )

    fit = sub.add_parser(
        "fit",
        help="fit one model on a data set and save it (netCDF)",
        description="Fit MODEL on every document of --data and save it to --out.",
    )
    fit.add_argument("model", choices=MODELS, metavar="MODEL", help=f"one of {', '.join(MODELS)}")
    fit.add_argument("--data", required=True, metavar="SPEC", help=_DATA_HELP)
    fit.add_argument(
        "--estimate",
        choices=ESTIMATES,
        default="mean",
        help="how the model scores new data (default: mean)",
    )
    fit.add_argument(
        "--alpha",
        metavar="N|evidence",
        help="prior concentration, or 'evidence' to learn it (discrete models)",
    )
    fit.add_argument(
        "--nuts",
        action="store_true",
        help="also sample the PyMC model with NUTS; draws go to NAME.nuts.nc",
    )
    fit.add_argument("--draws", type=int, default=1000, help="NUTS draws per chain (1000)")
    fit.add_argument("--tune", type=int, default=1000, help="NUTS tuning steps (1000)")
    fit.add_argument("--chains", type=int, default=4, help="NUTS chains (4)")
    fit.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed (0)")
    fit.add_argument("--out", required=True, metavar="models/NAME.nc", help="the model file")

    report = sub.add_parser(
        "report",
        help="HTML report of a saved model on a data set",
        description=(
            "Score a saved model on --data and study its configuration (all four estimates, "
            "smoothing, posterior predictive checks...) on a 70/30 split of --data. A NUTS fit "
            "saved beside the model (NAME.nuts.nc, from `fit --nuts`) is checked too."
        ),
    )
    report.add_argument("model_file", metavar="models/NAME.nc", help="a model saved by `fit`")
    report.add_argument("--data", required=True, metavar="SPEC", help=_DATA_HELP)
    report.add_argument("--out", required=True, metavar="reports/NAME/", help="output folder")
    report.add_argument(
        "--nuts",
        action="store_true",
        help="add a small NUTS fit checked against the exact posterior",
    )
    report.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed (0)")
    report.add_argument("--quick", action="store_true", help="fewer draws and grid points")

    cmp_ = sub.add_parser(
        "compare",
        help="held-out metrics of several models on one data set",
        description=(
            "Print bayesnb.compare's table for MODEL[:ESTIMATE] entries on --data, e.g. "
            "`bayesnb compare --data digits multinomial bernoulli:mean`. A model without an "
            "estimate is compared under all four."
        ),
    )
    cmp_.add_argument(
        "models",
        nargs="+",
        metavar="MODEL[:ESTIMATE]",
        help=f"model ({', '.join(MODELS)}), optionally :mle|map|mean|bayes",
    )
    cmp_.add_argument("--data", required=True, metavar="SPEC", help=_DATA_HELP)
    cmp_.add_argument("--alpha", metavar="N|evidence", help="prior concentration (discrete)")
    cmp_.add_argument("--test-size", type=float, default=0.3, help="held-out share (0.3)")
    cmp_.add_argument("--cv", type=int, help="K-fold cross-validation instead of one split")
    cmp_.add_argument("--no-loo", action="store_true", help="skip PSIS-LOO (faster)")
    cmp_.add_argument("--seed", type=int, default=DEMO_SEED, help="seed of the split (0)")
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
    try:
        if args.command == "demo":
            run_demo(
                args.out_models,
                args.out_reports,
                seed=args.seed,
                nuts=not args.no_nuts,
                quick=args.quick,
                fortunes=not args.no_fortunes,
            )
            return 0
        if args.command == "fit":
            return _cmd_fit(args)
        if args.command == "report":
            return _cmd_report(args)
        return _cmd_compare(args)
    except DataError as exc:
        print(f"bayesnb: error: {_one_line(exc)}", file=sys.stderr)
        return 2
