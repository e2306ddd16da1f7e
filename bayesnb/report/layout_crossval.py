"""Layout of the exact cross-validation sections: results -> page sections.

Called by :func:`bayesnb.report.layout.page` with the builder (``self``), like the other
layout functions; a section whose study lacks the capability shows its reason only.
"""

from __future__ import annotations

import pandas as pd

import bayesnb.report.figures_crossval as F
from bayesnb.report.html import Block, Figure, Section
from bayesnb.report.sections.common import fmt

__all__ = ["alpha_choice_section", "crossval_headlines", "loo_check_section", "uncertainty_section"]


def loo_check_section(self) -> Section | None:
    """Exact leave-one-out against PSIS-LOO, per training document."""
    if "loo_check" not in self.results:
        return None
    x = self.results["loo_check"][0]
    intro = (
        "bayesnb.model_selection.elpd_loo computes log p(y_i | x_i, D without i) of every "
        "training document exactly, by subtracting the document's statistics (no refit). "
        "Beside it, PSIS-LOO's estimate of the same from exact posterior draws, with its "
        "Pareto k diagnostic: is a flagged document really badly estimated?"
    )
    if x.skipped:
        return Section(
            "loo-check",
            "Exact leave-one-out against PSIS-LOO",
            intro,
            [Block(x.study.label, x.reading)],
        )
    table = x.table.rename(columns={"mean Δ": "mean PSIS − exact"})
    totals = {
        "exact (elpd_loo)": {"ELPD": x.elpd_exact, "SE": x.se_exact},
        f"PSIS-LOO ({x.draws} draws)": {"ELPD": x.elpd_psis, "SE": x.se_psis},
    }
    block = Block(
        x.study.label,
        x.reading,
        [
            ("|PSIS − exact| per training document (nats)", table),
            ("ELPD of the training labels", pd.DataFrame(totals).T),
        ],
        [
            Figure(
                f"loo-check-{x.study.data.name}",
                self._draw(F.plot_loo_check, x),
                "Left: PSIS-LOO against the exact value per training document; red: Pareto k "
                "above the threshold, orange: every draw gives the label the same "
                "probability (k = 0). Right: the error against k.",
            )
        ],
    )
    return Section("loo-check", "Exact leave-one-out against PSIS-LOO", intro, [block])


def uncertainty_section(self) -> Section | None:
    """The interval of p(predicted class | x) of held-out documents against correctness."""
    if "uncertainty" not in self.results:
        return None
    x = self.results["uncertainty"][0]
    perc = round(100 * x.prob)
    intro = (
        f"est.predict_proba_draws: p(c | x, θ) of each held-out document under exact "
        f"posterior draws θ. The {perc}% equal-tailed interval of the predicted class's "
        "probability says how sure the model is of that probability; set against whether the "
        "prediction was right."
    )
    if x.skipped:
        return Section(
            "uncertainty", "Predictive uncertainty", intro, [Block(x.study.label, x.reading)]
        )
    block = Block(
        x.study.label,
        x.reading,
        [
            (f"{perc}% interval width by outcome", x.summary),
            ("Accuracy by interval width (equal-count bins)", x.bins),
        ],
        [
            Figure(
                f"uncertainty-{x.study.data.name}",
                self._draw(F.plot_uncertainty, x),
                f"Left: widths of the {perc}% intervals for right and wrong predictions. "
                "Right: accuracy (±2 SE) and mean probability of the predicted class by width.",
            )
        ],
    )
    return Section("uncertainty", "Predictive uncertainty", intro, [block])


def alpha_choice_section(self) -> Section | None:
    """The smoothing α by the evidence, by exact LOO and by GridSearchCV."""
    if "alpha_choice" not in self.results:
        return None
    x = self.results["alpha_choice"][0]
    intro = (
        'Three ways to choose the smoothing α on the same training split: alpha="evidence" '
        '(maximum marginal likelihood), alpha="loo" (maximum exact leave-one-out label '
        "log-likelihood, a 1-D search on the fitted statistics) and scikit-learn's "
        "GridSearchCV over a log-spaced grid (neg_log_loss, stratified folds); each scored "
        "on the held-out documents."
    )
    if x.skipped:
        return Section(
            "alpha-choice", "Smoothing chosen three ways", intro, [Block(x.study.label, x.reading)]
        )
    block = Block(
        x.study.label,
        x.reading,
        [("Held-out scores of each choice (gap: log loss minus the best's)", x.table)],
        [
            Figure(
                f"alpha-choice-{x.study.data.name}",
                self._draw(F.plot_alpha_choice, x),
                "Log loss over the α grid: GridSearchCV's cross-validated mean (±1 SE band) "
                "and the held-out value of a fit at each α; dashed: the α each method chose.",
            )
        ],
    )
    return Section("alpha-choice", "Smoothing chosen three ways", intro, [block])


def crossval_headlines(self) -> list[str]:
    """One overview sentence for the exact-LOO check (where it ran)."""
    out = []
    for x in self.results.get("loo_check", []):
        if x.skipped:
            continue
        row = x.table.iloc[0]
        out.append(
            f"Exact LOO against PSIS-LOO ({x.study.label}): PSIS flags {int(row['documents'])} "
            f"of {x.exact.size} training documents; its total is "
            f"{fmt(abs(x.elpd_psis - x.elpd_exact), 4)} nats "
            f"{'above' if x.elpd_psis > x.elpd_exact else 'below'} the exact ELPD "
            f"{fmt(x.elpd_exact, 5)}."
        )
    return out
