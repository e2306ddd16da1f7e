"""Report section on few labels: test scores against the number of labelled documents per
class, the labelled-only fit against EM and variational Bayes on the rest of the training
split (:func:`bayesnb.curves.labelled_curve`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb.curves import labelled_curve
from bayesnb.report.data import Study
from bayesnb.report.sections.common import fmt, points, words

__all__ = [
    "INFERENCE_LABELS",
    "LABELS_PRIOR",
    "FewLabelsResult",
    "few_labels",
    "few_labels_headline",
    "labelled_gains",
]

#: The prior of every curve: the MAP (EM's target) with a pseudo-count of 0.1 per feature
#: value, so that a handful of labelled documents is not swamped by smoothing.
LABELS_PRIOR = {"estimate": "map", "alpha": 1.1, "class_alpha": 2.0}
INFERENCE_LABELS = {"supervised": "labelled only", "em": "EM", "vb": "VB"}


@dataclass
class FewLabelsResult:
    """The curve (:func:`bayesnb.curves.labelled_curve`'s Dataset), its tables and reading."""

    study: Study
    curve: xr.Dataset | None = None
    estimator: str = ""
    dropped: list[int] = field(default_factory=list)
    seconds: float = float("nan")
    majority: float = float("nan")
    gains: pd.DataFrame | None = None
    table: pd.DataFrame | None = None
    reading: str = ""
    skipped: str | None = None


def labelled_gains(curve: xr.Dataset) -> pd.DataFrame:
    """Paired gains of each semi-supervised inference over the labelled-only fit.

    One row per (inference, size): the mean over seeds of the accuracy difference and of the
    log-loss reduction (labelled only − inference: positive is better), and their paired
    standard errors sd / √n_seeds (ddof = 1), each seed's fits sharing its labelled documents.
    """
    rows = []
    base = curve.sel(inference="supervised")
    n = curve.sizes["seed"]
    for name in curve["inference"].values:
        if name == "supervised":
            continue
        other = curve.sel(inference=name)
        for metric, diff in (
            ("accuracy", other["accuracy"] - base["accuracy"]),
            ("log_loss", base["log_loss"] - other["log_loss"]),
        ):
            d = diff.transpose("size", "seed").values
            se = d.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full(d.shape[0], np.nan)
            for size, m, s in zip(curve["size"].values, d.mean(axis=1), se, strict=True):
                rows.append(
                    {"inference": name, "size": int(size), "metric": metric, "gain": m, "se": s}
                )
    return pd.DataFrame(rows)


def _sizes_text(sizes: Sequence[int]) -> str:
    sizes = [str(s) for s in sizes]
    return sizes[0] if len(sizes) == 1 else f"{', '.join(sizes[:-1])} and {sizes[-1]}"


def _verdict(g: pd.DataFrame, metric: str) -> str:
    """How an inference's gains on ``metric`` compare with twice their paired SE, by size."""
    g = g[g["metric"] == metric]
    if metric == "accuracy":
        what, better, worse = "accuracy", "higher", "lower"

        def unit(v):
            return f"{points(v)} points"
    else:
        what, better, worse = "log loss", "lower", "higher"

        def unit(v):
            return f"{fmt(v)} nats"

    up = g["gain"] > 2 * g["se"]
    down = g["gain"] < -2 * g["se"]
    parts = []
    for rows, verb in ((g[up], better), (g[down], worse)):
        if len(rows):
            by = ", ".join(unit(abs(v)) for v in rows["gain"])
            parts.append(f"{verb} at {_sizes_text(rows['size'].tolist())} ({by})")
    flat = g[~(up | down)]
    if len(flat):
        parts.append(f"within 2 paired SE at {_sizes_text(flat['size'].tolist())}")
    return f"{what} {', '.join(parts)}"


def few_labels_headline(x: FewLabelsResult) -> str:
    """One sentence for the overview: the range of each inference's accuracy gain."""
    if x.skipped:
        return f"Few labels ({x.study.label}): {x.reading}"
    parts = []
    for name in x.curve["inference"].values:
        if name == "supervised":
            continue
        g = x.gains[(x.gains["inference"] == name) & (x.gains["metric"] == "accuracy")]
        lo, hi = g.loc[g["gain"].idxmin()], g.loc[g["gain"].idxmax()]
        parts.append(
            f"{INFERENCE_LABELS[name]} from {points(lo['gain'])} ({lo['size']} per class) to "
            f"{points(hi['gain'])} points ({hi['size']} per class)"
        )
    return (
        f"Few labels ({x.study.label}): the accuracy gain over the labelled-only fit ranges, "
        f"for {' and '.join(parts)}."
    )


def _cell(mean: float, se: float, digits: int) -> str:
    text = f"{mean:.{digits}f}" if np.isnan(se) else f"{mean:.{digits}f} ± {se:.{digits}f}"
    return text.replace("-", "−")


def _table(curve: xr.Dataset, gains: pd.DataFrame) -> pd.DataFrame:
    table = {}
    for metric, label, digits in (("accuracy", "accuracy", 3), ("log_loss", "log loss", 2)):
        for name in curve["inference"].values:
            mean = curve[f"{metric}_mean"].sel(inference=name).values
            se = curve[f"{metric}_se"].sel(inference=name).values
            col = f"{label}: {INFERENCE_LABELS[name]}"
            table[col] = [_cell(m, s, digits) for m, s in zip(mean, se, strict=True)]
    for name in curve["inference"].values:
        if name == "supervised":
            continue
        g = gains[(gains["inference"] == name) & (gains["metric"] == "accuracy")]
        table[f"{INFERENCE_LABELS[name]} gain (points)"] = [
            _cell(100 * m, 100 * s, 1) for m, s in zip(g["gain"], g["se"], strict=True)
        ]
    out = pd.DataFrame(table, index=curve["size"].values)
    out.index.name = "labelled / class"
    return out


def few_labels(
    study: Study,
    *,
    seed: int = 0,
    sizes: Sequence[int] = (1, 2, 5, 10, 20, 50),
    n_seeds: int = 5,
    max_unlabelled: int | None = None,
    max_iter: int = 100,
) -> FewLabelsResult:
    """The few-labels curve of ``study`` on its split, with its reading.

    Sizes that need more documents than the smallest training class holds (n + 1) are
    dropped and named; the reading says how each inference compares with the labelled-only
    fit at each size, from the paired gains (:func:`labelled_gains`).
    """
    data = study.data
    params = study.estimator.get_params(deep=False)
    est = study.configured(**{k: v for k, v in LABELS_PRIOR.items() if k in params})
    _, counts = np.unique(data.y_train, return_counts=True)
    kept = [int(n) for n in sizes if n + 1 <= counts.min()]
    dropped = [int(n) for n in sizes if n + 1 > counts.min()]
    _, doc = words(data)
    if not kept:
        reason = (
            f"the smallest class has {counts.min()} training {doc}s; one labelled {doc} per "
            "class needs two"
        )
        return FewLabelsResult(study, skipped=reason, reading=f"Not computed: {reason}.")
    t0 = time.perf_counter()
    curve = labelled_curve(
        est,
        data.X_train,
        data.y_train,
        data.X_test,
        data.y_test,
        sizes=kept,
        n_seeds=n_seeds,
        random_state=seed,
        max_iter=max_iter,
        max_unlabelled=max_unlabelled,
    )
    seconds = time.perf_counter() - t0
    gains = labelled_gains(curve)
    _, test_counts = np.unique(data.y_test, return_counts=True)
    majority = float(test_counts.max() / test_counts.sum())
    result = FewLabelsResult(
        study, curve, repr(est), dropped, seconds, majority, gains, _table(curve, gains)
    )
    result.reading = _reading(result)
    return result


def _span(values: np.ndarray) -> str:
    lo, hi = int(values.min()), int(values.max())
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _reading(x: FewLabelsResult) -> str:
    c, data = x.curve, x.study.data
    _, doc = words(data)
    pool = c["n_unlabelled"].values
    cap, k = c.attrs["max_unlabelled"], np.unique(data.y_train).size
    capped = 0 <= cap < c.attrs["n_train"] - k * int(c["size"].min())
    pool_text = (
        f"a random {_span(pool)} of the other training {doc}s (capped at {cap} "
        "to keep the report's time modest)"
        if capped
        else f"every other training {doc} ({_span(pool)})"
    )
    fits = c["converged"].sel(inference=[i for i in c["inference"].values if i != "supervised"])
    stopped = int((~fits).sum())
    out = [
        f"{x.estimator} on {data.name}: n labelled {doc}s per class drawn at random from the "
        f"{c.attrs['n_train']} training {doc}s, {pool_text} unlabelled (λ = "
        f"{c.attrs['unlabelled_weight']:g}), scored on the {c.attrs['n_test']} test {doc}s; "
        f"mean ± standard error over {c.attrs['n_seeds']} draws, each draw's fits sharing its "
        f"labelled {doc}s (so the gains are paired). {fits.size} EM/VB fits "
        f"(at most {c.attrs['max_iter']} iterations"
        + (f"; {stopped} stopped there" if stopped else ", all converged")
        + f") and the labelled-only fits took {x.seconds:.1f} s."
    ]
    best = c["accuracy_mean"].max().item()
    out.append(
        f"Always guessing the largest class scores {x.majority:.3f} on the test {doc}s (dotted "
        f"line); the best mean accuracy of the curves is {best:.3f}"
        + (
            ", below it (the labelled draws are balanced across classes, the test split is not)."
            if best < x.majority
            else "."
        )
    )
    if x.dropped:
        out.append(
            f"Sizes {_sizes_text(x.dropped)} dropped: the smallest class has fewer than n + 1 "
            f"training {doc}s."
        )
    for name in c["inference"].values:
        if name == "supervised":
            continue
        g = x.gains[x.gains["inference"] == name]
        out.append(
            f"{INFERENCE_LABELS[name]} against the labelled-only fit, by labelled {doc}s per "
            f"class: {_verdict(g, 'accuracy')}; {_verdict(g, 'log_loss')}."
        )
    return " ".join(out)
