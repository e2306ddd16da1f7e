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

- PoissonNB: x_j | c ~ Poisson(λ_cj) with the rates of the estimate (``"bayes"``: every
  document draws its own λ_c ~ Gamma(α + S_c, β + N_c) first, which makes each count the
  negative-binomial predictive the model scores with). X is a CSR matrix of int64 counts.

- DirichletCompoundNB: the length n of each document drawn from its class's training
  lengths (as MultinomialNB), then θ ~ Dirichlet(β_c), x | θ ~ Multinomial(n, θ) with β_c the
  ``concentration_`` of the estimate; generated token by token by the equivalent Pólya urn
  (:func:`replicate_documents`), so no V-sized Dirichlet draw is made per document. X is a CSR
  matrix of int64 counts.

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

__all__ = ["polya_urn", "replicate_documents", "sample"]

# Documents per chunk when a θ is drawn per document (bounds the dense chunk to ~32 MB).
_CHUNK_CELLS = 1 << 22
# Generated multinomial documents are held as (row, column) token pairs: at most this many.
_MAX_TOKENS = 10**8


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _generator(est):
    impl = {"bernoulli": _bernoulli, "multinomial": _multinomial, "categorical": _categorical}
    impl["poisson"] = _poisson
    impl["dcm"] = _dcm
    return impl.get(model_kind(est, "bayesnb.generate"), _gaussian)


def sample(est, n: int, random_seed=None) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Draw ``n`` synthetic documents from the fitted generative model.

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
    n : int
        Number of documents (>= 0).
    random_seed : int, SeedSequence or Generator, optional
        The same seed gives the same data.

    Returns
    -------
    X : ndarray of int64 of shape (n, n_features), csr_matrix for MultinomialNB and PoissonNB,
        ndarray of float64 for GDA
    y : ndarray of shape (n,)
        Labels drawn from the class prior, of the dtype of ``est.classes_``.
    """
    impl = _generator(est)
    rng, codes = _draw_labels(est, n, random_seed)
    return impl(est, codes, rng), est.classes_[codes]


def _draw_labels(est, n: int, random_seed) -> tuple[np.random.Generator, np.ndarray]:
    """The generator of ``random_seed`` and ``n`` class codes drawn from the class prior."""
    check_fitted(est)
    if not isinstance(n, Integral) or isinstance(n, bool) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    rng = np.random.default_rng(random_seed)
    p = np.exp(est.class_log_prior_)
    return rng, rng.choice(p.shape[0], size=int(n), p=p / p.sum())


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


def _poisson(est, codes: np.ndarray, rng: np.random.Generator) -> sp.csr_matrix:
    post = est.posterior_
    n_docs, n_features = codes.shape[0], est.n_features_in_
    bayes = est.estimate == "bayes"
    if bayes:
        shape, rate = post.shape, post.rate
    else:
        lam = post.estimate(est.estimate)
    blocks = []
    step = max(1, _CHUNK_CELLS // max(n_features, 1))
    for start in range(0, n_docs, step):
        idx = codes[start : start + step]
        # Per document λ ~ Gamma: the counts are then the negative-binomial predictive.
        rates = rng.standard_gamma(shape[idx]) / rate[idx] if bayes else lam[idx]
        blocks.append(sp.csr_matrix(rng.poisson(rates).astype(np.int64)))
    if not blocks:
        return sp.csr_matrix((0, n_features), dtype=np.int64)
    return sp.vstack(blocks, format="csr")


def _lengths(est, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Document lengths drawn from the training length histogram of each document's class."""
    hist = est.length_count_.tocsr()
    out = np.zeros(codes.shape[0], dtype=np.int64)
    for c in np.unique(codes):
        row = hist.getrow(c)
        values, weights = row.indices, row.data
        if weights.sum() <= 0:
            # Every class's lengths, summed over the stored entries only: the histogram is
            # as wide as the longest document (2^40 is possible) and is never densified.
            every = hist.tocoo()
            values, inverse = np.unique(every.col, return_inverse=True)
            weights = np.bincount(inverse, weights=every.data)
        if weights.sum() <= 0:
            raise ValueError("cannot draw document lengths: the training data hold no documents")
        mask = codes == c
        out[mask] = rng.choice(values, size=int(mask.sum()), p=weights / weights.sum())
    return out


def _multinomial(est, codes: np.ndarray, rng: np.random.Generator) -> sp.csr_matrix:
    post = est.posterior_
    n_docs, n_features = codes.shape[0], est.n_features_in_
    lengths = _lengths(est, codes, rng)
    if lengths.sum() > _MAX_TOKENS:
        raise ValueError(
            f"sample would generate {lengths.sum():.3g} tokens (document lengths are drawn from "
            f"the training documents), more than {_MAX_TOKENS:.0e}; draw fewer documents"
        )
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


# -- the Pólya urn (DirichletCompoundNB; posterior predictive checks) --------------------------
def polya_urn(
    rng: np.random.Generator,
    concentration: np.ndarray,
    codes: np.ndarray,
    lengths: np.ndarray,
) -> sp.csr_matrix:
    """Documents drawn from the Pólya distribution: θ ~ Dirichlet(β_c), x ~ Mult(n, θ).

    The equivalent urn draws token t (0-based) fresh from β_c / B_c with probability
    B_c / (B_c + t) and otherwise copies one of the t earlier tokens of the document uniformly
    at random: P(word w) = (β_w + count_w) / (B + t). The work is proportional to the number of
    tokens, not to n_docs × n_features.

    Parameters
    ----------
    rng : numpy Generator
    concentration : ndarray of shape (n_classes, n_features)
        β_c, non-negative, each used row with a positive sum.
    codes : ndarray of int of shape (n_docs,)
    lengths : ndarray of int of shape (n_docs,)

    Returns
    -------
    csr_matrix of int64 of shape (n_docs, n_features)
    """
    beta = np.asarray(concentration, dtype=np.float64)
    total = beta.sum(axis=1)
    return _urn(rng, beta / np.where(total > 0, total, 1.0)[:, None], total, codes, lengths)


def _urn(rng, probs, total, codes, lengths) -> sp.csr_matrix:
    """Urn with base distributions ``probs`` (rows sum to 1) and strengths ``total`` (inf ok)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    n_docs, n_features = codes.shape[0], probs.shape[1]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    tokens = np.empty(int(offsets[-1]), dtype=np.intp)
    doc_of = np.repeat(np.arange(n_docs), lengths)
    cls_of = codes[doc_of]
    for c in np.unique(codes):  # fresh candidates for every position, by inverse CDF
        pos = np.flatnonzero(cls_of == c)
        if pos.size == 0:
            continue
        if not total[c] > 0:
            label = np.asarray(c).tolist()
            raise ValueError(f"class code {label} has no word probabilities (B = 0)")
        cdf = np.cumsum(probs[c])
        u = rng.random(pos.size) * cdf[-1]
        tokens[pos] = np.minimum(np.searchsorted(cdf, u, side="right"), n_features - 1)
    strength = total[codes]
    finite = np.isfinite(strength)
    for t in range(1, int(lengths.max()) if lengths.size else 0):
        docs = np.flatnonzero((lengths > t) & finite)
        if docs.size == 0:
            continue
        s = strength[docs]
        copy = rng.random(docs.size) * (s + t) >= s  # P(copy) = t / (B + t)
        docs = docs[copy]
        src = offsets[docs] + (rng.random(docs.size) * t).astype(np.int64)
        tokens[offsets[docs] + t] = tokens[src]
    X = sp.csr_matrix(
        (np.ones(tokens.size, dtype=np.int64), tokens, offsets), shape=(n_docs, n_features)
    )
    X.sum_duplicates()
    return X


def replicate_documents(est, codes: np.ndarray, lengths: np.ndarray, rng) -> sp.csr_matrix:
    """Documents of the given classes and lengths from a fitted DCM or multinomial model.

    DirichletCompoundNB: the Pólya urn of ``concentration_``. MultinomialNB: tokens i.i.d.
    from exp(``feature_log_prob_``) (renormalised), or for ``estimate="bayes"`` the Pólya
    urn of its posterior concentration α + T_c (the predictive it scores with; with
    ``unk=True`` the UNK slot's mass is spread over the pooled columns).
    """
    kind = model_kind(est, "bayesnb.generate.replicate_documents")
    codes = np.asarray(codes, dtype=np.intp)
    if kind == "dcm":
        return polya_urn(rng, est.concentration_, codes, lengths)
    if kind != "multinomial":
        raise TypeError(f"replicate_documents needs a DCM or multinomial model, got {kind!r}")
    probs = np.exp(est.feature_log_prob_.astype(np.float64))
    probs /= probs.sum(axis=1, keepdims=True)
    if est.estimate == "bayes":
        total = est.posterior_.concentration.sum(axis=1)
    else:
        total = np.full(probs.shape[0], np.inf)
    return _urn(rng, probs, total, codes, lengths)


def _dcm(est, codes: np.ndarray, rng: np.random.Generator) -> sp.csr_matrix:
    return polya_urn(rng, est.concentration_, codes, _lengths(est, codes, rng))
