"""Benchmark: exact cross-validation from statistics against scikit-learn's refits (issue 13).

On a sparse corpus (default 100,000 documents × 20,000 features, 20 classes, ~50 distinct
words a document), in the same run:

1. 10-fold ``cross_val_predict(method="predict_proba")`` of MultinomialNB and BernoulliNB
   by :mod:`bayesnb.model_selection` (one fit, each fold subtracted) against
   :func:`sklearn.model_selection.cross_val_predict` of the same estimator (a refit per
   fold). Target: ≥ 3× faster (the predictions are checked equal).
2. Exact leave-one-out over every document (:func:`bayesnb.model_selection.elpd_loo`)
   against one ``fit`` plus one ``predict_proba`` on the same data. Target: ≤ 3×.
3. ``alpha="loo"`` (one fit, a 1-D search on the exact LOO) against ``GridSearchCV`` over
   20 α (1e-3 .. 10) × 5 folds with ``n_jobs=1`` and ``refit=True`` (its refit counted), both
   from the raw 80 % training part (bayesnb's own fit counted); held-out log loss on the
   other 20 %, with its standard error and the paired difference's. Target: ≥ 20× faster,
   with log loss no worse than the grid's by more than its standard error. For a strict
   single-thread comparison set ``BAYESNB_NUM_THREADS=1`` (the grid runs in one thread).

Run: ``python benchmarks/bench_crossval.py [--docs 100000] [--features 20000] [--repeats 3]
[--only cv|loo|alpha]``; a smaller corpus keeps the ratios meaningful when the machine is
busy. Each part alternates its contenders ``--repeats`` times and reports their median
times and the median of the per-repeat ratios (after an untimed warm-up: large inputs load
the compiled kernels once per process).
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp
import sklearn.naive_bayes
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

import bayesnb as bnb
from bayesnb.model_selection import cross_val_predict, elpd_loo

CV_TARGET, LOO_TARGET, ALPHA_TARGET = 3.0, 3.0, 20.0
N_CLASSES, TOKENS = 20, 60


def corpus(n_docs: int, n_features: int, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """Zipf-distributed tokens, 4 % of them from a class-specific permutation of words."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, N_CLASSES, n_docs)
    ranks = np.arange(1, n_features + 1, dtype=np.float64)
    zipf = 1.0 / ranks
    zipf /= zipf.sum()
    perms = np.array([rng.permutation(n_features) for _ in range(N_CLASSES)])
    lengths = rng.poisson(TOKENS, n_docs) + 1
    doc = np.repeat(np.arange(n_docs), lengths)
    words = rng.choice(n_features, size=doc.size, p=zipf)
    own = rng.random(doc.size) < 0.04
    words[own] = perms[y[doc[own]], words[own]]
    X = sp.csr_matrix((np.ones(doc.size), (doc, words)), shape=(n_docs, n_features))
    X.sum_duplicates()
    return X, y


def _time(fn):
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _report(label: str, ours: float, theirs: float, ratio: float, target: str, ok: bool):
    print(f"  {label}: bayesnb {ours:7.2f} s   reference {theirs:7.2f} s   ratio {ratio:6.2f}")
    print(f"    target {target}: {'PASS' if ok else 'FAIL'}")


def _cv_part(X, y, est, cv, repeats: int) -> bool:
    """Part 1 for one estimator: alternate bayesnb and scikit-learn ``repeats`` times."""
    name = type(est).__name__
    ours_t, sk_t = [], []
    # Warm both up on a slice (imports and first-call set-up are not what is measured).
    cross_val_predict(est, X[:2000], y[:2000], cv=cv, method="predict_proba")
    sk_cross_val_predict(est, X[:2000], y[:2000], cv=cv, method="predict_proba")
    for _ in range(repeats):
        t_ours, ours = _time(lambda: cross_val_predict(est, X, y, cv=cv, method="predict_proba"))
        t_sk, ref = _time(lambda: sk_cross_val_predict(est, X, y, cv=cv, method="predict_proba"))
        assert np.allclose(ours, ref, rtol=1e-9, atol=1e-12), f"{name}: predictions differ"
        ours_t.append(t_ours)
        sk_t.append(t_sk)
    ratio = float(np.median(np.asarray(sk_t) / np.asarray(ours_t)))
    print(f"  {name} per repeat: bayesnb {_secs(ours_t)}; scikit-learn {_secs(sk_t)}")
    ok = ratio >= CV_TARGET
    t_ours, t_sk = float(np.median(ours_t)), float(np.median(sk_t))
    _report(f"10-fold cross_val_predict {name}", t_ours, t_sk, ratio, ">= 3x", ok)
    native = getattr(sklearn.naive_bayes, name)(alpha=0.1)  # for scale: sklearn's own NB
    t_native, _ = _time(lambda: sk_cross_val_predict(native, X, y, cv=cv, method="predict_proba"))
    print(f"    (sklearn.naive_bayes.{name} through the same refits: {t_native:.2f} s)")
    return ok


def _secs(times) -> str:
    return " ".join(f"{t:.3f}" for t in times) + " s"


def _loo_part(X, y, est, repeats: int) -> bool:
    """Part 2 for one estimator: exact LOO against one fit plus one predict_proba, the
    three timed in turn ``repeats`` times; the median of the per-round ratios."""
    name = type(est).__name__
    # Warm up on the whole data, untimed: large inputs load the compiled kernels once per
    # process (not what is measured), on whichever side touches them first.
    elpd_loo(est, X, y)
    clone(est).fit(X, y).predict_proba(X)
    ratios, loo_t, ref_t = [], [], []
    for _ in range(repeats):
        t_fit, fitted = _time(lambda: clone(est).fit(X, y))
        t_pred, _ = _time(lambda f=fitted: f.predict_proba(X))
        t_loo, res = _time(lambda: elpd_loo(est, X, y))
        ratios.append(t_loo / (t_fit + t_pred))
        loo_t.append(t_loo)
        ref_t.append(t_fit + t_pred)
    ratio = float(np.median(ratios))
    print(f"  exact LOO {name}: elpd {res.elpd:.1f} (se {res.se:.1f})")
    print(f"    per repeat: LOO {_secs(loo_t)}; fit + predict_proba {_secs(ref_t)}")
    t_loo, t_ref = float(np.median(loo_t)), float(np.median(ref_t))
    _report(f"LOO vs fit + predict_proba {name}", t_loo, t_ref, ratio, "<= 3", ratio <= 3)
    return ratio <= LOO_TARGET


def _alpha_loo_against_grid(X, y, repeats: int) -> int:
    """Part 3: alpha="loo" against GridSearchCV, interleaved ``repeats`` times; failures."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    grid = np.geomspace(1e-3, 10, 20)
    failed = 0
    for cls in (bnb.MultinomialNB, bnb.BernoulliNB):
        # Both sides fit from the raw training part: bayesnb's time includes its own fit,
        # the grid's its 100 fold fits and the refit on the whole part (refit=True), in one
        # process (n_jobs=1; bayesnb's products use BAYESNB_NUM_THREADS threads).
        # Warm both code paths (first-call costs) on a slice before timing.
        cls(alpha="loo").fit(Xtr, ytr)  # whole size: loads the compiled kernels
        GridSearchCV(cls(), {"alpha": grid[:2]}, cv=2, scoring="neg_log_loss").fit(
            Xtr[:4000], ytr[:4000]
        )
        t_loo, t_grid = [], []
        for _ in range(repeats):
            t, loo = _time(lambda cls=cls: cls(alpha="loo").fit(Xtr, ytr))
            t_loo.append(t)
            search = GridSearchCV(
                cls(),
                {"alpha": grid},
                cv=StratifiedKFold(5),
                scoring="neg_log_loss",
                n_jobs=1,
                refit=True,
            )
            t, search = _time(lambda search=search: search.fit(Xtr, ytr))
            t_grid.append(t)
        losses = {}
        for label, model in (("loo", loo), ("grid", search.best_estimator_)):
            p = model.predict_proba(Xte)[np.arange(yte.size), np.searchsorted(model.classes_, yte)]
            losses[label] = -np.log(p)
        n_te = yte.size
        se = {k: float(np.std(v) / np.sqrt(n_te)) for k, v in losses.items()}
        se_diff = float(np.std(losses["loo"] - losses["grid"]) / np.sqrt(n_te))
        ll_loo, ll_grid = float(losses["loo"].mean()), float(losses["grid"].mean())
        ratios = np.array(t_grid) / np.array(t_loo)
        ratio = float(np.median(ratios))
        print(
            f"  {cls.__name__}: alpha='loo' -> {loo.alpha_:.6g}, grid -> "
            f"{search.best_params_['alpha']:.4g}; held-out log loss {ll_loo:.4f} ± {se['loo']:.4f}"
            f" vs {ll_grid:.4f} ± {se['grid']:.4f} (paired difference "
            f"{ll_loo - ll_grid:+.5f} ± {se_diff:.5f})"
        )
        print(
            "    times (s) loo "
            + " ".join(f"{t:.3f}" for t in t_loo)
            + " | grid "
            + " ".join(f"{t:.2f}" for t in t_grid)
            + " | ratios "
            + " ".join(f"{r:.1f}" for r in ratios)
        )
        ok = ratio >= ALPHA_TARGET and ll_loo <= ll_grid + se["grid"]
        _report(
            f"alpha='loo' vs GridSearchCV {cls.__name__} (median of {repeats})",
            float(np.median(t_loo)),
            float(np.median(t_grid)),
            ratio,
            ">= 20x, loss",
            ok,
        )
        failed += not ok
    return failed


def main(
    n_docs: int = 100_000, n_features: int = 20_000, repeats: int = 3, only: str | None = None
) -> int:
    """Run the comparisons (all three, or ``only`` one); return the number of failed targets."""
    X, y = corpus(n_docs, n_features)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    threads = os.environ.get("BAYESNB_NUM_THREADS", "default")
    print(
        f"corpus {n_docs:,} × {n_features:,}, {N_CLASSES} classes, {X.nnz:,} nonzeros; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; BAYESNB_NUM_THREADS={threads}"
    )
    failed = 0
    warnings.simplefilter("ignore")
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    for est in (bnb.MultinomialNB(alpha=0.1), bnb.BernoulliNB(alpha=0.1)):
        if only in (None, "cv"):
            failed += not _cv_part(X, y, est, cv, repeats)
        if only in (None, "loo"):
            failed += not _loo_part(X, y, est, repeats)

    if only in (None, "alpha"):
        failed += _alpha_loo_against_grid(X, y, repeats)
    print("PASS" if failed == 0 else f"FAIL ({failed} target(s))")
    return int(failed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3, help="alternations of part 1")
    parser.add_argument("--only", choices=("cv", "loo", "alpha"), help="run one part")
    args = parser.parse_args()
    raise SystemExit(main(args.docs, args.features, args.repeats, args.only))
