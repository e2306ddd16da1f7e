"""``bayesnb compare``: held-out metrics of several models (and scikit-learn baselines) on one
data set, :func:`bayesnb.compare`'s table; with ``--cv N|loo`` also cross-validated
accuracy, log loss and ELPD of every document, computed for bayesnb models by
:func:`bayesnb.model_selection.cross_val_predict` (one fit, each fold's statistics
subtracted) and for scikit-learn baselines by scikit-learn's refits."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.base import clone

from bayesnb import families
from bayesnb.cli.data import DATA_HELP, DEMO_SEED, load_data
from bayesnb.cli.errors import DataError, one_line
from bayesnb.cli.models import (
    alpha_models,
    build_estimator,
    check_model_data,
    cli_models,
    models_help,
)
from bayesnb.cli.options import CV_HELP, TEMPERATURE_HELP, parse_alpha, parse_cv, parse_temperature
from bayesnb.comparison import all_estimates, compare
from bayesnb.validation import ESTIMATES

__all__ = ["BASELINES", "add_arguments", "cross_validated", "run"]

# scikit-learn baselines by short name; ``sklearn:ClassName`` reaches any other classifier.
BASELINES = ("complement", "logistic", "calibrated:sigmoid", "calibrated:isotonic", "sklearn:CLASS")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``compare`` on its sub-command parser."""
    parser.description = (
        "Print bayesnb.compare's table for MODEL[:ESTIMATE] entries on --data, e.g. "
        "`bayesnb compare --data digits multinomial bernoulli:mean complement`. A model "
        "without an estimate is compared under all four. Baselines (scikit-learn, default "
        "parameters, --alpha does not apply): complement (ComplementNB), logistic "
        "(LogisticRegression), calibrated:sigmoid|isotonic (CalibratedClassifierCV of "
        "MultinomialNB, cv=5; GaussianNB on continuous data), or sklearn:CLASS for any "
        "classifier with predict_proba. With --temperature every bayesnb model is listed at "
        "temperature 1 and at the one given (its name then ends in 'τ=T'). "
        "poisson defaults to alpha='evidence' (Gamma shape learned, rate 1; --alpha N fixes "
        "it); dcm is compared under mle, map and mean (it has no bayes estimate)."
    )
    parser.add_argument(
        "models",
        nargs="+",
        metavar="MODEL[:ESTIMATE]",
        help=f"model ({models_help()}), optionally :mle|map|mean|bayes; or a baseline "
        f"({', '.join(BASELINES)})",
    )
    parser.add_argument("--data", required=True, metavar="SPEC", help=DATA_HELP)
    parser.add_argument(
        "--alpha",
        metavar="N|evidence",
        help=f"prior concentration ({alpha_models()}; not {alpha_models(False)})",
    )
    parser.add_argument("--temperature", metavar="T|loo", help=TEMPERATURE_HELP)
    parser.add_argument("--test-size", type=float, default=0.3, help="held-out share (0.3)")
    parser.add_argument(
        "--cv",
        metavar="N|loo",
        help=f"also cross-validate on all documents: {CV_HELP}. Adds cv_acc, cv_logloss and "
        "cv_elpd (sum of log p(y | x) of every document under the model fitted without its "
        "fold) to the table; bayesnb models fit once and subtract each fold (exact, no "
        "refits), scikit-learn baselines are refitted per fold (not under loo)",
    )
    parser.add_argument(
        "--no-loo",
        action="store_true",
        help="skip elpd_loo, the exact leave-one-out ELPD of the training labels",
    )
    parser.add_argument(
        "--seed", type=int, default=DEMO_SEED, help="seed of the split and of the --cv folds (0)"
    )


def _baseline(spec: str, continuous: bool = False):
    """A scikit-learn classifier (default parameters) from a compare spec, or None."""
    if spec in ("calibrated:sigmoid", "calibrated:isotonic"):
        from bayesnb.report.sections.calibration import calibrated_nb

        return calibrated_nb(spec.partition(":")[2], continuous)
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
        raise DataError(f"cannot build {name} with default parameters: {one_line(exc)}") from exc
    if not hasattr(est, "predict_proba"):
        raise DataError(f"{name} has no predict_proba, which compare needs for its metrics")
    return est


def _parse_models(specs: Sequence[str], data, alpha, temperature=None) -> dict:
    from bayesnb.report.sections.common import map_prior

    ests: dict = {}
    for spec in specs:
        baseline = _baseline(spec, continuous=getattr(data, "kind", "") == "continuous")
        if baseline is not None:
            ests[spec] = baseline
            continue
        model, _, estimate = spec.partition(":")
        models = cli_models()
        if model not in models:
            raise DataError(
                f"unknown model {model!r} in {spec!r}: expected one of {models} or a baseline "
                f"{BASELINES}"
            )
        if estimate and estimate not in ESTIMATES:
            raise DataError(
                f"unknown estimate {estimate!r} in {spec!r}: expected one of {ESTIMATES}"
            )
        check_model_data(model, data)
        base = build_estimator(model, data, estimate or "mean", alpha)
        if estimate:
            found = {spec: base}
        else:
            every = all_estimates(base, map_params=map_prior(base))
            found = {f"{model}:{name}": e for name, e in every.items()}
        ests.update(found)
        if temperature is not None:  # the same models at the temperature given, beside
            build_estimator(model, data, estimate or "mean", alpha, temperature)  # checks
            shown = temperature if isinstance(temperature, str) else f"{temperature:g}"
            for name, e in found.items():
                ests[f"{name} τ={shown}"] = clone(e).set_params(temperature=temperature)
    return ests


def _splitter(cv, y: np.ndarray, seed: int):
    """The folds of ``--cv``: stratified N-fold (shuffled with ``seed``) or leave-one-out."""
    from sklearn.model_selection import LeaveOneOut, StratifiedKFold

    if cv == "loo":
        if len(y) < 2:
            raise DataError("--cv loo needs at least 2 documents")
        return LeaveOneOut()
    labels, counts = np.unique(y, return_counts=True)
    if cv > counts.min():
        smallest = str(labels[counts.argmin()])
        raise DataError(
            f"--cv {cv}: stratified folds need at least {cv} documents in every class, and "
            f"class {smallest!r} has {counts.min()}; use fewer folds or --cv loo"
        )
    return StratifiedKFold(cv, shuffle=True, random_state=seed)


def cross_validated(ests: dict, X, y, cv, seed: int = DEMO_SEED) -> dict[str, dict]:
    """Cross-validated metrics of every estimator: name -> {accuracy, log_loss, elpd, elpd_se}.

    ``cv`` is a number of stratified folds (shuffled with ``seed``) or ``"loo"``. bayesnb
    models go through :func:`bayesnb.model_selection.cross_val_predict` (one fit, each fold's
    statistics subtracted: a refit's numbers), scikit-learn baselines through scikit-learn's
    (a refit per fold; NaN under ``"loo"``, which would refit once per document). Every
    document is scored once: accuracy and log loss are pooled over all of them, ``elpd`` is
    Σ_i log p(y_i | x_i, D without i's fold) and ``elpd_se`` its standard error.
    """
    from sklearn.metrics import log_loss
    from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

    from bayesnb.model_selection import cross_val_predict

    y = np.asarray(y)
    splitter = _splitter(cv, y, seed)
    classes = np.unique(y)
    codes = np.searchsorted(classes, y)
    out = {}
    for name, est in ests.items():
        if families.has_family(est):
            log_p = cross_val_predict(est, X, y, cv=splitter, method="predict_log_proba")
        elif cv != "loo":
            log_p = sk_cross_val_predict(est, X, y, cv=splitter, method="predict_log_proba")
        else:
            out[name] = dict.fromkeys(("accuracy", "log_loss", "elpd", "elpd_se"), np.nan)
            continue
        point = log_p[np.arange(len(y)), codes]
        finite = np.all(np.isfinite(point))
        out[name] = {
            "accuracy": float(np.mean(log_p.argmax(axis=1) == codes)),
            "log_loss": float(log_loss(y, np.exp(log_p), labels=classes)),
            "elpd": float(point.sum()),
            "elpd_se": float(np.sqrt(len(y) * np.var(point))) if finite else np.nan,
        }
    return out


def _number(value: float, spec: str) -> str:
    """A table cell: ``-inf``, ``-`` for NaN (not computed), else ``format(value, spec)``."""
    if np.isnan(value):
        return "-"
    return "-inf" if np.isneginf(value) else format(value, spec)


def table(ds, cvt: dict | None = None, loo: bool = True) -> str:
    """The printed table of compare's result ``ds`` (and ``cvt``, :func:`cross_validated`'s
    numbers): one line per name, then what the columns mean. An ``elpd_loo`` that is not
    ``loo_reliable`` (PSIS-LOO with Pareto k above the good threshold) is marked ``!``."""
    t = ds.to_dataframe()
    psis = bool((t["loo_method"] == "psis").any())
    head = (
        f"{'name':<22}{'accuracy':>9}{'log_loss':>9}{'nll':>9}{'brier':>8}{'ECE':>7}"
        f"{'elpd_loo':>11}{'±se':>7}"
    )
    head += f"{'bad_k':>7}" if psis else ""
    head += f"{'cv_acc':>9}{'cv_logloss':>11}{'cv_elpd':>11}{'±se':>7}" if cvt else ""
    lines = [head]
    unreliable = False
    for name, row in t.iterrows():
        if row["error"]:
            lines.append(f"{name:<22}  failed: {row['error']}")
            continue
        elpd = _number(row["elpd_loo"], ".1f")
        if row["loo_method"] == "psis" and not row["loo_reliable"]:
            elpd, unreliable = elpd + "!", True
        line = (
            f"{name:<22}{row['accuracy']:>9.4f}{row['log_loss']:>9.4f}"
            f"{_number(row['nll'], '.4f'):>9}{row['brier']:>8.4f}{row['ece']:>7.3f}"
            f"{elpd:>11}{_number(row['elpd_loo_se'], '.1f'):>7}"
        )
        line += f"{_number(row['pareto_k_bad'], '.0f'):>7}" if psis else ""
        if cvt:
            c = cvt[name]
            line += (
                f"{_number(c['accuracy'], '.4f'):>9}{_number(c['log_loss'], '.4f'):>11}"
                f"{_number(c['elpd'], '.1f'):>11}{_number(c['elpd_se'], '.1f'):>7}"
            )
        lines.append(line)
    if loo:
        lines.append(
            "log_loss: scikit-learn's (clipped at about 36 nats a document); nll: the same "
            "unclipped (-lpd per document); elpd_loo: exact leave-one-out log density of the "
            "training labels (sum)"
            + ("; bad_k: PSIS-LOO rows' documents with Pareto k above 0.7" if psis else "")
            + ("; !: PSIS-LOO unreliable (bad_k > 0), not comparable" if unreliable else "")
        )
    return "\n".join(lines)


def run(args) -> int:
    """``bayesnb compare``: exit status 0 (input errors raise :class:`DataError`)."""
    from bayesnb.report import Study
    from bayesnb.report.sections import split_xy

    cv = parse_cv(args.cv)
    data = load_data(args.data, seed=args.seed, test_size=args.test_size)
    ests = _parse_models(
        args.models, data, parse_alpha(args.alpha), parse_temperature(args.temperature)
    )
    # Continuous data are standardised (training moments) for GDA and for the baselines alike:
    # the split of a study of the first model of this kind of data (every model in ``ests``
    # models it, see check_model_data).
    model = next(m for m in cli_models() if data.kind in families.get(m).data_kinds)
    study = Study(data, model)
    Xtr, ytr, Xte, yte = split_xy(study)  # standardised when GDA takes part
    splitter = None if cv is None else _splitter(cv, np.asarray(data.y), args.seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)
        try:
            ds = compare(ests, Xtr, ytr, Xte, yte, loo=not args.no_loo)
            cvt = None
            if splitter is not None:
                # All documents, standardised as the split is (here by the moments of all).
                X = data.X
                if study.report.continuous:
                    from sklearn.preprocessing import StandardScaler

                    X = StandardScaler().fit_transform(X)
                cvt = cross_validated(ests, X, data.y, cv, seed=args.seed)
        except (ValueError, TypeError) as exc:  # e.g. ComplementNB on negative features
            raise DataError(f"cannot compare on --data {args.data!r}: {one_line(exc)}") from exc
    from bayesnb.loo import short_warning

    shown = dict.fromkeys(
        short_warning(str(w.message)) for w in caught if issubclass(w.category, UserWarning)
    )
    for message in shown:
        print(f"warning: {message}", file=sys.stderr)
    how = f"{len(yte)} held-out documents"
    if cv is not None:
        folds = "leave-one-out" if cv == "loo" else f"{cv}-fold stratified"
        how += f"; cv_*: {folds} cross-validation on all {len(data.y)}"
    print(f"{data.name}: {data.X.shape[0]} documents, {data.X.shape[1]} features; {how}")
    print(table(ds, cvt, loo=not args.no_loo))
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0
