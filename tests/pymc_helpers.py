"""Helpers shared by the NUTS test files (test_pymc.py, test_pymc_gda.py, ...)."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np

from bayesnb.inference import SamplingWarning, fit_pymc

# 4 chains × 1,000 draws: with 2 × 500, R-hat exceeds 1.01 on about a third of seeds.
DRAWS, TUNE, CHAINS = 1000, 1000, 4


class LazyFits(dict):
    """Fits made on first use by ``make(key)``, for a session fixture holding several: a
    pytest-xdist worker compiles and samples only the models its own tests ask for."""

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, key):
        self[key] = value = self._make(key)
        return value


def fit_recording_warnings(est, X, y, **kw):
    """fit_pymc recording (not raising) SamplingWarnings, so a test can assert there were none."""
    kw = {
        "draws": DRAWS,
        "tune": TUNE,
        "chains": CHAINS,
        "random_seed": 7,
        "progressbar": False,
    } | kw
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        dt = fit_pymc(est, X, y, **kw)
    return dt, [w for w in caught if issubclass(w.category, SamplingWarning)]


def mcse(dt, var: str, method: str = "mean") -> np.ndarray:
    """Monte Carlo standard error of the posterior mean (``method="sd"``: sd) of ``var``
    (NaN for constant cells)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return az.mcse(dt["posterior"].to_dataset()[[var]], method=method)[var].values


def rhat(dt, var: str) -> np.ndarray:
    """R-hat of ``var`` (NaN for constant cells, e.g. the diagonal model's zeros)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return az.rhat(dt["posterior"].to_dataset()[[var]])[var].values


def evaluate(model, var, point) -> np.ndarray:
    """``var`` (a variable or its name) at ``point`` (values of the free variables)."""
    var = model[var] if isinstance(var, str) else var
    [out] = model.replace_rvs_by_values([var])  # compile_fn alone would draw the RVs
    f = model.compile_fn(
        out, inputs=model.value_vars, on_unused_input="ignore", mode="FAST_COMPILE"
    )
    return f(point)
