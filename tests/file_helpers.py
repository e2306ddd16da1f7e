"""Editing saved model files as someone crafting one would: change, then reseal the checksums."""

from __future__ import annotations

import json

import xarray as xr

from bayesnb import io

# Children of a model node that are not arrays covered by its own checksum.
_NOT_GROUPS = ("statistics", "blocks")


def model_checksum(tree: xr.DataTree) -> str:
    """The checksum ``load`` expects of the model node ``tree`` (its blocks already sealed)."""
    ds = tree["statistics"].to_dataset()
    arrays = {k: ds[k].values for k in ds.data_vars}
    arrays |= {"class": ds["class"].values, "feature": ds["feature"].values}
    for name, child in tree.children.items():
        if name not in _NOT_GROUPS:
            group = child.to_dataset()
            arrays |= {f"{name}/{k}": group[k].values for k in group.data_vars}
    a = tree.attrs
    return io.codec.checksum(arrays, a["model"], str(a["params"]), str(a["fitted"]))


def reseal(tree: xr.DataTree) -> None:
    """Recompute every checksum of ``tree`` in place, blocks first (a composite records them)."""
    blocks = tree.children.get("blocks")
    if blocks is not None:
        fitted = json.loads(tree.attrs["fitted"])
        for entry, (_, block) in zip(fitted["blocks"], blocks.children.items(), strict=True):
            reseal(block)
            entry["checksum"] = block.attrs["checksum"]
        tree.attrs["fitted"] = json.dumps(fitted, sort_keys=True)
    tree.attrs["checksum"] = model_checksum(tree)


def read_tree(path) -> xr.DataTree:
    with xr.open_datatree(path, engine="h5netcdf") as t:
        return t.load()


def craft(src, dst, edit, reseal_it: bool = True):
    """Copy the model file ``src`` to ``dst`` with ``edit(tree)`` applied (checksums redone)."""
    tree = read_tree(src)
    edit(tree)
    if reseal_it:
        reseal(tree)
    tree.to_netcdf(dst, engine="h5netcdf")
    return dst
