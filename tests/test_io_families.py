"""Model files through the family registry: the loadable types are the registered families'."""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb as bnb
import bayesnb.families as families
from bayesnb.families.bernoulli.family import BernoulliFamily
from bayesnb.io.tree import loadable_models


class WeightedFlagsNB(bnb.BernoulliNB):
    """A BernoulliNB registered as a family of its own (as a third-party family would be)."""

    _family = "weighted_flags"


class WeightedFlagsFamily(BernoulliFamily):
    name = "weighted_flags"
    estimator = WeightedFlagsNB


@pytest.fixture
def registry():
    """The family registry: what the test registers is unregistered afterwards."""
    before = set(families.names())
    yield families
    for name in set(families.names()) - before:
        families.unregister(name)


def _data(seed: int = 3, n: int = 80):
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 3)
    X = (rng.random((n, 7)) < rng.uniform(0.1, 0.9, (3, 7))[y]).astype(float)
    return X, y


def test_loadable_models_are_the_registered_estimators():
    expected = {families.get(n).estimator.__name__ for n in families.names()}
    assert set(loadable_models()) == expected
    assert {"BernoulliNB", "GDA", "ColumnwiseNB", "DirichletCompoundNB"} <= expected
    assert all(f.estimator.__name__ == name for name, f in loadable_models().items())


def test_a_registered_family_saves_and_loads_without_touching_io(registry, tmp_path):
    X, y = _data()
    est = WeightedFlagsNB(alpha=0.5).fit(X, y)
    path = tmp_path / "w.nc"
    with pytest.raises(TypeError, match=r"WeightedFlagsNB cannot be saved by bayesnb.io"):
        est.save(path)  # not registered yet
    registry.register(WeightedFlagsFamily())
    assert "WeightedFlagsNB" in loadable_models()
    est.save(path)
    back = bnb.load(path, expected=WeightedFlagsNB)
    assert type(back) is WeightedFlagsNB and back.alpha == 0.5
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(back.feature_count_, est.feature_count_)


def test_an_unregistered_model_type_is_refused_naming_the_registered_ones(registry, tmp_path):
    X, y = _data()
    registry.register(WeightedFlagsFamily())
    path = tmp_path / "w.nc"
    WeightedFlagsNB().fit(X, y).save(path)
    registry.unregister("weighted_flags")
    with pytest.raises(ValueError, match=r"holds model type 'WeightedFlagsNB', not one of") as info:
        bnb.load(path)
    assert "'BernoulliNB'" in str(info.value) and "'GDA'" in str(info.value)


def test_a_subclass_of_a_registered_estimator_is_not_saved_as_its_parent(tmp_path):
    class Renamed(bnb.MultinomialNB):
        pass

    X, y = _data()
    with pytest.raises(TypeError, match=r"Renamed cannot be saved by bayesnb.io; supported"):
        Renamed().fit(X, y).save(tmp_path / "r.nc")
    assert list(tmp_path.iterdir()) == []
