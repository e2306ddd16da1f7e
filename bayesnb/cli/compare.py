"""``bayesnb compare``: held-out metrics of several models (and scikit-learn baselines) on one
data set, :func:`bayesnb.compare.compare`'s table."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence

import numpy as np

from bayesnb.cli.data import DATA_HELP, DEMO_SEED, load_data
from bayesnb.cli.errors import DataError, one_line
from bayesnb.cli.models import (
    alpha_models,
    build_estimator,
    check_model_data,
    cli_family,
    cli_models,
    map_params,
    model_estimates,
    models_help,
    no_alpha_models,
)
from bayesnb.cli.options import parse_alpha
from bayesnb.compare import all_estimates, compare
from bayesnb.validation import ESTIMATES

__all__ = ["BASELINES", "add_parser", "run"]

# scikit-learn baselines by short name; ``sklearn:ClassName`` reaches any other classifier.
BASELINES = ("complement", "logistic", "sklearn:CLASS")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``compare`` and its options to the ``bayesnb`` sub-command parsers."""
    cmp_ = subparsers.add_parser(
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
        help=f"model ({models_help()}), optionally :mle|map|mean|bayes; or a baseline "
        "(complement, logistic, sklearn:CLASS)",
    )
    cmp_.add_argument("--data", required=True, metavar="SPEC", help=DATA_HELP)
    cmp_.add_argument(
        "--alpha",
        metavar="N|evidence",
        help=f"prior concentration ({alpha_models()}; not {no_alpha_models()})",
    )
    cmp_.add_argument("--test-size", type=float, default=0.3, help="held-out share (0.3)")
    cmp_.add_argument("--cv", type=int, help="K-fold cross-validation instead of one split")
    cmp_.add_argument("--no-loo", action="store_true", help="skip PSIS-LOO (faster)")
    cmp_.add_argument("--seed", type=int, default=DEMO_SEED, help="seed of the split (0)")
    return cmp_


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
        raise DataError(f"cannot build {name} with default parameters: {one_line(exc)}") from exc
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
            ests[spec] = base
        else:
            every = all_estimates(base, map_params=map_params(model))
            for name in model_estimates(model):
                ests[f"{model}:{name}"] = every[name]
    return ests


def run(args) -> int:
    """``bayesnb compare``: exit status 0 (input errors raise :class:`DataError`)."""
    from bayesnb.report import Study
    from bayesnb.report.sections import split_xy

    data = load_data(args.data, seed=args.seed, test_size=args.test_size)
    ests = _parse_models(args.models, data, parse_alpha(args.alpha))
    # Continuous data are standardised (training moments) for GDA and for the baselines alike:
    # the split of a study of the first model of this kind of data (every model in ``ests``
    # models it, see check_model_data).
    model = next(m for m in cli_models() if data.kind in cli_family(m).data_kinds)
    Xtr, ytr, Xte, yte = split_xy(Study(data, model))  # standardised when GDA takes part
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
            raise DataError(f"cannot compare on --data {args.data!r}: {one_line(exc)}") from exc
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
