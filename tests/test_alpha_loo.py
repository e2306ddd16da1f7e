"""alpha="loo": the α of the best exact leave-one-out label log-likelihood, without refits.

It is a maximum (the exact LOO is lower at α × 0.9 and α × 1.1), it is stored in ``alpha_``
like alpha="evidence" (and survives a model file), and on one train/test split it is set
beside alpha="evidence" and a GridSearchCV over 20 α × 5 folds (numbers measured once).
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


def _corpus(n: int = 400, v: int = 150, k: int = 3, seed: int = 0):
    """Documents of 3 overlapping classes (word distributions around one base)."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.full(v, 0.3))
    theta = np.array([rng.dirichlet(base * v * 3) for _ in range(k)])
    y = rng.integers(0, k, n)
    lengths = rng.poisson(12, n) + 1
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


# Measured on the split above (280 training, 120 test documents): the alpha_ of each rule
# and the held-out log loss (mean, its standard error). LOO and the grid agree; the
# evidence prefers a far smaller α, which costs held-out log loss on this corpus.
MEASURED = {
    "MultinomialNB": {"loo": (1.434, 0.8453), "evidence": (0.263, 0.8465), "grid": 0.8454},
    "BernoulliNB": {"loo": (1.226, 0.8196), "evidence": (0.179, 0.8462), "grid": 0.8228},
    "PoissonNB": {"loo": (1.251, 0.8392), "evidence": (0.179, 0.8522), "grid": 0.8420},
}


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, PoissonNB], ids=lambda c: c.__name__)
def test_alpha_loo_against_evidence_and_grid_search(split, cls):
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
    want = MEASURED[cls.__name__]
    losses = {}
    for name, est in (("loo", loo), ("evidence", evidence), ("grid", grid.best_estimator_)):
        p = est.predict_proba(Xte)
        losses[name] = log_loss(yte, p, labels=[0, 1, 2])
    point = -np.log(loo.predict_proba(Xte)[np.arange(yte.size), yte])
    se = point.std() / np.sqrt(point.size)
    assert loo.alpha_ == pytest.approx(want["loo"][0], rel=0.01)
    assert evidence.alpha_ == pytest.approx(want["evidence"][0], rel=0.01)
    assert losses["loo"] == pytest.approx(want["loo"][1], abs=1e-3)
    assert losses["evidence"] == pytest.approx(want["evidence"][1], abs=1e-3)
    assert losses["grid"] == pytest.approx(want["grid"], abs=1e-3)
    # The grid's α is within one grid step (a factor 1.62) of the LOO α.
    assert 1 / 1.62 < grid.best_params_["alpha"] / loo.alpha_ < 1.62
    assert losses["loo"] <= losses["grid"] + se


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


@pytest.mark.parametrize("weights", ["none", "many"])
@pytest.mark.parametrize("cls,kw", FAST, ids=lambda m: str(m))
def test_alpha_loo_warm_started_on_a_subsample(split, cls, kw, weights, monkeypatch):
    # Large corpora start the search on a subsample and may stop at a cubic-model step on
    # every document; a subsample of 40 documents makes this corpus take that path.
    import bayesnb.families._loo_search as search

    monkeypatch.setattr(search, "_SUBSAMPLE", 40)
    Xtr, _, ytr, _ = split
    w = None if weights == "none" else np.random.default_rng(3).uniform(0.5, 2.0, ytr.size)
    got = cls(alpha="loo", **kw).fit(Xtr, ytr, sample_weight=w).alpha_
    want = _brute_force_alpha(cls, kw, Xtr, ytr, w, lo=1.0 if kw.get("estimate") == "map" else 1e-3)
    assert got == pytest.approx(want, rel=1e-6)


COMPILED = [
    (MultinomialNB, {}, "own_downdate"),
    (MultinomialNB, {"estimate": "map"}, "own_downdate"),
    (BernoulliNB, {}, "own_gather"),
    (BernoulliNB, {"estimate": "map", "beta": 3.0}, "own_gather"),
]


@pytest.mark.parametrize("weights", ["none", "twos", "integers", "halves"])
@pytest.mark.parametrize("cls,kw,compiled", COMPILED, ids=lambda m: str(m))
def test_alpha_loo_compiled_own_class_downdate(split, cls, kw, compiled, weights, monkeypatch):
    # Large integer-count corpora take the own-class downdate in one compiled pass over the
    # nonzeros (MultinomialNB: integer weights; BernoulliNB: one weight) instead of
    # own-class tables and per-entry terms: the same α as those (to rounding) and as a
    # brute-force maximisation. Other weights put a downdated count off the grid.
    import importlib

    from bayesnb.scoring import _jit

    if _jit.kernels() is None:
        pytest.skip("numba cannot compile here")
    family = importlib.import_module(f"bayesnb.families.{cls.__name__[:-2].lower()}.crossval")
    monkeypatch.setattr(_jit, "COMPILED_FROM", 1)  # this small corpus takes the path
    Xtr, _, ytr, _ = split
    rng = np.random.default_rng(5)
    w = {
        "none": None,
        "twos": np.full(ytr.size, 2.0),
        "integers": rng.choice([1.0, 2.0, 3.0], ytr.size),
        "halves": rng.choice([0.5, 1.0], ytr.size),
    }[weights]
    calls = []
    run = getattr(family, compiled)
    monkeypatch.setattr(family, compiled, lambda *a: calls.append(1) or run(*a))
    got = cls(alpha="loo", **kw).fit(Xtr, ytr, sample_weight=w).alpha_
    taken = {"none", "twos", "integers"} if cls is MultinomialNB else {"none", "twos"}
    assert bool(calls) == (weights in taken)
    monkeypatch.setattr(family, "own_grid", lambda *a: None)  # the tables and entries
    tables = cls(alpha="loo", **kw).fit(Xtr, ytr, sample_weight=w).alpha_
    assert got == pytest.approx(tables, rel=1e-12)
    lo = 1.0 if kw.get("estimate") == "map" else 1e-3
    assert got == pytest.approx(_brute_force_alpha(cls, kw, Xtr, ytr, w, lo=lo), rel=1e-6)


def test_own_downdate_equals_the_tables_and_entries(split, monkeypatch):
    # The compiled pass against the NumPy one, term by term, at every derivative order,
    # including a = 0 (the MAP at α = 1), where a count downdated to 0 gives -inf.
    warnings.simplefilter("ignore", RuntimeWarning)  # the NumPy pass's 0 · inf at a = 0
    import bayesnb.families._loo_search as search
    import bayesnb.families.multinomial.crossval as mn
    from bayesnb.families._loo_search import CountGrid, documents
    from bayesnb.scoring import _jit

    if _jit.kernels() is None:
        pytest.skip("numba cannot compile here")
    monkeypatch.setattr(_jit, "COMPILED_FROM", 1)
    Xtr, _, ytr, _ = split
    X = Xtr.copy()
    X.data[::7] += 2.0  # counts of 3 and more
    w = np.random.default_rng(1).choice([1.0, 2.0], ytr.size)
    est = MultinomialNB().fit(X, ytr, sample_weight=w)
    T, codes = est.feature_count_, np.searchsorted(est.classes_, ytr)
    grid = search.own_grid(X, w, T)
    assert grid is not None and grid[-1] == T.max()
    X_, c_, w_, _, r = documents(X, codes, w, np.zeros((ytr.size, 3)), None)
    numpy_part = mn._own_part(X_, c_, w_, r, T, CountGrid(0, T.reshape(-1, 1), 1))
    for a, alpha in [(0.7, 0.7), (0.0, 1.0), (2.5, 3.5)]:
        for order in (1, 3):
            want = numpy_part(a, alpha, order)
            terms = np.stack(search.log_shifted(grid, a, alpha, order))
            with np.errstate(divide="ignore", invalid="ignore"):
                got = search.own_downdate(X_, c_, w_, T, terms)
            # The tables' stored zeros of other weights' entries make 0 · (-inf) = NaN at
            # a = 0 where the sum is -inf (the search treats both alike); the pass does not.
            # (Past the first derivative, inf − inf there is NaN in both: log(z + a) is -inf.)
            assert not np.isnan(got[:, :2]).any()
            known = ~np.isnan(want)
            assert np.array_equal(np.isneginf(got[known]), np.isneginf(want[known]))
            assert (a == 0.0) == bool(np.isneginf(got[:, 0]).any())
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)


LOO_COMPILED = [
    (MultinomialNB, "own_downdate", ("none", "twos", "integers")),
    (BernoulliNB, "own_gather", ("none", "twos")),
]


@pytest.mark.parametrize("weights", ["none", "twos", "integers", "halves"])
@pytest.mark.parametrize("estimate", ["mle", "map", "mean"])
@pytest.mark.parametrize("cls,compiled,taken", LOO_COMPILED, ids=["multinomial", "bernoulli"])
def test_exact_loo_compiled_own_class_terms(
    split, cls, compiled, taken, estimate, weights, monkeypatch
):
    # The exact LOO takes its own-class terms (MultinomialNB: Σ_j x_ij log(t − w_i x_ij + s);
    # BernoulliNB, smoothed: Σ_j log(succ / fail) of (class, count)) from the compiled passes
    # on large integer corpora: the pointwise ELPD of the tables-and-entries path (and so
    # of refits) to rounding, -inf where a refit gives -inf.
    import importlib

    from bayesnb.scoring import _jit

    if _jit.kernels() is None:
        pytest.skip("numba cannot compile here")
    family = importlib.import_module(f"bayesnb.families.{cls.__name__[:-2].lower()}.crossval")
    monkeypatch.setattr(_jit, "COMPILED_FROM", 1)
    Xtr, _, ytr, _ = split
    rng = np.random.default_rng(2)
    w = {
        "none": None,
        "twos": np.full(ytr.size, 2.0),
        "integers": rng.choice([1.0, 2.0], ytr.size),
        "halves": rng.choice([0.5, 1.0], ytr.size),
    }[weights]
    est = cls(estimate=estimate, alpha=0.5 if estimate != "map" else 2.0)
    calls = []
    run = getattr(family, compiled)
    monkeypatch.setattr(family, compiled, lambda *a, **k: calls.append(1) or run(*a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = elpd_loo(est, Xtr, ytr, sample_weight=w).pointwise
        smoothed = cls is MultinomialNB or estimate != "mle"
        assert bool(calls) == (weights in taken and smoothed)
        monkeypatch.setattr(family, "own_grid", lambda *a: None)
        want = elpd_loo(est, Xtr, ytr, sample_weight=w).pointwise
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)
    if estimate == "mle" and cls is MultinomialNB:
        assert np.isneginf(got).any()  # a word only the left-out document has
