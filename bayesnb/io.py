"""I/O: a fitted estimator <-> one netCDF file holding a DataTree (never pickle).

File layout (engine h5netcdf):

- root attrs: ``model`` (class name), ``format_version`` (int), ``bayesnb_version``,
  ``params`` (the constructor parameters as JSON), ``fitted`` (learned scalars and bookkeeping
  as JSON: ``alpha_``, ``class_alpha_``, the label dtype, ...) and ``checksum`` (SHA-256 of the
  statistics arrays, their coordinates and the two JSON strings);
- group ``statistics``: the sufficient statistics with coordinates ``class`` (the labels in
  their own dtype: ints stay ints, strings stay strings) and ``feature`` (feature names):
  ``class_count (class)``; ``feature_count (class, feature)`` for the Bernoulli and
  multinomial models; the multinomial length histogram ``length_count_`` as COO triplets
  ``length_class, length_value, length_weight (length_entry)``; for the categorical model
  ``category_count (class, slot)`` (the concatenated category axis) and
  ``n_categories (feature)``; for GDA the class means as offsets from an origin,
  ``mean_offset (class, feature)`` and ``shift (feature)``, and the centred within-class
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
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import xarray as xr

from bayesnb.validation import check_fitted

__all__ = ["FORMAT_VERSION", "load", "save"]

FORMAT_VERSION = 1
_ENGINE = "h5netcdf"


# -- dispatch (the one place per module that knows the estimator types) ----------------------
def _models() -> dict[str, type]:
    from bayesnb.gda import GDA
    from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

    return {cls.__name__: cls for cls in (BernoulliNB, MultinomialNB, CategoricalNB, GDA)}


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
    if name in ("BernoulliNB", "MultinomialNB"):
        stats["feature_count"] = (("class", "feature"), est.feature_count_)
    if name == "MultinomialNB":
        coo = est.length_count_.tocoo()
        stats["length_class"] = (("length_entry",), coo.row.astype(np.int64))
        stats["length_value"] = (("length_entry",), coo.col.astype(np.int64))
        stats["length_weight"] = (("length_entry",), coo.data.astype(np.float64))
    if name == "CategoricalNB":
        stats["category_count"] = (("class", "slot"), est._flat_count)
        stats["n_categories"] = (("feature",), np.asarray(est.n_categories_, dtype=np.int64))
    if name == "GDA":
        st = est._stats
        stats["mean_offset"] = (("class", "feature"), st.offset)
        stats["shift"] = (("feature",), st.shift)
        stats["scatter"] = (_SCATTER_DIMS[st.covariance], st.scatter)
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
    est._stats = GaussianStats(count, offset, data["scatter"], covariance, data["shift"])
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
    if name in ("BernoulliNB", "MultinomialNB"):
        est.feature_count_ = data["feature_count"]
    if name == "MultinomialNB":
        est.length_count_ = sp.csr_matrix(
            (data["length_weight"], (data["length_class"], data["length_value"])),
            shape=(data["class_count"].shape[0], int(fitted["length_width"])),
        )
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
    from bayesnb import __version__

    name = _model_name(est)
    check_fitted(est)
    stats = _statistics(est, name)
    names = getattr(est, "feature_names_in_", None)
    features = (
        np.array([str(f) for f in names])
        if names is not None
        else np.array([f"x{j}" for j in range(est.n_features_in_)])
    )
    classes = np.asarray(est.classes_)
    label_dtype = _label_dtype(classes)
    fitted = {
        "alpha_": _encode(getattr(est, "alpha_", None)),
        "class_alpha_": _encode(getattr(est, "class_alpha_", None)),
        "label_dtype": label_dtype,
        "feature_names": names is not None,
        "n_features_in": int(est.n_features_in_),
    }
    if name == "MultinomialNB":
        fitted["length_width"] = int(est.length_count_.shape[1])
    if name == "GDA":
        fitted["covariance_type"] = est._stats.covariance
    params_json = json.dumps(
        {k: _encode(v) for k, v in est.get_params(deep=False).items()}, sort_keys=True
    )
    fitted_json = json.dumps(fitted, sort_keys=True)
    stored_classes = classes.astype(str) if label_dtype == "object-str" else classes
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
    root = xr.Dataset(
        attrs={
            "model": name,
            "format_version": FORMAT_VERSION,
            "bayesnb_version": __version__,
            "params": params_json,
            "fitted": fitted_json,
            "checksum": _checksum(arrays, name, params_json, fitted_json),
        }
    )
    return xr.DataTree.from_dict({"/": root, **groups})


def _write_netcdf(tree: xr.DataTree, path: str) -> None:
    """Write ``tree`` to ``path`` and flush it to disk (the one step a test can break)."""
    tree.to_netcdf(path, engine=_ENGINE)
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def save(est, path) -> None:
    """Save a fitted estimator as one netCDF file (atomic replace, no pickle).

    Parameters
    ----------
    est : fitted BernoulliNB, MultinomialNB, CategoricalNB or GDA
    path : str or path-like
        Target file; its folder must exist. An existing file is replaced only once the new
        one is completely written.
    """
    tree = _to_datatree(est)
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        _write_netcdf(tree, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- load --------------------------------------------------------------------------------------
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
                return tree.load()
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
    tree = _read(path)
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
    if "statistics" not in tree.children:
        raise ValueError(f"{str(path)!r} has no 'statistics' group")
    ds = tree["statistics"].to_dataset()
    prior_ds = tree["prior"].to_dataset() if "prior" in tree.children else xr.Dataset()
    if name == "GDA" and set(prior_ds.data_vars) != set(_PRIOR_DIMS):
        raise ValueError(f"{str(path)!r} lacks the resolved GDA prior: not a complete model file")
    try:
        params_json, fitted_json = str(attrs["params"]), str(attrs["fitted"])
        arrays = {k: ds[k].values for k in ds.data_vars}
        arrays |= {"class": ds["class"].values, "feature": ds["feature"].values}
        arrays |= {f"prior/{k}": prior_ds[k].values for k in prior_ds.data_vars}
        ok = _checksum(arrays, name, params_json, fitted_json) == str(attrs["checksum"])
    except KeyError as exc:
        raise ValueError(f"{str(path)!r} lacks {exc}: not a complete bayesnb model file") from exc
    except (TypeError, ValueError):  # e.g. undecodable text in a damaged attribute
        ok = False
    if not ok:
        raise ValueError(
            f"{str(path)!r} failed its SHA-256 checksum: the statistics or parameters were "
            "changed or corrupted after saving"
        )
    cls = models[name]
    params = {k: _decode(v) for k, v in json.loads(params_json).items()}
    unknown = set(params) - set(cls().get_params(deep=False))
    if unknown:
        raise ValueError(f"{str(path)!r} holds unknown {name} parameters {sorted(unknown)}")
    fitted = json.loads(fitted_json)
    est = cls(**params)
    est.classes_ = _labels_from_file(arrays["class"], fitted["label_dtype"])
    est.n_features_in_ = int(fitted["n_features_in"])
    if fitted["feature_names"]:
        est.feature_names_in_ = np.array([str(f) for f in arrays["feature"]], dtype=object)
    data = {k: np.array(v, copy=True) for k, v in arrays.items() if k in ds.data_vars}
    prior = {k: np.asarray(prior_ds[k].values) for k in prior_ds.data_vars}
    _restore(est, name, data, fitted, prior)
    if fitted["alpha_"] is not None:
        est.alpha_ = _decode(fitted["alpha_"])
    if fitted["class_alpha_"] is not None:
        est.class_alpha_ = _decode(fitted["class_alpha_"])
    est._tables = {}
    return est
