"""A fitted estimator <-> the DataTree of its model file, through the family protocol.

The generic layout (root attributes, ``statistics`` with ``class_count`` and the ``class`` and
``feature`` coordinates, the checksum) is built here; what a family stores besides it comes
from its ``file_*`` methods and goes back through ``read_groups``, ``decode_params``,
``restore_statistics`` and ``restore_fitted`` (see :class:`bayesnb.families.Family`). A family
sees the file through :class:`ModelWriter` (saving) and :class:`ModelFile` (loading).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

from bayesnb.families import Family, family_of, get, has_family, names
from bayesnb.io.checks import (
    ModelFileError,
    ModelFileWarning,
    check_parameters,
    check_statistics,
    json_attr,
    migrate,
)
from bayesnb.io.codec import (
    checksum,
    class_coords,
    decode,
    encode,
    feature_coords,
    labels_from_file,
)
from bayesnb.validation import check_fitted

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # bayesnb/

__all__ = ["ModelFile", "ModelWriter", "from_tree", "loadable_models", "to_tree"]

# The records of how a model was made: ``fitted`` JSON key -> estimator attribute, saved and
# restored only for a model that has the attribute (the columns' vectorizer,
# :mod:`bayesnb.columns`; the unlabelled documents of an EM fit, :mod:`bayesnb.cli.unlabelled`).
_RECORDS = {"vectorizer": "vectorizer_params_", "semisupervised": "semisupervised_"}


def loadable_models() -> dict[str, Family]:
    """Model type (the estimator's class name, as in the ``model`` attribute) -> family."""
    out = {}
    for name in names():
        family = get(name)
        if family.estimator is not None:
            out[family.estimator.__name__] = family
    return out


def saved_family(est) -> Family:
    """The family of an estimator that can be saved (exactly a registered estimator class)."""
    if has_family(est):
        family = family_of(est, "bayesnb.io")
        if type(est) is family.estimator:
            return family
    raise TypeError(
        f"{type(est).__name__} cannot be saved by bayesnb.io; supported estimators are "
        f"{sorted(loadable_models())}"
    )


# -- save --------------------------------------------------------------------------------------
class ModelWriter:
    """The model file being written, as the ``file_*`` methods of a family see it.

    ``subtrees`` holds what :meth:`~bayesnb.families.Family.file_subtrees` returned, before
    ``file_fitted`` and ``file_params`` are asked (a composite records their checksums).
    """

    def __init__(self, version: int):
        self.version = version
        self.subtrees: dict[str, xr.DataTree] = {}

    @staticmethod
    def encode(value):
        """A parameter value as JSON data (see :func:`bayesnb.io.codec.encode`)."""
        return encode(value)

    def tree(self, est) -> xr.DataTree:
        """The complete model tree of another fitted estimator (a block)."""
        return to_tree(est, self.version)

    def model_name(self, est) -> str:
        """The ``model`` type name of an estimator (TypeError for one that cannot be saved)."""
        return saved_family(est).estimator.__name__

    def params(self, est) -> dict:
        """The constructor parameters of another estimator as its family stores them."""
        return saved_family(est).file_params(est, self)


def to_tree(est, version: int, steps: list[str] | None = None) -> xr.DataTree:
    """The DataTree of a fitted estimator, written with ``format_version`` ``version``;
    ``steps``: the names of the text pipeline it was saved from (``vectorizer``, estimator)."""
    family = saved_family(est)
    check_fitted(est)
    stats = {"class_count": (("class",), est.class_count_)} | family.file_statistics(est)
    names_in, features = feature_coords(est)
    label_dtype, classes = class_coords(est)
    out = ModelWriter(version)
    out.subtrees = family.file_subtrees(est, out)
    fitted = {
        "class_alpha_": encode(getattr(est, "class_alpha_", None)),
        "label_dtype": label_dtype,
        "feature_names": names_in is not None,
        "n_features_in": int(est.n_features_in_),
    } | family.file_fitted(est, out)
    if est.get_params(deep=False).get("temperature") == "loo":  # learned: only then
        fitted["temperature_"] = encode(est.temperature_)
    if getattr(est, "_feature_names_given", False):
        # Names given by hand (a vocabulary): input without column names is expected at
        # predict time. Written only then, so other files stay as they were.
        fitted["feature_names_given"] = True
    for key, attr in _RECORDS.items():
        record = getattr(est, attr, None)
        if record is not None:  # only then: files of models without it are unchanged
            fitted[key] = {str(k): encode(v) for k, v in dict(record).items()}
    if steps is not None:  # only then, as above
        fitted["pipeline"] = list(steps)
    params_json = json.dumps(family.file_params(est, out), sort_keys=True)
    fitted_json = json.dumps(fitted, sort_keys=True)
    coords = {"class": classes, "feature": features}
    arrays = {k: np.asarray(v) for k, (_, v) in stats.items()} | coords
    nodes = {
        "/statistics": xr.Dataset(
            {k: (dims, np.asarray(v)) for k, (dims, v) in stats.items()}, coords=coords
        )
    }
    for group, content in family.file_groups(est).items():
        arrays |= {f"{group}/{k}": np.asarray(v) for k, (_, v) in content.items()}
        nodes[f"/{group}"] = xr.Dataset({k: (d, np.asarray(v)) for k, (d, v) in content.items()})
    for where, sub in out.subtrees.items():
        for node in sub.subtree:
            nodes[f"/{where}{node.path}".rstrip("/")] = node.to_dataset()
    name = family.estimator.__name__
    root = _root_node(name, params_json, fitted_json, arrays, version)
    return xr.DataTree.from_dict({"/": root, **nodes})


def _root_node(name: str, params_json: str, fitted_json: str, arrays: dict, version: int):
    """The root attributes of a saved model, with the checksum over ``arrays`` and the JSON."""
    from bayesnb import __version__

    return xr.Dataset(
        attrs={
            "model": name,
            "format_version": version,
            "bayesnb_version": __version__,
            "params": params_json,
            "fitted": fitted_json,
            "checksum": checksum(arrays, name, params_json, fitted_json),
        }
    )


# -- load --------------------------------------------------------------------------------------
class ModelFile:
    """A verified model file (or a block's subtree) as a family's loading methods see it.

    ``where`` is the quoted path for error messages; ``fitted`` the decoded ``fitted`` JSON
    (set once the checksum holds), ``statistics`` the checked copies of the ``statistics``
    arrays (set before ``restore_statistics``), ``groups`` what ``read_groups`` returned.
    """

    def __init__(self, path: Path, tree: xr.DataTree, family: Family, current: int):
        self.path = path
        self.where = repr(str(path))
        self.tree = tree
        self.family = family
        self.current = current
        self.fitted: dict = {}
        self.statistics: dict[str, np.ndarray] = {}
        self.groups: dict[str, dict[str, np.ndarray]] = {}

    @staticmethod
    def decode(value):
        """A parameter value from JSON data (see :func:`bayesnb.io.codec.decode`)."""
        return decode(value)

    @staticmethod
    def error(message: str) -> ModelFileError:
        """The error refusing the file (raise it; the message is shown as is)."""
        return ModelFileError(message)

    @staticmethod
    def warn(message: str) -> None:
        """Say something about a file that loads (a :class:`ModelFileWarning`)."""
        # At the caller of bayesnb.load, however deep the loading code that warns.
        warnings.warn(message, ModelFileWarning, skip_file_prefixes=(_PACKAGE,))

    @staticmethod
    def family_named(model) -> Family | None:
        """The family of model type ``model`` (a class name), None for an unknown one."""
        return loadable_models().get(model)

    def estimator(self, family: Family, params: dict):
        """A fresh estimator of ``family`` from a ``params`` JSON object (a block's)."""
        return family.estimator(**family.decode_params(params, self))

    def load(self, where: str, expected):
        """The fitted estimator of the complete model tree at ``where`` inside this file."""
        try:
            return from_tree(self.tree[where], self.path, expected, self.current)
        except ModelFileError:
            raise
        except ValueError as exc:  # the block's refusal is the file's, with its message
            raise ModelFileError(str(exc)) from exc


def from_tree(tree: xr.DataTree, path: Path, expected, current: int):
    """The estimator of a read tree (format ``current``); each block subtree the same way."""
    where = repr(str(path))
    attrs = dict(tree.attrs)
    name = attrs.get("model")
    models = loadable_models()
    if name not in models:
        raise ValueError(f"{where} holds model type {name!r}, not one of {sorted(models)}")
    if expected is not None:
        want = expected if isinstance(expected, str) else getattr(expected, "__name__", "")
        if want != name:
            raise ValueError(f"{where} holds a {name}, not the expected {want}")
    try:
        version = int(attrs["format_version"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where} has no valid format_version attribute") from exc
    if version > current:
        raise ValueError(
            f"{where} has format_version {version}, newer than the {current} this "
            f"bayesnb can read (it was written by bayesnb {attrs.get('bayesnb_version')}); "
            "upgrade bayesnb to load it"
        )
    if version < current:
        tree = migrate(path, tree, version, current)
        attrs = dict(tree.attrs)
    if "statistics" not in tree.children:
        raise ValueError(f"{where} has no 'statistics' group")
    family = models[name]
    file = ModelFile(path, tree, family, current)
    ds = tree["statistics"].to_dataset()
    file.groups = family.read_groups(file)
    try:
        n_features = int(ds.sizes.get("feature", 0))
        params_json, params = json_attr(path, attrs, "params", n_features)
        fitted_json, fitted = json_attr(path, attrs, "fitted", n_features)
        arrays = {k: ds[k].values for k in ds.data_vars}
        arrays |= {"class": ds["class"].values, "feature": ds["feature"].values}
        for group, content in file.groups.items():
            arrays |= {f"{group}/{k}": v for k, v in content.items()}
        ok = checksum(arrays, name, params_json, fitted_json) == str(attrs["checksum"])
    except KeyError as exc:
        raise ValueError(f"{where} lacks {exc}: not a complete bayesnb model file") from exc
    except ModelFileError:
        raise
    except (TypeError, ValueError):  # e.g. undecodable text in a damaged attribute
        ok = False
    if not ok:
        raise ValueError(
            f"{where} failed its SHA-256 checksum: the statistics or parameters were "
            "changed or corrupted after saving"
        )
    file.fitted = fitted
    try:
        kwargs = family.decode_params(params, file)
    except ModelFileError:
        raise
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{where} holds undecodable {name} parameters: {exc}") from None
    unknown = set(kwargs) - set(family.estimator._get_param_names())
    if unknown:
        raise ValueError(f"{where} holds unknown {name} parameters {sorted(unknown)}")
    try:
        est = _build(file, kwargs, arrays, ds)
    except KeyError as exc:
        raise ValueError(f"{where} lacks {exc}: not a complete bayesnb model file") from None
    except ModelFileError:
        raise
    except (TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ValueError(f"{where} holds inconsistent statistics: {exc}") from None
    check_parameters(path, est)
    return est


def _build(file: ModelFile, kwargs: dict, arrays: dict, ds: xr.Dataset):
    """The estimator of a verified file: parameters, labels, statistics, learned values."""
    family, fitted = file.family, file.fitted
    est = family.estimator(**kwargs)
    est.classes_ = labels_from_file(arrays["class"], fitted["label_dtype"])
    est.n_features_in_ = int(fitted["n_features_in"])
    if fitted["feature_names"]:
        est.feature_names_in_ = np.array([str(f) for f in arrays["feature"]], dtype=object)
    file.statistics = {k: np.array(v, copy=True) for k, v in arrays.items() if k in ds.data_vars}
    check_statistics(file.path, file.statistics, fitted, len(arrays["feature"]))
    family.restore_statistics(est, file)
    if fitted["class_alpha_"] is not None:
        est.class_alpha_ = decode(fitted["class_alpha_"])
    family.restore_fitted(est, file)
    if "temperature_" in fitted:
        est.temperature_ = decode(fitted["temperature_"])
    if fitted["feature_names"] and fitted.get("feature_names_given", False):
        # Names given by hand (a composite's blocks too): input without names is expected.
        est._set_feature_names(est.feature_names_in_)
    for key, attr in _RECORDS.items():
        if key in fitted:
            setattr(est, attr, _record(file, key, fitted[key]))
    return est


def _record(file: ModelFile, key: str, value) -> dict:
    """A record of how the model was made: a JSON object of scalars and lists of them (data
    only; its reader decides which entries it accepts)."""
    scalar = (str, bool, int, float, type(None))
    ok = isinstance(value, dict) and all(
        isinstance(v, scalar) or (isinstance(v, list) and all(isinstance(x, scalar) for x in v))
        for v in value.values()
    )
    if not ok:
        raise file.error(f"{file.where}: its {key!r} record is not an object of settings")
    return dict(value)


def pipeline_steps(tree: xr.DataTree, path: Path) -> list[str] | None:
    """The step names of a file saved from a text pipeline (``fitted`` JSON key ``pipeline``),
    None for a file saved from an estimator. Read after :func:`from_tree` verified the file."""
    steps = json.loads(str(tree.attrs["fitted"])).get("pipeline")
    if steps is None:
        return None
    names_ok = isinstance(steps, list) and all(isinstance(n, str) and n for n in steps)
    if not (names_ok and len(steps) == 2 and steps[0] != steps[1]):
        raise ValueError(f"{str(path)!r}: its 'pipeline' record is not two distinct step names")
    return steps
