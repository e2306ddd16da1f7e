"""DirichletCompoundNB cross-validation: warm-started folds against scikit-learn's refits.

On fortune categories (Debian's fortunes, 3/4 of the records, seeded): for each 10-fold
split, the fold model downdated from the full fit and warm-started from its β against a
refit (max relative difference of β and of predict_log_proba, Newton iterations warm and
cold), then ``bayesnb.model_selection.cross_val_predict(cv=10)`` against scikit-learn's,
and ``elpd_loo`` against scikit-learn's leave-one-out refits on a smaller set, interleaved
and repeated (median ratio). ``python benchmarks/bench_dcm_crossval.py [--repeats R]``.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
import warnings

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import LeaveOneOut, StratifiedKFold
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

import bayesnb as bnb
from bayesnb.families import family_of
from bayesnb.model_selection import cross_val_predict, elpd_loo

CATEGORIES = ["art", "computers", "definitions", "food", "law", "linux", "science",
              "songs-poems", "startrek", "zippy"]  # fmt: skip


def corpus(categories, keep: float = 0.75, seed: int = 0):
    """Counts and labels of a seeded ``keep`` share of the records of ``categories``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts, labels = bnb.datasets.load_fortunes(categories=categories, return_X_y=True)
    chosen = np.random.default_rng(seed).random(len(texts)) < keep
    X = CountVectorizer().fit_transform([t for t, c in zip(texts, chosen, strict=True) if c])
    return X.astype(np.float64), labels[chosen]


def folds_against_refits(X, y, estimate: str) -> dict:
    """Warm-started folds against refits: max relative differences and iterations."""
    full = bnb.DirichletCompoundNB(estimate=estimate).fit(X, y)
    family, codes = family_of(full), np.searchsorted(full.classes_, y)
    beta, proba, warm, cold = 0.0, 0.0, [], []
    for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
        model = copy.deepcopy(full)
        family.subtract(model, family.statistics(model, X[test], codes[test], np.ones(test.size)))
        refit = bnb.DirichletCompoundNB(estimate=estimate).fit(X[train], y[train])
        ref = refit.concentration_
        beta = max(beta, float(np.max(np.abs(model.concentration_ - ref) / ref)))
        a, b = model.predict_log_proba(X[test]), refit.predict_log_proba(X[test])
        proba = max(proba, float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))))
        warm.append(model.n_iter_)
        cold.append(refit.n_iter_)
    return {"beta": beta, "proba": proba, "warm": np.mean(warm), "cold": np.mean(cold)}


def timed(f) -> tuple[float, object]:
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loo-categories", default="food,law,medicine")
    args = parser.parse_args(argv)
    try:
        X, y = corpus(CATEGORIES)
        X_loo, y_loo = corpus(args.loo_categories.split(","), keep=0.5)
    except (FileNotFoundError, ValueError):
        print("fortunes not installed (apt-get install fortunes): skipped")
        return 0
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"10 fortune categories: {X.shape[0]} documents x {X.shape[1]} words")
    for estimate in ("map", "mean"):
        r = folds_against_refits(X, y, estimate)
        print(
            f"  {estimate}: warm fold vs refit, max relative difference beta {r['beta']:.1e}, "
            f"predict_log_proba {r['proba']:.1e}; Newton iterations warm {r['warm']:.1f}, "
            f"cold {r['cold']:.1f}"
        )
        ratios = []
        for _ in range(args.repeats):
            ours, _ = timed(
                lambda e=estimate: cross_val_predict(
                    bnb.DirichletCompoundNB(estimate=e), X, y, cv=10
                )
            )
            ref, _ = timed(
                lambda e=estimate: sk_cross_val_predict(
                    bnb.DirichletCompoundNB(estimate=e), X, y, cv=10, method="predict_proba"
                )
            )
            ratios.append(ref / ours)
        print(f"  {estimate}: cross_val_predict(cv=10) {ours:.2f} s, scikit-learn's {ref:.2f} s: "
              f"{np.median(ratios):.2f}x faster (median of {args.repeats})")  # fmt: skip
    print(f"leave-one-out on {X_loo.shape[0]} documents x {X_loo.shape[1]} words")
    ours, exact = timed(lambda: elpd_loo(bnb.DirichletCompoundNB(), X_loo, y_loo))
    ref, refit = timed(
        lambda: sk_cross_val_predict(
            bnb.DirichletCompoundNB(), X_loo, y_loo, cv=LeaveOneOut(), method="predict_log_proba"
        )
    )
    refit = refit[np.arange(y_loo.size), np.searchsorted(np.unique(y_loo), y_loo)]
    gap = float(np.max(np.abs(exact.pointwise - refit) / np.maximum(np.abs(refit), 1e-300)))
    print(f"  elpd_loo {ours:.2f} s, scikit-learn's LOO refits {ref:.2f} s: {ref / ours:.2f}x; "
          f"max relative difference of the pointwise values {gap:.1e}")  # fmt: skip
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
