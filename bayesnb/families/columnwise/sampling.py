"""ColumnwiseNB family methods: point estimates, exact draws, synthetic data, from the blocks.

A ColumnwiseNB has one class prior and blocks of columns, each a model of its own family. Its
results are the blocks' (each block's family asked in turn), under the one class prior:
``posterior/class_prior`` at the root of a DataTree and each block's own tree (without its
class prior) as the child ``name``; the numpy draws are ``class_prior`` and
``"{block}/{var}"``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import xarray as xr

from bayesnb.datatree import to_datatree
from bayesnb.families import family_of
from bayesnb.posterior.sampling import class_prior_draws, with_estimate

__all__ = ["ColumnwiseSampling"]


def _names(var_names) -> list[str] | None:
    if var_names is None:
        return None
    names = [var_names] if isinstance(var_names, str) else list(var_names)
    if not names:
        raise ValueError("var_names must name at least one variable, got an empty list")
    return names


def _blocks(est, features) -> list:
    if features is not None:
        raise ValueError(
            "features= selects columns of one model; for a ColumnwiseNB select them per block, "
            "e.g. est.named_estimators_[name].sample_posterior(features=...)"
        )
    return est._blocks()


def _block_seeds(random_seed, n_blocks: int) -> list:
    """One stream for the class prior and one per block: a block's values do not depend on
    which other blocks or variables are drawn."""
    return np.random.default_rng(random_seed).spawn(1 + n_blocks)


def _compose_tree(root: xr.DataTree, trees: dict[str, xr.DataTree], names) -> xr.DataTree:
    """``root`` (the class prior) with one child per block tree, without the blocks' own
    ``class_prior`` and keeping only the requested variables."""
    found: set[str] = set()
    for name, tree in trees.items():
        post = tree["posterior"].to_dataset()
        keep = [v for v in post.data_vars if v != "class_prior" and (names is None or v in names)]
        found |= set(keep)
        if not keep:
            continue
        tree["posterior"] = xr.DataTree(post[keep])
        root[name] = tree
    if names is not None:
        unknown = sorted(set(names) - found - {"class_prior"})
        if unknown:
            raise ValueError(f"var_names {unknown} are variables of no block of this ColumnwiseNB")
        if "class_prior" not in names:
            root = root.copy()
            del root["posterior"]
    return root


class ColumnwiseSampling:
    """Family methods of ColumnwiseNB for sampling; see :class:`bayesnb.families.Family`."""

    def compose_point_estimate(self, est, estimate: str, var_names, features, single):
        """The root's class prior under ``estimate`` and each block's point-estimate tree."""
        names = _names(var_names)
        blocks = _blocks(est, features)
        view = with_estimate(est, estimate)
        root = to_datatree(
            est,
            {"class_prior": np.exp(view.class_log_prior_)[None, None]},
            estimate=estimate,
            inference="bayesnb point estimate",
        )
        trees = {}
        for name, block, _ in blocks:
            try:
                trees[name] = family_of(block).compose_point_estimate(
                    block, estimate, None, None, single
                )
            except ValueError as exc:
                raise type(exc)(f"block {name!r}: {exc}") from exc
        return _compose_tree(root, trees, names)

    def compose_draws(
        self, est, draws: int, chains: int, random_seed, var_names, features, max_bytes, single
    ) -> dict[str, np.ndarray]:
        """``class_prior`` and every block's draws as ``"{block}/{var}"``."""
        names = _names(var_names)
        blocks = _blocks(est, features)
        seeds = _block_seeds(random_seed, len(blocks))
        values: dict[str, np.ndarray] = {}
        if names is None or "class_prior" in names:
            values["class_prior"] = class_prior_draws(est, seeds[0], (chains, draws))
        for (name, block, _), seed in zip(blocks, seeds[1:], strict=True):
            part = family_of(block).compose_draws(
                block, draws, chains, seed, None, None, max_bytes, single
            )
            for var, arr in part.items():
                if var != "class_prior" and (names is None or var in names):
                    values[f"{name}/{var}"] = arr
        return values

    def compose_sample_posterior(
        self, est, draws: int, chains: int, random_seed, var_names, features, max_bytes, single
    ) -> xr.DataTree:
        """The one class prior at the root, each block's exact draws (its own layout, the same
        values as :meth:`compose_draws`) as a child."""
        names = _names(var_names)
        blocks = _blocks(est, features)
        seeds = _block_seeds(random_seed, len(blocks))
        root = to_datatree(
            est,
            {"class_prior": class_prior_draws(est, seeds[0], (chains, draws))},
            estimate="posterior",
            inference="bayesnb exact conjugate",
        )
        trees = {
            name: family_of(block).compose_sample_posterior(
                block, draws, chains, seed, None, None, max_bytes, single
            )
            for (name, block, _), seed in zip(blocks, seeds[1:], strict=True)
        }
        return _compose_tree(root, trees, names)

    def summary_refusal(self, est) -> str | None:
        """One Dataset cannot hold several models' parameters: summarise each block."""
        return (
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
