"""``bayesnb inspect``: what a model file holds, read from the file alone (no data).

The model and its parameters, classes, features (words, hashed columns or names), learned
concentrations, log evidence, the family's training statistics
(:meth:`bayesnb.families.Family.inspect_statistics`), an ``az.summary``-like closed-form
posterior summary of the class prior and the most informative features, those features
ranked by :func:`bayesnb.most_informative_features`, how to rescore under another
estimate, and for a model fitted with ``--unlabelled`` the EM or VB fit it records.
"""

from __future__ import annotations

import argparse

import numpy as np

from bayesnb.cli.predict import load_model

__all__ = ["add_arguments", "describe", "run"]

_CI = 0.94  # ArviZ's default interval


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The description and options of ``inspect`` on its sub-command parser."""
    parser.description = (
        "Print the model in MODEL_FILE: its type and parameters, classes, features "
        "(the words of a text model), learned alpha, log evidence, the training "
        "statistics, a closed-form posterior summary (mean, sd and 94% interval, as "
        "az.summary) and the most informative features, and how to rescore it under "
        "another estimate. Nothing but the file is read."
    )
    parser.add_argument("model_file", metavar="MODEL_FILE", help="a model saved by `fit`")
    parser.add_argument(
        "--top", type=int, default=5, metavar="N", help="features shown per class pair (5)"
    )


def _names(values, n: int = 6) -> str:
    values = [str(v) for v in values]
    more = f", ... ({len(values) - n:,} more)" if len(values) > n else ""
    return ", ".join(values[:n]) + more


def _features(est) -> str:
    record = getattr(est, "vectorizer_params_", None) or {}
    names = getattr(est, "feature_names_in_", None)
    n = est.n_features_in_
    if record.get("name") == "HashingVectorizer":
        settings = ", ".join(f"{k}={v!r}" for k, v in sorted(record.items()) if k != "name")
        return f"{n:,} hashed columns (HashingVectorizer: {settings})"
    if names is None:
        return f"{n:,} unnamed columns (x0 ... x{n - 1})"
    what = "words" if record.get("name") == "CountVectorizer" else "named columns"
    return f"{n:,} {what}: {_names(names)}"


def _learned(est) -> list[str]:
    lines = []
    params = est.get_params(deep=False)
    hows = {"evidence": "learned by maximising the evidence", "loo": "learned by exact LOO"}
    for name in ("alpha", "class_alpha", "temperature"):
        if name not in params or (name == "temperature" and params[name] == 1.0):
            continue  # (a temperature of 1 is the model as it is: nothing to say)
        value = np.asarray(getattr(est, f"{name}_"), dtype=np.float64)
        shown = f"{float(value):.6g}" if value.ndim == 0 else f"mean {float(value.mean()):.6g}"
        how = hows.get(params[name], "fixed") if isinstance(params[name], str) else "fixed"
        lines.append(f"{name}_: {shown} ({how})")
    return lines


def _pairs(classes) -> list[tuple]:
    """Every ordered pair for up to 3 classes, else each class against the next one."""
    k = len(classes)
    if k <= 3:
        return [(a, b) for a in classes for b in classes if a != b]
    return [(classes[i], classes[(i + 1) % k]) for i in range(k)]


def _informative(est, top: int) -> tuple[list[str], list[int] | None]:
    from bayesnb.informative import most_informative_features

    try:
        table = most_informative_features(est, n=top, classes=_pairs(list(est.classes_)))
    except TypeError as exc:  # the family has no informative features (GDA, categorical)
        return [f"most informative features: none ({exc})"], None
    lines = [
        f"most informative features ({table.attrs['quantity']}, ranked by the lower end of "
        "its 90% interval; mean ± sd):"
    ]
    for (a, b), rows in table.groupby(["class", "versus"], sort=False):
        shown = ", ".join(f"{r.feature} ({r.mean:.2f} ± {r.sd:.2f})" for r in rows.itertuples())
        lines.append(f"  {a} vs {b}: {shown}")
    return lines, sorted(set(table["column"].tolist()))


def _summary(est, columns, limit: int) -> list[str]:
    from bayesnb.draws import posterior_summary

    features = columns if columns is not None else list(range(min(3, est.n_features_in_)))
    try:
        ds = posterior_summary(est, ci_prob=_CI, features=features)
    except (TypeError, ValueError) as exc:
        return [f"posterior summary: none ({exc})"]
    stats = [str(s) for s in ds["summary"].values]
    rows = []
    for name, var in ds.data_vars.items():
        dims = [d for d in var.dims if d != "summary"]
        flat = var.transpose(*dims, "summary").values.reshape(-1, len(stats))
        index = np.ndindex(*(var.sizes[d] for d in dims))
        labels = [
            f"{name}[{', '.join(str(ds[d].values[i]) for d, i in zip(dims, at, strict=True))}]"
            for at in index
        ]
        rows += list(zip(labels, flat, strict=True))
    width = max(len(label) for label, _ in rows[:limit])
    which = "the most informative features" if columns is not None else "the first features"
    lines = [
        f"posterior summary (closed form, {round(100 * _CI)}% equal-tailed intervals; {which}):",
        "  " + " " * width + "".join(f"{s:>11}" for s in stats),
    ]
    lines += [
        f"  {label:<{width}}" + "".join(f"{v:>11.4g}" for v in values)
        for label, values in rows[:limit]
    ]
    if len(rows) > limit:
        lines.append(f"  ... {len(rows) - limit} more rows: bayesnb.draws.posterior_summary(model)")
    return lines


def describe(est, path: str, top: int = 5) -> list[str]:
    """The lines ``bayesnb inspect`` prints for the fitted model ``est`` read from ``path``."""
    from bayesnb.families import family_of

    family = family_of(est)
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(est.get_params(deep=False).items()))
    classes = list(est.classes_)
    lines = [
        f"model: {type(est).__name__} (family {family.name}) from {path}",
        f"parameters: {params}",
        f"classes ({len(classes)}): {_names(classes, 12)}",
        f"features: {_features(est)}",
        *_learned(est),
    ]
    record = getattr(est, "semisupervised_", None)
    if record is not None:
        from bayesnb.cli.unlabelled import describe as describe_em

        lines.append(describe_em(record))
    try:
        # An EM or VB fit's is the evidence of its statistics, the expected counts included.
        soft = " (of the statistics)" if record is not None else ""
        lines.append(f"log evidence{soft}: {est.log_evidence():.6g}")
    except (TypeError, ValueError) as exc:
        lines.append(f"log evidence: none ({exc})")
    lines.append("training statistics:")
    lines += [f"  {what}: {value}" for what, value in family.inspect_statistics(est)]
    informative, columns = _informative(est, top)
    lines += _summary(est, columns, limit=max(len(classes) + 3 * top, 12))
    lines += informative
    others = [e for e in family.estimates if e != est.estimate]
    lines.append(
        f"scoring: estimate={est.estimate!r}; the estimate is a parameter, rescore without "
        f"refitting with `bayesnb predict {path} --data SPEC --estimate "
        f"{{{','.join(others)}}}` or est.set_params(estimate=...)"
    )
    return lines


def run(args) -> int:
    """``bayesnb inspect``: 0 when printed; a missing or foreign file raises DataError."""
    est = load_model(args.model_file)
    lines = describe(est, str(args.model_file), args.top)
    lines.insert(1, f"saved by: {_saved_by(args.model_file)}")
    print("\n".join(lines))
    return 0


def _saved_by(path) -> str:
    """The bayesnb version and format version of a file :func:`load_model` accepted."""
    import xarray as xr

    with xr.open_datatree(path, engine="h5netcdf") as tree:
        attrs = dict(tree.attrs)
    return f"bayesnb {attrs.get('bayesnb_version')}, format_version {attrs.get('format_version')}"
