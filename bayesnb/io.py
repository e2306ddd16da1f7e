"""I/O: a fitted estimator <-> one netCDF file holding a DataTree (never pickle).

File layout (engine h5netcdf):

- root attrs: ``model`` (class name), ``format_version`` (int), ``bayesnb_version``,
  ``params`` (the constructor parameters as JSON), ``fitted`` (learned scalars and bookkeeping
  as JSON: ``alpha_``, ``class_alpha_``, the label dtype, ...) and ``checksum`` (SHA-256 of the
  statistics arrays, their coordinates and the two JSON strings);
- group ``statistics``: the sufficient statistics with coordinates ``class`` (the labels in
  their own dtype: ints stay ints, strings stay strings) and ``feature`` (feature names):
  ``class_count (class)``; ``feature_count (class, feature)`` for the Bernoulli,
  multinomial and Poisson models (PoissonNB adds ``log_factorial (class)``, Σ ln x! for
  the evidence); the multinomial length histogram ``length_count_`` as COO triplets
  ``length_class, length_value, length_weight (length_entry)``; for the categorical model
  ``category_count (class, slot)`` (the concatenated category axis) and
  ``n_categories (feature)``; for DirichletCompoundNB ``feature_count`` and its two Pólya
  histograms as COO triplets ``length_row, length_value, length_weight (length_entry)`` and
  ``value_row, value_value, value_weight (value_entry)``; for GDA the class means as
  offsets from an origin, ``mean_offset (class, feature)`` and ``shift (feature)``, and the
  centred within-class
  ``scatter``: ``(feature, feature_bis)`` shared, ``(class, feature, feature_bis)`` per class,
  ``(class, feature)`` diagonal (:class:`bayesnb.stats.gaussian.GaussianStats`, stored as is,
  so no precision is lost to raw sums of squares);
- group ``prior`` (GDA only): the *resolved* Normal-Inverse-Wishart hyperparameters
  ``mu0 (feature)``, ``kappa0 ()``, ``psi0 (feature, feature_bis)``, ``nu0 ()`` — the
  data-scaled defaults as computed at save time. The checksum covers them too.

The ``prior`` parameter of GDA is stored in ``params`` as given (None stays None: a loaded
model that keeps learning re-resolves its default prior from the grown statistics, as the
original would). On load the prior is resolved again from the loaded statistics and must
equal the stored one bitwise, otherwise the file is refused (a bayesnb whose default prior
differs would silently change the predictions).

A model is rebuilt from its parameters and statistics, so ``predict_proba`` of a loaded model
equals the saved one bitwise. Attrs are parsed as data (JSON, validated against the
estimator's parameters); nothing in the file is executed. Saving writes a temporary file in
the destination folder and renames it over the target (``os.replace``), so a crash never
leaves a half-written model under the target name.

Loading a file from elsewhere is safe: no pickle, no import of a name found in the file (the
``model`` attribute is looked up among bayesnb's own estimator classes), JSON attributes of
bounded size decoded into numbers, strings and numeric arrays only, then checked as the
estimator checks its constructor parameters. Before anything is read into memory, the sizes
the file declares must fit in the file (HDF5 can declare a 10^15-element array in a few bytes
of metadata); after reading, the statistics must be finite, counts non-negative, and every
shape, index and width consistent with the coordinates.

Format versions: a file of a newer ``format_version`` is refused naming it. An older one is
upgraded one version at a time by the functions registered in :data:`MIGRATIONS`
(``version -> function(tree) -> tree`` of the next version, which must recompute the checksum
if it changes what it covers); without a registered path it is refused naming its version.
Version 1 is the first released format, so ``MIGRATIONS`` is empty: the hook is where a
future version 2 registers ``MIGRATIONS[1]``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import xarray as xr

from bayesnb.validation import check_fitted

__all__ = ["FORMAT_VERSION", "MIGRATIONS", "ModelFileError", "load", "save"]

FORMAT_VERSION = 1
_ENGINE = "h5netcdf"
# format_version -> upgrade of a tree of that version to the next one (see the module docstring).
MIGRATIONS: dict[int, Callable[[xr.DataTree], xr.DataTree]] = {}
# JSON attributes: at most this many bytes, plus _JSON_PER_FEATURE per feature (array params).
_JSON_BYTES, _JSON_PER_FEATURE = 1 << 16, 64
# A histogram width (document length, count value) beyond this is not a real one.
_MAX_WIDTH = 1 << 40


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _models() -> dict[str, type]:
    from bayesnb.gda import GDA
    from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB
    from bayesnb.poisson import PoissonNB

    models = (BernoulliNB, MultinomialNB, CategoricalNB, GDA, PoissonNB)
    from bayesnb.dcm import DirichletCompoundNB

    models = (*models, DirichletCompoundNB)
    from bayesnb.columnwise import ColumnwiseNB

    models = (*models, ColumnwiseNB)
    return {cls.__name__: cls for cls in models}


def _model_name(est) -> str:
    for name, cls in _models().items():
        if type(est) is cls:
            return name
    raise TypeError(
        f"{type(est).__name__} cannot be saved by bayesnb.io; supported estimators are "
        f"{sorted(_models())}"
    )


def _statistics(est, name: str) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """The statistics of a fitted estimator as ``name -> (dims, array)``."""
    stats = {"class_count": (("class",), est.class_count_)}
    if name in ("BernoulliNB", "MultinomialNB", "PoissonNB"):
        stats["feature_count"] = (("class", "feature"), est.feature_count_)
    if name == "PoissonNB":
        stats["log_factorial"] = (("class",), est.log_factorial_)
    if name == "MultinomialNB":
        coo = est.length_count_.tocoo()
        stats["length_class"] = (("length_entry",), coo.row.astype(np.int64))
        stats["length_value"] = (("length_entry",), coo.col.astype(np.int64))
        stats["length_weight"] = (("length_entry",), coo.data.astype(np.float64))
    if name == "DirichletCompoundNB":
        # Token totals, and the two sufficient histograms of the Pólya likelihood as COO
        # triplets: per-document lengths and per-(class, feature) counts.
        stats["feature_count"] = (("class", "feature"), est.feature_count_)
        for prefix, hist in (("length", est.length_count_), ("value", est.value_count_)):
            coo = hist.tocoo()
            entry = (f"{prefix}_entry",)
            stats[f"{prefix}_row"] = (entry, coo.row.astype(np.int64))
            stats[f"{prefix}_value"] = (entry, coo.col.astype(np.int64))
            stats[f"{prefix}_weight"] = (entry, coo.data.astype(np.float64))
    if name == "CategoricalNB":
        stats["category_count"] = (("class", "slot"), est._flat_count)
        stats["n_categories"] = (("feature",), np.asarray(est.n_categories_, dtype=np.int64))
    if name == "GDA":
        st = est._stats
        stats["mean_offset"] = (("class", "feature"), st.offset)
        stats["shift"] = (("feature",), st.shift)
        stats["scatter"] = (_SCATTER_DIMS[st.covariance], st.scatter)
        if not np.array_equal(st.count, est.class_count_):
            # missing="ignore": means and covariance were fitted on the complete rows only.
            stats["gaussian_count"] = (("class",), st.count)
    lost = getattr(est, "missing_count_", None)
    if name in ("BernoulliNB", "PoissonNB") and lost is not None and np.any(lost):
        # missing="ignore": per (class, feature) documents with the feature missing.
        stats["missing_count"] = (("class", "feature"), np.asarray(lost))
    return stats


# Dims of the stored GDA scatter, by covariance type.
_SCATTER_DIMS = {
    "shared": ("feature", "feature_bis"),
    "per_class": ("class", "feature", "feature_bis"),
    "diagonal": ("class", "feature"),
}
_PRIOR_DIMS = {"mu0": ("feature",), "kappa0": (), "psi0": ("feature", "feature_bis"), "nu0": ()}


def _resolved_prior(est) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """The resolved NIW hyperparameters of a fitted GDA as ``name -> (dims, array)``."""
    prior = est.posterior_.prior
    return {
        k: (dims, np.asarray(getattr(prior, k), dtype=np.float64))
        for k, dims in _PRIOR_DIMS.items()
    }


def _restore_gda(est, data: dict[str, np.ndarray], fitted: dict, prior: dict) -> None:
    from bayesnb.stats.gaussian import COVARIANCE_TYPES, GaussianStats

    covariance = fitted.get("covariance_type")
    if covariance not in COVARIANCE_TYPES:
        raise ValueError(f"unexpected GDA covariance type {covariance!r} in the file")
    count, offset = data["class_count"], data["mean_offset"]
    k, d = offset.shape
    want = {"shared": (d, d), "per_class": (k, d, d), "diagonal": (k, d)}[covariance]
    if data["scatter"].shape != want or data["shift"].shape != (d,) or count.shape != (k,):
        raise ValueError(
            f"inconsistent GDA statistics in the file: scatter {data['scatter'].shape} "
            f"(expected {want} for {covariance!r}), shift {data['shift'].shape}, class_count "
            f"{count.shape} for {k} classes × {d} features"
        )
    gaussian_count = data.get("gaussian_count", count)
    if gaussian_count.shape != count.shape:
        raise ValueError(f"inconsistent GDA gaussian_count {gaussian_count.shape} in the file")
    est._stats = GaussianStats(
        gaussian_count.copy(), offset, data["scatter"], covariance, data["shift"]
    )
    est.class_count_ = count.copy()
    resolved = _resolved_prior(est)
    differs = [k for k, (_, v) in resolved.items() if not np.array_equal(v, prior.get(k))]
    if differs:
        raise ValueError(
            f"the prior hyperparameters {differs} resolved by this bayesnb differ from the "
            "ones stored in the file; the loaded model would not predict as the saved one "
            "(was the file written by another bayesnb version?)"
        )


def _restore(
    est, name: str, data: dict[str, np.ndarray], fitted: dict, prior: dict[str, np.ndarray]
) -> None:
    """Set the fitted state of ``est`` from loaded statistics (inverse of :func:`_statistics`)."""
    if name == "GDA":
        _restore_gda(est, data, fitted, prior)
        return
    est.class_count_ = data["class_count"]
    if name in ("BernoulliNB", "MultinomialNB", "PoissonNB"):
        est.feature_count_ = data["feature_count"]
    if name == "PoissonNB":
        est.log_factorial_ = data["log_factorial"]
    if name in ("BernoulliNB", "PoissonNB"):
        shape = est.feature_count_.shape
        lost = data.get("missing_count")
        if lost is not None and lost.shape != shape:
            raise ValueError(f"inconsistent {name} missing_count {lost.shape} in the file")
        est.missing_count_ = lost if lost is not None else np.broadcast_to(0.0, shape)
    if name == "MultinomialNB":
        est.length_count_ = sp.csr_matrix(
            (data["length_weight"], (data["length_class"], data["length_value"])),
            shape=(data["class_count"].shape[0], int(fitted["length_width"])),
        )
    if name == "DirichletCompoundNB":
        k, v = data["class_count"].shape[0], int(fitted["n_features_in"])
        est.feature_count_ = data["feature_count"]
        for prefix, rows in (("length", k), ("value", k * v)):
            hist = sp.csr_matrix(
                (data[f"{prefix}_weight"], (data[f"{prefix}_row"], data[f"{prefix}_value"])),
                shape=(rows, int(fitted[f"{prefix}_width"])),
            )
            setattr(est, f"{prefix}_count_", hist)
    if name == "CategoricalNB":
        est._flat_count = data["category_count"]
        est.n_categories_ = data["n_categories"].astype(np.intp)


# -- JSON for parameters (data only) -----------------------------------------------------------
_NIW_FIELDS = ("mu0", "kappa0", "psi0", "nu0")


def _encode(value):
    from bayesnb.priors.gaussian import NormalInverseWishart

    if isinstance(value, NormalInverseWishart):
        # The prior as given (None fields stay None); its fields are numbers and arrays.
        return {"__niw__": {k: _encode(getattr(value, k)) for k in _NIW_FIELDS}}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"cannot save an array parameter of dtype {value.dtype}")
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(
        f"cannot save parameter value {value!r} of type {type(value).__name__}: only numbers, "
        "strings, None and numeric arrays are stored (no pickle)"
    )


def _decode(value):
    if isinstance(value, dict) and set(value) == {"__niw__"}:
        from bayesnb.priors.gaussian import NormalInverseWishart

        fields = value["__niw__"]
        if not isinstance(fields, dict) or set(fields) != set(_NIW_FIELDS):
            raise ValueError(
                f"unexpected NormalInverseWishart fields in saved parameters: {value!r}"
            )
        try:
            return NormalInverseWishart(**{k: _decode(v) for k, v in fields.items()})
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"invalid NormalInverseWishart prior in saved parameters: {exc}"
            ) from exc
    if isinstance(value, dict):
        if set(value) != {"__ndarray__", "dtype"}:
            raise ValueError(f"unexpected object in saved parameters: {value!r}")
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in "biuf":
            raise ValueError(f"unexpected array dtype {dtype} in saved parameters")
        return np.asarray(value["__ndarray__"], dtype=dtype)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


# -- labels and checksum -----------------------------------------------------------------------
def _label_dtype(classes: np.ndarray) -> str:
    kind = classes.dtype.kind
    if kind in "biuf" or kind == "U":
        return classes.dtype.str
    if kind == "O" and all(isinstance(c, str) for c in classes):
        return "object-str"
    raise TypeError(
        f"cannot save class labels of dtype {classes.dtype} "
        f"({sorted({type(c).__name__ for c in classes})}): labels must be numbers or strings"
    )


def _labels_from_file(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "object-str":
        return np.array([str(v) for v in values], dtype=object)
    dt = np.dtype(dtype)
    if dt.kind not in "biufU":
        raise ValueError(f"unexpected label dtype {dtype!r} in the file")
    if dt.kind == "U":
        return np.array([str(v) for v in values], dtype=dt)
    return np.asarray(values).astype(dt)


def _canonical(arr: np.ndarray) -> bytes:
    """Bytes of an array independent of how netCDF decodes its dtype."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "biu":
        body = np.ascontiguousarray(arr, dtype="<i8").tobytes()
    elif arr.dtype.kind == "f":
        body = np.ascontiguousarray(arr, dtype="<f8").tobytes()
    else:
        body = json.dumps([str(v) for v in arr.ravel().tolist()]).encode()
    return json.dumps(list(arr.shape)).encode() + body


def _checksum(arrays: dict[str, np.ndarray], *texts: str) -> str:
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode() + b"\0" + _canonical(arrays[key]) + b"\0")
    for text in texts:
        h.update(text.encode() + b"\0")
    return h.hexdigest()


# -- save --------------------------------------------------------------------------------------
def _to_datatree(est) -> xr.DataTree:
    if getattr(est, "_family", None) == "columnwise":
        return _columnwise_to_datatree(est)
    name = _model_name(est)
    check_fitted(est)
    stats = _statistics(est, name)
    names, features = _feature_coords(est)
    label_dtype, stored_classes = _class_coords(est)
    fitted = {
        "alpha_": _encode(getattr(est, "alpha_", None)),
        "class_alpha_": _encode(getattr(est, "class_alpha_", None)),
        "label_dtype": label_dtype,
        "feature_names": names is not None,
        "n_features_in": int(est.n_features_in_),
    }
    if name == "MultinomialNB":
        fitted["length_width"] = int(est.length_count_.shape[1])
    if name == "DirichletCompoundNB":
        fitted["length_width"] = int(est.length_count_.shape[1])
        fitted["value_width"] = int(est.value_count_.shape[1])
    if name == "GDA":
        fitted["covariance_type"] = est._stats.covariance
    params_json = json.dumps(
        {k: _encode(v) for k, v in est.get_params(deep=False).items()}, sort_keys=True
    )
    fitted_json = json.dumps(fitted, sort_keys=True)
    arrays = {k: np.asarray(v) for k, (_, v) in stats.items()}
    arrays |= {"class": stored_classes, "feature": features}
    ds = xr.Dataset(
        {k: (dims, np.asarray(v)) for k, (dims, v) in stats.items()},
        coords={"class": stored_classes, "feature": features},
    )
    groups = {"/statistics": ds}
    if name == "GDA":
        prior = _resolved_prior(est)
        arrays |= {f"prior/{k}": v for k, (_, v) in prior.items()}
        groups["/prior"] = xr.Dataset({k: (dims, v) for k, (dims, v) in prior.items()})
    root = _root_node(name, params_json, fitted_json, arrays)
    return xr.DataTree.from_dict({"/": root, **groups})


def _feature_coords(est) -> tuple[np.ndarray | None, np.ndarray]:
    """``feature_names_in_`` (or None) and the stored ``feature`` coordinate (x0, x1, ...)."""
    names = getattr(est, "feature_names_in_", None)
    features = (
        np.array([str(f) for f in names])
        if names is not None
        else np.array([f"x{j}" for j in range(est.n_features_in_)])
    )
    return names, features


def _class_coords(est) -> tuple[str, np.ndarray]:
    """The label dtype tag and the stored ``class`` coordinate (object labels as strings)."""
    classes = np.asarray(est.classes_)
    label_dtype = _label_dtype(classes)
    return label_dtype, classes.astype(str) if label_dtype == "object-str" else classes


def _root_node(name: str, params_json: str, fitted_json: str, arrays: dict) -> xr.Dataset:
    """The root attributes of a saved model, with the checksum over ``arrays`` and the JSON."""
    from bayesnb import __version__

    return xr.Dataset(
        attrs={
            "model": name,
            "format_version": FORMAT_VERSION,
            "bayesnb_version": __version__,
            "params": params_json,
            "fitted": fitted_json,
            "checksum": _checksum(arrays, name, params_json, fitted_json),
        }
    )


def _write_netcdf(tree: xr.DataTree, path: str) -> None:
    """Write ``tree`` to ``path`` and flush it to disk (the one step a test can break)."""
    tree.to_netcdf(path, engine=_ENGINE)
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def save(est, path) -> None:
    """Save a fitted estimator as one netCDF file (atomic replace, no pickle).

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB, PoissonNB or GDA
    path : str or path-like
        Target file; its folder must exist. An existing file is replaced only once the new
        one is completely written.
    """
    tree = _to_datatree(est)
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"cannot save to {str(target)!r}: it is a folder, not a file name")
    if not target.parent.is_dir():
        raise FileNotFoundError(
            f"cannot save to {str(target)!r}: the folder {str(target.parent)!r} does not exist"
        )
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        _write_netcdf(tree, tmp)
        # mkstemp creates the file 0600; give the saved model the permissions of a normal file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- load --------------------------------------------------------------------------------------
class ModelFileError(ValueError):
    """A readable file that is not a model this bayesnb accepts."""


def _check_declared_sizes(path: Path, tree: xr.DataTree) -> None:
    """Refuse arrays larger than the file could hold, before any of them is read.

    :func:`save` writes uncompressed arrays, so their bytes are in the file; a declared size
    far beyond the file's (an HDF5 dataset of fill values or a compressed bomb) is refused.
    """
    declared = 0
    for node in tree.subtree:
        for var in node.dataset.variables.values():
            declared += int(np.prod(var.shape, dtype=np.float64)) * max(var.dtype.itemsize, 1)
    size = path.stat().st_size
    if declared > 2 * size + (1 << 20):
        raise ModelFileError(
            f"{str(path)!r} declares {declared:.3g} bytes of arrays in a file of {size} bytes: "
            "not a bayesnb model file (refused before reading it)"
        )


def _json_attr(path: Path, attrs: dict, key: str, n_features: int) -> tuple[str, dict]:
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


def _migrate(path: Path, tree: xr.DataTree, version: int) -> xr.DataTree:
    """Upgrade ``tree`` from ``version`` to :data:`FORMAT_VERSION` through :data:`MIGRATIONS`."""
    while version < FORMAT_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise ModelFileError(
                f"{str(path)!r} has format_version {version}, older than the {FORMAT_VERSION} "
                "this bayesnb reads, and no migration from it is registered "
                "(bayesnb.io.MIGRATIONS); re-save it with the bayesnb that wrote it, or refit"
            )
        tree = step(tree)
        new = int(tree.attrs.get("format_version", version))
        if new <= version:
            raise RuntimeError(f"the migration from format_version {version} did not upgrade")
        version = new
    return tree


def _check_statistics(path: Path, name: str, data: dict, fitted: dict, n_features: int) -> None:
    """Finite statistics, non-negative counts, widths and indices within their ranges."""
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
    if "n_categories" in data:
        k = data["n_categories"]
        if k.size and (k.min() < 1 or k.max() > _MAX_WIDTH):
            raise ModelFileError(f"{str(path)!r}: n_categories out of range")
        if int(np.sum(k + 1)) != data["category_count"].shape[1]:
            raise ModelFileError(
                f"{str(path)!r}: category_count has {data['category_count'].shape[1]} slots, "
                f"n_categories needs {int(np.sum(k + 1))}"
            )


def _check_parameters(path: Path, est) -> None:
    """The loaded parameters pass the estimator's own checks (as at fit)."""
    from bayesnb.validation import check_alpha, check_class_alpha

    n = est.n_features_in_
    try:
        est._check_params()
        for key in ("alpha", "beta", "alpha_"):
            value = getattr(est, key, None)
            learned = key != "alpha_" and isinstance(value, str) and value == "evidence"
            if value is None or learned:
                continue
            check_alpha(value, n, key)
        if getattr(est, "class_alpha_", None) is not None:
            check_class_alpha(est.class_alpha_)
        est.class_log_prior_  # noqa: B018 - validates class_prior against the classes
    except (TypeError, ValueError) as exc:
        name = type(est).__name__
        raise ModelFileError(f"{str(path)!r} holds invalid {name} parameters: {exc}") from None


def _read(path: Path) -> xr.DataTree:
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    problem = ""
    hook = sys.unraisablehook
    # A damaged file leaves half-built h5netcdf objects whose __del__ fails again; that second
    # failure is noise (the first one is reported below), so it is silenced while they are
    # collected here rather than printed at some later garbage collection.
    sys.unraisablehook = lambda _: None
    try:
        try:
            with xr.open_datatree(path, engine=_ENGINE) as tree:
                _check_declared_sizes(path, tree)  # lazily opened: nothing read yet
                return tree.load()
        except ModelFileError:
            raise
        except Exception as exc:  # h5py/netCDF raise many types for a damaged file
            problem = f"{type(exc).__name__}: {exc}"
        gc.collect()
    finally:
        sys.unraisablehook = hook
    raise ValueError(
        f"{str(path)!r} is not a readable bayesnb model file (truncated or corrupted?): {problem}"
    )


def load(path, expected: str | type | None = None):
    """Load a model written by :func:`save` (``est.save(path)``).

    Parameters
    ----------
    path : str or path-like
    expected : str or estimator class, optional
        Refuse a file holding another model type, e.g. ``expected="MultinomialNB"`` or
        ``expected=bnb.MultinomialNB``.

    Returns
    -------
    estimator
        A fitted estimator whose ``predict_proba`` equals the saved one bitwise.

    Raises
    ------
    ValueError
        For a file of another model type than ``expected``, a newer ``format_version``, a
        checksum mismatch (bit flip) or an unreadable (truncated) file.
    """
    path = Path(path)
    return _from_tree(_read(path), path, expected)


def _from_tree(tree: xr.DataTree, path: Path, expected=None):
    """:func:`load` on a read tree (also each block subtree of a ColumnwiseNB file)."""
    attrs = dict(tree.attrs)
    name = attrs.get("model")
    models = _models()
    if name not in models:
        raise ValueError(f"{str(path)!r} holds model type {name!r}, not one of {sorted(models)}")
    if expected is not None:
        want = expected if isinstance(expected, str) else getattr(expected, "__name__", "")
        if want != name:
            raise ValueError(f"{str(path)!r} holds a {name}, not the expected {want}")
    try:
        version = int(attrs["format_version"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{str(path)!r} has no valid format_version attribute") from exc
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} has format_version {version}, newer than the {FORMAT_VERSION} this "
            f"bayesnb can read (it was written by bayesnb {attrs.get('bayesnb_version')}); "
            "upgrade bayesnb to load it"
        )
    if version < FORMAT_VERSION:
        tree = _migrate(path, tree, version)
        attrs = dict(tree.attrs)
    if "statistics" not in tree.children:
        raise ValueError(f"{str(path)!r} has no 'statistics' group")
    ds = tree["statistics"].to_dataset()
    prior_ds = tree["prior"].to_dataset() if "prior" in tree.children else xr.Dataset()
    if name == "GDA" and set(prior_ds.data_vars) != set(_PRIOR_DIMS):
        raise ValueError(f"{str(path)!r} lacks the resolved GDA prior: not a complete model file")
    try:
        n_features = int(ds.sizes.get("feature", 0))
        params_json, params_obj = _json_attr(path, attrs, "params", n_features)
        fitted_json, fitted = _json_attr(path, attrs, "fitted", n_features)
        arrays = {k: ds[k].values for k in ds.data_vars}
        arrays |= {"class": ds["class"].values, "feature": ds["feature"].values}
        arrays |= {f"prior/{k}": prior_ds[k].values for k in prior_ds.data_vars}
        ok = _checksum(arrays, name, params_json, fitted_json) == str(attrs["checksum"])
    except KeyError as exc:
        raise ValueError(f"{str(path)!r} lacks {exc}: not a complete bayesnb model file") from exc
    except ModelFileError:
        raise
    except (TypeError, ValueError):  # e.g. undecodable text in a damaged attribute
        ok = False
    if not ok:
        raise ValueError(
            f"{str(path)!r} failed its SHA-256 checksum: the statistics or parameters were "
            "changed or corrupted after saving"
        )
    if name == "ColumnwiseNB":
        return _restore_columnwise(tree, path, params_json, fitted_json, arrays)
    cls = models[name]
    try:
        params = {k: _decode(v) for k, v in params_obj.items()}
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{str(path)!r} holds undecodable {name} parameters: {exc}") from None
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        raise ValueError(f"{str(path)!r} holds unknown {name} parameters {sorted(unknown)}")
    try:
        est = _build(path, cls, name, params, fitted, arrays, ds, prior_ds)
    except KeyError as exc:
        raise ValueError(f"{str(path)!r} lacks {exc}: not a complete bayesnb model file") from None
    except ModelFileError:
        raise
    except (TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ValueError(f"{str(path)!r} holds inconsistent statistics: {exc}") from None
    _check_parameters(path, est)
    return est


def _build(path: Path, cls, name: str, params, fitted, arrays, ds, prior_ds):
    """The estimator of a verified file: parameters, labels, statistics, learned values."""
    est = cls(**params)
    est.classes_ = _labels_from_file(arrays["class"], fitted["label_dtype"])
    est.n_features_in_ = int(fitted["n_features_in"])
    if fitted["feature_names"]:
        est.feature_names_in_ = np.array([str(f) for f in arrays["feature"]], dtype=object)
    data = {k: np.array(v, copy=True) for k, v in arrays.items() if k in ds.data_vars}
    _check_statistics(path, name, data, fitted, len(arrays["feature"]))
    prior = {k: np.asarray(prior_ds[k].values) for k in prior_ds.data_vars}
    _restore(est, name, data, fitted, prior)
    if fitted["alpha_"] is not None:
        est.alpha_ = _decode(fitted["alpha_"])
    if fitted["class_alpha_"] is not None:
        est.class_alpha_ = _decode(fitted["class_alpha_"])
    est._tables = {}
    return est


# -- ColumnwiseNB: the class statistics at the root, one complete block file per block --------
# Layout: root attrs and ``statistics`` (``class_count``) as for any model; ``blocks/<name>``
# holds the block's own file tree (attrs with its checksum, ``statistics``, ``prior``). The
# root ``fitted`` JSON records every block's column positions and checksum, so the root
# checksum covers the blocks too.
def _encode_columns(columns, positions: np.ndarray, names):
    """A block's column selection as JSON data; a callable is stored as what it selected."""
    if callable(columns):
        if names is not None:
            return [str(names[j]) for j in positions]
        return [int(j) for j in positions]
    if isinstance(columns, slice):
        return {"__slice__": [_encode(v) for v in (columns.start, columns.stop, columns.step)]}
    return _encode(columns)


def _decode_columns(value):
    if isinstance(value, dict) and set(value) == {"__slice__"}:
        return slice(*value["__slice__"])
    return _decode(value)


def _columnwise_to_datatree(est) -> xr.DataTree:
    check_fitted(est)
    spec = est._spec()
    names, features = _feature_coords(est)
    label_dtype, stored_classes = _class_coords(est)
    subtrees, blocks, entries = {}, [], []
    form = "dict" if isinstance(est.estimators, dict) else "list"
    for (name, unfitted, columns), (_, block, positions) in zip(spec, est.estimators_, strict=True):
        sub = _to_datatree(block)
        subtrees[name] = sub
        blocks.append(
            {"columns": [int(j) for j in positions], "checksum": str(sub.attrs["checksum"])}
        )
        shorthand = form == "dict" and not isinstance(est.estimators[name], tuple)
        entries.append(
            {
                "name": name,
                "model": _model_name(unfitted),
                "params": {k: _encode(v) for k, v in unfitted.get_params(deep=False).items()},
                "columns": None if shorthand else _encode_columns(columns, positions, names),
            }
        )
    params = {k: _encode(v) for k, v in est.get_params(deep=False).items() if k != "estimators"}
    params["estimators"] = {"form": form, "blocks": entries}
    params_json = json.dumps(params, sort_keys=True)
    fitted = {
        "class_alpha_": _encode(getattr(est, "class_alpha_", None)),
        "label_dtype": label_dtype,
        "feature_names": names is not None,
        "n_features_in": int(est.n_features_in_),
        "blocks": blocks,
        "own_estimates": list(est._own_estimates),
        "remainder": [int(j) for j in est.remainder_],
    }
    fitted_json = json.dumps(fitted, sort_keys=True)
    arrays = {"class_count": np.asarray(est.class_count_)}
    arrays |= {"class": stored_classes, "feature": features}
    root = _root_node(type(est).__name__, params_json, fitted_json, arrays)
    nodes = {
        "/": root,
        "/statistics": xr.Dataset(
            {"class_count": (("class",), np.asarray(est.class_count_))},
            coords={"class": stored_classes, "feature": features},
        ),
    }
    for block_name, sub in subtrees.items():
        for node in sub.subtree:
            nodes[f"/blocks/{block_name}{node.path}".rstrip("/")] = node.to_dataset()
    return xr.DataTree.from_dict(nodes)


def _restore_columnwise(tree, path: Path, params_json: str, fitted_json: str, arrays: dict):
    """A fitted ColumnwiseNB from its verified root and its block subtrees (each verified)."""
    from sklearn.utils import Bunch

    from bayesnb.columnwise import ColumnwiseNB

    where = repr(str(path))
    params = json.loads(params_json)
    fitted = json.loads(fitted_json)
    try:
        spec = params.pop("estimators")
        entries, form = spec["blocks"], spec["form"]
        block_fits = fitted["blocks"]
        if len(entries) != len(block_fits) or form not in ("list", "dict"):
            raise ValueError("block lists disagree")
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where} holds an inconsistent ColumnwiseNB block spec: {exc}") from exc
    unknown = set(params) - set(ColumnwiseNB([]).get_params(deep=False))
    if unknown:
        raise ValueError(f"{where} holds unknown ColumnwiseNB parameters {sorted(unknown)}")
    models = _models()
    estimators, fitted_blocks = [], []
    for entry, fit in zip(entries, block_fits, strict=True):
        name, model = entry["name"], entry["model"]
        if model not in models or model == "ColumnwiseNB":
            raise ValueError(f"{where}: block {name!r} has unsupported model type {model!r}")
        if "blocks" not in tree.children or name not in tree["blocks"].children:
            raise ValueError(f"{where} lacks the group of block {name!r}")
        node = tree["blocks"][name]
        if str(node.attrs.get("checksum")) != fit["checksum"]:
            raise ValueError(
                f"{where} failed its SHA-256 checksum: block {name!r} was changed or "
                "corrupted after saving"
            )
        block = _from_tree(node, path, model)
        unfitted = models[model](**{k: _decode(v) for k, v in entry["params"].items()})
        columns = None if entry["columns"] is None else _decode_columns(entry["columns"])
        estimators.append((name, unfitted, columns))
        fitted_blocks.append((name, block, np.asarray(fit["columns"], dtype=np.intp)))
    if form == "dict":
        spec_param = {n: (e if c is None else (e, c)) for n, e, c in estimators}
    else:
        spec_param = estimators
    est = ColumnwiseNB(spec_param, **{k: _decode(v) for k, v in params.items()})
    est.classes_ = _labels_from_file(arrays["class"], fitted["label_dtype"])
    est.n_features_in_ = int(fitted["n_features_in"])
    if fitted["feature_names"]:
        est.feature_names_in_ = np.array([str(f) for f in arrays["feature"]], dtype=object)
    est.class_count_ = np.array(arrays["class_count"], dtype=np.float64, copy=True)
    if fitted["class_alpha_"] is not None:
        est.class_alpha_ = _decode(fitted["class_alpha_"])
    est.estimators_ = fitted_blocks
    est.named_estimators_ = Bunch(**{n: b for n, b, _ in fitted_blocks})
    est.remainder_ = np.asarray(fitted["remainder"], dtype=np.intp)
    est._own_estimates = list(fitted["own_estimates"])
    est._tables = {}
    return est
