"""Posterior: prior hyperparameters + sufficient statistics -> the conjugate posterior.

Each posterior object keeps its prior and its statistics (not only their sum, so the MLE of
tiny counts stays exact under huge pseudo-counts) and turns them into the four estimates of
``estimate=`` (mle, map, mean, bayes) as log-probability tables.
"""

from bayesnb.posterior.discrete import BetaPosterior, DirichletPosterior
from bayesnb.posterior.gamma import GammaPosterior
from bayesnb.posterior.gaussian import NormalInverseWishartPosterior

__all__ = ["BetaPosterior", "DirichletPosterior", "GammaPosterior", "NormalInverseWishartPosterior"]
