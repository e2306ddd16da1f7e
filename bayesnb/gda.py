"""The old import path of :mod:`bayesnb.families.gda.estimator`."""

from bayesnb.families.gda.estimator import GDA

__all__ = ["GDA"]
