"""Model-file data: parameter values as JSON, class labels and features as coordinates, and
the SHA-256 checksum over the arrays and the JSON attributes.

Everything here is data only: numbers, strings, None and numeric arrays are encoded; nothing
is pickled and nothing decoded is executed or imported.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

__all__ = [
    "canonical",
    "checksum",
    "class_coords",
    "decode",
    "encode",
    "feature_coords",
    "label_dtype",
    "labels_from_file",
]


def encode(value):
    """A parameter value as JSON data (numeric arrays tagged with their dtype)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"cannot save an array parameter of dtype {value.dtype}")
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(
        f"cannot save parameter value {value!r} of type {type(value).__name__}: only numbers, "
        "strings, None and numeric arrays are stored (no pickle)"
    )


def decode(value):
    """The inverse of :func:`encode`; any other object is refused (ValueError)."""
    if isinstance(value, dict):
        if set(value) != {"__ndarray__", "dtype"}:
            raise ValueError(f"unexpected object in saved parameters: {value!r}")
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in "biuf":
            raise ValueError(f"unexpected array dtype {dtype} in saved parameters")
        return np.asarray(value["__ndarray__"], dtype=dtype)
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


# -- labels and features -----------------------------------------------------------------------
def label_dtype(classes: np.ndarray) -> str:
    """The tag of the label dtype stored in ``fitted`` (numbers, fixed or object strings)."""
    kind = classes.dtype.kind
    if kind in "biuf" or kind == "U":
        return classes.dtype.str
    if kind == "O" and all(isinstance(c, str) for c in classes):
        return "object-str"
    raise TypeError(
        f"cannot save class labels of dtype {classes.dtype} "
        f"({sorted({type(c).__name__ for c in classes})}): labels must be numbers or strings"
    )


def labels_from_file(values: np.ndarray, dtype: str) -> np.ndarray:
    """``classes_`` from the stored ``class`` coordinate and its :func:`label_dtype` tag."""
    if dtype == "object-str":
        return np.array([str(v) for v in values], dtype=object)
    dt = np.dtype(dtype)
    if dt.kind not in "biufU":
        raise ValueError(f"unexpected label dtype {dtype!r} in the file")
    if dt.kind == "U":
        return np.array([str(v) for v in values], dtype=dt)
    return np.asarray(values).astype(dt)


def feature_coords(est) -> tuple[np.ndarray | None, np.ndarray]:
    """``feature_names_in_`` (or None) and the stored ``feature`` coordinate (x0, x1, ...)."""
    names = getattr(est, "feature_names_in_", None)
    features = (
        np.array([str(f) for f in names])
        if names is not None
        else np.array([f"x{j}" for j in range(est.n_features_in_)])
    )
    return names, features


def class_coords(est) -> tuple[str, np.ndarray]:
    """The label dtype tag and the stored ``class`` coordinate (object labels as strings)."""
    classes = np.asarray(est.classes_)
    tag = label_dtype(classes)
    return tag, classes.astype(str) if tag == "object-str" else classes


# -- checksum ----------------------------------------------------------------------------------
def canonical(arr: np.ndarray) -> bytes:
    """Bytes of an array independent of how netCDF decodes its dtype."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "biu":
        body = np.ascontiguousarray(arr, dtype="<i8").tobytes()
    elif arr.dtype.kind == "f":
        body = np.ascontiguousarray(arr, dtype="<f8").tobytes()
    else:
        body = json.dumps([str(v) for v in arr.ravel().tolist()]).encode()
    return json.dumps(list(arr.shape)).encode() + body


def checksum(arrays: dict[str, np.ndarray], *texts: str) -> str:
    """SHA-256 over the arrays (in key order) and the texts (model name, JSON attributes)."""
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode() + b"\0" + canonical(arrays[key]) + b"\0")
    for text in texts:
        h.update(text.encode() + b"\0")
    return h.hexdigest()
