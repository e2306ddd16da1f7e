"""Report sections on the parameters of one study: forest and shrinkage, smoothing, features.

The families that feed them rank ``"parameters"`` in their
:attr:`~bayesnb.report.extension.FamilyReport.ranks` (multinomial, Bernoulli): their
parameters are per-class feature probabilities.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.model_selection import StratifiedKFold

from bayesnb.families import family_of
from bayesnb.model_selection import cross_val_predict
from bayesnb.report.data import Study, fit_named
from bayesnb.report.extension import report_of
from bayesnb.report.sections.common import (
    MAP_PRIOR,
    _times,
    fmt,
    pct,
    split_xy,
    words,
)

__all__ = [
    "InformativeResult",
    "ParameterResult",
    "SmoothingResult",
    "deleted_estimation",
    "informative",
    "parameters",
    "smoothing",
    "smoothing_headline",
]


def _lift(est, min_count: float = 10.0) -> np.ndarray:
    """log(θ_cj / θ̄_j) under the posterior mean, for pairs seen at least ``min_count`` times.

    The features most specific to a class (its "keywords"); rarer pairs get −inf, as their
    ratio is mostly noise. When a class has no pair that frequent, the threshold drops to its
    most frequent feature's count.
    """
    post = est.point_estimate("mean")["posterior"]
    pi, theta = post["class_prior"].values[0, 0], post["feature_prob"].values[0, 0]
    counts = np.asarray(est.feature_count_)
    if theta.ndim == 3:  # categorical: probability of a non-zero value
        theta = 1.0 - theta[..., 0]
    bar = pi @ theta
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = np.log(theta / bar)
    floor = np.minimum(min_count, counts.max(axis=1, keepdims=True))
    return np.where(counts >= floor, lift, -np.inf)


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
    posteriors = {
        "MLE": mean_est.point_estimate("mle", features=feats),
        "MAP (α = 2)": map_est.point_estimate("map", features=feats),
        "posterior mean": mean_est.point_estimate("mean", features=feats),
        "posterior (exact draws)": mean_est.sample_posterior(
            draws=draws, chains=1, random_seed=seed, features=feats
        ),
    }
    trees = {k: _pair_tree(tree, pairs, labels, draws) for k, tree in posteriors.items()}
    ev = fit_named(study.configured(estimate="mean", alpha="evidence"), Xtr, ytr, names)
    shrink = _shrinkage(mean_est, ev)
    alpha = float(np.mean(mean_est.alpha_))
    result = ParameterResult(study, trees, labels, shrink, float(ev.alpha_), alpha)
    result.reading = _parameters_reading(result, mean_est)
    return result


def _totals(est) -> np.ndarray:
    """Per-class denominator of the MLE: tokens (multinomial) or documents (Bernoulli)."""
    if report_of(family_of(est, "bayesnb.report").name).tokens:
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
            f"posterior mean at α = {fmt(alpha)} keeps a median {pct(ratio)} of the MLE "
            f"({pct(ratio_ev)} at the evidence α), the probability mass it moved to unseen "
            "pairs."
        )
    return " ".join(parts)


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
    parts = []
    for c1, n1, c2, n2, alpha in directions:
        ok = (n1 > 0) & (n2 > 0)
        n1, n2 = n1[ok][:, None], n2[ok][:, None]
        r = c1[ok]
        obs = c2[ok] * (n1 / n2)
        lap = (r + laplace) * n1 / (n1 + n_categories * laplace)
        ev = (r + alpha) * n1 / (n1 + n_categories * alpha)
        parts.append([a.ravel() for a in np.broadcast_arrays(r, obs, lap, ev)])
    r, obs, lap, ev = (np.concatenate(a) for a in zip(*parts, strict=True))
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
    a, b = (study.configured(alpha="evidence").fit(Xtr[h], ytr[h]) for h in (half_a, half_b))
    # Add-one smooths a word distribution over the V words, a presence over 2 outcomes.
    n_cat = Xtr.shape[1] if study.report.tokens else 2
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
    # The folds' held-out log-probabilities by subtracting each fold's statistics from one
    # fit (bayesnb.model_selection: the numbers of a refit per fold, without the refits).
    codes = np.searchsorted(np.unique(ytr), ytr)
    score = np.empty(cv_alphas.size)
    for i, x in enumerate(cv_alphas):
        est = study.configured(alpha=float(x), estimate="mean")
        log_p = cross_val_predict(est, Xtr, ytr, cv=folds, method="predict_log_proba")
        score[i] = log_p[np.arange(len(ytr)), codes].sum()
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
            f"For pairs seen 10 times or more, add-one predicts {pct(lap)} of the held-out count "
            f"(MLE {pct(mle)}, evidence α {pct(ev)}): what add-one gives the unseen it takes "
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


def _informative_reading(r: InformativeResult) -> str:
    t = r.table
    feature, doc = words(r.study.data)
    perc = round(100 * r.ci_prob)
    lb, ub = f"eti{perc}_lb", f"eti{perc}_ub"
    what = "probability" if r.study.report.tokens else "presence probability"
    top = t[t["rank"] == 1].sort_values(lb, ascending=False)
    first = top.iloc[0]
    parts = [
        f"For each class of {r.study.data.name}, the {feature}s whose {what} most favours it "
        "over the class its held-out "
        f"{doc}s are most often mistaken for, ranked by the lower end of the {perc}% "
        "equal-tailed credible interval of log(φ_a / φ_b) (how large the data say the ratio "
        "surely is; exact posterior draws), with its exact posterior mean.",
        f"The surest is {first['feature']!r} for {first['class']} against "
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
            f"{pct(unseen)} of the {feature}s shown never occur in the rival class in "
            "training: their ratio only the prior bounds, so their intervals are the widest "
            f"(median width {float(width[t['count_versus'] == 0].median()):.2f} nats, against "
            f"{float(width[t['count_versus'] > 0].median()):.2f} for {feature}s seen in both) "
            f"(ranked by the lower end, such a {feature} needs many occurrences in the class "
            "to rank high)."
        )
    elif unseen == 1:
        parts.append(
            f"Every {feature} shown is absent from the rival class in training: a ratio only "
            f"the prior bounds (median interval width {float(width.median()):.2f} nats)."
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
