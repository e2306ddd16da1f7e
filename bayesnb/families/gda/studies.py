"""Gaussian discriminant analysis against logistic regression: the gda family's report section.

For every GDA study: the logistic form of shared-Σ GDA (its implied coefficients against a
fitted logistic regression), learning curves (Ng & Jordan), and decision regions of shared
and per-class covariance in two discriminant directions.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from matplotlib import colormaps
from matplotlib.colors import ListedColormap
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayesnb.report.data import Study
from bayesnb.report.extension import FamilySection
from bayesnb.report.html import Block, Figure, Section
from bayesnb.report.plotting import COLORS, style, subplots, to_png
from bayesnb.report.sections.common import pct, split_xy

__all__ = [
    "SECTION",
    "GDAResult",
    "gda_study",
    "plot_gda_coefficients",
    "plot_gda_regions",
    "plot_learning_curve",
]


# -- 8. GDA ------------------------------------------------------------------------------------
@dataclass
class GDAResult:
    """GDA against logistic regression: coefficients, learning curve, decision regions."""

    study: Study
    coef: pd.DataFrame
    coef_corr: float
    curve: xr.Dataset
    grid: dict
    reading: str = ""


def _discriminant_directions(est, X: np.ndarray) -> np.ndarray:
    """Two directions: Fisher's discriminants (S_B v = λ S_W v), padded by top residual PCs."""
    from scipy.linalg import eigh

    means = est.means_
    pi = np.exp(est.class_log_prior_)
    centre = pi @ means
    D = means - centre
    s_b = (D.T * pi) @ D
    s_w = est.covariance_
    if s_w.ndim == 3:
        s_w = np.einsum("c,cij->ij", pi, s_w)
    vals, vecs = eigh(s_b, s_w)
    order = np.argsort(vals)[::-1]
    n_disc = min(2, len(means) - 1)
    dirs = [vecs[:, i] / np.linalg.norm(vecs[:, i]) for i in order[:n_disc]]
    if len(dirs) < 2:
        v = dirs[0]
        R = X - np.outer(X @ v, v)
        _, _, vt = np.linalg.svd(R - R.mean(axis=0), full_matrices=False)
        dirs.append(vt[0])
    return np.stack(dirs, axis=1)


def gda_study(
    study: Study, *, seed: int = 0, n_repeats: int = 5, grid_size: int = 200
) -> GDAResult:
    """The GDA section of one continuous data set."""
    from bayesnb.curves import learning_curve
    from bayesnb.families.gda.estimator import GDA

    Xtr, ytr, Xte, yte = split_xy(study)
    names = study.data.feature_names
    gda = study.configured(estimate="mean").fit(Xtr, ytr)
    lr = LogisticRegression(max_iter=5000).fit(Xtr, ytr)
    classes = [str(c) for c in gda.classes_]
    if len(classes) == 2:
        g = (gda.coef_[1] - gda.coef_[0])[None, :]
        lab = [f"{classes[1]} vs {classes[0]}"]
        lcoef = lr.coef_
    else:
        g = gda.coef_ - gda.coef_.mean(axis=0)
        lcoef = lr.coef_ - lr.coef_.mean(axis=0)
        lab = classes
    coef = pd.DataFrame(
        {
            "class": np.repeat(lab, g.shape[1]),
            "feature": np.tile(names, g.shape[0]),
            "gda": g.ravel(),
            "logistic": lcoef.ravel(),
        }
    )
    corr = float(np.corrcoef(coef["gda"], coef["logistic"])[0, 1])
    n_classes = len(classes)
    pool = int(len(study.data.y) * 0.75)
    lo = max(2 * n_classes, 10)
    sizes = np.unique(np.geomspace(lo, pool, 7).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = learning_curve(
            {
                "GDA (shared Σ)": make_pipeline(StandardScaler(), clone(study.estimator)),
                "logistic regression": make_pipeline(
                    StandardScaler(), LogisticRegression(max_iter=5000)
                ),
            },
            study.data.X,
            study.data.y,
            train_sizes=sizes,
            n_repeats=n_repeats,
            random_state=seed,
        )
    W = _discriminant_directions(gda, Xtr)
    Ztr, Zte = Xtr @ W, Xte @ W
    lo = np.minimum(Ztr.min(axis=0), Zte.min(axis=0)) - 0.5
    hi = np.maximum(Ztr.max(axis=0), Zte.max(axis=0)) + 0.5
    g0, g1 = (np.linspace(lo[j], hi[j], grid_size) for j in (0, 1))
    G0, G1 = np.meshgrid(g0, g1)
    flat = np.column_stack([G0.ravel(), G1.ravel()])
    regions = {}
    for cov in ("shared", "per_class"):
        m = GDA(covariance=cov).fit(Ztr, ytr)
        codes = np.searchsorted(m.classes_, m.predict(flat)).reshape(G0.shape)
        regions[cov] = {"codes": codes, "accuracy": float(np.mean(m.predict(Zte) == yte))}
    grid = {
        "g0": g0,
        "g1": g1,
        "regions": regions,
        "Ztr": Ztr,
        "ytr": np.searchsorted(gda.classes_, ytr),
        "Zte": Zte,
        "yte": np.searchsorted(gda.classes_, yte),
        "classes": classes,
        "n_discriminants": min(2, n_classes - 1),
    }
    result = GDAResult(study, coef, corr, curve, grid)
    result.reading = _gda_reading(result)
    return result


def _gda_reading(r: GDAResult) -> str:
    c = r.curve
    err = c["error_mean"]
    names = list(c["estimator"].values)
    sizes = c["train_size"].values
    g, lr = err.sel(estimator=names[0]).values, err.sel(estimator=names[1]).values
    parts = [
        f"With shared covariance, GDA's log posterior odds are linear in x: its implied "
        f"logistic coefficients correlate at r = {r.coef_corr:.2f} with those of a fitted "
        "logistic regression (both on standardised features; scikit-learn's default L2 "
        "penalty C = 1 shrinks the latter)."
    ]
    parts.append(
        f"Learning curve ({int(c.attrs['n_repeats'])} random splits, {int(c.attrs['n_test'])} "
        f"test points): with {sizes[0]} training points GDA errs on {pct(g[0])} and logistic "
        f"regression on {pct(lr[0])}; with {sizes[-1]}, {pct(g[-1])} against {pct(lr[-1])}."
    )
    ahead, behind = g < lr, g > lr
    lead = int(np.argmin(ahead)) if not ahead.all() else ahead.size
    if 2 <= lead < ahead.size and behind[lead:].all():
        parts.append(
            f"As Ng & Jordan (2001) predict, the generative model learns faster: GDA leads up "
            f"to {sizes[lead - 1]} training points, logistic regression from {sizes[lead]} on."
        )
    elif ahead.all():
        parts.append("GDA stays ahead at every size on these data.")
    elif behind.all():
        parts.append("Logistic regression is ahead at every size on these data.")
    elif not (ahead | behind).any():
        parts.append("The two models err equally at every size on these data.")
    elif not ahead.any():
        parts.append(
            "GDA is never ahead on these data: logistic regression leads at some sizes and "
            "the two err equally at the others."
        )
    else:
        parts.append(
            "The curves cross more than once or only at the smallest size; with "
            f"{int(c.attrs['n_repeats'])} random splits the differences are within the "
            "shaded spread, so neither model clearly learns faster here."
        )
    reg = r.grid["regions"]
    kind = (
        "discriminant directions"
        if r.grid["n_discriminants"] == 2
        else ("discriminant direction (x-axis) and the leading remaining principal direction")
    )
    parts.append(
        f"Decision regions in the {kind}: refitted on these two coordinates, shared Σ "
        f"(linear boundaries) classifies {pct(reg['shared']['accuracy'])} of the test points "
        f"correctly and per-class Σ (quadratic) {pct(reg['per_class']['accuracy'])}."
    )
    return " ".join(parts)


# -- GDA --------------------------------------------------------------------------------------
def plot_gda_coefficients(result: GDAResult) -> bytes:
    """GDA's implied logistic coefficients against a fitted logistic regression."""
    c = result.coef
    with style():
        fig, ax = subplots(figsize=(5.6, 4.6))
        groups = list(dict.fromkeys(c["class"]))
        for i, g in enumerate(groups):
            sub = c[c["class"] == g]
            ax.scatter(
                sub["logistic"],
                sub["gda"],
                s=22,
                alpha=0.8,
                color=colormaps["tab10"](i),
                label=g if len(groups) > 1 else None,
            )
        lim = np.abs(np.concatenate([c["gda"], c["logistic"]])).max() * 1.05
        ax.plot([-lim, lim], [-lim, lim], color="#999999", ls="--", lw=1)
        big = c.reindex(c["gda"].abs().sort_values(ascending=False).index).head(4)
        for _, row in big.iterrows():
            ax.annotate(
                str(row["feature"]),
                (row["logistic"], row["gda"]),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
        ax.set_xlabel("logistic regression coefficient")
        ax.set_ylabel("GDA implied coefficient (Σ⁻¹ μ)")
        ax.set_title(f"{result.study.data.name}: linear link, r = {result.coef_corr:.2f}")
        if len(groups) > 1:
            ax.legend(frameon=False, title="class (centred)")
        return to_png(fig)


def plot_learning_curve(result: GDAResult) -> bytes:
    """Test error against training size, GDA and logistic regression (Ng & Jordan)."""
    c = result.curve
    with style():
        fig, ax = subplots(figsize=(5.6, 4.6))
        colors = [COLORS["mean"], COLORS["logistic"]]
        for name, col in zip(c["estimator"].values, colors, strict=False):
            m = c["error_mean"].sel(estimator=name).values
            s = c["error_std"].sel(estimator=name).values
            n = c["train_size"].values
            ax.plot(n, m, "o-", color=col, label=str(name))
            ax.fill_between(n, np.maximum(m - s, 0), m + s, color=col, alpha=0.15)
        ax.set_xscale("log")
        ax.set_xlabel("training examples")
        ax.set_ylabel("test error (mean ± sd over splits)")
        ax.set_title(f"{result.study.data.name}: learning curve")
        ax.legend(frameon=False)
        return to_png(fig)


def plot_gda_regions(result: GDAResult) -> bytes:
    """Decision regions of shared and per-class GDA in two discriminant coordinates."""
    g = result.grid
    k = len(g["classes"])
    base = [colormaps["tab10"](i) for i in range(k)]
    cmap = ListedColormap([(r, gg, b, 0.25) for r, gg, b, _ in base])
    with style():
        fig, axes = subplots(1, 2, figsize=(11, 4.4), sharey=True)
        for ax, cov in zip(axes, ("shared", "per_class"), strict=True):
            reg = g["regions"][cov]
            ax.pcolormesh(
                g["g0"],
                g["g1"],
                reg["codes"],
                cmap=cmap,
                shading="auto",
                vmin=-0.5,
                vmax=k - 0.5,
                rasterized=True,
            )
            for i in range(k):
                tr = g["ytr"] == i
                te = g["yte"] == i
                ax.scatter(
                    g["Ztr"][tr, 0],
                    g["Ztr"][tr, 1],
                    s=10,
                    color=base[i],
                    alpha=0.6,
                    label=f"{g['classes'][i]} (train)",
                )
                ax.scatter(
                    g["Zte"][te, 0],
                    g["Zte"][te, 1],
                    s=24,
                    facecolor="none",
                    edgecolor=base[i],
                    label=f"{g['classes'][i]} (test)",
                )
            title = "shared Σ (linear)" if cov == "shared" else "per-class Σ (quadratic)"
            ax.set_title(f"{title}: test accuracy {100 * reg['accuracy']:.1f}%")
            ax.set_xlabel("discriminant direction 1")
            ax.grid(False)
        axes[0].set_ylabel(
            "discriminant direction 2"
            if g["n_discriminants"] == 2
            else "leading remaining principal direction"
        )
        axes[1].legend(frameon=False, fontsize=7, loc="best", ncol=2)
        fig.suptitle(f"{result.study.data.name}: GDA decision regions")
        return to_png(fig)


_FIGURES = (
    (
        "coef",
        plot_gda_coefficients,
        "GDA's implied logistic coefficients against logistic regression's.",
    ),
    ("curve", plot_learning_curve, "Learning curve (bayesnb.learning_curve), Ng & Jordan style."),
    ("regions", plot_gda_regions, "Decision regions; dots: training, circles: test."),
)


def layout(results: list, draw) -> Section:
    """The gda section of the page: one block per result."""
    blocks = [
        Block(
            x.study.data.name,
            x.reading,
            figures=[
                Figure(f"gda-{key}-{x.study.data.name}", draw(plot, x), caption)
                for key, plot, caption in _FIGURES
            ],
        )
        for x in results
    ]
    return Section(
        "gda",
        "Gaussian discriminant analysis",
        "Continuous features, standardised with the training moments. Shared-Σ GDA "
        "is a linear logistic model in x; per-class Σ gives quadratic boundaries.",
        blocks,
    )


def _target(study: Study) -> bool:
    return study.model == "gda"


def _run(study: Study, *, seed: int, cfg: dict) -> GDAResult:
    return gda_study(study, seed=seed, n_repeats=cfg["repeats"], grid_size=cfg["grid_size"])


SECTION = FamilySection(
    key="gda",
    title="GDA",
    run=_run,
    layout=layout,
    per_study=_target,
)
