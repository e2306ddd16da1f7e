"""bayesnb: generative classifiers done the Bayesian way.

Naive Bayes event models (Bernoulli, multinomial, categorical) and Gaussian discriminant
analysis, each fitted from sufficient statistics under a conjugate prior and scored by its
MLE, MAP, posterior mean or full posterior predictive.
"""

from importlib.metadata import PackageNotFoundError, version

from bayesnb.naive_bayes import BernoulliNB, CategoricalNB, MultinomialNB

try:
    __version__ = version("bayesnb")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["BernoulliNB", "CategoricalNB", "MultinomialNB", "__version__"]
