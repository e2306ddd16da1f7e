"""Command line: ``bayesnb demo | fit | report | compare`` (``--help`` on each).

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
in-memory fit); ``--hash-features N`` counts hashed columns in a single pass.

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
MODELS = ("bernoulli", "multinomial", "categorical", "poisson", "dcm", "gda")
DATA_NAMES = ("digits", "breast_cancer", "wine", "iris", "fortunes[:cat1,cat2,...]")
# "map" needs concentrations above 1 for an interior mode; alpha = 2 is add-one smoothing
# (PoissonNB: a Gamma shape 2, whose mode adds one pseudo-count).
MAP_PRIOR = {"alpha": 2.0, "class_alpha": 2.0}
# Models without an ``alpha`` parameter: GDA (Normal-Inverse-Wishart prior) and the DCM
# (Gamma(prior_shape, prior_rate) on its Dirichlet concentrations; its default shape 1.1 > 1
# already has an interior mode).
_NO_ALPHA = {
    "gda": "its prior is Normal-Inverse-Wishart",
    "dcm": "its prior is Gamma(prior_shape, prior_rate) on the Dirichlet concentrations",
}
_MODEL_OF = {
    "BernoulliNB": "bernoulli",
    "MultinomialNB": "multinomial",
    "CategoricalNB": "categorical",
    "PoissonNB": "poisson",
    "DirichletCompoundNB": "dcm",
    "GDA": "gda",
}
_MODELS_HELP = (
    "bernoulli, multinomial, categorical, poisson (PoissonNB with alpha='evidence': the Gamma "
    "shape is learned, rate 1), dcm (DirichletCompoundNB, Gamma(1.1, 1) prior, estimates mle, "
    "map, mean; no bayes), gda (continuous data only)"
)


def _map_params(model: str) -> dict:
    """Parameters of the ``"map"`` entry when a model is compared under every estimate."""
    return {"class_alpha": 2.0} if model in _NO_ALPHA else MAP_PRIOR


def _model_estimates(model: str) -> tuple[str, ...]:
    """The estimates a model computes (the DCM's ``"bayes"`` has no closed form)."""
    if model == "dcm":
        from bayesnb.dcm import DCM_ESTIMATES

        return tuple(DCM_ESTIMATES)
    return tuple(ESTIMATES)


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
    if not (np.isfinite(value) and value > 0):
        raise DataError(f"--alpha must be a positive number or 'evidence', got {text!r}")
    return value


def _estimator(model: str, data, estimate: str | None = "mean", alpha=None):
    """The default configuration of ``model`` with ``estimate`` (None: the model's own)."""
    from bayesnb.report.data import default_estimator

    est = default_estimator(model, data)
    if estimate is not None:
        est.set_params(estimate=estimate)
    estimate = est.estimate
    if alpha is not None:
        if model in _NO_ALPHA:
            raise DataError(f"--alpha does not apply to {model} ({_NO_ALPHA[model]})")
        est.set_params(alpha=alpha)
    try:
        # A configuration the model refuses (the DCM's "bayes", a MAP without an interior
        # mode) is a usage error, reported before any data is fitted.
        est._check_params()
    except (TypeError, ValueError) as exc:
        raise DataError(f"{model} with estimate={estimate!r}: {_one_line(exc)}") from exc
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
        params = _map_params(s.model)
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
# -- fit from disk in chunks ----------------------------------------------------------------------
_EMBEDDED = ("digits", "breast_cancer", "wine", "iris")


def _is_corpus(spec: str) -> bool:
    """Whether ``--data`` names text files on disk (streamed by ``fit``), not an embedded set.

    An embedded name wins over a folder of that name (``./digits`` is the folder); a spec that
    exists, is a glob pattern, or looks like a path (a separator or a suffix) is on disk.
    """
    from bayesnb.streaming import is_pattern

    spec = str(spec).strip()
    if spec in _EMBEDDED or spec == "fortunes" or spec.startswith("fortunes:"):
        return False
    path = Path(spec)
    return path.exists() or is_pattern(spec) or "/" in spec or "\\" in spec or bool(path.suffix)


def _fit_streamed(args) -> int:
    """``fit`` of a corpus on disk: read in chunks, counted chunk by chunk, never held whole.

    The default columns are the corpus's words, collected by a first pass (what the in-memory
    ``CountVectorizer`` gives, so ``report`` and new text use the same columns); with
    ``--hash-features`` one pass counts hashed columns and no vocabulary is kept.
    """
    from types import SimpleNamespace

    from bayesnb import streaming

    spec = str(args.data).strip()
    corpus = SimpleNamespace(name=Path(spec).name or spec, kind="text", binarize=0.0)
    _check_model_data(args.model, corpus)
    est = _estimator(args.model, corpus, args.estimate, _alpha(args.alpha))
    t0 = time.perf_counter()
    try:
        est._check_params()  # a bad configuration fails before the corpus is read
        # Undecodable bytes become U+FFFD, as when load_data reads a folder in memory.
        if args.hash_features:
            vec = streaming.default_vectorizer(args.hash_features)
            files, classes, total = spec, None, None  # labels: fit_files's cheap first pass
        else:
            scan = streaming.scan_files(spec, chunk_size=args.chunk_size, errors="replace")
            files, vec, classes, total = scan.files, scan.vectorizer, scan.classes, scan.n_documents
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if not args.hash_features:  # the scan has said what the corpus holds
                warnings.simplefilter("ignore", streaming.CorpusWarning)
            streaming.fit_files(
                est, files, vec, args.chunk_size, classes, errors="replace", total=total
            )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot fit {args.model} to --data {spec!r}: {_one_line(exc)}") from exc
    seconds = time.perf_counter() - t0
    if not args.hash_features:
        words = [str(f) for f in vec.get_feature_names_out()]
        est.feature_names_in_ = np.asarray(words, dtype=object)
    out = Path(args.out)
    _save(est, out)
    n_docs = round(float(np.sum(est.class_count_)))
    alpha = getattr(est, "alpha_", None)
    columns = f"{est.n_features_in_:,} " + ("hashed features" if args.hash_features else "words")
    print(
        f"fitted {type(est).__name__} (estimate={est.estimate}"
        + (f", alpha={float(np.mean(alpha)):.4g}" if alpha is not None else "")
        + f") on {n_docs:,} documents × {columns}, {len(est.classes_)} classes in "
        f"{seconds:.2f} s, streamed from disk in chunks of {args.chunk_size:,} documents "
        f"({n_docs / max(seconds, 1e-9):,.0f} documents/s); log evidence {est.log_evidence():.1f}"
    )
    print(f"saved: {out}")
    return 0


def _cmd_fit(args) -> int:
    from bayesnb.report.sections import sampler

    for name in ("chunk_size", "hash_features"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise DataError(f"--{name.replace('_', '-')} must be an integer >= 1, got {value}")
    if _is_corpus(args.data) and not args.nuts:
        return _fit_streamed(args)  # NUTS needs the documents in memory: load_data below
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
        f"fitted {type(est).__name__} (estimate={est.estimate}"
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


# scikit-learn baselines by short name; ``sklearn:ClassName`` reaches any other classifier.
BASELINES = ("complement", "logistic", "sklearn:CLASS")


def _baseline(spec: str):
    """A scikit-learn classifier (default parameters) from a compare spec, or None."""
    if spec == "complement":
        from sklearn.naive_bayes import ComplementNB

        return ComplementNB()
    if spec == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=2000)
    if not spec.startswith("sklearn:"):
        return None
    from sklearn.utils import all_estimators

    name = spec.partition(":")[2].strip()
    found = dict(all_estimators(type_filter="classifier"))
    if name not in found:
        raise DataError(
            f"unknown scikit-learn classifier {name!r} in {spec!r}: give a class name such as "
            "ComplementNB, LogisticRegression or RandomForestClassifier"
        )
    try:
        est = found[name]()
    except TypeError as exc:  # e.g. VotingClassifier needs its estimators
        raise DataError(f"cannot build {name} with default parameters: {_one_line(exc)}") from exc
    if not hasattr(est, "predict_proba"):
        raise DataError(f"{name} has no predict_proba, which compare needs for its metrics")
    return est


def _parse_models(specs: Sequence[str], data, alpha) -> dict:
    ests: dict = {}
    for spec in specs:
        baseline = _baseline(spec)
        if baseline is not None:
            ests[spec] = baseline
            continue
        model, _, estimate = spec.partition(":")
        if model not in MODELS:
            raise DataError(
                f"unknown model {model!r} in {spec!r}: expected one of {MODELS} or a baseline "
                f"{BASELINES}"
            )
        if estimate and estimate not in ESTIMATES:
            raise DataError(
                f"unknown estimate {estimate!r} in {spec!r}: expected one of {ESTIMATES}"
            )
        _check_model_data(model, data)
        base = _estimator(model, data, estimate or "mean", alpha)
        if estimate:
            ests[spec] = base
        else:
            every = all_estimates(base, map_params=_map_params(model))
            for name in _model_estimates(model):
                ests[f"{model}:{name}"] = every[name]
    return ests


def _cmd_compare(args) -> int:
    from bayesnb.report import Study
    from bayesnb.report.sections import split_xy

    data = load_data(args.data, seed=args.seed, test_size=args.test_size)
    ests = _parse_models(args.models, data, _alpha(args.alpha))
    # Continuous data are standardised (training moments) for GDA and for the baselines alike.
    gda = any(k.startswith("gda") for k in ests) or data.kind == "continuous"
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
        except (ValueError, TypeError) as exc:  # e.g. ComplementNB on negative features
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
        description=(
            "Fit MODEL on every document of --data and save it to --out. An embedded data "
            "set (digits, breast_cancer, wine, iris, fortunes[:cat1,cat2]) is loaded in memory. "
            "Any other --data is a text corpus on disk, which fit streams: it reads "
            "--chunk-size documents at a time, never the whole corpus, and prints progress "
            "with documents/s on stderr. A corpus is a folder of class sub-folders (one "
            "document per file, labelled by its folder), a folder of CSV files, a CSV file "
            "(columns 'label' and 'text', one document per row), or a glob pattern of such "
            "files, quoted so the shell does not expand it ('mail/*/*.txt', 'data/*.csv.gz'). "
            "An embedded name wins over a folder of that name: write ./digits for the folder. "
            "A first pass collects the labels and the vocabulary, so the columns are the "
            "corpus's words (the in-memory fit's, which `report` and new text reuse); "
            "--hash-features N counts in a single pass into N hashed columns instead (memory "
            "bounded whatever the vocabulary; no words are saved, so `report` cannot re-read "
            "such a model's columns). With --nuts the corpus is loaded in memory."
        ),
    )
    fit.add_argument("model", choices=MODELS, metavar="MODEL", help=f"one of {_MODELS_HELP}")
    fit.add_argument(
        "--data",
        required=True,
        metavar="SPEC",
        help="an embedded data set, or a folder, CSV file or quoted glob pattern of text files "
        "on disk (streamed; see above)",
    )
    fit.add_argument(
        "--chunk-size",
        type=int,
        default=10_000,
        metavar="N",
        help="documents read at a time from a corpus on disk (10000)",
    )
    fit.add_argument(
        "--hash-features",
        type=int,
        metavar="N",
        help="one pass, N hashed columns (e.g. 262144) instead of the corpus vocabulary",
    )
    fit.add_argument(
        "--estimate",
        choices=ESTIMATES,
        help="how the model scores new data (default: the model's own, mean; dcm: map, and "
        "dcm refuses bayes)",
    )
    fit.add_argument(
        "--alpha",
        metavar="N|evidence",
        help="prior concentration (poisson: Gamma shape), or 'evidence' to learn it "
        "(bernoulli, multinomial, categorical, poisson)",
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
            "`bayesnb compare --data digits multinomial bernoulli:mean complement`. A model "
            "without an estimate is compared under all four. Baselines (scikit-learn, default "
            "parameters, --alpha does not apply): complement (ComplementNB), logistic "
            "(LogisticRegression), or sklearn:CLASS for any classifier with predict_proba. "
            "poisson defaults to alpha='evidence' (Gamma shape learned, rate 1; --alpha N fixes "
            "it); dcm is compared under mle, map and mean (it has no bayes estimate)."
        ),
    )
    cmp_.add_argument(
        "models",
        nargs="+",
        metavar="MODEL[:ESTIMATE]",
        help=f"model ({_MODELS_HELP}), optionally :mle|map|mean|bayes; or a baseline "
        "(complement, logistic, sklearn:CLASS)",
    )
    cmp_.add_argument("--data", required=True, metavar="SPEC", help=_DATA_HELP)
    cmp_.add_argument(
        "--alpha",
        metavar="N|evidence",
        help="prior concentration (bernoulli, multinomial, categorical, poisson; not dcm, gda)",
    )
    cmp_.add_argument("--test-size", type=float, default=0.3, help="held-out share (0.3)")
    cmp_.add_argument("--cv", type=int, help="K-fold cross-validation instead of one split")
    cmp_.add_argument("--no-loo", action="store_true", help="skip PSIS-LOO (faster)")
    cmp_.add_argument("--seed", type=int, default=DEMO_SEED, help="seed of the split (0)")
    return parser


def _check_numbers(args) -> None:
    """Refuse out-of-range numeric options before any data is loaded or model fitted."""
    minimum = {"draws": 1, "chains": 1, "tune": 0, "seed": 0, "cv": 2}
    for name, low in minimum.items():
        value = getattr(args, name, None)
        if value is not None and value < low:
            raise DataError(f"--{name} must be an integer >= {low}, got {value}")
    test_size = getattr(args, "test_size", None)
    if test_size is not None and not 0 < test_size < 1:
        raise DataError(f"--test-size must be a fraction in (0, 1), got {test_size}")
    if not str(getattr(args, "data", "x")).strip():
        raise DataError("--data is empty: " + _DATA_HELP)


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
        _check_numbers(args)
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
