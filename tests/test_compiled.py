"""The on-disk cache of compiled nutpie models (bayesnb.compiled): keyed by the model's
structure and shapes, never by its data, and used only from a private directory."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nutpie")

from bayesnb import BernoulliNB
from bayesnb.compiled import cache_dir, compile_model
from bayesnb.inference import SamplingWarning
from bayesnb.pymc_models import model_spec


def _data(n_features: int, seed: int):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], 40)
    p = rng.uniform(0.1, 0.9, size=(2, n_features))
    return (rng.random((y.size, n_features)) < p[y]).astype(np.int64), y


def _compile(X, y):
    spec = model_spec(BernoulliNB().fit(X, y), X, y, "sufficient")
    return spec, compile_model(spec.model(), var_names=spec.var_names)


def _hits(compiled) -> tuple[int, int]:
    return compiled.compiled_logp_func.cache_hits, compiled.compiled_expand_func.cache_hits


def test_cache_keyed_by_shape_not_data(tmp_path, monkeypatch):
    import nutpie

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    X, y = _data(3, seed=0)
    _, first = _compile(X, y)
    assert _hits(first) == (0, 0)
    assert stat.S_IMODE(os.stat(cache_dir()).st_mode) == 0o700
    saved = sorted(os.listdir(cache_dir()))
    assert len([f for f in saved if f.endswith(".nbi")]) == 2  # logp and expand

    # New data of the same shape: the compiled code is loaded, and it samples the new data's
    # posterior, not the first data's (the data is read at run time).
    X2, y2 = _data(3, seed=1)
    X2[y2 == 0, 0] = 1  # feature 0 on in every class-0 document
    spec, second = _compile(X2, y2)
    assert _hits(second) == (1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        trace = nutpie.sample(
            second.with_data(**spec.data),
            draws=1000,
            tune=500,
            chains=2,
            seed=3,
            progress_bar=False,
        )
    draws = trace.posterior["feature_prob"].values.reshape(-1, 2, 3)
    exact = BernoulliNB().fit(X2, y2)
    counts = np.array([X2[y2 == c].sum(0) for c in (0, 1)])
    n = np.array([(y2 == c).sum() for c in (0, 1)])[:, None]
    mean = (counts + exact.alpha) / (n + 2 * exact.alpha)  # Beta(α + k, α + n - k)
    sd = np.sqrt(mean * (1 - mean) / (n + 2 * exact.alpha + 1))
    # 2,000 draws, an ESS of a few hundred at least: 5 MCSE is about 0.3 sd
    np.testing.assert_array_less(np.abs(draws.mean(0) - mean), 0.3 * sd)
    assert draws[:, 0, 0].mean() > 0.95  # the first data (seed 0) would give about 0.2-0.8

    # Another number of features: another key, compiled afresh, nothing overwritten.
    _, other = _compile(*_data(4, seed=0))
    assert _hits(other) == (0, 0)
    now = set(os.listdir(cache_dir()))
    assert set(saved) <= now and len([f for f in now if f.endswith(".nbi")]) == 4


def test_cache_refused_in_a_shared_directory(tmp_path, monkeypatch):
    from bayesnb.compiled import _private_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _private_dir() == cache_dir()
    os.chmod(cache_dir(), 0o777)  # anyone could plant code there
    assert _private_dir() is None
    os.chmod(cache_dir(), 0o700)
    os.chmod(cache_dir().parent, 0o777)
    assert _private_dir() is None


def test_compiled_shapes_checked(tmp_path, monkeypatch):
    import nutpie

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    X, y = _data(3, seed=0)
    spec = model_spec(BernoulliNB().fit(X, y), X, y, "sufficient")
    model = spec.model()
    compiled = compile_model(model, var_names=spec.var_names)
    assert model.check_bounds  # compiled without the parameter checks, the model left as it was
    # data of another shape than the compiled one fails the shape check in the log-density
    bad = compiled.with_data(**(spec.data | {"feature_count_data": np.ones((2, 4), np.int64)}))
    with pytest.raises(RuntimeError, match="Logp function returned error"):
        nutpie.sample(bad, draws=10, tune=10, chains=1, progress_bar=False)


# A process that builds a small model, says "ready", compiles it when told to on stdin, and
# prints its callbacks' cache hits with the log-density and gradient at a fixed point (bits
# as hex) and the gradient's central differences.
_CHILD = """
import ctypes, json, sys
import numpy as np
from bayesnb import BernoulliNB
from bayesnb.compiled import compile_model
from bayesnb.pymc_models import model_spec

rng = np.random.default_rng(0)
y = np.repeat([0, 1], 40)
X = (rng.random((y.size, 3)) < 0.4).astype(np.int64)
spec = model_spec(BernoulliNB().fit(X, y), X, y, "sufficient")
model = spec.model()
print("ready", flush=True)
sys.stdin.readline()
compiled = compile_model(model, var_names=spec.var_names).with_data(**spec.data)
f = compiled.compiled_logp_func.ctypes
ptr = ctypes.POINTER(ctypes.c_double)

def logp(x):
    x = np.ascontiguousarray(x, dtype=float)
    grad, value = np.zeros_like(x), np.zeros(())
    rc = f(x.size, x.ctypes.data_as(ptr), grad.ctypes.data_as(ptr),
           value.ctypes.data_as(ptr), ctypes.c_void_p(compiled.user_data.ctypes.data))
    assert rc == 0, rc
    return float(value), grad

x = np.linspace(-0.5, 0.5, compiled.n_dim)
value, grad = logp(x)
h = 1e-5
diff = [(logp(x + h * e)[0] - logp(x - h * e)[0]) / (2 * h) for e in np.eye(x.size)]
hits = [compiled.compiled_logp_func.cache_hits, compiled.compiled_expand_func.cache_hits]
print(json.dumps({"hits": hits, "logp": value.hex(), "grad": [g.hex() for g in grad],
                  "diff": diff}), flush=True)
"""


def _child(cache: Path) -> subprocess.Popen:
    root = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])
    env = os.environ | {"XDG_CACHE_HOME": str(cache), "PYTHONPATH": path}
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _held(lock: Path) -> bool:
    import fcntl

    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_concurrent_processes_compile_once(tmp_path):
    pytest.importorskip("fcntl")
    folder = tmp_path / "bayesnb" / "nutpie"

    # A process killed while it compiles, holding its key's lock: the lock dies with it.
    holder = _child(tmp_path)
    holder.stdin.write("go\n")
    holder.stdin.flush()
    deadline = time.monotonic() + 120
    while not any(_held(lock) for lock in folder.glob("*.lock")):
        assert holder.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert not list(folder.glob("*.nbi"))  # killed before it saved anything

    # Two processes released at once on that key: one compiles, the other waits and loads.
    procs = [_child(tmp_path) for _ in range(2)]
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [json.loads(proc.communicate(timeout=300)[0]) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert sorted(out["hits"] for out in outs) == [[0, 0], [1, 1]]
    assert outs[0]["logp"] == outs[1]["logp"] and outs[0]["grad"] == outs[1]["grad"]
    grad = [float.fromhex(g) for g in outs[0]["grad"]]
    np.testing.assert_allclose(grad, outs[0]["diff"], rtol=1e-6, atol=1e-6)
