"""Few labels: ``bayesnb.curves.labelled_curve`` against a hand loop, and its report section."""

from __future__ import annotations

import re
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, log_loss

import bayesnb as bnb
from bayesnb.curves import labelled_curve
from bayesnb.report import Dataset, Study
from bayesnb.report import sections as S
from bayesnb.report.html import render
from bayesnb.report.layout import labels_section

SIZES = (1, 3)
N_SEEDS = 3


def _corpus(n: int, seed: int, labels=("a", "b", "c")):
    """Documents drawn from three multinomials over 12 words (3 words favoured per class)."""
    rng = np.random.default_rng(seed)
    k = len(labels)
    theta = np.full((k, 12), 1.0)
    for c in range(k):
        theta[c, 3 * c : 3 * c + 3] = 6.0
    theta /= theta.sum(axis=1, keepdims=True)
    codes = np.arange(n) % k
    X = np.stack([rng.multinomial(rng.integers(4, 12), theta[c]) for c in codes])
    return sp.csr_matrix(X.astype(np.float64)), np.asarray(labels)[codes]


def _est():
    return bnb.MultinomialNB(alpha=1.5, class_alpha=2.0, estimate="map")


@pytest.fixture(scope="module")
def data():
    X, y = _corpus(45, 0)
    X_test, y_test = _corpus(30, 1)
    return X, y, X_test, y_test


@pytest.fixture(scope="module")
def curve(data):
    X, y, X_test, y_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return labelled_curve(_est(), X, y, X_test, y_test, SIZES, N_SEEDS, random_state=7)


def _hand(data, order, n, inference):
    """One fit of the curve rebuilt from its documented rule: labelled = the first n rows of
    each class in the seed's order, the pool every other row, fed in that order."""
    X, y, X_test, y_test = data
    seen = {c: 0 for c in np.unique(y)}
    labelled = np.zeros(order.size, dtype=bool)
    for p, i in enumerate(order):
        if seen[y[i]] < n:
            labelled[p] = True
            seen[y[i]] += 1
    if inference == "supervised":
        model = _est().fit(X[order[labelled]], y[order[labelled]])
    else:
        marks = y[order].astype(object)
        marks[~labelled] = None
        model = bnb.SemiSupervisedNB(_est(), inference=inference).fit(X[order], marks)
    log_p = model.predict_log_proba(X_test)
    codes = np.searchsorted(model.classes_, y_test)
    accuracy = np.mean(model.predict(X_test) == y_test)
    return model, accuracy, -np.mean(log_p[np.arange(y_test.size), codes])


@pytest.mark.parametrize("inference", ["supervised", "em", "vb"])
def test_curve_equals_a_hand_loop(data, curve, inference):
    # The documented random stream: one RandomState permutation of the rows per seed.
    rng = np.random.RandomState(7)
    orders = np.stack([rng.permutation(45) for _ in range(N_SEEDS)])
    np.testing.assert_array_equal(curve["order"].values, orders)
    for seed, n in ((1, 3), (2, 1)):
        model, accuracy, loss = _hand(data, orders[seed], n, inference)
        cell = curve.sel(inference=inference, size=n, seed=seed)
        assert cell["accuracy"].item() == accuracy
        assert cell["log_loss"].item() == loss
    _, _, X_test, y_test = data
    assert accuracy == accuracy_score(y_test, model.predict(X_test))
    assert loss == pytest.approx(log_loss(y_test, model.predict_proba(X_test)), rel=1e-9)
    if inference != "supervised":
        assert cell["n_iter"].item() == model.n_iter_ > 0
        assert curve["n_unlabelled"].values.tolist() == [42, 36]


def test_standard_errors_over_seeds(curve):
    for var in ("accuracy", "log_loss"):
        values = curve[var].values  # (inference, size, seed)
        mean = values.sum(axis=2) / N_SEEDS
        sd = np.sqrt(((values - mean[..., None]) ** 2).sum(axis=2) / (N_SEEDS - 1))
        np.testing.assert_allclose(curve[f"{var}_mean"].values, mean, rtol=1e-14)
        np.testing.assert_allclose(curve[f"{var}_se"].values, sd / np.sqrt(N_SEEDS), rtol=1e-12)
    # Paired gains: the per-seed differences, their mean and SE.
    gains = S.labelled_gains(curve).set_index(["inference", "size", "metric"])
    d = curve["accuracy"].sel(inference="em") - curve["accuracy"].sel(inference="supervised")
    d = d.sel(size=3).values
    row = gains.loc[("em", 3, "accuracy")]
    assert row["gain"] == pytest.approx(d.mean(), abs=1e-15)
    assert row["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(N_SEEDS), abs=1e-15)
    d = curve["log_loss"].sel(inference="supervised") - curve["log_loss"].sel(inference="vb")
    assert gains.loc[("vb", 1, "log_loss"), "gain"] == pytest.approx(d.sel(size=1).mean().item())


def test_one_seed_has_no_standard_error(data):
    X, y, X_test, y_test = data
    ds = labelled_curve(_est(), X, y, X_test, y_test, [2], 1, ["supervised"], random_state=0)
    assert np.isnan(ds["accuracy_se"]).all() and np.isfinite(ds["accuracy_mean"]).all()


def test_weight_zero_gives_the_supervised_curve(data):
    X, y, X_test, y_test = data
    ds = labelled_curve(
        _est(), X, y, X_test, y_test, [1, 2], 2, ["supervised", "em"], 3, unlabelled_weight=0.0
    )
    for var in ("accuracy", "log_loss"):
        a, b = ds[var].sel(inference="em"), ds[var].sel(inference="supervised")
        np.testing.assert_array_equal(a.values, b.values)
    assert (ds["n_iter"] == 0).all()


def test_weight_chosen_by_cv_in_every_fit(data):
    X, y, X_test, y_test = data
    ds = labelled_curve(
        _est(), X, y, X_test, y_test, [2, 3], 2, ["supervised", "em"], 5, unlabelled_weight="cv"
    )
    assert ds.attrs["unlabelled_weight"] == "cv"
    assert np.isnan(ds["weight"].sel(inference="supervised")).all()
    # Each fit is SemiSupervisedNB(unlabelled_weight="cv") on the curve's rows.
    order = ds["order"].values[1]
    first = {c: order[y[order] == c][:3] for c in np.unique(y)}
    labelled = np.isin(order, np.concatenate(list(first.values())))
    marked = np.where(labelled, y[order], "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em = bnb.SemiSupervisedNB(_est(), unlabelled_weight="cv").fit(X[order], marked)
    assert ds["weight"].sel(inference="em", size=3).values[1] == em.unlabelled_weight_
    assert ds["log_loss"].sel(inference="em", size=3).values[1] == pytest.approx(
        log_loss(y_test, em.predict_proba(X_test), labels=em.classes_), rel=1e-12
    )
    with pytest.raises(ValueError, match=r"unlabelled_weight='loo' chooses λ .* size 1 is too"):
        labelled_curve(_est(), X, y, X_test, y_test, [1, 2], 1, unlabelled_weight="loo")
    with pytest.raises(ValueError, match="unlabelled_weight must be a finite number >= 0, 'cv'"):
        labelled_curve(_est(), X, y, X_test, y_test, [2], 1, unlabelled_weight="best")


def test_numeric_labels_and_capped_pool(data):
    X, y, X_test, y_test = data
    codes = np.searchsorted(np.unique(y), y)
    ds = labelled_curve(
        _est(), X, codes, X_test, np.searchsorted(np.unique(y), y_test), [1, 2], 2,
        ["supervised", "em"], 0, max_unlabelled=10,
    )  # fmt: skip
    named = labelled_curve(
        _est(), X, y, X_test, y_test, [1, 2], 2, ["supervised", "em"], 0, max_unlabelled=10
    )
    assert (ds["n_unlabelled"] == 10).all()
    np.testing.assert_array_equal(ds["accuracy"].values, named["accuracy"].values)
    np.testing.assert_array_equal(ds["log_loss"].values, named["log_loss"].values)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sizes": [0, 1]}, "sizes must be at least 1"),
        ({"sizes": [-2]}, "sizes must be at least 1"),
        ({"sizes": []}, "sizes must be a non-empty"),
        ({"sizes": [1.5]}, "sizes must be a non-empty 1-D list of integers"),
        ({"sizes": [15]}, r"class '.' has 15 training documents: .* at most 14"),
        ({"n_seeds": 0}, "n_seeds must be a positive integer"),
        ({"n_seeds": 2.0}, "n_seeds must be a positive integer"),
        ({"inferences": ["gibbs"]}, "inferences must be distinct names"),
        ({"inferences": ["em", "em"]}, "inferences must be distinct names"),
        ({"inferences": []}, "inferences must be distinct names"),
        ({"max_unlabelled": 0}, "max_unlabelled must be a positive integer"),
    ],
)
def test_bad_arguments_are_refused(data, kwargs, match):
    X, y, X_test, y_test = data
    with pytest.raises(ValueError, match=match):
        labelled_curve(_est(), X, y, X_test, y_test, **kwargs)


def test_bad_labels_are_refused(data):
    X, y, X_test, y_test = data
    with pytest.raises(ValueError, match=r"y_test holds labels absent from y: \['z'\]"):
        labelled_curve(_est(), X, y, X_test, np.where(y_test == "a", "z", y_test))
    marked = y.astype(object)
    marked[0] = None
    with pytest.raises(ValueError, match="y must label every training row"):
        labelled_curve(_est(), X, marked, X_test, y_test)
    with pytest.raises(ValueError, match="y_test must be a 1-D vector"):
        labelled_curve(_est(), X, y, X_test, y_test[:-1])


# -- the report section -------------------------------------------------------------------
@pytest.fixture(scope="module")
def section():
    X, y = _corpus(60, 2)
    data = Dataset("toy", X, y, [f"w{j}" for j in range(12)], "text", test_size=0.5)
    study = Study(data, "multinomial")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return S.few_labels(study, seed=0, sizes=(1, 2, 9, 10), n_seeds=3)


def test_section_reads_its_numbers(section):
    x = section
    # 30 training documents, 10 per class: 10 labelled would leave none unlabelled.
    assert x.dropped == [10] and x.curve["size"].values.tolist() == [1, 2, 9]
    assert "Sizes 10 dropped" in x.reading
    assert x.estimator == "MultinomialNB(alpha=1.1, class_alpha=2.0, estimate='map')"
    gains = S.labelled_gains(x.curve)
    for name, label in (("em", "EM"), ("vb", "VB")):
        g = gains[(gains["inference"] == name) & (gains["metric"] == "accuracy")]
        sentence = x.reading.split(f"{label} against the labelled-only fit", 1)[1]
        sentence = sentence.split("VB against", 1)[0]
        for size, gain, se in zip(g["size"], g["gain"], g["se"], strict=True):
            if gain > 2 * se or gain < -2 * se:
                assert f"{S.points(abs(gain))} points" in sentence
            else:
                assert re.search(rf"within 2 paired SE at [^;]*\b{size}\b", sentence)
    mean = x.curve["accuracy_mean"].sel(inference="em", size=2).item()
    se = x.curve["accuracy_se"].sel(inference="em", size=2).item()
    assert x.table.loc[2, "accuracy: EM"] == f"{mean:.3f} ± {se:.3f}"
    assert S.few_labels_headline(x).startswith("Few labels (toy · multinomial)")


def test_section_html_has_figure_and_table(section):
    builder = SimpleNamespace(results={"labels": [section]}, _draw=lambda plot, r: plot(r))
    sec = labels_section(builder)
    page = render("t", "", [sec])
    chunk = page.split('<section id="labels">', 1)[1].split("</section>", 1)[0]
    assert chunk.count('<img src="data:image/png;base64,') == 1
    for size in (1, 2, 9):
        for col in ("accuracy: labelled only", "log loss: VB", "EM gain (points)"):
            assert f'<td class="text">{section.table.loc[size, col]}</td>' in chunk
    assert "labelled / class" in chunk


def test_section_skips_a_study_without_two_documents_per_class():
    X = sp.csr_matrix(np.eye(6) + 1.0)
    data = Dataset("tiny", X, np.array(list("aabbcd")), [f"w{j}" for j in range(6)], "text")
    data.train, data.test = np.arange(5), np.arange(5, 6)
    x = S.few_labels(Study(data, "multinomial"), sizes=(1, 2), n_seeds=2)
    assert x.skipped and x.curve is None
    assert x.reading == (
        "Not computed: the smallest class has 1 training documents; one labelled document "
        "per class needs two."
    )
