"""Figures of the exact cross-validation sections (:mod:`bayesnb.report.sections.crossval`).

Re-exported by :mod:`bayesnb.report.figures`; each takes a computed result and returns PNG
bytes.
"""

from __future__ import annotations

import numpy as np

from bayesnb.report.plotting import style, subplots, to_png
from bayesnb.report.sections.calibration import TemperatureResult
from bayesnb.report.sections.crossval import AlphaChoiceResult, LOOCheckResult, UncertaintyResult

__all__ = ["plot_alpha_choice", "plot_loo_check", "plot_temperature", "plot_uncertainty"]

_FLAGGED, _AGREE, _OTHER = "#d62728", "#ff7f0e", "#1f77b4"


def plot_loo_check(result: LOOCheckResult) -> bytes:
    """Left: PSIS-LOO against exact LOO per document, k-flagged ones in red. Right: the error
    |PSIS − exact| against Pareto k."""
    flag, agree = result.flagged, result.constant & ~result.flagged
    rest = ~flag & ~agree
    exact, psis = result.exact, result.psis
    err = np.maximum(np.abs(psis - exact), 1e-12)
    with style():
        fig, (ax, bx) = subplots(1, 2, figsize=(10.5, 4.2))
        finite = np.isfinite(exact) & np.isfinite(psis)
        lo = float(min(exact[finite].min(), psis[finite].min()))
        ax.plot([lo, 0], [lo, 0], color="#999999", lw=1, ls="--", label="PSIS = exact")
        for sel, color, label in (
            (rest, _OTHER, "k below threshold"),
            (agree, _AGREE, "every draw agrees (k = 0)"),
            (flag, _FLAGGED, f"flagged: k > {result.good_k:.2f}"),
        ):
            ax.scatter(exact[sel], psis[sel], s=9, alpha=0.55, color=color, lw=0, label=label)
            bx.scatter(result.pareto_k[sel], err[sel], s=9, alpha=0.55, color=color, lw=0)
        ax.set_xlabel("exact log p(y | x, D without the document)")
        ax.set_ylabel("PSIS-LOO estimate")
        ax.set_title(f"{result.study.label}: {exact.size} training documents")
        ax.legend(loc="lower right")
        bx.axvline(result.good_k, color="#999999", lw=1, ls="--")
        bx.set_yscale("log")
        bx.set_xlabel("Pareto k")
        bx.set_ylabel("|PSIS − exact| (nats)")
        bx.set_title("Error against the diagnostic")
        return to_png(fig)


def plot_uncertainty(result: UncertaintyResult) -> bytes:
    """Left: interval widths of right and wrong predictions. Right: accuracy by width bin."""
    width, correct = result.width, result.correct
    perc = round(100 * result.prob)
    with style():
        fig, (ax, bx) = subplots(1, 2, figsize=(10.5, 4.0))
        bins = np.linspace(0.0, max(float(width.max()), 1e-9), 31)
        for sel, color, label in ((correct, "#2ca02c", "right"), (~correct, "#d62728", "wrong")):
            if sel.any():
                ax.hist(
                    width[sel], bins=bins, color=color, alpha=0.55, label=f"{label} ({sel.sum()})"
                )
        ax.set_xlabel(f"width of the {perc}% interval of p(predicted class | x)")
        ax.set_ylabel("held-out documents")
        ax.set_title(result.study.label)
        ax.legend()
        b = result.bins
        mid = (b["narrowest"] + b["widest"]) / 2
        bx.errorbar(
            mid,
            b["accuracy"],
            yerr=2 * b["± SE"],
            xerr=[mid - b["narrowest"], b["widest"] - mid],
            fmt="o",
            color="#1f77b4",
            capsize=2,
            label="accuracy (±2 SE)",
        )
        bx.plot(mid, b["mean p(predicted)"], "s--", color="#7f7f7f", label="mean p(predicted)")
        bx.set_ylim(-0.02, 1.05)
        bx.set_xlabel("interval width (equal-count bins)")
        bx.set_ylabel("share")
        bx.set_title("Accuracy against interval width")
        bx.legend(loc="lower left")
        return to_png(fig)


def plot_alpha_choice(result: AlphaChoiceResult) -> bytes:
    """Cross-validated and held-out log loss over the α grid, with the three choices."""
    with style():
        fig, ax = subplots(1, 1, figsize=(7.0, 4.0))
        g = result.grid
        ax.plot(g, result.cv_log_loss, "o-", ms=3, color="#1f77b4", label="GridSearchCV (CV)")
        ax.fill_between(
            g,
            result.cv_log_loss - result.cv_se,
            result.cv_log_loss + result.cv_se,
            color="#1f77b4",
            alpha=0.15,
        )
        ax.plot(g, result.test_log_loss, "-", color="#000000", lw=1, label="held out")
        colors = ["#2ca02c", "#d62728", "#1f77b4", "#7f7f7f"]
        for (name, row), color in zip(result.table.iterrows(), colors, strict=False):
            ax.axvline(
                row["alpha"], color=color, ls="--", lw=1.2, label=f"{name}: {row['alpha']:.3g}"
            )
        ax.set_xscale("log")
        ax.set_xlabel("α")
        ax.set_ylabel("log loss per document")
        ax.set_title(result.study.label)
        ax.legend(fontsize=8)
        return to_png(fig)


def plot_temperature(result: TemperatureResult) -> bytes:
    """Reliability of the posterior mean at τ = 1 and at the learned τ, and of the better
    calibrated refit: held-out accuracy against mean confidence in equal-mass bins."""
    colors = ["#d62728", "#2ca02c", "#1f77b4", "#7f7f7f"]
    with style():
        fig, ax = subplots(1, 1, figsize=(6.0, 4.2))
        ax.plot([0, 1], [0, 1], color="#999999", lw=1, ls="--", label="calibrated")
        for (name, rel), color in zip(result.reliability.items(), colors, strict=False):
            ece = result.table.loc[name, "ece"]
            ax.errorbar(
                rel["confidence"], rel["accuracy"], yerr=2 * rel["se"], fmt="o-", ms=4, lw=1,
                color=color, capsize=2, label=f"{name} (ECE {ece:.3f})",
            )  # fmt: skip
        ax.set_xlim(0, 1.02)
        ax.set_ylim(-0.02, 1.05)
        ax.set_xlabel("confidence (mean top-class probability in the bin)")
        ax.set_ylabel("accuracy (±2 SE)")
        ax.set_title(f"Reliability, held out: {result.study.label}")
        ax.legend(fontsize=8, loc="upper left")
        return to_png(fig)
