"""The HTML report: sections computed from a small fit, one self-contained page, a browser."""

from __future__ import annotations

import base64
import shutil
import subprocess
import time
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import datasets
from bayesnb.cli import load_data
from bayesnb.report import Dataset, ReportBuilder, Study
from bayesnb.report import sections as S

SECTION_IDS = [
    "overview",
    "data",
    "estimates",
    "loo-check",
    "uncertainty",
    "parameters",
    "informative",
    "smoothing",
    "alpha-choice",
    "temperature",
    "sampler",
    "ppc",
    "events",
    "labels",
    "baselines",
    "poisson",
    "burstiness",
    "gda",
]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _text_csv(path: Path, n_docs: int = 160, seed: int = 0) -> Path:
    """A small two-class corpus with Zipf-like word frequencies and shared words."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(300)])
    rows = []
    for i in range(n_docs):
        label = "sport" if i % 2 else "cooking"
        shift = 0 if label == "sport" else 40
        p = 1.0 / (np.arange(300) + 1.0)
        p = np.roll(p, shift)
        words = rng.choice(vocab, size=rng.integers(5, 40), p=p / p.sum())
        rows.append({"label": label, "text": " ".join(words)})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _digits(n: int = 600) -> Dataset:
    d = datasets.load_digits_counts()
    return Dataset("digits", d.data[:n], d.target[:n], d.feature_names, "counts", binarize=8.0)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One quick report with every section: digits, a CSV corpus, wine; NUTS included."""
    tmp = tmp_path_factory.mktemp("report")
    digits = _digits()
    text = load_data(str(_text_csv(tmp / "corpus.csv")))
    wine = load_data("wine")
    studies = [
        Study(digits, "bernoulli"),
        Study(digits, "multinomial"),
        Study(digits, "categorical"),
        Study(text, "multinomial"),
        Study(text, "bernoulli"),
        Study(wine, "gda"),
    ]
    builder = ReportBuilder(studies, nuts=True, quick=True, title="test report")
    steps = []
    # CPU seconds of this process (NUTS chains' threads included), not wall time: under
    # `make test` the other pytest-xdist worker and anything else on the machine share the
    # cores, and the budget is about the report's own cost.
    t0, c0 = time.perf_counter(), time.process_time()
    index = builder.run(tmp / "out", progress=lambda *a: steps.append(a))
    seconds = (time.perf_counter() - t0, time.process_time() - c0)
    return builder, index, seconds, steps


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(index: Path) -> list[tuple[str, dict]]:
    parser = _Tags()
    parser.feed(index.read_text(encoding="utf-8"))
    return parser.tags


def test_report_builds_quickly_with_every_section(built):
    builder, index, (wall, cpu), steps = built
    assert cpu < 60, f"report took {cpu:.0f} s of CPU ({wall:.0f} s wall)"
    assert builder.failures == []
    page = index.read_text(encoding="utf-8")
    ids = [a.get("id") for tag, a in _tags(index) if tag == "section"]
    assert ids == SECTION_IDS
    # Progress: every step reported once, in order, ending with the page.
    assert [s[0] for s in steps] == list(range(1, len(builder.steps) + 1))
    assert [s[2] for s in steps] == builder.steps and steps[-1][2] == "write the page"
    assert "NUTS could not run" not in page
    # Every section has its plain-language reading.
    for sec in SECTION_IDS:
        chunk = page.split(f'<section id="{sec}">', 1)[1].split("</section>", 1)[0]
        assert 'class="reading"' in chunk, sec


def test_every_image_is_embedded_and_nothing_is_external(built):
    _, index, _, _ = built
    tags = _tags(index)
    images = [a["src"] for tag, a in tags if tag == "img"]
    assert len(images) >= 15
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG_MAGIC
    for tag, attrs in tags:
        for key in ("src", "href"):
            value = attrs.get(key)
            if value is not None:
                assert value.startswith(("data:", "#")), (tag, value[:60])
    page = index.read_text(encoding="utf-8")
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "<link" not in page  # the style sheet is inline
    files = sorted((index.parent / "figures").glob("*.png"))
    assert len(files) == len(images)
    assert all(f.read_bytes()[:8] == PNG_MAGIC for f in files)


def test_readings_come_from_the_numbers(built):
    builder, index, _, _ = built
    page = index.read_text(encoding="utf-8")
    est = {r.study.label: r for r in builder.results["estimates"]}
    r = est["digits · multinomial"]
    t = r.table
    # The reading quotes the table's numbers, not boilerplate.
    assert f"On {len(r.y_test)} held-out images" in r.reading
    assert S.fmt(t.loc["bayes", "lpd_per_doc"]) in r.reading
    assert f"for {int(t.loc['mle', 'p0_docs'])} of them" in r.reading
    assert r.reading.replace("'", "&#x27;") in page
    # The table matches a direct computation.
    Xtr, ytr, Xte, yte = S.split_xy(r.study)
    proba = bnb.MultinomialNB(estimate="bayes").fit(Xtr, ytr).predict_proba(Xte)
    lpd = np.mean(np.log(proba[np.arange(len(yte)), np.searchsorted(np.unique(ytr), yte)]))
    assert t.loc["bayes", "lpd_per_doc"] == pytest.approx(lpd)
    np.testing.assert_allclose(r.proba["bayes"], proba)
    # Its leave-one-out column is exact (model_selection.elpd_loo), quoted per document.
    from sklearn.base import clone

    from bayesnb.model_selection import elpd_loo

    exact = elpd_loo(clone(r.study.estimator).set_params(estimate="mean"), Xtr, ytr)
    assert t.loc["mean", "elpd_loo"] == exact.elpd and t.loc["mean", "loo_method"] == "exact"
    assert f"Exact leave-one-out on the {len(ytr)} training labels" in r.reading
    assert S.fmt(exact.elpd / len(ytr)) in r.reading and "Pareto" not in r.reading
    # The smoothing reading quotes the evidence maximum, which is alpha="evidence".
    sm = builder.results["smoothing"][0]
    alpha_ev = sm.study.configured(alpha="evidence").fit(*S.split_xy(sm.study)[:2]).alpha_
    assert sm.alpha_evidence == pytest.approx(float(alpha_ev))
    assert S.fmt(sm.alpha_evidence, 3) in sm.reading
    assert sm.log_evidence.argmax() in (
        np.argmin(np.abs(np.log(sm.alphas) - np.log(alpha_ev))) + np.array([-1, 0, 1])
    )


def test_few_labels_section_runs_on_the_text_study(built):
    builder, index, _, _ = built
    (x,) = builder.results["labels"]
    assert x.study.data.kind == "text" and x.study.model == "multinomial"
    assert x.curve["size"].values.tolist() == [1, 2, 5] and x.curve.sizes["seed"] == 2
    page = index.read_text(encoding="utf-8")
    assert x.table.loc[5, "accuracy: EM"] in page
    assert S.few_labels_headline(x).replace("'", "&#x27;") in page


def test_sampler_section_checks_nuts_against_exact(built):
    builder, _, _, _ = built
    smp = builder.results["sampler"][0]
    assert smp.ok and smp.study.model == "bernoulli"
    assert smp.tree["posterior"]["feature_prob"].shape[:2] == (2, 200)
    agree = smp.agreement
    assert set(agree.index) == {"class_prior", "feature_prob"}
    assert int(agree["parameters"].sum()) == 10 + 10 * 10
    # Exact means differ from NUTS means by a few Monte Carlo standard errors at most.
    assert agree["max |Δ| / MCSE"].max() < 6
    assert {"r_hat", "ess_bulk", "ess_tail"} <= set(smp.summary.columns)
    assert len(smp.rank_data["posterior"].data_vars) == 4


def test_event_models_match_direct_computation(built):
    builder, _, _, _ = built
    ev = next(e for e in builder.results["events"] if e.data.name == "digits")
    study = Study(ev.data, "categorical")
    Xtr, ytr, Xte, yte = S.split_xy(study)
    est = bnb.CategoricalNB(estimate="bayes", alpha="evidence").fit(Xtr, ytr)
    lp = est.predict_log_proba(Xte)[np.arange(len(yte)), np.searchsorted(est.classes_, yte)]
    row = ev.table.loc["categorical, α = evidence"]
    assert row["lpd_per_doc"] == pytest.approx(lp.mean())
    assert row["alpha"] == pytest.approx(float(est.alpha_))
    best = ev.table["lpd_per_doc"].idxmax()
    assert ev.table.loc[best, "diff_to_best"] == 0
    assert (ev.table["diff_to_best"] <= 0).all()


def test_baselines_match_direct_computation(built):
    from sklearn.naive_bayes import ComplementNB

    from bayesnb.families.multinomial import studies as multinomial_studies

    builder, index, _, _ = built
    assert [b.data.name for b in builder.results["baselines"]] == ["digits", "corpus.csv"]
    b = builder.results["baselines"][0]
    t = b.table
    study = Study(b.data, "multinomial")
    Xtr, ytr, Xte, yte = S.split_xy(study)
    cnb = ComplementNB().fit(Xtr, ytr)
    ref = bnb.MultinomialNB().fit(Xtr, ytr)
    ev = bnb.MultinomialNB(alpha="evidence").fit(Xtr, ytr)
    right = {k: m.predict(Xte) == yte for k, m in [("cnb", cnb), ("ref", ref), ("ev", ev)]}
    assert t.loc[b.complement, "accuracy"] == pytest.approx(right["cnb"].mean())
    assert t.loc[b.reference, "accuracy"] == pytest.approx(right["ref"].mean())
    assert t.loc[b.evidence, "alpha"] == pytest.approx(float(ev.alpha_))
    d = right["cnb"].astype(float) - right["ref"]
    assert t.loc[b.complement, "accuracy_gap"] == pytest.approx(d.mean())
    assert t.loc[b.complement, "accuracy_gap_se"] == pytest.approx(d.std(ddof=1) / np.sqrt(d.size))
    assert t.loc[b.reference, "accuracy_gap"] == 0
    # The digits study has a Bernoulli model too, so its learned-α row is there.
    assert "Bernoulli NB, α = evidence" in t.index
    assert t.loc[b.complement, "n_parameters"] == 10 * 63
    # The reading and the overview quote the measured accuracies.
    assert f"{100 * right['cnb'].mean():.1f}%" in b.reading
    assert f"{100 * right['ref'].mean():.1f}%" in b.reading
    page = index.read_text(encoding="utf-8")
    assert multinomial_studies.baselines_headline(b) in page


def test_informative_section_matches_most_informative_features(built):
    builder, _, _, _ = built
    x = builder.results["informative"][0]
    assert x.study.data.kind == "text" and x.study.model == "multinomial"
    Xtr, ytr, Xte, yte = S.split_xy(x.study)
    est = bnb.MultinomialNB().fit(Xtr, ytr)
    proba = est.predict_proba(Xte)
    # Each class is paired with the class its held-out documents give the most probability.
    for a, b in x.pairs:
        mass = proba[yte == a].sum(axis=0)
        mass[list(est.classes_).index(a)] = -np.inf
        assert b == est.classes_[np.argmax(mass)]
    direct = bnb.most_informative_features(
        est, n=10, classes=x.pairs, feature_names=x.study.data.feature_names, random_seed=0
    )
    pd.testing.assert_frame_equal(x.table, direct)
    assert x.table["feature"].str.match(r"w\d+$").all()  # the corpus's words
    top = x.table[x.table["rank"] == 1].sort_values("eti90_lb").iloc[-1]  # the surest
    assert repr(top["feature"]) in x.reading and f"{top['mean']:.2f}" in x.reading


def test_informative_on_digits_names_pixels():
    x = S.informative(Study(_digits(300), "multinomial"), n=3)
    assert len(x.pairs) == 10 and len(x.table) == 30
    assert x.table["feature"].str.match(r"px_\d_\d$").all()
    assert "pixel" in x.reading


def test_poisson_section_is_multinomial_plus_length(built):
    builder, _, _, _ = built
    x = next(p for p in builder.results["poisson"] if p.study.data.name == "digits")
    # The decomposition Poisson = multinomial + Poisson(length) holds to rounding.
    assert x.identity_error < 1e-8
    Xtr, ytr, Xte, yte = S.split_xy(x.study)
    alpha = float(bnb.MultinomialNB(alpha="evidence").fit(Xtr, ytr).alpha_)
    assert x.alpha_evidence == pytest.approx(alpha)
    pois = bnb.PoissonNB(alpha=alpha, beta=1.0).fit(Xtr, ytr)
    mult = bnb.MultinomialNB(alpha=alpha).fit(Xtr, ytr)
    row = x.table.loc["Poisson, α = evidence"]
    assert row["accuracy"] == pytest.approx(np.mean(pois.predict(Xte) == yte))
    assert row["accuracy_vs_multinomial"] == pytest.approx(
        np.mean(pois.predict(Xte) == yte) - np.mean(mult.predict(Xte) == yte)
    )
    assert x.flipped["α = evidence"] == int(np.sum(pois.predict(Xte) != mult.predict(Xte)))
    # Λ_c = Σ_j (S_cj + α) / (N_c + β): the class's token total plus V pseudo-counts.
    c = 3
    lam = (Xtr[ytr == c].sum() + 64 * alpha) / (np.sum(ytr == c) + 1.0)
    assert x.lengths.loc["3", "Λ (α = evidence)"] == pytest.approx(lam)
    lengths = Xtr[ytr == c].sum(axis=1)
    assert x.lengths.loc["3", "dispersion"] == pytest.approx(lengths.var(ddof=1) / lengths.mean())


def test_burstiness_section_matches_distinct_words_check(built):
    from bayesnb.families.dcm.report import distinct_words_check

    builder, _, _, _ = built
    x = next(b for b in builder.results["burstiness"] if b.study.data.kind == "text")
    Xtr, ytr, Xte, yte = S.split_xy(x.study)
    dcm = bnb.DirichletCompoundNB().fit(Xtr, ytr)
    check = distinct_words_check(dcm, Xte, yte, n_replicates=20, random_seed=builder.seed)
    row = x.table.loc["DCM (MAP)"]
    assert row["replicated"] == pytest.approx(check["replicated_mean"])
    assert row["observed"] == pytest.approx(np.mean(np.diff(Xte.tocsr().indptr)))
    assert row["accuracy"] == pytest.approx(np.mean(dcm.predict(Xte) == yte))
    assert f"{x.table['observed'].iloc[0]:.3g}" in x.reading


def test_reliability_equal_mass_bins_by_hand():
    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.45, 0.55], [0.99, 0.01], [0.3, 0.7]])
    y = np.array([0, 0, 0, 1, 0, 1])  # right, wrong, right, right, right, right
    rel = S.reliability(y, proba, [0, 1], n_bins=3)
    # Sorted confidences: .55 .6 | .7 .8 | .9 .99
    np.testing.assert_allclose(rel["confidence"], [0.575, 0.75, 0.945])
    np.testing.assert_allclose(rel["accuracy"], [1.0, 0.5, 1.0])
    assert rel["n"].tolist() == [2, 2, 2]


def test_deleted_estimation_by_hand():
    # One class, three features; halves of 10 and 20 tokens.
    a = np.array([[0.0, 4.0, 6.0]])
    b = np.array([[2.0, 0.0, 18.0]])
    out = S.deleted_estimation(a, a.sum(1), b, b.sum(1), 3, alpha_a=0.5, alpha_b=0.5)
    out = out.set_index("lo")
    # r = 0: feature 0 in A (2 in B → 2·10/20 = 1) and feature 1 in B (4 in A → 4·20/10 = 8).
    assert out.loc[0, "pairs"] == 2
    assert out.loc[0, "held_out"] == pytest.approx((1.0 + 8.0) / 2)
    lap = (1 * 10 / 13 + 1 * 20 / 23) / 2
    assert out.loc[0, "laplace"] == pytest.approx(lap)
    ev = (0.5 * 10 / 11.5 + 0.5 * 20 / 21.5) / 2
    assert out.loc[0, "evidence"] == pytest.approx(ev)
    # r = 4 (feature 1 in A): 0 in B; r = 6: 18·10/20 = 9.
    assert out.loc[4, "held_out"] == 0 and out.loc[6, "held_out"] == pytest.approx(9.0)
    assert out.loc[4, "mle"] == 4


def test_data_summary_numbers():
    d = _digits(300)
    summary = S.data_summary([d])
    row = summary.table.loc["digits"]
    assert row["documents"] == 300 and row["features"] == 64
    assert row["non-zero cells"] == f"{100 * np.count_nonzero(d.X) / d.X.size:.3g}%"
    assert row["median length"] == np.median(d.X.sum(axis=1))
    assert "300 images in 10 classes" in summary.reading


def test_nuts_failure_is_reported_not_raised(tmp_path, monkeypatch):
    def broken(self, *args, **kwargs):
        raise RuntimeError("compiler exploded")

    monkeypatch.setattr(bnb.BernoulliNB, "fit_pymc", broken)
    d = _digits(200)
    builder = ReportBuilder([Study(d, "bernoulli")], nuts=True, quick=True)
    index = builder.run(tmp_path)
    page = index.read_text(encoding="utf-8")
    assert "NUTS could not run here (RuntimeError: compiler exploded)" in page
    assert builder.results["sampler"][0].ok is False
    assert 'id="estimates"' in page and builder.failures == []


def test_warnings_of_the_steps_are_on_the_page(tmp_path, monkeypatch):
    fit = bnb.BernoulliNB.fit

    def grumbling(self, *args, **kwargs):
        warnings.warn("the data grumbled", UserWarning, stacklevel=2)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(bnb.BernoulliNB, "fit", grumbling)
    builder = ReportBuilder([Study(_digits(200), "bernoulli")], nuts=False, quick=True)
    page = builder.run(tmp_path).read_text(encoding="utf-8")
    # Collected before the page is laid out, so its warnings section lists them.
    assert builder.warnings == ["UserWarning: the data grumbled"]
    assert 'id="warnings"' in page and "UserWarning: the data grumbled" in page


def test_builder_arguments():
    with pytest.raises(ValueError, match="at least one Study"):
        ReportBuilder([])
    with pytest.raises(TypeError, match="Study objects"):
        ReportBuilder([bnb.MultinomialNB()])
    with pytest.raises(ValueError, match="model must be one of"):
        Study(_digits(50), "frobnicatenb")


# -- a real browser ---------------------------------------------------------------------------
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(
    _chromium() is None,
    reason="Chromium is not installed (apt-get install chromium); .ci/run installs it",
)
def test_report_renders_in_headless_chromium(built, tmp_path):
    from PIL import Image

    _, index, _, _ = built
    base = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        # Offline: any attempt to reach a host fails (and would log a console error).
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = index.resolve().as_uri()
    shot = tmp_path / "page.png"
    done = subprocess.run(
        [*base, "--enable-logging=stderr", "--v=0", f"--screenshot={shot}",
         "--window-size=1200,2000", url],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert shot.is_file(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.shape == (2000, 1200)
    assert pixels.std() > 20, "the screenshot is blank"
    assert np.mean(pixels < 200) > 0.02  # text and figures, not an empty page
    dom = subprocess.run(
        [*base, "--dump-dom", url], capture_output=True, text=True, timeout=180
    ).stdout
    for title in (
        "Overview",
        "Estimates side by side",
        "Most informative features",
        "Smoothing diagnostics",
        "Against discriminative baselines",
        "Gaussian",
    ):
        assert title in dom
    assert dom.count("<img") == index.read_text(encoding="utf-8").count("<img")


# -- the family protocol: model list, family sections ------------------------------------------
def test_model_list_and_defaults_come_from_the_registry():
    from bayesnb.report.data import default_estimator, report_models
    from bayesnb.report.extension import report_of

    # Every registered family with a default estimator; ColumnwiseNB has none (its blocks).
    assert report_models() == (
        "bernoulli", "multinomial", "categorical", "poisson", "dcm", "gda"
    )  # fmt: skip
    with pytest.raises(TypeError, match="ColumnwiseNB does not support a default estimator"):
        report_of("columnwise").default_estimator()
    d = _digits(60)
    assert default_estimator("bernoulli", d).binarize == 8.0  # the data's threshold
    assert default_estimator("poisson", d).alpha == "evidence"
    assert type(default_estimator("dcm", d)) is bnb.DirichletCompoundNB
    assert Study(d, "gda").report.continuous
    assert not Study(d, "multinomial").report.continuous
    with pytest.raises(ValueError, match="model must be one of"):
        default_estimator("columnwise", d)


def test_a_family_section_is_planned_computed_and_laid_out(monkeypatch):
    from bayesnb.report import builder as B
    from bayesnb.report import layout
    from bayesnb.report.extension import FamilySection, family_sections
    from bayesnb.report.html import Block, Section

    seen = []

    def run(target, *, seed, cfg):
        seen.append((target, seed, cfg["repeats"]))
        return len(target)

    extra = FamilySection(
        key="count",
        title="count",
        run=run,
        layout=lambda results, draw: Section("count", "Count", "", [Block(str(results), "")]),
        per_dataset=lambda studies: studies if len(studies) == 2 else None,
        headline=lambda n: f"{n} discrete studies.",
    )
    monkeypatch.setattr(B, "family_sections", lambda: [*family_sections(), extra])
    d = _digits(120)
    studies = [Study(d, "poisson"), Study(d, "dcm")]
    builder = ReportBuilder(studies, quick=True, seed=3)
    # Poisson/DCM feed no generic section but the estimates, the exact cross-validation
    # sections (on the first study, as none ranks "parameters") and the event models; no
    # multinomial study, so no baselines, Poisson or burstiness section; then the new one.
    assert builder.steps == [
        "data summary",
        "estimates: digits · poisson",
        "estimates: digits · dcm",
        "exact LOO against PSIS: digits · poisson",
        "predictive uncertainty: digits · poisson",
        "smoothing chosen three ways: digits · poisson",
        "calibration and the likelihood temperature: digits · poisson",
        "event models: digits",
        "count: digits",
        "write the page",
    ]
    _, step = builder._steps[-1]
    step()
    assert seen == [(studies, 3, 2)] and builder.results["count"] == [2]
    page = layout.page(builder)
    assert [s.id for s in page] == ["overview", "estimates", "count"]
    assert page[-1].blocks[0].title == "[2]"
    assert "2 discrete studies." in page[0].blocks[0].items
