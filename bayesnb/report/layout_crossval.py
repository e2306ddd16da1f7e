"""Layout of the exact cross-validation sections: results -> page sections.

Called by :func:`bayesnb.report.layout.page` with the builder (``self``), like the other
layout functions; a section whose study lacks the capability shows its reason only.
"""

from __future__ import annotations

import pandas as pd

import bayesnb.report.figures_crossval as F
from bayesnb.report.html import Section, result_block
from bayesnb.report.sections.common import fmt

__all__ = [
    "alpha_choice_section",
    "crossval_headlines",
    "loo_check_section",
    "temperature_section",
    "uncertainty_section",
]


def _section(self, x, sid: str, title: str, intro: str, tables, plot, caption: str) -> Section:
    """One section of one study (``tables(x)`` and one figure); a skipped study shows its reason."""
    figures = [(f"{sid}-{x.study.data.name}", plot, caption)]
    tables = () if x.skipped else tables(x)
    return Section(sid, title, intro, [result_block(self._draw, x, tables, figures)])


def _loo_tables(x) -> list:
    totals = {
        "exact (elpd_loo)": {"ELPD": x.elpd_exact, "SE": x.se_exact},
        f"PSIS-LOO ({x.draws} draws)": {"ELPD": x.elpd_psis, "SE": x.se_psis},
    }
    return [
        (
            "|PSIS − exact| per training document (nats)",
            x.table.rename(columns={"mean Δ": "mean PSIS − exact"}),
        ),
        ("ELPD of the training labels", pd.DataFrame(totals).T),
    ]


def loo_check_section(self) -> Section | None:
    """Exact leave-one-out against PSIS-LOO, per training document."""
    if "loo_check" not in self.results:
        return None
    return _section(
        self,
        self.results["loo_check"][0],
        "loo-check",
        "Exact leave-one-out against PSIS-LOO",
        "bayesnb.model_selection.elpd_loo computes log p(y_i | x_i, D without i) of every "
        "training document exactly, by subtracting the document's statistics (no refit). "
        "Beside it, PSIS-LOO's estimate of the same from exact posterior draws, with its "
        "Pareto k diagnostic: is a flagged document really badly estimated?",
        _loo_tables,
        F.plot_loo_check,
        "Left: PSIS-LOO against the exact value per training document; red: Pareto k above "
        "the threshold, orange: every draw gives the label the same probability (k = 0). "
        "Right: the error against k.",
    )


def uncertainty_section(self) -> Section | None:
    """The interval of p(predicted class | x) of held-out documents against correctness."""
    if "uncertainty" not in self.results:
        return None
    x = self.results["uncertainty"][0]
    perc = round(100 * x.prob)
    return _section(
        self,
        x,
        "uncertainty",
        "Predictive uncertainty",
        f"est.predict_proba_draws: p(c | x, θ) of each held-out document under exact "
        f"posterior draws θ. The {perc}% equal-tailed interval of the predicted class's "
        "probability says how sure the model is of that probability; set against whether the "
        "prediction was right.",
        lambda x: [
            (f"{perc}% interval width by outcome", x.summary),
            ("Accuracy by interval width (equal-count bins)", x.bins),
        ],
        F.plot_uncertainty,
        f"Left: widths of the {perc}% intervals for right and wrong predictions. Right: "
        "accuracy (±2 SE) and mean probability of the predicted class by width.",
    )


def alpha_choice_section(self) -> Section | None:
    """The smoothing α by the evidence, by exact LOO and by GridSearchCV."""
    if "alpha_choice" not in self.results:
        return None
    return _section(
        self,
        self.results["alpha_choice"][0],
        "alpha-choice",
        "Smoothing chosen three ways",
        'Three ways to choose the smoothing α on the same training split: alpha="evidence" '
        '(maximum marginal likelihood), alpha="loo" (maximum exact leave-one-out label '
        "log-likelihood, a 1-D search on the fitted statistics) and scikit-learn's "
        "GridSearchCV over a log-spaced grid (neg_log_loss, stratified folds); each scored "
        "on the held-out documents.",
        lambda x: [("Held-out scores of each choice (gap: log loss minus the best's)", x.table)],
        F.plot_alpha_choice,
        "Log loss over the α grid: GridSearchCV's cross-validated mean (±1 SE band) and the "
        "held-out value of a fit at each α; dashed: the α each method chose.",
    )


def temperature_section(self) -> Section | None:
    """Calibration at τ = 1 and at the learned likelihood temperature, beside scikit-learn's
    calibration by refits."""
    if "temperature" not in self.results:
        return None
    return _section(
        self,
        self.results["temperature"][0],
        "temperature",
        "Calibration: the likelihood temperature",
        "Naive Bayes treats the words of a document as independent evidence, so on long "
        'documents it is far too sure. temperature="loo" scores p(c | x) ∝ p(c) p(x | c)^τ '
        "with τ learned by exact leave-one-out on the training documents (no refits; a power "
        "on the likelihood at scoring time, not a change of the posterior; predict is "
        "unchanged). Beside it, scikit-learn's CalibratedClassifierCV of its naive Bayes "
        "(cv=5: five refits and a calibrator).",
        lambda x: [("Held-out calibration of every estimate, τ = 1 and learned", x.table)],
        F.plot_temperature,
        "Held-out accuracy against confidence in equal-mass bins (±2 SE); on the dashed line "
        "the probabilities are calibrated, below it over-confident.",
    )


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
