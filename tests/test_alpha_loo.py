"""alpha="loo": the α of the best exact leave-one-out label log-likelihood, without refits.

It is a maximum (the exact LOO is lower at α × 0.9 and α × 1.1, and a bounded maximisation
of ``elpd_loo`` finds it), it is stored in ``alpha_`` like alpha="evidence" (and survives a
model file), and on one train/test split it is set beside alpha="evidence" and a
GridSearchCV over 20 α × 5 folds. Large corpora (4000 documents, 2^18 stored values) take
the subsample warm start and the compiled own-class pass; ``BAYESNB_JIT=0`` runs the same
search on the NumPy path.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

from bayesnb import BernoulliNB, CategoricalNB, ColumnwiseNB, MultinomialNB, PoissonNB
from bayesnb import load as load_model
from bayesnb.model_selection import elpd_loo


def _corpus(
    n: int = 400, v: int = 150, k: int = 3, seed: int = 0, length: float = 12, overlap: float = 3
):
    """Documents of k overlapping classes (word distributions around one base, the closer
    the larger ``overlap``), Poisson(``length``) + 1 words each."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.full(v, 0.3))
    theta = np.array([rng.dirichlet(base * v * overlap) for _ in range(k)])
    y = rng.integers(0, k, n)
    lengths = rng.poisson(length, n) + 1
    X = np.array([rng.multinomial(lengths[i], theta[y[i]]) for i in range(n)])
    return sp.csr_matrix(X.astype(float)), y


@pytest.fixture(scope="module")
def split():
    X, y = _corpus()
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


MODELS = [
    (MultinomialNB, {}),
    (MultinomialNB, {"estimate": "bayes"}),
    (BernoulliNB, {}),
    (PoissonNB, {}),
    (PoissonNB, {"estimate": "bayes"}),
]


@pytest.mark.parametrize("cls,kw", MODELS, ids=lambda m: str(m))
def test_alpha_loo_is_a_maximum(split, cls, kw):
    Xtr, _, ytr, _ = split
    alpha = cls(alpha="loo", **kw).fit(Xtr, ytr).alpha_
    best = elpd_loo(cls(alpha=alpha, **kw), Xtr, ytr).elpd
    for factor in (0.9, 1.1):
        assert elpd_loo(cls(alpha=alpha * factor, **kw), Xtr, ytr).elpd < best - 1e-4


def test_alpha_loo_map_and_categorical_maximum():
    X, y = _corpus(n=90, v=12, seed=3)
    Xc = np.minimum(X.toarray(), 3)
    for est in (MultinomialNB(alpha="loo", estimate="map"), CategoricalNB(alpha="loo")):
        Xe = Xc if isinstance(est, CategoricalNB) else X
        alpha = est.fit(Xe, y).alpha_
        assert alpha >= 1.0 or est.estimate != "map"
        kw = {"estimate": est.estimate}
        best = elpd_loo(type(est)(alpha=alpha, **kw), Xe, y).elpd
        for factor in (0.9, 1.1):
            if est.estimate == "map" and alpha * factor < 1:
                continue
            assert elpd_loo(type(est)(alpha=alpha * factor, **kw), Xe, y).elpd < best


def _maximiser(objective, lo: float, hi: float) -> float:
    """The α of a bounded scalar maximisation of ``objective(α)`` in log α."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        lambda u: -objective(float(np.exp(u))),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-6},
    )
    return float(np.exp(res.x))


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, PoissonNB], ids=lambda c: c.__name__)
def test_alpha_loo_against_evidence_and_grid_search(split, cls):
    # Each rule's α is the maximiser of its own criterion (the exact LOO, the log evidence:
    # bounded maximisations here), and on held-out documents the LOO α does as well as a
    # GridSearchCV over 20 α × 5 folds (within its standard error), whose α is within one
    # grid step of it, and no worse than the evidence's.
    from bayesnb.evidence import log_evidence

    Xtr, Xte, ytr, yte = split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = cls(alpha="loo").fit(Xtr, ytr)
        evidence = cls(alpha="evidence").fit(Xtr, ytr)
        grid = GridSearchCV(
            cls(),
            {"alpha": np.geomspace(1e-3, 10, 20)},
            cv=StratifiedKFold(5),
            scoring="neg_log_loss",
        ).fit(Xtr, ytr)
    best_loo = _maximiser(lambda a: elpd_loo(cls(alpha=a), Xtr, ytr).elpd, 1e-3, 1e3)
    best_evidence = _maximiser(lambda a: log_evidence(cls(alpha=a).fit(Xtr, ytr)), 1e-4, 1e3)
    # PoissonNB's LOO search stops at 1 % in α (no fused kernel); the others' at ~1e-8.
    assert loo.alpha_ == pytest.approx(best_loo, rel=0.01 if cls is PoissonNB else 1e-4)
    assert evidence.alpha_ == pytest.approx(best_evidence, rel=1e-3)
    losses = {}
    for name, est in (("loo", loo), ("evidence", evidence), ("grid", grid.best_estimator_)):
        losses[name] = log_loss(yte, est.predict_proba(Xte), labels=[0, 1, 2])
    point = -np.log(loo.predict_proba(Xte)[np.arange(yte.size), yte])
    se = point.std() / np.sqrt(point.size)
    # The grid's α is within one grid step (a factor 1.62) of the LOO α.
    assert 1 / 1.62 < grid.best_params_["alpha"] / loo.alpha_ < 1.62
    assert losses["loo"] <= losses["grid"] + se
    assert losses["loo"] <= losses["evidence"] + se


def test_alpha_loo_round_trips_through_a_model_file(split, tmp_path):
    Xtr, Xte, ytr, _ = split
    est = MultinomialNB(alpha="loo").fit(Xtr, ytr)
    est.save(tmp_path / "m.nc")
    back = load_model(tmp_path / "m.nc")
    assert back.alpha == "loo" and back.alpha_ == est.alpha_
    np.testing.assert_array_equal(back.predict_proba(Xte), est.predict_proba(Xte))


def test_alpha_loo_needs_the_documents(split):
    Xtr, _, ytr, _ = split
    with pytest.raises(ValueError, match="learns alpha from every training document"):
        MultinomialNB(alpha="loo").partial_fit(Xtr, ytr)
    est = MultinomialNB().fit(Xtr, ytr)
    est.set_params(alpha="loo")
    with pytest.raises(ValueError, match="learns alpha from every training document"):
        est.predict_proba(Xtr[:3])
    block = ColumnwiseNB([("words", MultinomialNB(alpha="loo"), list(range(10)))])
    with pytest.raises(ValueError, match="learns alpha from every training document"):
        block.fit(Xtr[:, :10].toarray(), ytr)
    with pytest.raises(ValueError, match="'evidence' or 'loo'"):
        MultinomialNB(alpha="cv").fit(Xtr, ytr)


def _brute_force_alpha(cls, kw, X, y, w, lo: float = 1e-3, hi: float = 1e3) -> float:
    """The α of a bounded scalar maximisation of the exact LOO (elpd_loo at fixed α).

    Brent's method on values alone stops ~1e-6 from the maximum (L is flat there: its
    rounding hides smaller steps), so two Newton steps on central differences of the same
    values finish it.
    """
    from scipy.optimize import minimize_scalar

    def elpd(u):
        return elpd_loo(cls(alpha=float(np.exp(u)), **kw), X, y, sample_weight=w).elpd

    res = minimize_scalar(
        lambda u: -elpd(u),
        bounds=(np.log(lo), np.log(hi)),
        method="bounded",
        options={"xatol": 1e-10},
    )
    u = res.x
    for _ in range(2):
        g = (elpd(u + 1e-4) - elpd(u - 1e-4)) / 2e-4
        h = (elpd(u + 1e-3) - 2 * elpd(u) + elpd(u - 1e-3)) / 1e-6
        u = u - g / h
    return float(np.exp(u))


FAST = [
    (MultinomialNB, {}),
    (MultinomialNB, {"estimate": "map"}),
    (BernoulliNB, {}),
    (BernoulliNB, {"beta": 3.0}),
    (BernoulliNB, {"estimate": "map"}),
]


@pytest.mark.parametrize("dense", [False, True], ids=["sparse", "dense"])
@pytest.mark.parametrize("weights", ["none", "few", "many"])
@pytest.mark.parametrize("cls,kw", FAST, ids=lambda m: str(m))
def test_alpha_loo_is_the_exact_maximiser(split, cls, kw, weights, dense):
    # The Newton search returns the α of a brute-force bounded maximisation of the exact
    # LOO to 1e-6 relative: with unit weights, three distinct weights (a product per
    # weight) and continuous ones (entry by entry), on sparse and dense input.
    Xtr, _, ytr, _ = split
    rng = np.random.default_rng(7)
    w = {
        "none": None,
        "few": rng.choice([0.5, 1.0, 2.0], ytr.size),
        "many": rng.uniform(0.5, 2.0, ytr.size),
    }[weights]
    X = Xtr.toarray() if dense else Xtr
    got = cls(alpha="loo", **kw).fit(X, ytr, sample_weight=w).alpha_
    want = _brute_force_alpha(cls, kw, Xtr, ytr, w, lo=1.0 if kw.get("estimate") == "map" else 1e-3)
    assert got == pytest.approx(want, rel=1e-6)


@pytest.fixture(scope="module")
def large():
    """4500 documents of about 65 distinct words (2^18 stored values and more), integer
    counts: the subsample warm start and the compiled own-class passes."""
    from bayesnb.families._loo_kernels import COMPILED_FROM

    X, y = _corpus(n=4500, v=400, seed=2, length=100, overlap=100)
    assert X.nnz >= COMPILED_FROM
    return X, y


def _without_jit(monkeypatch, fn):
    """``fn()`` on the NumPy path (``BAYESNB_JIT=0``, as without numba)."""
    monkeypatch.setenv("BAYESNB_JIT", "0")
    try:
        return fn()
    finally:
        monkeypatch.delenv("BAYESNB_JIT")


COMPILED = [
    (MultinomialNB, {}),
    (MultinomialNB, {"estimate": "map"}),
    (BernoulliNB, {}),
    (BernoulliNB, {"estimate": "map", "beta": 3.0}),
]


@pytest.mark.parametrize("weights", ["none", "twos", "integers", "halves"])
@pytest.mark.parametrize("cls,kw", COMPILED, ids=lambda m: str(m))
def test_alpha_loo_compiled_and_numpy_paths(large, cls, kw, weights, monkeypatch):
    # A large corpus starts the search on a subsample and takes the own-class downdate in
    # one compiled pass over the nonzeros where the downdated counts stay integers
    # (MultinomialNB: integer weights; BernoulliNB: one weight); the NumPy path gives the
    # same α, and both that of a brute-force maximisation of the exact LOO.
    from bayesnb.families._loo_kernels import kernels

    if kernels() is None:
        pytest.skip("numba cannot compile here")
    X, y = large
    rng = np.random.default_rng(5)
    w = {
        "none": None,
        "twos": np.full(y.size, 2.0),
        "integers": rng.choice([1.0, 2.0, 3.0], y.size),
        "halves": rng.choice([0.5, 1.0], y.size),
    }[weights]
    got = cls(alpha="loo", **kw).fit(X, y, sample_weight=w).alpha_
    numpy_path = _without_jit(
        monkeypatch, lambda: cls(alpha="loo", **kw).fit(X, y, sample_weight=w)
    )
    assert got == pytest.approx(numpy_path.alpha_, rel=1e-12)
    if weights in ("none", "halves"):  # the compiled path, and the NumPy one
        lo = 1.0 if kw.get("estimate") == "map" else 1e-3
        assert got == pytest.approx(_brute_force_alpha(cls, kw, X, y, w, lo=lo), rel=1e-6)


@pytest.mark.parametrize("weights", ["none", "twos", "integers", "halves"])
@pytest.mark.parametrize("estimate", ["mle", "map", "map1", "mean"])
@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB], ids=lambda c: c.__name__)
def test_exact_loo_compiled_and_numpy_paths(large, cls, estimate, weights, monkeypatch):
    # The exact LOO takes its own-class terms (MultinomialNB: Σ_j x_ij log(t − w_i x_ij + s);
    # BernoulliNB, smoothed: Σ_j log(succ / fail) of (class, count)) from the compiled passes
    # on large integer corpora: the pointwise ELPD of the NumPy path to rounding, -inf where
    # it gives -inf (the MLE, and the MAP at α = 1: a count downdated to 0).
    X, y = large
    rng = np.random.default_rng(2)
    w = {
        "none": None,
        "twos": np.full(y.size, 2.0),
        "integers": rng.choice([1.0, 2.0], y.size),
        "halves": rng.choice([0.5, 1.0], y.size),
    }[weights]
    alpha = {"mle": 0.5, "map": 2.0, "map1": 1.0, "mean": 0.5}[estimate]
    est = cls(estimate=estimate[:3] if estimate != "mean" else "mean", alpha=alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = elpd_loo(est, X, y, sample_weight=w).pointwise
        want = _without_jit(monkeypatch, lambda: elpd_loo(est, X, y, sample_weight=w).pointwise)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)
    if estimate in ("mle", "map1") and cls is MultinomialNB:
        assert np.isneginf(got).any()  # a word only the left-out document has
