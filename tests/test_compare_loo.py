"""compare()'s leave-one-out column: exact for closed-form estimates, PSIS-LOO for posteriors.

The exact ELPD is checked three ways: against :func:`bayesnb.model_selection.elpd_loo`, and
against the brute-force sum over refits without each document (scikit-learn ``clone`` +
``fit``), to 1e-10. The PSIS path takes a tree of posterior draws (here exact draws from
``sample_posterior``; ``tests/test_pymc.py`` passes a NUTS fit).
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

import bayesnb as bnb
from bayesnb.comparison import LOO_METHODS, METRICS, all_estimates, compare
from bayesnb.loo import psis_loo
from bayesnb.model_selection import elpd_loo

N = 30


def _counts(seed: int = 0, n: int = N):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    rates = np.array([[2.0, 0.4, 1.0], [0.4, 2.0, 1.0], [1.0, 1.0, 2.0]])
    X = rng.poisson(rates[y][:, [0, 1, 2, 0, 1, 2]] + 0.3).astype(float)
    return X, y


def _capped():
    X, y = _counts()
    return np.minimum(X, 3), y  # categories 0..3


def _gaussian(seed: int = 0, n: int = N):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    means = np.array([[0.0, 0.0, 0.0], [1.5, 0.0, -1.0], [0.0, 2.0, 1.0]])
    return means[y] + rng.normal(size=(n, 3)), y


def _brute_force(est, X, y) -> float:
    """Σ_i log p(y_i | x_i) under a refit on every document but i."""
    total = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a refit MLE falling back to the class prior
        for i in range(len(y)):
            keep = np.arange(len(y)) != i
            fitted = clone(est).fit(X[keep], y[keep])
            log_p = fitted.predict_log_proba(X[i : i + 1])[0]
            total += log_p[np.searchsorted(fitted.classes_, y[i])]
    return total


CASES = {
    "multinomial": (lambda: bnb.MultinomialNB(alpha=0.7), _counts, {"alpha": 2.0}),
    "bernoulli": (lambda: bnb.BernoulliNB(binarize=1.0), _counts, {"alpha": 2.0}),
    "categorical": (lambda: bnb.CategoricalNB(), lambda: _capped(), {"alpha": 2.0}),
    "poisson": (lambda: bnb.PoissonNB(), _counts, {"alpha": 2.0}),
    "gda": (lambda: bnb.GDA(), _gaussian, None),
    "gda-diagonal": (lambda: bnb.GDA(covariance="diagonal"), _gaussian, None),
}


@pytest.mark.filterwarnings("ignore:.*probability 0 under every class:RuntimeWarning")
@pytest.mark.parametrize("case", list(CASES))
def test_closed_form_rows_are_exact_loo(case):
    make, data, map_params = CASES[case]
    X, y = data()
    ests = all_estimates(make(), map_params=map_params)
    ests["logreg"] = LogisticRegression(max_iter=500)
    ds = compare(ests, X, y, X[:6], y[:6])
    assert ds.loo_method.sel(name="logreg").item() == ""
    for m in ("elpd_loo", "elpd_loo_se", "pareto_k_bad"):
        assert np.isnan(float(ds[m].sel(name="logreg")))
    for name, est in ests.items():
        if name == "logreg":
            continue
        row = ds.sel(name=name)
        assert row.loo_method.item() == "exact"
        assert np.isnan(float(row.pareto_k_bad))
        exact = elpd_loo(est, X, y)
        assert float(row.elpd_loo) == exact.elpd
        assert float(row.elpd_loo_se) == exact.se or np.isnan(exact.se)
        brute = _brute_force(est, X, y)
        if np.isneginf(brute):
            assert np.isneginf(float(row.elpd_loo)), name
        else:
            assert float(row.elpd_loo) == pytest.approx(brute, rel=0, abs=1e-10), name
    # Each estimate has its own exact LOO (PSIS over one posterior gave them all the same).
    elpd = ds.elpd_loo.to_series().drop("logreg")
    assert len(set(elpd.values)) > 1
    assert np.isfinite(elpd["mean"]) and -N * np.log(3) < elpd["mean"] < 0


def test_mle_with_impossible_documents_scores_the_class_prior():
    # Feature 5 is seen in document 0 only: without it the MLE gives every class
    # probability 0, and a refit falls back to its class prior (9 of the other 29 in class 0).
    X, y = _counts(3)
    X[:, 5] = 0.0
    X[0, 5] = 1.0
    est = bnb.MultinomialNB(estimate="mle")
    with pytest.warns(RuntimeWarning, match="probability 0 under every class"):
        res = elpd_loo(est, X, y)
    assert np.all(np.isfinite(res.pointwise))
    assert res.pointwise[0] == pytest.approx(np.log(9 / 29), rel=0, abs=1e-12)
    assert res.elpd == pytest.approx(_brute_force(est, X, y), rel=0, abs=1e-10)


def test_cross_validated_loo_is_each_training_part():
    X, y = _counts(1)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ds = compare({"nb": bnb.MultinomialNB(estimate="bayes")}, X, y, cv=cv)
    assert ds.loo_method.item() == "exact"
    expected = [
        elpd_loo(bnb.MultinomialNB(estimate="bayes"), X[tr], y[tr]) for tr, _ in cv.split(X, y)
    ]
    np.testing.assert_array_equal(ds.elpd_loo_folds.values[0], [e.elpd for e in expected])
    np.testing.assert_array_equal(ds.elpd_loo_se_folds.values[0], [e.se for e in expected])
    assert float(ds.elpd_loo[0]) == pytest.approx(np.mean([e.elpd for e in expected]))


def test_posteriors_get_psis_loo():
    X, y = _counts(2)
    ests = {"mean": bnb.MultinomialNB(), "bayes": bnb.MultinomialNB(estimate="bayes")}
    fitted = clone(ests["mean"]).fit(X, y)
    tree = fitted.sample_posterior(draws=250, chains=2, random_seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pareto-k warnings, tested below
        ds = compare(ests, X, y, X[:6], y[:6], posteriors={"mean": tree})
    assert ds.loo_method.sel(name="mean").item() == "psis"
    assert ds.loo_method.sel(name="bayes").item() == "exact"
    ll = fitted.label_log_likelihood(X, y, posterior=tree)
    assert ll["log_likelihood"]["y"].shape == (2, 250, N)
    # The draws of the tree, scored by hand: log p(y_i | x_i, θ_s).
    pi = tree["posterior"]["class_prior"].values
    phi = tree["posterior"]["feature_prob"].values
    joint = np.log(pi)[:, :, None, :] + np.einsum("nj,sdcj->sdnc", X, np.log(phi))
    own = joint[:, :, np.arange(N), y]
    hand = own - np.logaddexp.reduce(joint, axis=-1)
    np.testing.assert_allclose(ll["log_likelihood"]["y"].values, hand, rtol=0, atol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = psis_loo(ll)
        ref = az.loo(ll, var_name="y", pointwise=True)  # same result: no constant documents
    assert float(ds.elpd_loo.sel(name="mean")) == pytest.approx(loo.elpd, rel=1e-12)
    assert float(ds.elpd_loo.sel(name="mean")) == pytest.approx(ref.elpd, rel=1e-9)
    assert float(ds.elpd_loo_se.sel(name="mean")) == pytest.approx(loo.se, rel=1e-12)
    bad = np.sum(loo.pareto_k.values > loo.good_k)
    assert float(ds.pareto_k_bad.sel(name="mean")) == bad
    # PSIS-LOO of the posterior lands near the exact LOO of the posterior predictive.
    exact = float(ds.elpd_loo.sel(name="bayes"))
    assert abs(float(ds.elpd_loo.sel(name="mean")) - exact) < 2 * float(
        ds.elpd_loo_se.sel(name="bayes")
    )


def test_psis_rows_name_pareto_warnings():
    X, y = _counts(2, n=12)
    est = bnb.MultinomialNB(alpha=0.05)
    tree = clone(est).fit(X, y).sample_posterior(draws=100, chains=1, random_seed=0)
    with pytest.warns(UserWarning, match=r"^MultinomialNB: .*Pareto"):
        compare({"nb": est}, X, y, X, y, posteriors={"nb": tree})


def test_bad_posteriors():
    X, y = _counts()
    est = bnb.MultinomialNB()
    tree = clone(est).fit(X, y).sample_posterior(draws=20, chains=1, random_seed=0)
    ests = {"nb": est}
    with pytest.raises(ValueError, match=r"posteriors names \['other'\]"):
        compare(ests, X, y, X, y, posteriors={"other": tree})
    with pytest.raises(ValueError, match="cannot score the training part"):
        compare(ests, X, y, cv=3, posteriors={"nb": tree})
    with pytest.raises(ValueError, match="loo=True"):
        compare(ests, X, y, X, y, loo=False, posteriors={"nb": tree})
    with pytest.raises(TypeError, match="dict of name -> DataTree"):
        compare(ests, X, y, X, y, posteriors=[tree])
    with pytest.raises(TypeError, match="DataTree with a 'posterior' group"):
        compare(ests, X, y, X, y, posteriors={"nb": "tree.nc"})
    with pytest.raises(ValueError, match="loo_draws must be a positive integer"):
        compare(ests, X, y, X, y, loo_draws=0)


def test_metric_names_and_methods():
    assert "PSIS" in METRICS["pareto_k_bad"][0] and "exact" in METRICS["elpd_loo"][0]
    assert LOO_METHODS == ("exact", "psis", "")
    X, y = _counts()
    ds = compare({"nb": bnb.MultinomialNB()}, X, y, X, y, loo=False)
    assert ds.loo_method.item() == "" and np.isnan(ds.elpd_loo.item())
    assert "exact" in ds.elpd_loo.attrs["long_name"]
