"""Refusing model files: declared sizes, JSON attributes, format versions, statistics ranges
and parameters, each checked as data before the model is built.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import xarray as xr

__all__ = [
    "MIGRATIONS",
    "ModelFileError",
    "ModelFileWarning",
    "check_declared_sizes",
    "check_parameters",
    "check_statistics",
    "json_attr",
    "migrate",
]


def _upgrade_1(tree: xr.DataTree) -> xr.DataTree:
    """Version 1 -> 2: version 2 only adds groups (the checksum does not cover the version)."""
    out = tree.copy()
    out.attrs["format_version"] = 2
    return out


# format_version -> upgrade of a tree of that version to the next one (see bayesnb.io).
MIGRATIONS: dict[int, Callable[[xr.DataTree], xr.DataTree]] = {1: _upgrade_1}
# JSON attributes: at most this many bytes, plus _JSON_PER_FEATURE per feature (array params).
_JSON_BYTES, _JSON_PER_FEATURE = 1 << 16, 64
# A histogram width (document length, count value) beyond this is not a real one.
_MAX_WIDTH = 1 << 40


class ModelFileError(ValueError):
    """A readable file that is not a model this bayesnb accepts."""


class ModelFileWarning(UserWarning):
    """A model file that loads, with something about it the user should know."""


def check_declared_sizes(path: Path, tree: xr.DataTree) -> None:
    """Refuse arrays larger than the file could hold, before any of them is read.

    :func:`bayesnb.io.save` writes uncompressed arrays, so their bytes are in the file; a
    declared size far beyond the file's (an HDF5 dataset of fill values or a compressed bomb)
    is refused.
    """
    declared = 0
    for node in tree.subtree:
        for var in node.dataset.variables.values():
            # Strings (the feature names) are variable-length in the file, but their declared
            # itemsize is that of the longest (x4 for numpy's "U"): one long word in a large
            # vocabulary would refuse the file. Each string counts as one byte.
            size = var.dtype.itemsize if var.dtype.kind in "biufc" else 1
            declared += int(np.prod(var.shape, dtype=np.float64)) * max(size, 1)
    size = path.stat().st_size
    if declared > 2 * size + (1 << 20):
        raise ModelFileError(
            f"{str(path)!r} declares {declared:.3g} bytes of arrays in a file of {size} bytes: "
            "not a bayesnb model file (refused before reading it)"
        )


def json_attr(path: Path, attrs: dict, key: str, n_features: int) -> tuple[str, dict]:
    """The JSON object of attribute ``key`` (bounded size, an object of data)."""
    text = attrs[key]
    if not isinstance(text, str):
        raise ModelFileError(f"{str(path)!r}: attribute {key!r} is not text")
    limit = _JSON_BYTES + _JSON_PER_FEATURE * n_features
    if len(text) > limit:
        raise ModelFileError(
            f"{str(path)!r}: attribute {key!r} holds {len(text)} characters, more than the "
            f"{limit} parameters of {n_features} features can take"
        )
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(f"{str(path)!r}: attribute {key!r} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ModelFileError(f"{str(path)!r}: attribute {key!r} is not a JSON object")
    return text, value


def migrate(path: Path, tree: xr.DataTree, version: int, current: int) -> xr.DataTree:
    """Upgrade ``tree`` from ``version`` to ``current`` through :data:`MIGRATIONS`."""
    while version < current:
        step = MIGRATIONS.get(version)
        if step is None:
            raise ModelFileError(
                f"{str(path)!r} has format_version {version}, older than the {current} "
                "this bayesnb reads, and no migration from it is registered "
                "(bayesnb.io.MIGRATIONS); re-save it with the bayesnb that wrote it, or refit"
            )
        tree = step(tree)
        new = int(tree.attrs.get("format_version", version))
        if new <= version:
            raise RuntimeError(f"the migration from format_version {version} did not upgrade")
        version = new
    return tree


def check_statistics(path: Path, data: dict, fitted: dict, n_features: int) -> None:
    """Finite statistics, non-negative counts, widths and indices within their ranges.

    By the naming convention of the families' statistics: a name holding ``count`` or
    ``weight`` is a count; ``fitted["<prefix>_width"]`` bounds the statistic
    ``<prefix>_value`` (the column indices of a histogram stored as COO triplets).
    """
    if int(fitted["n_features_in"]) != n_features:
        raise ModelFileError(
            f"{str(path)!r}: n_features_in {fitted['n_features_in']!r} differs from its "
            f"{n_features} feature coordinates"
        )
    for key, arr in data.items():
        if arr.dtype.kind not in "biuf":
            raise ModelFileError(f"{str(path)!r}: statistic {key!r} is not numeric ({arr.dtype})")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ModelFileError(f"{str(path)!r}: statistic {key!r} holds NaN or infinity")
        if ("count" in key or "weight" in key) and arr.size and arr.min() < 0:
            raise ModelFileError(f"{str(path)!r}: statistic {key!r} holds negative counts")
    for key, width in fitted.items():
        if not key.endswith("_width"):
            continue
        if not isinstance(width, int) or not 1 <= width <= _MAX_WIDTH:
            raise ModelFileError(f"{str(path)!r}: {key} {width!r} is not a histogram width")
        values = data.get(key.replace("_width", "_value"))
        if values is not None and values.size and not 0 <= values.min() <= values.max() < width:
            raise ModelFileError(f"{str(path)!r}: {key.replace('_width', '_value')} exceeds {key}")


def check_parameters(path: Path, est) -> None:
    """The loaded parameters pass the estimator's own checks (as at fit)."""
    from bayesnb.scoring.temperature import check_temperature
    from bayesnb.validation import check_alpha, check_class_alpha

    n = est.n_features_in_
    try:
        est._check_params()
        for key in ("alpha", "beta", "alpha_"):
            value = getattr(est, key, None)
            learned = key != "alpha_" and isinstance(value, str) and value in ("evidence", "loo")
            if value is None or learned:
                continue
            check_alpha(value, n, key)
        if getattr(est, "class_alpha_", None) is not None:
            check_class_alpha(est.class_alpha_)
        if "temperature" in est.get_params(deep=False):
            check_temperature(est.temperature_)
        est.class_log_prior_  # noqa: B018 - validates class_prior against the classes
    except (TypeError, ValueError) as exc:
        name = type(est).__name__
        raise ModelFileError(f"{str(path)!r} holds invalid {name} parameters: {exc}") from None
