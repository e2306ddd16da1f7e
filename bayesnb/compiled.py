"""Compiled nutpie models kept on disk: compiled once per machine, not once per process.

``nutpie.compile_pymc_model`` (numba backend) turns the model's logp-and-gradient and its
"expand" function into two numba C callbacks, compiled afresh in every process (10-15 s for
a small naive Bayes model): nutpie names its data slots with random uuids and freezes the
current data arrays into the code, so numba cannot cache them.
:func:`compile_model` builds the same :class:`nutpie.compile_pymc.CompiledPyMCModel` with
callbacks numba can cache: slots named by position, data read only through the pointers of
``user_data`` (the frozen placeholders are empty arrays of the data's dtype and rank), and each
callback's source generated with its sizes written in. Numba's cache of a callback holds the
code of every kernel it calls, so PyTensor's per-op cache is not used (:func:`_kernel_per_op`).

The cache key is a hash of what the compiled code depends on: PyTensor's cache keys of the two
function graphs (the ops, their parameters and constants, the graph's wiring), the dtype and
rank of every shared variable, the two sizes, the callback source, and the versions of numba,
llvmlite, pytensor, nutpie, numpy and Python; numba adds the signature and the CPU. The data
(``pm.Data`` values, whose shapes the model reads at run time) is not part of it, so a model of
new data or a new prior of the same shapes loads the same code.

The cache lives in ``$XDG_CACHE_HOME/bayesnb/nutpie`` (default ``~/.cache/bayesnb/nutpie``),
a directory made private to the user (0700). Numba's cache files are pickles that are executed
when loaded, so the cache is used only when the directory is owned by the user and writable by
no one else; otherwise (or when PyTensor cannot key a graph) the model is compiled in memory as
nutpie does. Numba writes each file to a temporary name and renames it, so processes may share it,
and a callback is compiled under a lock file of its key (:func:`_key_lock`), so that of two
processes needing it at once (pytest-xdist workers) one compiles and the other loads.

Every PyTensor graph here is compiled without fast-math (:func:`exact_math`). With
PyTensor's default fast-math flags (reassociation, contraction) the code numba compiles
afresh and the code it loads from PyTensor's cache differ in the last bits (numba links each
kernel into every library that calls it and may optimize each copy differently), so the first
process on a machine, with empty caches, drew other values than later ones. Without fast-math
every copy computes the same IEEE operations.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

__all__ = ["cache_dir", "compile_model", "exact_math"]

# The generated callbacks: nutpie's, with the sizes as literals (numba keys its cache on the
# bytecode, not on closures) and the data extraction passed in as a global. The results are
# copied element by element: an array assignment compiles numba's shape-mismatch error
# message, a score of string-formatting kernels.
_LOGP_SRC = """
def logp_numba(dim, x_, out_, logp_, user_data_):
    if dim != {n_dim}:
        return -1
    try:
        x = numba.carray(x_, ({n_dim},))
        out = numba.carray(out_, ({n_dim},))
        logp = numba.carray(logp_, ())
        logp_val, grad = extract(x, user_data_)
        logp[()] = logp_val
        for i in range({n_dim}):
            out[i] = grad[i]
        if not np.all(np.isfinite(out)):
            return 3
        if not np.isfinite(logp_val):
            return 4
    except Exception:
        return 1
    return 0
"""

_EXPAND_SRC = """
def expand_numba(dim, expanded, x_, out_, user_data_):
    if dim != {n_dim}:
        return -1
    if expanded != {n_expanded}:
        return -1
    try:
        x = numba.carray(x_, ({n_dim},))
        out = numba.carray(out_, ({n_expanded},))
        (values,) = extract(x, user_data_)
        for i in range({n_expanded}):
            out[i] = values[i]
    except Exception:
        return -2
    return 0
"""

_KEYS: WeakKeyDictionary = WeakKeyDictionary()  # generated callback -> its cache key
_OP_KERNELS: dict[tuple, Any] = {}  # (op key, fast-math, dtypes, ranks) -> its numba kernel
_LOCATOR_INSTALLED = False


def cache_dir() -> Path:
    """The per-user cache directory: ``$XDG_CACHE_HOME/bayesnb/nutpie`` (default
    ``~/.cache/bayesnb/nutpie``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bayesnb" / "nutpie"


@contextmanager
def exact_math() -> Iterator[None]:
    """Compile PyTensor's numba kernels without fast-math, so that cached and fresh agree."""
    from pytensor import config

    with config.change_flags(numba__fastmath=False):
        yield


def _private_dir() -> Path | None:
    """The cache directory, created 0700; None unless it is ours and no one else can write."""
    path = cache_dir()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        for p in (path, path.parent):
            st = p.lstat()
            if (
                not stat.S_ISDIR(st.st_mode)
                or st.st_uid != os.getuid()
                or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            ):
                return None
    except OSError:
        return None
    return path


def _install_locator() -> None:
    """Teach numba to cache the generated callbacks in :func:`cache_dir` under their key."""
    global _LOCATOR_INSTALLED
    if _LOCATOR_INSTALLED:
        return
    from numba.core.caching import CacheImpl, _CacheLocator

    class _Locator(_CacheLocator):
        def __init__(self, key: str):
            self._key = key
            self._py_file = "<bayesnb>"  # named by numba's "Cannot cache" warning

        def ensure_cache_path(self) -> None:
            pass  # made (and checked) before compiling

        def get_cache_path(self) -> str:
            return str(cache_dir())

        def get_source_stamp(self) -> int:
            return 0  # the key covers the source

        def get_disambiguator(self) -> str:
            return self._key

        @classmethod
        def from_function(cls, py_func, py_file):
            key = _KEYS.get(py_func)
            return None if key is None else cls(key)

    CacheImpl._locator_classes.insert(0, _Locator)
    _LOCATOR_INSTALLED = True


def _graph_key(fn) -> str | None:
    """PyTensor's cache key of a compiled function's graph, None when it has none."""
    from pytensor.link.numba.cache import CACHED_SRC_FUNCTIONS

    jit_fn = fn.vm.jit_fn
    return CACHED_SRC_FUNCTIONS.get(getattr(jit_fn, "py_func", None))


@contextmanager
def _kernel_per_op() -> Iterator[None]:
    """One numba kernel per distinct op in this process, without PyTensor's per-op wrappers.

    PyTensor wraps the kernel of every op of a graph (each scalar op of a fused elementwise
    loop included) in a second numba function that it caches on disk under the op's key, so
    that a later graph holding the same op loads it; on an empty cache each op then costs two
    compilations, a serialisation and a file. The callbacks of :func:`compile_model` are
    cached whole (numba's cache of a callback holds the code of everything it calls), so the
    per-op cache is not read by a later process fitting the same model; here the kernel of an
    op is compiled once per process and reused for every later occurrence of the same op on
    inputs and outputs of the same dtypes and ranks, in any model (PyTensor's key of the op and
    what numba's signature holds: what its disk cache would have matched).
    The whole graph keeps PyTensor's own path, whose key :func:`_graph_key` reads.
    """
    from pytensor import config
    from pytensor.graph.fg import AbstractFunctionGraph
    from pytensor.link.numba.dispatch import basic
    from pytensor.tensor.shape import SpecifyShape

    original = basic.numba_funcify_ensure_cache

    def ensure(op, node=None, **kwargs):
        if node is None and isinstance(op, AbstractFunctionGraph):
            return original(op, node=node, **kwargs)
        if isinstance(op, SpecifyShape):
            func, key = _specify_shape(node), "bayesnb-specify-shape"
        else:
            func, key = basic.numba_funcify_and_cache_key(op, node=node, **kwargs)
        if key is None:
            return func, None
        types = [] if node is None else [v.type for v in (*node.inputs, *node.outputs)]
        types = [(getattr(t, "dtype", str(t)), getattr(t, "ndim", None)) for t in types]
        memo = (key, bool(config.numba__fastmath), tuple(types))
        return _OP_KERNELS.setdefault(memo, func), key

    basic.numba_funcify_ensure_cache = ensure
    try:
        yield
    finally:
        basic.numba_funcify_ensure_cache = original


def _specify_shape(node):
    """SpecifyShape's check of its input's shape, failing without a formatted message (the
    message's string formatting is a score of kernels)."""
    from pytensor.link.numba.dispatch import basic
    from pytensor.tensor.type_other import NoneTypeT

    dims = node.inputs[1:]
    args = "".join(f", s{i}" for i in range(len(dims)))
    checks = "".join(
        f"    assert x.shape[{i}] == s{i}\n"
        for i, d in enumerate(dims)
        if not isinstance(d.type, NoneTypeT)
    )
    env: dict[str, Any] = {}
    exec(compile(f"def specify_shape(x{args}):\n{checks}    return x\n", "<bayesnb>", "exec"), env)
    return basic.numba_njit(env["specify_shape"])


def _inner(jit_fn):
    """The graph's numba function under PyTensor's cached entry point (which compiles a
    Python-callable wrapper and writes it to PyTensor's cache: unused by the callbacks)."""
    inner = getattr(jit_fn, "py_func", None)
    inner = getattr(inner, "__globals__", {}).get("jitable_func")
    return inner if hasattr(inner, "py_func") else jit_fn


def _versions() -> str:
    import llvmlite
    import numba
    import nutpie
    import pytensor

    mods = (numba, llvmlite, pytensor, nutpie, np)
    return ";".join(f"{m.__name__}={m.__version__}" for m in mods) + f";py={sys.version}"


def _cfunc(src: str, name: str, sig, extract, key: str | None):
    """A numba C callback from ``src``, cached under ``key`` (None: compiled in memory)."""
    import numba

    # __name__: numba's cached code re-imports the module its globals came from
    env: dict[str, Any] = {"__name__": __name__, "numba": numba, "np": np, "extract": extract}
    exec(compile(src, f"<bayesnb_{name}>", "exec"), env)
    func = env[name]
    if key is None:
        return numba.cfunc(sig)(func)
    _install_locator()
    digest = hashlib.sha256(f"{key};{name};{src}".encode()).hexdigest()[:32]
    _KEYS[func] = digest
    with _key_lock(digest), warnings.catch_warnings():
        # a model numba cannot cache still compiles; it is only slower next time
        warnings.filterwarnings("ignore", message="Cannot cache", category=numba.NumbaWarning)
        return numba.cfunc(sig, cache=True)(func)


@contextmanager
def _key_lock(digest: str) -> Iterator[None]:
    """Hold ``<cache_dir>/<digest>.lock`` (``flock``) while the callback of that key is compiled
    or loaded: a second process needing it waits, then loads what the first wrote to disk.

    One callback's lock at a time (never nested), so there is no lock order to keep; the kernels
    of its ops are compiled inside it and cached only with it. The operating system releases
    the lock of a process that dies. Without ``fcntl`` (or a lock file the file system takes)
    nothing is locked: each process compiles, as numba's atomic writes allow.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(cache_dir() / f"{digest}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass  # a file system without locks: compiled unlocked
        yield
    finally:
        os.close(fd)  # releases the lock


def compile_model(model, var_names: list[str] | None = None):
    """``nutpie.compile_pymc_model(model, var_names=var_names)`` that loads from the disk cache.

    Same initial points (support point with nutpie's jitter), same logp, gradient and trace;
    falls back to nutpie's own compilation when this version of nutpie lacks the pieces used.
    Compiled under :func:`exact_math`, and without PyTensor's C backend: the initial-point
    functions (PyTensor's ``FAST_COMPILE``, run a few times per fit) would otherwise compile the
    C code of their inner graphs, seconds of a C compiler on a machine whose PyTensor cache is
    empty; their Python implementations give the same values.
    """
    from pytensor import config

    check_bounds = model.check_bounds
    # The parameter checks (α > 0, 0 ≤ p ≤ 1, ...) hold for every model bayesnb declares (its
    # hyperparameters are validated before declaration) and cost a kernel each; the value
    # of the log-density where they hold is the same.
    model.check_bounds = False
    try:
        with exact_math(), config.change_flags(cxx=""), _kernel_per_op():
            return _compile_model(model, var_names)
    finally:
        model.check_bounds = check_bounds


def _compile_model(model, var_names: list[str] | None):
    import nutpie
    from nutpie import compile_pymc as cp

    try:
        from pymc.initial_point import make_initial_point_fn

        parts = (cp._make_functions, cp.make_extraction_fn, cp.make_user_data)
        parts += (cp._prepare_dims_and_coords, cp._wrap_with_lock, cp.CompiledPyMCModel)
    except (ImportError, AttributeError):  # pragma: no cover - other nutpie versions
        return nutpie.compile_pymc_model(model, var_names=var_names)
    import numba

    initial_point_fn = cp._wrap_with_lock(
        make_initial_point_fn(
            model=model,
            default_strategy="support_point",
            jitter_rvs=set(model.free_RVs),
            return_transformed=True,
        )
    )
    n_dim, n_expanded, logp_pt, expand_pt, init_fn, shape_info, reparam = cp._make_functions(
        model,
        mode="NUMBA",
        compute_grad=True,
        join_expanded=True,
        pymc_initial_point_fn=initial_point_fn,
        var_names=var_names,
    )
    shared_vars = list(dict.fromkeys([*logp_pt.get_shared(), *expand_pt.get_shared()]))
    slot = {var: f"s{i}" for i, var in enumerate(shared_vars)}
    shared_data = {}
    for var in shared_vars:
        value = np.array(var.get_value(), order="C", copy=True)
        value.flags.writeable = False
        shared_data[slot[var]] = value
    user_data = cp.make_user_data(slot, shared_data)
    # Empty arrays of each slot's dtype and rank: numba freezes these into the code, so the
    # cached code holds no data (the data is read through user_data's pointers).
    placeholders = {}
    for key, value in shared_data.items():
        empty = np.zeros((0,) * value.ndim, dtype=value.dtype)
        empty.flags.writeable = False
        placeholders[key] = empty

    graph_keys = (_graph_key(logp_pt), _graph_key(expand_pt))
    key = None
    if None not in graph_keys and _private_dir() is not None:
        meta = [
            (slot[v], shared_data[slot[v]].dtype.str, shared_data[slot[v]].ndim)
            for v in shared_vars
        ]
        key = repr((graph_keys, n_dim, n_expanded, meta, user_data.dtype.descr, _versions()))

    sig_logp = numba.types.int64(
        numba.types.uint64,
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.voidptr,
    )
    sig_expand = numba.types.int64(
        numba.types.uint64,
        numba.types.uint64,
        numba.types.CPointer(numba.types.double),
        numba.types.CPointer(numba.types.double),
        numba.types.voidptr,
    )
    logp_keys = [slot[v] for v in logp_pt.get_shared()]
    expand_keys = [slot[v] for v in expand_pt.get_shared()]
    extract_logp = cp.make_extraction_fn(
        _inner(logp_pt.vm.jit_fn), placeholders, logp_keys, user_data.dtype
    )
    extract_expand = cp.make_extraction_fn(
        _inner(expand_pt.vm.jit_fn), placeholders, expand_keys, user_data.dtype
    )
    logp_c = _cfunc(_LOGP_SRC.format(n_dim=n_dim), "logp_numba", sig_logp, extract_logp, key)
    expand_c = _cfunc(
        _EXPAND_SRC.format(n_dim=n_dim, n_expanded=n_expanded),
        "expand_numba",
        sig_expand,
        extract_expand,
        key,
    )
    dims, coords = cp._prepare_dims_and_coords(model, shape_info, reparam)
    return cp.CompiledPyMCModel(
        _n_dim=n_dim,
        dims=dims,
        _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info, strict=True)},
        compiled_logp_func=logp_c,
        compiled_expand_func=expand_c,
        initial_point_func=init_fn,
        shared_data=shared_data,
        shared_var_keys=slot,
        user_data=user_data,
        n_expanded=n_expanded,
        shape_info=shape_info,
        logp_func=logp_pt,
        expand_func=expand_pt,
        reparameterized_names=reparam,
    )
