"""DirichletCompoundNB exact leave-one-out: the family's single-class refits against the
generic per-document downdate of the whole model (what ran before), interleaved.

``elpd_loo(DirichletCompoundNB(estimate=e), X, y)`` on scikit-learn's digits and on 10 fortune
categories (half of their records, seeded), and ``bayesnb.compare`` of the four-estimate dict
(``all_estimates`` of the DCM without its refused "bayes", and MultinomialNB's four
beside the DCM; ``loo=True``) on digits (3/4 train, 1/4 test); "generic" switches the family's
``loo_joint_log_proba`` off (``families._crossval.per_document`` then scores every document).
``python benchmarks/bench_dcm_loo.py [--repeats R] [--skip-generic]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import bayesnb as bnb
from bayesnb.compare import all_estimates, compare
from bayesnb.families.dcm.crossval import DCMCrossval
from bayesnb.model_selection import elpd_loo

sys.path.insert(0, os.path.dirname(__file__))
from bench_dcm_crossval import CATEGORIES, corpus


@contextmanager
def generic():
    """The generic per-document path (the family declines its fast path)."""
    fast = DCMCrossval.loo_joint_log_proba
    DCMCrossval.loo_joint_log_proba = lambda self, est, X, codes, weights: None
    try:
        yield
    finally:
        DCMCrossval.loo_joint_log_proba = fast


def timed(f) -> tuple[float, object]:
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = f()
    return time.perf_counter() - t, out


def contest(label: str, run, repeats: int, skip_generic: bool) -> None:
    """Interleaved repeats of the fast and the generic path; medians and their agreement."""
    fast, slow, gap = [], [], 0.0
    for _ in range(repeats):
        t, a = timed(run)
        fast.append(t)
        if not skip_generic:
            with generic():
                t, b = timed(run)
            slow.append(t)
            gap = max(gap, _gap(a, b))
    line = f"  {label}: fast {np.median(fast):.2f} s"
    if slow:
        line += (
            f", generic {np.median(slow):.2f} s: {np.median(slow) / np.median(fast):.1f}x "
            f"(median of {repeats}); largest difference {gap:.1e}"
        )
    print(line, flush=True)


def _gap(a, b) -> float:
    if hasattr(a, "pointwise"):
        x, y = a.pointwise, b.pointwise
    else:
        x, y = a["elpd_loo"].values, b["elpd_loo"].values
    fin = np.isfinite(x) & np.isfinite(y)
    assert np.array_equal(np.isfinite(x), np.isfinite(y))
    return float(np.max(np.abs(x[fin] - y[fin]), initial=0.0))


def elpd_contests(X, y, args) -> None:
    """``elpd_loo`` of every estimate in ``args.estimates``, fast against generic."""
    for e in args.estimates.split(","):
        contest(
            f"elpd_loo {e}",
            lambda e=e: elpd_loo(bnb.DirichletCompoundNB(estimate=e), X, y),
            args.repeats,
            args.skip_generic,
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--skip-generic", action="store_true")
    parser.add_argument("--estimates", default="map,mle,mean")
    parser.add_argument("--parts", default="digits,compare,fortunes")
    args = parser.parse_args(argv)
    Xd, yd = load_digits(return_X_y=True)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"digits: {Xd.shape[0]} documents x {Xd.shape[1]} features")
    parts = args.parts.split(",")
    if "digits" in parts:
        elpd_contests(Xd, yd, args)
    split = train_test_split(Xd, yd, test_size=0.25, random_state=0, stratify=yd)
    # The DCM refuses "bayes": its three estimates, and beside MultinomialNB's four.
    dcm = {k: v for k, v in all_estimates(bnb.DirichletCompoundNB()).items() if k != "bayes"}
    both = {**all_estimates(bnb.MultinomialNB()), "dcm": bnb.DirichletCompoundNB()}
    for label, models in (("DCM mle/map/mean", dcm), ("MultinomialNB x4 + DCM", both)):
        if "compare" in parts:
            contest(
                f"compare({label}, 3/4 train, loo=True)",
                lambda m=models: compare(m, *split[::2], *split[1::2], loo=True),
                args.repeats,
                args.skip_generic,
            )
    if "fortunes" not in parts:
        return 0
    try:
        Xf, yf = corpus(CATEGORIES, keep=0.5)
    except (FileNotFoundError, ValueError):
        print("fortunes not installed (apt-get install fortunes): skipped")
        return 0
    print(f"10 fortune categories: {Xf.shape[0]} documents x {Xf.shape[1]} words")
    elpd_contests(Xf, yf, args)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
