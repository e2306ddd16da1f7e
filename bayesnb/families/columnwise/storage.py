"""ColumnwiseNB family methods: statistics in model files, delegated to the blocks' families.

The root holds what the composite owns: ``statistics`` with ``class_count (class)`` (and the
coordinates of all its features), ``params`` with the constructor parameters and, under
``estimators``, the block spec (``form`` "list" or "dict" and per block its ``name``,
``model`` type, the block family's ``params`` and its ``columns``: a callable selector is
stored as the columns it selected, a slice tagged ``__slice__``, a dict shorthand as None).
``blocks/<name>`` holds each block's complete model file tree as its own family writes it,
with its own checksum; the root ``fitted`` JSON records every block's column positions and
checksum (``blocks``), ``own_estimates`` and ``remainder``, so the root checksum covers the
blocks too.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

__all__ = ["ColumnwiseStorage"]


def _encode_columns(columns, positions: np.ndarray, names, out):
    """A block's column selection as JSON data; a callable is stored as what it selected."""
    if callable(columns):
        if names is not None:
            return [str(names[j]) for j in positions]
        return [int(j) for j in positions]
    if isinstance(columns, slice):
        return {"__slice__": [out.encode(v) for v in (columns.start, columns.stop, columns.step)]}
    return out.encode(columns)


def _decode_columns(value, file):
    if isinstance(value, dict) and set(value) == {"__slice__"}:
        return slice(*value["__slice__"])
    return file.decode(value)


class ColumnwiseStorage:
    """Family methods of ColumnwiseNB for storage; see :class:`bayesnb.families.Family`."""

    # -- save ----------------------------------------------------------------------------------
    def file_params(self, est, out) -> dict:
        names = getattr(est, "feature_names_in_", None)
        form = "dict" if isinstance(est.estimators, dict) else "list"
        entries = []
        for (name, unfitted, columns), (_, _, positions) in zip(
            est._spec(), est.estimators_, strict=True
        ):
            shorthand = form == "dict" and not isinstance(est.estimators[name], tuple)
            entries.append(
                {
                    "name": name,
                    "model": out.model_name(unfitted),
                    "params": out.params(unfitted),
                    "columns": None
                    if shorthand
                    else _encode_columns(columns, positions, names, out),
                }
            )
        params = {
            k: out.encode(v) for k, v in est.get_params(deep=False).items() if k != "estimators"
        }
        params["estimators"] = {"form": form, "blocks": entries}
        return params

    def file_statistics(self, est) -> dict:
        return {}  # the class counts are the generic ones; the rest is in the blocks

    def file_subtrees(self, est, out) -> dict:
        return {f"blocks/{name}": out.tree(block) for name, block, _ in est.estimators_}

    def file_fitted(self, est, out) -> dict:
        blocks = [
            {
                "columns": [int(j) for j in positions],
                "checksum": str(out.subtrees[f"blocks/{name}"].attrs["checksum"]),
            }
            for name, _, positions in est.estimators_
        ]
        return {
            "blocks": blocks,
            "own_estimates": list(est._own_estimates),
            "remainder": [int(j) for j in est.remainder_],
        }

    # -- load ----------------------------------------------------------------------------------
    def decode_params(self, params: dict, file) -> dict:
        params = dict(params)
        where = file.where
        try:
            spec = params.pop("estimators")
            entries, form = spec["blocks"], spec["form"]
            if len(entries) != len(file.fitted["blocks"]) or form not in ("list", "dict"):
                raise ValueError("block lists disagree")
        except (KeyError, TypeError, ValueError) as exc:
            raise file.error(
                f"{where} holds an inconsistent ColumnwiseNB block spec: {exc}"
            ) from exc
        estimators = []
        for entry in entries:
            name, model = entry["name"], entry["model"]
            family = file.family_named(model)
            if family is None or family.name == self.name:  # a composite is not a block
                raise file.error(f"{where}: block {name!r} has unsupported model type {model!r}")
            unfitted = file.estimator(family, entry["params"])
            columns = None if entry["columns"] is None else _decode_columns(entry["columns"], file)
            estimators.append((name, unfitted, columns))
        if form == "dict":
            spec_param = {n: (e if c is None else (e, c)) for n, e, c in estimators}
        else:
            spec_param = estimators
        return {"estimators": spec_param, **{k: file.decode(v) for k, v in params.items()}}

    def restore_statistics(self, est, file) -> None:
        est.class_count_ = np.asarray(file.statistics["class_count"], dtype=np.float64)
        tree, where = file.tree, file.where
        blocks = []
        for (name, unfitted, _), fit in zip(est._spec(), file.fitted["blocks"], strict=True):
            if "blocks" not in tree.children or name not in tree["blocks"].children:
                raise file.error(f"{where} lacks the group of block {name!r}")
            if str(tree["blocks"][name].attrs.get("checksum")) != fit["checksum"]:
                raise file.error(
                    f"{where} failed its SHA-256 checksum: block {name!r} was changed or "
                    "corrupted after saving"
                )
            block = file.load(f"blocks/{name}", type(unfitted))
            blocks.append((name, block, np.asarray(fit["columns"], dtype=np.intp)))
        est._set_fitted(
            estimators_=blocks,
            named_estimators_=Bunch(**{n: b for n, b, _ in blocks}),
            _own_estimates=list(file.fitted["own_estimates"]),
        )

    def restore_fitted(self, est, file) -> None:
        # Block columns and estimates; no alpha_ of its own (the blocks hold theirs).
        est.remainder_ = np.asarray(file.fitted["remainder"], dtype=np.intp)
