"""bayesnb: generative classifiers done the Bayesian way.

Naive Bayes event models (Bernoulli, multinomial, categorical) and Gaussian discriminant
analysis, each fitted from sufficient statistics under a conjugate prior and scored by its
MLE, MAP, posterior mean or full posterior predictive.
"""

from importlib.metadata import PackageNotFoundError, version

from bayesnb import datasets
from bayesnb.compare import compare
from bayesnb.families.bernoulli.estimator import BernoulliNB
from bayesnb.families.categorical.estimator import CategoricalNB
from bayesnb.families.columnwise.estimator import ColumnwiseNB
from bayesnb.families.dcm.estimator import DirichletCompoundNB
from bayesnb.families.gda.estimator import GDA
from bayesnb.families.multinomial.estimator import MultinomialNB
from bayesnb.families.poisson.estimator import PoissonNB
from bayesnb.informative import most_informative_features
from bayesnb.learning_curve import learning_curve
from bayesnb.pipeline import final_estimator

try:
    __version__ = version("bayesnb")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"


def load(path, expected=None):
    """Load a model saved with ``est.save(path)``; see :func:`bayesnb.io.load`."""
    from bayesnb.io import load as _load  # lazy: xarray/h5netcdf only when loading

    return _load(path, expected=expected)


def __getattr__(name: str):
    # bayesnb.report imports matplotlib and ArviZ: loaded on first use, not with the package
    # (bayesnb.model_selection too, so that plain scoring imports nothing it does not use).
    if name in ("report", "model_selection"):
        import importlib

        return importlib.import_module(f"bayesnb.{name}")
    raise AttributeError(f"module 'bayesnb' has no attribute {name!r}")


__all__ = [
    "GDA",
    "BernoulliNB",
    "CategoricalNB",
    "ColumnwiseNB",
    "DirichletCompoundNB",
    "MultinomialNB",
    "PoissonNB",
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
