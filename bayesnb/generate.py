"""Generate: a fitted generative model -> synthetic documents ``(X, y)``.

The generative story of each model run forward with the parameters of the estimator's
``estimate``:

- y ~ Categorical(π) with π = ``exp(class_log_prior_)`` (honouring ``class_prior=`` and
  ``fit_prior=False``);
- BernoulliNB: x_j | c ~ Bernoulli(φ_cj); X is a dense int64 0/1 array (already binary: refit it
  with a threshold in [0, 1) or ``binarize=None``);
- CategoricalNB: x_j | c ~ Categorical(θ_cj) over the k_j + 1 slots; the last slot (the pooled
  unseen category) is emitted as the value k_j, a category never seen in training, which the
  estimator scores through that same slot. X is a dense int64 array;
- MultinomialNB: the length n of each document is **drawn from the training length
  distribution of its class** (the weighted histogram ``length_count_``; a class without
  training documents uses the histogram of all classes), then x | c, n ~ Multinomial(n, θ_c).
  X is a CSR matrix of int64 counts. With ``unk=True`` a token of the UNK category goes to a
  uniformly chosen pooled (never seen) column; when no column is pooled the UNK slot is
  dropped and θ renormalised over the seen words.

- GDA: x | c ~ N(μ_c, Σ_c) with the means and covariance of the estimate (``means_``,
  ``covariance_``; independent features with the per-class variances for
  ``covariance="diagonal"``). X is a dense float64 array.

``estimate="bayes"`` generates from the posterior predictive that it scores with: for the
Bernoulli and categorical models that is the posterior mean; for the multinomial model every
document draws its own θ ~ Dirichlet(α + T_c) before its tokens (the Dirichlet-multinomial
predictive of one document); for GDA every sample is a multivariate Student-t draw
``μ_c + L z · sqrt(ν'/g)``, g ~ χ²(ν'), with ν' = ν − d + 1 and ``L Lᵀ = Ψ (κ_c + 1) /
(κ_c ν')`` (the diagonal model: one independent univariate t per feature, each with its own g,
as its predictive is a product over features).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp

from bayesnb._base import model_kind
from bayesnb.validation import check_fitted

__all__ = ["sample"]

# Documents per chunk when a θ is drawn per document (bounds the dense chunk to ~32 MB).
_CHUNK_CELLS = 1 << 22


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _generator(est):
    impl = {"bernoulli": _bernoulli, "multinomial": _multinomial, "categorical": _categorical}
    return impl.get(model_kind(est, "bayesnb.generate"), _gaussian)


def sample(est, n: int, random_seed=None) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Draw ``n`` synthetic documents from the fitted generative model.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB or GDA
    n : int
        Number of documents (>= 0).
    random_seed : int, SeedSequence or Generator, optional
        The same seed gives the same data.

    Returns
    -------
    X : ndarray of int64 of shape (n, n_features), csr_matrix for MultinomialNB, ndarray of
        float64 for GDA
    y : ndarray of shape (n,)
        Labels drawn from the class prior, of the dtype of ``est.classes_``.
    """
    impl = _generator(est)
    check_fitted(est)
    if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    rng = np.random.default_rng(random_seed)
    p = np.exp(est.class_log_prior_)
    codes = rng.choice(p.shape[0], size=int(n), p=p / p.sum())
    return impl(est, codes, rng), est.classes_[codes]


def _bernoulli(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    phi = np.exp(est.feature_log_prob_)
    return (rng.random((codes.shape[0], phi.shape[1])) < phi[codes]).astype(np.int64)


def _categorical(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    X = np.empty((codes.shape[0], est.n_features_in_), dtype=np.int64)
    for j, table in enumerate(est.feature_log_prob_):
        cdf = np.cumsum(np.exp(table), axis=1)
        u = rng.random(codes.shape[0]) * cdf[codes, -1]  # rows sum to 1 up to rounding
        # Inverse CDF: the number of slots whose cumulative probability is <= u.
        X[:, j] = np.minimum((u[:, None] >= cdf[codes]).sum(axis=1), table.shape[1] - 1)
    return X


def _gaussian(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
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
            label = np.asarray(est.classes_)[bad[:1]].tolist()[0]  # a plain repr, not np.int64
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


def _lengths(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Document lengths drawn from the training length histogram of each document's class."""
    hist = est.length_count_.tocsr()
    pooled = np.asarray(hist.sum(axis=0)).ravel()
    out = np.zeros(codes.shape[0], dtype=np.int64)
    for c in np.unique(codes):
        row = hist.getrow(c)
        values, weights = row.indices, row.data
        if weights.sum() <= 0:
            values = np.flatnonzero(pooled)
            weights = pooled[values]
        if weights.sum() <= 0:
            raise ValueError("cannot draw document lengths: the training data hold no documents")
        mask = codes == c
        out[mask] = rng.choice(values, size=int(mask.sum()), p=weights / weights.sum())
    return out


def _multinomial(est, codes: np.ndarray, rng: np.random.Generator) -> sp.csr_matrix:
    post = est.posterior_
    n_docs, n_features = codes.shape[0], est.n_features_in_
    lengths = _lengths(est, codes, rng)
    pooled = est._pooled
    # Column of every category: seen words in order, then the UNK slot (-1: pick a pooled one).
    if pooled is None:
        column = np.arange(n_features)
    else:
        column = np.append(np.flatnonzero(~pooled), -1)
    pooled_cols = np.flatnonzero(pooled) if pooled is not None else np.empty(0, np.intp)
    drop_unk = pooled is not None and pooled_cols.size == 0
    rows, cols = [], []
    if est.estimate == "bayes":
        conc = post.concentration
        if drop_unk:
            conc = conc[:, :-1]
        docs = np.arange(n_docs)
        step = max(1, _CHUNK_CELLS // conc.shape[1])
        for start in range(0, n_docs, step):
            idx = docs[start : start + step]
            g = rng.standard_gamma(conc[codes[idx]])
            g /= g.sum(axis=1, keepdims=True)
            counts = rng.multinomial(lengths[idx], g)
            r, k = np.nonzero(counts)
            reps = counts[r, k]
            rows.append(np.repeat(idx[r], reps))
            cols.append(np.repeat(k, reps))
    else:
        theta = np.exp(post.log_estimate(est.estimate))
        if drop_unk:
            theta = theta[:, :-1]
        for c in np.unique(codes):
            idx = np.flatnonzero(codes == c)
            total = int(lengths[idx].sum())
            if total == 0:
                continue
            p = theta[c]
            if not p.sum() > 0:
                label = np.asarray(est.classes_)[c : c + 1].tolist()[0]
                raise ValueError(
                    f"class {label!r} has no word probabilities under "
                    f"estimate={est.estimate!r} (no training tokens); use estimate='mean'"
                )
            rows.append(np.repeat(idx, lengths[idx]))
            cols.append(rng.choice(p.shape[0], size=total, p=p / p.sum()))
    r = np.concatenate(rows) if rows else np.empty(0, np.intp)
    k = np.concatenate(cols) if cols else np.empty(0, np.intp)
    col = column[k]
    unk = col < 0
    if unk.any():
        col[unk] = rng.choice(pooled_cols, size=int(unk.sum()))
    X = sp.coo_matrix(
        (np.ones(r.shape[0], dtype=np.int64), (r, col)), shape=(n_docs, n_features)
    ).tocsr()
    X.sum_duplicates()
    return X
