"""Posterior draws of only what a batch of documents reads: its own columns plus one 'rest' cell.

The multinomial likelihood of a document reads θ_cj only where the document has tokens (and,
with missing counts marginalised, where it has missing cells: the observed mass is
1 − Σ_missing θ_cj); the Poisson likelihood reads λ_cj there and the total rate
Σ_j λ_cj over every other column (the ``exp(−Σ λ)`` of the absent ones). Both laws aggregate
exactly: (θ_S, Σ_{j∉S} θ_j) ~ Dirichlet(a_S, Σ_{j∉S} a_j), and a sum of independent
Gamma(a_j, b) is Gamma(Σ a_j, b). So a draw of the batch's columns plus one 'rest' cell per
class has exactly the law of the full draw restricted to what the likelihood reads, at the
cost of the batch's distinct columns instead of the vocabulary. (Not so for the Bernoulli
model, whose absent features each contribute their own log(1 − φ_cj).)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = ["DrawBatch", "_AggregatedBatch"]


class DrawBatch(NamedTuple):
    """Documents on the cells their likelihood reads: ``chosen`` categories, then 'rest'.

    Attributes
    ----------
    chosen : ndarray of intp
        The categories (for the Poisson model: columns) the documents read one by one.
    X : ndarray or csr_matrix of shape (n_docs, chosen.size + 1)
        The documents' counts per chosen category; the last column (rest) is 0.
    M : ndarray of bool, csr_matrix or None
        The missing-cell indicator on the same columns (None without missing cells), of
        the kind ``M`` was.
    cells_per_draw : int
        Float64 cells one draw occupies while the documents are scored.
    family, est : object
        The family (whose ``_batch_draws`` draws the cells) and the fitted estimator.
    """

    chosen: np.ndarray
    X: object
    M: object
    cells_per_draw: int
    family: object
    est: object

    def draws(self, rng, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
        """Exact draws (*shape, ...) of the parameters the batch's likelihood reads."""
        return self.family._batch_draws(self.est, self, rng, shape)

    def jll(self, values: dict) -> np.ndarray:
        """log p(x_i | c, θ_s) of the batch under :meth:`draws`: (n_docs, draws, K)."""
        # On categories: MultinomialNB's UNK is one column of the batch already.
        return self.family._draws_table_jll(self.est, self.X, self.M, values, categories=True)


class _AggregatedBatch:
    """``batch_view`` of a family whose draws aggregate (a mixin).

    The family supplies ``_batch_categories(est)`` (the category of every column, and the
    category whose missing cells remove no mass, or None) and
    ``_batch_draws(est, batch, rng, shape)``.
    """

    def _batch_categories(self, est) -> tuple[np.ndarray, int | None]:
        return np.arange(est.n_features_in_), None

    def batch_view(self, est, Xc, M) -> DrawBatch:
        """The documents ``Xc`` (missing cells ``M``) on the categories they read, and 'rest'."""
        category, always_observed = self._batch_categories(est)
        read = np.asarray((Xc != 0).sum(axis=0)).ravel() > 0
        if M is not None:
            read |= np.asarray(M.sum(axis=0)).ravel() > 0
        chosen = np.unique(category[read])
        if chosen.size == 0:
            # Documents without tokens read nothing; one category keeps the shapes non-empty.
            chosen = np.zeros(1, dtype=np.intp)
        # Column j -> the position of its category (columns of other categories read zeros).
        keep = np.flatnonzero(np.isin(category, chosen))
        to_batch = sp.csr_matrix(
            (np.ones(keep.size), (keep, np.searchsorted(chosen, category[keep]))),
            shape=(Xc.shape[1], chosen.size + 1),
        )
        Xb = Xc @ to_batch
        Mb = None
        if M is not None:
            observed = np.append(chosen == always_observed, True)  # and 'rest' (no cells)
            Mb = M @ (to_batch @ sp.diags((~observed).astype(np.float64)))
            if sp.issparse(Mb):  # the kinds split_missing gives: csr of ones, or dense bool
                Mb.eliminate_zeros()
                Mb.data[:] = 1.0
            else:
                Mb = np.asarray(Mb) > 0
        k = len(est.classes_)
        cells = 2 * k * (chosen.size + 1) + 2 * k * Xc.shape[0]
        return DrawBatch(chosen, Xb, Mb, cells, self, est)
