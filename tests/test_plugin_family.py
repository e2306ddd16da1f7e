"""A new family is one module plus one register line: the exponential family of
tests/plugin_family.py goes through every generic path with no edit to bayesnb."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

import bayesnb as bnb
from bayesnb import families
from bayesnb.testing import check_family
from tests.plugin_family import FAMILY, ExponentialNB


@pytest.fixture
def registered():
    families.register(FAMILY)  # the one line that plugs the family in
    yield FAMILY
    families.unregister(FAMILY.name)  # keep the registry's model lists as they were


@pytest.fixture
def data():
    return FAMILY.example_data(None, 60, np.random.default_rng(7))


def test_registry_knows_the_plugin(registered):
    assert "exponential" in families.names()
    assert families.family_of(ExponentialNB()) is registered
    with pytest.raises(ValueError, match="built-in"):
        families.unregister("multinomial")


def test_fit_predict_and_evidence_against_closed_forms(registered, data):
    X, y = data
    est = ExponentialNB(alpha=2.0, beta=0.5).fit(X, y)
    # The posterior mean rate and the Lomax predictive, written out with scipy.
    n = np.array([(y == c).sum() for c in range(3)])
    s = np.stack([X[y == c].sum(axis=0) for c in range(3)])
    a, b = 2.0 + n[:, None], 0.5 + s
    log_prior = np.log((n + 1.0) / (n.sum() + 3.0))
    lam = a / b
    mean_jll = stats.expon.logpdf(X[:, None, :], scale=1.0 / lam[None]).sum(-1) + log_prior
    np.testing.assert_allclose(est.predict_joint_log_proba(X), mean_jll, rtol=1e-12)
    est.set_params(estimate="bayes")
    lomax = stats.lomax.logpdf(X[:, None, :], c=a[None], scale=b[None]).sum(-1) + log_prior
    np.testing.assert_allclose(est.predict_joint_log_proba(X), lomax, rtol=1e-12)
    # Evidence: Gamma-exponential marginal likelihood plus the Dirichlet(1) labels.
    feat = np.sum(2.0 * np.log(0.5) + gammaln(a) - gammaln(2.0) - a * np.log(b))
    labels = gammaln(3.0) - gammaln(3.0 + n.sum()) + np.sum(gammaln(1.0 + n))
    assert est.log_evidence() == pytest.approx(feat + labels, rel=1e-12)


def test_draws_summaries_and_sample(registered, data):
    X, y = data
    est = ExponentialNB().fit(X, y)
    tree = est.sample_posterior(draws=2000, chains=2, random_seed=1)
    rate = tree["posterior"]["feature_rate"]
    assert rate.dims == ("chain", "draw", "class", "feature")
    a, b = est.posterior_
    np.testing.assert_allclose(rate.mean(("chain", "draw")), a / b, rtol=0.05)
    point = est.point_estimate("mean")["posterior"]["feature_rate"].values[0, 0]
    np.testing.assert_allclose(point, a / b, rtol=1e-14)
    with pytest.raises(ValueError, match="Lomax"):
        est.point_estimate("bayes")
    Xs, ys = est.sample(500, random_seed=3)
    assert Xs.shape == (500, 4) and np.all(Xs > 0) and set(np.unique(ys)) <= set(est.classes_)


def test_save_load_and_compare(registered, data, tmp_path):
    X, y = data
    est = ExponentialNB(alpha=1.5).fit(X, y)
    est.save(tmp_path / "exp.nc")
    loaded = bnb.load(tmp_path / "exp.nc")
    assert type(loaded) is ExponentialNB and loaded.alpha == 1.5
    np.testing.assert_array_equal(loaded.predict_joint_log_proba(X), est.predict_joint_log_proba(X))
    table = bnb.compare(
        {"exp": ExponentialNB(), "exp_bayes": ExponentialNB(estimate="bayes")}, X, y, X, y
    )
    assert np.all(np.isfinite(table["elpd_loo"].values))
    assert table["n_parameters"].sel(name="exp") == 3 * 4 + 2


def test_check_family_passes_for_the_plugin(registered):
    check_family(ExponentialNB())  # the PyMC relation included


def test_the_report_reads_the_plugin_with_defaults_until_it_registers_its_own(
    registered, monkeypatch
):
    from bayesnb.report import data as report_data
    from bayesnb.report import extension

    plain = extension.report_of("exponential")  # registered none: the defaults
    # Whatever is registered as "exponential" below is removed afterwards.
    monkeypatch.setitem(extension._REPORTS, "exponential", plain)
    assert (plain.name, plain.continuous, plain.tokens, plain.sections) == (
        "exponential", False, False, ()
    )  # fmt: skip
    assert "exponential" in report_data.report_models()
    assert report_data.default_estimator("exponential").get_params() == ExponentialNB().get_params()
    with pytest.raises(TypeError, match="ExponentialNB does not support the class-feature"):
        plain.class_feature_information(None)
    extension.register(
        "exponential", extension.FamilyReport(continuous=True, default_params=(("alpha", 3.0),))
    )
    assert extension.report_of("exponential").continuous
    assert report_data.default_estimator("exponential").alpha == 3.0
