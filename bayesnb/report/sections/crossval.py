"""Report sections on exact cross-validation: exact LOO against PSIS-LOO, predictive
uncertainty of held-out documents, and the smoothing α chosen three ways.

Each section runs on one study (the report's main study) and asks the study's family only
through the estimator's public methods, which raise
:class:`~bayesnb.families._protocol.Unsupported` for a capability the family lacks; the
section then says so in its reading (``skipped``) instead of failing.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from bayesnb.families._protocol import Unsupported
from bayesnb.report.data import Study
from bayesnb.report.sections.common import _times, equal_count_bins, fmt, pct, split_xy, words

__all__ = [
    "AlphaChoiceResult",
    "LOOCheckResult",
    "UncertaintyResult",
    "alpha_choice",
    "loo_check",
    "predictive_uncertainty",
]


def _skip_reading(study: Study, what: str, reason: str) -> str:
    return f"{what} is not computed for {study.label}: {reason}."


@dataclass
class LOOCheckResult:
    """Exact log p(y_i | x_i, D without i) beside PSIS-LOO's estimate, per training document.

    ``exact``, ``psis`` and ``pareto_k`` are (n_train,) arrays in the order of the study's
    training documents; ``constant`` marks the documents whose label log-likelihood is the
    same under every draw (to ``psis_loo``'s ``tol``: nothing to smooth, k = 0). ``table`` has
    one row per group (flagged, not flagged, the constant ones among those, all) with the
    documents, the mean, median and largest |PSIS − exact| and the mean PSIS − exact (nats).
    """

    study: Study
    exact: np.ndarray | None = None
    psis: np.ndarray | None = None
    pareto_k: np.ndarray | None = None
    constant: np.ndarray | None = None
    good_k: float = 0.7
    elpd_exact: float = np.nan
    se_exact: float = np.nan
    elpd_psis: float = np.nan
    se_psis: float = np.nan
    draws: int = 0
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: str | None = None
    reading: str = ""

    @property
    def flagged(self) -> np.ndarray:
        """Documents whose Pareto k is above the good threshold."""
        return np.asarray(self.pareto_k) > self.good_k


def _gap_row(psis: np.ndarray, exact: np.ndarray) -> dict:
    diff = psis - exact
    if diff.size == 0:
        return dict.fromkeys(("mean |Δ|", "median |Δ|", "max |Δ|", "mean Δ"), np.nan) | {
            "documents": 0
        }
    return {
        "documents": int(diff.size),
        "mean |Δ|": float(np.mean(np.abs(diff))),
        "median |Δ|": float(np.median(np.abs(diff))),
        "max |Δ|": float(np.max(np.abs(diff))),
        "mean Δ": float(np.mean(diff)),
    }


def loo_check(study: Study, *, draws: int = 500, seed: int = 0) -> LOOCheckResult:
    """Exact LOO (``bayesnb.model_selection.elpd_loo``) against PSIS-LOO per training document.

    Both score the full posterior predictive (``estimate="bayes"``) of the study's
    configuration on its training split: the exact value refits nothing (the document's
    statistics are subtracted); PSIS-LOO reweights ``draws`` exact posterior draws
    (``label_log_likelihood`` with ``random_seed=seed``, then :func:`bayesnb.loo.psis_loo`).
    """
    from bayesnb.loo import psis_loo
    from bayesnb.model_selection import elpd_loo

    what = "Exact leave-one-out against PSIS-LOO"
    if "bayes" not in study.family.estimates:
        reason = (
            f"{type(study.estimator).__name__} has no posterior predictive "
            '(estimate="bayes"), which is what PSIS-LOO from posterior draws estimates'
        )
        return LOOCheckResult(study, skipped=reason, reading=_skip_reading(study, what, reason))
    Xtr, ytr, _, _ = split_xy(study)
    est = study.configured(estimate="bayes")
    try:
        exact = elpd_loo(est, Xtr, ytr)
        fitted = est.fit(Xtr, ytr)
        tree = fitted.label_log_likelihood(Xtr, ytr, draws=draws, random_seed=seed)
    except Unsupported as exc:
        return LOOCheckResult(study, skipped=str(exc), reading=_skip_reading(study, what, exc))
    with warnings.catch_warnings():
        # The Pareto-k warning is this section's subject: its numbers say it in full.
        warnings.simplefilter("ignore", UserWarning)
        loo = psis_loo(tree, var_name="y")
    psis = np.asarray(loo.elpd_i, dtype=np.float64).ravel()
    k = np.asarray(loo.pareto_k, dtype=np.float64).ravel()
    good = float(getattr(loo, "good_k", 0.7))
    ll = tree["log_likelihood"]["y"].values
    ll = ll.reshape(-1, ll.shape[-1])
    with np.errstate(invalid="ignore"):
        constant = (ll.max(axis=0) - ll.min(axis=0)) <= 1e-6  # psis_loo's default tol
    flag = k > good
    groups = {
        "flagged (k > threshold)": flag,
        "not flagged": ~flag,
        "… every draw agrees": ~flag & constant,
        "all": np.ones_like(flag),
    }
    table = pd.DataFrame(
        {name: _gap_row(psis[sel], exact.pointwise[sel]) for name, sel in groups.items()}
    ).T
    table.index.name = "training documents"
    table["documents"] = table["documents"].astype(int)
    result = LOOCheckResult(
        study,
        exact.pointwise,
        psis,
        k,
        constant,
        good,
        exact.elpd,
        exact.se,
        float(loo.elpd),
        float(loo.se),
        draws,
        table,
    )
    result.reading = _loo_reading(result)
    return result


def _loo_reading(r: LOOCheckResult) -> str:
    _, doc = words(r.study.data)
    n = r.exact.size
    flag = r.flagged
    f_row, u_row, c_row = (r.table.iloc[i] for i in range(3))
    parts = [
        f"For each of the {n} training {doc}s, the exact log p(y | x, training data without "
        f"the {doc}) against PSIS-LOO's estimate of it from {r.draws} exact posterior draws."
    ]
    if flag.any():
        typical = f_row["mean Δ"]
        parts.append(
            f"PSIS-LOO flags {int(flag.sum())} of them ({pct(flag.mean())}) with Pareto k "
            f"above {fmt(r.good_k, 2)}, as not to be trusted. How wrong are they really? "
            f"Off by {fmt(f_row['median |Δ|'], 2)} nats at the median, "
            f"{fmt(f_row['mean |Δ|'], 2)} on average and {fmt(f_row['max |Δ|'], 3)} at worst"
            + (
                f": on average PSIS gives the true label {_times(float(np.exp(typical)))} the "
                f"probability the model fitted without the {doc} gives it."
                if abs(typical) >= 0.1
                else ": mostly a small error, so the flag is often a false alarm."
            )
        )
    else:
        parts.append(f"No {doc} is flagged: every Pareto k is at most {fmt(r.good_k, 2)}.")
    if u_row["documents"]:
        parts.append(
            f"The {int(u_row['documents'])} unflagged {doc}s are off by "
            f"{fmt(u_row['mean |Δ|'], 2)} nats on average (at worst {fmt(u_row['max |Δ|'], 3)})."
        )
    if c_row["documents"] and c_row["mean |Δ|"] >= 0.1:
        parts.append(
            f"The worst of them are the {int(c_row['documents'])} {doc}s whose label every "
            "draw predicts with the same probability (PSIS has nothing to smooth and reports "
            f"k = 0): off by {fmt(c_row['mean |Δ|'], 2)} nats on average. The draws all come "
            f"from the posterior fitted with the {doc}, which is sure of its label; without "
            f"the {doc} the model is not, and no reweighting of those draws can show it."
        )
    diff = r.elpd_psis - r.elpd_exact
    parts.append(
        f"In total the exact ELPD is {fmt(r.elpd_exact, 5)} (SE {fmt(r.se_exact)}) and "
        f"PSIS-LOO's {fmt(r.elpd_psis, 5)} (SE {fmt(r.se_psis)}): {fmt(abs(diff), 4)} nats "
        f"{'too optimistic' if diff > 0 else 'too pessimistic'}. The exact value needs one "
        "fit and no draws."
    )
    return " ".join(parts)


@dataclass
class UncertaintyResult:
    """The interval of p(predicted class | x) over posterior draws, per held-out document.

    The predicted class is the one with the largest mean probability over the draws; the
    interval is equal-tailed (the ``(1 − prob)/2`` and ``(1 + prob)/2`` quantiles of the
    pooled chains × draws). ``summary`` has a row for right and wrong predictions, ``bins``
    one per equal-count bin of interval width.
    """

    study: Study
    predicted: np.ndarray | None = None
    correct: np.ndarray | None = None
    mean: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    prob: float = 0.9
    draws: int = 0
    chains: int = 0
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    bins: pd.DataFrame = field(default_factory=pd.DataFrame)
    skipped: str | None = None
    reading: str = ""

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


def _width_bins(width: np.ndarray, correct: np.ndarray, mean: np.ndarray, n_bins: int):
    rows = [
        {
            "narrowest": float(width[idx].min()),
            "widest": float(width[idx].max()),
            "documents": int(idx.size),
            "mean p(predicted)": float(mean[idx].mean()),
            "accuracy": acc,
            "± SE": se,
        }
        for idx, acc, se in equal_count_bins(width, correct, n_bins)
    ]
    return pd.DataFrame(rows)


def predictive_uncertainty(
    study: Study,
    *,
    draws: int = 125,
    chains: int = 4,
    prob: float = 0.9,
    n_bins: int = 5,
    seed: int = 0,
) -> UncertaintyResult:
    """The ``prob`` interval of p(predicted class | x) of every held-out document.

    From ``est.predict_proba_draws(X_test, draws=draws, chains=chains, random_seed=seed)``
    (exact posterior draws of the study's configuration fitted on the training split).
    """
    what = "Predictive uncertainty"
    Xtr, ytr, Xte, yte = split_xy(study)
    try:
        est = study.configured().fit(Xtr, ytr)
        tree = est.predict_proba_draws(Xte, draws=draws, chains=chains, random_seed=seed)
    except Unsupported as exc:
        return UncertaintyResult(study, skipped=str(exc), reading=_skip_reading(study, what, exc))
    cp = tree["predictions"]["class_proba"].transpose("chain", "draw", "doc", "class").values
    pooled = cp.reshape(-1, *cp.shape[2:])  # (chains · draws, doc, class)
    mean = pooled.mean(axis=0)
    top = mean.argmax(axis=1)
    p_top = pooled[:, np.arange(top.size), top]  # (samples, doc)
    lower, upper = np.quantile(p_top, [(1 - prob) / 2, (1 + prob) / 2], axis=0)
    predicted = np.asarray(est.classes_)[top]
    correct = predicted == np.asarray(yte)
    width = upper - lower
    rows = {}
    for name, sel in (("right", correct), ("wrong", ~correct)):
        rows[name] = {
            "documents": int(sel.sum()),
            "mean width": float(width[sel].mean()) if sel.any() else np.nan,
            "median width": float(np.median(width[sel])) if sel.any() else np.nan,
            "mean p(predicted)": float(mean[sel, top[sel]].mean()) if sel.any() else np.nan,
        }
    summary = pd.DataFrame(rows).T
    summary["documents"] = summary["documents"].astype(int)
    summary.index.name = "prediction"
    result = UncertaintyResult(
        study,
        predicted,
        correct,
        mean[np.arange(top.size), top],
        lower,
        upper,
        prob,
        draws,
        chains,
        summary,
        _width_bins(width, correct, mean[np.arange(top.size), top], n_bins),
    )
    result.reading = _uncertainty_reading(result)
    return result


def _uncertainty_reading(r: UncertaintyResult) -> str:
    _, doc = words(r.study.data)
    w = r.width
    perc = round(100 * r.prob)
    s, b = r.summary, r.bins
    parts = [
        f"How sure is the model of its probability? For each of the {w.size} held-out {doc}s, "
        f"the {perc}% equal-tailed interval of p(predicted class | x) over "
        f"{r.chains} × {r.draws} exact posterior draws. Its median width is "
        f"{fmt(float(np.median(w)), 2)} "
        f"(90% of the {doc}s below {fmt(float(np.quantile(w, 0.9)), 2)}); the model is right on "
        f"{pct(r.correct.mean())} of them."
    ]
    if s.loc["wrong", "documents"] and s.loc["right", "documents"]:
        ratio = s.loc["wrong", "mean width"] / s.loc["right", "mean width"]
        parts.append(
            f"Right predictions have a mean width of {fmt(s.loc['right', 'mean width'], 2)}, "
            f"wrong ones {fmt(s.loc['wrong', 'mean width'], 2)}"
            + (
                f" ({_times(ratio)} as wide): the draws disagree more where the model errs."
                if ratio > 1.05
                else (" (about the same)." if ratio >= 0.95 else f" ({fmt(ratio, 2)}× as wide).")
            )
        )
    if len(b) >= 2:
        first, last = b.iloc[0], b.iloc[-1]
        parts.append(
            f"Accuracy goes from {pct(first['accuracy'])} on the {int(first['documents'])} "
            f"{doc}s with the narrowest intervals (at most {fmt(first['widest'], 2)}) to "
            f"{pct(last['accuracy'])} on the {int(last['documents'])} with the widest (from "
            f"{fmt(last['narrowest'], 2)})."
        )
        if first["accuracy"] < 0.99 and first["widest"] < 0.05:
            parts.append(
                f"A narrow interval is no guarantee: on the narrowest bin the draws agree on "
                f"the probability (mean {fmt(first['mean p(predicted)'], 3)}), yet "
                f"{pct(1 - first['accuracy'])} of those predictions are wrong. The interval "
                "measures the parameters' uncertainty given the model, not its "
                "misspecification."
            )
    return " ".join(parts)


@dataclass
class AlphaChoiceResult:
    """α from ``alpha="evidence"``, ``alpha="loo"`` and GridSearchCV on the study's split.

    ``table`` has one row per choice (and the configured α for reference): ``alpha``,
    ``seconds`` (the search's fit, GridSearchCV's refit included), held-out ``accuracy``,
    ``log_loss`` and the paired standard error of its gap to the best log loss. ``grid``,
    ``cv_log_loss`` (mean over folds), ``cv_se`` and ``test_log_loss`` (each grid α fitted on
    the whole training split) describe the grid.
    """

    study: Study
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    grid: np.ndarray | None = None
    cv_log_loss: np.ndarray | None = None
    cv_se: np.ndarray | None = None
    test_log_loss: np.ndarray | None = None
    folds: int = 0
    skipped: str | None = None
    reading: str = ""


def _losses(est, X, y) -> np.ndarray:
    """−log p(y_i | x_i) of every held-out document (clipped as sklearn's log_loss does)."""
    proba = est.predict_proba(X)
    idx = np.searchsorted(est.classes_, y)
    eps = np.finfo(proba.dtype).eps
    return -np.log(np.clip(proba[np.arange(len(y)), idx], eps, 1.0))


def _alpha_value(est) -> float:
    return float(np.mean(np.asarray(est.alpha_, dtype=np.float64)))


def alpha_choice(
    study: Study, *, n_grid: int = 20, folds: int = 5, seed: int = 0
) -> AlphaChoiceResult:
    """The smoothing α chosen by the evidence, by exact LOO and by GridSearchCV.

    GridSearchCV searches ``n_grid`` log-spaced α from 1e-3 to 100 (widened to a tenth of
    the smallest and ten times the largest of the other two choices when they fall outside),
    ``StratifiedKFold(folds, shuffle=True, random_state=seed)``, ``scoring="neg_log_loss"``.
    Every choice is then scored on the study's held-out documents.
    """
    what = "The smoothing α chosen three ways"
    if "alpha" not in study.estimator.get_params(deep=False):
        reason = (
            f"{type(study.estimator).__name__} has no alpha to choose ("
            + (study.family.cli_no_alpha or "no alpha parameter")
            + ")"
        )
        return AlphaChoiceResult(study, skipped=reason, reading=_skip_reading(study, what, reason))
    Xtr, ytr, Xte, yte = split_xy(study)
    fits, seconds = {}, {}

    def timed(name: str, est):
        t0 = time.perf_counter()
        est.fit(Xtr, ytr)
        seconds[name] = time.perf_counter() - t0
        return est

    try:
        for alpha in ("evidence", "loo"):
            fits[alpha] = timed(alpha, study.configured(alpha=alpha))
    except Unsupported as exc:
        return AlphaChoiceResult(study, skipped=str(exc), reading=_skip_reading(study, what, exc))
    found = [_alpha_value(f) for f in fits.values()]
    grid = np.geomspace(min(1e-3, min(found) / 10), max(100.0, max(found) * 10), n_grid)
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    search = GridSearchCV(
        study.configured(), {"alpha": [float(a) for a in grid]}, cv=cv, scoring="neg_log_loss"
    )
    fits["grid"] = timed("grid", search).best_estimator_
    fits["configured"] = timed("configured", study.configured())
    res = search.cv_results_
    cv_loss = -np.asarray(res["mean_test_score"])
    cv_se = np.asarray(res["std_test_score"]) / np.sqrt(folds)
    test_loss = np.array(
        [_losses(study.configured(alpha=float(a)).fit(Xtr, ytr), Xte, yte).mean() for a in grid]
    )
    losses = {name: _losses(f, Xte, yte) for name, f in fits.items()}
    best = min(losses, key=lambda name: losses[name].mean())
    labels = {
        "evidence": 'alpha="evidence"',
        "loo": 'alpha="loo"',
        "grid": f"GridSearchCV ({n_grid} α × {folds} folds)",
        "configured": "configured α",
    }
    rows = {}
    for name, f in fits.items():
        gap = losses[name] - losses[best]
        rows[labels[name]] = {
            "alpha": _alpha_value(f) if name != "grid" else float(search.best_params_["alpha"]),
            "seconds": seconds[name],
            "fits": {"grid": n_grid * folds + 1}.get(name, 1),
            "accuracy": accuracy_score(yte, f.predict(Xte)),
            "log_loss": log_loss(yte, f.predict_proba(Xte), labels=f.classes_),
            "gap to best": float(gap.mean()),
            "± paired SE": float(gap.std(ddof=1) / np.sqrt(gap.size)) if gap.size > 1 else 0.0,
        }
    table = pd.DataFrame(rows).T
    table["fits"] = table["fits"].astype(int)
    table.index.name = "α chosen by"
    result = AlphaChoiceResult(study, table, grid, cv_loss, cv_se, test_loss, folds)
    result.reading = _alpha_reading(result)
    return result


def _alpha_reading(r: AlphaChoiceResult) -> str:
    _, doc = words(r.study.data)
    t = r.table
    ev, lo, gr = t.iloc[0], t.iloc[1], t.iloc[2]
    n_train = len(split_xy(r.study)[1])
    parts = [
        f"On the {n_train} training {doc}s: the evidence picks α = {fmt(ev['alpha'])} in "
        f"{fmt(ev['seconds'], 2)} s, exact leave-one-out α = {fmt(lo['alpha'])} in "
        f"{fmt(lo['seconds'], 2)} s, and GridSearchCV over {len(r.grid)} α × {r.folds} folds "
        f"(neg_log_loss) α = {fmt(gr['alpha'])} in {fmt(gr['seconds'], 2)} s "
        f"({_times(gr['seconds'] / max(lo['seconds'], 1e-9))} the exact LOO search)."
    ]
    best = t["log_loss"].astype(float).idxmin()
    parts.append(
        "On the held-out documents: "
        + "; ".join(
            f"{name} accuracy {pct(row['accuracy'])}, log loss {fmt(row['log_loss'])}"
            for name, row in t.iterrows()
        )
        + "."
    )
    close = [
        name
        for name, row in t.iterrows()
        if name != best and row["gap to best"] <= row["± paired SE"]
    ]
    parts.append(
        f"The best held-out log loss is {best}'s"
        + (
            f"; {', '.join(close)} within one paired standard error of it."
            if close
            else "; the others trail it by more than a paired standard error."
        )
    )
    return " ".join(parts)
