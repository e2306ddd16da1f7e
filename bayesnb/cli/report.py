"""``bayesnb report``: the HTML report of a saved model on a data set.

The saved model is scored on ``--data`` and its configuration studied on a 70/30 split of it;
a NUTS fit saved beside the model (``NAME.nuts.nc``, from ``bayesnb fit --nuts``) is checked
against the exact posterior.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnb.cli.data import DATA_HELP, DEMO_SEED, load_data
from bayesnb.cli.errors import DataError, one_line
from bayesnb.cli.models import check_model_data, cli_models
from bayesnb.cli.options import Progress
from bayesnb.families import family_of

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``report`` on its sub-command parser."""
    parser.description = (
        "Score a saved model on --data and study its configuration (all four estimates, "
        "smoothing, posterior predictive checks...) on a 70/30 split of --data. A NUTS fit "
        "saved beside the model (NAME.nuts.nc, from `fit --nuts`) is checked too."
    )
    parser.add_argument("model_file", metavar="models/NAME.nc", help="a model saved by `fit`")
    parser.add_argument("--data", required=True, metavar="SPEC", help=DATA_HELP)
    parser.add_argument("--out", required=True, metavar="reports/NAME/", help="output folder")
    parser.add_argument(
        "--nuts",
        action="store_true",
        help="add a small NUTS fit checked against the exact posterior",
    )
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help="random seed (0)")
    parser.add_argument("--quick", action="store_true", help="fewer draws and grid points")


def run(args) -> int:
    """``bayesnb report``: exit status 0 (input errors raise :class:`DataError`)."""
    import xarray as xr
    from sklearn.base import clone

    from bayesnb.columns import saved_vectorizer
    from bayesnb.io import load
    from bayesnb.pipeline import final_estimator
    from bayesnb.report import ReportBuilder, Study

    path = Path(args.model_file)
    try:
        est = final_estimator(load(path))  # a text pipeline's file: its estimator
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot load model {str(path)!r}: {one_line(exc)}") from exc
    family = family_of(est, "bayesnb report")
    if not family.cli:
        raise DataError(
            f"model {path.name} is a {type(est).__name__}, which bayesnb report does not "
            f"study: it reports the models of bayesnb fit ({', '.join(cli_models())})"
        )
    model = family.name
    names = getattr(est, "feature_names_in_", None)
    record = getattr(est, "vectorizer_params_", None) or {}
    # The model's tokenisation (stop words, n-grams) makes its columns of the text again.
    try:
        vectorizer = saved_vectorizer(est) if record.get("name") == "CountVectorizer" else None
    except ValueError as exc:
        raise DataError(
            f"cannot rebuild the text columns of {str(path)!r}: {one_line(exc)}"
        ) from None
    data = load_data(args.data, vocabulary=names, vectorizer=vectorizer, seed=args.seed)
    _check_fits(est, data, path, args.data)
    check_model_data(model, data)
    study = Study(data, model, estimator=clone(est), fitted=est, source=str(path))
    nuts_tree = None
    nuts_path = path.with_suffix(".nuts.nc")
    if nuts_path.is_file():
        try:
            nuts_tree = xr.open_datatree(nuts_path, engine="h5netcdf").load()
        except (OSError, ValueError) as exc:
            raise DataError(
                f"cannot read the NUTS fit {str(nuts_path)!r}: {one_line(exc)}"
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
    bar = Progress(len(builder.steps))
    try:
        index = builder.run(out, progress=bar.report_callback)
    except OSError as exc:
        raise DataError(f"cannot write the report to {str(out)!r}: {one_line(exc)}") from exc
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
