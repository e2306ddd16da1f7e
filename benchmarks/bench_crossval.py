"""Benchmark: exact cross-validation from statistics against scikit-learn's refits.

On a sparse corpus (default 100,000 documents × 20,000 features, 20 classes, ~50 distinct
words a document: ``_common.zipf_corpus`` with Zipf exponent 1, Poisson(61) tokens, 4 % of them
from a class-specific ranking), in the same run:

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
import os
import warnings

import numpy as np
import sklearn.naive_bayes
from _common import Checks, load_average, seconds, timed, zipf_corpus
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

import bayesnb as bnb
from bayesnb.model_selection import cross_val_predict, elpd_loo

CV_TARGET, LOO_TARGET, ALPHA_TARGET = 3.0, 3.0, 20.0
N_CLASSES, TOKENS = 20, 61


def corpus(n_docs: int, n_features: int, seed: int = 0):
    """Zipf-distributed tokens (exponent 1), 4 % of them from a class-specific ranking."""
    return zipf_corpus(
        n_docs, n_features, N_CLASSES, tokens_per_doc=TOKENS, exponent=1.0,
        class_specific=0.04, seed=seed,
    )  # fmt: skip


def _medians(label: str, ours: list[float], theirs: list[float], ratio: float) -> None:
    print(
        f"  {label}: bayesnb {np.median(ours):7.2f} s   reference {np.median(theirs):7.2f} s   "
        f"ratio {ratio:6.2f} (median of the per-round ratios)"
    )


def _cv_part(X, y, est, cv, repeats: int, checks: Checks) -> None:
    """Part 1 for one estimator: alternate bayesnb and scikit-learn ``repeats`` times."""
    name = type(est).__name__
    ours_t, sk_t = [], []
    # Warm both up on a slice (imports and first-call set-up are not what is measured).
    cross_val_predict(est, X[:2000], y[:2000], cv=cv, method="predict_proba")
    sk_cross_val_predict(est, X[:2000], y[:2000], cv=cv, method="predict_proba")
    for _ in range(repeats):
        t_ours, ours = timed(lambda: cross_val_predict(est, X, y, cv=cv, method="predict_proba"))
        t_sk, ref = timed(lambda: sk_cross_val_predict(est, X, y, cv=cv, method="predict_proba"))
        assert np.allclose(ours, ref, rtol=1e-9, atol=1e-12), f"{name}: predictions differ"
        ours_t.append(t_ours)
        sk_t.append(t_sk)
    ratio = float(np.median(np.asarray(sk_t) / np.asarray(ours_t)))
    print(f"  {name} per repeat: bayesnb {seconds(ours_t)}; scikit-learn {seconds(sk_t)}")
    _medians(f"10-fold cross_val_predict {name}", ours_t, sk_t, ratio)
    checks.at_least(f"10-fold cross_val_predict {name}, scikit-learn / bayesnb", ratio, CV_TARGET)
    native = getattr(sklearn.naive_bayes, name)(alpha=0.1)  # for scale: sklearn's own NB
    t_native, _ = timed(lambda: sk_cross_val_predict(native, X, y, cv=cv, method="predict_proba"))
    print(f"    (sklearn.naive_bayes.{name} through the same refits: {t_native:.2f} s)")


def _loo_part(X, y, est, repeats: int, checks: Checks) -> None:
    """Part 2 for one estimator: exact LOO against one fit plus one predict_proba, the
    three timed in turn ``repeats`` times; the median of the per-round ratios."""
    name = type(est).__name__
    # Warm up on the whole data, untimed: large inputs load the compiled kernels once per
    # process (not what is measured), on whichever side touches them first.
    elpd_loo(est, X, y)
    clone(est).fit(X, y).predict_proba(X)
    ratios, loo_t, ref_t = [], [], []
    for _ in range(repeats):
        t_fit, fitted = timed(lambda: clone(est).fit(X, y))
        t_pred, _ = timed(lambda f=fitted: f.predict_proba(X))
        t_loo, res = timed(lambda: elpd_loo(est, X, y))
        ratios.append(t_loo / (t_fit + t_pred))
        loo_t.append(t_loo)
        ref_t.append(t_fit + t_pred)
    ratio = float(np.median(ratios))
    print(f"  exact LOO {name}: elpd {res.elpd:.1f} (se {res.se:.1f})")
    print(f"    per repeat: LOO {seconds(loo_t)}; fit + predict_proba {seconds(ref_t)}")
    _medians(f"LOO vs fit + predict_proba {name}", loo_t, ref_t, ratio)
    checks.at_most(f"exact LOO {name} / (fit + predict_proba)", ratio, LOO_TARGET)


def _alpha_loo_against_grid(X, y, repeats: int, checks: Checks) -> None:
    """Part 3: alpha="loo" against GridSearchCV, interleaved ``repeats`` times."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
    grid = np.geomspace(1e-3, 10, 20)
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
            t, loo = timed(lambda cls=cls: cls(alpha="loo").fit(Xtr, ytr))
            t_loo.append(t)
            search = GridSearchCV(
                cls(),
                {"alpha": grid},
                cv=StratifiedKFold(5),
                scoring="neg_log_loss",
                n_jobs=1,
                refit=True,
            )
            t, search = timed(lambda search=search: search.fit(Xtr, ytr))
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
        _medians(f"alpha='loo' vs GridSearchCV {cls.__name__}", t_loo, t_grid, ratio)
        checks.add(
            ratio >= ALPHA_TARGET and ll_loo <= ll_grid + se["grid"],
            f"alpha='loo' {cls.__name__}: GridSearchCV / alpha='loo' {ratio:.3g} (target >= "
            f"{ALPHA_TARGET:g}), held-out log loss {ll_loo:.4f} (target <= the grid's "
            f"{ll_grid:.4f} + its se {se['grid']:.4f})",
        )


def main(argv: list[str] | None = None) -> int:
    """Run the comparisons (all three, or ``--only`` one); return the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3, help="alternations of each part")
    parser.add_argument("--only", choices=("cv", "loo", "alpha"), help="run one part")
    args = parser.parse_args(argv)
    X, y = corpus(args.docs, args.features)
    threads = os.environ.get("BAYESNB_NUM_THREADS", "default")
    print(
        f"corpus {args.docs:,} × {args.features:,}, {N_CLASSES} classes, {X.nnz:,} nonzeros; "
        f"load average {load_average()}; BAYESNB_NUM_THREADS={threads}"
    )
    checks = Checks()
    warnings.simplefilter("ignore")
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    for est in (bnb.MultinomialNB(alpha=0.1), bnb.BernoulliNB(alpha=0.1)):
        if args.only in (None, "cv"):
            _cv_part(X, y, est, cv, args.repeats, checks)
        if args.only in (None, "loo"):
            _loo_part(X, y, est, args.repeats, checks)
    if args.only in (None, "alpha"):
        _alpha_loo_against_grid(X, y, args.repeats, checks)
    return checks.report()


if __name__ == "__main__":
    raise SystemExit(main())
