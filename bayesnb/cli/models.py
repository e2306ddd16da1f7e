"""The models of ``bayesnb fit/compare MODEL[:ESTIMATE]``: the families of the registry.

Every registered family that declares ``cli = True`` is a MODEL under its registry name;
what the command line builds for it, the estimates it computes, whether ``--alpha`` applies
and which data it models are attributes of the family (see the "command line" section of
:class:`bayesnb.families.Family`), so a new family needs no change here.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from bayesnb import families
from bayesnb.cli.errors import DataError, one_line

__all__ = [
    "build_estimator",
    "check_model_data",
    "cli_models",
    "fit_named",
    "models_help",
    "save_model",
]

# How an error names what a family models and what a data set holds.
_NEEDS = {"counts": "counts", "text": "text", "continuous": "continuous features"}
_HOLDS = {"continuous": "continuous measurements"}


def cli_models() -> tuple[str, ...]:
    """The MODEL names, in the registry's order."""
    return tuple(n for n in families.names() if families.get(n).cli)


def models_help() -> str:
    """The MODEL list of ``--help``, each name with its family's note."""
    notes = [(n, families.get(n).cli_help) for n in cli_models()]
    return ", ".join(f"{n} ({note})" if note else n for n, note in notes)


def alpha_models(takes: bool = True) -> str:
    """The MODELs that take ``--alpha`` (with ``takes=False``: that do not), for ``--help``."""
    return ", ".join(n for n in cli_models() if (families.get(n).cli_no_alpha is None) == takes)


def build_estimator(model: str, data, estimate: str | None = "mean", alpha=None, temperature=None):
    """The default configuration of ``model`` with ``estimate`` (None: the model's own),
    ``alpha`` and ``temperature`` when given."""
    family = families.get(model)
    if not family.cli:
        raise family.unsupported("the command line (bayesnb fit/compare/report)")
    from bayesnb.report.data import default_estimator  # the report's configuration of MODEL

    est = default_estimator(model, data)
    if estimate is not None:
        est.set_params(estimate=estimate)
    estimate = est.estimate
    if alpha is not None:
        if family.cli_no_alpha is not None:
            raise DataError(f"--alpha does not apply to {model} ({family.cli_no_alpha})")
        est.set_params(alpha=alpha)
    if temperature is not None:
        est.set_params(temperature=temperature)
    try:
        # A configuration the model refuses (the DCM's "bayes", a MAP without an interior
        # mode) is a usage error, reported before any data is fitted.
        est._check_params()
    except (TypeError, ValueError) as exc:
        raise DataError(f"{model} with estimate={estimate!r}: {one_line(exc)}") from exc
    return est


def check_model_data(model: str, data) -> None:
    """Refuse data of a kind the model does not describe (GDA: measurements; NB: counts)."""
    kinds = families.get(model).data_kinds
    if data.kind in kinds:
        return
    if data.kind == "continuous":
        takers = [n for n in cli_models() if data.kind in families.get(n).data_kinds]
        hint = "use " + " or ".join(takers)
    else:
        hint = "use breast_cancer, wine or iris, or a discrete model"
    raise DataError(
        f"{model} needs {' or '.join(_NEEDS[k] for k in kinds)}; --data {data.name!r} holds "
        f"{_HOLDS.get(data.kind, data.kind)} ({hint})"
    )


def fit_named(est, X, y, feature_names):
    """Fit and record the feature names (the vocabulary for text), so saved files carry them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit(X, y, feature_names=[str(f) for f in feature_names])
    return est


def save_model(est, path: Path) -> None:
    """``est.save(path)``, creating the folder; failures are input errors."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        est.save(path)
    except TypeError as exc:  # bayesnb.io does not know this model type
        raise DataError(f"cannot save {type(est).__name__}: {one_line(exc)}") from exc
    except OSError as exc:
        raise DataError(f"cannot write --out {str(path)!r}: {one_line(exc)}") from exc
