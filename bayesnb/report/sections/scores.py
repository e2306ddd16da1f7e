"""Report sections on every study: the data summary, the estimates side by side, a saved model.

Each function takes studies and returns a result object holding the numbers the figures and
the text are made from; its ``reading`` is one paragraph of plain language generated from
them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from bayesnb.comparison import all_estimates, compare
from bayesnb.loo import short_warning
from bayesnb.report.data import Dataset, Study, row_lengths
from bayesnb.report.sections.common import (
    ESTIMATE_LABELS,
    _a,
    equal_count_bins,
    fmt,
    map_prior,
    pct,
    split_xy,
    true_log_proba,
    words,
)

__all__ = [
    "DataSummary",
    "EstimateResult",
    "SavedModelResult",
    "best_estimate",
    "data_summary",
    "estimates",
    "overconfidence",
    "reliability",
    "saved_model",
]


@dataclass
class DataSummary:
    """Sizes, balance, sparsity and document lengths of every data set."""

    table: pd.DataFrame
    class_sizes: dict[str, pd.Series]
    lengths: dict[str, np.ndarray]
    reading: str


def data_summary(datasets: Sequence[Dataset]) -> DataSummary:
    """Describe each data set: classes, sizes, features, sparsity and document lengths."""
    rows, sizes, lengths, sentences = [], {}, {}, []
    for d in datasets:
        classes, counts = np.unique(d.y, return_counts=True)
        n, v = d.X.shape
        nnz = d.X.nnz if sp.issparse(d.X) else int(np.count_nonzero(d.X))
        density = nnz / (n * v)
        row = {
            "data": d.name,
            "kind": d.kind,
            "documents": n,
            "train / test": f"{d.train.size} / {d.test.size}",
            "classes": classes.size,
            "smallest / largest class": f"{counts.min()} / {counts.max()}",
            "features": v,
            "non-zero cells": f"{100 * density:.3g}%",
        }
        feature, doc = words(d)
        sizes[d.name] = pd.Series(counts, index=[str(c) for c in classes])
        majority = counts.max() / n
        text = (
            f"{d.name}: {n} {doc}s in {classes.size} classes "
            f"({counts.min()}–{counts.max()} each; always guessing the largest class, "
            f"{classes[counts.argmax()]}, is right {pct(majority)} of the time), "
            f"{v} {feature}s"
        )
        if d.discrete:
            length = row_lengths(d.X)
            lengths[d.name] = length
            row["median length"] = float(np.median(length))
            row["mean length"] = float(length.mean())
            text += (
                f"; {pct(density)} of the {doc}–{feature} cells are non-zero and {_a(doc)} "
                f"holds {np.median(length):.0f} {'tokens' if d.kind == 'text' else 'counts'} "
                f"at the median (range {length.min():.0f}–{length.max():.0f})"
            )
        else:
            row["median length"] = np.nan
            row["mean length"] = np.nan
            text += "; continuous measurements, standardised with the training moments for GDA"
        rows.append(row)
        sentences.append(text + ".")
    table = pd.DataFrame(rows).set_index("data")
    return DataSummary(table, sizes, lengths, " ".join(sentences))


def reliability(y, proba: np.ndarray, classes, n_bins: int = 10) -> pd.DataFrame:
    """Reliability diagram data: equal-mass bins of the top-class probability.

    Documents are sorted by the probability of their predicted class and split into
    ``n_bins`` bins of (nearly) equal size, as for the expected calibration error; naive Bayes
    puts most documents near probability 1, where equal-width bins would lump them together.

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``low``/``high`` (confidence range), ``confidence`` (mean),
        ``accuracy``, ``n`` and ``se`` (binomial standard error of the accuracy).
    """
    conf = proba.max(axis=1)
    correct = np.asarray(classes)[proba.argmax(axis=1)] == np.asarray(y)
    rows = [
        {
            "low": conf[idx].min(),
            "high": conf[idx].max(),
            "confidence": conf[idx].mean(),
            "accuracy": acc,
            "n": int(idx.size),
            "se": se,
        }
        for idx, acc, se in equal_count_bins(conf, correct, n_bins)
    ]
    return pd.DataFrame(rows)


@dataclass
class EstimateResult:
    """The four estimates of one study on its held-out split."""

    study: Study
    table: pd.DataFrame
    proba: dict[str, np.ndarray]
    classes: np.ndarray
    y_test: np.ndarray
    n_train: int
    reliability: dict[str, pd.DataFrame]
    notes: list[str]
    reading: str = ""
    priors: str = ""


_PRIOR_NAMES = {"alpha": "α", "class_alpha": "class-prior α"}


def prior_text(estimator, fitted_mean) -> str:
    """Which prior the rows of the estimates table use: the MAP's fixed one, and the
    configured one of the posterior mean and full Bayes, a learned value quoted as fitted
    (``fitted_mean``, the posterior-mean fit)."""
    params = estimator.get_params(deep=False)
    map_params = map_prior(estimator)
    mode = ", ".join(f"{_PRIOR_NAMES[k]} = {fmt(v)}" for k, v in map_params.items())
    shown = []
    for name, symbol in _PRIOR_NAMES.items():
        if name not in params:
            continue
        value = params[name]
        if isinstance(value, str):  # learned ("evidence", "loo"): the fitted value
            learned = np.asarray(getattr(fitted_mean, f"{name}_", np.nan), dtype=float)
            number = fmt(float(learned)) if learned.size == 1 else f"{fmt(learned.mean())} mean"
            shown.append(f'{symbol} = {number} (alpha="{value}", learned on the training set)')
        else:
            shown.append(f"{symbol} = {fmt(float(value))}")
    rest = ", ".join(shown) if "alpha" in params else ", ".join(["the model's prior", *shown])
    return (
        f"MLE: no prior. MAP: {mode}"
        + (" (its mode is add-one smoothing)" if "alpha" in map_params else "")
        + f". Posterior mean and full Bayes: {rest}."
    )


def estimates(study: Study, *, loo_draws: int = 500) -> EstimateResult:
    """compare() of the four estimates (plus the family's partners, e.g. logistic regression
    for GDA) on the split.

    The held-out probabilities of every estimate are kept for the reliability diagrams, and
    the number of test documents whose true label gets probability exactly 0 (``p0_docs``).
    """
    Xtr, ytr, Xte, yte = split_xy(study)
    # A model without `alpha` (GDA, the DCM): its MAP entry only sharpens the class prior.
    ests = all_estimates(study.estimator, map_params=map_prior(study.estimator))
    ests.update(study.report.partners(study.estimator))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        ds, fitted = compare(
            ests, Xtr, ytr, Xte, yte, loo=True, loo_draws=loo_draws, return_estimator=True
        )
    notes = sorted(
        {short_warning(str(w.message)) for w in caught if issubclass(w.category, UserWarning)}
    )
    table = ds.to_dataframe()
    proba, rel = {}, {}
    for name, model in fitted.items():
        if model is None:  # failed in compare: its row is NaN, its reason in "error"
            continue
        proba[name] = model.predict_proba(Xte)
        rel[name] = reliability(yte, proba[name], model.classes_)
        classes = model.classes_
    n_test = len(yte)
    table["lpd_per_doc"] = table["lpd"] / n_test
    table["elpd_loo_per_doc"] = table["elpd_loo"] / len(ytr)
    zero = {
        n: int(np.sum(p[np.arange(n_test), np.searchsorted(classes, yte)] == 0))
        for n, p in proba.items()
    }
    table["p0_docs"] = pd.Series(zero)
    result = EstimateResult(study, table, proba, classes, yte, len(ytr), rel, notes)
    result.reading = _estimates_reading(result)
    if "mean" in fitted:
        result.priors = prior_text(study.estimator, fitted["mean"])
    return result


def overconfidence(y, proba, classes, threshold: float = 0.99) -> tuple[int, float]:
    """How many documents get more than ``threshold`` on their top class, and their accuracy."""
    conf = proba.max(axis=1)
    sure = conf > threshold
    if not sure.any():
        return 0, np.nan
    correct = np.asarray(classes)[proba.argmax(axis=1)] == np.asarray(y)
    return int(sure.sum()), float(correct[sure].mean())


def best_estimate(lpd: pd.Series) -> tuple[str, list[str]]:
    """The estimate with the highest lpd and every estimate tied with it (to 1e-9 nats).

    Ties are common (MAP at α = 2 is the posterior mean at α = 1; Bernoulli full Bayes is its
    posterior mean); the first of bayes, mean, map, mle, other among them is named.
    """
    top = lpd.max()
    tied = [k for k in lpd.index if np.isfinite(lpd[k]) and abs(lpd[k] - top) <= 1e-9]
    if not tied:  # every estimate at −∞
        tied = list(lpd.index)
    order = ["bayes", "mean", "map", "mle"]
    tied.sort(key=lambda k: order.index(k) if k in order else len(order))
    return tied[0], tied


def _estimates_reading(r: EstimateResult) -> str:
    t = r.table
    _, doc = words(r.study.data)
    n = len(r.y_test)
    parts = []
    lpd = t["lpd_per_doc"]
    best, tied = best_estimate(lpd)
    names = " = ".join(ESTIMATE_LABELS[k] for k in tied)
    parts.append(
        f"On {n} held-out {doc}s the best label log density is {fmt(lpd[best])} nats per "
        f"{doc}, from the {names} (accuracy {pct(t.loc[best, 'accuracy'])})."
    )
    if "mle" in t.index and "mean" in t.index:
        zero = int(t.loc["mle", "p0_docs"])
        if np.isneginf(lpd["mle"]) or zero:
            parts.append(
                f"The MLE gives the true label probability 0 for {zero} of them (a "
                f"{words(r.study.data)[0]} never seen with that class in training rules the "
                "class out), so its log density "
                f"is −∞; the posterior mean scores {fmt(lpd['mean'])}."
            )
        else:
            gain = lpd["mean"] - lpd["mle"]
            verb = "beats" if gain > 0 else "trails"
            parts.append(
                f"The posterior mean {verb} the MLE by {fmt(abs(gain))} nats per {doc} "
                f"({fmt(lpd['mean'])} against {fmt(lpd['mle'])})."
            )
    what = r.study.report.predictive
    if "bayes" in t.index and "mean" in t.index and what is not None:
        gain = lpd["bayes"] - lpd["mean"]
        parts.append(
            f"Integrating the parameters out (the {what} predictive) changes that by "
            f"{fmt(gain, 2)} nats per {doc}."
        )
    ref = "bayes" if "bayes" in r.proba else best
    k, acc = overconfidence(r.y_test, r.proba[ref], r.classes)
    if k:
        parts.append(
            f"Calibration: the {ESTIMATE_LABELS[ref]} puts more than 99% on its top class for "
            f"{k} of {n} {doc}s, and is right on {pct(acc)} of those "
            f"(expected calibration error {fmt(t.loc[ref, 'ece'], 2)})"
            + (
                " — naive Bayes multiplies evidence from features it wrongly treats as "
                "independent, so it is over-confident."
                if acc < 0.99 and r.study.report.naive
                else "."
            )
        )
    if "mean" in t.index and np.isfinite(t.loc["mean", "elpd_loo"]):
        per_doc, held = fmt(t.loc["mean", "elpd_loo_per_doc"]), fmt(lpd["mean"])
        if t.loc["mean", "loo_method"] == "exact":
            # bayesnb.model_selection.elpd_loo: no importance sampling, no Pareto k caveat.
            parts.append(
                f"Exact leave-one-out on the {r.n_train} training labels (each {doc} scored "
                f"by the model fitted without it, from one fit) gives {per_doc} nats per "
                f"{doc} for the posterior mean (held out: {held})."
            )
        else:  # PSIS-LOO over posterior draws (a family that cannot subtract statistics)
            bad = int(t.loc["mean", "pareto_k_bad"])
            parts.append(
                f"PSIS-LOO on the {r.n_train} training labels estimates {per_doc} nats per "
                f"{doc} for the posterior (held out: {held})"
                + (
                    f"; Pareto k is above the reliability threshold for {bad} {doc}s, so "
                    "that estimate is not trustworthy for them."
                    if bad
                    else "; every Pareto k is below the threshold."
                )
            )
    if "logistic" in t.index:
        parts.append(
            f"Logistic regression, the discriminative partner, reaches "
            f"{pct(t.loc['logistic', 'accuracy'])} accuracy and {fmt(lpd['logistic'])} nats "
            f"per {doc}."
        )
    return " ".join(parts)


@dataclass
class SavedModelResult:
    """A model loaded from a file, scored on the data it is reported with."""

    study: Study
    table: pd.DataFrame
    reading: str = ""


def saved_model(study: Study) -> SavedModelResult:
    """Describe the fitted model of ``study`` and score it on all of the study's documents."""
    import json

    est = study.fitted
    data = study.data
    X = data.X
    lp = true_log_proba(est, X, data.y)
    acc = float(np.mean(est.predict(X) == data.y))
    params = est.get_params(deep=False)
    rows = {
        "file": study.source,
        "model": type(est).__name__,
        "parameters": json.dumps({k: v for k, v in params.items() if v is not None}, default=str),
        "learned α": fmt(float(np.mean(getattr(est, "alpha_", np.nan))), 4),
        "training documents": f"{est.class_count_.sum():.0f}",
        "classes": ", ".join(str(c) for c in est.classes_),
        "features": str(est.n_features_in_),
        f"accuracy on all {len(data.y)} documents": pct(acc),
        "label log density per document": fmt(float(lp.mean())),
    }
    table = pd.DataFrame({"value": rows})
    _, doc = words(data)
    reading = (
        f"The saved {type(est).__name__} ({params.get('estimate')} estimate) was fitted on "
        f"{est.class_count_.sum():.0f} {doc}s. On all {len(data.y)} {doc}s of {data.name} it is "
        f"right {pct(acc)} of the time with {fmt(float(lp.mean()))} nats per {doc}; if these "
        "include its training documents, those numbers are optimistic. The sections below refit "
        f"its configuration on a stratified {100 - round(100 * data.test_size)}/"
        f"{round(100 * data.test_size)} split of these data to measure it honestly."
    )
    return SavedModelResult(study, table, reading)
