"""The old import path of :mod:`bayesnb.families.poisson.estimator`."""

from bayesnb.families.poisson.estimator import PoissonNB, check_gamma_parameter

__all__ = ["PoissonNB", "check_gamma_parameter"]
