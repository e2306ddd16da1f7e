"""The draws/generate protocol: generic entry points reach every family through the registry.

The family-specific values are frozen by ``tests/test_golden.py``; these tests check what the
protocol adds: each family's ``var_names`` are the variables its exact draws lay out (and the
old ``bayesnb.draws`` constants), ``bayesnb.generate.sample`` of a ColumnwiseNB is its own
``sample``, and a capability a family lacks is refused by name.
"""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb.draws as draws
from bayesnb import (
    GDA,
    BernoulliNB,
    CategoricalNB,
    ColumnwiseNB,
    DirichletCompoundNB,
    MultinomialNB,
    PoissonNB,
)
from bayesnb.families import family_of
from bayesnb.families._protocol import Unsupported
from bayesnb.generate import replicate_documents, sample


def _counts(n: int = 80, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.poisson(1.0 + y[:, None], (n, 5)).astype(float)
    return X, y


MODELS = {
    "bernoulli": lambda: BernoulliNB(),
    "multinomial": lambda: MultinomialNB(),
    "categorical": lambda: CategoricalNB(),
    "poisson": lambda: PoissonNB(),
    "dcm": lambda: DirichletCompoundNB(),
    "gda": lambda: GDA(),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_var_names_are_the_variables_drawn(name):
    X, y = _counts()
    est = MODELS[name]().fit(X, y)
    fam = family_of(est)
    tree = draws.sample_posterior(est, draws=3, chains=1, random_seed=0)
    assert tuple(tree["posterior"].to_dataset().data_vars) == fam.var_names
    values = draws.posterior_draws(est, draws=3, chains=1, random_seed=0)
    assert tuple(values) == fam.var_names
    assert all(v.shape[:2] == (1, 3) for v in values.values())


def test_old_var_name_constants_are_the_families():
    assert draws.VAR_NAMES == ("class_prior", "feature_prob")
    assert draws.GDA_VAR_NAMES == ("class_prior", "mean", "cov")
    assert draws.POISSON_VAR_NAMES == ("class_prior", "feature_rate")
    assert draws.DCM_VAR_NAMES == ("class_prior", "concentration", "feature_prob")
    with pytest.raises(AttributeError, match="NO_SUCH_NAMES"):
        draws.NO_SUCH_NAMES  # noqa: B018


def test_generate_sample_of_a_columnwise_model_is_its_own_sample():
    X, y = _counts(120, seed=1)
    X = np.hstack([X, np.random.default_rng(2).normal(y[:, None], 1.0, (120, 2))])
    est = ColumnwiseNB([("words", MultinomialNB(), slice(0, 5)), ("real", GDA(), slice(5, 7))]).fit(
        X, y
    )
    Xa, ya = sample(est, 50, random_seed=3)
    Xb, yb = est.sample(50, random_seed=3)
    np.testing.assert_array_equal(ya, yb)
    np.testing.assert_array_equal(Xa.toarray(), Xb.toarray())
    # The blocks' columns are the blocks' own generated data under the same labels.
    rng = np.random.default_rng(3)
    p = np.exp(est.class_log_prior_)
    codes = rng.choice(p.shape[0], size=50, p=p / p.sum())
    words = est.named_estimators_["words"]
    expected = family_of(words).generate(words, codes, rng)
    np.testing.assert_array_equal(Xa[:, :5].toarray(), expected.toarray())


def test_replicate_documents_names_what_a_family_lacks():
    X, y = _counts()
    est = GDA().fit(X, y)
    codes, lengths = np.zeros(3, dtype=np.intp), np.full(3, 4)
    with pytest.raises(Unsupported, match=r"GDA does not support replicate_documents"):
        replicate_documents(est, codes, lengths, np.random.default_rng(0))
    dcm = DirichletCompoundNB().fit(X, y)
    docs = replicate_documents(dcm, codes, lengths, np.random.default_rng(0))
    np.testing.assert_array_equal(np.asarray(docs.sum(axis=1)).ravel(), lengths)
