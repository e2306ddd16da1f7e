"""Exact conjugate paths: point estimates, posterior draws, closed-form summaries, SBC."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import arviz as az
import numpy as np
import pytest
from scipy import stats

import bayesnb as bnb
from bayesnb.draws import posterior_draws, posterior_summary, sample_posterior

MODELS = {
    "bernoulli": bnb.BernoulliNB,
    "multinomial": bnb.MultinomialNB,
    "categorical": bnb.CategoricalNB,
}


def _data(kind: str, seed: int = 0, n: int = 80, v: int = 5):
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    codes = np.searchsorted(["a", "b", "c"], y)
    if kind == "bernoulli":
        X = (rng.random((n, v)) < rng.random((3, v))[codes]).astype(float)
        X[:, 0] = 0.0  # a feature never on: the MLE is exactly 0
    elif kind == "multinomial":
        X = rng.poisson(rng.gamma(0.5, 2.0, (3, v))[codes]).astype(float)
        X[codes == 0, 1] = 0.0  # a word unseen in one class
    else:
        X = rng.integers(0, 3, (n, v)).astype(float)
        X[:, 0] = rng.integers(0, 5, n)  # features with different numbers of categories
    return X, y


def _fit(kind: str, **kw):
    X, y = _data(kind)
    return MODELS[kind](**kw).fit(X, y)


def _closed_form(est, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior mean and variance of feature_prob, in the DataTree layout."""
    post = est.posterior_
    mean, var = post.mean(), post.var()
    if kind != "categorical":
        return mean, var
    k = est.n_categories_
    width = int(k.max()) + 1
    out_m = np.full((mean.shape[0], k.size, width), np.nan)
    out_v = out_m.copy()
    off = 0
    for j, kj in enumerate(k):
        out_m[:, j, : kj + 1] = mean[:, off : off + kj + 1]
        out_v[:, j, : kj + 1] = var[:, off : off + kj + 1]
        off += kj + 1
    return out_m, out_v


def _check_moments(draws: np.ndarray, mean: np.ndarray, var: np.ndarray) -> None:
    """Sample mean and variance within 4 Monte Carlo standard errors of the exact moments."""
    flat = draws.reshape(-1, *draws.shape[2:])
    n = flat.shape[0]
    m_hat = flat.mean(axis=0)
    dev = flat - m_hat
    v_hat = (dev**2).mean(axis=0)
    se_mean = np.sqrt(var / n)
    se_var = np.sqrt(np.maximum((dev**4).mean(axis=0) - v_hat**2, 0.0) / n)
    ok = ~np.isnan(mean)
    assert np.all(np.isnan(m_hat[~ok]))  # padding stays NaN
    assert np.all(np.abs(m_hat - mean)[ok] <= 4 * se_mean[ok] + 1e-15)
    assert np.all(np.abs(v_hat - var)[ok] <= 4 * se_var[ok] + 1e-15)


@pytest.mark.parametrize("kind", list(MODELS))
def test_draws_match_closed_form_moments(kind):
    est = _fit(kind, alpha=0.7, class_alpha=1.5)
    dt = sample_posterior(est, draws=5000, chains=4, random_seed=11)
    post = dt["posterior"]
    assert "sample_stats" not in dt.children
    assert post["class_prior"].dims == ("chain", "draw", "class")
    expected_dims = ("chain", "draw", "class", "feature") + (
        ("value",) if kind == "categorical" else ()
    )
    assert post["feature_prob"].dims == expected_dims
    assert list(post["class"].values) == ["a", "b", "c"]
    mean, var = _closed_form(est, kind)
    _check_moments(post["feature_prob"].values, mean, var)
    cp = est.class_posterior_
    _check_moments(post["class_prior"].values, cp.mean(), cp.var())
    # Probabilities: rows of every simplex sum to 1.
    if kind == "multinomial":
        np.testing.assert_allclose(post["feature_prob"].values.sum(-1), 1.0, rtol=1e-12)
    if kind == "categorical":
        np.testing.assert_allclose(np.nansum(post["feature_prob"].values, -1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "bayes"])
def test_point_estimate_equals_scoring_tables(kind, estimate):
    est = _fit(kind, alpha=2.0, class_alpha=2.0, estimate=estimate)
    if kind == "multinomial" and estimate == "bayes":
        with pytest.raises(ValueError, match="not a point"):
            est.point_estimate("bayes")
        return
    dt = est.point_estimate(estimate)
    post = dt["posterior"]
    assert post.sizes["chain"] == 1 and post.sizes["draw"] == 1
    assert post.attrs["estimate"] == estimate
    np.testing.assert_array_equal(post["class_prior"].values[0, 0], np.exp(est.class_log_prior_))
    got = post["feature_prob"].values[0, 0]
    if kind == "categorical":
        for j, table in enumerate(est.feature_log_prob_):
            np.testing.assert_array_equal(got[:, j, : table.shape[1]], np.exp(table))
            assert np.all(np.isnan(got[:, j, table.shape[1] :]))
    else:
        np.testing.assert_array_equal(got, np.exp(est.feature_log_prob_))
    if estimate == "mle":
        # The MLE of a never-seen feature is exactly 0 (exp(-inf)), not NaN.
        col = 0 if kind == "bernoulli" else 1
        if kind != "categorical":
            assert got[0, col] == 0.0
    if estimate == "bayes":  # equals the posterior mean where it is a point
        mean = est.point_estimate("mean")["posterior"]["feature_prob"].values
        np.testing.assert_array_equal(post["feature_prob"].values, mean)


def test_point_estimate_honours_fixed_class_prior_and_subsets():
    X, y = _data("multinomial")
    est = bnb.MultinomialNB(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    post = est.point_estimate("mean", features=[4, 2])["posterior"]
    np.testing.assert_allclose(post["class_prior"].values[0, 0], [0.2, 0.3, 0.5])
    assert list(post["feature"].values) == ["x4", "x2"]
    np.testing.assert_array_equal(
        post["feature_prob"].values[0, 0], np.exp(est.feature_log_prob_)[:, [4, 2]]
    )
    only = est.point_estimate("mle", var_names="class_prior")["posterior"]
    assert list(only.data_vars) == ["class_prior"]
    draws = est.sample_posterior(draws=3, chains=2, random_seed=0)["posterior"]
    np.testing.assert_allclose(
        draws["class_prior"].values, np.broadcast_to([0.2, 0.3, 0.5], (2, 3, 3))
    )


@pytest.mark.filterwarnings("ignore::FutureWarning")  # arviz-plots concat of 1-draw trees
def test_arviz_summary_and_forest_accept_every_tree():
    from arviz_plots import PlotCollection

    est = _fit("bernoulli", alpha=2.0, class_alpha=2.0)
    trees = {e: est.point_estimate(e, features=[1, 2]) for e in ("mle", "map", "mean")}
    trees["posterior"] = est.sample_posterior(draws=500, chains=4, random_seed=1, features=[1, 2])
    summary = az.summary(trees["posterior"], round_to="none")
    assert len(summary) == 3 + 3 * 2
    exact = est.posterior_.mean()[:, [1, 2]]
    rows = [f"feature_prob[{c}, x{j}]" for c in "abc" for j in (1, 2)]
    np.testing.assert_allclose(summary.loc[rows, "mean"].to_numpy(), exact.ravel(), atol=0.02)
    point = az.summary(trees["mean"], kind="stats", round_to="none")
    np.testing.assert_allclose(point.loc[rows, "mean"].to_numpy(), exact.ravel(), rtol=1e-12)
    pc = az.plot_forest(trees, var_names=["feature_prob"], combined=True)
    assert isinstance(pc, PlotCollection)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_multinomial_feature_subset_has_exact_marginals():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60)
    X = rng.poisson(rng.gamma(0.3, 3.0, (2, 50))[y])
    est = bnb.MultinomialNB(alpha=0.5).fit(X, y)
    cols = [3, 17, 40]
    draws = posterior_draws(est, draws=5000, chains=4, random_seed=2, features=cols)
    fp = draws["feature_prob"]
    assert fp.shape == (4, 5000, 2, 3)
    a = est.posterior_.concentration
    A = a.sum(axis=1, keepdims=True)
    aj, bj = a[:, cols], (A - a)[:, cols]  # Beta(a_j, A - a_j) marginals
    _check_moments(fp, aj / (aj + bj), aj * bj / ((aj + bj) ** 2 * (aj + bj + 1)))
    ks = stats.kstest(fp[..., 1, 0].ravel(), stats.beta(aj[1, 0], bj[1, 0]).cdf)
    assert ks.pvalue > 1e-3
    # A selected column keeps its own marginal whatever else is selected.
    alone = posterior_draws(est, draws=5000, chains=4, random_seed=3, features=[17])
    _check_moments(
        alone["feature_prob"],
        (aj / (aj + bj))[:, 1:2],
        (aj * bj / ((aj + bj) ** 2 * (aj + bj + 1)))[:, 1:2],
    )


def test_unk_columns_carry_the_unk_slot():
    X, y = _data("multinomial")
    X[:, 3] = 0.0  # never seen: pooled into UNK
    est = bnb.MultinomialNB(unk=True).fit(X, y)
    fp = posterior_draws(est, draws=2000, chains=2, random_seed=0)["feature_prob"]
    conc = est.posterior_.concentration  # 4 seen words + UNK
    np.testing.assert_allclose(fp.mean(axis=(0, 1))[:, 3], conc[:, -1] / conc.sum(1), atol=0.01)
    # Seen words plus UNK once form the simplex.
    np.testing.assert_allclose(np.delete(fp, 3, axis=-1).sum(-1) + fp[..., 3], 1.0, rtol=1e-12)
    sub = posterior_draws(est, draws=2000, chains=2, random_seed=0, features=[3, 0])["feature_prob"]
    np.testing.assert_allclose(sub.mean(axis=(0, 1))[:, 0], conc[:, -1] / conc.sum(1), atol=0.01)


def test_seeds_and_var_names_are_reproducible():
    est = _fit("categorical", alpha=1.0)
    a = posterior_draws(est, draws=50, chains=2, random_seed=7)
    b = sample_posterior(est, draws=50, chains=2, random_seed=7)["posterior"]
    c = posterior_draws(est, draws=50, chains=2, random_seed=8)
    d = posterior_draws(est, draws=50, chains=2, random_seed=7, var_names=["feature_prob"])
    for name in ("class_prior", "feature_prob"):
        np.testing.assert_array_equal(a[name], b[name].values)
        assert not np.allclose(np.nan_to_num(a[name]), np.nan_to_num(c[name]))
    np.testing.assert_array_equal(a["feature_prob"], d["feature_prob"])
    assert set(d) == {"feature_prob"}


def test_argument_errors_name_the_argument():
    est = _fit("multinomial")
    with pytest.raises(ValueError, match="draws"):
        sample_posterior(est, draws=0)
    with pytest.raises(ValueError, match="chains"):
        sample_posterior(est, chains=-1)
    with pytest.raises(TypeError, match="draws"):
        sample_posterior(est, draws=2.5)
    with pytest.raises(ValueError, match=r"max_bytes.*features="):
        est.sample_posterior(draws=1000, chains=4, max_bytes=1e4)
    with pytest.raises(ValueError, match="var_names"):
        sample_posterior(est, var_names=["theta"])
    with pytest.raises(ValueError, match="features"):
        sample_posterior(est, features=[99])
    with pytest.raises(ValueError, match="unknown feature names"):
        sample_posterior(est, features=["nope"])
    with pytest.raises(ValueError, match="estimate"):
        est.point_estimate("median")
    with pytest.raises(TypeError, match="not supported"):
        sample_posterior(object())


@pytest.mark.parametrize("kind", list(MODELS))
def test_posterior_summary_is_closed_form(kind):
    est = _fit(kind, alpha=0.7, class_alpha=1.5)
    summ = posterior_summary(est, ci_prob=0.9)
    draws = sample_posterior(est, draws=4000, chains=4, random_seed=4)
    ref = az.summary(draws, kind="stats", fmt="xarray", ci_prob=0.9)
    assert list(summ["summary"].values) == list(ref["summary"].values)
    mean, var = _closed_form(est, kind)
    fp = summ["feature_prob"]
    np.testing.assert_allclose(fp.sel(summary="mean").values, mean, rtol=1e-12)
    np.testing.assert_allclose(fp.sel(summary="sd").values, np.sqrt(var), rtol=1e-12)
    # Interval bounds against Monte Carlo quantiles, tolerance from the quantile's SE.
    flat = draws["posterior"]["feature_prob"].values.reshape(16000, *mean.shape)
    for q, label in ((0.05, "eti90_lb"), (0.95, "eti90_ub")):
        bound = fp.sel(summary=label).values
        emp = np.quantile(flat, q, axis=0)
        ok = ~np.isnan(mean)
        a = mean * (mean * (1 - mean) / var - 1)  # Beta(a, b) from its two moments
        b = (1 - mean) * (mean * (1 - mean) / var - 1)
        dens = stats.beta.pdf(bound[ok], a[ok], b[ok])
        se = np.sqrt(q * (1 - q) / flat.shape[0]) / dens
        assert np.all(np.abs(emp[ok] - bound[ok]) <= 5 * se + 1e-9)
        assert np.all(np.isnan(bound[~ok]))
    cls = summ["class_prior"]
    np.testing.assert_allclose(cls.sel(summary="mean").values, est.class_posterior_.mean())


def test_posterior_summary_of_a_fixed_class_prior_has_no_spread():
    X, y = _data("bernoulli")
    summ = bnb.BernoulliNB(fit_prior=False).fit(X, y)
    summ = posterior_summary(summ, features=["x2"])
    np.testing.assert_allclose(
        summ["class_prior"].values, [[1 / 3] * 3, [0] * 3, [1 / 3] * 3, [1 / 3] * 3]
    )
    assert summ["feature_prob"].shape == (4, 3, 1)
    with pytest.raises(ValueError, match="ci_prob"):
        posterior_summary(bnb.BernoulliNB().fit(X, y), ci_prob=1.5)


# -- simulation-based calibration (Talts et al. 2018) -------------------------------------------
# 400 simulations, L = 19 posterior draws each: the rank of the prior draw among them is
# uniform on 0..19 when the sampler is exact, so 20 bins of expected count 20 and a χ² test
# with 19 degrees of freedom. Small data sets (10 documents) keep the prior influential, so a
# wrong prior (fit with alpha=5 data simulated with alpha=1) is detected with the same sims.
SBC_SIMS, SBC_DRAWS = 400, 19
SBC_DOCS, SBC_FEATURES, SBC_LENGTH, SBC_CATEGORIES = 10, 2, 5, 3
SBC_ALPHA, SBC_GAMMA = 1.0, 1.5


def _simulate(kind: str, rng: np.random.Generator):
    pi = rng.dirichlet([SBC_GAMMA, SBC_GAMMA])
    y = rng.choice(2, size=SBC_DOCS, p=pi)
    if kind == "bernoulli":
        phi = rng.beta(SBC_ALPHA, SBC_ALPHA, size=(2, SBC_FEATURES))
        X = (rng.random((SBC_DOCS, SBC_FEATURES)) < phi[y]).astype(float)
        truth = phi[0, 0]
    elif kind == "multinomial":
        theta = rng.dirichlet([SBC_ALPHA] * SBC_FEATURES, size=2)
        X = np.stack([rng.multinomial(SBC_LENGTH, theta[c]) for c in y]).astype(float)
        truth = theta[0, 0]
    else:
        theta = rng.dirichlet([SBC_ALPHA] * SBC_CATEGORIES, size=(2, SBC_FEATURES))
        u = rng.random((SBC_DOCS, SBC_FEATURES, 1))
        X = (u > np.cumsum(theta[y], axis=-1)).sum(-1).astype(float)
        truth = theta[0, 0, 0]
    return X, y, pi[0], truth


def _feature_statistic(kind: str, fp: np.ndarray) -> np.ndarray:
    if kind == "categorical":
        # The model adds a pooled 'unseen' slot to the 3 simulated categories; conditional on
        # a seen value, (θ_0, θ_1, θ_2) / Σ is Dirichlet(α + counts) under the model too
        # (Dirichlet neutrality), which is what the simulation draws from.
        seen = fp[:, 0, 0, :SBC_CATEGORIES]
        return seen[:, 0] / seen.sum(-1)
    return fp[:, 0, 0]


def _uniformity_pvalue(ranks: list[int]) -> float:
    counts = np.bincount(ranks, minlength=SBC_DRAWS + 1)
    return float(stats.chisquare(counts).pvalue)


@pytest.mark.parametrize("kind", list(MODELS))
def test_simulation_based_calibration(kind):
    rng = np.random.default_rng({"bernoulli": 1, "multinomial": 2, "categorical": 3}[kind])
    extra = {"min_categories": SBC_CATEGORIES} if kind == "categorical" else {}
    ranks_pi, ranks_ok, ranks_wrong = [], [], []
    for sim in range(SBC_SIMS):
        X, y, pi0, truth = _simulate(kind, rng)
        for alpha, ranks in ((SBC_ALPHA, ranks_ok), (5.0, ranks_wrong)):
            est = MODELS[kind](alpha=alpha, class_alpha=SBC_GAMMA, **extra)
            est.partial_fit(X, y, classes=[0, 1])
            d = posterior_draws(est, draws=SBC_DRAWS, chains=1, random_seed=sim)
            ranks.append(int((_feature_statistic(kind, d["feature_prob"][0]) < truth).sum()))
            if alpha == SBC_ALPHA:
                ranks_pi.append(int((d["class_prior"][0, :, 0] < pi0).sum()))
    assert _uniformity_pvalue(ranks_ok) > 1e-3
    assert _uniformity_pvalue(ranks_pi) > 1e-3
    assert _uniformity_pvalue(ranks_wrong) < 1e-3
