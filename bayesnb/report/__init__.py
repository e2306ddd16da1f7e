"""Report: studies (data set × model) -> one self-contained HTML page with figures.

``build(out, studies)`` computes every section (:mod:`bayesnb.report.sections`), draws its
figures (:mod:`bayesnb.report.figures`) and writes ``out/index.html`` (figures embedded as
base64 PNG, no external URL, no JavaScript) plus the same figures as files in
``out/figures/``. :class:`ReportBuilder` exposes the steps, so a caller can show progress.

Sections: overview, the saved model (when reporting one), data, estimates side by side
(metrics table from :func:`bayesnb.compare`, reliability diagrams), parameters (ArviZ forest
plot, shrinkage), most informative features (posterior log-odds ratios with intervals),
smoothing diagnostics (deleted estimation, log evidence over α), sampler diagnostics (NUTS
against the exact posterior; optional), posterior predictive checks, event models compared,
naive Bayes against scikit-learn baselines (ComplementNB, logistic regression), Poisson
against multinomial (the length term), burstiness (the DCM's distinct-words check), and GDA
(linear link, learning curve, decision regions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from bayesnb.report import figures as F
from bayesnb.report import sections as S
from bayesnb.report.data import Dataset, Study, quiet
from bayesnb.report.html import Block, Figure, Section, render

__all__ = ["Dataset", "ReportBuilder", "Study", "build"]

Progress = Callable[[int, int, str, float], None]


def _settings(quick: bool) -> dict:
    """Sizes of the expensive parts; ``quick`` trades resolution for speed (tests)."""
    if quick:
        return {
            "loo_draws": 200,
            "forest_draws": 300,
            "n_grid": 13,
            "cv_folds": 3,
            "repeats": 2,
            "grid_size": 80,
            "nuts": {"n_features": 10, "draws": 200, "tune": 200, "chains": 2},
        }
    return {
        "loo_draws": 500,
        "forest_draws": 1000,
        "n_grid": 33,
        "cv_folds": 5,
        "repeats": 5,
        "grid_size": 200,
        "nuts": {"n_features": 30, "draws": 500, "tune": 500, "chains": 4},
    }


def _pick(studies: Sequence[Study], models: Sequence[str], prefer_text: bool = True):
    """The first study whose model is in ``models`` (text data first), or None."""
    ranked = sorted(
        (s for s in studies if s.model in models),
        key=lambda s: (not (prefer_text and s.data.kind == "text"), models.index(s.model)),
    )
    return ranked[0] if ranked else None


class ReportBuilder:
    """Plan, run and write a report.

    Parameters
    ----------
    studies : sequence of Study
    nuts : bool, default False
        Add the sampler-diagnostics section: a small NUTS fit of the first Bernoulli (else
        multinomial) study checked against the exact posterior.
    nuts_tree : xarray.DataTree, optional
        A saved NUTS fit of the first study's ``fitted`` model, used instead of sampling.
    title : str
    seed : int, default 0
        Seed of every random step (draws, splits, generated documents).
    quick : bool, default False
        Fewer draws, grid points and repeats (for tests and previews).
    """

    def __init__(
        self,
        studies: Sequence[Study],
        *,
        nuts: bool = False,
        nuts_tree=None,
        title: str = "bayesnb report",
        seed: int = 0,
        quick: bool = False,
    ) -> None:
        if not studies:
            raise ValueError("studies must hold at least one Study")
        bad = [s for s in studies if not isinstance(s, Study)]
        if bad:
            raise TypeError(f"studies must be Study objects, got {type(bad[0]).__name__}")
        self.studies = list(studies)
        self.title = title
        self.seed = seed
        self.quick = quick
        self.cfg = _settings(quick)
        self.results: dict[str, object] = {}
        self.timings: list[tuple[str, float]] = []
        self.warnings: list[str] = []
        self.failures: list[str] = []
        self._steps: list[tuple[str, Callable[[], None]]] = []
        self._plan(nuts, nuts_tree)

    # -- planning --------------------------------------------------------------------------
    def _plan(self, nuts: bool, nuts_tree) -> None:
        add = self._steps.append
        seed, cfg = self.seed, self.cfg
        datasets = list({id(s.data): s.data for s in self.studies}.values())
        saved = [s for s in self.studies if s.fitted is not None]
        for s in saved:
            add(
                (f"saved model: {s.data.name}", lambda s=s: self._put("saved", s, S.saved_model(s)))
            )
        add(("data summary", lambda: self._put("data", None, S.data_summary(datasets))))
        for s in self.studies:
            add(
                (
                    f"estimates: {s.label}",
                    lambda s=s: self._put(
                        "estimates", s, S.estimates(s, loo_draws=cfg["loo_draws"])
                    ),
                )
            )
        param = _pick(self.studies, ("multinomial", "bernoulli"))
        if param is not None:
            add(
                (
                    f"parameters: {param.label}",
                    lambda param=param: self._put(
                        "parameters",
                        param,
                        S.parameters(param, draws=cfg["forest_draws"], seed=seed),
                    ),
                )
            )
            add(
                (
                    f"smoothing: {param.label}",
                    lambda param=param: self._put(
                        "smoothing",
                        param,
                        S.smoothing(
                            param, seed=seed, n_grid=cfg["n_grid"], cv_folds=cfg["cv_folds"]
                        ),
                    ),
                )
            )
        info = _pick(self.studies, ("multinomial", "bernoulli"))
        if info is not None:
            add(
                (
                    f"informative features: {info.label}",
                    lambda info=info: self._put(
                        "informative", info, S.informative(info, seed=seed)
                    ),
                )
            )
        if nuts_tree is not None and saved:
            s = saved[0]
            add(
                (
                    f"NUTS (saved fit): {s.label}",
                    lambda s=s: self._put(
                        "sampler", s, S.sampler(s, tree=nuts_tree, fitted=s.fitted, seed=seed)
                    ),
                )
            )
        elif nuts:
            s = _pick(self.studies, ("bernoulli", "multinomial", "categorical"), prefer_text=False)
            if s is None:
                self.failures.append(
                    "NUTS was requested, but only the discrete models have a PyMC declaration "
                    "here; no study qualifies."
                )
            else:
                add(
                    (
                        f"NUTS: {s.label}",
                        lambda s=s: self._put("sampler", s, S.sampler(s, seed=seed, **cfg["nuts"])),
                    )
                )
        for d in datasets:
            same = [s for s in self.studies if s.data is d and s.model != "gda"]
            ppc = _pick(same, ("multinomial", "bernoulli"))
            if ppc is not None:
                add(
                    (
                        f"posterior predictive: {ppc.label}",
                        lambda ppc=ppc: self._put(
                            "ppc", ppc, S.posterior_predictive(ppc, seed=seed)
                        ),
                    )
                )
            if len(same) >= 2:
                add(
                    (
                        f"event models: {d.name}",
                        lambda same=same: self._put("events", same[0], S.event_models(same)),
                    )
                )
            multi = next((s for s in same if s.model == "multinomial"), None)
            if multi is not None:
                add(
                    (
                        f"baselines: {d.name}",
                        lambda same=same: self._put("baselines", same[0], S.baselines(same)),
                    )
                )
                add(
                    (
                        f"Poisson against multinomial: {d.name}",
                        lambda m=multi: self._put("poisson", m, S.poisson_vs_multinomial(m)),
                    )
                )
                add(
                    (
                        f"burstiness (DCM): {d.name}",
                        lambda m=multi: self._put("burstiness", m, S.burstiness(m, seed=seed)),
                    )
                )
        for s in self.studies:
            if s.model == "gda":
                add(
                    (
                        f"GDA: {s.data.name}",
                        lambda s=s: self._put(
                            "gda",
                            s,
                            S.gda_study(
                                s, seed=seed, n_repeats=cfg["repeats"], grid_size=cfg["grid_size"]
                            ),
                        ),
                    )
                )

    def _put(self, family: str, study, result) -> None:
        self.results.setdefault(family, []).append(result)

    def _draw(self, plot, result) -> bytes:
        """PNG bytes of ``plot(result)``; a failure is recorded and gives empty bytes."""
        try:
            return plot(result)
        except Exception as exc:  # one broken figure must not cost the whole report
            self.failures.append(f"figure {plot.__name__}: {type(exc).__name__}: {exc}")
            return b""

    @property
    def steps(self) -> list[str]:
        """Names of the computing steps, in order (writing the page is one more step)."""
        return [name for name, _ in self._steps] + ["write the page"]

    # -- running ---------------------------------------------------------------------------
    def run(self, out, progress: Progress | None = None) -> Path:
        """Compute every section, draw the figures and write ``out/index.html``.

        Parameters
        ----------
        out : str or path-like
            Folder to write (created if missing).
        progress : callable, optional
            Called after every step as ``progress(done, total, name, seconds)``.

        Returns
        -------
        Path
            The written ``index.html``.
        """
        total = len(self._steps) + 1
        with quiet() as caught:
            for i, (name, step) in enumerate(self._steps, start=1):
                t0 = time.perf_counter()
                try:
                    step()
                except Exception as exc:  # the page says which section is missing and why
                    self.failures.append(f"step {name!r}: {type(exc).__name__}: {exc}")
                seconds = time.perf_counter() - t0
                self.timings.append((name, seconds))
                if progress is not None:
                    progress(i, total, name, seconds)
            t0 = time.perf_counter()
            sections = self._sections()
        self.warnings = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
        path = self._write(Path(out), sections)
        seconds = time.perf_counter() - t0
        self.timings.append(("write the page", seconds))
        if progress is not None:
            progress(total, total, "write the page", seconds)
        return path

    # -- assembling ------------------------------------------------------------------------
    def _sections(self) -> list[Section]:
        r = self.results
        out = [self._overview()]
        if "saved" in r:
            out.append(
                Section(
                    "saved-model",
                    "The saved model",
                    "The fitted model read from the file, scored on the data given with it.",
                    [Block(x.study.source, x.reading, [("", x.table)]) for x in r["saved"]],
                )
            )
        if "data" in r:
            data = r["data"][0]
            figure = self._draw(F.plot_data_summary, data)
            block = Block(
                "",
                data.reading,
                [("One row per data set", data.table)],
                [Figure("data", figure, "Class sizes and lengths.")],
            )
            intro = (
                "What the models are fitted on: every data set is split once, stratified by "
                "class, into the same training and test documents for every section."
            )
            out.append(Section("data", "Data", intro, [block]))
        out.append(self._estimates_section())
        if "parameters" in r:
            p = r["parameters"][0]
            out.append(
                Section(
                    "parameters",
                    "Parameters",
                    "One prior, four estimates: the MLE, the MAP under Dirichlet(2) (add-one), the "
                    "posterior mean under Dirichlet(α), and exact draws from the conjugate "
                    "posterior.",
                    [
                        Block(
                            p.study.label,
                            p.reading,
                            figures=[
                                Figure(
                                    "forest",
                                    self._draw(F.plot_forest, p),
                                    "ArviZ forest plot (az.plot_forest) of the most "
                                    "class-specific probabilities; log scale.",
                                ),
                                Figure(
                                    "shrinkage",
                                    self._draw(F.plot_shrinkage, p),
                                    "Every (class, feature) pair: the posterior mean expressed "
                                    "as a count, against its training count (the MLE is the "
                                    "diagonal).",
                                ),
                            ],
                        )
                    ],
                )
            )
        if "informative" in r:
            x = r["informative"][0]
            perc = round(100 * x.ci_prob)
            shown = x.table[x.table["rank"] <= 5][
                ["class", "versus", "rank", "feature", "mean", "sd", f"eti{perc}_lb",
                 f"eti{perc}_ub", "count", "count_versus"]
            ].rename(columns={"count_versus": "count (versus)"})  # fmt: skip
            out.append(
                Section(
                    "informative",
                    "Most informative features",
                    "bayesnb.most_informative_features: the posterior log-odds ratio "
                    "log(φ_a / φ_b) of a feature between two classes, with its exact mean "
                    "(digamma differences) and an equal-tailed credible interval from exact "
                    "posterior draws, for each class against the class its held-out documents "
                    "are most often mistaken for.",
                    [
                        Block(
                            x.study.label,
                            x.reading,
                            [("Top 5 features of each pair", shown.set_index("class"))],
                            [
                                Figure(
                                    f"informative-{x.study.data.name}",
                                    self._draw(F.plot_informative, x),
                                    "Posterior mean (dot) and "
                                    f"{perc}% equal-tailed interval (line) of log(φ_a / φ_b); "
                                    "orange: features never seen in the rival class.",
                                )
                            ],
                        )
                    ],
                )
            )
        if "smoothing" in r:
            sm = r["smoothing"][0]
            table = sm.deleted.set_index("r")[["pairs", "held_out", "mle", "laplace", "evidence"]]
            table = table.rename(
                columns={
                    "pairs": "pairs",
                    "held_out": "held out",
                    "mle": "MLE",
                    "laplace": "add-one",
                    "evidence": "evidence α",
                }
            )
            table.index = [
                f"{int(a)}" if b - a == 1 else f"{int(a)}–{int(b) - 1}"
                for a, b in zip(sm.deleted["lo"], sm.deleted["hi"], strict=True)
            ]
            table.index.name = "count r"
            out.append(
                Section(
                    "smoothing",
                    "Smoothing diagnostics",
                    "Deleted (held-out) estimation: how often does a (class, feature) pair seen "
                    "r times in one half of the training data occur in the other half? An "
                    "estimate is good if it predicts that.",
                    [
                        Block(
                            sm.study.label,
                            sm.reading,
                            [("Average count in the other half, by count r", table.head(16))],
                            [
                                Figure(
                                    "smoothing",
                                    self._draw(F.plot_deleted_estimation, sm),
                                    "Left: held-out counts against r, with each estimate's "
                                    "prediction. Right: log evidence over α, its maximum and "
                                    "the cross-validated α.",
                                )
                            ],
                        )
                    ],
                )
            )
        if "sampler" in r:
            out.append(self._sampler_section(r["sampler"][0]))
        if "ppc" in r:
            out.append(
                Section(
                    "ppc",
                    "Posterior predictive checks",
                    "Documents generated by the fitted model (est.sample) against the real "
                    "training documents.",
                    [
                        Block(
                            x.study.label,
                            x.reading,
                            figures=[
                                Figure(
                                    f"ppc-{x.study.data.name}",
                                    self._draw(F.plot_ppc, x),
                                    "Real (dark) and generated (pink) documents.",
                                )
                            ],
                        )
                        for x in r["ppc"]
                    ],
                )
            )
        if "events" in r:
            blocks = []
            for x in r["events"]:
                t = x.table[
                    ["alpha", "accuracy", "lpd_per_doc", "se", "diff_to_best", "diff_se"]
                ].rename(
                    columns={
                        "lpd_per_doc": "log p(y|x) / doc",
                        "diff_to_best": "gap to best",
                        "diff_se": "paired SE",
                        "alpha": "α",
                    }
                )
                blocks.append(
                    Block(
                        x.data.name,
                        x.reading,
                        [("Held-out labels, full-Bayes scoring", t)],
                        [
                            Figure(
                                f"events-{x.data.name}",
                                self._draw(F.plot_event_models, x),
                                "Held-out label log density per document; blue: α by maximum "
                                "evidence, grey: α = 1.",
                            )
                        ],
                    )
                )
            out.append(
                Section(
                    "events",
                    "Event models compared",
                    "The same documents seen as binary presence (Bernoulli), token counts "
                    "(multinomial) or values per feature (categorical).",
                    blocks,
                )
            )
        if "baselines" in r:
            blocks = []
            cols = {
                "alpha": "α",
                "accuracy": "accuracy",
                "accuracy_gap": "gap to α = 1 (points)",
                "accuracy_gap_se": "± paired SE",
                "log_loss": "log loss",
                "ece": "ECE",
                "lpd_per_doc": "log p(y|x) / doc",
                "n_parameters": "parameters",
            }
            for x in r["baselines"]:
                t = x.table[list(cols)].copy()
                t[["accuracy_gap", "accuracy_gap_se"]] *= 100  # percentage points
                t = t.rename(columns=cols)
                t.index.name = "model"
                blocks.append(
                    Block(
                        x.data.name,
                        x.reading,
                        [(f"bayesnb.compare on {len(x.data.test)} held-out documents", t)],
                        [
                            Figure(
                                f"baselines-{x.data.name}",
                                self._draw(F.plot_baselines, x),
                                "Grey: α = 1; blue: α by maximum evidence; purple: "
                                "scikit-learn baselines. Dotted line: multinomial NB, α = 1.",
                            )
                        ],
                    )
                )
            out.append(
                Section(
                    "baselines",
                    "Against discriminative baselines",
                    "The generative models beside scikit-learn's ComplementNB (Rennie et al. "
                    "2003: each class scored by the complement of its word distribution, built "
                    "for skewed class sizes) and L2 logistic regression, on the same split. The "
                    "baselines have no posterior, so no PSIS-LOO.",
                    blocks,
                )
            )
        if "poisson" in r:
            blocks = []
            for x in r["poisson"]:
                t = x.table[["alpha", "accuracy", "lpd_per_doc"]].copy()
                t["Δ accuracy (points)"] = 100 * x.table["accuracy_vs_multinomial"]
                t["± SE (points)"] = 100 * x.table["accuracy_vs_multinomial_se"]
                t["Δ log p(y|x) / doc"] = x.table["lpd_per_doc_vs_multinomial"]
                t["± SE (nats)"] = x.table["lpd_per_doc_vs_multinomial_se"]
                t = t.rename(columns={"alpha": "α", "lpd_per_doc": "log p(y|x) / doc"})
                blocks.append(
                    Block(
                        x.study.data.name,
                        x.reading,
                        [
                            (
                                "Held-out labels, posterior means (Δ: Poisson − multinomial)",
                                t,
                            ),
                            ("Training lengths per class against the Poisson's Λ_c", x.lengths),
                        ],
                        [
                            Figure(
                                f"poisson-{x.study.data.name}",
                                self._draw(F.plot_poisson, x),
                                "Left: observed lengths (mean ± sd) and the Poisson's (Λ_c ± "
                                "√Λ_c). Right: held-out label log density; squares: Poisson.",
                            )
                        ],
                    )
                )
            out.append(
                Section(
                    "poisson",
                    "Poisson against multinomial",
                    "Poisson naive Bayes (a Gamma(α, 1) prior on every rate) models each count "
                    "independently, and so the length of a document; the multinomial conditions "
                    "on the length. Same α, same split.",
                    blocks,
                )
            )
        if "burstiness" in r:
            blocks = []
            cols = {
                "accuracy": "accuracy",
                "lpd_per_doc": "log p(y|x) / doc",
                "observed": "distinct (real)",
                "replicated": "distinct (copies)",
                "ratio": "ratio",
                "p_value": "p-value",
            }
            for x in r["burstiness"]:
                blocks.append(
                    Block(
                        x.study.data.name,
                        x.reading,
                        [
                            (
                                "Held-out documents and their generated copies",
                                x.table.rename(columns=cols),
                            ),
                            ("Mean distinct features per document, by class", x.per_class),
                        ],
                        [
                            Figure(
                                f"burstiness-{x.study.data.name}",
                                self._draw(F.plot_burstiness, x),
                                "Mean distinct features per held-out document: real (diamonds) "
                                "and generated copies of the same class and length.",
                            )
                        ],
                    )
                )
            out.append(
                Section(
                    "burstiness",
                    "Burstiness: the Dirichlet-compound-multinomial",
                    "bayesnb.dcm.distinct_words_check: every held-out document is generated again "
                    "by each model (same class, same length) and the distinct words of the copies "
                    "are counted. The DCM (Madsen, Kauchak & Elkan 2005) draws a word "
                    "distribution per document, so words repeat within a document as in text.",
                    blocks,
                )
            )
        if "gda" in r:
            blocks = []
            for x in r["gda"]:
                blocks.append(
                    Block(
                        x.study.data.name,
                        x.reading,
                        figures=[
                            Figure(
                                f"gda-coef-{x.study.data.name}",
                                self._draw(F.plot_gda_coefficients, x),
                                "GDA's implied logistic coefficients against logistic "
                                "regression's.",
                            ),
                            Figure(
                                f"gda-curve-{x.study.data.name}",
                                self._draw(F.plot_learning_curve, x),
                                "Learning curve (bayesnb.learning_curve), Ng & Jordan style.",
                            ),
                            Figure(
                                f"gda-regions-{x.study.data.name}",
                                self._draw(F.plot_gda_regions, x),
                                "Decision regions; dots: training, circles: test.",
                            ),
                        ],
                    )
                )
            out.append(
                Section(
                    "gda",
                    "Gaussian discriminant analysis",
                    "Continuous features, standardised with the training moments. Shared-Σ GDA "
                    "is a linear logistic model in x; per-class Σ gives quadratic boundaries.",
                    blocks,
                )
            )
        if self.failures:
            out.append(
                Section(
                    "failures",
                    "Sections or figures that could not be computed",
                    "These parts of the report are missing; the error of each is below.",
                    [Block("", "", notes=self.failures)],
                )
            )
        if self.warnings:
            out.append(
                Section(
                    "warnings",
                    "Warnings raised while building",
                    "Shown so nothing is hidden; the sections above discuss the ones that matter.",
                    [Block("", "", notes=self.warnings[:30])],
                )
            )
        return out

    def _overview(self) -> Section:
        rows, items = [], []
        estimates = self.results.get("estimates", [])
        best_bayes, over = 0, []
        for x in estimates:
            t = x.table
            best, tied = S.best_estimate(t["lpd_per_doc"])
            row = {"study": x.study.label}
            for name in ("mle", "map", "mean", "bayes", "logistic"):
                if name in t.index:
                    row[S.ESTIMATE_LABELS[name]] = t.loc[name, "lpd_per_doc"]
            row["best"] = " = ".join(S.ESTIMATE_LABELS[k] for k in tied)
            row["accuracy (best)"] = t.loc[best, "accuracy"]
            rows.append(row)
            best_bayes += "bayes" in tied
            if x.study.model != "gda" and "bayes" in x.proba:
                k, acc = S.overconfidence(x.y_test, x.proba["bayes"], x.classes)
                if k:
                    over.append((x.study.label, k, len(x.y_test), acc))
        n = len(rows)
        n_inf = sum(
            1 for x in estimates if "mle" in x.table.index and x.table.loc["mle", "p0_docs"]
        )
        if n_inf:
            items.append(
                f"Zero counts: in {n_inf} of {n} studies the MLE gives the true class of some "
                "held-out document probability 0 (log density −∞); every smoothed estimate "
                "avoids it."
            )
        if n:
            items.append(
                f"The full posterior predictive is the best (or tied best) estimate by held-out "
                f"label log density in {best_bayes} of {n} studies."
            )
        if over:
            worst = min(over, key=lambda o: o[3])
            items.append(
                "Naive Bayes is over-confident: of the held-out documents it gives more than 99% "
                "to one class, the share it gets right ranges from "
                f"{100 * min(o[3] for o in over):.0f}% ({worst[0]}) to "
                f"{100 * max(o[3] for o in over):.0f}%."
            )
        for sm in self.results.get("smoothing", []):
            items.append(S.smoothing_headline(sm))
        for ev in self.results.get("events", []):
            t = ev.table
            top = t["lpd_per_doc"].idxmax()
            items.append(
                f"Event models ({ev.data.name}): the {top.replace(', ', ' model with ')} "
                "predicts held-out labels best "
                f"({S.fmt(t.loc[top, 'lpd_per_doc'])} nats per document)."
            )
        for b in self.results.get("baselines", []):
            items.append(S.baselines_headline(b))
        for smp in self.results.get("sampler", []):
            if smp.ok:
                z = float(smp.agreement["max |Δ| / MCSE"].max())
                items.append(
                    f"NUTS ({smp.study.label}): {smp.divergences} divergences, largest "
                    f"|E_nuts − E_exact| / MCSE {z:.2f} over "
                    f"{int(smp.agreement['parameters'].sum())} parameters."
                )
            else:
                items.append(f"NUTS: not available here ({smp.error}).")
        table = pd.DataFrame(rows).set_index("study") if rows else pd.DataFrame()
        reading = (
            "Held-out label log density per document, log p(y | x) (higher is better; 0 is "
            "perfect), for every study and estimate. What the sections below find:"
            if rows
            else ""
        )
        blocks = [
            Block(
                "",
                reading,
                [("log p(y | x) per held-out document", table)] if rows else [],
                items=items,
            )
        ]
        return Section(
            "overview",
            "Overview",
            "bayesnb fits each generative classifier once from sufficient statistics and scores "
            "it four ways: maximum likelihood (MLE), posterior mode (MAP), posterior mean, and "
            "the full posterior predictive (Bayes). Every number below is computed on held-out "
            "documents unless it says otherwise.",
            blocks,
        )

    def _estimates_section(self) -> Section:
        blocks = []
        cols = {
            "accuracy": "accuracy",
            "log_loss": "log loss",
            "brier": "Brier",
            "ece": "ECE",
            "lpd_per_doc": "lpd / doc",
            "p0_docs": "p(y) = 0",
            "elpd_loo": "ELPD-LOO",
            "elpd_loo_se": "± SE",
            "pareto_k_bad": "bad k",
            "n_parameters": "parameters",
        }
        for x in self.results.get("estimates", []):
            t = x.table[list(cols)].rename(columns=cols)
            t.index = [S.ESTIMATE_LABELS.get(i, i) for i in t.index]
            t.index.name = "estimate"
            slug = f"{x.study.data.name}-{x.study.model}"
            blocks.append(
                Block(
                    x.study.label,
                    x.reading,
                    [
                        (
                            f"bayesnb.compare on {len(x.y_test)} held-out documents. p(y) = 0: "
                            "documents whose true label gets probability 0. ELPD-LOO: PSIS-LOO "
                            f"on the {x.n_train} training labels (sum), bad k: documents with "
                            "Pareto k above the threshold.",
                            t,
                        )
                    ],
                    [
                        Figure(
                            f"reliability-{slug}",
                            self._draw(F.plot_reliability, x),
                            "Reliability diagrams: points below the dashed line are "
                            "over-confident.",
                        )
                    ],
                    notes=x.notes[:3],
                )
            )
        return Section(
            "estimates",
            "Estimates side by side",
            "Each model under the four estimates (MAP with α = 2 and class prior 2, where the mode "
            "is add-one smoothing; the others with α = 1). lpd: log predictive density of the "
            "held-out labels; ECE: expected calibration error; ELPD-LOO: leave-one-out "
            "estimate of the same on the training labels, from exact posterior draws (it depends "
            "on the prior, not the estimate).",
            blocks,
        )

    def _sampler_section(self, x: S.SamplerResult) -> Section:
        if not x.ok:
            return Section(
                "sampler", "Sampler diagnostics (NUTS)", "", [Block(x.study.label, x.reading)]
            )
        summary = x.summary
        shown = pd.concat(
            [
                summary[summary.index.str.startswith("class_prior")],
                summary[~summary.index.str.startswith("class_prior")]
                .sort_values("r_hat", ascending=False)
                .head(8),
            ]
        )
        cols = [
            c
            for c in summary.columns
            if c in ("mean", "sd", "ess_bulk", "ess_tail", "r_hat", "mcse_mean")
        ]
        shown = shown[cols].astype(float)
        shown.index.name = "parameter"
        stats = pd.DataFrame(
            {
                "value": {
                    "chains × draws (tune)": f"{x.chains} × {x.draws} ({x.tune})",
                    "divergences": str(x.divergences),
                    "max R-hat": f"{summary['r_hat'].astype(float).max():.4f}",
                    "min bulk ESS": f"{summary['ess_bulk'].astype(float).min():.0f}",
                    "min tail ESS": f"{summary['ess_tail'].astype(float).min():.0f}",
                    "wall time (s)": f"{x.wall_time:.1f}",
                }
            }
        )
        return Section(
            "sampler",
            "Sampler diagnostics (NUTS)",
            "The same model declared in PyMC and sampled with NUTS, checked against the exact "
            "conjugate posterior, which bayesnb computes in closed form.",
            [
                Block(
                    x.study.label,
                    x.reading,
                    [
                        ("Run", stats),
                        ("Agreement with the exact posterior", x.agreement),
                        (
                            "az.summary: class prior and the 8 parameters with the largest R-hat",
                            shown,
                        ),
                    ],
                    [
                        Figure(
                            "rank",
                            self._draw(F.plot_rank, x),
                            "ArviZ rank plot (az.plot_rank): fractional-rank ECDF of each chain "
                            "minus the uniform, for the 4 parameters with the largest R-hat. "
                            "They are the worst of many, so small p-values are expected by "
                            "selection alone.",
                        )
                    ],
                    notes=x.warnings,
                )
            ],
        )

    def _write(self, out: Path, sections: list[Section]) -> Path:
        from bayesnb import __version__

        out.mkdir(parents=True, exist_ok=True)
        fig_dir = out / "figures"
        fig_dir.mkdir(exist_ok=True)
        for old in fig_dir.glob("*.png"):
            old.unlink()
        k = 0
        for sec in sections:
            for block in sec.blocks:
                for fig in block.figures:
                    k += 1
                    (fig_dir / f"{k:02d}-{fig.name}.png").write_bytes(fig.png)
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        subtitle = (
            f"bayesnb {__version__} · {stamp} · seed {self.seed} · "
            f"{len(self.studies)} stud{'y' if len(self.studies) == 1 else 'ies'}"
            + (" · quick settings" if self.quick else "")
        )
        total = sum(t for _, t in self.timings)
        footer = (
            f"Computed in {total:.0f} s. One self-contained file: figures are embedded (also "
            "saved in figures/), no network access or JavaScript needed."
        )
        page = render(self.title, subtitle, sections, footer)
        path = out / "index.html"
        tmp = out / ".index.html.tmp"
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(path)
        return path


def build(
    out,
    studies: Sequence[Study],
    *,
    nuts: bool = False,
    nuts_tree=None,
    title: str = "bayesnb report",
    seed: int = 0,
    quick: bool = False,
    progress: Progress | None = None,
) -> Path:
    """Build the HTML report of ``studies`` into the folder ``out``.

    Parameters
    ----------
    out : str or path-like
        Folder for ``index.html`` and ``figures/``.
    studies : sequence of Study
        Data set × model pairs (see :class:`bayesnb.report.data.Study`).
    nuts, nuts_tree, title, seed, quick
        See :class:`ReportBuilder`.
    progress : callable, optional
        ``progress(done, total, name, seconds)`` after every step.

    Returns
    -------
    Path
        ``out/index.html``.
    """
    builder = ReportBuilder(
        studies, nuts=nuts, nuts_tree=nuts_tree, title=title, seed=seed, quick=quick
    )
    return builder.run(out, progress=progress)
