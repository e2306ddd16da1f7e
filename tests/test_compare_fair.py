"""compare(): the warm-up before timing, the fitted estimators it returns, the exact LOO of a
pipeline's last step, and the mark of an unreliable PSIS-LOO (table and command line)."""

from __future__ import annotations

import time
import warnings
from typing import ClassVar

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

import bayesnb as bnb
from bayesnb.cli.compare import table
from bayesnb.comparison import compare
from bayesnb.model_selection import elpd_loo


def _counts(seed: int = 0, n: int = 30):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    rates = np.array([[2.0, 0.4, 1.0], [0.4, 2.0, 1.0], [1.0, 1.0, 2.0]])
    return rng.poisson(rates[y][:, [0, 1, 2, 0, 1, 2]] + 0.3).astype(float), y


class SlowFirstCall(ClassifierMixin, BaseEstimator):
    """A classifier whose first fit in the process pays a one-off cost (as a first import
    or a compilation does); it records the number of documents of every fit."""

    sizes: ClassVar[list[int]] = []

    def fit(self, X, y):
        if not SlowFirstCall.sizes:
            time.sleep(1.0)
        SlowFirstCall.sizes.append(len(y))
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), 1 / len(self.classes_))

    def predict(self, X):
        return self.classes_[np.zeros(len(X), dtype=int)]


def test_fit_time_excludes_the_first_calls_warm_up():
    X, y = _counts()
    SlowFirstCall.sizes = []
    ds = compare({"slow": SlowFirstCall()}, X, y, X[:6], y[:6], loo=False)
    # An untimed fit on the first 5 documents of each of the 3 classes, then the timed one.
    assert SlowFirstCall.sizes == [15, 30]
    assert float(ds.fit_time.item()) < 0.5  # the 1 s of the first call is not in it
    SlowFirstCall.sizes = []
    compare({"slow": SlowFirstCall()}, X, y, cv=3, loo=False)
    assert SlowFirstCall.sizes == [15, 20, 20, 20]  # warm-up once, on fold 0


def test_return_estimator_gives_the_fitted_models():
    X, y = _counts(1)
    ests = {"nb": bnb.MultinomialNB(alpha=0.5), "logreg": LogisticRegression(max_iter=500)}
    ds, fitted = compare(ests, X, y, X[:9], y[:9], return_estimator=True)
    assert list(fitted) == ["nb", "logreg"]
    for name, est in ests.items():
        assert fitted[name] is not est  # a fitted clone; the one given is left unfitted
        direct = clone(est).fit(X, y).predict_proba(X[:9])
        np.testing.assert_allclose(fitted[name].predict_proba(X[:9]), direct, rtol=1e-12)
        lpd = np.log(direct[np.arange(9), y[:9]]).sum()
        assert float(ds.lpd.sel(name=name)) == pytest.approx(lpd, rel=1e-12)
    cv = StratifiedKFold(3)
    ds, per_fold = compare(ests, X, y, cv=cv, return_estimator=True)
    for f, (tr, _) in enumerate(cv.split(X, y)):
        ref = bnb.MultinomialNB(alpha=0.5).fit(X[tr], y[tr])
        np.testing.assert_allclose(per_fold["nb"][f].feature_log_prob_, ref.feature_log_prob_)
    assert len(per_fold["logreg"]) == 3


def test_return_estimator_is_none_for_a_failed_row():
    X, y = _counts()
    with pytest.warns(UserWarning, match="'bad' failed"):
        _, fitted = compare(
            {"ok": bnb.MultinomialNB(), "bad": bnb.MultinomialNB(alpha=-1.0)},
            X, y, X, y, return_estimator=True,
        )  # fmt: skip
    assert fitted["bad"] is None and fitted["ok"].classes_.tolist() == [0, 1, 2]


DOCS = [
    "red apple pie", "apple tart and cream", "green apple", "pie crust apple",
    "cream pie", "sweet apple cake", "cake and tea", "apple cider",
    "fast car engine", "car wheel", "engine oil and car", "red car",
    "wheel and tyre", "old car engine", "tyre pressure", "car horn",
]  # fmt: skip
LABELS = np.repeat(["food", "cars"], 8)


def test_pipeline_gets_the_exact_loo_of_its_last_step():
    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB(alpha=0.5))
    ds, fitted = compare(
        {"pipe": pipe}, DOCS, LABELS, DOCS[::3], LABELS[::3], return_estimator=True
    )
    assert ds.loo_method.item() == "exact" and bool(ds.loo_reliable.item())
    # The vocabulary of all training documents, held; the last step's exact LOO on it.
    counts = CountVectorizer().fit_transform(DOCS)
    direct = elpd_loo(bnb.MultinomialNB(alpha=0.5), counts, LABELS)
    assert float(ds.elpd_loo.item()) == pytest.approx(direct.elpd, rel=1e-12)
    assert float(ds.elpd_loo_se.item()) == pytest.approx(direct.se, rel=1e-12)
    # ... which is the sum over refits of the last step without each document.
    total = 0.0
    for i in range(len(DOCS)):
        keep = np.arange(len(DOCS)) != i
        nb = bnb.MultinomialNB(alpha=0.5).fit(counts[keep], LABELS[keep])
        total += nb.predict_log_proba(counts[i])[0, list(nb.classes_).index(LABELS[i])]
    assert float(ds.elpd_loo.item()) == pytest.approx(total, rel=1e-10)
    vocabulary = counts.shape[1]
    assert int(ds.n_parameters.item()) == 1 + 2 * (vocabulary - 1)
    assert fitted["pipe"][-1].feature_count_.shape == (2, vocabulary)


def test_unreliable_psis_is_marked_in_the_table_and_on_the_command_line():
    X, y = _counts(2, n=12)
    est = bnb.MultinomialNB(alpha=0.05)
    tree = clone(est).fit(X, y).sample_posterior(draws=100, chains=1, random_seed=0)
    ests = {"nb": est, "exact": bnb.MultinomialNB(), "off": LogisticRegression()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Pareto-k warning (tests/test_compare_loo.py)
        ds = compare(ests, X, y, X, y, posteriors={"nb": tree})
    bad = float(ds.pareto_k_bad.sel(name="nb"))
    assert bad >= 1 and ds.loo_method.sel(name="nb").item() == "psis"
    assert ds.loo_reliable.values.tolist() == [False, True, False]  # off: no LOO at all
    printed = table(ds).splitlines()
    nb_line = next(line for line in printed if line.startswith("nb "))
    assert f"{float(ds.elpd_loo.sel(name='nb')):.1f}!" in nb_line
    assert nb_line.split()[-1] == f"{bad:.0f}"  # the bad_k column
    assert "!" not in next(line for line in printed if line.startswith("exact "))
    assert "!: PSIS-LOO unreliable" in printed[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        good = compare({"exact": bnb.MultinomialNB()}, X, y, X, y)
    assert "!" not in table(good)
