"""The evidence / LOO / informative / compare section of the family protocol."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import naive_bayes as sknb

import bayesnb as bnb
from bayesnb.comparison import n_parameters
from bayesnb.families import Family, family_of
from bayesnb.families._protocol import Unsupported
from bayesnb.informative import _supported, most_informative_features


class _Bare(Family):
    """A family that implements none of the section's capabilities."""

    name = "bare"
    estimator = bnb.MultinomialNB


@pytest.mark.parametrize(
    ("method", "args", "what"),
    [
        ("feature_log_evidence", (), "a closed-form evidence"),
        ("learn_alpha", (), "alpha='evidence'"),
        ("loo_cells_per_draw", (10,), "label_log_likelihood"),
        ("loo_draws_jll", (None, None, {}), "label_log_likelihood"),
        ("informative_marginals", (), "most_informative_features"),
    ],
)
def test_defaults_refuse_naming_the_model_and_the_capability(method, args, what):
    with pytest.raises(Unsupported, match=f"^MultinomialNB does not support {what}$"):
        getattr(_Bare(), method)(object(), *args)


def test_generic_defaults():
    family = _Bare()
    assert np.isnan(family.n_feature_parameters(object()))
    assert family.informative_quantity == "log probability ratio"
    assert family.informative_refusal is None


def test_informative_support_comes_from_the_registry():
    assert _supported() == "BernoulliNB, MultinomialNB and PoissonNB"
    rng = np.random.default_rng(0)
    X, y = rng.poisson(1.0, (30, 4)), np.arange(30) % 3
    est = bnb.PoissonNB().fit(X, y)
    assert family_of(est).informative_quantity == "log rate ratio"
    assert most_informative_features(est, n=2, draws=100).attrs["quantity"] == "log rate ratio"
    with pytest.raises(TypeError, match="does not support DirichletCompoundNB; it supports fitted"):
        most_informative_features(bnb.DirichletCompoundNB().fit(X, y))


def test_n_parameters_by_family_and_by_scikit_learn_class():
    rng = np.random.default_rng(1)
    X, y = rng.poisson(1.0, (40, 5)), np.arange(40) % 4
    # K − 1 = 3 class-prior values plus the family's feature parameters.
    assert n_parameters(bnb.PoissonNB().fit(X, y)) == 3 + 4 * 5
    assert n_parameters(bnb.MultinomialNB().fit(X, y)) == 3 + 4 * 4
    assert n_parameters(bnb.GDA(covariance="diagonal").fit(X.astype(float), y)) == 3 + 2 * 4 * 5
    composite = bnb.ColumnwiseNB([("a", bnb.PoissonNB(), [0, 1]), ("b", bnb.PoissonNB(), [2])])
    assert np.isnan(n_parameters(composite.fit(X, y)))  # not counted (as before the protocol)

    class MyComplement(sknb.ComplementNB):
        """A subclass is counted as its scikit-learn base class."""

    assert n_parameters(MyComplement().fit(X, y)) == 4 * 4
    assert n_parameters(sknb.MultinomialNB().fit(X, y)) == 3 + 4 * 4
