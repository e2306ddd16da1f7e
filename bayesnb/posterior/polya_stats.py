"""The sufficient statistics of the Pólya likelihood and its per-class sums (numerator,
denominator, their derivatives, the log-likelihood), for :mod:`bayesnb.posterior.polya`.

``PolyaStats`` flattens the value and length histograms (:mod:`bayesnb.stats.histograms`)
into the arrays every evaluation runs over; :mod:`bayesnb.posterior.polya` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import digamma, gammaln

from bayesnb.posterior._special import trigamma
from bayesnb.stats.histograms import ValueTriplets

__all__ = ["LengthTriplets", "PolyaStats", "length_triplets"]


@dataclass(frozen=True)
class LengthTriplets:
    """The stored entries of a length histogram: class code, length n >= 1, weight."""

    cls: np.ndarray
    length: np.ndarray
    weight: np.ndarray


def length_triplets(length_hist) -> LengthTriplets:
    """Flatten a (n_classes, max_length + 1) length histogram; length-0 documents drop out
    (an empty document has Pólya probability 1 under every β)."""
    coo = length_hist.tocoo()
    keep = (coo.data != 0) & (coo.col > 0)
    return LengthTriplets(
        coo.row[keep].astype(np.intp),
        coo.col[keep].astype(np.float64),
        coo.data[keep].astype(np.float64),
    )


# Counts up to this are expanded into their terms 1/(β + k), k < v (elementary operations);
# larger ones keep the digamma differences (few: long documents with a bursty word).
_EXPAND = 32


@dataclass(frozen=True)
class PolyaStats:
    """Everything the Pólya likelihood of every class depends on.

    The per-cell sums use ``ψ(β + v) − ψ(β) = Σ_{k<v} 1/(β + k)`` (and the same sums for
    ψ' and ln Γ): every value-histogram entry with ``v ≤ 32`` is expanded once into its v
    terms, so an evaluation is one division (or logarithm) per term and no special function;
    on text almost every count is 1 or 2, so the expansion is barely longer than the
    histogram. Counts above 32 keep the special-function differences.

    Attributes
    ----------
    values : ValueTriplets
        Value histogram entries (class, feature, v >= 1, weight).
    lengths : LengthTriplets
        Length histogram entries (class, n >= 1, weight).
    n_classes, n_features : int
    """

    values: ValueTriplets
    lengths: LengthTriplets
    n_classes: int
    n_features: int
    _flat: np.ndarray = field(init=False, repr=False)
    _terms: tuple = field(init=False, repr=False)

    def __post_init__(self) -> None:
        flat = self.values.cls * self.n_features + self.values.feature
        object.__setattr__(self, "_flat", flat)
        v, w = self.values.value, self.values.weight
        short = v <= _EXPAND
        reps = v[short].astype(np.intp)
        ends = np.cumsum(reps)
        k = np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - reps, reps)
        expanded = (np.repeat(flat[short], reps), k.astype(np.float64), np.repeat(w[short], reps))
        long = (flat[~short], v[~short], w[~short])
        object.__setattr__(self, "_terms", (expanded, long))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_classes, self.n_features)

    def _per_cell(self, cells: np.ndarray, terms: np.ndarray) -> np.ndarray:
        size = self.n_classes * self.n_features
        return np.bincount(cells, weights=terms, minlength=size).reshape(self.shape)

    def _per_class(self, terms: np.ndarray) -> np.ndarray:
        return np.bincount(self.lengths.cls, weights=terms, minlength=self.n_classes)

    def _cell_sums(self, beta: np.ndarray, short, long) -> np.ndarray:
        """Σ over the entries of every cell: ``short(w, β + k)`` expanded, ``long(w, β, v)``."""
        (cell, k, w), (cell_l, v_l, w_l) = self._terms
        b = beta.ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            out = self._per_cell(cell, short(w, b[cell] + k))
            if cell_l.size:
                out += self._per_cell(cell_l, long(w_l, b[cell_l], v_l))
        return out

    def num(self, beta: np.ndarray) -> np.ndarray:
        """``Σ_d [ψ(x_dj + β_cj) − ψ(β_cj)]``, shape (K, V); zero where a feature never occurs."""
        return self._cell_sums(
            beta, lambda w, x: w / x, lambda w, b, v: w * (digamma(v + b) - digamma(b))
        )

    def num_prime(self, beta: np.ndarray) -> np.ndarray:
        """Derivative of :meth:`num` in β_cj: ``Σ_d [ψ'(x_dj + β_cj) − ψ'(β_cj)]`` (≤ 0)."""
        return self._cell_sums(
            beta, lambda w, x: -w / (x * x), lambda w, b, v: w * (trigamma(v + b) - trigamma(b))
        )

    def num_and_prime(self, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`num` and :meth:`num_prime` in one pass over the expanded terms."""
        (cell, k, w), (cell_l, v_l, w_l) = self._terms
        b = beta.ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / (b[cell] + k)
            wi = w * inv
            num, prime = self._per_cell(cell, wi), self._per_cell(cell, -wi * inv)
            if cell_l.size:
                bl = b[cell_l]
                num += self._per_cell(cell_l, w_l * (digamma(v_l + bl) - digamma(bl)))
                prime += self._per_cell(cell_l, w_l * (trigamma(v_l + bl) - trigamma(bl)))
        return num, prime

    def den(self, total: np.ndarray) -> np.ndarray:
        """``Σ_d [ψ(n_d + B_c) − ψ(B_c)]``, shape (K,)."""
        L, B = self.lengths, total[self.lengths.cls]
        return self._per_class(L.weight * (digamma(L.length + B) - digamma(B)))

    def den_prime(self, total: np.ndarray) -> np.ndarray:
        """Derivative of :meth:`den` in B_c: ``Σ_d [ψ'(n_d + B_c) − ψ'(B_c)]`` (≤ 0)."""
        L, B = self.lengths, total[self.lengths.cls]
        return self._per_class(L.weight * (trigamma(L.length + B) - trigamma(B)))

    def log_likelihood(self, beta: np.ndarray, mult: np.ndarray | None = None) -> np.ndarray:
        """ℓ_c(β) of every class, shape (K,) (−inf where a feature of the data has β = 0).

        ``mult`` (K, V): how many cells every column stands for (grouped cells,
        :mod:`bayesnb.posterior.polya_units`); default one each.
        """
        cells = self._cell_sums(
            beta, lambda w, x: w * np.log(x), lambda w, b, v: w * (gammaln(v + b) - gammaln(b))
        )
        if mult is None:
            total = beta.sum(axis=1)
        else:
            total = np.einsum("ij,ij->i", mult, beta)
            cells = np.where(mult > 0, cells, 0.0) * mult
        L, B = self.lengths, total[self.lengths.cls]
        with np.errstate(invalid="ignore"):
            docs = self._per_class(L.weight * (gammaln(B) - gammaln(L.length + B)))
        return cells.sum(axis=1) + docs

    def documents(self) -> np.ndarray:
        """Summed weight of the non-empty documents of every class, shape (K,)."""
        return self._per_class(self.lengths.weight)
