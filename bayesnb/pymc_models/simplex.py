"""Distributions on the simplex declared the way NUTS samples them well, and their likelihoods.

**Dirichlet as normalised Gamma variates in log space.** ``θ ~ Dirichlet(a)`` over the last
axis is declared as ``g_k ~ Gamma(a_k, 1)`` independent, ``θ = g / Σ g``, the sampler moving
``z = log g`` (free variable ``"{name}_log_gamma"``, an auxiliary that
:func:`bayesnb.inference.fit_pymc` does not report unless asked). The log-density of each
``z_k`` is ``a_k z_k − e^{z_k} − ln Γ(a_k)``, concave for every shape ``a_k > 0``, and a
multinomial likelihood ``Σ_k x_k log θ_k = Σ_k x_k z_k − T log Σ_k e^{z_k}`` is concave in
``z`` too, so the posterior is log-concave whatever the counts. PyMC's own Dirichlet samples the
additive log-ratio of ``θ`` instead: every coordinate is measured against the last cell, so
the many never-seen cells of a text model (``a_k ≤ 1``, ``x_k = 0``) share one funnel-shaped
direction and NUTS diverges (on 3 classes × 500 Zipfian words, α = 1: 190 divergences in
4 × 1,000 draws at 124 leapfrog steps per draw, against 0 at 20 for this form). ``Σ g`` is a
``Gamma(Σ a, 1)`` variate independent of ``θ``, which the likelihood does not inform: the
marginal of ``θ`` is exactly ``Dirichlet(a)``, a priori and a posteriori.

With a learned symmetric concentration the unseen cells of each row are collapsed into one
(:func:`collapsed_dirichlet`): the shape of every unseen cell would move with the
concentration, a funnel in which it mixes slowly.

Probabilities are kept in log space (``log θ = z − logsumexp(z)``); the likelihoods below take
``log θ`` directly, so a cell of probability ``e^{-800}`` never becomes a ``log 0``.
"""

from __future__ import annotations

import numpy as np

#: The ``pm.Data`` of :func:`sparse_multinomial`, computed by :func:`sparse_cells`.
SPARSE_CELLS = ("X_row", "X_cell", "X_value", "X_log_coef")

__all__ = [
    "SPARSE_CELLS",
    "categorical",
    "collapsed_dirichlet",
    "collapsed_dirichlet_draws",
    "dirichlet",
    "labelled_categorical",
    "log_gamma",
    "multinomial",
    "multinomial_log_coef",
    "sparse_cells",
    "sparse_multinomial",
]


# -- log-Gamma variates -------------------------------------------------------------------------
def _log_gamma_logp(z, a):
    import pytensor.tensor as pt

    return a * z - pt.exp(z) - pt.gammaln(a)


def _log_gamma_draw(a, size):
    import pymc as pm
    import pytensor.tensor as pt

    # Gamma(a) = Gamma(a + 1) · U^(1/a): in logs, no underflow to log 0 for small shapes
    g = pm.Gamma.dist(a + 1.0, 1.0, size=size)
    u = pm.Uniform.dist(0.0, 1.0, size=size)
    return pt.log(g) + pt.log(u) / a


def log_gamma(name: str, a, **kwargs):
    """``z = log g`` with ``g ~ Gamma(a, 1)`` (shape ``a``, rate 1), an unconstrained variable."""
    import pymc as pm

    return pm.CustomDist(name, a, logp=_log_gamma_logp, dist=_log_gamma_draw, **kwargs)


def _tilted_logp(z, a, total):
    import pytensor.tensor as pt

    # Σ_k log-Gamma(a_k) densities with the row's scale S = Σ_k e^{z_k} tilted by S^T: its
    # Gamma(A, 1) becomes Gamma(A + T, 1), A = Σ_k a_k (the ln Γ terms keep it normalised
    # for every a). Σ_k e^{z_k} is written e^{log S}: log S is the logsumexp that log θ
    # takes anyway, so an evaluation takes one exp per cell fewer.
    log_s = pt.logsumexp(z, axis=-1)
    a_sum = pt.sum(a, axis=-1)
    cells = pt.sum(a * z - pt.gammaln(a), axis=-1) - pt.exp(log_s)
    return cells + total * log_s + pt.gammaln(a_sum) - pt.gammaln(a_sum + total)


def _tilted_draw(a, total, size):
    import pytensor.tensor as pt
    from pytensor.tensor.type_other import NoneTypeT

    shape_a = pt.sum(a, axis=-1) + total  # the scale's shape A + T, over the rows
    if not isinstance(size.type, NoneTypeT):
        shape_a = shape_a * pt.ones(size)
    a = a * pt.ones_like(shape_a)[..., None]
    z = _log_gamma_draw(a, a.shape)
    log_theta = z - pt.logsumexp(z, axis=-1, keepdims=True)
    return log_theta + _log_gamma_draw(shape_a, shape_a.shape)[..., None]


def dirichlet(name: str, a, dims=None, shape=None, total=None):
    """``θ ~ Dirichlet(a)`` over the last axis as normalised log-Gamma variates.

    Declares the free ``"{name}_log_gamma"`` and the Deterministic ``name`` (``θ``) with
    ``dims`` (or ``shape``). Returns ``(θ, log θ)``.

    ``total``: the number of multinomial draws ``T`` the likelihood makes from each row
    (``Σ_k x_k``, a tensor broadcasting against the rows). The row's scale ``S = Σ g``, which
    the likelihood does not read, is then a ``Gamma(A + T, 1)`` variate (``A = Σ a_k``)
    instead of ``Gamma(A, 1)``, still independent of ``θ``: the multinomial likelihood times
    ``S^T`` is ``Π_k g_k^{x_k} e^{-g_k}``-shaped, so the posterior of the log-variates is
    exactly independent log-Gamma(``a_k + x_k``) ones. With ``S ~ Gamma(A, 1)`` every
    frequent cell's ``z_k`` would move with ``log S`` (spread ``1/√A``, wider than the cell's
    own ``1/√x_k``): one direction shared by the frequent cells, which a diagonal mass matrix
    cannot scale, so NUTS takes short steps. The marginal of ``θ`` is ``Dirichlet(a)`` either
    way, a priori and a posteriori.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if total is None:
        z = log_gamma(f"{name}_log_gamma", a, dims=dims, shape=shape)
    else:
        z = pm.CustomDist(
            f"{name}_log_gamma",
            a,
            total,
            logp=_tilted_logp,
            dist=_tilted_draw,
            signature="(k),()->(k)",
            dims=dims,
            shape=shape,
        )
    log_theta = z - pt.logsumexp(z, axis=-1, keepdims=True)
    theta = pm.Deterministic(name, pt.exp(log_theta), dims=dims)
    return theta, log_theta


# -- likelihoods on log-probabilities -----------------------------------------------------------
def _multinomial_dist(name, n, log_p, log_coef, draw_log_p, kwargs):
    import pymc as pm
    import pytensor.tensor as pt

    has_coef, has_draw = log_coef is not None, draw_log_p is not None

    def logp(value, n, log_p, *rest):
        coef = rest[0] if has_coef else pt.gammaln(n + 1.0) - pt.gammaln(value + 1.0).sum(axis=-1)
        return coef + (value * log_p).sum(axis=-1)

    def draw(n, log_p, *rest):  # rest: the optional parameters, then size
        *rest, size = rest
        return pm.Multinomial.dist(n=n, p=pt.exp(rest[-1] if has_draw else log_p), size=size)

    extra = [v for v in (log_coef, draw_log_p) if v is not None]
    signature = "(),(k)" + (",()" if has_coef else "") + (",(k)" if has_draw else "") + "->(k)"
    return pm.CustomDist(
        name, n, log_p, *extra, logp=logp, dist=draw, signature=signature, **kwargs
    )


def multinomial(name: str, n, log_p, log_coef=None, draw_log_p=None, **kwargs):
    """``x ~ Multinomial(n, p)`` (counts on the last axis) written on ``log p``.

    ``log_coef``: the observed counts' ``ln n! − Σ ln x!`` (:func:`multinomial_log_coef`),
    given as data so that an evaluation takes no ``ln Γ`` of the counts. ``draw_log_p``: the
    ``log p`` that draws (predictive) use when the likelihood's ``log p`` is exact only where
    counts are nonzero (:func:`collapsed_dirichlet`); the log-density does not read it.
    """
    return _multinomial_dist(name, n, log_p, log_coef, draw_log_p, kwargs)


def multinomial_log_coef(counts: np.ndarray) -> np.ndarray:
    """``ln n! − Σ_k ln x_k!`` of count vectors (last axis)."""
    from scipy.special import gammaln

    counts = np.asarray(counts, dtype=np.float64)
    return gammaln(counts.sum(-1) + 1.0) - gammaln(counts + 1.0).sum(-1)


def _categorical_logp(value, log_p):
    import pytensor.tensor as pt

    value = value.astype("int64")
    if log_p.ndim == 1:
        return log_p[value]
    log_p = pt.broadcast_to(log_p, (*value.shape, log_p.shape[-1]))
    return pt.take_along_axis(log_p, value[..., None], axis=-1)[..., 0]


def _categorical_draw(log_p, size):
    import pymc as pm

    return pm.Categorical.dist(logit_p=log_p, size=size)


def categorical(name: str, log_p, **kwargs):
    """``x ~ Categorical(p)`` (categories on the last axis of ``log p``) written on ``log p``."""
    import pymc as pm

    return pm.CustomDist(
        name,
        log_p,
        logp=_categorical_logp,
        dist=_categorical_draw,
        signature="(k)->()",
        **kwargs,
    )


def _labelled_categorical_logp(value, labels, log_theta):
    import pytensor.tensor as pt

    features = pt.arange(log_theta.shape[1])
    return log_theta[labels[:, None], features[None, :], value.astype("int64")]


def _labelled_categorical_draw(labels, log_theta, size):
    import pymc as pm

    return pm.Categorical.dist(logit_p=log_theta[labels])


def labelled_categorical(name: str, labels, log_theta, **kwargs):
    """Documents ``x_ij ~ Categorical(θ_{y_i j})`` with ``log θ`` of shape (class, feature,
    value): one gather of ``log θ`` per cell (the logs are not taken on the gathered rows)."""
    import pymc as pm

    return pm.CustomDist(
        name,
        labels,
        log_theta,
        logp=_labelled_categorical_logp,
        dist=_labelled_categorical_draw,
        ndim_supp=2,
        ndims_params=[1, 3],
        **kwargs,
    )


def _sparse_multinomial_logp(value, n, labels, log_theta, row, cell, val, coef, *draw):
    import pytensor.tensor as pt

    # one-dimensional gather and scatter (their fast compiled forms)
    terms = val * log_theta.ravel()[cell]
    return pt.inc_subtensor(pt.zeros_like(coef)[row], terms) + coef


def _sparse_multinomial_draw(n, labels, log_theta, row, cell, val, coef, *rest):
    import pymc as pm
    import pytensor.tensor as pt

    *draw, size = rest  # the optional draw_log_theta, then size
    return pm.Multinomial.dist(n=n, p=pt.exp((draw[0] if draw else log_theta)[labels]), size=size)


def sparse_multinomial(name: str, X_d, labels, log_theta, cells: dict, dims, draw_log_theta=None):
    """Documents ``x_i ~ Multinomial(n_i, θ_{y_i})`` as one log-density over the nonzero cells.

    ``cells`` holds the ``pm.Data`` of the documents' nonzero cells (``X_row``, the
    document; ``X_cell``, the flat index ``y_i · n_features + j`` of its (class, feature)
    cell; ``X_value``), computed by :func:`sparse_cells`, and ``X_log_coef``,
    each document's multinomial coefficient ``ln n_i! − Σ_j ln x_ij!``. The log-density of
    document ``i`` is ``X_log_coef_i + Σ_{j: x_ij > 0} x_ij log θ_{y_i j}``: the logs are
    taken on the ``(class, feature)`` table and gathered at the nonzero cells only, so an
    evaluation costs the number of nonzero cells, not documents × features. The observed
    variable ``name`` (``dims`` ``(doc, feature)``, value ``X_d``) has one log-density per
    document, so ``pm.compute_log_likelihood`` gives per-document values; its draws
    (posterior predictive) are ``Multinomial(n_i, θ_{y_i})`` with ``n_i`` the row sums of
    ``X_d`` (``θ`` from ``draw_log_theta`` when given: see :func:`multinomial`). The
    log-density reads the cells, not ``X_d``: for the log-likelihood of new
    documents declare a new model (``est.to_pymc(X_new, y_new, likelihood="data")``).
    """
    import pymc as pm

    draw = [] if draw_log_theta is None else [draw_log_theta]
    return pm.CustomDist(
        name,
        X_d.sum(axis=1),
        labels,
        log_theta,
        *(cells[k] for k in SPARSE_CELLS),
        *draw,
        logp=_sparse_multinomial_logp,
        dist=_sparse_multinomial_draw,
        ndim_supp=1,
        ndims_params=[0, 0, 2, 0, 0, 0, 0, *([2] * len(draw))],
        observed=X_d,
        dims=dims,
    )


def sparse_cells(X, codes: np.ndarray) -> dict[str, np.ndarray]:
    """The nonzero cells of integer documents ``X`` (labels ``codes``) and the documents'
    multinomial coefficients: the ``pm.Data`` of :func:`sparse_multinomial`."""
    import scipy.sparse as sp
    from scipy.special import gammaln

    C = sp.coo_matrix(X)
    keep = C.data != 0
    row, col, val = C.row[keep], C.col[keep], C.data[keep].astype(np.float64)
    order = np.lexsort((col, row))
    row, col, val = row[order], col[order], val[order]
    n = np.bincount(row, weights=val, minlength=X.shape[0])
    coef = gammaln(n + 1.0) - np.bincount(row, weights=gammaln(val + 1.0), minlength=X.shape[0])
    return {
        "X_row": row.astype(np.int64),
        "X_cell": (codes[row].astype(np.int64) * X.shape[1] + col).astype(np.int64),
        "X_value": val,
        "X_log_coef": coef,
    }


# -- symmetric Dirichlets with a learned concentration: the unseen cells collapsed ---------------
def _masked_logp(w, a, seen):
    import pytensor.tensor as pt

    # w = log(g / a), g ~ Gamma(a): the row's common scale Σ g ~ Gamma(Σ a) is then about
    # the same for every a, so it does not move with a learned a. A standard normal where
    # seen == 0: the unseen cells' variates, which the likelihood does not read, have a
    # distribution that does not depend on a.
    normal = -0.5 * w**2 - 0.5 * np.log(2.0 * np.pi)
    return pt.switch(seen > 0, _log_gamma_logp(w + pt.log(a), a), normal)


def _masked_draw(a, seen, size):
    import pymc as pm
    import pytensor.tensor as pt

    scaled = _log_gamma_draw(a, size) - pt.log(a)
    return pt.switch(seen > 0, scaled, pm.Normal.dist(0.0, 1.0, size=size))


def _unseen_shape(a_row, n_unseen):
    import pytensor.tensor as pt

    return pt.switch(n_unseen > 0, n_unseen * a_row, 1.0)


def _aggregate_logp(u, a_row, n_unseen):
    return _masked_logp(u, _unseen_shape(a_row, n_unseen), n_unseen)


def _aggregate_draw(a_row, n_unseen, size):
    return _masked_draw(_unseen_shape(a_row, n_unseen), n_unseen, size)


def collapsed_dirichlet(name: str, a_row, seen, n_unseen, dims):
    """``θ_c ~ Dirichlet(a_c·1)`` per row ``c`` (``a_row``, shape (rows,), learned) with each
    row's unobserved cells collapsed into one, so that NUTS mixes over ``a``.

    ``seen`` (rows × cells, data) is 1 where the row's count is positive, ``n_unseen`` its
    zeros per row (``m_c``). By the aggregation property the unseen cells' total
    probability ``R_c`` enters the Dirichlet as one cell of shape ``m_c·a_c``, and given
    ``a_c`` their split ``θ_{c,unseen} / R_c`` is ``Dirichlet(a_c·1_{m_c})``, independent of the
    rest and of the counts (which are 0 there). The free ``"{name}_log_gamma"`` holds
    ``log(g_cj / a_c)`` for the Gamma(``a_c``) variates ``g_cj`` of the seen cells and, at the
    unseen cells, standard normal variates ``ε`` whose density does not involve ``a_c``;
    ``"{name}_unseen_log_gamma"`` (rows) ``log(g_c / (m_c·a_c))`` for the Gamma(``m_c·a_c``)
    aggregate. Without the collapse every unseen cell is a log-Gamma(``a_c``) variate whose
    spread (about ``1/a_c``) moves with ``a_c``: a funnel in which ``a_c`` mixes slowly;
    without the division by the shape every log-Gamma variate of a row moves with
    ``log a_c`` (their sum is a Gamma(``V·a_c``) variate), one direction shared by all of
    them. The Deterministic ``name`` carries the unseen cells through the Gamma quantile
    function, ``g = F⁻¹_{a_c}(Φ(ε))``, so it is exactly
    ``Dirichlet(a_c·1)``; :func:`collapsed_dirichlet_draws` draws the same cells afresh
    (the quantile function costs about 1.5 µs a cell).

    Returns ``(θ, log θ for the likelihood, log θ)``: the first ``log θ`` is exact at the seen
    cells and finite elsewhere, for a likelihood whose counts are 0 at the unseen cells (it
    holds no quantile function, whose derivative in ``a`` the gradient would need).
    """
    import pymc as pm
    import pytensor.tensor as pt

    a = a_row[:, None]
    z = pm.CustomDist(f"{name}_log_gamma", a, seen, logp=_masked_logp, dist=_masked_draw, dims=dims)
    u = pm.CustomDist(
        f"{name}_unseen_log_gamma",
        a_row,
        n_unseen,
        logp=_aggregate_logp,
        dist=_aggregate_draw,
        dims=dims[0],
    )
    minus_inf = -np.inf
    # log θ = log g − log Σ g with log g = w + log a_c (seen) and u + log(m_c a_c) (the
    # aggregate): a_c cancels, so the likelihood reads w and u only
    u_in = pt.switch(n_unseen > 0, u + pt.log(n_unseen), minus_inf)
    cells = pt.concatenate([pt.switch(seen > 0, z, minus_inf), u_in[:, None]], axis=-1)
    log_total = pt.logsumexp(cells, axis=-1, keepdims=True)
    log_theta_lik = z - log_total
    # the unseen cells: the aggregate's share split by Gamma(a_c) variates
    p = pt.switch(seen > 0, 0.5, 0.5 * pt.erfc(-z / np.sqrt(2.0)))
    log_g = pt.switch(seen > 0, minus_inf, pt.log(pt.gammaincinv(a, p)))
    log_split = log_g - pt.logsumexp(log_g, axis=-1, keepdims=True)
    log_theta = pt.switch(seen > 0, log_theta_lik, (u_in[:, None] - log_total) + log_split)
    theta = pm.Deterministic(name, pt.exp(log_theta), dims=dims)
    return theta, log_theta_lik, log_theta


def collapsed_dirichlet_draws(
    z: np.ndarray, u: np.ndarray, a_row: np.ndarray, seen: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``log θ`` of :func:`collapsed_dirichlet` from draws of its free variables, the unseen
    cells' split drawn afresh from its exact conditional ``Dirichlet(a_c·1_{m_c})``.

    ``z`` (..., rows, cells), ``u`` and ``a_row`` (..., rows) are draws (``a_row`` may be
    (...,) for one ``a`` for every row), ``seen`` (rows, cells) the mask of the model.
    """
    from scipy.special import logsumexp

    seen = np.asarray(seen) > 0
    a_row = np.asarray(a_row, dtype=np.float64)
    a_row = np.broadcast_to(a_row if a_row.ndim == u.ndim else a_row[..., None], u.shape)
    has_unseen = ~seen.all(axis=-1)
    with np.errstate(divide="ignore"):
        u_in = np.where(has_unseen, u + np.log((~seen).sum(axis=-1)), -np.inf)
        log_total = np.logaddexp(logsumexp(np.where(seen, z, -np.inf), axis=-1), u_in)
    log_theta = z - log_total[..., None]
    for c in np.flatnonzero(has_unseen):
        cols = np.flatnonzero(~seen[c])
        a = np.broadcast_to(a_row[..., c, None], (*a_row.shape[:-1], cols.size))
        # Gamma(a) = Gamma(a + 1) · U^(1/a), in logs: no underflow to log 0 for small a
        log_g = np.log(rng.gamma(a + 1.0)) + np.log1p(-rng.random(a.shape)) / a
        split = log_g - logsumexp(log_g, axis=-1, keepdims=True)
        log_theta[..., c, cols] = (u_in[..., c] - log_total[..., c])[..., None] + split
    return log_theta
