"""ArviZ's own comparison takes the exact leave-one-out results of elpd_loo as they are.

``arviz.compare`` ranks, differences and weights :func:`bayesnb.model_selection.elpd_loo`
results, checked here against the same numbers computed directly from their pointwise values;
``arviz_plots.plot_compare`` draws the table. The PSIS-LOO of a NUTS fit beside them is in
``tests/test_pymc.py`` (it reuses that file's compiled fit).
"""

from __future__ import annotations

import warnings

import arviz as az
import matplotlib
import numpy as np
import pytest
from arviz_stats.utils import ELPDData

import bayesnb as bnb
from bayesnb.model_selection import ELPD, elpd_loo

matplotlib.use("Agg")

# The central 4 × 4 pixels of the digits: every estimate, the MLE too, gives each held-out
# image's label a probability above 0 (the full 64 pixels leave the MLE at -inf).
PIXELS = [r * 8 + c for r in range(2, 6) for c in range(2, 6)]
ESTIMATES = ("map", "mean", "bayes")


@pytest.fixture(scope="module")
def digits():
    data = bnb.datasets.load_digits_counts()
    return data.data[:, PIXELS], data.target


@pytest.fixture(scope="module")
def exact(digits):
    X, y = digits
    return {e: elpd_loo(bnb.MultinomialNB(alpha=2.0, estimate=e), X, y) for e in ESTIMATES}


def test_elpd_loo_is_an_arviz_result_named_honestly(digits, exact):
    X, y = digits
    res = exact["bayes"]
    assert isinstance(res, ELPD) and isinstance(res, ELPDData)
    assert not isinstance(res, az.ELPDDataLOO)  # not PSIS: reloo, loo_pit... refuse it
    assert (res.kind, res.method, res.scale) == ("loo", "exact", "log")
    assert res.pareto_k is None and res.good_k is None and res.n_samples == 0
    assert res.n_data_points == len(y) and not res.warning
    # The pointwise values are elpd_i itself, its sum the total, its spread the SE.
    assert res.pointwise is res.elpd_i.values
    assert res.elpd_i.dims == ("doc",)
    assert res.elpd == pytest.approx(res.pointwise.sum(), rel=1e-15)
    assert res.se == pytest.approx(np.sqrt(len(y) * np.var(res.pointwise)), rel=1e-15)
    # p = lpd − elpd, lpd the in-sample log predictive density of the labels.
    fitted = bnb.MultinomialNB(alpha=2.0, estimate="bayes").fit(X, y)
    lpd_i = fitted.predict_log_proba(X)[np.arange(len(y)), y]
    np.testing.assert_allclose(res.p_loo_i.values, lpd_i - res.pointwise, rtol=0, atol=1e-10)
    assert res.p == pytest.approx(lpd_i.sum() - res.elpd, abs=1e-8)
    assert res.p_loo_i.values.min() >= -1e-12  # its own label helps every training image here
    # Leaving one image out and refitting gives the pointwise value.
    keep = np.arange(len(y)) != 7
    refit = bnb.MultinomialNB(alpha=2.0, estimate="bayes").fit(X[keep], y[keep])
    assert refit.predict_log_proba(X[7:8])[0, y[7]] == pytest.approx(res.pointwise[7], abs=1e-10)
    text = str(res)
    assert "Exact leave-one-out of 1797 observations" in text and "elpd_loo" in text
    assert "Pareto" not in text and "posterior samples" not in text


def test_az_compare_ranks_differences_and_weights_exact_results(exact):
    cmp = az.compare(exact, round_to="none")
    totals = {name: res.elpd for name, res in exact.items()}
    order = sorted(totals, key=totals.get, reverse=True)
    assert list(cmp.index) == order == ["bayes", "mean", "map"]
    assert list(cmp["rank"]) == [0, 1, 2]
    best = exact[order[0]].pointwise
    for name in order:
        diff = exact[name].pointwise - best
        assert cmp.loc[name, "elpd_diff"] == pytest.approx(diff.sum(), rel=1e-12, abs=1e-12)
        assert cmp.loc[name, "dse"] == pytest.approx(
            np.sqrt(diff.size * np.var(diff)), rel=1e-12, abs=1e-12
        )
        assert cmp.loc[name, "elpd"] == exact[name].elpd
        assert cmp.loc[name, "se"] == exact[name].se
        assert cmp.loc[name, "p"] == exact[name].p
        assert cmp.loc[name, "diag_elpd"] == ""  # no Pareto k, no k diagnostic
    # Measured: Δ = -40.0 (mean) and -48.2 (map) nats, each many standard errors away.
    assert cmp.loc["mean", "elpd_diff"] < -5 * cmp.loc["mean", "dse"]
    assert cmp.loc["map", "elpd_diff"] < cmp.loc["mean", "elpd_diff"]

    # Stacking weights: on the simplex, and no single model scores better than the mixture.
    w = cmp["weight"].to_numpy(dtype=float)
    assert w.sum() == pytest.approx(1.0, abs=1e-9) and w.min() >= 0
    dens = np.exp(np.column_stack([exact[name].pointwise for name in cmp.index]))
    mixture = np.log(dens @ w).sum()
    assert all(mixture >= np.log(dens[:, j]).sum() - 1e-6 for j in range(len(w)))
    assert w[0] > 0.5  # full Bayes carries the mixture

    bb = az.compare(exact, method="BB-pseudo-BMA", round_to="none")
    assert bb["weight"].sum() == pytest.approx(1.0, abs=1e-9)
    assert bb["weight"].idxmax() == "bayes"
    pseudo = az.compare(exact, method="pseudo-BMA", round_to="none")
    z = np.array([totals[name] for name in pseudo.index])
    np.testing.assert_allclose(pseudo["weight"], np.exp(z - z.max()) / np.exp(z - z.max()).sum())


def test_az_compare_keeps_the_pointwise_values_exactly(exact):
    before = {name: res.pointwise.copy() for name, res in exact.items()}
    az.compare(exact, round_to="none")
    for name, res in exact.items():
        np.testing.assert_array_equal(res.elpd_i.values, before[name])


def test_plot_compare_draws_the_exact_table(exact):
    pc = az.plot_compare(az.compare(exact), figure_kwargs={"figsize": (6, 3)})
    fig = pc.get_viz("figure")
    assert isinstance(fig, matplotlib.figure.Figure)
    [ax] = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert set(labels) == set(ESTIMATES)
    matplotlib.pyplot.close(fig)


def test_an_impossible_held_out_label_is_flagged(digits):
    """The MLE on all 64 pixels gives some held-out image's label probability 0."""
    data = bnb.datasets.load_digits_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the prior fallback of 2 images
        res = elpd_loo(bnb.MultinomialNB(estimate="mle"), data.data, data.target)
    assert res.elpd == -np.inf and res.warning
    assert np.isneginf(res.pointwise).sum() >= 1 and np.isnan(res.se)
