"""Report sections, computed: studies -> numbers, tables and the plain-language readings.

Nothing here draws (that is :mod:`bayesnb.report.figures`) or writes HTML
(:mod:`bayesnb.report.html`): every function takes studies and returns a result object
holding the numbers the figures and the text are made from, so a section can be inspected,
tested or re-plotted without re-running it. Each result has a ``reading``: one paragraph of
plain language generated from its numbers.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
import xarray as xr
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayesnb.compare import all_estimates, compare
from bayesnb.loo import short_warning
from bayesnb.report.data import Dataset, Study, fit_named, row_lengths, row_nnz

__all__ = [
    "BaselineResult",
    "BurstinessResult",
    "DataSummary",
    "EstimateResult",
    "EventModelResult",
    "GDAResult",
    "InformativeResult",
    "PPCResult",
    "ParameterResult",
    "PoissonResult",
    "SamplerResult",
    "SavedModelResult",
    "SmoothingResult",
    "baselines",
    "baselines_headline",
    "best_estimate",
    "burstiness",
    "data_summary",
    "deleted_estimation",
    "discriminative_features",
    "estimates",
    "event_models",
    "fmt",
    "gda_study",
    "informative",
    "overconfidence",
    "parameters",
    "poisson_vs_multinomial",
    "posterior_predictive",
    "reliability",
    "sampler",
    "saved_model",
    "smoothing",
    "smoothing_headline",
    "split_xy",
    "words",
]

# "map" needs concentrations above 1 for an interior mode; alpha = 2 is add-one smoothing.
MAP_PRIOR = {"alpha": 2.0, "class_alpha": 2.0}
GDA_MAP_PRIOR = {"class_alpha": 2.0}
ESTIMATE_LABELS = {
    "mle": "MLE",
    "map": "MAP (α = 2)",
    "mean": "posterior mean",
    "bayes": "full Bayes",
    "logistic": "logistic regression",
}


# -- small helpers ---------------------------------------------------------------------------
def fmt(x: float, digits: int = 3) -> str:
    """A number for prose: −∞ spelled out, otherwise ``digits`` significant digits."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "n/a"
    if np.isneginf(x):
        return "−∞"
    if np.isposinf(x):
        return "∞"
    return f"{x:.{digits}g}".replace("-", "−")


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def words(data: Dataset) -> tuple[str, str]:
    """How to call a feature and a document of these data in prose."""
    if data.kind == "text":
        return "word", "document"
    if data.name.startswith("digits"):
        return "pixel", "image"
    return "feature", "document"


def split_xy(study: Study):
    """Train/test arrays of a study; continuous features standardised with training moments."""
    data = study.data
    Xtr, Xte = data.X_train, data.X_test
    if study.model == "gda":
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    return Xtr, data.y_train, Xte, data.y_test


def _true_log_proba(est, X, y) -> np.ndarray:
    """log p(y_i | x_i) of every document under a fitted classifier."""
    log_p = est.predict_log_proba(X)
    idx = np.searchsorted(est.classes_, y)
    return log_p[np.arange(len(y)), idx]


def _posterior_mean_tables(est) -> tuple[np.ndarray, np.ndarray]:
    """(π, θ) of the posterior mean: θ is (K, V) or, for the categorical model, (K, V, W)."""
    tree = est.point_estimate("mean")
    post = tree["posterior"]
    return post["class_prior"].values[0, 0], post["feature_prob"].values[0, 0]


def _contributions(est) -> np.ndarray:
    """Class-specific mutual-information contributions I_cj, shape (K, V).

    Σ_c I_cj is the mutual information between the class and feature j (for the multinomial
    model: between the class and a token being word j), under the posterior mean.
    """
    pi, theta = _posterior_mean_tables(est)
    kind = type(est).__name__
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "BernoulliNB":
            bar = pi @ theta
            terms = theta * np.log(theta / bar) + (1 - theta) * np.log((1 - theta) / (1 - bar))
        elif kind == "CategoricalNB":
            bar = np.einsum("c,cjv->jv", pi, theta)
            terms = np.nansum(theta * np.log(theta / bar), axis=-1)
        else:
            bar = pi @ theta
            terms = theta * np.log(theta / bar)
    return pi[:, None] * np.nan_to_num(terms)


def _lift(est, min_count: float = 10.0) -> np.ndarray:
    """log(θ_cj / θ̄_j) under the posterior mean, for pairs seen at least ``min_count`` times.

    The features most specific to a class (its "keywords"); rarer pairs get −inf, as their
    ratio is mostly noise. When a class has no pair that frequent, the threshold drops to its
    most frequent feature's count.
    """
    pi, theta = _posterior_mean_tables(est)
    counts = np.asarray(est.feature_count_)
    if theta.ndim == 3:  # categorical: probability of a non-zero value
        theta = 1.0 - theta[..., 0]
    bar = pi @ theta
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = np.log(theta / bar)
    floor = np.minimum(min_count, counts.max(axis=1, keepdims=True))
    return np.where(counts >= floor, lift, -np.inf)


def discriminative_features(est, k: int) -> np.ndarray:
    """The ``k`` columns sharing most information with the class (sorted column indices)."""
    score = _contributions(est).sum(axis=0)
    k = min(k, score.size)
    return np.sort(np.argsort(score)[::-1][:k])


# -- 1. data summary -------------------------------------------------------------------------
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
            f"{classes[counts.argmax()]}, is right {_pct(majority)} of the time), "
            f"{v} {feature}s"
        )
        if d.discrete:
            length = row_lengths(d.X)
            lengths[d.name] = length
            row["median length"] = float(np.median(length))
            row["mean length"] = float(length.mean())
            text += (
                f"; {_pct(density)} of the {doc}–{feature} cells are non-zero and {_a(doc)} "
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


# -- 2. estimates side by side ---------------------------------------------------------------
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
    order = np.argsort(conf, kind="stable")
    rows = []
    for idx in np.array_split(order, min(n_bins, conf.size)):
        if idx.size:
            acc = correct[idx].mean()
            rows.append(
                {
                    "low": conf[idx].min(),
                    "high": conf[idx].max(),
                    "confidence": conf[idx].mean(),
                    "accuracy": acc,
                    "n": int(idx.size),
                    # Floored so that a bin at 0% or 100% still shows its uncertainty.
                    "se": float(np.sqrt(max(acc * (1 - acc), 0.25 / idx.size) / idx.size)),
                }
            )
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


def estimates(study: Study, *, loo_draws: int = 500) -> EstimateResult:
    """compare() of the four estimates (plus logistic regression for GDA) on the split.

    The held-out probabilities of every estimate are kept for the reliability diagrams, and
    the number of test documents whose true label gets probability exactly 0 (``p0_docs``).
    """
    Xtr, ytr, Xte, yte = split_xy(study)
    gda = study.model == "gda"
    # GDA and the DCM have no `alpha`: their MAP entry only sharpens the class prior.
    no_alpha = study.model in ("gda", "dcm")
    ests = all_estimates(study.estimator, map_params=GDA_MAP_PRIOR if no_alpha else MAP_PRIOR)
    if study.model == "dcm":
        ests.pop("bayes")  # refused by the model: no closed-form Pólya predictive over β
    if gda:
        ests["logistic"] = LogisticRegression(max_iter=5000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        ds = compare(ests, Xtr, ytr, Xte, yte, loo=True, loo_draws=loo_draws)
    notes = sorted(
        {short_warning(str(w.message)) for w in caught if issubclass(w.category, UserWarning)}
    )
    table = ds.to_dataframe()
    proba, rel = {}, {}
    for name, est in ests.items():
        fitted = clone(est).fit(Xtr, ytr)
        proba[name] = fitted.predict_proba(Xte)
        rel[name] = reliability(yte, proba[name], fitted.classes_)
        classes = fitted.classes_
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
        f"{doc}, from the {names} (accuracy {_pct(t.loc[best, 'accuracy'])})."
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
    if "bayes" in t.index and "mean" in t.index and r.study.model in ("multinomial", "gda"):
        gain = lpd["bayes"] - lpd["mean"]
        what = "Dirichlet-multinomial" if r.study.model == "multinomial" else "Student-t"
        parts.append(
            f"Integrating the parameters out (the {what} predictive) changes that by "
            f"{fmt(gain, 2)} nats per {doc}."
        )
    ref = "bayes" if "bayes" in r.proba else best
    k, acc = overconfidence(r.y_test, r.proba[ref], r.classes)
    if k:
        parts.append(
            f"Calibration: the {ESTIMATE_LABELS[ref]} puts more than 99% on its top class for "
            f"{k} of {n} {doc}s, and is right on {_pct(acc)} of those "
            f"(expected calibration error {fmt(t.loc[ref, 'ece'], 2)})"
            + (
                " — naive Bayes multiplies evidence from features it wrongly treats as "
                "independent, so it is over-confident."
                if acc < 0.99 and r.study.model != "gda"
                else "."
            )
        )
    if "mean" in t.index and np.isfinite(t.loc["mean", "elpd_loo"]):
        bad = int(t.loc["mean", "pareto_k_bad"])
        parts.append(
            f"PSIS-LOO on the {r.n_train} training labels estimates "
            f"{fmt(t.loc['mean', 'elpd_loo_per_doc'])} nats per {doc} for the posterior "
            f"(held out: {fmt(lpd['mean'])})"
            + (
                f"; Pareto k is above the reliability threshold for {bad} {doc}s, so that "
                "estimate is not trustworthy for them."
                if bad
                else "; every Pareto k is below the threshold."
            )
        )
    if "logistic" in t.index:
        parts.append(
            f"Logistic regression, the discriminative partner, reaches "
            f"{_pct(t.loc['logistic', 'accuracy'])} accuracy and {fmt(lpd['logistic'])} nats "
            f"per {doc}."
        )
    return " ".join(parts)


# -- 3. parameters: forest and shrinkage -----------------------------------------------------
@dataclass
class ParameterResult:
    """Estimates of the most discriminative (class, feature) probabilities, and shrinkage."""

    study: Study
    trees: dict[str, xr.DataTree]
    pairs: list[str]
    shrinkage: pd.DataFrame
    alpha_evidence: float
    alpha: float
    reading: str = ""


def _pair_tree(tree: xr.DataTree, pairs: list[tuple[int, int]], labels: list[str], n_draws: int):
    """feature_prob at (class, feature) pairs as one ``pair`` dim; points repeated to n draws."""
    fp = tree["posterior"]["feature_prob"]
    values = np.stack([fp.values[:, :, c, j] for c, j in pairs], axis=-1)
    if values.shape[1] == 1:
        values = np.repeat(values, n_draws, axis=1)
    da = xr.DataArray(
        values,
        dims=("chain", "draw", "pair"),
        coords={
            "chain": np.arange(values.shape[0]),
            "draw": np.arange(values.shape[1]),
            "pair": labels,
        },
    )
    return xr.DataTree.from_dict({"posterior": xr.Dataset({"feature_prob": da})})


def parameters(
    study: Study, *, draws: int = 1000, seed: int = 0, per_class: int = 2
) -> ParameterResult:
    """Forest-plot trees of the most class-specific features and shrinkage data.

    For every class the ``per_class`` features with the largest class-specific contribution
    to the class–feature mutual information are kept (at most 12 rows); their probabilities
    under the MLE, the MAP (α = 2), the posterior mean, and exact posterior draws.
    """
    data = study.data
    Xtr, ytr, _, _ = split_xy(study)
    names = data.feature_names
    mean_est = fit_named(study.configured(estimate="mean"), Xtr, ytr, names)
    lift = _lift(mean_est)
    n_classes = lift.shape[0]
    per = max(1, min(per_class, 12 // n_classes))
    chosen: list[tuple[int, int]] = []
    for c in range(n_classes):
        taken = 0
        for j in np.argsort(lift[c])[::-1]:
            if taken == per or not np.isfinite(lift[c, j]):
                break
            if all(j != jj for _, jj in chosen):
                chosen.append((c, int(j)))
                taken += 1
    feats = np.unique([j for _, j in chosen])
    local = {j: i for i, j in enumerate(feats)}
    pairs = [(c, local[j]) for c, j in chosen]
    classes = [str(c) for c in mean_est.classes_]
    labels = [f"{classes[c]}: {names[j]}" for c, j in chosen]
    map_est = fit_named(study.configured(estimate="map", **MAP_PRIOR), Xtr, ytr, names)
    trees = {
        "MLE": _pair_tree(mean_est.point_estimate("mle", features=feats), pairs, labels, draws),
        "MAP (α = 2)": _pair_tree(
            map_est.point_estimate("map", features=feats), pairs, labels, draws
        ),
        "posterior mean": _pair_tree(
            mean_est.point_estimate("mean", features=feats), pairs, labels, draws
        ),
        "posterior (exact draws)": _pair_tree(
            mean_est.sample_posterior(draws=draws, chains=1, random_seed=seed, features=feats),
            pairs,
            labels,
            draws,
        ),
    }
    ev = fit_named(study.configured(estimate="mean", alpha="evidence"), Xtr, ytr, names)
    shrink = _shrinkage(mean_est, ev)
    alpha = float(np.mean(mean_est.alpha_))
    result = ParameterResult(study, trees, labels, shrink, float(ev.alpha_), alpha)
    result.reading = _parameters_reading(result, mean_est)
    return result


def _totals(est) -> np.ndarray:
    """Per-class denominator of the MLE: tokens (multinomial) or documents (Bernoulli)."""
    if type(est).__name__ == "MultinomialNB":
        return est.feature_count_.sum(axis=1)
    return est.class_count_


def _shrinkage(mean_est, ev_est) -> pd.DataFrame:
    """Every (class, feature): its count and the estimates expressed as counts (θ̂ · total)."""
    counts = mean_est.feature_count_
    total = _totals(mean_est)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        mle = np.where(total > 0, counts, np.nan)
    mean = np.exp(mean_est.feature_log_prob_) * total
    ev = np.exp(ev_est.feature_log_prob_) * total
    v = counts.shape[1]
    return pd.DataFrame(
        {
            "class": np.repeat(np.asarray(mean_est.classes_).astype(str), v),
            "count": counts.ravel(),
            "mle": mle.ravel(),
            "laplace": mean.ravel(),
            "evidence": ev.ravel(),
        }
    )


def _parameters_reading(r: ParameterResult, est) -> str:
    s = r.shrinkage
    feature, _ = words(r.study.data)
    alpha = float(np.mean(est.alpha_))
    zero = s[s["count"] == 0]
    big = s[s["count"] >= 10]
    parts = [
        f"The forest shows, for each class, the {feature}s most specific to it (largest ratio of "
        f"their probability in the class to their average probability, among {feature}s seen "
        "at least 10 times in the class), under the four estimates; the exact posterior's 50% "
        "and 89% intervals show how much the data pin each probability down."
        + (
            " The MAP under α = 2 and the posterior mean under α = 1 coincide: both are "
            "add-one smoothing."
            if alpha == 1.0
            else ""
        )
    ]
    if len(zero):
        parts.append(
            f"{len(zero)} of the {len(s)} class–{feature} pairs are never seen in training: the "
            f"MLE sets them to 0, the posterior mean with α = {fmt(alpha)} to "
            f"{fmt(zero['laplace'].mean(), 2)} pseudo-counts on average, and with the "
            f"evidence-maximising α = {fmt(r.alpha_evidence, 2)} to "
            f"{fmt(zero['evidence'].mean(), 2)}."
        )
    if len(big):
        ratio = float(np.median(big["laplace"] / big["mle"]))
        ratio_ev = float(np.median(big["evidence"] / big["mle"]))
        parts.append(
            f"The price is paid by the frequent {feature}s: for pairs seen 10 times or more the "
            f"posterior mean at α = {fmt(alpha)} keeps a median {_pct(ratio)} of the MLE "
            f"({_pct(ratio_ev)} at the evidence α), the probability mass it moved to unseen "
            "pairs."
        )
    return " ".join(parts)


# -- 4. smoothing diagnostics ----------------------------------------------------------------
@dataclass
class SmoothingResult:
    """Deleted estimation (held-out counts by training count) and the evidence over α."""

    study: Study
    deleted: pd.DataFrame
    alphas: np.ndarray
    log_evidence: np.ndarray
    alpha_evidence: float
    cv_alphas: np.ndarray
    cv_score: np.ndarray
    alpha_cv: float
    alpha_halves: tuple[float, float]
    reading: str = ""


def _r_bins(max_r: int) -> list[tuple[int, int]]:
    """Count bins: 0..9 one by one, then geometric bins."""
    bins = [(r, r + 1) for r in range(min(10, max_r + 1))]
    lo = 10
    while lo <= max_r:
        hi = max(lo + 1, int(np.ceil(lo * 1.6)))
        bins.append((lo, hi))
        lo = hi
    return bins


def deleted_estimation(
    counts_a: np.ndarray,
    totals_a: np.ndarray,
    counts_b: np.ndarray,
    totals_b: np.ndarray,
    n_categories: int,
    alpha_a: float,
    alpha_b: float,
    laplace: float = 1.0,
) -> pd.DataFrame:
    """Held-out (deleted) estimation of smoothed counts, both directions averaged.

    For every (class, feature) seen r times in one half, the count in the other half is
    rescaled to the first half's size (× N_A/N_B) and averaged over all pairs with that r
    (Jelinek & Mercer; Church & Gale's held-out estimator) — the empirical "r*". Beside it,
    what each estimate fitted on the first half predicts for the same pairs, as counts:
    MLE r; add-one/Laplace (r + 1)·N/(N + V); posterior mean at the evidence α
    (r + α)·N/(N + Vα) (V = ``n_categories``: the vocabulary, or 2 for Bernoulli features).

    Returns
    -------
    pandas.DataFrame
        One row per r bin: ``r`` (mean count in the bin), ``lo``/``hi`` (bin edges), ``pairs``
        (number of (class, feature) pairs, both directions), ``held_out``, ``mle``,
        ``laplace``, ``evidence``.
    """
    rows = []
    directions = [
        (counts_a, totals_a, counts_b, totals_b, alpha_a),
        (counts_b, totals_b, counts_a, totals_a, alpha_b),
    ]
    r_all, obs_all, lap_all, ev_all = [], [], [], []
    for c1, n1, c2, n2, alpha in directions:
        ok = (n1 > 0) & (n2 > 0)
        n1, n2 = n1[ok][:, None], n2[ok][:, None]
        r = c1[ok]
        obs = c2[ok] * (n1 / n2)
        lap = (r + laplace) * n1 / (n1 + n_categories * laplace)
        ev = (r + alpha) * n1 / (n1 + n_categories * alpha)
        r_all.append(r.ravel())
        obs_all.append(obs.ravel())
        lap_all.append(np.broadcast_to(lap, r.shape).ravel())
        ev_all.append(np.broadcast_to(ev, r.shape).ravel())
    r, obs = np.concatenate(r_all), np.concatenate(obs_all)
    lap, ev = np.concatenate(lap_all), np.concatenate(ev_all)
    r_int = np.floor(r + 1e-9).astype(np.int64)
    for lo, hi in _r_bins(int(r_int.max())):
        sel = (r_int >= lo) & (r_int < hi)
        if sel.any():
            rows.append(
                {
                    "lo": lo,
                    "hi": hi,
                    "r": r[sel].mean(),
                    "pairs": int(sel.sum()),
                    "held_out": obs[sel].mean(),
                    "mle": r[sel].mean(),
                    "laplace": lap[sel].mean(),
                    "evidence": ev[sel].mean(),
                }
            )
    return pd.DataFrame(rows)


def smoothing(
    study: Study, *, seed: int = 0, n_grid: int = 33, cv_folds: int = 5
) -> SmoothingResult:
    """Deleted estimation on two halves of the training data, and log evidence / CV over α."""
    Xtr, ytr, _, _ = split_xy(study)
    half_a, half_b = next(
        StratifiedKFold(2, shuffle=True, random_state=seed).split(np.zeros(len(ytr)), ytr)
    )
    fits = []
    for half in (half_a, half_b):
        est = study.configured(alpha="evidence").fit(Xtr[half], ytr[half])
        fits.append(est)
    a, b = fits
    multinomial = study.model == "multinomial"
    n_cat = Xtr.shape[1] if multinomial else 2
    deleted = deleted_estimation(
        a.feature_count_,
        _totals(a),
        b.feature_count_,
        _totals(b),
        n_cat,
        float(a.alpha_),
        float(b.alpha_),
    )
    full = study.configured(alpha="evidence").fit(Xtr, ytr)
    alpha_ev = float(full.alpha_)
    lo = min(1e-3, alpha_ev / 30.0)
    hi = max(10.0, alpha_ev * 30.0)
    alphas = np.geomspace(lo, hi, n_grid)
    log_ev = np.array(
        [study.configured(alpha=float(x)).fit(Xtr, ytr).log_evidence() for x in alphas]
    )
    cv_alphas = alphas[:: max(1, n_grid // 11)]
    folds = list(
        StratifiedKFold(cv_folds, shuffle=True, random_state=seed).split(np.zeros(len(ytr)), ytr)
    )
    score = np.zeros(cv_alphas.size)
    for tr, te in folds:
        for i, x in enumerate(cv_alphas):
            est = study.configured(alpha=float(x), estimate="mean").fit(Xtr[tr], ytr[tr])
            score[i] += _true_log_proba(est, Xtr[te], ytr[te]).sum()
    score /= len(ytr)
    result = SmoothingResult(
        study,
        deleted,
        alphas,
        log_ev,
        alpha_ev,
        cv_alphas,
        score,
        float(cv_alphas[int(np.argmax(score))]),
        (float(a.alpha_), float(b.alpha_)),
    )
    result.reading = _smoothing_reading(result, full)
    return result


def _smoothing_reading(r: SmoothingResult, full) -> str:
    d = r.deleted
    feature, _ = words(r.study.data)
    parts = []
    zero = d[d["lo"] == 0]
    if len(zero):
        z = zero.iloc[0]
        parts.append(
            f"Split the training {feature} counts into two halves: the {int(z['pairs'])} "
            f"class–{feature} pairs unseen in one half occur on average {fmt(z['held_out'], 2)} "
            f"times in the other. The MLE predicts 0, add-one (Laplace) {fmt(z['laplace'], 2)} "
            f"({fmt(z['laplace'] / z['held_out'], 2)}× the truth) and the posterior mean at the "
            f"evidence-maximising α ≈ {fmt(np.mean(r.alpha_halves), 2)} predicts "
            f"{fmt(z['evidence'], 2)}."
            if z["held_out"] > 0
            else f"Pairs unseen in one half are also unseen in the other; add-one predicts "
            f"{fmt(z['laplace'], 2)} for them."
        )
    common = d[d["lo"] >= 10]
    if len(common):
        w = common["pairs"].to_numpy()
        lap = np.average(common["laplace"] / common["held_out"], weights=w)
        ev = np.average(common["evidence"] / common["held_out"], weights=w)
        mle = np.average(common["mle"] / common["held_out"], weights=w)
        parts.append(
            f"For pairs seen 10 times or more, add-one predicts {_pct(lap)} of the held-out count "
            f"(MLE {_pct(mle)}, evidence α {_pct(ev)}): what add-one gives the unseen it takes "
            "from the common."
        )
    i1 = int(np.argmin(np.abs(np.log(r.alphas) - 0.0)))
    gap = r.log_evidence.max() - r.log_evidence[i1]
    parts.append(
        f"On the whole training set the log evidence peaks at α = {fmt(r.alpha_evidence, 3)} "
        f'(alpha="evidence"); α = 1 (Laplace) is {fmt(gap, 3)} nats below it. '
        f"{len(r.cv_alphas)}-point cross-validation of the held-out label log-likelihood "
        f"prefers α = {fmt(r.alpha_cv, 2)}"
        + (
            " (the largest value tried: heavier smoothing tempers the over-confident probabilities)"
            if r.alpha_cv >= r.cv_alphas.max()
            else " (the smallest value tried)"
            if r.alpha_cv <= r.cv_alphas.min()
            else ""
        )
        + ": the evidence scores the documents and labels "
        "together, cross-validation only the labels given the documents, so the two optima "
        "need not coincide."
    )
    return " ".join(parts)


def smoothing_headline(r: SmoothingResult) -> str:
    """One sentence for the overview: where the evidence puts α and what add-one gets wrong."""
    d = r.deleted
    alpha = fmt(r.alpha_evidence, 2)
    text = f"Smoothing ({r.study.label}): the log evidence is maximal at α = {alpha}"
    ratio = r.alpha_evidence
    if ratio < 1 / 3 or ratio > 3:
        text += ", far from Laplace's α = 1"
    zero = d[d["lo"] == 0]
    common = d[d["lo"] >= 10]
    over = len(zero) and zero["laplace"].iloc[0] > zero["held_out"].iloc[0]
    under = len(common) and np.all(common["laplace"] < common["held_out"])
    if over and under:
        text += (
            "; held-out counts show add-one giving unseen pairs too much and frequent ones "
            "too little"
        )
    return text + "."


# -- 5. sampler diagnostics ------------------------------------------------------------------
@dataclass
class SamplerResult:
    """A small NUTS fit checked against the exact conjugate posterior."""

    study: Study
    ok: bool
    error: str = ""
    features: np.ndarray | None = None
    tree: xr.DataTree | None = None
    summary: pd.DataFrame | None = None
    agreement: pd.DataFrame | None = None
    rank_data: xr.DataTree | None = None
    divergences: int = 0
    wall_time: float = np.nan
    sampling_time: float = np.nan
    draws: int = 0
    tune: int = 0
    chains: int = 0
    warnings: list[str] = field(default_factory=list)
    reading: str = ""


def sampler(
    study: Study,
    *,
    n_features: int = 30,
    draws: int = 500,
    tune: int = 500,
    chains: int = 4,
    seed: int = 0,
    tree: xr.DataTree | None = None,
    fitted=None,
    wall_time: float | None = None,
) -> SamplerResult:
    """NUTS on ``n_features`` discriminative features; diagnostics and exact agreement.

    ``tree`` (a saved NUTS fit) and ``fitted`` (the estimator it belongs to) skip sampling;
    ``wall_time`` is then the time that fit took, if known. A failure of the sampler is
    recorded in the result (``ok=False``), not raised.
    """
    import arviz as az

    from bayesnb.draws import posterior_summary

    result = SamplerResult(study, ok=False, draws=draws, tune=tune, chains=chains)
    tree_given = tree is not None
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if tree is None:
                Xtr, ytr, _, _ = split_xy(study)
                full = study.configured(estimate="mean").fit(Xtr, ytr)
                feats = discriminative_features(full, n_features)
                result.features = feats
                Xs = Xtr[:, feats]
                est = fit_named(study.configured(), Xs, ytr, study.data.feature_names[feats])
                tree = est.fit_pymc(
                    Xs,
                    ytr,
                    draws=draws,
                    tune=tune,
                    chains=chains,
                    random_seed=seed,
                    progressbar=False,
                )
            else:
                est = fitted
                post = tree["posterior"]
                result.draws, result.chains = post.sizes["draw"], post.sizes["chain"]
                result.tune = int(post.attrs.get("tuning_steps", 0))
        result.warnings = sorted(
            {
                str(w.message)
                for w in caught
                if "SamplingWarning" in type(w.message).__name__ or "R-hat" in str(w.message)
            }
        )
    except Exception as exc:  # the report says why NUTS is missing
        result.error = f"{type(exc).__name__}: {exc}"
        result.reading = (
            f"NUTS could not run here ({result.error}); the exact conjugate posterior above "
            "needs no sampler, so every other section stands."
        )
        return result
    if tree_given:
        result.wall_time = np.nan if wall_time is None else float(wall_time)
    else:
        result.wall_time = time.perf_counter() - t0
    result.tree = tree
    result.sampling_time = float(tree["posterior"].attrs.get("sampling_time", np.nan))
    var_names = [v for v in ("class_prior", "feature_prob") if v in tree["posterior"]]
    result.divergences = (
        int(tree["sample_stats"]["diverging"].sum()) if "sample_stats" in tree.children else 0
    )
    summary = az.summary(tree, var_names=var_names, round_to="none")
    summary = summary[np.isfinite(summary["mean"].astype(float))]
    result.summary = summary
    exact = posterior_summary(est)
    rows = []
    per_param = []
    for v in var_names:
        post = tree["posterior"][v]
        e_nuts = post.mean(("chain", "draw")).values
        mcse = _stat_values(az.mcse(tree, var_names=[v]), v)
        e_exact = exact[v].sel(summary="mean").values
        z = np.abs(e_nuts - e_exact) / mcse
        ok = np.isfinite(z)
        z = z[ok]
        rows.append(
            {
                "variable": v,
                "parameters": int(z.size),
                "max |E_nuts − E_exact|": float(np.max(np.abs(e_nuts - e_exact)[ok])),
                "max |Δ| / MCSE": float(z.max()),
                "mean |Δ| / MCSE": float(z.mean()),
                "share |Δ|/MCSE > 3": float(np.mean(z > 3)),
            }
        )
        rhat = _stat_array(az.rhat(tree, var_names=[v]), v)
        per_param.append((v, post, rhat))
    result.agreement = pd.DataFrame(rows).set_index("variable")
    result.rank_data = _worst_params(per_param, 4)
    result.ok = True
    result.reading = _sampler_reading(result)
    return result


def _stat_array(result, name: str) -> xr.DataArray:
    """Variable ``name`` of an ArviZ diagnostic (a DataTree for DataTree input, variables at
    its root or in a ``posterior`` child, or a Dataset)."""
    if isinstance(result, xr.DataTree):
        node = result["posterior"] if "posterior" in result.children else result
        return node[name]
    return result[name]


def _stat_values(result, name: str) -> np.ndarray:
    return _stat_array(result, name).values


def _worst_params(per_param, k: int) -> xr.DataTree:
    """The ``k`` parameters with the largest R-hat, each as its own variable (for plot_rank)."""
    cands = []
    for v, post, rhat in per_param:
        r = rhat.values
        other = [d for d in rhat.dims]
        for flat in np.argsort(np.nan_to_num(r, nan=-1).ravel())[::-1][:k]:
            idx = np.unravel_index(flat, r.shape)
            labels = [str(rhat[d].values[i]) for d, i in zip(other, idx, strict=True)]
            name = f"{v}[{', '.join(labels)}]"
            cands.append((float(r[idx]), name, post.isel(dict(zip(other, idx, strict=True)))))
    cands.sort(key=lambda t: -t[0] if np.isfinite(t[0]) else np.inf)
    ds = xr.Dataset(
        {
            name: da.drop_vars([c for c in da.coords if c not in ("chain", "draw")])
            for _, name, da in cands[:k]
        }
    )
    return xr.DataTree.from_dict({"posterior": ds})


def _sampler_reading(r: SamplerResult) -> str:
    s = r.summary
    n = len(s)
    rhat = s["r_hat"].astype(float)
    ess_b = s["ess_bulk"].astype(float)
    ess_t = s["ess_tail"].astype(float)
    a = r.agreement
    z_max = float(a["max |Δ| / MCSE"].max())
    n_par = int(a["parameters"].sum())
    expect = float(np.sqrt(2 * np.log(max(n_par, 2))))
    subset = (
        f"the {len(r.features)} most discriminative {words(r.study.data)[0]}s of "
        if r.features is not None
        else ""
    )
    parts = [
        f"NUTS (nutpie) sampled {subset}the {r.study.label} model: {r.chains} chains × "
        f"{r.draws} draws after {r.tune} tuning steps"
        + (
            f", {fmt(r.wall_time, 2)} s wall time including compilation"
            if np.isfinite(r.wall_time)
            else ""
        )
        + f" ({fmt(r.sampling_time, 2)} s sampling).",
        f"{r.divergences} divergent transitions; R-hat ranges up to {rhat.max():.3f} over "
        f"{n} parameters ({int(np.sum(rhat > 1.01))} above 1.01); the smallest bulk and tail "
        f"ESS are {ess_b.min():.0f} and {ess_t.min():.0f}.",
        f"Against the exact conjugate posterior means, the largest standardised difference "
        f"|E_nuts − E_exact| / MCSE over {n_par} parameters is {z_max:.2f}; for that many "
        f"independent Monte Carlo errors a maximum near {expect:.1f} is expected, "
        + (
            "so NUTS reproduces the exact posterior."
            if z_max < expect + 1.5
            else "so this is larger than chance alone explains: inspect the rank plots."
        ),
    ]
    return " ".join(parts)


# -- 6. posterior predictive checks ----------------------------------------------------------
@dataclass
class PPCResult:
    """Real training documents against documents generated by the fitted model."""

    study: Study
    real_length: np.ndarray
    gen_length: np.ndarray
    real_distinct: np.ndarray
    gen_distinct: np.ndarray
    rank_real: dict[str, np.ndarray]
    rank_gen: dict[str, np.ndarray]
    repeat_real: float
    repeat_gen: float
    reading: str = ""


def _repeat_rate(X) -> float:
    """P(x_ij ≥ 2 | x_ij ≥ 1): how often a feature present in a document occurs again."""
    values = X.data if sp.issparse(X) else np.asarray(X)[np.asarray(X) > 0]
    values = values[values > 0]
    return float(np.mean(values >= 2)) if values.size else np.nan


def posterior_predictive(study: Study, *, seed: int = 0, n_classes: int = 3) -> PPCResult:
    """Generate as many documents as the training set holds and compare their statistics."""
    Xtr, ytr, _, _ = split_xy(study)
    est = study.configured(estimate="mean").fit(Xtr, ytr)
    Xg, yg = est.sample(len(ytr), random_seed=seed)
    Xr = Xtr
    if study.model == "bernoulli":
        from bayesnb.stats.discrete import binarize

        Xr = binarize(Xtr, study.estimator.binarize)
        if sp.issparse(Xr):
            Xr.eliminate_zeros()  # values at or below the threshold are stored as 0
    classes, counts = np.unique(ytr, return_counts=True)
    top = classes[np.argsort(counts)[::-1][:n_classes]]
    rank_real, rank_gen = {}, {}
    for c in top:
        rr = np.asarray(Xr[ytr == c].sum(axis=0)).ravel()
        gg = np.asarray(Xg[yg == c].sum(axis=0)).ravel()
        rank_real[str(c)] = np.sort(rr[rr > 0])[::-1]
        rank_gen[str(c)] = np.sort(gg[gg > 0])[::-1]
    result = PPCResult(
        study,
        row_lengths(Xr),
        row_lengths(Xg),
        row_nnz(Xr),
        row_nnz(Xg),
        rank_real,
        rank_gen,
        _repeat_rate(Xr),
        _repeat_rate(Xg),
    )
    result.reading = _ppc_reading(result)
    return result


def _ppc_reading(r: PPCResult) -> str:
    feature, doc = words(r.study.data)
    parts = [
        f"The fitted {r.study.model} model (posterior mean) generated {r.gen_length.size} "
        f"{doc}s, one per training {doc}."
    ]
    if r.study.model == "multinomial":
        parts.append(
            f"Their lengths are drawn from the training length distribution (median "
            f"{np.median(r.gen_length):.0f} against {np.median(r.real_length):.0f} real), so the "
            f"test is what happens inside {_a(doc)}."
        )
        ratio_r = float(np.sum(r.real_distinct) / np.sum(r.real_length))
        ratio_g = float(np.sum(r.gen_distinct) / np.sum(r.gen_length))
        parts.append(
            f"Real {doc}s use {_pct(ratio_r)} distinct {feature}s per token, generated ones "
            f"{_pct(ratio_g)}; a {feature} present in a real {doc} occurs again in it "
            f"{_pct(r.repeat_real)} of the time, in a generated one {_pct(r.repeat_gen)}."
            + (
                f" Real {feature}s are bursty — once used, a {feature} is likely to recur — "
                "which the multinomial's independent draws miss."
                if r.repeat_real > r.repeat_gen
                else f" The generated {doc}s repeat {feature}s more than the real ones do."
            )
        )
    else:
        real_m, gen_m = r.real_length.mean(), r.gen_length.mean()
        real_s, gen_s = r.real_length.std(), r.gen_length.std()
        parts.append(
            f"The number of present {feature}s per {doc} has mean {real_m:.1f} (sd "
            f"{real_s:.1f}) in the data and {gen_m:.1f} (sd {gen_s:.1f}) in generated {doc}s."
        )
        if abs(gen_m - real_m) > 0.2 * real_m:
            parts.append(
                f"Generated {doc}s hold {gen_m / real_m:.1f}× as many: "
                + (
                    f"each of the {r.study.data.X.shape[1]} {feature}s "
                    "keeps a small smoothed probability of being present, and over a large "
                    "vocabulary those add up."
                    if gen_m > real_m
                    else f"the model under-produces {feature}s."
                )
            )
        else:
            parts.append(
                f"Treating {feature}s as independent, the model "
                + ("understates" if gen_s < real_s else "overstates")
                + " how much that number varies."
            )
    return " ".join(parts)


# -- 7. event models ---------------------------------------------------------------------------
@dataclass
class EventModelResult:
    """Held-out label log density of several event models on the same documents."""

    data: Dataset
    table: pd.DataFrame
    reading: str = ""


def event_models(studies: Sequence[Study]) -> EventModelResult:
    """Each discrete study of one data set at α = 1 and α = evidence, full-Bayes scoring."""
    data = studies[0].data
    per_doc, rows = {}, []
    for study in studies:
        Xtr, ytr, Xte, yte = split_xy(study)
        for label, alpha in (("α = 1", None), ("α = evidence", "evidence")):
            params = {"estimate": "bayes"} | ({} if alpha is None else {"alpha": alpha})
            est = study.configured(**params).fit(Xtr, ytr)
            lp = _true_log_proba(est, Xte, yte)
            key = f"{study.model}, {label}"
            per_doc[key] = lp
            rows.append(
                {
                    "model": key,
                    "event model": study.model,
                    "alpha": float(np.mean(est.alpha_)),
                    "accuracy": float(np.mean(est.predict(Xte) == yte)),
                    "lpd_per_doc": float(lp.mean()),
                    "se": float(lp.std(ddof=1) / np.sqrt(lp.size)),
                }
            )
    table = pd.DataFrame(rows).set_index("model")
    best = table["lpd_per_doc"].idxmax()
    diffs = {k: per_doc[k] - per_doc[best] for k in per_doc}
    table["diff_to_best"] = [float(diffs[k].mean()) for k in table.index]
    table["diff_se"] = [
        float(diffs[k].std(ddof=1) / np.sqrt(diffs[k].size)) if k != best else 0.0
        for k in table.index
    ]
    result = EventModelResult(data, table)
    result.reading = _event_reading(result, best)
    return result


def _event_reading(r: EventModelResult, best: str) -> str:
    t = r.table
    _, doc = words(r.data)
    parts = [
        f"On the same {len(r.data.test)} held-out {doc}s of {r.data.name}, the best label log "
        f"density comes from the {best.replace(', ', ' model with ')}: "
        f"{fmt(t.loc[best, 'lpd_per_doc'])} nats per {doc} "
        f"(accuracy {_pct(t.loc[best, 'accuracy'])})."
    ]
    others = t.drop(index=best).sort_values("lpd_per_doc", ascending=False)
    for name, row in others.head(3).iterrows():
        parts.append(
            f"The {name.replace(', ', ' model with ')} is {fmt(-row['diff_to_best'], 2)} ± "
            f"{fmt(row['diff_se'], 2)} nats per {doc} behind (± paired standard error)."
        )
    models = t["event model"].unique()
    gains = []
    for m in models:
        sub = t[t["event model"] == m]
        if len(sub) == 2:
            gains.append(
                f"{m} {fmt(sub['lpd_per_doc'].iloc[1] - sub['lpd_per_doc'].iloc[0], 2)} "
                f"(α = {fmt(sub['alpha'].iloc[1], 2)})"
            )
    if gains:
        parts.append(
            "Learning α by maximum evidence instead of fixing α = 1 changes the label log "
            "density per " + doc + " by: " + "; ".join(gains) + "."
        )
    return " ".join(parts)


# -- 8. GDA ------------------------------------------------------------------------------------
@dataclass
class GDAResult:
    """GDA against logistic regression: coefficients, learning curve, decision regions."""

    study: Study
    coef: pd.DataFrame
    coef_corr: float
    curve: xr.Dataset
    grid: dict
    reading: str = ""


def _discriminant_directions(est, X: np.ndarray) -> np.ndarray:
    """Two directions: Fisher's discriminants (S_B v = λ S_W v), padded by top residual PCs."""
    from scipy.linalg import eigh

    means = est.means_
    pi = np.exp(est.class_log_prior_)
    centre = pi @ means
    D = means - centre
    s_b = (D.T * pi) @ D
    s_w = est.covariance_
    if s_w.ndim == 3:
        s_w = np.einsum("c,cij->ij", pi, s_w)
    vals, vecs = eigh(s_b, s_w)
    order = np.argsort(vals)[::-1]
    n_disc = min(2, len(means) - 1)
    dirs = [vecs[:, i] / np.linalg.norm(vecs[:, i]) for i in order[:n_disc]]
    if len(dirs) < 2:
        v = dirs[0]
        R = X - np.outer(X @ v, v)
        _, _, vt = np.linalg.svd(R - R.mean(axis=0), full_matrices=False)
        dirs.append(vt[0])
    return np.stack(dirs, axis=1)


def gda_study(
    study: Study, *, seed: int = 0, n_repeats: int = 5, grid_size: int = 200
) -> GDAResult:
    """The GDA section of one continuous data set."""
    from bayesnb.gda import GDA
    from bayesnb.learning_curve import learning_curve

    Xtr, ytr, Xte, yte = split_xy(study)
    names = study.data.feature_names
    gda = study.configured(estimate="mean").fit(Xtr, ytr)
    lr = LogisticRegression(max_iter=5000).fit(Xtr, ytr)
    classes = [str(c) for c in gda.classes_]
    if len(classes) == 2:
        g = (gda.coef_[1] - gda.coef_[0])[None, :]
        lab = [f"{classes[1]} vs {classes[0]}"]
        lcoef = lr.coef_
    else:
        g = gda.coef_ - gda.coef_.mean(axis=0)
        lcoef = lr.coef_ - lr.coef_.mean(axis=0)
        lab = classes
    coef = pd.DataFrame(
        {
            "class": np.repeat(lab, g.shape[1]),
            "feature": np.tile(names, g.shape[0]),
            "gda": g.ravel(),
            "logistic": lcoef.ravel(),
        }
    )
    corr = float(np.corrcoef(coef["gda"], coef["logistic"])[0, 1])
    n_classes = len(classes)
    pool = int(len(study.data.y) * 0.75)
    lo = max(2 * n_classes, 10)
    sizes = np.unique(np.geomspace(lo, pool, 7).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = learning_curve(
            {
                "GDA (shared Σ)": make_pipeline(StandardScaler(), clone(study.estimator)),
                "logistic regression": make_pipeline(
                    StandardScaler(), LogisticRegression(max_iter=5000)
                ),
            },
            study.data.X,
            study.data.y,
            train_sizes=sizes,
            n_repeats=n_repeats,
            random_state=seed,
        )
    W = _discriminant_directions(gda, Xtr)
    Ztr, Zte = Xtr @ W, Xte @ W
    pad = 0.5
    g0 = np.linspace(
        min(Ztr[:, 0].min(), Zte[:, 0].min()) - pad,
        max(Ztr[:, 0].max(), Zte[:, 0].max()) + pad,
        grid_size,
    )
    g1 = np.linspace(
        min(Ztr[:, 1].min(), Zte[:, 1].min()) - pad,
        max(Ztr[:, 1].max(), Zte[:, 1].max()) + pad,
        grid_size,
    )
    G0, G1 = np.meshgrid(g0, g1)
    flat = np.column_stack([G0.ravel(), G1.ravel()])
    regions = {}
    for cov in ("shared", "per_class"):
        m = GDA(covariance=cov).fit(Ztr, ytr)
        codes = np.searchsorted(m.classes_, m.predict(flat)).reshape(G0.shape)
        regions[cov] = {"codes": codes, "accuracy": float(np.mean(m.predict(Zte) == yte))}
    grid = {
        "g0": g0,
        "g1": g1,
        "regions": regions,
        "Ztr": Ztr,
        "ytr": np.searchsorted(gda.classes_, ytr),
        "Zte": Zte,
        "yte": np.searchsorted(gda.classes_, yte),
        "classes": classes,
        "n_discriminants": min(2, n_classes - 1),
    }
    result = GDAResult(study, coef, corr, curve, grid)
    result.reading = _gda_reading(result)
    return result


def _gda_reading(r: GDAResult) -> str:
    c = r.curve
    err = c["error_mean"]
    names = list(c["estimator"].values)
    sizes = c["train_size"].values
    g, lr = err.sel(estimator=names[0]).values, err.sel(estimator=names[1]).values
    parts = [
        f"With shared covariance, GDA's log posterior odds are linear in x: its implied "
        f"logistic coefficients correlate at r = {r.coef_corr:.2f} with those of a fitted "
        "logistic regression (both on standardised features; scikit-learn's default L2 "
        "penalty C = 1 shrinks the latter)."
    ]
    parts.append(
        f"Learning curve ({int(c.attrs['n_repeats'])} random splits, {int(c.attrs['n_test'])} "
        f"test points): with {sizes[0]} training points GDA errs on {_pct(g[0])} and logistic "
        f"regression on {_pct(lr[0])}; with {sizes[-1]}, {_pct(g[-1])} against {_pct(lr[-1])}."
    )
    ahead = g < lr
    lead = int(np.argmin(ahead)) if not ahead.all() else ahead.size
    if 2 <= lead < ahead.size:
        parts.append(
            f"As Ng & Jordan (2001) predict, the generative model learns faster: GDA leads up "
            f"to {sizes[lead - 1]} training points, logistic regression from {sizes[lead]} on."
        )
    elif ahead.all():
        parts.append("GDA stays ahead at every size on these data.")
    elif not ahead.any():
        parts.append("Logistic regression is ahead at every size on these data.")
    else:
        parts.append(
            "The curves cross more than once or only at the smallest size; with "
            f"{int(c.attrs['n_repeats'])} random splits the differences are within the "
            "shaded spread, so neither model clearly learns faster here."
        )
    reg = r.grid["regions"]
    kind = (
        "discriminant directions"
        if r.grid["n_discriminants"] == 2
        else ("discriminant direction (x-axis) and the leading remaining principal direction")
    )
    parts.append(
        f"Decision regions in the {kind}: refitted on these two coordinates, shared Σ "
        f"(linear boundaries) classifies {_pct(reg['shared']['accuracy'])} of the test points "
        f"correctly and per-class Σ (quadratic) {_pct(reg['per_class']['accuracy'])}."
    )
    return " ".join(parts)


# -- the saved model ---------------------------------------------------------------------------
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
    lp = _true_log_proba(est, X, data.y)
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
        f"accuracy on all {len(data.y)} documents": _pct(acc),
        "label log density per document": fmt(float(lp.mean())),
    }
    table = pd.DataFrame({"value": rows})
    _, doc = words(data)
    reading = (
        f"The saved {type(est).__name__} ({params.get('estimate')} estimate) was fitted on "
        f"{est.class_count_.sum():.0f} {doc}s. On all {len(data.y)} {doc}s of {data.name} it is "
        f"right {_pct(acc)} of the time with {fmt(float(lp.mean()))} nats per {doc}; if these "
        "include its training documents, those numbers are optimistic. The sections below refit "
        f"its configuration on a stratified {100 - round(100 * data.test_size)}/"
        f"{round(100 * data.test_size)} split of these data to measure it honestly."
    )
    return SavedModelResult(study, table, reading)


# -- baselines: the generative models beside discriminative ones ------------------------------
@dataclass
class BaselineResult:
    """Naive Bayes (α = 1 and α by maximum evidence) beside scikit-learn baselines."""

    data: Dataset
    table: pd.DataFrame
    reference: str
    complement: str
    evidence: str
    reading: str = ""


def baselines(studies: Sequence[Study]) -> BaselineResult:
    """compare() of the data set's naive Bayes models against ComplementNB and logistic regression.

    Rows: multinomial NB with α = 1 (the reference), with α learned by maximum evidence
    (posterior mean and full Bayes), Bernoulli NB with learned α when a Bernoulli study of the
    same data exists, scikit-learn's ComplementNB (α = 1, its default) and LogisticRegression
    (L2, C = 1). Besides compare()'s metrics the table holds each model's accuracy and label
    log density per document as a paired difference to the reference, with its standard error
    over the held-out documents.
    """
    from sklearn.naive_bayes import ComplementNB

    multi = next(s for s in studies if s.model == "multinomial")
    data = multi.data
    Xtr, ytr, Xte, yte = split_xy(multi)
    ref = "multinomial NB, α = 1"
    ev = "multinomial NB, α = evidence"
    cnb = "ComplementNB (scikit-learn)"
    ests = {
        ref: multi.configured(estimate="mean", alpha=1.0),
        ev: multi.configured(estimate="mean", alpha="evidence"),
        f"{ev}, full Bayes": multi.configured(estimate="bayes", alpha="evidence"),
    }
    bern = next((s for s in studies if s.model == "bernoulli"), None)
    if bern is not None:
        ests["Bernoulli NB, α = evidence"] = bern.configured(estimate="mean", alpha="evidence")
    ests[cnb] = ComplementNB()
    ests["logistic regression (scikit-learn)"] = LogisticRegression(max_iter=2000)
    from threadpoolctl import threadpool_limits

    # One BLAS thread: L-BFGS on a 10⁴-word vocabulary makes many tiny BLAS calls, which
    # multi-threaded OpenBLAS turns from 1 s into 20 s when the machine's cores are busy.
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")  # lbfgs convergence on raw counts, log(0) of the MLE
        ds = compare(ests, Xtr, ytr, Xte, yte, loo=False)
        table = ds.to_dataframe()[["accuracy", "log_loss", "ece", "lpd", "n_parameters"]]
        table["lpd_per_doc"] = table["lpd"] / len(yte)
        correct, logp, alphas = {}, {}, {}
        for name, est in ests.items():
            fitted = clone(est).fit(Xtr, ytr)
            correct[name] = (fitted.predict(Xte) == yte).astype(float)
            logp[name] = _true_log_proba(fitted, Xte, yte)
            # bayesnb keeps the learned α in alpha_; ComplementNB's α is its parameter.
            alpha = getattr(fitted, "alpha_", getattr(fitted, "alpha", np.nan))
            alphas[name] = float(np.mean(alpha))
    table.insert(0, "alpha", pd.Series(alphas))
    n = len(yte)
    for col, per_doc in (("accuracy", correct), ("lpd_per_doc", logp)):
        diffs = {k: per_doc[k] - per_doc[ref] for k in per_doc}
        table[f"{col}_gap"] = [float(diffs[k].mean()) for k in table.index]
        table[f"{col}_gap_se"] = [float(diffs[k].std(ddof=1) / np.sqrt(n)) for k in table.index]
    result = BaselineResult(data, table, ref, cnb, ev)
    result.reading = _baselines_reading(result)
    return result


def _points(x: float) -> str:
    return f"{100 * x:.1f}".replace("-", "−")


def _baselines_reading(r: BaselineResult) -> str:
    t = r.table
    _, doc = words(r.data)
    n = len(r.data.test)
    ref, cnb, ev = t.loc[r.reference], t.loc[r.complement], t.loc[r.evidence]
    gap = cnb["accuracy"] - ref["accuracy"]
    parts = [
        f"On the {n} held-out {doc}s of {r.data.name}, scikit-learn's ComplementNB is right "
        f"{_pct(cnb['accuracy'])} of the time and multinomial naive Bayes with α = 1 "
        f"{_pct(ref['accuracy'])}: ComplementNB is {_points(abs(gap))} ± "
        f"{_points(cnb['accuracy_gap_se'])} accuracy points "
        f"{'ahead' if gap >= 0 else 'behind'} (± paired standard error)."
    ]
    closed = ev["accuracy"] - ref["accuracy"]
    parts.append(
        f"Learning α by maximum evidence (α = {fmt(ev['alpha'], 3)}) gives "
        f"{_pct(ev['accuracy'])}, {_points(closed)} ± {_points(ev['accuracy_gap_se'])} points "
        "above α = 1"
        + (
            f", which closes {100 * closed / gap:.0f}% of the gap to ComplementNB."
            if gap > 0
            else "."
        )
    )
    if gap > 0 and closed > 0:
        parts.append(
            "A fixed α = 1 adds one pseudo-count to every word of the vocabulary in every class, "
            "which swamps the observed counts of the smaller classes and pulls them towards "
            "uniform; ComplementNB sidesteps this by estimating each class's weights from all "
            "the other classes' (larger) counts, while the evidence shrinks α to what the data "
            "support."
        )
    best_ll = t["log_loss"].idxmin()
    parts.append(
        f"By log loss the best is {best_ll} ({fmt(t.loc[best_ll, 'log_loss'])}); the naive "
        f"Bayes models score {fmt(ref['log_loss'])} (α = 1) and {fmt(ev['log_loss'])} (α = "
        "evidence): their probabilities remain over-confident even where their accuracy is "
        "competitive."
    )
    return " ".join(parts)


def baselines_headline(r: BaselineResult) -> str:
    """One overview sentence: ComplementNB against naive Bayes with α = 1 and α = evidence."""
    t = r.table
    ref, cnb, ev = t.loc[r.reference], t.loc[r.complement], t.loc[r.evidence]
    gap = cnb["accuracy"] - ref["accuracy"]
    closed = ev["accuracy"] - ref["accuracy"]
    text = (
        f"Baselines ({r.data.name}): ComplementNB {_pct(cnb['accuracy'])} accuracy against "
        f"{_pct(ref['accuracy'])} for multinomial naive Bayes with α = 1 and "
        f"{_pct(ev['accuracy'])} with α by maximum evidence (α = {fmt(ev['alpha'], 3)})"
    )
    if gap > 0 and closed > 0:
        text += f", which closes {100 * closed / gap:.0f}% of the gap"
    return text + "."


# -- most informative features ----------------------------------------------------------------
@dataclass
class InformativeResult:
    """Posterior log-odds ratios of the top features of each class against its nearest rival."""

    study: Study
    table: pd.DataFrame
    pairs: list[tuple[str, str]]
    ci_prob: float
    reading: str = ""


def informative(
    study: Study, *, n: int = 10, ci_prob: float = 0.9, seed: int = 0
) -> InformativeResult:
    """:func:`bayesnb.most_informative_features` for each class against its nearest rival.

    The rival of class a is the class b that the held-out documents of a give the most
    probability to in total (Σ p(b | x) over a's documents): the class it is most easily
    mistaken for, so the features shown are the ones that tell the two apart.
    """
    from bayesnb.informative import most_informative_features

    data = study.data
    Xtr, ytr, Xte, yte = split_xy(study)
    est = fit_named(study.configured(estimate="mean"), Xtr, ytr, data.feature_names)
    with warnings.catch_warnings():
        # fit_named records names after fitting; the test matrix has none (same columns).
        warnings.filterwarnings("ignore", message=".*does not have valid feature names")
        proba = est.predict_proba(Xte)
    classes = est.classes_
    pairs = []
    for i, a in enumerate(classes):
        mass = proba[yte == a].sum(axis=0)
        mass[i] = -np.inf
        pairs.append((a, classes[int(np.argmax(mass))]))
    table = most_informative_features(
        est, n=n, classes=pairs, ci_prob=ci_prob, draws=10_000, random_seed=seed
    )
    result = InformativeResult(study, table, [(str(a), str(b)) for a, b in pairs], ci_prob)
    result.reading = _informative_reading(result)
    return result


def _times(x: float) -> str:
    """A ratio for prose: ``12×``, ``110×``, ``1,100×``."""
    return f"{x:.2g}×" if x < 100 else f"{float(f'{x:.2g}'):,.0f}×"


def _informative_reading(r: InformativeResult) -> str:
    t = r.table
    feature, doc = words(r.study.data)
    perc = round(100 * r.ci_prob)
    lb, ub = f"eti{perc}_lb", f"eti{perc}_ub"
    what = "probability" if r.study.model == "multinomial" else "presence probability"
    top = t[t["rank"] == 1].sort_values("mean", ascending=False)
    first = top.iloc[0]
    parts = [
        f"For each class of {r.study.data.name}, the {feature}s whose {what} most favours it "
        "over the class its held-out "
        f"{doc}s are most often mistaken for, ranked by the exact posterior mean of "
        f"log(φ_a / φ_b) with {round(100 * r.ci_prob)}% equal-tailed credible intervals "
        "(exact posterior draws).",
        f"The strongest is {first['feature']!r} for {first['class']} against "
        f"{first['versus']}: log-odds {first['mean']:.2f} ({round(100 * r.ci_prob)}% interval "
        f"{first[lb]:.2f} to {first[ub]:.2f}): a ratio of about "
        f"{_times(float(np.exp(first['mean'])))}, seen "
        f"{first['count']:.0f} times in {first['class']} and {first['count_versus']:.0f} in "
        f"{first['versus']}.",
    ]
    unseen = float(np.mean(t["count_versus"] == 0))
    width = t[ub] - t[lb]
    if 0 < unseen < 1:
        parts.append(
            f"{_pct(unseen)} of the {feature}s shown never occur in the rival class in "
            "training: ranking by the posterior mean favours such exclusive features, and "
            "their intervals are the widest (median width "
            f"{float(width[t['count_versus'] == 0].median()):.2f} nats, against "
            f"{float(width[t['count_versus'] > 0].median()):.2f} for {feature}s seen in both)."
        )
    elif unseen == 1:
        parts.append(
            f"Every {feature} shown is absent from the rival class in training: ranking by the "
            "posterior mean favours such exclusive features, whose ratio only the prior bounds "
            f"(median interval width {float(width.median()):.2f} nats)."
        )
    else:
        parts.append(f"The median interval width is {float(width.median()):.2f} nats.")
    n_zero = int((t[lb] <= 0).sum())
    parts.append(
        f"{n_zero} of the {len(t)} intervals include 0 (no clear evidence of a difference)."
        if n_zero
        else "Every interval excludes 0: each of these differences is supported by the data, "
        "though for rare features by how much is very uncertain."
    )
    return " ".join(parts)


# -- Poisson against multinomial --------------------------------------------------------------
@dataclass
class PoissonResult:
    """Poisson NB = multinomial NB + a Poisson model of document length, measured."""

    study: Study
    table: pd.DataFrame
    lengths: pd.DataFrame
    alpha_evidence: float
    identity_error: float
    flipped: dict[str, int]
    reading: str = ""


def poisson_vs_multinomial(study: Study) -> PoissonResult:
    """PoissonNB against MultinomialNB on the study's split, at matched priors.

    With a Gamma(α, β) prior the Poisson posterior-mean rates are λ_cj = (S_cj + α)/(N_c + β),
    so λ_cj / Λ_c (Λ_c = Σ_j λ_cj) is exactly the multinomial posterior mean under
    Dirichlet(α), and Π_j Poisson(x_j | λ_cj) = Poisson(n | Λ_c) · Multinomial(x | n, λ_c/Λ_c).
    The two classifiers therefore differ only by the length term ``n log Λ_c − Λ_c``; the
    section checks that identity on the held-out documents (``identity_error``: the largest
    deviation across classes, in nats) and measures what the length term does, at α = 1 and
    at the multinomial's evidence-maximising α (β = 1 throughout). ``lengths`` compares each
    class's training lengths with the Poisson's: a Poisson length has variance = mean.
    """
    from bayesnb.poisson import PoissonNB

    Xtr, ytr, Xte, yte = split_xy(study)
    alpha_ev = float(np.mean(study.configured(alpha="evidence").fit(Xtr, ytr).alpha_))
    n_te = row_lengths(Xte)
    rows, worst, flipped, per_doc, fitted = [], 0.0, {}, {}, {}
    for label, alpha in (("α = 1", 1.0), ("α = evidence", alpha_ev)):
        mult = study.configured(alpha=alpha, estimate="mean").fit(Xtr, ytr)
        pois = PoissonNB(alpha=alpha, beta=1.0, estimate="mean").fit(Xtr, ytr)
        fitted[label] = pois
        big_lambda = np.exp(np.asarray(pois.feature_log_rate_, dtype=np.float64)).sum(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            length_term = n_te[:, None] * np.log(big_lambda)[None, :] - big_lambda[None, :]
            resid = (
                pois.predict_joint_log_proba(Xte) - mult.predict_joint_log_proba(Xte) - length_term
            )
        # What is left is a per-document constant (−Σ_j ln x_j!): it cancels between classes.
        worst = max(worst, float(np.max(np.abs(resid - resid.mean(axis=1, keepdims=True)))))
        flipped[label] = int(np.sum(pois.predict(Xte) != mult.predict(Xte)))
        for model, est in (("multinomial", mult), ("Poisson", pois)):
            key = f"{model}, {label}"
            lp = _true_log_proba(est, Xte, yte)
            per_doc[key] = (lp, (est.predict(Xte) == yte).astype(float))
            rows.append(
                {
                    "model": key,
                    "alpha": alpha,
                    "accuracy": float(per_doc[key][1].mean()),
                    "lpd_per_doc": float(lp.mean()),
                }
            )
    table = pd.DataFrame(rows).set_index("model")
    n = len(yte)
    for label in ("α = 1", "α = evidence"):
        m, p = per_doc[f"multinomial, {label}"], per_doc[f"Poisson, {label}"]
        for i, col in ((1, "accuracy"), (0, "lpd_per_doc")):
            d = p[i] - m[i]
            table.loc[f"Poisson, {label}", f"{col}_vs_multinomial"] = float(d.mean())
            table.loc[f"Poisson, {label}", f"{col}_vs_multinomial_se"] = float(
                d.std(ddof=1) / np.sqrt(n)
            )
    length = row_lengths(Xtr)
    classes = fitted["α = 1"].classes_
    lrows = []
    for c_idx, c in enumerate(classes):
        lc = length[ytr == c]
        lrows.append(
            {
                "class": str(c),
                "documents": int(lc.size),
                "mean length": float(lc.mean()),
                "variance": float(lc.var(ddof=1)) if lc.size > 1 else np.nan,
                "Λ (α = 1)": float(np.exp(fitted["α = 1"].feature_log_rate_[c_idx]).sum()),
                "Λ (α = evidence)": float(
                    np.exp(fitted["α = evidence"].feature_log_rate_[c_idx]).sum()
                ),
            }
        )
    lengths = pd.DataFrame(lrows).set_index("class")
    lengths["dispersion"] = lengths["variance"] / lengths["mean length"]
    result = PoissonResult(study, table, lengths, alpha_ev, worst, flipped)
    result.reading = _poisson_reading(result)
    return result


def _poisson_reading(r: PoissonResult) -> str:
    t, L = r.table, r.lengths
    _, doc = words(r.study.data)
    n = len(r.study.data.test)
    parts = [
        f"With the same prior pseudo-counts, Poisson naive Bayes is multinomial naive Bayes "
        f"plus a Poisson model of each class's {doc} length: on the {n} held-out {doc}s the "
        "two joint log densities differ by exactly n log Λ_c − Λ_c (largest deviation "
        f"{r.identity_error:.1e} nats)."
    ]
    for label in ("α = 1", "α = evidence"):
        row = t.loc[f"Poisson, {label}"]
        parts.append(
            f"At {label if label == 'α = 1' else f'α = {fmt(r.alpha_evidence, 3)} (evidence)'} "
            f"the length term changes {r.flipped[label]} predictions: accuracy "
            f"{_pct(t.loc[f'multinomial, {label}', 'accuracy'])} → {_pct(row['accuracy'])} "
            f"({_points(row['accuracy_vs_multinomial'])} ± "
            f"{_points(row['accuracy_vs_multinomial_se'])} points), label log density by "
            f"{fmt(row['lpd_per_doc_vs_multinomial'], 2)} ± "
            f"{fmt(row['lpd_per_doc_vs_multinomial_se'], 2)} nats per {doc}."
        )
    disp = L["dispersion"]
    parts.append(
        f"A Poisson length has variance equal to its mean; the training {doc}s' lengths have "
        f"variance {fmt(float(disp.min()), 2)}–{fmt(float(disp.max()), 2)} times their mean "
        "across classes"
        + (
            ", so the length term overstates how much a length says about the class."
            if disp.min() > 1.5
            else "."
        )
    )
    infl = (L["Λ (α = 1)"] / L["mean length"]).max()
    if infl > 1.2:
        parts.append(
            f"With α = 1 the prior also inflates the expected length Λ_c up to "
            f"{fmt(float(infl), 2)} times the observed mean: one pseudo-count for each of "
            f"{r.study.data.X.shape[1]} features, spread over a class's documents."
        )
    return " ".join(parts)


# -- burstiness: the DCM's distinct-words check -----------------------------------------------
@dataclass
class BurstinessResult:
    """Distinct words per document: real against generated by the multinomial and the DCM."""

    study: Study
    table: pd.DataFrame
    per_class: pd.DataFrame
    reading: str = ""


def burstiness(study: Study, *, seed: int = 0, n_replicates: int = 20) -> BurstinessResult:
    """:func:`bayesnb.dcm.distinct_words_check` of MultinomialNB and DirichletCompoundNB.

    Each model generates ``n_replicates`` copies of every held-out document (same class,
    same length); the mean number of distinct words of the copies is compared with the real
    one. Rows: multinomial NB at α = 1 and at α = evidence (posterior mean) and the DCM
    (its default: MAP concentrations under a Gamma(1.1, 1) prior), each with its held-out
    accuracy and label log density.
    """
    from bayesnb.dcm import DirichletCompoundNB, distinct_words_check

    Xtr, ytr, Xte, yte = split_xy(study)
    models = {
        "multinomial, α = 1": study.configured(alpha=1.0, estimate="mean"),
        "multinomial, α = evidence": study.configured(alpha="evidence", estimate="mean"),
        "DCM (MAP)": DirichletCompoundNB(),
    }
    rows, per_class = [], {}
    for name, est in models.items():
        est.fit(Xtr, ytr)
        check = distinct_words_check(est, Xte, yte, n_replicates=n_replicates, random_seed=seed)
        lp = _true_log_proba(est, Xte, yte)
        rows.append(
            {
                "model": name,
                "accuracy": float(np.mean(est.predict(Xte) == yte)),
                "lpd_per_doc": float(lp.mean()),
                "observed": float(check["observed_mean"]),
                "replicated": float(check["replicated_mean"]),
                "ratio": float(check["ratio"]),
                "p_value": float(check["p_value"]),
            }
        )
        per_class[name] = {str(c): v[1] for c, v in check["per_class"].items()}
        per_class["observed"] = {str(c): v[0] for c, v in check["per_class"].items()}
    table = pd.DataFrame(rows).set_index("model")
    pc = pd.DataFrame(per_class)[["observed", *models]]
    pc.index.name = "class"
    result = BurstinessResult(study, table, pc)
    result.reading = _burstiness_reading(result)
    return result


def _burstiness_reading(r: BurstinessResult) -> str:
    t = r.table
    feature, doc = words(r.study.data)
    obs = t["observed"].iloc[0]
    m1, mev, dcm = (t.loc[k] for k in t.index)
    parts = [
        f"The held-out {doc}s of {r.study.data.name} hold {fmt(obs, 3)} distinct {feature}s on "
        f"average. Copies of them generated by multinomial naive Bayes (same class, same "
        f"length) hold {fmt(m1['replicated'], 3)} (α = 1) and {fmt(mev['replicated'], 3)} "
        f"(α = evidence), {_pct(m1['ratio'] - 1)} and {_pct(mev['ratio'] - 1)} too many: "
        f"drawing every token independently, the multinomial rarely repeats a {feature}, "
        f"while real {doc}s do (burstiness).",
        f"The Dirichlet-compound-multinomial, which gives every {doc} its own {feature} "
        f"distribution, generates {fmt(dcm['replicated'], 3)} "
        f"({_pct(dcm['ratio'] - 1)} too many)"
        + (
            ", closer to the data."
            if abs(dcm["ratio"] - 1) < abs(mev["ratio"] - 1)
            else ", no closer to the data."
        ),
        f"As classifiers: accuracy {_pct(mev['accuracy'])} (multinomial, α = evidence) "
        f"against {_pct(dcm['accuracy'])} (DCM), label log density "
        f"{fmt(mev['lpd_per_doc'])} against {fmt(dcm['lpd_per_doc'])} nats per {doc}.",
    ]
    extreme = t["p_value"].isin([0.0, 1.0])
    if extreme.any():
        parts.append(
            "Posterior predictive p-values of 0 or 1 (no replicate set on the other side of "
            "the data) for: " + ", ".join(t.index[extreme]) + "."
        )
    return " ".join(parts)
