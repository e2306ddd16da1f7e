"""Golden fixtures: today's numbers of every model family, frozen for no-behaviour refactors.

Regenerate only when a change of numbers is intended::

    python tests/data/make_golden.py

For every configuration in :data:`SPECS` this fits a small model on small deterministic data
(numpy ``Generator`` seeds), saves it with ``est.save`` to ``tests/data/golden/<name>.nc`` and
writes ``tests/data/golden/<name>.npz`` holding the training and test data and the raw arrays
of :func:`record`: predictions under every estimate, log evidence, learned ``alpha_``, the
seeded exact posterior draws, point estimates, ``sample()`` and ``label_log_likelihood``.
A quantity the model refuses is recorded as the exception type it raises, under ``refused``.
``tests/test_golden.py`` checks the saved files and a refit against these arrays (floats within
the cross-machine tolerance of ``bayesnb.testing.assert_portable_equal``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script from anywhere: use this checkout's bayesnb
    sys.path.insert(0, str(ROOT))

import bayesnb as bnb  # noqa: E402
from bayesnb.validation import ESTIMATES  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
N_TRAIN, N_TEST = 60, 15
# Exceptions a model raises for a quantity it does not support (recorded, then re-checked).
REFUSALS = (ValueError, TypeError, NotImplementedError, AttributeError)


# -- data: one seed per data set, tiny ---------------------------------------------------------
def _labels(rng: np.random.Generator, n: int, classes=3) -> np.ndarray:
    # Every class present in any sample (cyclic), order shuffled by the seed.
    return rng.permutation(np.arange(n) % classes)


def binary_data(seed: int = 1):
    """60 × 10 binary features; feature rates depend on the class."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.9, size=(3, 10))
    p[0, 0] = 0.0  # never on in class 0: MLE scores a test row with x_0 = 1 as -inf
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        out += [(rng.random((n, 10)) < p[y]).astype(float), y]
    out[2][:3, 0] = 1.0
    return tuple(out)


def count_data(seed: int = 2, n_features: int = 10):
    """Word counts; the last 3 columns are never seen in training (UNK) but occur in the test."""
    rng = np.random.default_rng(seed)
    rate = rng.gamma(1.0, 1.5, size=(3, n_features))
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        X = rng.poisson(rate[y]).astype(float)
        X[X.sum(axis=1) == 0, 0] = 1.0  # no empty document
        out += [X, y]
    out[0][:, -3:] = 0.0
    out[2][:4, -3:] = [2.0, 0.0, 1.0]
    out[2][4:6, -2] = 3.0
    return tuple(out)


def overdispersed_data(seed: int = 5, n_features: int = 10):
    """Dirichlet-multinomial (bursty) word counts, so the DCM's MLE fixed point converges."""
    rng = np.random.default_rng(seed)
    concentration = rng.gamma(2.0, 0.5, size=(3, n_features))
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        theta = np.array([rng.dirichlet(concentration[c]) for c in y])
        out += [np.array([rng.multinomial(30, t) for t in theta], dtype=float), y]
    return tuple(out)


def categorical_data(seed: int = 3):
    """60 × 8 categories 0..3 with string labels; the test set holds an unseen value 4."""
    rng = np.random.default_rng(seed)
    names = np.array(["ham", "eggs", "spam"])
    probs = rng.dirichlet(np.ones(4), size=(3, 8))
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        u = rng.random((n, 8, 1))
        X = (u > np.cumsum(probs[y], axis=-1)).sum(axis=-1).astype(float)
        out += [X, names[y]]
    out[2][:2, 1] = 4.0
    return tuple(out)


def gaussian_data(seed: int = 6, n_features: int = 8):
    """Correlated Gaussian features with class-dependent means."""
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 1.5, size=(3, n_features))
    mix = rng.normal(size=(n_features, n_features)) / np.sqrt(n_features)
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        out += [means[y] + rng.normal(size=(n, n_features)) @ mix, y]
    return tuple(out)


def mixed_data(seed: int = 7):
    """Columns 0-3 counts, 4-6 Gaussian, 7-9 binary (one ColumnwiseNB block each), one label."""
    rng = np.random.default_rng(seed)
    rate = rng.gamma(1.0, 1.5, size=(3, 4))
    means = rng.normal(0.0, 1.5, size=(3, 3))
    p = rng.uniform(0.05, 0.9, size=(3, 3))
    out = []
    for n in (N_TRAIN, N_TEST):
        y = _labels(rng, n)
        counts = rng.poisson(rate[y]).astype(float)
        flags = (rng.random((n, 3)) < p[y]).astype(float)
        out += [np.hstack([counts, means[y] + rng.normal(size=(n, 3)), flags]), y]
    out[0][:, 2:4] = 0.0  # words never seen in training (pooled by UNK) occurring in the test
    out[2][:4, 2:4] = [1.0, 2.0]
    return tuple(out)


def _mixed_model(**block_params) -> bnb.ColumnwiseNB:
    return bnb.ColumnwiseNB(
        [
            ("words", bnb.MultinomialNB(**block_params), [0, 1, 2, 3]),
            ("gauss", bnb.GDA(covariance="diagonal"), [4, 5, 6]),
            ("flags", bnb.BernoulliNB(), [7, 8, 9]),
        ]
    )


# name -> (estimator factory, data factory)
SPECS: dict[str, tuple[Callable, Callable]] = {
    "bernoulli": (bnb.BernoulliNB, binary_data),
    "bernoulli_a05_b2": (lambda: bnb.BernoulliNB(alpha=0.5, beta=2.0), binary_data),
    "multinomial": (bnb.MultinomialNB, count_data),
    "multinomial_unk": (lambda: bnb.MultinomialNB(unk=True), count_data),
    "multinomial_evidence": (lambda: bnb.MultinomialNB(alpha="evidence"), count_data),
    "categorical": (bnb.CategoricalNB, categorical_data),
    "poisson": (bnb.PoissonNB, lambda: count_data(4)),
    "poisson_evidence": (lambda: bnb.PoissonNB(alpha="evidence"), lambda: count_data(4)),
    "dcm_map": (bnb.DirichletCompoundNB, overdispersed_data),
    "dcm_mle": (lambda: bnb.DirichletCompoundNB(estimate="mle"), overdispersed_data),
    "gda_shared": (lambda: bnb.GDA(covariance="shared"), gaussian_data),
    "gda_per_class": (lambda: bnb.GDA(covariance="per_class"), gaussian_data),
    "gda_diagonal": (lambda: bnb.GDA(covariance="diagonal"), gaussian_data),
    "columnwise": (_mixed_model, mixed_data),
    "columnwise_unk": (lambda: _mixed_model(unk=True), mixed_data),
}


def fit(name: str, X, y):
    """A fresh estimator of configuration ``name`` fitted on ``(X, y)``."""
    return SPECS[name][0]().fit(X, y)


# -- what is recorded ----------------------------------------------------------------------------
def _plain(value) -> np.ndarray:
    arr = value.toarray() if sp.issparse(value) else np.asarray(value)
    # Labels and coordinates as fixed-width unicode: np.load needs no pickle.
    return arr.astype(str) if arr.dtype.kind == "O" else arr


def _tree(prefix: str, tree) -> dict[str, np.ndarray]:
    """Every variable (data and coordinates) of every node of a DataTree; attrs left out."""
    out = {}
    for node in tree.subtree:
        ds = node.to_dataset(inherit=False)
        for var in ds.variables:
            out[f"{prefix}{node.path.rstrip('/')}/{var}"] = _plain(ds[var].values)
    return out


def _sample(est) -> dict[str, np.ndarray]:
    X, y = est.sample(20, random_seed=5)
    return {
        "sample.X": _plain(X),
        "sample.X_sparse": np.bool_(sp.issparse(X)),
        "sample.y": _plain(y),
    }


def _try(out: dict, refused: list, key: str, compute: Callable, *args) -> None:
    """Merge ``compute(*args)`` (a dict of arrays) into ``out``, or note a refusal of ``key``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # MLE log(0) and similar: the numbers are the point
            out.update(compute(*args))
    except REFUSALS as exc:
        refused.append(f"{key}:{type(exc).__name__}")


def _alphas(est) -> dict:
    blocks = getattr(est, "named_estimators_", None)
    pairs = [("", est)] + ([(f"{n}.", b) for n, b in blocks.items()] if blocks else [])
    out = {}
    for prefix, e in pairs:
        for attr in ("alpha_", "class_alpha_"):
            if hasattr(type(e), attr):
                try:
                    out[f"{prefix}{attr}"] = np.asarray(getattr(e, attr), dtype=float)
                except REFUSALS:
                    pass
    return out


def record(est, X_test, y_test) -> dict[str, np.ndarray]:
    """Every checked quantity of a fitted ``est``, as a flat dict of raw arrays.

    Seeded quantities are computed under the model's own ``estimate``; then predictions and
    point estimates under each estimate; the estimate is restored at the end.
    """
    out: dict[str, np.ndarray] = {}
    refused: list[str] = []
    own = est.get_params()["estimate"]
    _try(out, refused, "log_evidence", lambda: {"log_evidence": np.float64(est.log_evidence())})
    out.update(_alphas(est))
    _try(
        out,
        refused,
        "sample_posterior",
        lambda: _tree("sample_posterior:", est.sample_posterior(7, 2, random_seed=123)),
    )
    _try(out, refused, "sample", _sample, est)
    _try(
        out,
        refused,
        "label_log_likelihood",
        lambda: _tree(
            "label_log_likelihood:",
            est.label_log_likelihood(X_test, y_test, draws=5, random_seed=3),
        ),
    )
    scores = {
        "jll": lambda: est.predict_joint_log_proba(X_test),
        "proba": lambda: est.predict_proba(X_test),
        "predict": lambda: _plain(est.predict(X_test)),
    }
    try:
        # "own": a ColumnwiseNB's estimate=None (each block its own), besides the four values.
        for e in ESTIMATES if own in ESTIMATES else ("own", *ESTIMATES):
            est.set_params(estimate=own if e == "own" else e)
            for what, score in scores.items():
                _try(out, refused, f"{what}.{e}", lambda k, f: {k: f()}, f"{what}.{e}", score)
    finally:
        est.set_params(estimate=own)
    for e in ESTIMATES:
        key = f"point_estimate.{e}"
        _try(out, refused, key, lambda k, v: _tree(f"{k}:", est.point_estimate(v)), key, e)
    out["refused"] = np.array(sorted(refused), dtype=str)
    return out


DATA_KEYS = ("X_train", "y_train", "X_test", "y_test")


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (_, data) in SPECS.items():
        X_train, y_train, X_test, y_test = data()
        est = fit(name, X_train, y_train)
        est.save(GOLDEN / f"{name}.nc")
        rec = record(est, X_test, y_test)
        arrays = dict(zip(DATA_KEYS, (X_train, y_train, X_test, y_test), strict=True))
        np.savez_compressed(GOLDEN / f"{name}.npz", **arrays, **rec)
        print(f"{name}: {len(rec)} quantities, refused {list(rec['refused'])}")
    total = sum(p.stat().st_size for p in GOLDEN.iterdir())
    print(f"total {total / 1024:.1f} KiB in {GOLDEN}")


if __name__ == "__main__":
    main()
