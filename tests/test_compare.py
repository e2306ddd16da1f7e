"""compare(): every metric against a direct computation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import StratifiedKFold, train_test_split

import bayesnb as bnb
from bayesnb.compare import all_estimates, compare, expected_calibration_error


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_ece_by_hand():
    # 4 documents, 2 bins of 2 (equal mass): confidences sorted 0.6, 0.7 | 0.8, 0.9.
    proba = np.array([[0.6, 0.4], [0.3, 0.7], [0.8, 0.2], [0.1, 0.9]])
    y = np.array([0, 0, 0, 1])  # correct, wrong, correct, correct
    # bin 1: accuracy 1/2, confidence 0.65; bin 2: accuracy 1, confidence 0.85
    expected = 0.5 * abs(0.5 - 0.65) + 0.5 * abs(1.0 - 0.85)
    assert expected_calibration_error(y, proba, [0, 1], n_bins=2) == pytest.approx(expected)
    # 15 bins on 4 documents: one per document.
    direct = np.mean(np.abs(np.array([1, 0, 1, 1]) - proba.max(axis=1)))
    assert expected_calibration_error(y, proba, [0, 1]) == pytest.approx(direct)


@pytest.mark.filterwarnings("ignore:.*probability 0 under every class:RuntimeWarning")
def test_compare_metrics_match_direct(digits):
    X_tr, X_te, y_tr, y_te = digits
    ests = all_estimates(bnb.MultinomialNB(), map_params={"alpha": 2.0, "class_alpha": 2.0})
    ests["logreg"] = LogisticRegression(max_iter=2000)
    ds = compare(ests, X_tr, y_tr, X_te, y_te, loo=False)
    assert list(ds.name.values) == ["mle", "map", "mean", "bayes", "logreg"]
    for name, est in ests.items():
        proba = est.fit(X_tr, y_tr).predict_proba(X_te)
        row = ds.sel(name=name)
        assert float(row.accuracy) == pytest.approx(np.mean(est.classes_[proba.argmax(1)] == y_te))
        assert float(row.log_loss) == pytest.approx(log_loss(y_te, proba, labels=est.classes_))
        assert float(row.brier) == pytest.approx(brier_score_loss(y_te, proba, labels=est.classes_))
        with np.errstate(divide="ignore"):
            lpd = np.log(proba[np.arange(len(y_te)), np.searchsorted(est.classes_, y_te)]).sum()
        assert float(row.lpd) == pytest.approx(lpd)
    assert int(ds.n_parameters.sel(name="mean")) == 9 + 10 * 63
    assert float(ds.accuracy.sel(name="mean")) > 0.85
    df = ds.to_dataframe()
    assert df.shape[0] == 5 and "brier" in df.columns


def test_compare_cross_validated(digits):
    X_tr, _, y_tr, _ = digits
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ds = compare({"nb": bnb.MultinomialNB()}, X_tr, y_tr, cv=cv, loo=False)
    assert ds.accuracy_folds.shape == (1, 3)
    manual = []
    for tr, te in cv.split(X_tr, y_tr):
        m = bnb.MultinomialNB().fit(X_tr[tr], y_tr[tr])
        manual.append(np.mean(m.predict(X_tr[te]) == y_tr[te]))
    np.testing.assert_allclose(ds.accuracy_folds.values[0], manual)
    assert float(ds.accuracy[0]) == pytest.approx(np.mean(manual))


def test_compare_bad_arguments(digits):
    X_tr, X_te, y_tr, y_te = digits
    with pytest.raises(TypeError, match="estimators"):
        compare([bnb.MultinomialNB()], X_tr, y_tr, X_te, y_te)
    with pytest.raises(ValueError, match="either X_test"):
        compare({"a": bnb.MultinomialNB()}, X_tr, y_tr)
    with pytest.raises(ValueError, match="y_test is required"):
        compare({"a": bnb.MultinomialNB()}, X_tr, y_tr, X_te)
