"""scikit-learn's estimator checks, and the meta-estimators users combine us with."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb as bnb


class FlooredCategoricalNB(bnb.CategoricalNB):
    """CategoricalNB behind ``floor(X)``: every code path of CategoricalNB, on the checks' data.

    The generic checks feed continuous floats, which CategoricalNB refuses by design
    ("Non-integer values ... categories must be integers"), where scikit-learn's own
    CategoricalNB silently truncates them. Flooring in front lets the whole suite exercise
    CategoricalNB's fitting, scoring, partial_fit, pickling and sparse paths.
    """

    def _check_input(self, X, y=None, *, reset):
        try:
            X = sp.csr_matrix(X).floor() if sp.issparse(X) else np.floor(np.asarray(X, float))
        except (TypeError, ValueError):
            pass  # object/str input: let validation name the problem
        return super()._check_input(X, y, reset=reset)


# Checks that cannot pass, each with the reason. Keyed by estimator class name.
EXPECTED_FAILED: dict[str, dict[str, str]] = {"CategoricalNB": {}}


def _expected_failed(est):
    return EXPECTED_FAILED.get(type(est).__name__, {})


def test_categorical_refuses_the_generic_checks_data():
    """Why CategoricalNB itself is checked through FlooredCategoricalNB."""
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(ValueError, match="Non-integer values"):
        bnb.CategoricalNB().fit(np.abs(X), np.arange(20) % 2)


@parametrize_with_checks(
    [
        bnb.MultinomialNB(),
        bnb.BernoulliNB(),
        FlooredCategoricalNB(),
        bnb.MultinomialNB(estimate="bayes"),
        bnb.MultinomialNB(estimate="map", alpha=2.0, class_alpha=2.0),
        bnb.BernoulliNB(class_alpha=0.0),
    ],
    expected_failed_checks=_expected_failed,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_clone_pipeline_gridsearch():
    docs = [
        "the cat sat on the mat",
        "the dog sat on the log",
        "cats and dogs are pets",
        "stocks fell sharply today",
        "markets rallied as stocks rose",
        "the bank raised interest rates",
    ] * 4
    y = np.array([0, 0, 0, 1, 1, 1] * 4)
    pipe = Pipeline([("cv", CountVectorizer()), ("nb", bnb.MultinomialNB())])
    grid = GridSearchCV(
        pipe,
        [
            {"nb__alpha": [0.1, 1.0, 2.0], "nb__estimate": ["mean", "bayes"]},
            {"nb__alpha": [2.0], "nb__estimate": ["map"]},  # the mode needs alpha >= 1
        ],
        error_score="raise",
        cv=3,
    ).fit(docs, y)
    assert grid.best_score_ == pytest.approx(1.0)
    assert grid.predict(["the cat and the dog", "stocks and rates"]).tolist() == [0, 1]
    m = bnb.MultinomialNB(alpha=0.3, estimate="bayes")
    c = clone(m)
    assert c.get_params() == m.get_params()
    assert not hasattr(c, "classes_")


def test_set_params_estimate_after_fit_rescored():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [0, 2, 2]])
    y = np.array([0, 1, 0, 1])
    m = bnb.MultinomialNB(estimate="mean").fit(X, y)
    mean = m.predict_proba(X)
    m.set_params(estimate="bayes")
    bayes = m.predict_proba(X)
    assert not np.allclose(mean, bayes)
    np.testing.assert_allclose(
        bayes, bnb.MultinomialNB(estimate="bayes").fit(X, y).predict_proba(X)
    )
