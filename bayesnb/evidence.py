"""Evidence: sufficient statistics + prior -> the closed-form log marginal likelihood.

``log p(X, y | prior)`` with the labels included and documents taken as token sequences (no
multinomial coefficients), so it is a sum of independent conjugate pieces:

- class labels: Dirichlet-multinomial of the class counts N_c under Dirichlet(γ·1_K)
  (or ``Σ_c N_c log p_c`` when the class prior is fixed by ``class_prior=`` or
  ``fit_prior=False``);
- Bernoulli NB: ``Σ_cj [B(α + D_cj, β + N_c − D_cj) − B(α, β)]`` (B = ln Beta function);
- multinomial NB: ``Σ_c [ln Γ(A) − ln Γ(A + T_c) + Σ_j (ln Γ(α_j + T_cj) − ln Γ(α_j))]``,
  A = Σ_j α_j;
- categorical NB: the same Dirichlet-multinomial term per (class, feature) segment;
- Poisson NB: the Gamma-Poisson marginal per (class, feature),
  ``Σ_cj [α_j ln β_j − ln Γ(α_j) + ln Γ(α_j + S_cj) − (α_j + S_cj) ln(β_j + N_c)]`` minus
  ``Σ_i w_i Σ_j ln Γ(x_ij + 1)`` (:func:`gamma_poisson_log_evidence`);
- GDA: the Normal-Inverse-Wishart marginal likelihood (:func:`niw_log_evidence`).
- DirichletCompoundNB (not conjugate): the Laplace approximation of the Pólya marginal
  likelihood in ln β (:meth:`bayesnb.posterior.polya.LaplacePosterior.log_evidence`).

Maximising it over one symmetric concentration gives ``alpha="evidence"`` and
``class_alpha="evidence"`` (empirical Bayes; :func:`learn_hyperparameters`, run after every
``fit``/``partial_fit``), with Minka's fixed point (T. Minka, "Estimating a Dirichlet
distribution", 2000/2012) and a bounded 1-D search in log α as fallback. PoissonNB's Gamma
shape α (rate β fixed) is the root of the digamma gradient, which is monotone in α
(:func:`fit_gamma_shape`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.special import digamma, gammaln, xlogy

from bayesnb._base import model_kind
from bayesnb.posterior.gaussian import NormalInverseWishartPosterior
from bayesnb.scoring.discrete import log_rising
from bayesnb.validation import check_alpha, check_class_prior, check_fitted

__all__ = [
    "ALPHA_BOUNDS",
    "beta_log_evidence",
    "class_log_evidence",
    "dirichlet_log_evidence",
    "feature_log_evidence",
    "fit_beta_alpha",
    "fit_gamma_shape",
    "fit_symmetric_dirichlet",
    "gamma_poisson_log_evidence",
    "learn_hyperparameters",
    "log_evidence",
    "log_multigamma",
    "niw_log_evidence",
]

# Search range of a learned concentration. Outside it the evidence is flat to many digits,
# and reaching a bound means the optimum is the boundary (α → 0 or α → ∞).
ALPHA_BOUNDS = (1e-8, 1e8)

_MAX_ITER = 5000
_RTOL = 1e-11


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _kind(est) -> str:
    return model_kind(est, "bayesnb.evidence (closed-form evidence)")


def _is_evidence(value) -> bool:
    return isinstance(value, str) and value == "evidence"


# -- closed forms ------------------------------------------------------------------------------
def dirichlet_log_evidence(alpha, counts: np.ndarray, sizes: np.ndarray | None = None) -> float:
    """Σ over rows and segments of the Dirichlet-multinomial log evidence of token sequences.

    For one segment with concentrations a and counts n:
    ``ln Γ(Σa) − ln Γ(Σa + Σn) + Σ_k [ln Γ(a_k + n_k) − ln Γ(a_k)]``.

    Parameters
    ----------
    alpha : float or ndarray broadcastable to ``counts``
        Prior concentration of every category (> 0).
    counts : ndarray of shape (n_rows, n_categories)
        Observed (weighted) counts, one row per independent Dirichlet group (class).
    sizes : ndarray of int, optional
        Segment lengths along the last axis (one segment by default).

    Returns
    -------
    float
    """
    counts = np.asarray(counts, dtype=np.float64)
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), counts.shape)
    offsets = _offsets(counts.shape[-1], sizes)
    A = np.add.reduceat(a, offsets, axis=-1)
    T = np.add.reduceat(counts, offsets, axis=-1)
    # log_rising: ln Γ differences without cancellation at large concentrations.
    seg = -log_rising(A, T)
    cat = log_rising(a, counts)
    return float(seg.sum() + cat.sum())


def beta_log_evidence(alpha, beta, successes: np.ndarray, failures: np.ndarray) -> float:
    """Σ_cj [ln B(α + D_cj, β + F_cj) − ln B(α, β)], the Beta-Bernoulli log evidence.

    Parameters
    ----------
    alpha, beta : float or ndarray broadcastable to ``successes``
    successes, failures : ndarray of shape (n_classes, n_features)
        Documents with (D) and without (F = N_c − D) each feature.
    """
    # ln B(α + D, β + F) − ln B(α, β) as three log rising factorials (no cancellation).
    a, b = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)
    s, f = np.asarray(successes, dtype=np.float64), np.asarray(failures, dtype=np.float64)
    return float(np.sum(log_rising(a, s) + log_rising(b, f) - log_rising(a + b, s + f)))


def gamma_poisson_log_evidence(
    alpha, beta, sums: np.ndarray, counts: np.ndarray, log_factorial: float
) -> float:
    """Log evidence of Poisson counts under Gamma(α, β) rates (shape α, rate β).

    Per (class, feature): ``∫ Π_i Poisson(x_i | λ) Gamma(λ | α, β) dλ`` is
    ``β^α Γ(α + S) / (Γ(α) (β + N)^(α + S)) / Π_i x_i!`` with S = Σ_i x_i, N the number of
    documents; weighted rows enter as fractional repeats.

    Parameters
    ----------
    alpha, beta : float or ndarray of shape (n_features,)
    sums : ndarray of shape (n_classes, n_features)
        Per-class feature sums S_cj.
    counts : ndarray of shape (n_classes,) or (n_classes, n_features)
        Class counts N_c, or (``missing="ignore"``) the documents N_cj of class c in which
        feature j is observed.
    log_factorial : float
        ``Σ_i w_i Σ_j ln Γ(x_ij + 1)`` over the training data.
    """
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), sums.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), sums.shape)
    shape = a + sums
    n = np.asarray(counts, dtype=np.float64)
    n = n[:, None] if n.ndim == 1 else n
    cell = a * np.log(b) - gammaln(a) + gammaln(shape) - shape * np.log(b + n)
    return float(cell.sum() - log_factorial)


def log_multigamma(a, d: int) -> np.ndarray:
    """Log multivariate gamma function ln Γ_d(a), elementwise over an array ``a``.

    ``ln Γ_d(a) = d(d − 1)/4 · ln π + Σ_{j=1..d} ln Γ(a + (1 − j)/2)`` (scipy's
    ``multigammaln`` takes a scalar ``a`` only).
    """
    a = np.asarray(a, dtype=np.float64)
    j = np.arange(d)
    return 0.25 * d * (d - 1) * np.log(np.pi) + gammaln(a[..., None] - 0.5 * j).sum(axis=-1)


def _log_det_spd(matrix: np.ndarray) -> np.ndarray:
    """log |M| of symmetric positive definite matrices through their Cholesky factors."""
    L = np.linalg.cholesky(matrix)
    return 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)


def niw_log_evidence(post: NormalInverseWishartPosterior) -> float:
    """Log marginal likelihood log p(X | y) of GDA under its Normal-Inverse-Wishart prior.

    Per class (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian distribution",
    eq. 266), with N_c the class count, κ_c = κ0 + N_c, ν_c = ν0 + N_c::

        log p(X_c) = −(N_c d/2) ln π + (d/2) ln(κ0/κ_c) + ln Γ_d(ν_c/2) − ln Γ_d(ν0/2)
                     + (ν0/2) ln|Ψ0| − (ν_c/2) ln|Ψ_c|

    summed over classes. Shared Σ: given Σ each class mean integrates out on its own
    (a factor (κ0/κ_c)^{d/2} ``|Σ|^{−N_c/2}`` exp(−tr(Σ⁻¹ [S_c + κ0 N_c/κ_c · δ_c δ_cᵀ])/2) per
    class, times (2π)^{−N_c d/2}); the product over classes has one Σ left, whose inverse
    Wishart integral gives, with ν = ν0 + N and Ψ the pooled posterior scale::

        log p(X | y) = −(N d/2) ln π + Σ_c (d/2) ln(κ0/κ_c) + ln Γ_d(ν/2) − ln Γ_d(ν0/2)
                       + (ν0/2) ln|Ψ0| − (ν/2) ln|Ψ|

    (the powers of 2 from the Gaussian and both Wishart normalisers cancel). The diagonal
    model is a Normal-Inverse-Gamma model per (class, feature): the d = 1 case of the first
    formula with ν replaced by ν − d + 1 (the 1 × 1 marginal of the inverse Wishart) and
    Ψ by Ψ_jj. Sample weights enter as fractional counts (integer weights = repeated rows).
    Log determinants come from Cholesky factors and the Gamma functions from ``gammaln``.

    Parameters
    ----------
    post : NormalInverseWishartPosterior
        The fitted posterior (``est.posterior_``): resolved prior and statistics.

    Returns
    -------
    float
    """
    prior, st = post.prior, post.stats
    d = st.n_features
    kappa0, nu0 = float(prior.kappa0), float(prior.nu0)
    counts = st.count
    log_kappa = 0.5 * np.log(kappa0 / post.kappa)  # per class, per dimension
    if post.covariance_type == "diagonal":
        nu0_1 = nu0 - d + 1.0
        nu_1 = post.nu - d + 1.0  # (K,)
        psi0 = np.diagonal(prior.psi0)  # (d,)
        per_cell = (
            gammaln(nu_1 / 2.0)[:, None]
            - gammaln(nu0_1 / 2.0)
            + 0.5 * nu0_1 * np.log(psi0)
            - 0.5 * nu_1[:, None] * np.log(post.psi)
        )
        return float(-0.5 * counts.sum() * d * np.log(np.pi) + d * log_kappa.sum() + per_cell.sum())
    nu = post.nu
    log_det0 = float(_log_det_spd(prior.psi0))
    log_det = _log_det_spd(post.psi)  # scalar (shared) or (K,)
    iw = log_multigamma(nu / 2.0, d) - log_multigamma(nu0 / 2.0, d)
    iw = iw + 0.5 * nu0 * log_det0 - 0.5 * nu * log_det
    if post.covariance_type == "per_class":
        # A class without data contributes exactly 0 (posterior = prior).
        iw = np.where(counts > 0, iw, 0.0)
    return float(-0.5 * counts.sum() * d * np.log(np.pi) + d * log_kappa.sum() + np.sum(iw))


def _offsets(n: int, sizes) -> np.ndarray:
    if sizes is None:
        return np.zeros(1, dtype=np.intp)
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)


def _class_log_evidence(est) -> float:
    counts = est.class_count_
    n_classes = counts.shape[0]
    if est.class_prior is not None:
        # Fixed prior: no parameter to integrate, the labels are i.i.d. Categorical(p).
        return float(np.sum(xlogy(counts, check_class_prior(est.class_prior, n_classes))))
    if not est.fit_prior:
        return float(-counts.sum() * np.log(n_classes))
    gamma = float(est.class_alpha_)
    if gamma <= 0:
        raise ValueError(
            f"log_evidence needs class_alpha > 0, got class_alpha={gamma!r}: class_alpha=0 is "
            "the improper Haldane prior, whose marginal likelihood does not exist. Use "
            "class_alpha > 0 (or 'evidence'), or fix the class prior with class_prior=... or "
            "fit_prior=False (then the class term is Σ_c N_c log p_c)."
        )
    return dirichlet_log_evidence(gamma, counts[None, :])


def log_evidence(est) -> float:
    """Closed-form log marginal likelihood ``log p(X, y | prior)`` of a fitted estimator.

    Labels are included and documents are token sequences (no multinomial coefficients), so
    the value is comparable across α for the same data, and additive over ``partial_fit``
    batches only through the statistics (not batch by batch). With ``unk=True`` the
    multinomial evidence is that of the model over the seen features plus the UNK category.
    PoissonNB models the counts themselves (no document length is conditioned on), so its
    evidence includes the ``1/x!`` of the Poisson pmf.

    GDA: the Normal-Inverse-Wishart evidence of the features given the labels
    (:func:`niw_log_evidence`; a density, so it can exceed 0) plus the same class term. With
    the default data-scaled prior the prior depends on the data (empirical Bayes), so the
    value compares models on the same data only.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
        Uses the fitted ``alpha_`` and ``class_alpha_`` (learned values when the estimator was
        built with ``"evidence"``).

    Returns
    -------
    float
        ``-inf`` when a fixed class prior gives probability 0 to an observed class.

    Raises
    ------
    ValueError
        When the class prior is the improper ``class_alpha=0``.
    TypeError
        For an estimator type without a closed-form evidence.
    """
    _kind(est)  # an unsupported type is a TypeError before any fitted-state check
    return class_log_evidence(est) + feature_log_evidence(est)


def class_log_evidence(est) -> float:
    """The class-label term of :func:`log_evidence`: log p(y | class prior).

    Dirichlet-multinomial of the class counts under Dirichlet(γ·1_K), or ``Σ_c N_c log p_c``
    for a fixed class prior. :class:`bayesnb.ColumnwiseNB` adds it once to the blocks'
    :func:`feature_log_evidence`.
    """
    check_fitted(est)
    return _class_log_evidence(est)


def feature_log_evidence(est) -> float:
    """log p(X | y, prior): :func:`log_evidence` without the class-label term.

    For :class:`bayesnb.ColumnwiseNB` the sum over its blocks (the blocks are conditionally
    independent given the labels, so their marginal likelihoods multiply).
    """
    kind = _kind(est)
    check_fitted(est)
    if kind == "columnwise":
        return float(sum(feature_log_evidence(block) for _, block, _ in est._blocks()))
    if kind == "dcm":
        # Not closed form: the Gamma prior is not conjugate to the Pólya likelihood. The
        # Laplace approximation in ln β (bayesnb.posterior.polya.LaplacePosterior), class by
        # class; its error grows with the number of features whose posterior is far from
        # Gaussian in ln β (words seen in few documents).
        return float(est.laplace_.log_evidence().sum())
    post = est.posterior_
    if kind == "gda":
        feat = niw_log_evidence(post)
    elif kind == "bernoulli":
        feat = beta_log_evidence(post.alpha, post.beta, post.successes, post.failures)
    elif kind == "poisson":
        feat = gamma_poisson_log_evidence(
            post.alpha, post.beta, post.sums, post.counts, float(np.sum(est.log_factorial_))
        )
    else:  # multinomial and categorical: Dirichlet segments
        feat = dirichlet_log_evidence(post.alpha, post.counts, post.sizes)
    return feat


# -- empirical Bayes: maximising the evidence over one concentration ---------------------------
def _maximise(
    log_ev: Callable[[float], float],
    update: Callable[[float], float],
    name: str,
    start: float = 1.0,
) -> float:
    """Iterate the fixed point ``update`` from ``start``; fall back to a bounded 1-D search.

    The fixed point is monotone in the evidence (it maximises a lower bound at every step) but
    only linearly convergent, and it drifts off towards 0 or ∞ when the optimum is a boundary;
    then ``minimize_scalar`` on ``−log_ev(exp(t))`` over ``log ALPHA_BOUNDS`` decides.
    """
    lo, hi = ALPHA_BOUNDS
    a = float(start)
    for _ in range(_MAX_ITER):
        new = float(update(a))
        if not np.isfinite(new) or not lo <= new <= hi:
            break
        if abs(new - a) <= _RTOL * a:
            return new
        a = new
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        lambda t: -log_ev(float(np.exp(t))),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-10, "maxiter": 2000},
    )
    a = float(np.exp(res.x))
    _warn_at_bound(a, name)
    return a


def _warn_at_bound(a: float, name: str, stacklevel: int = 5) -> None:
    """Warn when a learned value sits within a factor 10 of :data:`ALPHA_BOUNDS`."""
    lo, hi = ALPHA_BOUNDS
    if a < lo * 10 or a > hi / 10:
        warnings.warn(
            f"the evidence keeps increasing as {name} goes to "
            f"{'0' if a < 1 else 'infinity'}; {name}_ is set to {a:.3g}, near the search "
            f"bound {ALPHA_BOUNDS}",
            RuntimeWarning,
            stacklevel=stacklevel,
        )


def fit_symmetric_dirichlet(
    counts: np.ndarray, sizes: np.ndarray | None = None, *, name: str = "alpha"
) -> float:
    """The symmetric concentration α maximising the Dirichlet-multinomial evidence.

    Minka's fixed point for a symmetric Dirichlet shared by every row (class) and segment
    (feature) s of size k_s, with category counts n and segment totals N_s:

    ``α ← α · Σ_cat [ψ(n + α) − ψ(α)] / Σ_seg k_s [ψ(N_s + k_s α) − ψ(k_s α)]``

    (for the multinomial model, one segment of V words per class:
    ``α ← α Σ_cj [ψ(T_cj + α) − ψ(α)] / (V Σ_c [ψ(T_c + Vα) − ψ(Vα)])``). At the fixed point
    the derivative of the log evidence in α vanishes. The sums run over the distinct count
    values only (with their multiplicities), so one iteration costs the number of distinct
    counts, not K × V digammas. Falls back to a bounded search in log α when the iteration
    leaves :data:`ALPHA_BOUNDS` or does not converge.

    Parameters
    ----------
    counts : ndarray of shape (n_rows, n_categories)
    sizes : ndarray of int, optional
        Segment lengths along the last axis (one segment by default).
    name : str
        The parameter name used in warnings.

    Returns
    -------
    float
    """
    counts = np.asarray(counts, dtype=np.float64)
    offsets = _offsets(counts.shape[-1], sizes)
    seg_sizes = np.diff(np.append(offsets, counts.shape[-1]))
    totals = np.add.reduceat(counts, offsets, axis=-1)
    n_val, n_mult = np.unique(counts, return_counts=True)
    keep = n_val > 0  # zero counts contribute ψ(α) − ψ(α) = 0 and ln Γ(α) − ln Γ(α) = 0
    n_val, n_mult = n_val[keep], n_mult[keep].astype(np.float64)
    pairs = np.stack([totals.ravel(), np.broadcast_to(seg_sizes, totals.shape).ravel()])
    (t_val, k_val), t_mult = np.unique(pairs, axis=1, return_counts=True)
    t_mult = t_mult.astype(np.float64)

    def log_ev(a: float) -> float:
        return float(
            np.sum(t_mult * (gammaln(k_val * a) - gammaln(k_val * a + t_val)))
            + np.sum(n_mult * (gammaln(n_val + a) - gammaln(a)))
        )

    def update(a: float) -> float:
        num = np.sum(n_mult * (digamma(n_val + a) - digamma(a)))
        den = np.sum(t_mult * k_val * (digamma(t_val + k_val * a) - digamma(k_val * a)))
        return a * num / den if den > 0 else np.nan

    return _maximise(log_ev, update, name)


def fit_beta_alpha(
    successes: np.ndarray, failures: np.ndarray, beta, *, name: str = "alpha"
) -> float:
    """α maximising the Beta-Bernoulli evidence with β held fixed (``BernoulliNB(beta=...)``).

    Minka's fixed point for one Dirichlet coordinate with the other fixed:
    ``α ← α · Σ_cj [ψ(D_cj + α) − ψ(α)] / Σ_cj [ψ(N_c + α + β_j) − ψ(α + β_j)]``, with the
    bounded search as fallback. (With ``beta=None``, β = α and the symmetric
    :func:`fit_symmetric_dirichlet` over the (D, N − D) pairs is used instead.)

    Parameters
    ----------
    successes, failures : ndarray of shape (n_classes, n_features)
    beta : float or ndarray of shape (n_features,)
    name : str
    """
    s = np.asarray(successes, dtype=np.float64)
    f = np.asarray(failures, dtype=np.float64)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), s.shape)
    n = s + f

    def log_ev(a: float) -> float:
        return beta_log_evidence(a, b, s, f)

    def update(a: float) -> float:
        num = np.sum(digamma(s + a) - digamma(a))
        den = np.sum(digamma(n + a + b) - digamma(a + b))
        return a * num / den if den > 0 else np.nan

    return _maximise(log_ev, update, name)


def fit_gamma_shape(sums: np.ndarray, counts: np.ndarray, beta, *, name: str = "alpha") -> float:
    """Gamma shape α maximising the Gamma-Poisson evidence with the rate β held fixed.

    The log evidence (:func:`gamma_poisson_log_evidence`) in α is
    ``Σ_cj [ln Γ(α + S_cj) − ln Γ(α)] + α Σ_cj ln(β_j / (β_j + N_cj))`` plus terms free of α;
    its derivative

    ``g(α) = Σ_cj [ψ(α + S_cj) − ψ(α) + ln β_j − ln(β_j + N_cj)]``

    strictly decreases in α (ψ(α + S) − ψ(α) does for S > 0), so the evidence is concave in α
    and its maximum is the unique root of g, found by Brent's method in ln α over
    :data:`ALPHA_BOUNDS`. g → +∞ as α → 0 once some S_cj > 0 and tends to
    ``Σ ln(β/(β + N)) < 0`` as α → ∞, so the root is interior unless no count was seen
    (then α → 0, with the same warning as the other learned concentrations at a bound).
    The digamma sum runs over the distinct positive S_cj only (their multiplicities
    weighting), so one step costs the number of distinct sums, not K × V digammas.

    Parameters
    ----------
    sums : ndarray of shape (n_classes, n_features)
        Weighted per-class feature sums S_cj.
    counts : ndarray of shape (n_classes,) or (n_classes, n_features)
        Class counts N_c, or (``missing="ignore"``) the documents N_cj observing feature j.
    beta : float or ndarray of shape (n_features,)
        The fixed Gamma rate (> 0).
    name : str
        The parameter name used in warnings.

    Returns
    -------
    float
    """
    from scipy.optimize import brentq

    s = np.asarray(sums, dtype=np.float64)
    n = np.asarray(counts, dtype=np.float64)
    n = np.broadcast_to(n[:, None] if n.ndim == 1 else n, s.shape)
    b = np.broadcast_to(np.asarray(beta, dtype=np.float64), s.shape)
    # Σ_cj ln(β/(β + N)) ≤ 0: the α-linear part of the evidence (log1p: accurate for N ≪ β).
    slope = -float(np.sum(np.log1p(n / b)))
    s_val, s_mult = np.unique(s[s > 0], return_counts=True)
    s_mult = s_mult.astype(np.float64)
    lo, hi = np.log(ALPHA_BOUNDS[0]), np.log(ALPHA_BOUNDS[1])

    def grad(t: float) -> float:
        a = np.exp(t)
        return float(np.sum(s_mult * (digamma(s_val + a) - digamma(a))) + slope)

    if grad(lo) <= 0:
        a = float(ALPHA_BOUNDS[0])  # no count anywhere (or none informative): α → 0
    elif grad(hi) >= 0:
        a = float(ALPHA_BOUNDS[1])  # no documents: the evidence does not depend on α
    else:
        a = float(np.exp(brentq(grad, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps)))
    _warn_at_bound(a, name, stacklevel=4)
    return a


def _learn_alpha(est) -> float:
    kind = _kind(est)
    est.alpha_ = 1.0  # placeholder: only the counts of the posterior are read below
    post = est.posterior_
    if kind == "poisson":
        return fit_gamma_shape(post.sums, post.counts, post.beta)
    if kind == "bernoulli":
        if est.beta is None:
            # β = α: a symmetric 2-category Dirichlet on every (class, feature) pair.
            pairs = np.stack([post.successes, post.failures], axis=-1)
            pairs = pairs.reshape(pairs.shape[0], -1)
            sizes = np.full(post.successes.shape[1], 2, dtype=np.intp)
            return fit_symmetric_dirichlet(pairs, sizes)
        beta = check_alpha(est.beta, est.n_features_in_, "beta")
        return fit_beta_alpha(post.successes, post.failures, beta)
    return fit_symmetric_dirichlet(post.counts, post.sizes)


def learn_hyperparameters(est) -> None:
    """Set the fitted ``alpha_`` and ``class_alpha_`` of ``est`` after its statistics changed.

    Each is the given value, or, for ``"evidence"``, the value maximising
    :func:`log_evidence` (the feature and class terms are separate, so each is maximised on
    its own). The estimators derive the same values lazily (``GenerativeClassifier.alpha_``
    and ``class_alpha_`` are properties keyed on their parameters, computed after every
    ``fit``/``partial_fit`` and again after ``set_params``); this function stores them for the
    current parameters. Estimators without an ``alpha`` parameter (GDA) only get
    ``class_alpha_``.
    """
    params = est.get_params(deep=False)
    if "class_alpha" in params:
        gamma = params["class_alpha"]
        if _is_evidence(gamma):
            est.class_alpha_ = fit_symmetric_dirichlet(
                est.class_count_[None, :], name="class_alpha"
            )
        else:
            est.class_alpha_ = float(gamma)
    if "alpha" in params:
        alpha = params["alpha"]
        if not _is_evidence(alpha):
            # Out-of-range or wrongly shaped priors fail at fit, not at the first predict.
            check_alpha(alpha, est.n_features_in_)
        if params.get("beta") is not None:
            check_alpha(params["beta"], est.n_features_in_, "beta")
        est.alpha_ = _learn_alpha(est) if _is_evidence(alpha) else alpha
