"""Shared pytest configuration: the hypothesis profiles of the property tests.

- ``ci`` (the default): fixed and deterministic (``derandomize=True``, no example database),
  15 examples per test (save/load: 5), no deadline (two shared CI cores make timings noisy),
  and a reproduction blob on failure. 35 configurations (7 models, GDA x 3 covariances, every
  estimate each computes) x 10 properties (7 + 3 for ``missing="ignore"``): 315 tests,
  ~4,600 generated cases, about 70 s on two shared cores.
- ``long`` (``HYPOTHESIS_PROFILE=long``, ``make fuzz``): 500 random examples per test, and
  tests/strategies.py draws larger shapes (hundreds of features).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=15,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    # Generated data sets are arrays of up to a few thousand entries by design.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=500,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
