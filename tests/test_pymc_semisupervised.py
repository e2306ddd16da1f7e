"""The PyMC declaration of SemiSupervisedNB: unlabelled documents with their labels summed out.

One tiny model shape per family (2 classes, 4 features, 10 labelled + 20 unlabelled
documents). The Potential ``unlabelled_loglik`` is checked against scipy at a random point for
every family with variational Bayes; NUTS on the marginalised model is the yardstick for VB.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import bayesnb as bnb
from bayesnb.draws import posterior_summary
from bayesnb.pymc_models import declare, model_spec
from tests.pymc_helpers import LazyFits, fit_recording_warnings, mcse

N_LAB, N_UNL, LAM = 10, 20, 0.7
THETA = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])


def _data(kind: str, seed: int = 0):
    """(X, y with -1 for the unlabelled rows, the true classes) of a tiny two-class corpus."""
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(N_LAB) % 2, rng.integers(0, 2, N_UNL)]
    y = np.r_[z[:N_LAB], np.full(N_UNL, -1)]
    if kind in ("multinomial", "columnwise"):
        X = np.array([rng.multinomial(8, THETA[c]) for c in z], dtype=np.float64)
        if kind == "columnwise":
            X = np.hstack([X, rng.normal(size=(len(z), 2)) + 2.0 * z[:, None]])
    elif kind == "bernoulli":
        X = (rng.random((len(z), 4)) < 1.5 * THETA[z]).astype(np.float64)
    elif kind == "poisson":
        X = rng.poisson(10.0 * THETA[z]).astype(np.float64)
    elif kind == "categorical":
        X = rng.integers(0, 3, (len(z), 4)) * (1 + z[:, None]) // 2
        X[:, 0] = np.minimum(X[:, 0], 1)  # k_j = 2 and 3: two groups of Dirichlets
    elif kind == "gda_diagonal":  # independent columns: the diagonal model's own data
        X = rng.normal(size=(len(z), 2)) * np.array([1.0, 0.7]) + 2.0 * z[:, None]
    else:  # gda_shared, gda_per_class
        X = rng.normal(size=(len(z), 2)) @ np.array([[1.0, 0.4], [0.0, 0.7]]) + 2.0 * z[:, None]
    return X, y, z


def _estimator(kind: str):
    if kind == "multinomial":
        return bnb.MultinomialNB(alpha=1.0)
    if kind == "bernoulli":
        return bnb.BernoulliNB(alpha=1.0)
    if kind == "poisson":
        return bnb.PoissonNB()
    if kind == "categorical":
        return bnb.CategoricalNB()
    if kind == "columnwise":
        return bnb.ColumnwiseNB(
            [("words", bnb.MultinomialNB(), [0, 1, 2, 3]), ("real", bnb.GDA("diagonal"), [4, 5])]
        )
    return bnb.GDA(covariance=kind.removeprefix("gda_"))


def _reference_jll(kind: str, est, X, values: dict) -> np.ndarray:
    """log p(x_i | θ_c) of every document and class with scipy, from the layout variables."""
    classes = range(values["class_prior"].shape[-1])
    if kind == "multinomial":
        theta = values["feature_prob"]
        return np.array(
            [[stats.multinomial.logpmf(x, x.sum(), theta[c]) for c in classes] for x in X]
        )
    if kind == "bernoulli":
        phi = values["feature_prob"]
        return np.array([[stats.bernoulli.logpmf(x, phi[c]).sum() for c in classes] for x in X])
    if kind == "poisson":
        lam = values["feature_rate"]
        return np.array([[stats.poisson.logpmf(x, lam[c]).sum() for c in classes] for x in X])
    if kind == "categorical":
        theta, k = values["feature_prob"], est.n_categories_
        slot = np.minimum(X.astype(int), k)
        cols = np.arange(X.shape[1])
        return np.array([[np.log(theta[c, cols, s]).sum() for c in classes] for s in slot])
    if kind == "columnwise":
        words = {"feature_prob": values["words::feature_prob"]} | values
        real = {"mean": values["real::mean"], "cov": values["real::cov"]} | values
        return _reference_jll("multinomial", None, X[:, :4], words) + _reference_jll(
            "gda_per_class", None, X[:, 4:], real
        )
    mean, cov = values["mean"], values["cov"]
    cov = np.broadcast_to(cov, (len(mean), *cov.shape[-2:]))
    return np.array([stats.multivariate_normal.logpdf(X, mean[c], cov[c]) for c in classes]).T


LAYOUT = {
    "multinomial": ["feature_prob"],
    "bernoulli": ["feature_prob"],
    "poisson": ["feature_rate"],
    "categorical": ["feature_prob"],
    "columnwise": ["words::feature_prob", "real::mean", "real::cov"],
}
KINDS = [*LAYOUT, "gda_shared", "gda_per_class", "gda_diagonal"]


def _semi(kind: str, weight=LAM):
    X, y, _ = _data(kind)
    w = np.r_[np.ones(N_LAB), np.linspace(0.5, 1.5, N_UNL)]
    semi = bnb.SemiSupervisedNB(_estimator(kind), unlabelled_weight=weight, inference="vb")
    return semi.fit(X, y, sample_weight=w), X, y, w


def _evaluate(model, names: list, point: dict) -> dict:
    """The model variables ``names`` (and ``"logp"``, the model's log density) at ``point``,
    compiled once."""
    outs = [model.logp() if n == "logp" else model[n] for n in names]
    outs = model.replace_rvs_by_values(outs)  # compile_fn alone would draw the RVs
    f = model.compile_fn(
        outs, inputs=model.value_vars, on_unused_input="ignore", mode="FAST_COMPILE"
    )
    return dict(zip(names, f(point), strict=True))


def _point(model, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    return {k: v + 0.3 * rng.normal(size=np.shape(v)) for k, v in model.initial_point().items()}


@pytest.mark.parametrize("kind", KINDS)
def test_unlabelled_term_is_the_weighted_log_marginal_of_each_document(kind):
    """unlabelled_loglik = λ Σ_i w_i logsumexp_c(log π_c + log p(x_i | θ_c)), with scipy's
    densities (normalising constants included) at a random point."""
    semi, X, y, w = _semi(kind)
    model = declare(semi, X, y, sample_weight=w)
    point = _point(model)
    names = ["class_prior", *LAYOUT.get(kind, ["mean", "cov"])]
    values = _evaluate(model, [*names, "unlabelled_loglik"], point)
    jll = _reference_jll(kind, semi.estimator_, X[N_LAB:], values)
    expected = LAM * np.dot(w[N_LAB:], logsumexp(jll + np.log(values["class_prior"]), axis=1))
    assert float(values["unlabelled_loglik"]) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("likelihood", ["sufficient", "data"])
def test_model_log_density_is_the_labelled_model_plus_the_unlabelled_term(likelihood):
    """The whole log density: the labelled model's (prior and labelled likelihood, the
    declaration checked against the closed form by test_pymc) plus the marginal of every
    unlabelled document, at a random point, with either likelihood form."""
    semi, X, y, w = _semi("multinomial")
    model = declare(semi, X, y, likelihood, sample_weight=w)
    labelled = declare(semi.estimator_, X[:N_LAB], y[:N_LAB], likelihood)
    point = _point(model)
    values = _evaluate(model, ["class_prior", "feature_prob", "logp"], point)
    jll = _reference_jll("multinomial", None, X[N_LAB:], values)
    term = LAM * np.dot(w[N_LAB:], logsumexp(jll + np.log(values["class_prior"]), axis=1))
    base = labelled.compile_logp(mode="FAST_COMPILE")(point)
    assert values["logp"] == pytest.approx(base + term, rel=1e-10)


@pytest.mark.parametrize("weight", [1.0, 0.0])
def test_without_unlabelled_documents_the_declaration_is_the_estimators(weight):
    """No unlabelled row, or λ = 0: the labelled model itself (the same cache key, hence the
    same compiled model and the same seeded draws), no Potential."""
    X, y, _ = _data("multinomial")
    inner = bnb.MultinomialNB(alpha=1.0)
    if weight:
        semi = bnb.SemiSupervisedNB(inner, unlabelled_weight=weight, inference="vb")
        semi.fit(X[:N_LAB], y[:N_LAB])
        spec = model_spec(semi, X[:N_LAB], y[:N_LAB])
    else:
        semi = bnb.SemiSupervisedNB(inner, unlabelled_weight=0.0, inference="vb").fit(X, y)
        spec = model_spec(semi, X, y)
    base = model_spec(bnb.MultinomialNB(alpha=1.0), X[:N_LAB], y[:N_LAB])
    assert spec.key == base.key
    assert spec.data.keys() == base.data.keys()
    assert all(np.array_equal(spec.data[k], base.data[k]) for k in base.data)
    assert spec.build is base.build
    assert spec.model().potentials == []


def test_a_family_without_the_unlabelled_term_says_so():
    """The DCM (EM only, no VB) has no per-document term for the declaration."""
    X, y, _ = _data("multinomial")
    semi = bnb.SemiSupervisedNB(bnb.DirichletCompoundNB(estimate="map"), max_iter=2, tol=1e9)
    with pytest.raises(TypeError, match=r"DirichletCompoundNB .*unlabelled documents"):
        model_spec(semi.fit(X, y), X, y)


def test_alpha_prior_with_unlabelled_documents_is_refused():
    semi, X, y, _ = _semi("multinomial")
    with pytest.raises(ValueError, match="alpha_prior is not supported with unlabelled"):
        model_spec(semi, X, y, alpha_prior={})


# -- VB against NUTS -----------------------------------------------------------------------
def _nuts(kind: str):
    X, y, _ = _data(kind)
    semi = bnb.SemiSupervisedNB(_estimator(kind), inference="vb").fit(X, y)
    dt, warned = fit_recording_warnings(semi, X, y, log_likelihood=True)
    return semi, dt, warned


@pytest.fixture(scope="session")
def nuts_fits():
    return LazyFits(_nuts)


#: Mean-field bias allowed in a posterior mean, in NUTS posterior sds: 1.5 × the largest gap
#: measured on these data (see the test below), rounded.
BIAS_SD = {
    "multinomial": 0.15,
    "bernoulli": 0.5,
    "poisson": 0.12,
    "categorical": 0.7,
    "gda_diagonal": 0.4,
    "columnwise": 0.3,
}


def _summaries(kind: str, est) -> list[tuple[str | None, str, object]]:
    """(child of the tree or None for the root, variable, closed-form summary) of every
    variable of ``est``'s layout: a ColumnwiseNB's blocks are children, each summarised by
    its own block, the one class prior at the root."""
    if kind != "columnwise":
        summary = posterior_summary(est)
        return [(None, var, summary) for var in summary.data_vars]
    blocks = {name: posterior_summary(block) for name, block in est.named_estimators_.items()}
    return [(None, "class_prior", blocks["words"])] + [
        (name, var, blocks[name])
        for name, var in (("words", "feature_prob"), ("real", "mean"), ("real", "cov"))
    ]


def _pooled_slots(est, shape) -> np.ndarray:
    """The cells of CategoricalNB's ``feature_prob`` that are its pooled unseen slots."""
    k = np.asarray(est.n_categories_)
    return np.broadcast_to(np.arange(shape[-1]) == k[:, None], shape)


@pytest.mark.parametrize("kind", [*BIAS_SD])
def test_vb_means_agree_with_nuts_and_vb_is_under_dispersed(nuts_fits, kind):
    """VB's q(θ) against NUTS on the marginalised model (λ = 1, 4 × 1,000 draws).

    Tolerance per cell: |E_VB − E_NUTS| ≤ 4 MCSE + b · sd_NUTS, the Monte Carlo error of the
    NUTS mean plus the mean-field bias b (:data:`BIAS_SD`). The bias is no Monte Carlo
    effect (the Bernoulli test below finds NUTS on the exact posterior within 4 MCSE):
    q(θ, z) = q(θ) Π q(z_i) drops the coupling between each unlabelled label and θ, and
    the coordinate ascent pushes the responsibilities towards the class they lean to, so the
    class means move apart, by a fraction of the posterior sd that grows with the label
    uncertainty. Measured, largest gap over the cells (in sd, and in MCSE): multinomial
    (8 tokens a document) 0.11 (6); Bernoulli (4 weak binary features) 0.34 (22); Poisson
    (rates 10θ, well apart) 0.08 (6); categorical (one class uniform over 3 values, the other
    2:1 over 2: the labels least certain) 0.48 (27); GDA diagonal (means 2 and 2.9 sd apart)
    0.27 (12); ColumnwiseNB 0.21 (13, its GDA block's cov). The unlabelled documents move
    the posterior: the labelled-only posterior means miss the NUTS means by more than this
    tolerance somewhere, by 1.6× (Bernoulli) to 11× (Poisson) its largest cell.

    VB's sds are smaller: the exact posterior mixes over the labellings of the unlabelled
    documents, each shifting θ, while q(θ) is the conjugate posterior of one soft labelling,
    the responsibilities counted as if they were observed counts. Asserted per cell up to
    the Monte Carlo error of the NUTS sd (4 MCSE of the sd: 5-11 % of it, 46 % for the
    heavy-tailed GDA variance of the fewest documents): where the labels are nearly certain
    the two sds are that close. Measured sd ratio VB / NUTS:
    multinomial 0.76-0.90 (class prior 0.68); Bernoulli 0.72-0.85 (0.68); Poisson
    0.91-0.99 (0.95); categorical 0.65-0.94 (0.64); GDA diagonal 0.60-0.98 (0.91);
    ColumnwiseNB 0.82-0.98 (0.92). Not for CategoricalNB's pooled unseen slots (no
    observation in any class): their sd is set by the documents in the class alone, and VB
    gives the class it shrinks fewer (11.9 against the 13.6 of the NUTS mean of π), so
    there VB's sd is 1.00-1.07 of NUTS', up to 3.2 MCSE above it.
    """
    semi, dt, warned = nuts_fits[kind]
    assert not warned
    assert int(dt["sample_stats"]["diverging"].sum()) == 0
    assert dt["posterior"].attrs["n_unlabelled"] == N_UNL
    assert dt["posterior"].attrs["unlabelled_weight"] == 1.0
    X, y, _ = _data(kind)
    labelled = _estimator(kind)  # the posterior without the unlabelled documents
    if kind == "categorical":  # on the categories the unlabelled documents add
        labelled.set_params(min_categories=semi.estimator_.n_categories_)
    labelled.fit(X[:N_LAB], y[:N_LAB])
    moved = []
    for (node, var, vb), (_, _, lab) in zip(
        _summaries(kind, semi.estimator_), _summaries(kind, labelled), strict=True
    ):
        tree = dt if node is None else dt[node]
        draws = tree["posterior"][var]
        mean, sd = (draws.mean(("chain", "draw")).values, draws.std(("chain", "draw")).values)
        vb_mean, vb_sd = (vb[var].sel(summary=s).values for s in ("mean", "sd"))
        # NaN padding (CategoricalNB) and the structural zeros of the diagonal cov are no
        # parameters: equal in both
        cell = sd > 0
        np.testing.assert_array_equal(vb_mean[~cell], mean[~cell])
        tol = 4 * mcse(tree, var) + BIAS_SD[kind] * sd
        assert np.all(np.abs(vb_mean - mean)[cell] <= tol[cell])
        under = cell
        if kind == "categorical" and var == "feature_prob":
            under = cell & ~_pooled_slots(semi.estimator_, sd.shape)
        sd_tol = sd + 4 * mcse(tree, var, "sd")
        assert np.all(vb_sd[under] <= sd_tol[under])
        lab_mean = lab[var].sel(summary="mean").values
        moved.append(np.max(np.abs(lab_mean - mean)[cell] / tol[cell]))
    assert max(moved) > 1.0


def _enumerated_bernoulli_means(X, y) -> tuple[np.ndarray, np.ndarray]:
    """The exact posterior means of φ and π (Beta(1, 1), Dirichlet(1, 1), λ = 1): a mixture
    over all 2^20 labellings of the unlabelled documents, each weighted by its closed-form
    evidence, of the conjugate posterior means. Labellings that put the same number of each
    distinct binary document in class 1 have the same statistics: they are enumerated once,
    weighted by their number (a product of binomial coefficients)."""
    from itertools import product

    from scipy.special import betaln, gammaln

    Xl, yl, Xu = X[:N_LAB], y[:N_LAB], X[N_LAB:]
    patterns, n_p = np.unique(Xu, axis=0, return_counts=True)
    m = np.array(list(product(*(range(n + 1) for n in n_p))), dtype=np.float64)
    N = np.array([np.sum(yl == c) for c in (0, 1)])
    k = np.array([Xl[yl == c].sum(axis=0) for c in (0, 1)])
    Nc = np.stack([N[0] + N_UNL - m.sum(1), N[1] + m.sum(1)], axis=1)
    k1 = m @ patterns
    kc = np.stack([k[0] + Xu.sum(axis=0) - k1, k[1] + k1], axis=1)
    log_w = np.sum(gammaln(n_p + 1.0) - gammaln(m + 1.0) - gammaln(n_p - m + 1.0), axis=1)
    log_w += gammaln(1.0 + Nc).sum(1) + betaln(1.0 + kc, 1.0 + Nc[..., None] - kc).sum((1, 2))
    w = np.exp(log_w - logsumexp(log_w))
    phi = np.einsum("s,scj->cj", w, (1.0 + kc) / (2.0 + Nc[..., None]))
    return phi, w @ ((1.0 + Nc) / (2.0 + N_LAB + N_UNL))


def test_nuts_on_the_marginalised_model_is_the_exact_posterior(nuts_fits):
    """NUTS means of the Bernoulli model within 4 MCSE of the exact posterior means,
    enumerated over every labelling of the 20 unlabelled documents: the yardstick itself is
    right (and VB's gap above is its bias)."""
    _, dt, _ = nuts_fits["bernoulli"]
    X, y, _ = _data("bernoulli")
    phi, pi = _enumerated_bernoulli_means(X, y)
    post = dt["posterior"]
    for var, exact in (("feature_prob", phi), ("class_prior", pi)):
        mean = post[var].mean(("chain", "draw")).values
        assert np.all(np.abs(mean - exact) <= 4 * mcse(dt, var))


def test_log_likelihood_scores_the_labelled_documents(nuts_fits):
    """``log_likelihood/y``: log p(y_i | x_i, θ) of the labelled documents only, at every draw
    (here one draw, against numpy's softmax of log π_c + Σ_j x_ij log θ_cj)."""
    _, dt, _ = nuts_fits["multinomial"]
    X, y, _ = _data("multinomial")
    ll = dt["log_likelihood"]["y"]
    assert ll.sizes["doc"] == N_LAB
    post = dt["posterior"]
    pi, theta = (post[v].values[1, 7] for v in ("class_prior", "feature_prob"))
    joint = np.log(pi) + X[:N_LAB] @ np.log(theta).T
    expected = (joint - logsumexp(joint, axis=1, keepdims=True))[np.arange(N_LAB), y[:N_LAB]]
    np.testing.assert_allclose(ll.values[1, 7], expected, rtol=1e-10)


def test_fit_pymc_takes_the_semisupervised_estimator_unfitted():
    """An unfitted SemiSupervisedNB is fitted first; the layout is its estimator's."""
    X, y, _ = _data("multinomial")
    semi = bnb.SemiSupervisedNB(bnb.MultinomialNB(alpha=1.0), inference="vb")
    spec = model_spec(semi, X, y)
    assert hasattr(semi, "estimator_")
    assert spec.extra["unlabelled"] == (N_UNL, 1.0)
    np.testing.assert_array_equal(spec.data["unlabelled_weight"], np.ones(N_UNL))


def test_a_weight_chosen_by_cross_validation_is_the_one_declared():
    """unlabelled_weight="cv" declares the λ its fit chose: the same specification (data and
    key) as the weight given as that number."""
    X, y, _ = _data("multinomial")
    X2, y2, _ = _data("multinomial", seed=1)
    X, y = np.vstack([X, X2]), np.r_[y, y2]
    w = np.r_[np.ones(N_LAB), np.linspace(0.5, 1.5, N_UNL)]
    w = np.r_[w, w]
    kw = {"inference": "vb", "cv": 3}
    chosen = bnb.SemiSupervisedNB(_estimator("multinomial"), unlabelled_weight="cv", **kw)
    chosen.fit(X, y, sample_weight=w)
    lam = chosen.unlabelled_weight_
    assert lam in chosen.loo_curve_["unlabelled_weight"] and lam > 0
    fixed = bnb.SemiSupervisedNB(_estimator("multinomial"), unlabelled_weight=lam, **kw)
    got = model_spec(chosen, X, y, sample_weight=w)
    want = model_spec(fixed.fit(X, y, sample_weight=w), X, y, sample_weight=w)
    assert got.key == want.key and got.data.keys() == want.data.keys()
    for name in want.data:
        np.testing.assert_array_equal(got.data[name], want.data[name])
    np.testing.assert_allclose(got.data["unlabelled_weight"], lam * w[y == -1], rtol=1e-15)
