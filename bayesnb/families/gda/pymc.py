"""GDA family methods: the PyMC declaration.

``x_i ~ N(μ_{y_i}, Σ)`` (``Σ_{y_i}`` per class) with the Normal-Inverse-Wishart prior of the
closed-form path (``est.posterior_.prior``, the data-scaled default resolved):
``Σ ~ IW(Ψ0, ν0)``, ``μ_c | Σ ~ N(μ0, Σ/κ0)``; the diagonal model has
``σ²_cj ~ InvGamma((ν0 − d + 1)/2, Ψ0_jj/2)`` and ``μ_cj | σ² ~ N(μ0_j, σ²_cj/κ0)``. The
sufficient form is a ``pm.Potential`` with the Gaussian log-likelihood through ``N_c``, the
class means ``x̄_c`` and the within-class scatter ``S`` (pooled, per class, or its diagonal),
equal to the data form's log-likelihood to rounding.

**GDA parametrisation.** PyMC has no inverse Wishart, so Σ is declared through the Bartlett
decomposition of its precision: ``Λ = Σ⁻¹ ~ Wishart(Ψ0⁻¹, ν0)`` is ``Λ = L A Aᵀ Lᵀ`` with
``L = chol(Ψ0⁻¹)`` and ``A`` lower triangular, ``A_ii = √c_i``, ``c_i ~ χ²(ν0 − i + 1)``
(i = 1..d, free variable ``bartlett_chi2``) and ``A_ij ~ N(0, 1)`` below the diagonal
(``bartlett_normal``), so ``Σ = Λ⁻¹ ~ IW(Ψ0, ν0)`` exactly; per class, one ``(c, A)`` per
class. ``P = L A`` is then the lower Cholesky factor of Λ itself, so the likelihood needs no
factorisation and no solve: ``log|Σ| = −2 Σ_i log P_ii`` and
``(x − μ)ᵀΣ⁻¹(x − μ) = ‖Pᵀ(x − μ)‖²``. ``cov`` is the Deterministic ``P⁻ᵀP⁻¹`` (one
triangular solve). The class means are *centred*: ``mean`` itself is the free variable,
``N(μ0, (κ0 Λ)⁻¹)`` written on ``P`` (a ``pm.CustomDist``; the data form's ``X`` is the same
distribution with κ = 1). The non-centred form (``μ_c = μ0 + P⁻ᵀ z_c/√κ0``,
``z_c ~ N(0, I)``) ties ``z`` to ``A`` as soon as the data pin the means down: on 3 classes ×
3 features × 100 documents it took 1.5× the leapfrog steps for 0.4-0.75× the effective sample
size. Diagonal: ``variance`` ~ InvGamma and ``mean`` ~ Normal, both centred.

"""

from __future__ import annotations

import numpy as np

from bayesnb.pymc_models.declaration import (
    declare_class_prior,
    make_spec,
    prepare,
    unlabelled_documents,
)
from bayesnb.pymc_models.spec import ModelSpec
from bayesnb.stats.gaussian import gaussian_stats

__all__ = ["GDAPyMC"]

_LOG_2PI = float(np.log(2.0 * np.pi))
_PER_CLASS_COV_DIMS = ["class", "feature", "feature_bis"]


class GDAPyMC:
    """Family methods of GDA for pymc; see :class:`bayesnb.families.Family`."""

    def pymc_spec(self, est, X, y, likelihood, alpha_prior, sample_weight) -> ModelSpec:
        """The Normal-Inverse-Wishart Gaussian model of ``est`` on ``(X, y)``."""
        if alpha_prior is not None:
            raise ValueError(
                "alpha_prior applies to the naive Bayes models only; GDA's prior is its "
                "NormalInverseWishart (est.prior)"
            )
        X, codes = prepare(est, X, y, sample_weight)
        post = est.posterior_  # the prior resolved exactly as the closed-form path resolves it
        niw, covariance = post.prior, post.covariance_type
        n_classes = len(est.classes_)
        X = np.asarray(X, dtype=np.float64)
        psi0 = np.diag(niw.psi0).copy() if covariance == "diagonal" else niw.psi0.copy()
        data: dict[str, np.ndarray] = {
            "mu0": niw.mu0.copy(),
            "kappa0": np.asarray(niw.kappa0, dtype=np.float64),
            "psi0": psi0,
            "nu0": np.asarray(niw.nu0, dtype=np.float64),
        }
        scatter_dims = {
            "shared": ["feature", "feature_bis"],
            "per_class": ["class", "feature", "feature_bis"],
            "diagonal": ["class", "feature"],
        }[covariance]
        if likelihood == "data":
            data["X_data"] = X
            observed = {"X": (X, ["doc", "feature"])}
        else:
            st = gaussian_stats(X, codes, np.ones(len(codes)), n_classes, covariance)
            data["class_mean_data"] = st.mean
            data["scatter_data"] = st.scatter
            observed = {
                "class_mean": (st.mean, ["class", "feature"]),
                "scatter": (st.scatter, scatter_dims),
            }
        cov_dims = ["feature", "feature_bis"] if covariance == "shared" else _PER_CLASS_COV_DIMS
        # the diagonal model keeps only Ψ0's diagonal
        psi0_dims = ["feature"] if covariance == "diagonal" else ["feature", "feature_bis"]
        return make_spec(
            est,
            X,
            codes,
            likelihood,
            None,
            kind=self.name,
            data=data,
            observed=observed,
            structure=(covariance,),
            build=_build_gda,
            dims={"mean": ["class", "feature"], "cov": cov_dims},
            hyperparameter_dims={
                "mu0": ["feature"],
                "kappa0": None,
                "psi0": psi0_dims,
                "nu0": None,
            },
            extra={"covariance": covariance},
            auxiliary=_auxiliary(covariance, X.shape[1]),
        )

    def pymc_unlabelled(self, est, X) -> tuple:
        """See :meth:`bayesnb.families.Family.pymc_unlabelled`: log N(x_i | μ_c, Σ_c) on the
        layout variables ``mean`` and ``cov`` (diagonal: ``variance``), as the data form."""
        X = np.asarray(unlabelled_documents(est, X), dtype=np.float64)
        covariance = est.posterior_.covariance_type

        def jll(get):
            import pytensor.tensor as pt

            x, mean = get("unlabelled_X")[:, None, :], get("mean")
            if covariance == "diagonal":
                var = get("variance")
                return -0.5 * pt.sum(_LOG_2PI + pt.log(var) + (x - mean) ** 2 / var, axis=-1)
            P, log_det = _precision_factor(get("cov"), X.shape[1])
            return _precision_normal_logp(x, mean, 1.0, P, log_det)

        return {"unlabelled_X": X}, jll


def _precision_factor(cov, d: int) -> tuple:
    """The lower Cholesky factor ``P`` of ``Λ = Σ⁻¹`` (one d × d factorisation per class) and
    ``log|Λ|``, taken without ``pt.diagonal`` (whose batched gradient has no numba
    implementation)."""
    import pytensor.tensor as pt

    P = pt.linalg.cholesky(pt.linalg.inv(cov))
    return P, 2.0 * pt.sum(pt.log(pt.sum(P * pt.eye(d), axis=-1)), axis=-1)


def _auxiliary(covariance: str, n_features: int) -> dict[str, list[str] | None]:
    """The free variables besides ``mean`` (``cov`` is their Deterministic)."""
    if covariance == "diagonal":
        return {"variance": ["class", "feature"]}
    batch = [] if covariance == "shared" else ["class"]
    out: dict[str, list[str] | None] = {"bartlett_chi2": [*batch, "feature"]}
    if n_features > 1:
        out["bartlett_normal"] = None
    return out


def _bartlett_precision_factor(nu0, psi0, n_features: int, batch: tuple[str, ...]):
    """``P = L A`` with ``P Pᵀ = Λ ~ Wishart(Ψ0⁻¹, ν0)``: the lower Cholesky factor of Λ.

    Declares ``bartlett_chi2`` (c_i ~ χ²(ν0 − i + 1), i = 1..d) and, for d > 1,
    ``bartlett_normal`` (the strictly lower entries of A) with leading dims ``batch``.

    Returns
    -------
    P : TensorVariable of shape (*batch, d, d)
    log_det : TensorVariable of shape batch
        ``log|Λ| = 2 Σ_i log P_ii = 2 Σ_i log L_ii + Σ_i log c_i``, from the factors (no
        diagonal is extracted from the batched P: its gradient has no compiled batched form).
    """
    import pymc as pm
    import pytensor.tensor as pt

    d = n_features
    L = pt.linalg.cholesky(pt.linalg.inv(psi0))  # chol(Ψ0⁻¹); Ψ0 is data, not a parameter
    chi2 = pm.ChiSquared("bartlett_chi2", nu=nu0 - np.arange(d), dims=(*batch, "feature"))
    log_det = 2.0 * pt.sum(pt.log(pt.diagonal(L))) + pt.sum(pt.log(chi2), axis=-1)
    diag = np.arange(d)
    shape = tuple(len(pm.modelcontext(None).coords[b]) for b in batch)
    A = pt.zeros((*shape, d, d))
    A = pt.set_subtensor(A[..., diag, diag], pt.sqrt(chi2))
    rows, cols = np.tril_indices(d, -1)
    if rows.size:
        z = pm.Normal("bartlett_normal", 0.0, 1.0, shape=(*shape, rows.size))
        A = pt.set_subtensor(A[..., rows, cols], z)
    return L @ A, log_det


def _build_gda(spec: ModelSpec):
    import pymc as pm

    with pm.Model(coords=spec.coords) as model:
        _, labels = declare_class_prior(spec)  # y codes (data) or N_c (sufficient)
        prior = {
            "mu0": pm.Data("mu0", spec.data["mu0"], dims="feature"),
            "kappa0": pm.Data("kappa0", spec.data["kappa0"]),
            "nu0": pm.Data("nu0", spec.data["nu0"]),
        }
        if spec.likelihood == "sufficient":
            observations = {
                "n": labels,
                "xbar": pm.Data(
                    "class_mean_data", spec.data["class_mean_data"], dims=("class", "feature")
                ),
                "scatter": pm.Data("scatter_data", spec.data["scatter_data"]),
            }
        else:
            observations = {
                "y": labels,
                "X": pm.Data("X_data", spec.data["X_data"], dims=("doc", "feature")),
            }
        if spec.extra["covariance"] == "diagonal":
            _declare_diagonal_gda(spec, prior, observations)
        else:
            _declare_full_gda(spec, prior, observations)
    return model


def _declare_diagonal_gda(spec: ModelSpec, prior: dict, obs: dict) -> None:
    """Normal-Inverse-Gamma per (class, feature), centred; the likelihood on ``obs``."""
    import pymc as pm
    import pytensor.tensor as pt

    d = len(spec.coords["feature"])
    psi0 = pm.Data("psi0", spec.data["psi0"], dims="feature")
    var = pm.InverseGamma(
        "variance",
        alpha=(prior["nu0"] - d + 1.0) / 2.0,
        beta=psi0 / 2.0,
        dims=("class", "feature"),
    )
    mean = pm.Normal(
        "mean", mu=prior["mu0"], sigma=pt.sqrt(var / prior["kappa0"]), dims=("class", "feature")
    )
    cov = pm.Deterministic("cov", var[:, :, None] * pt.eye(d), dims=_PER_CLASS_COV_DIMS)
    if "scatter" in obs:
        n, xbar, scatter = obs["n"][:, None], obs["xbar"], obs["scatter"]
        quad = scatter + n * (xbar - mean) ** 2
        loglik = -0.5 * pt.sum(n * (_LOG_2PI + pt.log(var)) + quad / var)
        pm.Potential("gaussian_loglik", loglik)
    else:
        y = obs["y"]
        # On the layout variables, as in _declare_full_gda: the variances from ``cov``.
        sd = pt.sqrt(pt.sum(cov * pt.eye(d), axis=-1))
        pm.Normal("X", mu=mean[y], sigma=sd[y], observed=obs["X"], dims=("doc", "feature"))


def _declare_full_gda(spec: ModelSpec, prior: dict, obs: dict) -> None:
    """Bartlett Σ (shared or per class), centred means; the likelihood on ``obs``."""
    import pymc as pm
    import pytensor.tensor as pt
    from pytensor.tensor.linalg import solve_triangular

    d = len(spec.coords["feature"])
    shared = spec.extra["covariance"] == "shared"
    psi0 = pm.Data("psi0", spec.data["psi0"], dims=("feature", "feature_bis"))
    P, log_det_prec = _bartlett_precision_factor(
        prior["nu0"], psi0, d, () if shared else ("class",)
    )
    P_inv = solve_triangular(P, pt.eye(d), lower=True, b_ndim=2)
    cov = P_inv.mT @ P_inv  # Σ = Λ⁻¹ = P⁻ᵀ P⁻¹, symmetrised against rounding
    cov_dims = ["feature", "feature_bis"] if shared else _PER_CLASS_COV_DIMS
    cov = pm.Deterministic("cov", 0.5 * (cov + cov.mT), dims=cov_dims)
    mean = _precision_normal(
        "mean", prior["mu0"], prior["kappa0"], P, log_det_prec, dims=("class", "feature")
    )
    if "scatter" in obs:
        n, xbar, scatter = obs["n"], obs["xbar"], obs["scatter"]
        # tr(Λ S) = tr(Pᵀ S P) = Σ (S P) ∘ P (per class, summed, for per-class S_c and P_c).
        trace = pt.sum((scatter @ P) * P)
        if shared:
            W = (xbar - mean) @ P
            log_det = log_det_prec * n.sum()
        else:
            W = ((xbar - mean)[:, None, :] @ P)[:, 0, :]
            log_det = pt.sum(log_det_prec * n)
        # Rows of W are Pᵀ(x̄_c − μ_c): ‖W_c‖² = (x̄_c − μ_c)ᵀ Λ (x̄_c − μ_c).
        quad = pt.sum(n * pt.sum(W**2, axis=-1))
        loglik = -0.5 * (n.sum() * d * _LOG_2PI - log_det + trace + quad)
        pm.Potential("gaussian_loglik", loglik)
    else:
        # x_i ~ N(μ_{y_i}, Σ_{y_i}) written on the layout variables ``mean`` and ``cov`` only
        # (not on the Bartlett factors, which fit_pymc drops): a DataTree of fit_pymc then
        # drives posterior predictive draws with freeze_vars=["mean", "cov"]. The precision
        # factor is recomputed from Σ, a d × d factorisation per class.
        y = obs["y"]
        P_x, log_det_x = _precision_factor(cov, d)
        _precision_normal(
            "X",
            mean[y],
            1.0,
            P_x if shared else P_x[y],
            log_det_x if shared else log_det_x[y],
            observed=obs["X"],
            dims=("doc", "feature"),
        )


def _precision_normal(name: str, mu, kappa, P, log_det, **kwargs):
    """``x ~ N(μ, (κ Λ)⁻¹)`` declared through ``P``, the lower Cholesky factor of Λ.

    ``log_det`` is ``log|Λ|``. The density needs no factorisation and no solve:
    ``½[d (log κ − log 2π) + log|Λ| − κ ‖Pᵀ(x − μ)‖²]``; draws are ``μ + P⁻ᵀ z / √κ`` (one
    triangular solve). Not ``pm.MvNormal(tau=...)``: with a batch of precision matrices (one per
    class) that are not constants, PyMC 6.4 computes a wrong log-density when the batch size
    equals d and raises a shape error otherwise (its precision rewrite multiplies
    ``delta.T @ tau @ delta`` across the batch); and ``pm.MvNormal(chol=...)`` with a batch of
    factors takes a batched diagonal whose gradient has no numba implementation, so the whole
    gradient falls back to object mode.
    """
    import pymc as pm

    return pm.CustomDist(
        name,
        mu,
        kappa,
        P,
        log_det,
        dist=_precision_normal_draw,
        logp=_precision_normal_logp,
        signature="(n),(),(n,n),()->(n)",
        **kwargs,
    )


def _precision_normal_logp(value, mu, kappa, P, log_det):
    import pytensor.tensor as pt

    d = value.shape[-1]
    W = ((value - mu)[..., None, :] @ P)[..., 0, :]  # rows Pᵀ(x − μ)
    return 0.5 * (d * (pt.log(kappa) - _LOG_2PI) + log_det - kappa * pt.sum(W**2, axis=-1))


def _precision_normal_draw(mu, kappa, P, log_det, size):
    import pymc as pm
    import pytensor.tensor as pt
    from pymc.distributions.shape_utils import rv_size_is_none
    from pytensor.tensor.linalg import solve_triangular

    if rv_size_is_none(size):
        shape = pt.broadcast_arrays(mu, P[..., 0], kappa[..., None], log_det[..., None])[0].shape
    else:
        shape = pt.concatenate([size, mu.shape[-1:]])
    z = pm.Normal.dist(0.0, 1.0, size=shape)
    delta = solve_triangular(P.mT, z[..., None], lower=False, b_ndim=2)[..., 0]  # P⁻ᵀ z
    return mu + delta / pt.sqrt(kappa)[..., None]
