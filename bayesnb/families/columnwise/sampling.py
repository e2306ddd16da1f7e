"""ColumnwiseNB family methods: its blocks as parts, synthetic data from the blocks.

A ColumnwiseNB has one class prior and blocks of columns, each a model of its own family.
:mod:`bayesnb.draws` assembles its point estimates and exact draws from its :meth:`parts`
(each block's family asked in turn) under the one class prior.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families import family_of

__all__ = ["ColumnwiseSampling"]


class ColumnwiseSampling:
    """Family methods of ColumnwiseNB for sampling; see :class:`bayesnb.families.Family`."""

    def parts(self, est) -> list[tuple[str, object]]:
        """The fitted blocks, ``(name, estimator)`` in order."""
        return [(name, block) for name, block, _ in est._blocks()]

    # One Dataset cannot hold several models' parameters: summarise each block.
    summary_refusal = (
        "posterior_summary summarises one model's parameters in one Dataset; for a "
        "ColumnwiseNB summarise each block, posterior_summary(est.named_estimators_[name]) "
        "(the class prior is the blocks' own)"
    )

    def generate(self, est, codes: np.ndarray, rng):
        """Every block's columns from its own model given the labels, in the training order.

        Columns used by no block are 0; X is a CSR matrix when some block generates sparse
        counts (MultinomialNB, PoissonNB), otherwise a float64 array.
        """
        parts, order = [], []
        for _, block, idx in est._blocks():
            parts.append(family_of(block).generate(block, codes, rng))
            order.extend(idx.tolist())
        if est.remainder_.size:
            parts.append(np.zeros((codes.shape[0], est.remainder_.size)))
            order.extend(est.remainder_.tolist())
        inverse = np.argsort(np.asarray(order))
        if any(sp.issparse(part) for part in parts):
            X = sp.hstack([sp.csr_matrix(part, dtype=np.float64) for part in parts]).tocsc()
            return X[:, inverse].tocsr()
        X = np.hstack([np.asarray(part, dtype=np.float64) for part in parts])
        return X[:, inverse]
