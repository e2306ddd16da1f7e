"""GDA family methods: point estimates, exact draws, summaries, synthetic data.

Variables ``mean (class, feature)`` and ``cov ([class,] feature, feature_bis)``: one Σ for
``covariance="shared"``, one per class otherwise; the diagonal model keeps the full matrix
layout with exact zeros off the diagonal, so code reading ``cov`` never branches on the
covariance type.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import invgamma
from scipy.stats import t as student_t

from bayesnb.datatree import DIMS, layout_coords
from bayesnb.posterior.sampling import inverse_wishart_draws

__all__ = ["GDASampling"]


def _cov_matrix(cov: np.ndarray, covariance: str, features) -> np.ndarray:
    """A GDA covariance estimate in the layout: diagonal variances (K, d) become (K, d, d)
    matrices with zeros off the diagonal; ``features`` keeps a principal sub-block."""
    if covariance == "diagonal":
        var = cov if features is None else cov[:, features]
        out = np.zeros((*var.shape, var.shape[-1]))
        j = np.arange(var.shape[-1])
        out[..., j, j] = var
        return out
    if features is None:
        return cov
    return cov[..., features[:, None], features[None, :]]


class GDASampling:
    """Family methods of GDA for sampling; see :class:`bayesnb.families.Family`."""

    var_names = ("class_prior", "mean", "cov")

    bayes_not_a_point = (
        "estimate='bayes' is not a point for GDA: it is the multivariate Student-t "
        "predictive (μ_c and Σ integrated out), which no single Gaussian reproduces. Use "
        "'mean' for the posterior means of μ_c and Σ, or sample_posterior() for the "
        "posterior itself."
    )

    def point_values(self, est, view, names: list[str], features) -> dict[str, np.ndarray]:
        """``means_`` and ``covariance_`` of the estimate (diagonal variances as matrices)."""
        values: dict[str, np.ndarray] = {}
        if "mean" in names:
            means = view.means_
            values["mean"] = means if features is None else means[:, features]
        if "cov" in names:
            values["cov"] = _cov_matrix(view.covariance_, est._stats.covariance, features)
        return values

    def layout(self, est, features) -> dict:
        """The shared model's one ``cov`` has no ``class`` dim."""
        if est._stats.covariance == "shared":
            return {"dims": {"cov": ["feature", "feature_bis"]}}
        return {}

    def draw_cost(self, est, names: list[str], features) -> tuple[str, int, str]:
        """Cells of ``mean`` and ``cov`` per draw (Σ is drawn whenever either is asked for)."""
        cells = 0
        if "mean" in names or "cov" in names:
            n_classes = est.class_count_.shape[0]
            n = est.n_features_in_ if features is None else features.size
            n_cov = n * n if est._stats.covariance == "shared" else n_classes * n * n
            cells = n_classes * n + n_cov
        return "mean and cov", cells, "classes × columns + [classes ×] columns²"

    def posterior_draws(
        self, est, rng, shape: tuple[int, int], names: list[str], features, *, aux_rng
    ) -> dict[str, np.ndarray]:
        """Exact Normal-Inverse-Wishart draws of (μ_c, Σ) for the GDA layout.

        Σ comes from ``rng`` and the standard normals of μ from ``aux_rng``, so asking for
        ``mean`` alone gives the same values as asking for both. A column subset S draws the
        marginal posterior of (μ_{c,S}, Σ_SS) directly: the principal sub-block of
        Σ ~ IW_d(Ψ, ν) is IW_s(Ψ_SS, ν − d + s), and μ_{c,S} | Σ ~ N(μ_{c,S}, Σ_SS/κ_c)
        involves only that block, so (μ_S, Σ_SS) is again Normal-Inverse-Wishart.
        """
        out: dict[str, np.ndarray] = {}
        if "mean" not in names and "cov" not in names:
            return out
        post = est.posterior_
        covariance = post.covariance_type
        d = post.stats.n_features
        feat = np.arange(d) if features is None else features
        s = feat.size
        mu = post.mu[:, feat]
        kappa = post.kappa
        nu, psi = post.nu, post.psi
        n_classes = mu.shape[0]
        want_mean = "mean" in names
        # Standard normals of μ (their own stream: skipping them leaves Σ unchanged).
        z = aux_rng.standard_normal((*shape, n_classes, s)) if want_mean else None
        if covariance == "diagonal":
            # Normal-Inverse-Gamma per (class, feature): σ² ~ IG((ν_c − d + 1)/2, Ψ_c,jj/2).
            a = np.broadcast_to(((nu - d + 1.0) / 2.0)[:, None], (n_classes, s))
            var = (psi[:, feat] / 2.0) / rng.standard_gamma(a, size=(*shape, n_classes, s))
            if want_mean:
                z *= np.sqrt(var / kappa[:, None])
            if "cov" in names:
                cov = np.zeros((*shape, n_classes, s, s))
                cov[..., np.arange(s), np.arange(s)] = var
                out["cov"] = cov
        else:
            block = psi[..., feat[:, None], feat[None, :]]
            sigma, root = inverse_wishart_draws(rng, block, nu - d + s, shape)
            if want_mean:
                if covariance == "shared":
                    root = root[..., None, :, :]  # one Σ for every class
                z = (root @ z[..., None])[..., 0] / np.sqrt(kappa)[:, None]
            del root
            if "cov" in names:
                out["cov"] = sigma
        if want_mean:
            z += mu
            out = {"mean": z, **out}  # the order of var_names: mean, then cov
        return out

    def posterior_summary(self, est, ci_prob: float, features) -> tuple[dict, dict]:
        """Closed-form summaries of μ_c and Σ, each stacked as (mean, sd, lower, upper).

        - μ_cj: Student-t with ν' = ν_c − d + 1 degrees of freedom, location μ_cj and squared
          scale Ψ_c,jj / (κ_c ν') (the marginal of the multivariate t of μ_c; for the diagonal
          model the Normal-Inverse-Gamma marginal, the same formula). Mean needs ν' > 1, sd
          ``sqrt(Ψ_jj / (κ_c (ν − d − 1)))`` needs ν' > 2.
        - Σ_jj: InvGamma((ν − d + 1)/2, Ψ_jj/2), the 1 × 1 marginal of the inverse Wishart.
        - Σ_ij (i ≠ j): mean Ψ_ij / (ν − d − 1) and variance
          ``((ν−d+1) Ψ_ij² + (ν−d−1) Ψ_ii Ψ_jj) / ((ν−d)(ν−d−1)²(ν−d−3))``; an off-diagonal
          entry of an inverse Wishart has no closed-form quantiles, so its bounds are NaN. The
          diagonal model's off-diagonal entries are exactly 0 (mean, sd and bounds 0).

        Every quantity depends on ν and d only through ν − d, the same for any column subset
        (the sub-block of an inverse Wishart keeps ν − d), so ``features`` just selects. A
        moment that does not exist (too few degrees of freedom) is NaN.
        """
        post = est.posterior_
        covariance = post.covariance_type
        d = post.stats.n_features
        feat = np.arange(d) if features is None else features
        s = feat.size
        n_classes = post.stats.n_classes
        excess = np.broadcast_to(post.nu - d, (n_classes,)).astype(np.float64)  # ν − d
        psi = post.psi
        if covariance == "diagonal":
            psi_diag = psi[:, feat]
        elif covariance == "shared":
            psi_diag = np.broadcast_to(np.diagonal(psi)[feat], (n_classes, s))
        else:
            psi_diag = np.diagonal(psi, axis1=1, axis2=2)[:, feat]
        tail = (1.0 - ci_prob) / 2.0
        with np.errstate(divide="ignore", invalid="ignore"):
            # μ_cj: Student-t marginals.
            dof = (excess + 1.0)[:, None]
            scale = np.sqrt(psi_diag / (post.kappa[:, None] * dof))
            loc = post.mu[:, feat]
            mean_mu = np.where(dof > 1, loc, np.nan)
            sd_mu = np.where(
                dof > 2, np.sqrt(psi_diag / (post.kappa[:, None] * (dof - 2.0))), np.nan
            )
            lo_mu = student_t.ppf(tail, dof, loc, scale)
            hi_mu = student_t.ppf(1.0 - tail, dof, loc, scale)
            mean_stats = np.stack([mean_mu, sd_mu, lo_mu, hi_mu])
            # Σ_jj: inverse-gamma marginals; Σ_ij: moments only.
            m = excess[:, None, None] if covariance != "shared" else excess[0]
            if covariance == "diagonal":
                block = np.zeros((n_classes, s, s))
                block[:, np.arange(s), np.arange(s)] = psi_diag
            else:
                block = psi[..., feat[:, None], feat[None, :]]
            pdiag = np.diagonal(block, axis1=-2, axis2=-1)
            cov_mean = np.where(m > 1, block / (m - 1.0), np.nan)
            outer = pdiag[..., :, None] * pdiag[..., None, :]
            cov_var = ((m + 1.0) * block**2 + (m - 1.0) * outer) / (m * (m - 1.0) ** 2 * (m - 3.0))
            cov_sd = np.where(m > 3, np.sqrt(cov_var), np.nan)
            # Shape of every Σ_jj: (ν − d + 1)/2, a scalar (shared) or one per class.
            a = (m + 1.0) / 2.0 if covariance == "shared" else (excess[:, None] + 1.0) / 2.0
            lo_cov = np.full(block.shape, np.nan)
            hi_cov = np.full(block.shape, np.nan)
            j = np.arange(s)
            lo_cov[..., j, j] = invgamma.ppf(tail, a, scale=pdiag / 2.0)
            hi_cov[..., j, j] = invgamma.ppf(1.0 - tail, a, scale=pdiag / 2.0)
        cov_stats = np.stack([cov_mean, cov_sd, lo_cov, hi_cov])
        if covariance == "diagonal":
            off = ~np.eye(s, dtype=bool)
            cov_stats[..., off] = 0.0
        cov_dims = ("feature", "feature_bis") if covariance == "shared" else DIMS["cov"]
        variables = {
            "mean": (("summary", "class", "feature"), mean_stats),
            "cov": (("summary", *cov_dims), cov_stats),
        }
        return variables, {"feature_bis": layout_coords(est, features)["feature_bis"]}

    def generate(self, est, codes: np.ndarray, rng) -> np.ndarray:
        """x | c ~ N(μ_c, Σ_c) of the estimate; ``"bayes"``: the Student-t predictive.

        Every ``"bayes"`` sample is ``μ_c + L z · sqrt(ν'/g)``, g ~ χ²(ν'), ν' = ν − d + 1,
        ``L Lᵀ = Ψ (κ_c + 1) / (κ_c ν')`` (the diagonal model: one independent t per feature,
        each with its own g). A dense float64 array.
        """
        fitted = est._fitted
        covariance = fitted.covariance_type
        n, d = codes.shape[0], est.n_features_in_
        Z = rng.standard_normal((n, d))
        if est.estimate == "bayes":
            loc, dof = fitted.loc, fitted.dof
            # Scale Ψ (κ_c + 1)/(κ_c ν'): Ψ's factor times a per-class scalar, per sample.
            s = (fitted.kappa + 1.0) / (fitted.kappa * dof)
            g_shape = (n, d) if covariance == "diagonal" else (n, 1)
            g = 2.0 * rng.standard_gamma(dof[codes][:, None] / 2.0, size=g_shape)
            Z *= np.sqrt(s[codes] * dof[codes])[:, None] / np.sqrt(g)
            means, factor = loc, fitted.psi_factor
            if covariance == "diagonal":
                factor = np.sqrt(factor)  # Ψ's diagonal -> standard deviations
        else:
            means, factor = fitted.means, fitted.factor
            bad = np.flatnonzero(~fitted.valid)
            if np.isin(codes, bad).any():
                label = np.asarray(est.classes_)[bad[:1]].tolist()[0]  # a plain repr
                raise ValueError(
                    f"class {label!r} has no estimate under estimate="
                    f"{est.estimate!r} (no training samples) but has prior probability > 0; "
                    "use estimate='mean' or a class_prior without it"
                )
            if covariance == "diagonal":
                factor = np.sqrt(factor)  # variances -> standard deviations
        if covariance == "diagonal":
            X = Z * factor[codes]
        elif covariance == "shared":
            X = Z @ factor.T
        else:
            X = np.empty((n, d))
            for c in np.unique(codes):
                rows = codes == c
                X[rows] = Z[rows] @ factor[c].T
        X += means[codes]
        return X
