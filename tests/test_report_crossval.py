"""The report's exact cross-validation sections against brute force and their sources."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from bayesnb import datasets
from bayesnb.loo import psis_loo
from bayesnb.report import Dataset, Study
from bayesnb.report import sections as S
from bayesnb.report.sections.common import fmt, split_xy


def _digits(n: int = 90) -> Dataset:
    d = datasets.load_digits_counts()
    return Dataset("digits", d.data[:n], d.target[:n], d.feature_names, "counts", binarize=8.0)


def _wine() -> Dataset:
    from sklearn.datasets import load_wine

    w = load_wine()
    return Dataset("wine", w.data, w.target, w.feature_names, "continuous")


@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "gda"])
def test_loo_check_is_exact_per_document_and_psis_is_psis_loo(model):
    study = Study(_wine() if model == "gda" else _digits(), model)
    r = S.loo_check(study, draws=200, seed=3)
    assert r.skipped is None
    Xtr, ytr, _, _ = split_xy(study)
    n = len(ytr)
    brute = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        est = study.configured(estimate="bayes").fit(Xtr[keep], ytr[keep])
        c = np.searchsorted(est.classes_, ytr[i])
        brute[i] = est.predict_log_proba(Xtr[i : i + 1])[0, c]
    np.testing.assert_allclose(r.exact, brute, rtol=0, atol=1e-10)
    full = study.configured(estimate="bayes").fit(Xtr, ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the Pareto-k warning, if any
        loo = psis_loo(full.label_log_likelihood(Xtr, ytr, draws=200, random_seed=3), var_name="y")
    np.testing.assert_array_equal(r.psis, np.asarray(loo.elpd_i).ravel())
    np.testing.assert_array_equal(r.pareto_k, np.asarray(loo.pareto_k).ravel())
    assert r.elpd_exact == pytest.approx(brute.sum(), abs=1e-8)
    assert r.elpd_psis == float(loo.elpd)
    flag = r.pareto_k > r.good_k
    row = r.table.loc["flagged (k > threshold)"]
    assert row["documents"] == flag.sum()
    if flag.any():
        gap = np.abs(r.psis - r.exact)[flag]
        assert row["mean |Δ|"] == pytest.approx(gap.mean()) and row["max |Δ|"] == gap.max()
        assert f"flags {flag.sum()} of them" in r.reading
        assert fmt(gap.mean(), 2) in r.reading
    if not flag.all():
        gap = np.abs(r.psis - r.exact)[~flag]
        assert r.table.loc["not flagged", "mean |Δ|"] == pytest.approx(gap.mean())
        assert fmt(gap.mean(), 2) in r.reading
    assert fmt(r.elpd_exact, 5) in r.reading and fmt(r.elpd_psis, 5) in r.reading
    assert fmt(r.se_exact) in r.reading


def test_uncertainty_widths_are_the_quantiles_of_predict_proba_draws():
    study = Study(_digits(), "multinomial")
    r = S.predictive_uncertainty(study, draws=60, chains=3, seed=5, n_bins=4)
    Xtr, ytr, Xte, yte = split_xy(study)
    est = study.configured().fit(Xtr, ytr)
    cp = est.predict_proba_draws(Xte, draws=60, chains=3, random_seed=5)
    p = cp["predictions"]["class_proba"].transpose("chain", "draw", "doc", "class").values
    p = p.reshape(-1, *p.shape[2:])
    top = p.mean(axis=0).argmax(axis=1)
    p_top = p[:, np.arange(top.size), top]
    np.testing.assert_allclose(r.lower, np.quantile(p_top, 0.05, axis=0), rtol=1e-14, atol=0)
    np.testing.assert_allclose(r.upper, np.quantile(p_top, 0.95, axis=0), rtol=1e-14, atol=0)
    width = np.quantile(p_top, 0.95, axis=0) - np.quantile(p_top, 0.05, axis=0)
    correct = est.classes_[top] == yte
    np.testing.assert_array_equal(r.correct, correct)
    assert r.summary.loc["right", "mean width"] == pytest.approx(width[correct].mean())
    assert r.summary.loc["wrong", "mean width"] == pytest.approx(width[~correct].mean())
    assert r.bins["documents"].sum() == len(yte) and len(r.bins) == 4
    order = np.argsort(width, kind="stable")
    first = order[: r.bins["documents"].iloc[0]]
    assert r.bins["accuracy"].iloc[0] == pytest.approx(correct[first].mean())
    assert fmt(float(np.median(width)), 2) in r.reading
    assert fmt(width[correct].mean(), 2) in r.reading
    assert fmt(width[~correct].mean(), 2) in r.reading


def test_alpha_choice_matches_evidence_loo_and_gridsearchcv():
    study = Study(_digits(), "multinomial")
    r = S.alpha_choice(study, n_grid=6, folds=3, seed=2)
    Xtr, ytr, _, _ = split_xy(study)
    ev = study.configured(alpha="evidence").fit(Xtr, ytr).alpha_
    loo = study.configured(alpha="loo").fit(Xtr, ytr).alpha_
    t = r.table
    assert t.loc['alpha="evidence"', "alpha"] == float(ev)
    assert t.loc['alpha="loo"', "alpha"] == float(loo)
    search = GridSearchCV(
        study.configured(),
        {"alpha": [float(a) for a in r.grid]},
        cv=StratifiedKFold(3, shuffle=True, random_state=2),
        scoring="neg_log_loss",
    ).fit(Xtr, ytr)
    grid_row = t.loc["GridSearchCV (6 α × 3 folds)"]
    assert grid_row["alpha"] == search.best_params_["alpha"]
    assert grid_row["fits"] == 6 * 3 + 1
    np.testing.assert_allclose(r.cv_log_loss, -search.cv_results_["mean_test_score"])
    assert r.grid.size == 6 and r.grid.min() <= min(ev, loo) and r.grid.max() >= max(ev, loo)
    for a in (ev, loo, search.best_params_["alpha"]):
        assert fmt(float(a)) in r.reading
    assert fmt(float(t.loc['alpha="loo"', "log_loss"])) in r.reading


def test_sections_skip_a_model_lacking_the_capability_with_its_reason():
    r = S.alpha_choice(Study(_wine(), "gda"))
    assert r.table.empty and "Normal-Inverse-Wishart" in r.skipped
    assert "not computed for wine · gda" in r.reading
    r = S.loo_check(Study(_digits(), "dcm"))
    assert r.exact is None and 'estimate="bayes"' in r.skipped and r.skipped in r.reading


def _long_documents(n: int = 300) -> Dataset:
    """Digits counts with every pixel written four times: long, dependent 'documents'."""
    d = datasets.load_digits_counts()
    X = np.hstack([d.data[:n]] * 4)
    names = [f"{f}#{k}" for k in range(4) for f in d.feature_names]
    return Dataset("digits x4", X, d.target[:n], names, "counts", binarize=8.0)


@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "gda"])
def test_temperature_section_matches_refits_and_its_reading_its_table(model):
    study = Study(_wine() if model == "gda" else _long_documents(), model)
    r = S.temperature(study)
    Xtr, ytr, Xte, yte = split_xy(study)
    t = r.table
    mean1 = t.loc["posterior mean, τ = 1"]
    mean_t = t.loc["posterior mean, τ learned"]
    want = study.configured(temperature="loo").fit(Xtr, ytr)
    assert mean_t["temperature"] == pytest.approx(want.temperature_, rel=1e-12)
    from sklearn.metrics import log_loss

    assert mean_t["log_loss"] == pytest.approx(
        log_loss(yte, want.predict_proba(Xte), labels=want.classes_), rel=1e-10
    )
    assert mean_t["accuracy"] == mean1["accuracy"]  # predict ignores the temperature
    for name in ("CalibratedClassifierCV sigmoid", "CalibratedClassifierCV isotonic"):
        assert name in t.index or name in r.failed
    # the reading quotes the table's numbers, in the direction they go
    head = f"posterior mean at the learned temperature τ = {fmt(mean_t['temperature'])} "
    if fmt(mean1["log_loss"]) == fmt(mean_t["log_loss"]):
        assert head + f"leaves the held-out log loss at {fmt(mean1['log_loss'])}" in r.reading
    else:
        verb = "lowers" if mean_t["log_loss"] < mean1["log_loss"] else "raises"
        assert (
            head + f"{verb} the held-out log loss from {fmt(mean1['log_loss'])} to "
            f"{fmt(mean_t['log_loss'])}"
        ) in r.reading
    if model != "gda":  # four copies of every pixel: τ well below 1
        assert mean_t["temperature"] < 0.6
        assert mean_t["log_loss"] < mean1["log_loss"]  # (τ fits the log loss; ECE may rise)
    assert set(r.reliability) >= {"posterior mean, τ = 1", "posterior mean, τ learned"}
