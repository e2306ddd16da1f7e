"""Reproducibility: the same ``random_seed`` gives the same numbers, in this process and another.

Covered: exact conjugate draws (``sample_posterior``), synthetic documents (``sample``), the
label log-likelihood for LOO, class probabilities under draws (``predict_proba_draws``), and
NUTS (``fit_pymc``, slow). A digest of every value of a DataTree (group, variable, dims, dtype
and bytes; attrs such as timings left out) is compared between two calls and against a fresh
Python process running the same code.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import bayesnb as bnb

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("BernoulliNB", "MultinomialNB", "CategoricalNB", "PoissonNB", "GDA")


def digest(obj) -> str:
    """SHA-256 of the values of a DataTree, an array, a sparse matrix or a tuple of them."""
    h = hashlib.sha256()

    def add(name: str, arr) -> None:
        if sp.issparse(arr):
            arr = arr.toarray()
        arr = np.asarray(arr)
        if arr.dtype.kind in "OUS":
            body = json.dumps([str(v) for v in arr.ravel()]).encode()
        else:
            body = np.ascontiguousarray(arr).tobytes()
        h.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode() + body)

    if hasattr(obj, "subtree"):
        for node in sorted(obj.subtree, key=lambda n: n.path):
            ds = node.to_dataset(inherit=False)
            for name in sorted(ds.variables):
                add(f"{node.path}/{name}/{ds[name].dims}", ds[name].values)
    elif isinstance(obj, tuple):
        for i, part in enumerate(obj):
            add(str(i), part)
    else:
        add("", obj)
    return h.hexdigest()


def _data(model: str):
    rng = np.random.default_rng(11)
    y = np.arange(60) % 3
    if model == "GDA":
        return rng.normal(size=(60, 3)) + y[:, None], y
    return np.minimum(rng.poisson(1.0 + y[:, None] * np.eye(3, 4)[y]), 3).astype(float), y


def _fitted(model: str):
    X, y = _data(model)
    return getattr(bnb, model)().fit(X, y)


def exact_digests(model: str, seed: int) -> dict[str, str]:
    """Digests of every seeded exact computation of ``model`` (also run in a subprocess)."""
    est = _fitted(model)
    X, y = _data(model)
    return {
        "sample_posterior": digest(est.sample_posterior(50, 2, random_seed=seed)),
        "sample": digest(est.sample(40, random_seed=seed)),
        "label_log_likelihood": digest(est.label_log_likelihood(X, y, draws=30, random_seed=seed)),
        "predict_proba_draws": digest(
            est.predict_proba_draws(X[:10], draws=20, chains=2, random_seed=seed)
        ),
    }


def nuts_digest(seed: int) -> str:
    """Digest of a small NUTS fit (posterior and sample_stats) of ten classes."""
    y = np.arange(60) % 10
    X = (np.random.default_rng(5).random((y.size, 2)) < 0.3 + 0.04 * y[:, None]) * 1.0
    tree = bnb.BernoulliNB().fit_pymc(
        X, y, draws=100, tune=100, chains=2, random_seed=seed, progressbar=False
    )
    return digest(tree)


def in_subprocess(code: str, **env_vars: str) -> str:
    """The last line ``code`` prints in a fresh Python process (with ``env_vars`` set)."""
    env = dict(os.environ, PYTENSOR_FLAGS=os.environ.get("PYTENSOR_FLAGS", "blas__ldflags="))
    env |= env_vars
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("model", MODELS)
def test_same_seed_same_values_in_process(model):
    first, second = exact_digests(model, 123), exact_digests(model, 123)
    assert first == second
    other = exact_digests(model, 124)
    assert all(first[k] != other[k] for k in first)  # the seed is used, not ignored


def test_same_seed_same_values_across_processes():
    here = {m: exact_digests(m, 2024) for m in MODELS}
    code = (
        "import json; from tests.test_reproducibility import exact_digests, MODELS; "
        "print(json.dumps({m: exact_digests(m, 2024) for m in MODELS}))"
    )
    there = json.loads(in_subprocess(code))
    assert there == here


def test_generator_and_int_seeds_agree():
    est = _fitted("MultinomialNB")
    a = est.sample_posterior(20, 1, random_seed=np.random.default_rng(5))
    b = est.sample_posterior(20, 1, random_seed=5)
    assert digest(a) == digest(b)


def test_digest_sees_every_value():
    est = _fitted("BernoulliNB")
    tree = est.sample_posterior(5, 1, random_seed=0)
    before = digest(tree)
    values = tree["posterior"]["feature_prob"].values
    values[0, 0, 0, 0] = np.nextafter(values[0, 0, 0, 0], 2.0)
    tree["posterior"]["feature_prob"] = tree["posterior"]["feature_prob"].copy(data=values)
    assert digest(tree) != before


@pytest.mark.slow
def test_nuts_same_draws_in_process_across_processes_and_caches(tmp_path):
    # A second fit in this process reuses the compiled model; a fresh process with empty
    # caches compiles every kernel, the next one loads them from PyTensor's and bayesnb's disk
    # caches: the draws must not depend on which. Ten classes: the class prior's gradient is
    # where fresh and cached fast-math kernels differed.
    first = nuts_digest(3)
    assert nuts_digest(3) == first
    code = "from tests.test_reproducibility import nuts_digest; print(nuts_digest(3))"
    flags = os.environ.get("PYTENSOR_FLAGS", "blas__ldflags=")
    env = {
        "PYTENSOR_FLAGS": f"{flags},base_compiledir={tmp_path / 'pytensor'}",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    assert in_subprocess(code, **env) == first  # empty caches
    assert in_subprocess(code, **env) == first  # the caches the first process wrote
