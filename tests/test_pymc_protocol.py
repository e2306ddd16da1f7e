"""The PyMC declaration through the family protocol, without NUTS (no model is sampled).

Every family declares its model (``Family.pymc_spec``); a composite names its sub-models
(``Family.pymc_parts``) and :mod:`bayesnb.inference` lays each out as a child group. A fake
trace of exact conjugate draws stands in for the sampler here.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb import families
from bayesnb.draws import posterior_draws
from bayesnb.families import Family
from bayesnb.families._protocol import Unsupported
from bayesnb.families.multinomial.estimator import UnkColumns
from bayesnb.inference import _label_log_likelihood, _to_layout
from bayesnb.pymc_models import declare, model_spec
from tests.test_columnwise import FLAGS, REAL, WORDS, _data


def test_every_builtin_family_declares_its_model():
    for name in families.BUILTIN:
        family = families.get(name)
        assert type(family).pymc_spec is not Family.pymc_spec, name


def test_a_family_without_a_declaration_says_so(monkeypatch):
    class Plain(bnb.BernoulliNB):
        _family = "plain"

    class PlainFamily(Family):
        name = "plain"
        estimator = Plain

    monkeypatch.setitem(families._REGISTRY, "plain", PlainFamily())
    X, y = _data(n=20)
    est = Plain().fit(X[:, FLAGS], y)
    with pytest.raises(Unsupported, match="Plain does not support a PyMC declaration"):
        declare(est, X[:, FLAGS], y)
    assert PlainFamily().pymc_parts(est, None) == []


def test_hyperparameters_and_missing_come_from_the_family():
    X, y = _data(n=30)
    gda = bnb.GDA(covariance="diagonal").fit(X[:, REAL], y)
    spec = model_spec(gda, X[:, REAL], y)
    hyper = {k: d for k, (_, d) in spec.hyperparameters.items()}
    assert hyper == {
        "class_alpha": ["class"],
        "mu0": ["feature"],
        "kappa0": None,
        "psi0": ["feature"],  # the diagonal model keeps Ψ0's diagonal
        "nu0": None,
    }
    assert spec.missing is None
    unk = bnb.MultinomialNB(unk=True).fit(np.hstack([X[:, WORDS], np.zeros((30, 2))]), y)
    spec = model_spec(unk, np.hstack([X[:, WORDS], np.ones((30, 2))]), y, likelihood="data")
    assert spec.hyperparameters["feature_alpha"][1] == ["category"]
    seen = int((~UnkColumns(unk).pooled).sum())
    assert seen < unk.n_features_in_ - 1  # the two empty columns at least are pooled
    assert spec.hyperparameters["feature_alpha"][0].shape == (seen + 1,)  # seen, then UNK


def _composite(n=30):
    X, y = _data(n=n)
    blocks = [("flags", bnb.BernoulliNB(), FLAGS), ("real", bnb.GDA(covariance="diagonal"), REAL)]
    return bnb.ColumnwiseNB(blocks).fit(X, y), X, y


def test_composite_parts_are_the_blocks_declarations():
    est, X, y = _composite()
    spec = model_spec(est, X, y)
    parts = families.family_of(est).pymc_parts(est, spec)
    assert [name for name, _, _ in parts] == ["flags", "real"]
    for (name, block, bs), (fitted_name, fitted, cols) in zip(parts, est._blocks(), strict=True):
        assert name == fitted_name
        assert block is fitted
        alone = model_spec(block, X[:, cols], y)
        assert bs.key == alone.key and bs.var_names == alone.var_names
    assert spec.var_names == ["class_prior", "flags::feature_prob", "real::mean", "real::cov"]
    assert spec.missing == [None, None]
    assert list(spec.hyperparameters) == ["class_alpha"]  # the blocks' priors are theirs


def test_composite_layout_puts_each_block_in_its_child_group():
    est, X, y = _composite()
    spec = model_spec(est, X, y)
    flat = posterior_draws(est, draws=3, chains=2, random_seed=0)
    post = {k.replace("/", "::"): v for k, v in flat.items()}
    trace = xr.DataTree.from_dict(
        {
            "posterior": xr.Dataset(
                {
                    k: xr.DataArray(v, dims=[f"{k}_{i}" for i in range(v.ndim)])
                    for k, v in post.items()
                }
            ),
            "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 3), bool))}),
        }
    )
    dt = _to_layout(est, spec, trace, "nutpie", True)
    assert list(dt["posterior"].data_vars) == ["class_prior"]
    np.testing.assert_array_equal(dt["posterior"]["class_prior"].values, flat["class_prior"])
    np.testing.assert_array_equal(
        dt["flags"]["posterior"]["feature_prob"], flat["flags/feature_prob"]
    )
    np.testing.assert_array_equal(dt["real"]["posterior"]["cov"], flat["real/cov"])
    assert "class_prior" not in dt["flags"]["posterior"].data_vars
    flags = est.named_estimators_["flags"]
    counts = dt["flags"]["observed_data"]["feature_count"].values
    np.testing.assert_array_equal(counts, flags.feature_count_)
    assert dt["real"]["constant_data"]["psi0"].dims == ("feature",)
    np.testing.assert_array_equal(
        dt["observed_data"]["class_count"].values, np.bincount(np.searchsorted(est.classes_, y))
    )
    ll = dt["log_likelihood"]["y"].values
    np.testing.assert_array_equal(ll, _label_log_likelihood(est, spec, flat))
    # the label log-likelihood of the draws: log p(y_i | x_i, θ) < 0, one per document
    assert ll.shape == (2, 3, len(y)) and np.all(ll < 0)
