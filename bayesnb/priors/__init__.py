"""Priors: the conjugate prior families and their hyperparameters.

Discrete models use :class:`Beta` (Bernoulli features) and :class:`Dirichlet` (multinomial and
categorical features, and the class prior); GDA uses the Normal-Inverse-Wishart family in
:mod:`bayesnb.priors.gaussian`.
"""

from bayesnb.priors.discrete import Beta, Dirichlet
from bayesnb.priors.gaussian import NormalInverseWishart

__all__ = ["Beta", "Dirichlet", "NormalInverseWishart"]
