"""Shared pytest configuration: the hypothesis profiles, and test groups for pytest-xdist.

The hypothesis profiles:

- ``ci`` (the default): fixed and deterministic (``derandomize=True``, no example database),
  15 examples per test (save/load: 5), no deadline (two shared CI cores make timings noisy),
  and a reproduction blob on failure. 35 configurations (7 models, GDA x 3 covariances, every
  estimate each computes) x 10 properties (7 + 3 for ``missing="ignore"``): 315 tests,
  ~4,600 generated cases, about 70 s on two shared cores.
- ``long`` (``HYPOTHESIS_PROFILE=long``, ``make fuzz``): 500 random examples per test, and
  tests/strategies.py draws larger shapes (hundreds of features).

Test groups: ``make test`` runs the suite on every core (``pytest -n auto``). A session- or
module-scoped fixture is computed once per worker that runs a test using it; the NUTS fits,
the report and the Dask cluster cost seconds to minutes, so every test that uses one is put in
an ``xdist_group`` with every other test sharing any of its expensive fixtures, and under
``--dist loadgroup`` each group runs on one worker. (``make test`` uses ``--dist worksteal``,
which ignores the groups: it measured faster on two shared cores, as a late large group left
the other worker idle.) Function-scoped fixtures and the cheap wider-scoped ones
(``CHEAP_SHARED_FIXTURES``) do not group tests.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# No C backend for PyTensor (read when pytensor is first imported, so set before any test
# module imports it; subprocesses inherit it). The FAST_COMPILE functions of the tests
# (log-densities, initial points, predictive draws) would otherwise compile the C code of their
# inner graphs, one C compiler run per op on the empty cache of a fresh clone; their Python
# implementations compute the same values. NUTS compiles without it already (bayesnb.compiled).
_flags = os.environ.get("PYTENSOR_FLAGS", "")
if "cxx" not in _flags:
    os.environ["PYTENSOR_FLAGS"] = f"{_flags},cxx=" if _flags else "cxx="

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


# Session/module fixtures of the test files too cheap to pin their tests to one worker.
CHEAP_SHARED_FIXTURES = frozenset({"model_dir"})


def _shared_fixtures(item: pytest.Item) -> list[str]:
    """The expensive session- or module-scoped fixtures of the test files that ``item`` uses,
    directly or through other fixtures, as ``<defining file>::<name>``."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    found = []
    for name, defs in info.name2fixturedefs.items():
        fixture = defs[-1] if defs else None
        if (
            fixture is not None
            and fixture.baseid.startswith("tests")  # not pytest's or a plugin's
            and fixture.scope in ("session", "module")
            and name not in CHEAP_SHARED_FIXTURES
        ):
            found.append(f"{fixture.baseid}::{name}")
    return sorted(found)


@pytest.hookimpl(wrapper=True)  # marks before pytest-xdist reads them, ids checked after
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    # Union-find over fixtures: tests sharing any expensive fixture land in one group, named
    # after its alphabetically first fixture (e.g. "tests/test_pymc.py::fits").
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    uses = {item: _shared_fixtures(item) for item in items}
    for names in uses.values():
        for other in names[1:]:
            a, b = root(names[0]), root(other)
            parent[max(a, b)] = min(a, b)
    groups = {item: root(names[0]) for item, names in uses.items() if names}
    for item, group in groups.items():
        item.add_marker(pytest.mark.xdist_group(group))
    result = yield
    if getattr(config.option, "loadgroup", False):
        _keep_group_suffixes(groups)
    return result


def _keep_group_suffixes(groups: dict[pytest.Item, str]) -> None:
    """The ``@group`` suffix of the node id, through which --dist loadgroup sends a group to one
    worker, where pytest reads it.

    pytest-xdist writes the suffix to ``item._nodeid``; pytest 9.2 keeps node ids in the
    structured ``item._id``, so the suffix is lost and the groups are silently ignored
    (pytest-xdist issue #1386). Only ids still without the suffix are rewritten, so this does
    nothing once xdist writes it itself.
    """
    for item, group in groups.items():
        node_id = getattr(item, "_id", None)
        if node_id is not None and "@" not in item.nodeid and hasattr(node_id, "parse"):
            item._id = type(node_id).parse(f"{item.nodeid}@{group}")
