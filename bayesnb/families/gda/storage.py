"""GDA family methods: statistics in model files.

``statistics``: ``class_count (class)``; the class means as offsets from an origin,
``mean_offset (class, feature)`` and ``shift (feature)``; the centred within-class
``scatter``: ``(feature, feature_bis)`` shared, ``(class, feature, feature_bis)`` per class,
``(class, feature)`` diagonal (:class:`bayesnb.stats.gaussian.GaussianStats`, stored as is,
so no precision is lost to raw sums of squares); with ``missing="ignore"`` and incomplete
rows, ``gaussian_count (class)`` (the complete rows the means and scatter were fitted on).
``fitted`` holds ``covariance_type`` and the learned ``alpha_``.

Group ``prior``: the *resolved* Normal-Inverse-Wishart hyperparameters ``mu0 (feature)``,
``kappa0 ()``, ``psi0 (feature, feature_bis)``, ``nu0 ()`` — the data-scaled defaults as
computed at save time; the root checksum covers them. The ``prior`` parameter is stored in
``params`` as given (tagged ``__niw__``; None stays None: a loaded model that keeps learning
re-resolves its default prior from the grown statistics, as the original would). On load the
stored prior becomes ``prior_``, never a recomputation that could differ in its last bits on
another machine; one derived again from the loaded statistics is only compared with it, and
a gap beyond rounding is a :class:`~bayesnb.io.ModelFileWarning`, not a refusal.
"""

from __future__ import annotations

import numpy as np

from bayesnb.posterior.gaussian import NormalInverseWishartPosterior
from bayesnb.priors.gaussian import NormalInverseWishart
from bayesnb.stats.gaussian import COVARIANCE_TYPES, GaussianStats

__all__ = ["GDAStorage"]

# Dims of the stored scatter, by covariance type.
_SCATTER_DIMS = {
    "shared": ("feature", "feature_bis"),
    "per_class": ("class", "feature", "feature_bis"),
    "diagonal": ("class", "feature"),
}
_PRIOR_DIMS = {"mu0": ("feature",), "kappa0": (), "psi0": ("feature", "feature_bis"), "nu0": ()}
_NIW_FIELDS = ("mu0", "kappa0", "psi0", "nu0")


def _resolved_prior(est) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """The resolved NIW hyperparameters of a fitted GDA as ``name -> (dims, array)``."""
    prior = est.posterior_.prior
    return {
        k: (dims, np.asarray(getattr(prior, k), dtype=np.float64))
        for k, dims in _PRIOR_DIMS.items()
    }


def _encode_prior(value: NormalInverseWishart, out) -> dict:
    # The prior as given (None fields stay None); its fields are numbers and arrays.
    return {"__niw__": {k: out.encode(getattr(value, k)) for k in _NIW_FIELDS}}


def _is_encoded_prior(value) -> bool:
    return isinstance(value, dict) and set(value) == {"__niw__"}


def _decode_prior(value: dict, file) -> NormalInverseWishart:
    fields = value["__niw__"]
    if not isinstance(fields, dict) or set(fields) != set(_NIW_FIELDS):
        raise ValueError(f"unexpected NormalInverseWishart fields in saved parameters: {value!r}")
    try:
        return NormalInverseWishart(**{k: file.decode(v) for k, v in fields.items()})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid NormalInverseWishart prior in saved parameters: {exc}") from exc


class GDAStorage:
    """Family methods of GDA for storage; see :class:`bayesnb.families.Family`."""

    def file_params(self, est, out) -> dict:
        return {
            k: _encode_prior(v, out) if isinstance(v, NormalInverseWishart) else out.encode(v)
            for k, v in est.get_params(deep=False).items()
        }

    def decode_params(self, params: dict, file) -> dict:
        return {
            k: _decode_prior(v, file) if _is_encoded_prior(v) else file.decode(v)
            for k, v in params.items()
        }

    def file_statistics(self, est) -> dict:
        st = est._stats
        stats = {
            "mean_offset": (("class", "feature"), st.offset),
            "shift": (("feature",), st.shift),
            "scatter": (_SCATTER_DIMS[st.covariance], st.scatter),
        }
        if not np.array_equal(st.count, est.class_count_):
            # missing="ignore": means and covariance were fitted on the complete rows only.
            stats["gaussian_count"] = (("class",), st.count)
        return stats

    def file_fitted(self, est, out) -> dict:
        return super().file_fitted(est, out) | {"covariance_type": est._stats.covariance}

    def file_groups(self, est) -> dict:
        return {"prior": _resolved_prior(est)}

    def read_groups(self, file) -> dict:
        tree = file.tree
        prior = tree["prior"].to_dataset() if "prior" in tree.children else None
        if prior is None or set(prior.data_vars) != set(_PRIOR_DIMS):
            raise file.error(
                f"{file.where} lacks the resolved GDA prior: not a complete model file"
            )
        return {"prior": {k: np.asarray(prior[k].values) for k in prior.data_vars}}

    def restore_statistics(self, est, file) -> None:
        data, fitted, prior = file.statistics, file.fitted, file.groups["prior"]
        covariance = fitted.get("covariance_type")
        if covariance not in COVARIANCE_TYPES:
            raise ValueError(f"unexpected GDA covariance type {covariance!r} in the file")
        count, offset = data["class_count"], data["mean_offset"]
        k, d = offset.shape
        want = {"shared": (d, d), "per_class": (k, d, d), "diagonal": (k, d)}[covariance]
        if data["scatter"].shape != want or data["shift"].shape != (d,) or count.shape != (k,):
            raise ValueError(
                f"inconsistent GDA statistics in the file: scatter {data['scatter'].shape} "
                f"(expected {want} for {covariance!r}), shift {data['shift'].shape}, "
                f"class_count {count.shape} for {k} classes × {d} features"
            )
        gaussian_count = data.get("gaussian_count", count)
        if gaussian_count.shape != count.shape:
            raise ValueError(f"inconsistent GDA gaussian_count {gaussian_count.shape} in the file")
        est._set_fitted(
            _stats=GaussianStats(
                gaussian_count.copy(), offset, data["scatter"], covariance, data["shift"]
            ),
            class_count_=count.copy(),
        )
        stored = NormalInverseWishart(
            **{k: float(prior[k]) if k in ("kappa0", "nu0") else prior[k] for k in _NIW_FIELDS}
        )
        _warn_if_rederived_differs(est, stored, file)
        est.prior_ = stored


# The prior this bayesnb derives from the file's statistics is compared with the stored one.
# Across machines they differ in the last bits (summation order, BLAS kernels: ~1e-15
# relative), so a gap above 1e-9 of the quantity's scale means another rule derived the stored
# prior (another bayesnb version, or an edited file). The stored prior is used either way:
# it is the one the saved model predicted with.
_PRIOR_RTOL = 1e-9


def _warn_if_rederived_differs(est, stored: NormalInverseWishart, file) -> None:
    derived = NormalInverseWishartPosterior.from_stats(est.prior, est._stats).prior
    for key in _NIW_FIELDS:
        a, b = np.asarray(getattr(derived, key)), np.asarray(getattr(stored, key))
        if a.shape != b.shape:
            raise file.error(f"{file.where}: the stored GDA prior's {key} has shape {b.shape}")
        gap = np.abs(a - b)
        if np.any(gap > _PRIOR_RTOL * np.max(np.abs(b), initial=0.0)):
            worst = np.unravel_index(np.argmax(gap), b.shape)
            file.warn(
                f"{file.where}: the GDA prior's {key} derived from the file's statistics by this "
                f"bayesnb ({a[worst]!r} at {worst}) differs from the stored one "
                f"({b[worst]!r}); the stored prior is used, so the model predicts as it was "
                "saved (a partial_fit would resolve the prior again from the statistics)"
            )
            return
