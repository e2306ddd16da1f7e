"""Report figures: section results -> PNG bytes (matplotlib Agg; ArviZ where it fits).

Each ``plot_*`` function takes a result of :mod:`bayesnb.report.sections` and returns PNG
bytes; nothing here computes statistics beyond what drawing needs (binning, sorting). The
figures of the sections families contribute are drawn by those families.
"""

from __future__ import annotations

import numpy as np

import bayesnb.report.sections as S
from bayesnb.report.figures_crossval import plot_alpha_choice, plot_loo_check, plot_uncertainty
from bayesnb.report.plotting import COLORS, DPI, style, subplots, to_png

__all__ = [
    "DPI",
    "plot_alpha_choice",
    "plot_data_summary",
    "plot_deleted_estimation",
    "plot_event_models",
    "plot_forest",
    "plot_informative",
    "plot_labelled_curve",
    "plot_loo_check",
    "plot_ppc",
    "plot_rank",
    "plot_reliability",
    "plot_shrinkage",
    "plot_uncertainty",
    "to_png",
]


def plot_data_summary(result: S.DataSummary) -> bytes:
    """Class sizes and document lengths of every data set."""
    names = list(result.class_sizes)
    with style():
        fig, axes = subplots(2, len(names), figsize=(3.2 * len(names), 5.2), squeeze=False)
        for i, name in enumerate(names):
            sizes = result.class_sizes[name]
            ax = axes[0, i]
            ax.bar(range(len(sizes)), sizes.values, color="#1f77b4")
            ax.set_xticks(range(len(sizes)))
            long = max(len(str(c)) for c in sizes.index) > 3
            ax.set_xticklabels(
                sizes.index, rotation=35 if long else 0, ha="right" if long else "center"
            )
            ax.set_title(f"{name}: documents per class")
            ax.set_ylabel("documents")
            ax = axes[1, i]
            if name in result.lengths:
                length = result.lengths[name]
                ax.hist(length, bins=40, color="#555555")
                ax.set_xlabel("document length (sum of counts)")
                ax.set_ylabel("documents")
                ax.set_title(f"{name}: lengths")
            else:
                ax.text(0.5, 0.5, "continuous features\n(no lengths)", ha="center", va="center")
                ax.set_axis_off()
        return to_png(fig)


def _nines(p) -> np.ndarray:
    """Confidence as "nines": −log10(1 − p) (0.9 → 1, 0.99 → 2), capped at 15."""
    with np.errstate(divide="ignore"):
        return np.minimum(-np.log10(np.clip(1.0 - np.asarray(p, dtype=float), 0.0, 1.0)), 15.0)


def _nines_label(t: float, _pos=None) -> str:
    if t <= 0:
        return "0"
    if t <= 4 and float(t).is_integer():
        return "0." + "9" * int(t)
    return f"1−1e−{t:g}"


def plot_reliability(result: S.EstimateResult) -> bytes:
    """Reliability diagrams: accuracy against mean confidence in equal-mass bins.

    Confidence is drawn in "nines", −log10(1 − p), so 0.9, 0.99, 0.999 ... are evenly
    spaced: naive Bayes puts most documents there, and that is where its over-confidence
    shows.
    """
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    names = list(result.reliability)
    top = max(float(_nines(result.reliability[n]["confidence"]).max()) for n in names)
    top = max(2.0, np.ceil(top + 0.3))
    with style():
        fig, axes = subplots(1, len(names), figsize=(2.9 * len(names), 3.5), sharey=True)
        axes = np.atleast_1d(axes)
        grid = np.linspace(0.0, top, 200)
        for ax, name in zip(axes, names, strict=True):
            rel = result.reliability[name]
            ax.plot(grid, 1.0 - 10.0**-grid, color="#999999", lw=1, ls="--", label="calibrated")
            ax.errorbar(
                _nines(rel["confidence"]),
                rel["accuracy"],
                yerr=2 * rel["se"],
                fmt="o",
                ms=5,
                color=COLORS.get(name, "#333333"),
                ecolor=COLORS.get(name, "#333333"),
                elinewidth=1,
                capsize=2,
                label="bin (±2 SE)",
            )
            ece = result.table.loc[name, "ece"]
            ax.set_title(f"{S.ESTIMATE_LABELS[name]}\nECE {ece:.3f}")
            ax.set_xlim(0, top)
            ax.set_ylim(-0.02, 1.05)
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
            ax.xaxis.set_major_formatter(FuncFormatter(_nines_label))
            ax.tick_params(axis="x", labelrotation=30, labelsize=8)
            ax.set_xlabel("confidence (nines)")
        n_bin = int(np.median(result.reliability[names[0]]["n"]))
        axes[0].set_ylabel(f"accuracy (bins of ~{n_bin} documents)")
        axes[0].legend(loc="lower right", frameon=False)
        fig.suptitle(
            f"Reliability on held-out data: {result.study.label} "
            "(below the dashed line = over-confident)"
        )
        return to_png(fig)


def plot_forest(result: S.ParameterResult) -> bytes:
    """ArviZ forest plot of the chosen (class, feature) probabilities under every estimate."""
    import arviz as az

    n_rows = len(result.pairs)
    pc = az.plot_forest(
        result.trees,
        var_names=["feature_prob"],
        combined=True,
        labels=["pair"],
        ci_probs=[0.5, 0.89],
        figure_kwargs={"figsize": (9, 1.1 + 0.55 * n_rows)},
    )
    pc.add_legend("model", loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=4, frameon=False)
    fig = pc.get_viz("figure")
    values = np.concatenate(
        [t["posterior"]["feature_prob"].values.ravel() for t in result.trees.values()]
    )
    values = values[np.isfinite(values) & (values > 0)]
    wide = bool(values.size) and values.max() / values.min() > 10
    for ax in fig.axes:
        if ax.lines or ax.collections:
            if wide:
                from matplotlib.ticker import NullFormatter

                ax.set_xscale("log")
                ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels collide
            ax.set_xlabel("probability" + (" (log scale)" if wide else ""))
    fig.suptitle(
        f"{result.study.label}: most class-specific features, four estimates "
        "(intervals: exact posterior, 50% / 89%)",
        fontsize=11,
    )
    return to_png(fig)


def plot_shrinkage(result: S.ParameterResult) -> bytes:
    """Estimates expressed as counts against the training count of every (class, feature)."""
    s = result.shrinkage
    alpha = result.alpha
    with style():
        fig, (ax, ax2) = subplots(1, 2, figsize=(11, 4.2))
        x = s["count"].to_numpy()
        jitter = np.random.default_rng(0).uniform(-0.15, 0.15, x.size)
        xs = np.where(x == 0, 0, x) + np.where(x < 10, jitter, 0)
        labels = {
            "laplace": f"α = {alpha:g}",
            "evidence": f"evidence α = {result.alpha_evidence:.3g}",
        }
        dots = {"s": 4, "alpha": 0.35, "rasterized": True}
        for key, label in labels.items():
            ax.scatter(xs, s[key], color=COLORS[key], label=f"posterior mean, {label}", **dots)
        top = max(float(x.max()), 1.0)
        grid = np.geomspace(1.0, top, 50)
        ax.plot(grid, grid, color="black", lw=1.2, label="MLE (the count itself)")
        ax.plot([0], [0], "o", color="black", ms=4)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_xlabel("training count of the (class, feature) pair")
        ax.set_ylabel("estimate × class total (pseudo-count)")
        ax.set_title("Shrinkage: estimates as counts")
        ax.legend(frameon=False, loc="upper left", markerscale=3)
        ok = s["mle"] > 0
        for key, label in labels.items():
            ratio = s.loc[ok, key] / s.loc[ok, "mle"]
            ax2.scatter(s.loc[ok, "count"], ratio, color=COLORS[key], label=label, **dots)
        ax2.axhline(1, color="black", lw=1.2)
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("training count (seen pairs)")
        ax2.set_ylabel("posterior mean / MLE")
        ax2.set_title("Ratio to the MLE")
        ax2.legend(frameon=False, markerscale=3)
        return to_png(fig)


def plot_deleted_estimation(result: S.SmoothingResult) -> bytes:
    """Held-out counts against training counts, and the log evidence over α."""
    d = result.deleted
    with style():
        fig, (ax, ax2) = subplots(1, 2, figsize=(11, 4.3))
        add_one = "add-one: (r + 1)·N/(N + " + ("V)" if result.study.report.tokens else "2)")
        evidence = f"posterior mean, evidence α ≈ {np.mean(result.alpha_halves):.3g}"
        for key, marker, kwargs in (
            ("held_out", "o-", {"lw": 2, "label": "held out (other half, rescaled)"}),
            ("mle", "--", {"label": "MLE: r"}),
            ("laplace", "s-", {"ms": 4, "label": add_one}),
            ("evidence", "^-", {"ms": 4, "label": evidence}),
        ):
            ax.plot(d["r"].to_numpy(), d[key], marker, color=COLORS[key], **kwargs)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_xlabel("count r in one half of the training data")
        ax.set_ylabel("average count in the other half")
        ax.set_title("Deleted estimation (Jelinek–Mercer, Church–Gale)")
        ax.legend(frameon=False, loc="upper left")
        ax2.plot(result.alphas, result.log_evidence, color="black", lw=1.8, label="log evidence")
        ax2.axvline(
            result.alpha_evidence,
            color=COLORS["evidence"],
            ls="--",
            label=f"evidence maximum α = {result.alpha_evidence:.3g}",
        )
        ax2.axvline(
            result.alpha_cv,
            color=COLORS["map"],
            ls=":",
            lw=2,
            label=f"cross-validated α = {result.alpha_cv:.3g}",
        )
        ax2.axvline(1.0, color=COLORS["laplace"], ls="-", lw=0.8, alpha=0.6, label="α = 1")
        ax2.set_xscale("log")
        ax2.set_xlabel("α (symmetric prior concentration)")
        ax2.set_ylabel("log p(X, y | α)  [nats]")
        ax2.set_title("Log evidence over α")
        top = result.log_evidence.max()
        span = top - np.percentile(result.log_evidence, 20)
        ax2.set_ylim(top - 1.2 * span, top + 0.1 * span)
        ax3 = ax2.twinx()
        ax3.plot(
            result.cv_alphas,
            result.cv_score,
            "o-",
            ms=3,
            color=COLORS["map"],
            alpha=0.8,
            label="CV label log-lik / doc",
        )
        ax3.set_ylabel("CV held-out log p(y | x) per document", color=COLORS["map"])
        ax3.grid(False)
        ax3.spines["right"].set_visible(True)
        h1, l1 = ax2.get_legend_handles_labels()
        h2, l2 = ax3.get_legend_handles_labels()
        ax2.legend(h1 + h2, l1 + l2, frameon=False, loc="lower center", fontsize=8)
        return to_png(fig)


def plot_rank(result: S.SamplerResult) -> bytes:
    """ArviZ rank plot (fractional-rank ECDF) of the parameters with the largest R-hat."""
    import arviz as az

    n = len(result.rank_data["posterior"].data_vars)
    pc = az.plot_rank(result.rank_data, figure_kwargs={"figsize": (min(3.0 * n, 11), 3.0)})
    return to_png(pc.get_viz("figure"))


def plot_ppc(result: S.PPCResult) -> bytes:
    """Generated against real documents: lengths, distinct features, frequency–rank."""
    feature, doc = S.words(result.study.data)
    with style():
        fig, axes = subplots(1, 3, figsize=(12, 3.8))
        series = (
            ("real", result.real_length, result.real_distinct, result.rank_real),
            ("generated", result.gen_length, result.gen_distinct, result.rank_gen),
        )
        ax = axes[0]
        hi = np.percentile(np.concatenate([result.real_length, result.gen_length]), 99.5)
        bins = np.linspace(0, max(hi, 1), 40)
        step = {"histtype": "step", "lw": 2}
        for name, L, _, _ in series:
            label = "real (training)" if name == "real" else name
            ax.hist(L, bins=bins, color=COLORS[name], label=label, **step)
        ax.set_xlabel(
            f"{doc} length" if result.study.report.tokens else f"present {feature}s per {doc}"
        )
        ax.set_ylabel(f"{doc}s")
        ax.set_title("Length")
        ax.legend(frameon=False)
        ax = axes[1]
        if result.study.report.tokens:
            for name, L, D, _ in series:
                ok = L > 0
                edges = np.unique(np.percentile(L[ok], np.linspace(0, 100, 16)))
                idx = np.clip(np.digitize(L[ok], edges[1:-1]), 0, len(edges) - 2)
                full = [idx == b for b in range(len(edges) - 1) if (idx == b).any()]
                mids = [L[ok][sel].mean() for sel in full]
                ratio = [(D[ok][sel] / L[ok][sel]).mean() for sel in full]
                ax.plot(mids, ratio, "o-", ms=4, color=COLORS[name], label=name)
            ax.set_xlabel(f"{doc} length (binned)")
            ax.set_ylabel(f"distinct {feature}s / length")
            ax.set_title(f"Distinct {feature}s per token")
        else:
            for name, _, D, _ in series:
                ax.hist(D - D.mean(), bins=30, color=COLORS[name], label=name, density=True, **step)
            ax.set_xlabel("deviation from the mean count")
            ax.set_ylabel("density")
            ax.set_title(f"Spread of present {feature}s")
        ax.legend(frameon=False)
        ax = axes[2]
        for i, c in enumerate(result.rank_real):
            for name, _, _, ranks in series:
                r = ranks[c]
                ls = ("-", "--", ":")[i % 3]
                ax.plot(np.arange(1, r.size + 1), r, ls, color=COLORS[name], label=f"{c}, {name}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"{feature} rank within class")
        ax.set_ylabel("total count in class")
        ax.set_title("Frequency–rank per class")
        ax.legend(frameon=False, fontsize=7, ncol=2)
        fig.suptitle(f"Posterior predictive check: {result.study.label}")
        return to_png(fig)


def plot_event_models(result: S.EventModelResult) -> bytes:
    """Held-out label log density per document of every event model, ± 2 paired SE."""
    t = result.table.sort_values("lpd_per_doc")
    with style():
        fig, ax = subplots(figsize=(8, 0.5 + 0.45 * len(t)))
        y = np.arange(len(t))
        colors = ["#1f77b4" if "evidence" in k else "#7f7f7f" for k in t.index]
        best = t["lpd_per_doc"].max()
        ax.errorbar(
            best + t["diff_to_best"],
            y,
            xerr=2 * t["diff_se"],
            fmt="none",
            ecolor="#333333",
            capsize=3,
        )
        ax.scatter(t["lpd_per_doc"], y, color=colors, s=50, zorder=3)
        ax.set_yticks(y)
        ax.set_yticklabels(t.index)
        ax.set_xlabel("held-out log p(y | x) per document (± 2 paired SE of the gap to the best)")
        ax.set_title(f"Event models on {result.data.name} (full-Bayes scoring)")
        return to_png(fig)


def plot_informative(result: S.InformativeResult) -> bytes:
    """One panel per (class, rival): posterior mean log-odds and equal-tailed interval."""
    t = result.table
    perc = round(100 * result.ci_prob)
    lb, ub = f"eti{perc}_lb", f"eti{perc}_ub"
    k = len(result.pairs)
    ncols = 2 if k > 1 else 1
    nrows = -(-k // ncols)
    n = int(t["rank"].max())
    with style():
        fig, axes = subplots(
            nrows, ncols, figsize=(5.2 * ncols, 0.7 + nrows * (0.6 + 0.26 * n)), squeeze=False
        )
        groups = t.groupby(["class", "versus"], sort=False)
        for ax, ((a, b), g) in zip(axes.ravel(), groups, strict=False):
            y = np.arange(len(g))[::-1]
            both = (g["count_versus"] > 0).to_numpy()
            ax.hlines(y, g[lb], g[ub], color=np.where(both, "#1f77b4", "#ff7f0e"), lw=2)
            ax.scatter(g["mean"], y, color="#1d2330", s=18, zorder=3)
            ax.axvline(0.0, color="#999999", lw=1)
            ax.set_yticks(y)
            ax.set_yticklabels(g["feature"].astype(str), fontsize=9)
            ax.set_title(f"{a} vs {b}", fontsize=10)
            ax.grid(axis="y", visible=False)
        for ax in axes.ravel()[k:]:
            ax.set_axis_off()
        for ax in axes[-1]:
            if ax.axison:
                ax.set_xlabel("log(φ_a / φ_b), nats")
        fig.suptitle(
            f"{result.study.label}: most informative features, posterior mean and "
            f"{perc}% interval (orange: never seen in the rival class)",
            fontsize=11,
        )
        return to_png(fig)


def plot_labelled_curve(result: S.FewLabelsResult) -> bytes:
    """Accuracy and log loss against labelled documents per class (log x), error bars SE."""
    c = result.curve
    sizes = c["size"].values
    with style():
        fig, axes = subplots(1, 2, figsize=(9.6, 3.6))
        for ax, metric, label in zip(
            axes, ("accuracy", "log_loss"), ("test accuracy", "test log loss (nats)"), strict=True
        ):
            for name in c["inference"].values:
                ax.errorbar(
                    sizes,
                    c[f"{metric}_mean"].sel(inference=name).values,
                    np.nan_to_num(c[f"{metric}_se"].sel(inference=name).values),
                    marker="o",
                    ms=4,
                    capsize=3,
                    color=COLORS[name],
                    label=S.INFERENCE_LABELS[name],
                )
            if metric == "accuracy":
                ax.axhline(result.majority, color="black", ls=":", lw=1, label="largest class")
            ax.set(xscale="log", xlabel="labelled documents per class", ylabel=label)
            ax.set_xticks(sizes, [str(n) for n in sizes])
            ax.minorticks_off()
        axes[0].legend()
        return to_png(fig)
