"""bayesnb: generative classifiers done the Bayesian way.

Naive Bayes event models (Bernoulli, multinomial, categorical) and Gaussian discriminant
analysis, each fitted from sufficient statistics under a conjugate prior and scored by its
MLE, MAP, posterior mean or full posterior predictive.

Every public name and submodule is imported on first use (PEP 562), so ``import bayesnb`` (and
``bayesnb --help``) loads neither scikit-learn nor PyMC; ``bayesnb.io``, ``bayesnb.report``
and the other submodules of the API reference are attributes without an explicit import.
"""

from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bayesnb")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

# public name -> the module that defines it (imported when the name is first read)
_NAMES = {
    "BernoulliNB": "bayesnb.families.bernoulli.estimator",
    "CategoricalNB": "bayesnb.families.categorical.estimator",
    "ColumnwiseNB": "bayesnb.families.columnwise.estimator",
    "DirichletCompoundNB": "bayesnb.families.dcm.estimator",
    "GDA": "bayesnb.families.gda.estimator",
    "MultinomialNB": "bayesnb.families.multinomial.estimator",
    "PoissonNB": "bayesnb.families.poisson.estimator",
    "SemiSupervisedNB": "bayesnb.semisupervised",
    "compare": "bayesnb.comparison",
    "final_estimator": "bayesnb.pipeline",
    "learning_curve": "bayesnb.curves",
    "most_informative_features": "bayesnb.informative",
}
# the submodules of the API reference, attributes of the package once read
_SUBMODULES = (
    "active",
    "columns",
    "comparison",
    "curves",
    "datasets",
    "distributed",
    "draws",
    "evidence",
    "generate",
    "inference",
    "io",
    "loo",
    "model_selection",
    "pipeline",
    "posterior",
    "priors",
    "report",
    "semisupervised",
    "streaming",
    "testing",
    "uncertainty",
)


def load(path, expected=None):
    """Load a model saved with ``est.save(path)``; see :func:`bayesnb.io.load`."""
    from bayesnb.io import load as _load  # lazy: xarray/h5netcdf only when loading

    return _load(path, expected=expected)


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    elif name in _SUBMODULES or importlib.util.find_spec(f"bayesnb.{name}") is not None:
        value = importlib.import_module(f"bayesnb.{name}")  # any submodule, as once imported
    else:
        raise AttributeError(f"module 'bayesnb' has no attribute {name!r}")
    globals()[name] = value  # read once: later reads are plain attribute lookups
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBMODULES))


__all__ = [
    "GDA",
    "BernoulliNB",
    "CategoricalNB",
    "ColumnwiseNB",
    "DirichletCompoundNB",
    "MultinomialNB",
    "PoissonNB",
    "SemiSupervisedNB",
    "__version__",
    "compare",
    "datasets",
    "final_estimator",
    "learning_curve",
    "load",
    "model_selection",
    "most_informative_features",
    "report",
]
