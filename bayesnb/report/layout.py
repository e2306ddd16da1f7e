"""Report layout: computed section results -> the page's sections (text, tables, figures).

Each function takes the :class:`~bayesnb.report.builder.ReportBuilder` whose results it lays
out (``self``) and draws the figures through its ``_draw``, which records a broken figure
instead of raising. The sections families contribute lay themselves
out (:attr:`bayesnb.report.extension.FamilySection.layout`), after the generic ones.
"""

from __future__ import annotations

import pandas as pd

import bayesnb.report.figures as F
import bayesnb.report.sections as S
from bayesnb.report.html import Block, Section, result_block
from bayesnb.report.layout_crossval import (
    alpha_choice_section,
    crossval_headlines,
    loo_check_section,
    temperature_section,
    uncertainty_section,
)

__all__ = ["estimates_section", "labels_section", "overview", "page", "sampler_section"]


def page(self) -> list[Section]:
    """Every section of the page, in order, from the results of the builder ``self``."""
    r, draw = self.results, self._draw
    out = [overview(self)]
    if "saved" in r:
        blocks = [result_block(draw, x, [("", x.table)], title=x.study.source) for x in r["saved"]]
        intro = "The fitted model read from the file, scored on the data given with it."
        out.append(Section("saved-model", "The saved model", intro, blocks))
    if "data" in r:
        x = r["data"][0]
        tables = [("One row per data set", x.table)]
        figures = [("data", F.plot_data_summary, "Class sizes and lengths.")]
        intro = (
            "What the models are fitted on: every data set is split once, stratified by "
            "class, into the same training and test documents for every section."
        )
        out.append(
            Section("data", "Data", intro, [result_block(draw, x, tables, figures, title="")])
        )
    out.append(estimates_section(self))
    out += [s for s in (loo_check_section(self), uncertainty_section(self)) if s is not None]
    if "parameters" in r:
        figures = [
            (
                "forest",
                F.plot_forest,
                "ArviZ forest plot (az.plot_forest) of the most class-specific probabilities; "
                "log scale.",
            ),
            (
                "shrinkage",
                F.plot_shrinkage,
                "Every (class, feature) pair: the posterior mean expressed as a count, against "
                "its training count (the MLE is the diagonal).",
            ),
        ]
        intro = (
            "One prior, four estimates: the MLE, the MAP under Dirichlet(2) (add-one), the "
            "posterior mean under Dirichlet(α), and exact draws from the conjugate posterior."
        )
        block = result_block(draw, r["parameters"][0], figures=figures)
        out.append(Section("parameters", "Parameters", intro, [block]))
    if "informative" in r:
        x = r["informative"][0]
        perc = round(100 * x.ci_prob)
        shown = x.table[x.table["rank"] <= 5][
            ["class", "versus", "rank", "feature", "mean", "sd", f"eti{perc}_lb",
             f"eti{perc}_ub", "count", "count_versus"]
        ].rename(columns={"count_versus": "count (versus)"})  # fmt: skip
        tables = [("Top 5 features of each pair", shown.set_index("class"))]
        caption = (
            f"Posterior mean (dot) and {perc}% equal-tailed interval (line) of log(φ_a / φ_b); "
            "orange: features never seen in the rival class."
        )
        figures = [(f"informative-{x.study.data.name}", F.plot_informative, caption)]
        intro = (
            "bayesnb.most_informative_features: the posterior log-odds ratio log(φ_a / φ_b) of "
            "a feature between two classes, with its exact mean (digamma differences) and an "
            "equal-tailed credible interval from exact posterior draws, for each class against "
            "the class its held-out documents are most often mistaken for."
        )
        block = result_block(draw, x, tables, figures)
        out.append(Section("informative", "Most informative features", intro, [block]))
    if "smoothing" in r:
        x = r["smoothing"][0]
        table = x.deleted.set_index("r")[["pairs", "held_out", "mle", "laplace", "evidence"]]
        table = table.rename(
            columns={
                "held_out": "held out",
                "mle": "MLE",
                "laplace": "add-one",
                "evidence": "evidence α",
            }
        )
        table.index = [
            f"{int(a)}" if b - a == 1 else f"{int(a)}–{int(b) - 1}"
            for a, b in zip(x.deleted["lo"], x.deleted["hi"], strict=True)
        ]
        table.index.name = "count r"
        tables = [("Average count in the other half, by count r", table.head(16))]
        caption = (
            "Left: held-out counts against r, with each estimate's prediction. Right: log "
            "evidence over α, its maximum and the cross-validated α."
        )
        intro = (
            "Deleted (held-out) estimation: how often does a (class, feature) pair seen r times "
            "in one half of the training data occur in the other half? An estimate is good if "
            "it predicts that."
        )
        block = result_block(draw, x, tables, [("smoothing", F.plot_deleted_estimation, caption)])
        out.append(Section("smoothing", "Smoothing diagnostics", intro, [block]))
    out += [s for s in (alpha_choice_section(self), temperature_section(self)) if s is not None]
    if "sampler" in r:
        out.append(sampler_section(self, r["sampler"][0]))
    if "ppc" in r:
        caption = "Real (dark) and generated (pink) documents."
        blocks = [
            result_block(draw, x, figures=[(f"ppc-{x.study.data.name}", F.plot_ppc, caption)])
            for x in r["ppc"]
        ]
        intro = (
            "Documents generated by the fitted model (est.sample) against the real training "
            "documents."
        )
        out.append(Section("ppc", "Posterior predictive checks", intro, blocks))
    if "events" in r:
        columns = {
            "lpd_per_doc": "log p(y|x) / doc",
            "diff_to_best": "gap to best",
            "diff_se": "paired SE",
            "alpha": "α",
        }
        caption = (
            "Held-out label log density per document; blue: α by maximum evidence, grey: α = 1."
        )
        blocks = []
        for x in r["events"]:
            t = x.table[["alpha", "accuracy", "lpd_per_doc", "se", "diff_to_best", "diff_se"]]
            tables = [("Held-out labels, full-Bayes scoring", t.rename(columns=columns))]
            figures = [(f"events-{x.data.name}", F.plot_event_models, caption)]
            blocks.append(result_block(draw, x, tables, figures, title=x.data.name))
        intro = (
            "The same documents seen as binary presence (Bernoulli), token counts "
            "(multinomial) or values per feature (categorical)."
        )
        out.append(Section("events", "Event models compared", intro, blocks))
    if "labels" in r:
        out.append(labels_section(self))
    out += [fs.layout(r[fs.key], draw) for fs in self.family_sections if fs.key in r]
    for sid, title, intro, notes in (
        (
            "failures",
            "Sections or figures that could not be computed",
            "These parts of the report are missing; the error of each is below.",
            self.failures,
        ),
        (
            "warnings",
            "Warnings raised while building",
            "Shown so nothing is hidden; the sections above discuss the ones that matter.",
            self.warnings[:30],
        ),
    ):
        if notes:
            out.append(Section(sid, title, intro, [Block("", "", notes=notes)]))
    return out


def overview(self) -> Section:
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
        if x.study.report.naive and "bayes" in x.proba:
            k, acc = S.overconfidence(x.y_test, x.proba["bayes"], x.classes)
            if k:
                over.append((x.study.label, k, len(x.y_test), acc))
    n = len(rows)
    n_inf = sum(1 for x in estimates if "mle" in x.table.index and x.table.loc["mle", "p0_docs"])
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
    items.extend(crossval_headlines(self))
    for ev in self.results.get("events", []):
        t = ev.table
        top = t["lpd_per_doc"].idxmax()
        items.append(
            f"Event models ({ev.data.name}): the {top.replace(', ', ' model with ')} "
            "predicts held-out labels best "
            f"({S.fmt(t.loc[top, 'lpd_per_doc'])} nats per document)."
        )
    items.extend(S.few_labels_headline(x) for x in self.results.get("labels", []))
    for fs in self.family_sections:
        if fs.headline is not None:
            items.extend(fs.headline(x) for x in self.results.get(fs.key, []))
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


def estimates_section(self) -> Section:
    """The estimates of every study side by side: the metrics table and reliability diagrams."""
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
        "n_parameters": "parameters",
    }
    for x in self.results.get("estimates", []):
        psis = bool((x.table["loo_method"] == "psis").any())
        shown = {**cols, "pareto_k_bad": "bad k"} if psis else cols
        t = x.table[list(shown)].rename(columns=shown)
        t.index = [S.ESTIMATE_LABELS.get(i, i) for i in t.index]
        t.index.name = "estimate"
        caption = (
            f"bayesnb.compare on {len(x.y_test)} held-out documents. {x.priors} p(y) = 0: "
            "documents whose true label gets probability 0. ELPD-LOO: leave-one-out log "
            f"density of the {x.n_train} training labels (sum) under each estimate, exact for "
            "the closed-form estimates (each document scored by that estimate fitted without "
            "it; a learned α held at its value on all of them)"
            + (
                "; PSIS-LOO where a model cannot subtract statistics, bad k: documents with "
                "Pareto k above the threshold."
                if psis
                else "."
            )
        )
        name = f"reliability-{x.study.data.name}-{x.study.model}"
        figure = "Reliability diagrams: points below the dashed line are over-confident."
        figures = [(name, F.plot_reliability, figure)]
        blocks.append(result_block(self._draw, x, [(caption, t)], figures, x.notes[:3]))
    return Section(
        "estimates",
        "Estimates side by side",
        "Each model under the four estimates; each table says which prior its rows use (the "
        "MAP's is fixed, the others' as the study configures it, a learned α quoted at its "
        "fitted value). lpd: log predictive density of the held-out labels; ECE: expected "
        "calibration error; ELPD-LOO: leave-one-out log density of the training labels "
        "under each estimate (so it differs between estimates, as lpd does).",
        blocks,
    )


def sampler_section(self, x: S.SamplerResult) -> Section:
    """NUTS against the exact posterior: the run, the agreement, az.summary, the rank plot."""
    title = "Sampler diagnostics (NUTS)"
    if not x.ok:
        return Section("sampler", title, "", [Block(x.study.label, x.reading)])
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
    tables = [
        ("Run", stats),
        ("Agreement with the exact posterior", x.agreement),
        ("az.summary: class prior and the 8 parameters with the largest R-hat", shown),
    ]
    caption = (
        "ArviZ rank plot (az.plot_rank): fractional-rank ECDF of each chain minus the uniform, "
        "for the 4 parameters with the largest R-hat. They are the worst of many, so small "
        "p-values are expected by selection alone."
    )
    intro = (
        "The same model declared in PyMC and sampled with NUTS, checked against the exact "
        "conjugate posterior, which bayesnb computes in closed form."
    )
    block = result_block(self._draw, x, tables, [("rank", F.plot_rank, caption)], x.warnings)
    return Section("sampler", title, intro, [block])


def labels_section(self) -> Section:
    """Few labels: the labelled-only fit against EM and VB by labelled documents per class."""
    caption = (
        "Mean ± standard error over the random draws of the labelled documents; the gain "
        "columns are paired (each draw's EM or VB fit minus its own labelled-only fit)."
    )
    figure = (
        "Held-out accuracy and log loss against labelled documents per class (log scale); "
        "error bars: standard errors over the draws."
    )
    blocks = [
        result_block(
            self._draw,
            x,
            [] if x.skipped else [(caption, x.table)],
            [(f"labels-{x.study.data.name}", F.plot_labelled_curve, figure)],
        )
        for x in self.results["labels"]
    ]
    intro = (
        "A generative classifier gives a document nobody labelled a likelihood, so EM "
        "(SemiSupervisedNB, to the MAP) and mean-field variational Bayes (inference='vb', "
        "scored at the mode of q(θ)) learn from the unlabelled rest of the training split. "
        "bayesnb.curves.labelled_curve: n labelled documents per class, the rest unlabelled, "
        "against the fit on the n labelled ones alone; the same prior and estimate score "
        "every curve."
    )
    return Section("labels", "Few labels: unlabelled documents through EM and VB", intro, blocks)
