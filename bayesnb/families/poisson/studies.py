"""Poisson against multinomial naive Bayes: the poisson family's report section.

For every data set with a multinomial study, PoissonNB at matched priors on the same split:
the two differ only by the Poisson's model of the document length, measured here.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesnb.report.data import Study, row_lengths
from bayesnb.report.extension import FamilySection, first_study
from bayesnb.report.html import Block, Figure, Section
from bayesnb.report.plotting import COLORS, style, subplots, to_png
from bayesnb.report.sections.common import fmt, pct, points, split_xy, true_log_proba, words

__all__ = ["SECTION", "PoissonResult", "plot_poisson", "poisson_vs_multinomial"]


# -- Poisson against multinomial --------------------------------------------------------------
@dataclass
class PoissonResult:
    """Poisson NB = multinomial NB + a Poisson model of document length, measured."""

    study: Study
    table: pd.DataFrame
    lengths: pd.DataFrame
    alpha_evidence: float
    identity_error: float
    flipped: dict[str, int]
    reading: str = ""


def poisson_vs_multinomial(study: Study) -> PoissonResult:
    """PoissonNB against MultinomialNB on the study's split, at matched priors.

    With a Gamma(α, β) prior the Poisson posterior-mean rates are λ_cj = (S_cj + α)/(N_c + β),
    so λ_cj / Λ_c (Λ_c = Σ_j λ_cj) is exactly the multinomial posterior mean under
    Dirichlet(α), and Π_j Poisson(x_j | λ_cj) = Poisson(n | Λ_c) · Multinomial(x | n, λ_c/Λ_c).
    The two classifiers therefore differ only by the length term ``n log Λ_c − Λ_c``; the
    section checks that identity on the held-out documents (``identity_error``: the largest
    deviation across classes, in nats) and measures what the length term does, at α = 1 and
    at the multinomial's evidence-maximising α (β = 1 throughout). ``lengths`` compares each
    class's training lengths with the Poisson's: a Poisson length has variance = mean.
    """
    from bayesnb.families.poisson.estimator import PoissonNB

    Xtr, ytr, Xte, yte = split_xy(study)
    alpha_ev = float(np.mean(study.configured(alpha="evidence").fit(Xtr, ytr).alpha_))
    n_te = row_lengths(Xte)
    rows, worst, flipped, per_doc, fitted = [], 0.0, {}, {}, {}
    for label, alpha in (("α = 1", 1.0), ("α = evidence", alpha_ev)):
        mult = study.configured(alpha=alpha, estimate="mean").fit(Xtr, ytr)
        pois = PoissonNB(alpha=alpha, beta=1.0, estimate="mean").fit(Xtr, ytr)
        fitted[label] = pois
        big_lambda = np.exp(np.asarray(pois.feature_log_rate_, dtype=np.float64)).sum(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            length_term = n_te[:, None] * np.log(big_lambda)[None, :] - big_lambda[None, :]
            resid = (
                pois.predict_joint_log_proba(Xte) - mult.predict_joint_log_proba(Xte) - length_term
            )
        # What is left is a per-document constant (−Σ_j ln x_j!): it cancels between classes.
        worst = max(worst, float(np.max(np.abs(resid - resid.mean(axis=1, keepdims=True)))))
        flipped[label] = int(np.sum(pois.predict(Xte) != mult.predict(Xte)))
        for model, est in (("multinomial", mult), ("Poisson", pois)):
            key = f"{model}, {label}"
            lp = true_log_proba(est, Xte, yte)
            per_doc[key] = (lp, (est.predict(Xte) == yte).astype(float))
            rows.append(
                {
                    "model": key,
                    "alpha": alpha,
                    "accuracy": float(per_doc[key][1].mean()),
                    "lpd_per_doc": float(lp.mean()),
                }
            )
    table = pd.DataFrame(rows).set_index("model")
    n = len(yte)
    for label in ("α = 1", "α = evidence"):
        m, p = per_doc[f"multinomial, {label}"], per_doc[f"Poisson, {label}"]
        for i, col in ((1, "accuracy"), (0, "lpd_per_doc")):
            d = p[i] - m[i]
            table.loc[f"Poisson, {label}", f"{col}_vs_multinomial"] = float(d.mean())
            table.loc[f"Poisson, {label}", f"{col}_vs_multinomial_se"] = float(
                d.std(ddof=1) / np.sqrt(n)
            )
    length = row_lengths(Xtr)
    classes = fitted["α = 1"].classes_
    lrows = []
    for c_idx, c in enumerate(classes):
        lc = length[ytr == c]
        lrows.append(
            {
                "class": str(c),
                "documents": int(lc.size),
                "mean length": float(lc.mean()),
                "variance": float(lc.var(ddof=1)) if lc.size > 1 else np.nan,
                "Λ (α = 1)": float(np.exp(fitted["α = 1"].feature_log_rate_[c_idx]).sum()),
                "Λ (α = evidence)": float(
                    np.exp(fitted["α = evidence"].feature_log_rate_[c_idx]).sum()
                ),
            }
        )
    lengths = pd.DataFrame(lrows).set_index("class")
    lengths["dispersion"] = lengths["variance"] / lengths["mean length"]
    result = PoissonResult(study, table, lengths, alpha_ev, worst, flipped)
    result.reading = _poisson_reading(result)
    return result


def _poisson_reading(r: PoissonResult) -> str:
    t, L = r.table, r.lengths
    _, doc = words(r.study.data)
    n = len(r.study.data.test)
    parts = [
        f"With the same prior pseudo-counts, Poisson naive Bayes is multinomial naive Bayes "
        f"plus a Poisson model of each class's {doc} length: on the {n} held-out {doc}s the "
        "two joint log densities differ by exactly n log Λ_c − Λ_c (largest deviation "
        f"{r.identity_error:.1e} nats)."
    ]
    for label in ("α = 1", "α = evidence"):
        row = t.loc[f"Poisson, {label}"]
        parts.append(
            f"At {label if label == 'α = 1' else f'α = {fmt(r.alpha_evidence, 3)} (evidence)'} "
            f"the length term changes {r.flipped[label]} predictions: accuracy "
            f"{pct(t.loc[f'multinomial, {label}', 'accuracy'])} → {pct(row['accuracy'])} "
            f"({points(row['accuracy_vs_multinomial'])} ± "
            f"{points(row['accuracy_vs_multinomial_se'])} points), label log density by "
            f"{fmt(row['lpd_per_doc_vs_multinomial'], 2)} ± "
            f"{fmt(row['lpd_per_doc_vs_multinomial_se'], 2)} nats per {doc}."
        )
    disp = L["dispersion"]
    parts.append(
        f"A Poisson length has variance equal to its mean; the training {doc}s' lengths have "
        f"variance {fmt(float(disp.min()), 2)}–{fmt(float(disp.max()), 2)} times their mean "
        "across classes"
        + (
            ", so the length term overstates how much a length says about the class."
            if disp.min() > 1.5
            else "."
        )
    )
    infl = (L["Λ (α = 1)"] / L["mean length"]).max()
    if infl > 1.2:
        parts.append(
            f"With α = 1 the prior also inflates the expected length Λ_c up to "
            f"{fmt(float(infl), 2)} times the observed mean: one pseudo-count for each of "
            f"{r.study.data.X.shape[1]} features, spread over a class's documents."
        )
    return " ".join(parts)


def plot_poisson(result: PoissonResult) -> bytes:
    """Class lengths against the Poisson's, and the label log density of the four models."""
    L = result.lengths
    t = result.table.iloc[::-1]
    with style():
        fig, (ax, bx) = subplots(1, 2, figsize=(11, 0.9 + max(0.42 * len(L), 0.45 * len(t))))
        y = np.arange(len(L))[::-1]
        ax.errorbar(
            L["mean length"], y, xerr=np.sqrt(L["variance"]), fmt="o", color="#1d2330",
            capsize=3, label="observed (± sd)",
        )  # fmt: skip
        for col, color, dy in (
            ("Λ (α = 1)", COLORS["mle"], 0.18),
            ("Λ (α = evidence)", COLORS["evidence"], -0.18),
        ):
            ax.errorbar(
                L[col], y + dy, xerr=np.sqrt(L[col]), fmt="s", color=color, capsize=3,
                label=f"Poisson {col.split(' ', 1)[1]} (± sd)",
            )  # fmt: skip
        ax.set_yticks(y)
        ax.set_yticklabels(L.index)
        ax.set_xlabel("document length (training)")
        fig.legend(
            *ax.get_legend_handles_labels(),
            loc="outside lower left",
            ncols=3,
            frameon=False,
            fontsize=8,
        )
        ax.set_title("Length per class: data against the Poisson model")
        yy = np.arange(len(t))
        colors = [COLORS["evidence"] if "evidence" in k else COLORS["mle"] for k in t.index]
        markers = ["s" if k.startswith("Poisson") else "o" for k in t.index]
        for yi, (_, row) in enumerate(t.iterrows()):
            bx.scatter(row["lpd_per_doc"], yi, color=colors[yi], marker=markers[yi], s=50)
            se = row.get("lpd_per_doc_vs_multinomial_se", np.nan)
            if np.isfinite(se):
                bx.errorbar(row["lpd_per_doc"], yi, xerr=2 * se, fmt="none", ecolor="#333333")
        bx.set_yticks(yy)
        bx.set_yticklabels(t.index)
        bx.set_xlabel("held-out log p(y | x) per document (± 2 paired SE vs multinomial)")
        bx.set_title("Held-out labels")
        fig.suptitle(f"{result.study.data.name}: Poisson against multinomial naive Bayes")
        return to_png(fig)


def layout(results: list, draw) -> Section:
    """The poisson section of the page: one block per result."""
    blocks = []
    for x in results:
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
                        draw(plot_poisson, x),
                        "Left: observed lengths (mean ± sd) and the Poisson's (Λ_c ± "
                        "√Λ_c). Right: held-out label log density; squares: Poisson.",
                    )
                ],
            )
        )
    return Section(
        "poisson",
        "Poisson against multinomial",
        "Poisson naive Bayes (a Gamma(α, 1) prior on every rate) models each count "
        "independently, and so the length of a document; the multinomial conditions "
        "on the length. Same α, same split.",
        blocks,
    )


def _target(studies: list[Study]) -> Study | None:
    return first_study(studies, "multinomial")


def _run(study: Study, *, seed: int, cfg: dict) -> PoissonResult:
    return poisson_vs_multinomial(study)


SECTION = FamilySection(
    key="poisson",
    title="Poisson against multinomial",
    run=_run,
    layout=layout,
    per_dataset=_target,
)
