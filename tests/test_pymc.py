"""The PyMC path: declarations equal the closed-form model, NUTS recovers the exact posterior.

NUTS tests are marked ``slow``. Fits are shared through session fixtures and every model of a
given shape is compiled once (bayesnb.inference caches compiled nutpie models), so the file
costs a handful of compilations plus a few seconds of sampling each. The other PyMC functions
(prior and predictive draws, log-densities) are compiled with PyTensor's ``FAST_COMPILE``:
thousands of calls of its Python implementations cost less CPU than compiling each graph with
numba on an empty cache (the cold ``make test`` of a fresh clone).

Tolerances: a NUTS posterior mean must lie within 4 Monte Carlo standard errors of the exact
conjugate mean (two-sided normal tail 6e-5 per parameter, so about 0.5% for the 80 parameters
of the three models together under a correct sampler; seeds are fixed, so a run is
reproducible). 4 chains × 1,000 draws keep R-hat ≤ 1.01 for a correct model.
"""

from __future__ import annotations

import sys
import warnings

import arviz as az
import numpy as np
import pytest
from scipy import stats
from scipy.optimize import minimize_scalar
from scipy.special import gammaln, logsumexp

from bayesnb import BernoulliNB, CategoricalNB, MultinomialNB
from bayesnb.inference import SamplingWarning, _label_log_likelihood, fit_pymc
from bayesnb.pymc_models import declare, model_spec
from tests.pymc_helpers import (
    CHAINS,
    DRAWS,
    TUNE,
    LazyFits,
    evaluate,
    fit_recording_warnings,
    mcse,
    rhat,
)

N_DOCS, N_FEATURES, N_CLASSES = 60, 6, 3
K_CATEGORIES = [2, 3, 3, 2, 3, 3]  # two groups of features: exercises the padded layout
KINDS = ["bernoulli", "multinomial", "categorical"]


# -- data and estimators -----------------------------------------------------------------------
def _data(kind: str, seed: int = 0, n: int = N_DOCS):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n)
    if kind == "bernoulli":
        phi = rng.beta(1.0, 2.0, (N_CLASSES, N_FEATURES))
        X = (rng.random((n, N_FEATURES)) < phi[y]).astype(float)
    elif kind == "multinomial":
        theta = rng.dirichlet(np.ones(N_FEATURES), N_CLASSES)
        X = np.stack([rng.multinomial(rng.integers(3, 15), theta[c]) for c in y]).astype(float)
    else:
        X = np.stack(
            [
                np.array([rng.choice(k, p=rng.dirichlet(np.ones(k))) for k in K_CATEGORIES])
                for _ in range(n)
            ]
        ).astype(float)
        # class-dependent shift so the labels carry information
        X[:, 0] = np.where(y == 0, 0, X[:, 0])
    return X, np.array(["a", "b", "c"])[y]


def _estimator(kind: str):
    if kind == "bernoulli":
        # per-feature Beta(α_j, β_j): the array path of the prior
        return BernoulliNB(
            alpha=[0.5, 1.0, 2.0, 1.0, 1.0, 3.0], beta=[1.0, 1.0, 1.0, 2.0, 0.5, 1.0]
        )
    if kind == "multinomial":
        return MultinomialNB(alpha=1.0)
    return CategoricalNB(alpha=1.0)


def _exact_means(est) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form posterior means of (class_prior, feature_prob) in the DataTree layout."""
    pi = est.class_posterior_.mean()
    flat = est.posterior_.mean()
    if not isinstance(est, CategoricalNB):
        return pi, flat
    k = est.n_categories_
    out = np.full((flat.shape[0], len(k), int(k.max()) + 1), np.nan)
    off = np.concatenate([[0], np.cumsum(k + 1)[:-1]])
    for j, kj in enumerate(k):
        out[:, j, : kj + 1] = flat[:, off[j] : off[j] + kj + 1]
    return pi, out


def _sufficient_fit(kind: str):
    X, y = _data(kind)
    est = _estimator(kind).fit(X, y)
    dt, warned = fit_recording_warnings(est, X, y, log_likelihood=True)
    return est, X, y, dt, warned


@pytest.fixture(scope="session")
def fits():
    """One sufficient-statistic NUTS fit per model (log_likelihood on for LOO)."""
    return LazyFits(_sufficient_fit)


@pytest.fixture(scope="session")
def bernoulli_data_fit():
    """The literal per-document Bernoulli model, through the estimator's own method."""
    X, y = _data("bernoulli")
    est = _estimator("bernoulli").fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        dt = est.fit_pymc(
            X, y, draws=DRAWS, tune=TUNE, chains=CHAINS, random_seed=11, likelihood="data",
            progressbar=False,
        )  # fmt: skip
    return est, X, y, dt, [w for w in caught if issubclass(w.category, SamplingWarning)]


# -- NUTS against the exact posterior ----------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_nuts_means_match_exact_posterior(fits, kind):
    est, _, _, dt, warned = fits[kind]
    assert not warned, [str(w.message) for w in warned]
    exact = dict(zip(["class_prior", "feature_prob"], _exact_means(est), strict=True))
    for var, truth in exact.items():
        draws = dt.posterior[var]
        mean = draws.mean(("chain", "draw")).values
        assert mean.shape == truth.shape
        param = ~np.isnan(truth)
        # padding cells are NaN in both (not parameters)
        np.testing.assert_array_equal(np.isnan(mean), ~param)
        se, r_hat = mcse(dt, var)[param], rhat(dt, var)[param]
        z = np.abs(mean[param] - truth[param]) / se
        assert z.max() < 4.0, f"{var}: max |mean - exact| / MCSE = {z.max():.2f}"
        assert r_hat.max() <= 1.01, f"{var}: max R-hat {r_hat.max():.4f}"


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_nuts_layout_matches_exact_draws(fits, kind):
    """Same variables, dims, coords and NaN padding as the exact conjugate DataTree."""
    est, _, y, dt, _ = fits[kind]
    exact = est.sample_posterior(draws=2, chains=1, random_seed=0)
    assert set(dt.posterior.data_vars) == {"class_prior", "feature_prob"}
    for var in ("class_prior", "feature_prob"):
        a, b = dt.posterior[var], exact.posterior[var]
        assert a.dims == b.dims
        for dim in a.dims[2:]:
            assert list(a[dim].values) == list(b[dim].values), dim
        np.testing.assert_array_equal(np.isnan(a.values[0, 0]), np.isnan(b.values[0, 0]))
    attrs = dt.posterior.attrs
    assert attrs["model"] == type(est).__name__
    assert attrs["estimate"] == "posterior"
    assert attrs["inference_library"] == "nutpie"
    assert attrs["likelihood"] == "sufficient"
    groups = {"posterior", "sample_stats", "observed_data", "constant_data", "log_likelihood"}
    assert groups == set(dt.children)
    assert int(dt.observed_data["class_count"].sum()) == len(y)


@pytest.mark.slow
def test_data_and_sufficient_likelihoods_give_the_same_posterior(fits, bernoulli_data_fit):
    _, _, _, suff, _ = fits["bernoulli"]
    _, _, _, data, warned = bernoulli_data_fit
    assert not warned, [str(w.message) for w in warned]
    assert data.posterior.attrs["likelihood"] == "data"
    assert data["observed_data"]["X"].dims == ("doc", "feature")
    for var in ("class_prior", "feature_prob"):
        m_d = data.posterior[var].mean(("chain", "draw")).values
        m_s = suff.posterior[var].mean(("chain", "draw")).values
        se = np.hypot(mcse(data, var), mcse(suff, var))
        assert np.max(np.abs(m_d - m_s) / se) < 4.0, var
        assert rhat(data, var).max() <= 1.01


# -- the two likelihood forms differ by a constant -------------------------------------------
@pytest.mark.parametrize(
    ("make", "kind", "kwargs"),
    [
        (lambda: BernoulliNB(alpha=[0.5, 1, 2, 1, 1, 3], beta=2.0), "bernoulli", {}),
        (lambda: MultinomialNB(alpha=0.7), "multinomial", {}),
        (lambda: CategoricalNB(alpha=1.5), "categorical", {}),
        (lambda: BernoulliNB(fit_prior=False, class_alpha=0.0), "bernoulli", {}),
        (lambda: MultinomialNB(unk=True), "multinomial", {"alpha_prior": {"alpha": 3.0}}),
        (lambda: CategoricalNB(), "categorical", {"alpha_prior": {}}),
    ],
    ids=["bernoulli", "multinomial", "categorical", "fixed-pi", "unk-hier", "cat-hier"],
)
def test_logp_differences_agree_between_likelihood_forms(make, kind, kwargs):
    """logp_data(p1) - logp_data(p2) == logp_sufficient(p1) - logp_sufficient(p2)."""
    est = make()
    X, y = _data(kind, seed=3)
    if kind == "multinomial":
        X = np.hstack([X, np.zeros((len(y), 2))])  # two never-seen columns (UNK when unk=True)
    m_data = declare(est, X, y, "data", **kwargs)
    m_suff = declare(est, X, y, "sufficient", **kwargs)
    f_data = m_data.compile_logp(mode="FAST_COMPILE")
    f_suff = m_suff.compile_logp(mode="FAST_COMPILE")
    start = m_data.initial_point()
    assert start.keys() == m_suff.initial_point().keys()
    rng = np.random.default_rng(0)
    points = [{k: v + rng.normal(0, 0.7, np.shape(v)) for k, v in start.items()} for _ in range(3)]
    d_data = np.array([f_data(p) for p in points])
    d_suff = np.array([f_suff(p) for p in points])
    assert np.all(np.isfinite(d_data))
    # the log-densities change between points, and both forms change by the same amount
    assert np.ptp(d_data) > 1.0
    np.testing.assert_allclose(np.diff(d_data), np.diff(d_suff), rtol=0, atol=1e-8)


def test_data_form_logp_is_per_document_multinomial():
    """The data form's one log-density over the nonzero cells: per document, scipy's pmf."""
    X, y = _text_data(seed=2)
    X, y = X[:40], y[:40]
    est = MultinomialNB().fit(X, y)
    model = declare(est, X, y, likelihood="data")
    point = model.initial_point()
    point["feature_prob_log_gamma"] = np.random.default_rng(0).normal(0, 1.5, (3, TEXT_WORDS))
    [log_lik] = model.logp(vars=[model["X"]], sum=False)
    f = model.compile_fn(
        log_lik, inputs=model.value_vars, on_unused_input="ignore", mode="FAST_COMPILE"
    )
    got = f(point)
    theta = evaluate(model, "feature_prob", point)
    codes = np.searchsorted(est.classes_, y)
    expected = [
        stats.multinomial.logpmf(x, x.sum(), theta[c]) for x, c in zip(X, codes, strict=True)
    ]
    assert got.shape == (40,)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_collapsed_dirichlet_of_a_learned_alpha_has_dirichlet_moments():
    """A learned α collapses each class's unseen words into one cell: prior draws of θ, the
    unseen cells through the Gamma quantile function in the model and drawn afresh by
    fit_pymc's completion, are Dirichlet(α·1) (α pinned near 0.5 by its hyperprior)."""
    import pymc as pm

    from bayesnb.pymc_models import simplex

    X, y = _text_data(seed=2)
    X, y = X[:40], y[:40]
    est = MultinomialNB().fit(X, y)
    prior = {"alpha": 4e4, "beta": 8e4, "per_class": True}  # α = 0.5 ± 0.0025
    model = declare(est, X, y, alpha_prior=prior)
    seen = est.feature_count_ > 0
    assert 0.1 < seen.mean() < 0.9  # both kinds of cell
    names = ["feature_prob", "feature_prob_log_gamma", "feature_prob_unseen_log_gamma", "alpha"]
    theta, w, u, alpha = pm.draw(
        [model[n] for n in names], draws=2000, random_seed=1, mode="FAST_COMPILE"
    )
    completed = np.exp(
        simplex.collapsed_dirichlet_draws(w, u, alpha, seen, np.random.default_rng(2))
    )
    V = X.shape[1]
    mean, var = 1.0 / V, (1.0 / V) * (1 - 1.0 / V) / (V * 0.5 + 1)
    for draws in (theta, completed):
        np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-12)
        for cells in (seen, ~seen):
            got = draws[:, cells]  # (draws, cells): independent draws, exchangeable cells
            se = np.sqrt(var / got.size) * 3  # the cells of a row are (weakly) correlated
            assert abs(got.mean() - mean) < 5 * se, (got.mean(), mean)
            np.testing.assert_allclose(got.var(), var, rtol=0.1)
    # the unseen cells' total in class c: Beta(m_c α, (V − m_c) α)
    m = (~seen).sum(1)
    total = (theta * ~seen).sum(-1)
    p = m / V
    se = np.sqrt(p * (1 - p) / (V * 0.5 + 1) / len(total))
    np.testing.assert_array_less(np.abs(total.mean(0) - p), 5 * se)


def test_dirichlet_as_normalised_gammas_has_dirichlet_moments():
    """Prior draws of θ through the log-Gamma variates: the Dirichlet(α) mean and variance."""
    import pymc as pm

    X, y = _data("multinomial")
    model = declare(MultinomialNB(alpha=[0.3, 0.5, 1.0, 2.0, 0.1, 4.0]), X, y)
    theta = pm.draw(model["feature_prob"], draws=20000, random_seed=1, mode="FAST_COMPILE")
    theta = theta.reshape(-1, 6)
    a = np.array([0.3, 0.5, 1.0, 2.0, 0.1, 4.0])
    mean, A = a / a.sum(), a.sum()
    var = mean * (1 - mean) / (A + 1)
    # 60,000 draws (3 classes): the sample mean within 5 standard errors; the variance of
    # these skewed components within 10%
    np.testing.assert_array_less(np.abs(theta.mean(0) - mean), 5 * np.sqrt(var / len(theta)))
    np.testing.assert_allclose(theta.var(0), var, rtol=0.1)


def test_auxiliary_variables_are_named_and_left_out_unless_asked():
    X, y = _data("categorical")
    spec = model_spec(CategoricalNB(), X, y)
    assert spec.var_names == ["class_prior", "feature_prob"]
    assert set(spec.auxiliary) == {
        "class_prior_log_gamma",
        "feature_prob_k2_log_gamma",
        "feature_prob_k3_log_gamma",
    }
    free = {v.name for v in spec.model().free_RVs}
    assert free == set(spec.auxiliary)
    full = spec.with_auxiliary()
    assert full.var_names[:2] == spec.var_names and set(full.var_names[2:]) == free
    assert full.key != spec.key  # a compiled model keeps other variables


def test_logp_matches_closed_form_density():
    """The sufficient Bernoulli model's logp is the closed-form log joint density."""
    est = BernoulliNB(alpha=2.0, beta=3.0, class_alpha=1.5)
    X, y = _data("bernoulli", seed=4)
    model = declare(est, X, y)
    point = model.initial_point()
    z = np.log([0.4, 0.9, 1.3])  # log-Gamma variates of the class prior: π = z normalised
    pi = np.exp(z) / np.exp(z).sum()
    phi = np.random.default_rng(1).uniform(0.1, 0.9, (N_CLASSES, N_FEATURES))
    val = {"class_prior_log_gamma": z, "feature_prob_logodds__": np.log(phi / (1 - phi))}
    assert val.keys() == point.keys()
    # the log-density of the values: z_k = log g_k, g_k ~ Gamma(γ, 1), with the Jacobian g_k,
    # the scale S = Σ g tilted by S^N to Gamma(3γ + N, 1) (N documents)
    logp = model.compile_logp(jacobian=False, mode="FAST_COMPILE")(val)
    n_c = np.array([(y == c).sum() for c in ["a", "b", "c"]])
    D = np.stack([X[y == c].sum(0) for c in ["a", "b", "c"]])
    N, A = n_c.sum(), 3 * 1.5
    expected = (
        (stats.gamma.logpdf(np.exp(z), 1.5) + z).sum()
        + N * np.log(np.exp(z).sum())
        + gammaln(A)
        - gammaln(A + N)
        + stats.beta.logpdf(phi, 2.0, 3.0).sum()
        + stats.multinomial.logpmf(n_c, n_c.sum(), pi)
        + stats.binom.logpmf(D, n_c[:, None], phi).sum()
    )
    np.testing.assert_allclose(logp, expected, rtol=1e-10)


# -- declarations --------------------------------------------------------------------------------
def test_fixed_class_prior_is_constant_data():
    X, y = _data("bernoulli")
    for est, expected in [
        (BernoulliNB(fit_prior=False, class_alpha=0.0), np.full(3, 1 / 3)),
        (BernoulliNB(class_prior=[0.2, 0.3, 0.5], class_alpha=0.0), np.array([0.2, 0.3, 0.5])),
    ]:
        model = declare(est, X, y)
        assert [v.name for v in model.free_RVs] == ["feature_prob"]
        np.testing.assert_allclose(model["class_prior"].eval(), expected)


def test_categorical_padding_and_unk_expansion():
    X, y = _data("categorical")
    est = CategoricalNB().fit(X, y)
    model = declare(est, X, y)
    theta = evaluate(model, "feature_prob", model.initial_point())
    k = est.n_categories_
    assert theta.shape == (3, 6, int(k.max()) + 1)
    for j, kj in enumerate(k):
        np.testing.assert_allclose(theta[:, j, : kj + 1].sum(-1), 1.0)
        assert np.all(np.isnan(theta[:, j, kj + 1 :]))
    # MultinomialNB(unk=True): one UNK category repeated in every never-seen column
    Xm, ym = _data("multinomial")
    Xm = np.hstack([Xm, np.zeros((len(ym), 2))])
    est = MultinomialNB(unk=True).fit(Xm, ym)
    model = declare(est, Xm, ym)
    assert list(model.coords["category"])[-1] == "UNK"
    probs = evaluate(model, "feature_prob", model.initial_point())
    assert probs.shape == (3, 8)
    np.testing.assert_array_equal(probs[:, 6], probs[:, 7])
    np.testing.assert_allclose(probs[:, :7].sum(1), 1.0)


def test_integer_sample_weight_repeats_documents():
    X, y = _data("multinomial")
    w = np.arange(len(y)) % 3
    est = MultinomialNB().fit(X, y)
    weighted = model_spec(est, X, y, sample_weight=w)
    rows = np.repeat(np.arange(len(y)), w)
    repeated = model_spec(est, X[rows], y[rows])
    for name, value in repeated.data.items():
        np.testing.assert_array_equal(weighted.data[name], value)
    with pytest.raises(ValueError, match="sample_weight must hold integers"):
        model_spec(est, X, y, sample_weight=np.full(len(y), 0.5))


def test_unfitted_estimator_is_fitted_and_labels_are_checked():
    X, y = _data("bernoulli")
    est = BernoulliNB()
    model = est.to_pymc(X, y, likelihood="data")
    assert list(est.classes_) == ["a", "b", "c"]
    assert model.coords["class"] == ("a", "b", "c")
    with pytest.raises(ValueError, match="not in classes"):
        declare(est, X, np.where(y == "a", "z", y))


def test_errors_name_the_argument():
    X, y = _data("bernoulli")
    with pytest.raises(ValueError, match="class_alpha > 0"):
        declare(BernoulliNB(class_alpha=0.0), X, y)
    with pytest.raises(ValueError, match="class_alpha > 0"):
        fit_pymc(BernoulliNB(class_alpha=0), X, y, progressbar=False)
    est = BernoulliNB().fit(X, y)
    for kwargs, name in [
        ({"draws": 0}, "draws"),
        ({"chains": 0}, "chains"),
        ({"tune": -1}, "tune"),
        ({"likelihood": "documents"}, "likelihood"),
        ({"nuts_sampler": "stan"}, "nuts_sampler"),
    ]:
        with pytest.raises(ValueError, match=name):
            fit_pymc(est, X, y, progressbar=False, **kwargs)
    with pytest.raises(ValueError, match="likelihood"):
        declare(est, X, y, likelihood="full")
    with pytest.raises(ValueError, match="alpha_prior"):
        declare(est, X, y, alpha_prior={"shape": 2.0})
    with pytest.raises(TypeError, match="no PyMC declaration"):
        declare(object(), X, y)


# -- log-likelihood, LOO, posterior predictive ---------------------------------------------------
@pytest.mark.slow
def test_log_likelihood_is_conditional_label_probability(fits):
    est, X, y, dt, _ = fits["bernoulli"]
    ll = dt.log_likelihood["y"]
    assert ll.dims == ("chain", "draw", "doc") and ll.shape == (CHAINS, DRAWS, N_DOCS)
    # brute force at two draws: log π_y + Σ_j log p(x_j | y) - logsumexp over classes
    codes = np.searchsorted(est.classes_, y)
    for chain, draw in [(0, 0), (3, 517)]:
        pi = dt.posterior["class_prior"].values[chain, draw]
        phi = dt.posterior["feature_prob"].values[chain, draw]
        joint = np.log(pi)[None] + (X @ np.log(phi).T + (1 - X) @ np.log1p(-phi).T)
        expected = joint[np.arange(len(y)), codes] - logsumexp(joint, axis=1)
        np.testing.assert_allclose(ll.values[chain, draw], expected, rtol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_loo_runs_on_the_log_likelihood(fits, kind):
    loo = az.loo(fits[kind][3], var_name="y")
    assert np.isfinite(loo.elpd) and loo.n_data_points == N_DOCS
    assert loo.elpd < 0


@pytest.mark.slow
def test_posterior_predictive_on_the_data_model(bernoulli_data_fit):
    import pymc as pm

    est, X, y, dt, _ = bernoulli_data_fit
    model = declare(est, X, y, likelihood="data")
    with model, warnings.catch_warnings():
        # constant_data records the prior: PyMC must see that nothing upstream changed
        warnings.simplefilter("error", pm.exceptions.ImplicitFreezeWarning)
        pp = pm.sample_posterior_predictive(
            dt, random_seed=3, progressbar=False, compile_kwargs={"mode": "FAST_COMPILE"}
        )
    Xp = pp.posterior_predictive["X"]
    assert Xp.dims == ("chain", "draw", "doc", "feature")
    assert Xp.shape == (CHAINS, DRAWS, N_DOCS, N_FEATURES)
    # E[x_ij] under the posterior predictive is E[φ_{y_i j}]
    codes = np.searchsorted(est.classes_, y)
    phi_mean = dt.posterior["feature_prob"].mean(("chain", "draw")).values
    np.testing.assert_allclose(Xp.mean(("chain", "draw")).values, phi_mean[codes], atol=0.04)
    # new documents: swap the data, predict their features given their labels
    Xn, yn = _data("bernoulli", seed=9, n=5)
    with model, warnings.catch_warnings():
        warnings.simplefilter("error", pm.exceptions.ImplicitFreezeWarning)
        pm.set_data(
            {"X_data": Xn.astype(int), "y_data": np.searchsorted(est.classes_, yn)},
            coords={"doc": list(range(5))},
        )
        new = pm.sample_posterior_predictive(
            dt,
            var_names=["X"],
            predictions=True,
            random_seed=4,
            progressbar=False,
            compile_kwargs={"mode": "FAST_COMPILE"},
        )
    assert new.predictions["X"].shape == (CHAINS, DRAWS, 5, N_FEATURES)


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda: MultinomialNB(unk=True), "multinomial"),
        (CategoricalNB, "categorical"),
        (lambda: BernoulliNB(binarize=0.5), "bernoulli"),
    ],
    ids=["unk", "categorical", "binarize"],
)
def test_label_log_likelihood_of_draws_brute_force(make, kind):
    """fit_pymc's log_likelihood (bayesnb.loo's scoring) on given draws, by brute force.

    Covers the paths the NUTS test does not: UNK pooling (feature_prob repeats P(UNK | c) over
    the full columns), the padded categorical layout, binarisation, integer weights (repeated
    documents) and several blocks of draws.
    """
    X, y = _data(kind, seed=3)
    if kind == "multinomial":
        X = np.hstack([X, np.zeros((len(y), 2))])  # never seen: pooled into UNK
    est = make().fit(X, y)
    w = np.arange(len(y)) % 3
    spec = model_spec(est, X, y, sample_weight=w)
    tree = est.sample_posterior(draws=7, chains=2, random_seed=1).posterior
    draws = {name: tree[name].values for name in ("class_prior", "feature_prob")}
    got = _label_log_likelihood(est, spec, draws, max_bytes=5000)
    rows = np.repeat(np.arange(len(y)), w)
    Xr, codes = X[rows], np.searchsorted(est.classes_, y[rows])
    for c, s in np.ndindex(2, 7):
        pi, theta = draws["class_prior"][c, s], draws["feature_prob"][c, s]
        if kind == "multinomial":
            jll = Xr @ np.log(theta).T
        elif kind == "bernoulli":
            Xb = (Xr > 0.5).astype(float)
            jll = Xb @ np.log(theta).T + (1 - Xb) @ np.log1p(-theta).T
        else:
            k = est.n_categories_
            slots = np.minimum(Xr.astype(int), k)  # values never seen: the pooled slot
            jll = sum(np.log(theta[:, j, slots[:, j]]).T for j in range(len(k)))
        joint = np.log(pi) + jll
        expected = joint[np.arange(len(rows)), codes] - logsumexp(joint, axis=1)
        np.testing.assert_allclose(got[c, s], expected, rtol=1e-10, atol=1e-13)


# -- sampler plumbing ------------------------------------------------------------------------
@pytest.mark.slow
def test_compiled_model_is_reused_for_new_data_and_prior(fits, monkeypatch):
    import bayesnb.compiled

    fits["bernoulli"]  # compiles the sufficient Bernoulli model of this shape
    X, y = _data("bernoulli", seed=5, n=500)  # more documents: same sufficient shapes

    def no_compile(*args, **kwargs):
        raise AssertionError("recompiled a model of a cached shape")

    monkeypatch.setattr(bayesnb.compiled, "compile_model", no_compile)
    other_prior = BernoulliNB(alpha=3.0, beta=0.5, class_alpha=2.0).fit(X, y)
    dt, warned = fit_recording_warnings(other_prior, X, y, draws=500, random_seed=1)
    assert not warned, [str(w.message) for w in warned]
    # the new prior and data were used: compare with the exact posterior of *this* estimator
    mean = dt.posterior["feature_prob"].mean(("chain", "draw")).values
    z = np.abs(mean - other_prior.posterior_.mean()) / mcse(dt, "feature_prob")
    assert z.max() < 4.0


@pytest.mark.slow
def test_same_seed_same_draws_and_warning_on_bad_sampling(fits):
    est, X, y, _, _ = fits["bernoulli"]
    kw = {"draws": 30, "tune": 3, "chains": 2, "random_seed": 5, "progressbar": False}
    with pytest.warns(SamplingWarning, match=r"divergent transition\(s\) and \d+ parameter"):
        a = fit_pymc(est, X, y, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        b = fit_pymc(est, X, y, **kw)
    np.testing.assert_array_equal(a.posterior["feature_prob"], b.posterior["feature_prob"])


@pytest.mark.slow
def test_falls_back_to_pymc_nuts_without_nutpie(monkeypatch):
    monkeypatch.setitem(sys.modules, "nutpie", None)  # `import nutpie` raises ImportError
    X, y = _data("bernoulli", seed=2)
    est = BernoulliNB().fit(X, y)
    dt, _ = fit_recording_warnings(est, X, y, draws=500, tune=500, chains=2, cores=1)
    assert dt.posterior.attrs["inference_library"] == "pymc"
    assert set(dt.posterior.data_vars) == {"class_prior", "feature_prob"}
    assert "diverging" in dt.sample_stats
    mean = dt.posterior["feature_prob"].mean(("chain", "draw")).values
    z = np.abs(mean - est.posterior_.mean()) / mcse(dt, "feature_prob")
    assert z.max() < 4.5


# -- simulation-based calibration ----------------------------------------------------------------
SBC_SIMS = 200  # simulations
SBC_DOCS = 20  # documents per simulated data set
SBC_L = 19  # thinned posterior draws per simulation: ranks 0..19
SBC_THIN = 10  # keep every 10th of 190 draws (NUTS autocorrelation is far shorter)
SBC_BINS = 5  # 20 possible ranks in 5 bins of 4: expected 40 per bin


def _sbc_ranks(est, seed: int) -> np.ndarray:
    """Ranks of the true (π_0, φ_00, φ_01, φ_10, φ_11) among the NUTS draws, per simulation.

    Data are simulated from the prior Beta(1, 1) / Dirichlet(1, 1) whatever ``est`` assumes.
    """
    rng = np.random.default_rng(seed)
    ranks = np.empty((SBC_SIMS, 5), dtype=int)
    for s in range(SBC_SIMS):
        pi = rng.dirichlet([1.0, 1.0])
        phi = rng.beta(1.0, 1.0, (2, 2))
        y = rng.choice(2, SBC_DOCS, p=pi)
        X = (rng.random((SBC_DOCS, 2)) < phi[y]).astype(float)
        dt = fit_pymc(
            est, X, y, draws=SBC_L * SBC_THIN, tune=300, chains=1, random_seed=s,
            progressbar=False,
        )  # fmt: skip
        keep = slice(SBC_THIN - 1, None, SBC_THIN)
        draws = np.column_stack(
            [
                dt.posterior["class_prior"].values[0, keep, 0],
                dt.posterior["feature_prob"].values[0, keep].reshape(SBC_L, 4),
            ]
        )
        truth = np.concatenate([[pi[0]], phi.ravel()])
        ranks[s] = (draws < truth).sum(axis=0)
    return ranks


def _uniformity_pvalues(ranks: np.ndarray) -> np.ndarray:
    counts = [np.bincount(r * SBC_BINS // (SBC_L + 1), minlength=SBC_BINS) for r in ranks.T]
    return np.array([stats.chisquare(c).pvalue for c in counts])


@pytest.mark.slow
def test_simulation_based_calibration_bernoulli():
    """Talts et al. (2018): ranks of the truth are uniform for the right prior only.

    200 simulations of 20 documents, 2 classes × 2 features; one compiled nutpie model serves
    all 400 fits (the prior values are data, so the wrong prior re-uses it too).
    """
    # classes are declared up front: a simulation may draw a single class
    dummy = np.array([[0.0, 0.0], [1.0, 1.0]])
    right = BernoulliNB(alpha=1.0, beta=1.0, class_alpha=1.0).partial_fit(dummy, [0, 1])
    wrong = BernoulliNB(alpha=3.0, beta=1.0, class_alpha=1.0).partial_fit(dummy, [0, 1])
    p_right = _uniformity_pvalues(_sbc_ranks(right, seed=0))
    assert p_right.min() > 0.001, p_right
    p_wrong = _uniformity_pvalues(_sbc_ranks(wrong, seed=0))
    # the class prior is still right; every φ is shrunk towards 3/4 and must be caught
    assert p_wrong[0] > 0.001, p_wrong
    assert p_wrong[1:].max() < 0.001, p_wrong


# -- text-like data: fixed α, learned α, one α per class -----------------------------------
TEXT_WORDS, TEXT_DOCS = 500, 150


def _multinomial_log_evidence(alpha, T: np.ndarray) -> np.ndarray:
    """log p(X | y, α_c) of token sequences under θ_c ~ Dirichlet(α_c·1), one per class."""
    V = T.shape[1]
    alpha = np.broadcast_to(alpha, (T.shape[0],))
    return (
        gammaln(V * alpha)
        - gammaln(T.sum(1) + V * alpha)
        + (gammaln(T + alpha[:, None]) - gammaln(alpha[:, None])).sum(1)
    )


def _text_data(seed: int = 21):
    """150 documents of a few to a hundred tokens over 500 Zipfian words, 3 classes.

    The class word distributions scatter around one Zipf law, so most (class, word) cells are
    never seen (the boundary of the simplex, where PyMC's own Dirichlet makes NUTS diverge).
    """
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, TEXT_WORDS + 1) ** 1.1
    theta = rng.dirichlet(300.0 * base / base.sum() + 1e-3, 3)
    y = rng.integers(0, 3, TEXT_DOCS)
    lengths = np.maximum(1, rng.lognormal(np.log(20.0), 0.8, TEXT_DOCS).astype(int))
    X = np.stack([rng.multinomial(n, theta[c]) for n, c in zip(lengths, y, strict=True)])
    return X.astype(float), np.array(["a", "b", "c"])[y]


def _hierarchical_data():
    return _text_data()


TEXT_PRIORS = {
    "fixed": {},
    "learned": {"alpha_prior": {}},
    "per_class": {"alpha_prior": {"alpha": 3.0, "beta": 2.0, "per_class": True}},
}


def _text_fit(name: str):
    X, y = _text_data()
    est = MultinomialNB(alpha=1.0).fit(X, y)
    dt, warned = fit_recording_warnings(est, X, y, random_seed=3, **TEXT_PRIORS[name])
    return est, X, y, dt, warned


@pytest.fixture(scope="session")
def text_fits():
    """Sufficient-form NUTS fits on the text-like data: α = 1, a learned α, one α per class,
    all at fit_pymc's default 4 × (1,000 + 1,000)."""
    return LazyFits(_text_fit)


def _min_bulk_ess(dt) -> float:
    post = dt["posterior"].to_dataset()
    return min(float(az.ess(post[[v]], method="bulk")[v].min()) for v in post.data_vars)


def _healthy(dt, warned) -> None:
    assert not warned, [str(w.message) for w in warned]
    assert int(dt.sample_stats["diverging"].sum()) == 0


@pytest.mark.slow
def test_text_data_is_sparse_and_nuts_matches_the_exact_posterior(text_fits):
    est, _, _, dt, warned = text_fits["fixed"]
    assert est.feature_count_.shape == (3, TEXT_WORDS)
    assert np.mean(est.feature_count_ == 0) > 0.6  # most cells never seen in their class
    _healthy(dt, warned)
    for var, truth in zip(["class_prior", "feature_prob"], _exact_means(est), strict=True):
        mean = dt.posterior[var].mean(("chain", "draw")).values
        z = np.abs(mean - truth) / mcse(dt, var)
        assert z.max() < 4.5, f"{var}: max |mean - exact| / MCSE = {z.max():.2f}"
        assert rhat(dt, var).max() <= 1.01
    # the posterior sd too: that of the exact Dirichlet(1 + T_c), within 10%
    counts = est.feature_count_ + 1.0
    p = counts / counts.sum(1, keepdims=True)
    sd = np.sqrt(p * (1 - p) / (counts.sum(1, keepdims=True) + 1))
    got = dt.posterior["feature_prob"].std(("chain", "draw")).values
    np.testing.assert_allclose(got, sd, rtol=0.1)
    assert set(dt.posterior.data_vars) == {"class_prior", "feature_prob"}  # no auxiliaries


@pytest.fixture(scope="session")
def hierarchical_fit(text_fits):
    return text_fits["learned"]


@pytest.mark.slow
def test_hierarchical_alpha_matches_evidence(hierarchical_fit):
    est, _, _, dt, warned = hierarchical_fit
    _healthy(dt, warned)
    assert _min_bulk_ess(dt) >= 400
    assert set(dt.posterior.data_vars) == {"alpha", "class_prior", "feature_prob"}
    alpha = dt.posterior["alpha"]
    assert alpha.dims == ("chain", "draw")
    assert rhat(dt, "alpha") <= 1.01
    assert dt.posterior.attrs["alpha_prior"] == "Gamma(2.0, 1.0)"
    T = est.feature_count_

    # The evidence maximiser lies inside the central 90% posterior interval of α.
    best = minimize_scalar(
        lambda log_a: -_multinomial_log_evidence(np.exp(log_a), T).sum(),
        bounds=(-6, 6),
        method="bounded",
        options={"xatol": 1e-8},
    )
    a_hat = float(np.exp(best.x))
    lo, hi = np.quantile(alpha.values, [0.05, 0.95])
    assert lo < a_hat < hi, (a_hat, lo, hi)

    # Exact check: the marginal posterior of α is Gamma(2, 1) × evidence(α); its mean on a
    # fine grid must equal the NUTS mean within 4 MCSE.
    grid = np.linspace(1e-3, 5 * hi, 20000)
    log_post = stats.gamma.logpdf(grid, 2.0, scale=1.0) + np.array(
        [_multinomial_log_evidence(a, T).sum() for a in grid]
    )
    w = np.exp(log_post - log_post.max())
    exact_mean = float(np.sum(grid * w) / np.sum(w))
    z = abs(float(alpha.mean()) - exact_mean) / float(mcse(dt, "alpha"))
    assert z < 4.0, (float(alpha.mean()), exact_mean, z)


@pytest.mark.slow
def test_one_alpha_per_class_matches_each_class_evidence(text_fits):
    """α_c ~ Gamma(3, 2) per class: each marginal posterior is Gamma(3, 2) × evidence_c(α_c),
    and E[θ_cj] = E[(α_c + T_cj) / (T_c + V α_c)] under it, the unseen cells (drawn after
    sampling from their exact conditional) included."""
    est, _, _, dt, warned = text_fits["per_class"]
    _healthy(dt, warned)
    assert _min_bulk_ess(dt) >= 400
    alpha = dt.posterior["alpha"]
    assert alpha.dims == ("chain", "draw", "class")
    assert list(alpha["class"].values) == ["a", "b", "c"]
    assert dt.posterior.attrs["alpha_prior"] == "Gamma(3.0, 2.0) per class"
    np.testing.assert_array_equal(dt.constant_data["alpha_shape"], 3.0)
    grid = np.linspace(1e-3, 3.0 * float(alpha.max()), 20000)
    log_ev = np.array([_multinomial_log_evidence(a, est.feature_count_) for a in grid])
    log_post = stats.gamma.logpdf(grid, 3.0, scale=0.5)[:, None] + log_ev
    w = np.exp(log_post - log_post.max(0))
    exact = (grid[:, None] * w).sum(0) / w.sum(0)
    z = np.abs(alpha.mean(("chain", "draw")).values - exact) / mcse(dt, "alpha")
    assert z.max() < 4.0, (alpha.mean(("chain", "draw")).values, exact)
    assert rhat(dt, "alpha").max() <= 1.01
    assert rhat(dt, "feature_prob").max() <= 1.01
    T = est.feature_count_
    a, wa = grid[::10, None, None], w[::10]  # a coarser grid: E[θ | α] is smooth in α
    cell_mean = (a + T) / (T.sum(1)[:, None] + T.shape[1] * a)  # (grid, class, word)
    exact_theta = np.einsum("gc,gcv->cv", wa, cell_mean) / wa.sum(0)[:, None]
    mean = dt.posterior["feature_prob"].mean(("chain", "draw")).values
    z = np.abs(mean - exact_theta) / mcse(dt, "feature_prob")
    assert z.max() < 4.5, z.max()
    assert np.all(mean[T == 0] > 0)


@pytest.mark.slow
def test_new_hyperprior_values_reuse_the_compiled_model(text_fits, monkeypatch):
    import bayesnb.compiled

    est, X, y, _, _ = text_fits["per_class"]

    def no_compile(*args, **kwargs):
        raise AssertionError("recompiled for new hyperprior values")

    monkeypatch.setattr(bayesnb.compiled, "compile_model", no_compile)
    prior = {"alpha": 1.5, "beta": 0.5, "per_class": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # 2 × 50 draws: too few for R-hat
        dt = fit_pymc(est, X, y, draws=50, tune=50, chains=2, alpha_prior=prior, progressbar=False)
    np.testing.assert_array_equal(dt.constant_data["alpha_shape"], 1.5)
    np.testing.assert_array_equal(dt.constant_data["alpha_rate"], 0.5)


def test_evidence_maximiser_agrees_with_bayesnb_evidence():
    """The test's own evidence maximiser equals MultinomialNB(alpha="evidence").alpha_."""
    X, y = _hierarchical_data()
    est = MultinomialNB(alpha="evidence").fit(X, y)
    best = minimize_scalar(
        lambda log_a: -_multinomial_log_evidence(np.exp(log_a), est.feature_count_).sum(),
        bounds=(-6, 6),
        method="bounded",
        options={"xatol": 1e-10},
    )
    np.testing.assert_allclose(est.alpha_, np.exp(best.x), rtol=1e-4)


@pytest.mark.slow
def test_compare_scores_a_nuts_fit_by_psis_loo(fits):
    """compare(posteriors=...) scores the NUTS draws as fit_pymc's own log_likelihood does."""
    from bayesnb.comparison import compare
    from bayesnb.loo import psis_loo
    from bayesnb.model_selection import elpd_loo

    est, X, y, dt, _ = fits["multinomial"]
    tree = est.label_log_likelihood(X, y, posterior=dt)
    np.testing.assert_allclose(
        tree["log_likelihood"]["y"].values, dt.log_likelihood["y"].values, rtol=1e-10, atol=1e-13
    )
    ests = {"nuts": MultinomialNB(alpha=1.0), "exact": MultinomialNB(alpha=1.0, estimate="bayes")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Pareto k, counted below
        ds = compare(ests, X, y, X[:10], y[:10], posteriors={"nuts": dt})
        loo = psis_loo(dt)  # the fit's own log_likelihood group
    assert list(ds.loo_method.values) == ["psis", "exact"]
    assert float(ds.elpd_loo.sel(name="nuts")) == pytest.approx(loo.elpd, rel=1e-10)
    assert float(ds.elpd_loo_se.sel(name="nuts")) == pytest.approx(loo.se, rel=1e-10)
    assert float(ds.pareto_k_bad.sel(name="nuts")) == np.sum(loo.pareto_k.values > loo.good_k)
    exact = elpd_loo(ests["exact"], X, y)
    assert float(ds.elpd_loo.sel(name="exact")) == exact.elpd
    # 60 documents, 6 features: PSIS over NUTS lands within one standard error of exact.
    assert abs(loo.elpd - exact.elpd) < exact.se


@pytest.mark.slow
def test_az_compare_takes_psis_loo_of_nuts_beside_exact_loo(fits):
    """arviz.compare ranks a NUTS fit's PSIS-LOO and exact LOO results of the same labels."""
    import matplotlib

    from bayesnb.loo import psis_loo
    from bayesnb.model_selection import elpd_loo

    matplotlib.use("Agg")
    _, X, y, dt, _ = fits["multinomial"]
    loos = {e: elpd_loo(MultinomialNB(alpha=1.0, estimate=e), X, y) for e in ("mean", "bayes")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Pareto k, read below
        loos["nuts"] = psis_loo(dt)
    assert {r.n_data_points for r in loos.values()} == {N_DOCS}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cmp = az.compare(loos, round_to="none")
    assert not caught, [str(w.message) for w in caught]  # both kinds are "loo": no K-fold note
    best = np.ravel(loos[cmp.index[0]].elpd_i)
    for name, res in loos.items():
        diff = np.ravel(res.elpd_i) - best
        assert cmp.loc[name, "elpd_diff"] == pytest.approx(diff.sum(), abs=1e-10)
        assert cmp.loc[name, "dse"] == pytest.approx(np.sqrt(diff.size * np.var(diff)), abs=1e-10)
    k_bad = int(np.sum(loos["nuts"].pareto_k.values > loos["nuts"].good_k))
    assert cmp.loc["nuts", "diag_elpd"] == (
        f"{k_bad} k̂ > {loos['nuts'].good_k:.2f}" if k_bad else ""
    )
    assert cmp.loc["bayes", "diag_elpd"] == cmp.loc["mean", "diag_elpd"] == ""
    assert cmp["weight"].sum() == pytest.approx(1.0, abs=1e-9)
    # PSIS over the NUTS draws estimates the exact full-Bayes LOO, document by document.
    gap = np.ravel(loos["nuts"].elpd_i) - loos["bayes"].pointwise
    assert np.abs(gap).max() < 0.05 and abs(gap.sum()) < 0.2 * loos["bayes"].se
    fig = az.plot_compare(cmp).get_viz("figure")
    assert {t.get_text() for t in fig.axes[0].get_yticklabels()} <= set(loos)
    matplotlib.pyplot.close(fig)
