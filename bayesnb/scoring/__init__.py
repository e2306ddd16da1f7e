"""Scoring: estimates or posterior predictives -> per-class log-likelihoods of new data.

Discrete event models in :mod:`bayesnb.scoring.discrete`, Gaussian ones in
:mod:`bayesnb.scoring.gaussian`; the log-space normalisation over classes in
:mod:`bayesnb.scoring.softmax` (re-exported here), the row-block products in
:mod:`bayesnb.scoring.blocks`.
"""

from bayesnb.scoring.discrete import (
    bernoulli_jll,
    categorical_jll,
    dcm_jll,
    dot_log_table,
    normalize_log_proba,
    normalize_proba,
    polya_jll,
)
from bayesnb.scoring.gaussian import gaussian_jll, student_t_jll
from bayesnb.scoring.poisson import log_factorial_rows, negbin_jll, poisson_jll

__all__ = [
    "bernoulli_jll",
    "categorical_jll",
    "dcm_jll",
    "dot_log_table",
    "gaussian_jll",
    "log_factorial_rows",
    "negbin_jll",
    "normalize_log_proba",
    "normalize_proba",
    "poisson_jll",
    "polya_jll",
    "student_t_jll",
]
