"""Cells of the Pólya fit that behave alike, grouped: what the Newton iteration runs over.

The optimisation of β_c (:mod:`bayesnb.posterior.polya`) treats every (class, feature) cell
through its own histogram of counts, its start and whether it moves; two cells that agree on
all three follow the same iterates (every step, Newton's or the fixed point's, is the same
function of them and of the class sums). On text almost every cell is one of a few kinds: a
word never seen in the class, or one seen only once per document, in n documents (histogram
{1: n}): a class has as many of those kinds as distinct n, a few hundred, against tens of
thousands of words. A :class:`PolyaUnits` keeps one *unit* per kind, with its multiplicity
(how many cells it stands for), and one per cell of any other kind (a count above 1 in some
document, or a start of its own), so an iteration costs O(units + their histogram entries)
instead of O(classes × vocabulary), and gives the same iterates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesnb.posterior.polya_stats import PolyaStats
from bayesnb.stats.histograms import ValueTriplets

__all__ = ["PolyaUnits", "polya_units"]


@dataclass(frozen=True)
class PolyaUnits:
    """The cells of a (K, V) fit grouped into units, laid out (K, U) (U: the most of a class).

    Attributes
    ----------
    stats : PolyaStats
        The Pólya statistics over the units: unit u of class c is feature u of class c, its
        histogram the one every cell of the unit has.
    mult : ndarray of shape (K, U)
        Cells each unit stands for (0: padding of a class with fewer units).
    index : ndarray of shape (K · V,)
        The flat (K · U) position of every cell's unit.
    first : ndarray of shape (K, U)
        The flat (K · V) index of one cell of every unit (padding: its class's first cell).
    """

    stats: PolyaStats
    mult: np.ndarray
    index: np.ndarray
    first: np.ndarray

    def gather(self, dense: np.ndarray) -> np.ndarray:
        """The (K, U) values of a (K, V) array that is constant on every unit."""
        return np.asarray(dense).ravel()[self.first]

    def expand(self, values: np.ndarray, rows=None) -> np.ndarray:
        """The (K, V) array (or its ``rows``) of (K, U) per-unit values."""
        K = self.mult.shape[0]
        V = self.index.shape[0] // K
        if rows is None:
            return values.ravel()[self.index].reshape(K, V)
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        idx = self.index.reshape(K, V)[rows]
        return values.ravel()[idx]


def polya_units(stats: PolyaStats, start: np.ndarray, active: np.ndarray) -> PolyaUnits:
    """Group the cells of ``stats`` that share their histogram, start and activity.

    Kinds: per class, the cells without data; the cells whose counts are all 1, by their
    weight n (documents holding the word); every other cell alone. A cell whose start or
    activity differs from its kind's first cell is a unit of its own. O(cells + entries):
    bincounts and a table of (class, n), no sort (a sort of the distinct n only when the
    weights are not integers).
    """
    K, V = stats.n_classes, stats.n_features
    size = K * V
    vt = stats.values
    flat = vt.cls * V + vt.feature
    start = np.asarray(start, dtype=np.float64).ravel()
    active = np.asarray(active, dtype=bool).ravel()
    complex_ = np.bincount(flat, weights=(vt.value != 1.0), minlength=size) > 0
    data = np.bincount(flat, minlength=size) > 0
    ones = np.bincount(flat, weights=np.where(vt.value == 1.0, vt.weight, 0.0), minlength=size)
    cell = np.arange(size)
    cls = cell // V
    # Keys: [0, K) no data, [K, K + T) the {1: n} kinds, [K + T, K + T + size) single cells.
    simple = data & ~complex_
    n = ones[simple]
    if n.size and np.all(n == np.round(n)) and n.max() < 4 * V:
        n_code, width = n.astype(np.intp), int(n.max()) + 1
    else:
        uniq, n_code = np.unique(n, return_inverse=True)
        width = max(uniq.size, 1)
    T = K * width
    key = np.where(data, K + T + cell, cls)
    key[simple] = K + cls[simple] * width + n_code
    first_of_key = np.full(K + T + size, size, dtype=np.intp)
    np.minimum.at(first_of_key, key, cell)  # the kind's first cell (a cell is its own)
    rep = first_of_key[key]
    alone = (start != start[rep]) | (active != active[rep])
    key[alone] = K + T + cell[alone]
    # Unit numbers, class by class, in key order (no data, the kinds, the single cells).
    used = np.zeros(K + T + size, dtype=bool)
    used[key] = True
    keys = np.flatnonzero(used)
    key_cls = np.where(keys < K, keys, np.where(keys < K + T, (keys - K) // width, 0))
    single = keys >= K + T
    key_cls[single] = (keys[single] - K - T) // V
    order = np.argsort(key_cls, kind="stable")
    counts = np.bincount(key_cls, minlength=K)
    U = max(int(counts.max(initial=0)), 1)
    pos = np.empty(keys.size, dtype=np.intp)
    pos[order] = np.arange(keys.size) - np.repeat(np.cumsum(counts) - counts, counts)
    slot = key_cls * U + pos  # flat (K · U) place of every distinct key
    lookup = np.empty(K + T + size, dtype=np.intp)
    lookup[keys] = slot
    index = lookup[key]
    mult = np.bincount(index, minlength=K * U).astype(np.float64).reshape(K, U)
    first = np.full(K * U, size, dtype=np.intp)
    np.minimum.at(first, index, cell)
    pad = mult.ravel() == 0
    first[pad] = np.repeat(np.arange(K) * V, U)[pad]
    # The histogram of every unit: the entries of its first cell.
    own = index[flat]
    keep = first[own] == flat
    unit_values = ValueTriplets(vt.cls[keep], own[keep] % U, vt.value[keep], vt.weight[keep])
    return PolyaUnits(
        PolyaStats(unit_values, stats.lengths, K, U), mult, index, first.reshape(K, U)
    )
