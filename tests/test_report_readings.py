"""The report's sentences against the tables they summarise: the numbers each quotes, the
direction of each comparison, and the prior each table says its rows use."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import datasets
from bayesnb.families.multinomial import studies as multinomial_studies
from bayesnb.report import Dataset, Study
from bayesnb.report import sections as S


@pytest.fixture(scope="module")
def digits() -> Dataset:
    d = datasets.load_digits_counts()
    return Dataset("digits", d.data[:400], d.target[:400], d.feature_names, "counts")


@pytest.fixture(scope="module")
def learned(digits):
    """The estimates of a study whose α is learned by maximum evidence."""
    study = Study(digits, "multinomial", estimator=bnb.MultinomialNB(alpha="evidence"))
    return S.estimates(study)


def test_estimates_table_names_the_learned_alpha_its_numbers_use(learned, digits):
    r = learned
    Xtr, ytr, Xte, yte = S.split_xy(r.study)
    mean = bnb.MultinomialNB(alpha="evidence").fit(Xtr, ytr)
    assert float(mean.alpha_) != 1.0
    assert f'α = {S.fmt(float(mean.alpha_))} (alpha="evidence"' in r.priors
    assert "MAP: α = 2, class-prior α = 2" in r.priors and "class-prior α = 1" in r.priors
    # The numbers of the posterior-mean row are those of the learned α, not of α = 1.
    proba = mean.predict_proba(Xte)
    lpd = np.mean(np.log(proba[np.arange(len(yte)), yte]))
    assert r.table.loc["mean", "lpd_per_doc"] == pytest.approx(lpd, rel=1e-12)
    at_one = bnb.MultinomialNB().fit(Xtr, ytr).predict_proba(Xte)
    assert abs(np.mean(np.log(at_one[np.arange(len(yte)), yte])) - lpd) > 1e-6
    # A fixed α is quoted as configured.
    fixed = S.estimates(Study(digits, "multinomial", estimator=bnb.MultinomialNB(alpha=0.5)))
    assert "Posterior mean and full Bayes: α = 0.5, class-prior α = 1." in fixed.priors


def test_estimates_section_text_says_elpd_differs_by_estimate(learned):
    from bayesnb.report.layout import estimates_section

    class Page:  # what the section reads of its builder
        def __init__(self):
            self.results = {"estimates": [learned]}

        @staticmethod
        def _draw(*args):
            return b""

    section = estimates_section(Page())
    captions = [caption for b in section.blocks for caption, _ in b.tables]
    text = " ".join([section.intro, *captions])
    assert "the others with α = 1" not in text
    assert "depends on the prior, not the estimate" not in text
    assert learned.priors in text
    # ... as it does: the exact LOO of every estimate is its own.
    elpd = learned.table["elpd_loo"]
    assert elpd["mle"] != elpd["mean"] != elpd["bayes"]


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


@pytest.fixture(scope="module")
def wine_gda():
    from bayesnb.cli import load_data

    return S.estimates(Study(load_data("wine"), "gda"))


@pytest.mark.parametrize("case", ["learned", "wine_gda"])
def test_estimates_reading_quotes_its_table_and_the_directions(case, request):
    r = request.getfixturevalue(case)
    t = r.table
    _, doc = S.words(r.study.data)
    lpd = t["lpd_per_doc"]
    best, _ = S.best_estimate(lpd)
    assert lpd[best] == lpd.max()
    assert f"the best label log density is {S.fmt(lpd[best])} nats" in r.reading
    assert f"(accuracy {100 * t.loc[best, 'accuracy']:.1f}%)" in r.reading
    zero = int(t.loc["mle", "p0_docs"])
    if zero:  # the MLE rules a true label out: its lpd is -inf, which the reading says
        assert np.isneginf(lpd["mle"])
        assert f"probability 0 for {zero} of them" in r.reading
        assert f"the posterior mean scores {S.fmt(lpd['mean'])}" in r.reading
    else:
        m = re.search(r"The posterior mean (beats|trails) the MLE by (\S+) nats", r.reading)
        gain = lpd["mean"] - lpd["mle"]
        assert m.group(1) == ("beats" if gain > 0 else "trails")
        assert _number(m.group(2)) == pytest.approx(abs(gain), rel=1e-2)
    m = re.search(r"changes that by (\S+) nats", r.reading)
    assert _number(m.group(1)) == pytest.approx(lpd["bayes"] - lpd["mean"], rel=1e-2, abs=5e-3)
    per_doc = t.loc["mean", "elpd_loo"] / r.n_train
    assert f"gives {S.fmt(per_doc)} nats per {doc} for the posterior mean" in r.reading


def _baseline(acc_ref: float, acc_cnb: float, acc_ev: float) -> str:
    data = Dataset("toy", np.eye(3), np.arange(3), np.array(["a", "b", "c"]), "text")
    ref, cnb, ev = "ref", "cnb", "ev"
    table = pd.DataFrame(
        {
            "accuracy": [acc_ref, acc_cnb, acc_ev],
            "accuracy_gap_se": [0.0, 0.01, 0.01],
            "alpha": [1.0, 1.0, 0.05],
            "log_loss": [0.5, 0.4, 0.45],
        },
        index=[ref, cnb, ev],
    )
    r = multinomial_studies.BaselineResult(data, table, ref, cnb, ev)
    return multinomial_studies._baselines_reading(r), multinomial_studies.baselines_headline(r)


@pytest.mark.parametrize(
    ("accuracies", "phrase"),
    [
        ((0.80, 0.90, 0.85), "which closes 50% of the gap"),
        ((0.80, 0.85, 0.874), "overtaking ComplementNB by 2.4 points"),  # would be "148%"
        ((0.80, 0.90, 0.90), "which closes the gap to ComplementNB"),
        ((0.80, 0.90, 0.78), None),  # the evidence α loses ground: no share at all
        ((0.90, 0.80, 0.95), None),  # ComplementNB behind: no gap to close
    ],
)
def test_baselines_gap_share_is_within_0_and_100_percent(accuracies, phrase):
    ref, cnb, ev = accuracies
    for text in _baseline(ref, cnb, ev):
        shares = [int(s) for s in re.findall(r"closes (\d+)% of the gap", text)]
        assert all(0 <= s <= 100 for s in shares)
        if phrase is None:
            assert "closes" not in text and "overtaking" not in text
        else:
            assert phrase in text
    reading, _ = _baseline(ref, cnb, ev)
    assert f"{100 * cnb:.1f}%" in reading and f"{100 * ev:.1f}%" in reading
    assert ("ahead" if cnb >= ref else "behind") in reading


def test_informative_reading_quotes_the_surest_feature_and_its_ranking(digits):
    x = S.informative(Study(digits, "multinomial"), n=5)
    t = x.table
    assert t.attrs["rank"] == "lower"
    for _, g in t.groupby(["class", "versus"], sort=False):  # ranked by the lower end
        assert np.all(np.diff(g["eti90_lb"].to_numpy()) <= 0)
    first = t[t["rank"] == 1].sort_values("eti90_lb").iloc[-1]
    assert f"The surest is {first['feature']!r} for {first['class']}" in x.reading
    assert f"log-odds {first['mean']:.2f} (90% interval {first['eti90_lb']:.2f} to" in x.reading
    assert f"seen {first['count']:.0f} times" in x.reading
    assert "ranked by the lower end of the 90% equal-tailed credible interval" in x.reading
    assert "ranked by the exact posterior mean" not in x.reading
    n_zero = int((t["eti90_lb"] <= 0).sum())
    if n_zero:
        assert f"{n_zero} of the {len(t)} intervals include 0" in x.reading
    else:
        assert "Every interval excludes 0" in x.reading


def test_gda_learning_curve_reading_follows_the_curve():
    import dataclasses

    from bayesnb.cli import load_data
    from bayesnb.families.gda import studies

    r = studies.gda_study(Study(load_data("wine"), "gda"), seed=0, n_repeats=2, grid_size=20)
    names = list(r.curve["estimator"].values)
    lr = r.curve["error_mean"].sel(estimator=names[1]).values

    def reading(g) -> str:
        err = r.curve["error_mean"].copy()
        err.loc[{"estimator": names[0]}] = g
        return studies._gda_reading(dataclasses.replace(r, curve=r.curve.assign(error_mean=err)))

    # The sentence about who is ahead follows the curve, ties included.
    assert "Logistic regression is ahead at every size" in reading(lr + 0.01)
    assert "GDA stays ahead at every size" in reading(lr - 0.01)
    assert "The two models err equally at every size" in reading(lr)
    tied_then_behind = lr + np.where(np.arange(lr.size) % 2 == 0, 0.0, 0.01)
    text = reading(tied_then_behind)
    assert "GDA is never ahead" in text and "ahead at every size" not in text
    assert "ahead at every size" not in reading(lr - np.where(np.arange(lr.size) < 3, 0.01, -0.01))
