"""The columnwise family object, registered under ``"columnwise"``."""

from __future__ import annotations

import numpy as np

from bayesnb.families import Family, family_of, register
from bayesnb.families.columnwise.crossval import ColumnwiseCrossval
from bayesnb.families.columnwise.estimator import ColumnwiseNB
from bayesnb.families.columnwise.evidence import ColumnwiseEvidence
from bayesnb.families.columnwise.pymc import ColumnwisePyMC
from bayesnb.families.columnwise.sampling import ColumnwiseSampling
from bayesnb.families.columnwise.semisupervised import ColumnwiseSemisupervised
from bayesnb.families.columnwise.storage import ColumnwiseStorage

__all__ = ["FAMILY", "ColumnwiseFamily"]


class ColumnwiseFamily(
    ColumnwiseCrossval,
    ColumnwiseSampling,
    ColumnwiseStorage,
    ColumnwiseEvidence,
    ColumnwisePyMC,
    ColumnwiseSemisupervised,
    Family,
):
    """The columnwise family: :class:`~bayesnb.families.Family` for :class:`ColumnwiseNB`."""

    name = "columnwise"
    estimator = ColumnwiseNB

    # command line, scale-out
    def setup_columns(self, est, X) -> None:
        """Resolve and clone the blocks of ``est`` for X's columns (by position)."""
        est._setup_blocks(X)

    def example_data(self, est, n, rng):
        """Each block's example data in its columns (integer column indices only)."""
        blocks = est._spec()
        parts, width = [], 0
        y = None
        for _, block, cols in blocks:
            idx = (
                np.arange(cols.start or 0, cols.stop, cols.step or 1)
                if isinstance(cols, slice)
                else np.atleast_1d(np.asarray(cols))
            )
            if idx.dtype.kind not in "iu":
                raise self.unsupported("example_data for blocks named by column labels")
            sub = np.random.default_rng(rng.integers(2**32))
            Xb, yb = family_of(block).example_data(block, n, sub)
            if Xb.shape[1] < idx.size:
                Xb = np.hstack([Xb, Xb[:, : idx.size - Xb.shape[1]]])
            parts.append((idx, Xb[:, : idx.size]))
            width = max(width, int(idx.max()) + 1)
            y = yb if y is None else y
        X = np.zeros((n, width))
        for idx, Xb in parts:
            X[:, idx] = Xb
        return X, y

    def fixed_prior_params(self, est) -> dict:
        """Each block's pinned parameters, as ``name__param``."""
        out = {}
        for name, block, _ in est._blocks():
            for k, v in family_of(block).fixed_prior_params(block).items():
                out[f"{name}__{k}"] = v
        return out

    def closed_form_predictive(self, est) -> bool:
        """Only when every block has one."""
        return all(family_of(b).closed_form_predictive(b) for _, b, _ in est._blocks())

    # inspection
    def inspect_statistics(self, est) -> list[tuple[str, str]]:
        """Documents per class, then each block's own statistics under its name."""
        lines = super().inspect_statistics(est)
        for name, block, _ in est._blocks():
            width = block.n_features_in_
            lines.append((f"block {name}", f"{type(block).__name__} on {width} columns"))
            own = family_of(block).inspect_statistics(block)[1:]  # documents: said once
            lines += [(f"  {name}: {what}", value) for what, value in own]
        return lines


FAMILY = register(ColumnwiseFamily())
