"""Benchmark: DirichletCompoundNB's fit, cross-validation and exact leave-one-out.

Four parts (``--parts``, default all):

- ``text``: on a corpus that looks like text (:func:`lognormal_text_corpus`: Zipf words,
  ``--text-features`` 65,250 words, lognormal document lengths of 10-500 tokens, most counts
  1, ``--text-docs`` 44,328 training documents in 16 classes as the tweets of the report, plus
  10,000 held out), the median of ``--repeats`` interleaved fits of the DCM and of
  MultinomialNB (target ≤ 10×) with the DCM's held-out log loss printed to 10 digits (the
  optimum: compare runs), then ``elpd_loo`` of the DCM against one DCM fit, interleaved
  ``--repeats`` times after an untimed first call (median of the paired ratios; target ≤ 5×),
  and its joint log-probabilities against cold refits without 8 documents (target: relative
  difference ≤ the fit's ``tol``, 1e-6); the same leave-one-out targets on Debian's fortunes
  (the categories with at least 10 of 70 % of the records: classes of 23-883 documents),
  with ``temperature="loo"``'s fit against a fit.

- ``fit``: on the corpus of ``bench_discrete`` plus 20,000 held-out documents of the same law,
  the median of ``--repeats`` interleaved fits of the DCM (Newton's method) and of
  MultinomialNB at α = 1 (target ≤ 10×), and the held-out log loss of the DCM against Minka's
  fixed point on the same statistics (:func:`bayesnb.posterior.polya.polya_fixed_point`, same
  start rule, tolerance and prior; target: no worse, 1e-4 relative), on that corpus and on
  five fortune categories (3/4 train, seeded).
- ``folds``: on 10 fortune categories (3/4 of the records, seeded), for each 10-fold split
  the fold model downdated from the full fit and warm-started from its β against a refit
  (largest relative difference of β and of ``predict_log_proba``, Newton iterations warm and
  cold), then ``bayesnb.model_selection.cross_val_predict(cv=10)`` against scikit-learn's
  refits (median ratio of ``--repeats``), for "map" and "mean".
- ``loo``: ``elpd_loo`` against scikit-learn's leave-one-out refits on three fortune
  categories (half of the records); then the family's single-class refits against the
  generic per-document downdate of the whole model ("generic": the family's
  ``loo_joint_log_proba`` declines, ``families._crossval.per_document`` scores every
  document), interleaved ``--loo-repeats`` times, for ``elpd_loo`` of every estimate on
  scikit-learn's digits and 10 fortune categories (half of their records) and for
  ``bayesnb.compare(loo=True)`` of the DCM's estimates and of MultinomialNB's four beside the
  DCM on digits (3/4 train).

The fortune parts are skipped when Debian's fortunes are not installed. ``main`` returns the
number of failed targets. Run ``python benchmarks/bench_dcm.py [--parts text,fit,folds,loo]
[--docs N --features V --repeats R] [--text-docs N --text-features V] [--loo-repeats R]
[--skip-generic]``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import warnings
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from _common import (
    Checks,
    add_corpus_options,
    fortunes,
    load_average,
    medians,
    paired,
    seconds,
    text_corpus,
    time_interleaved,
    timed,
    zipf_law,
)
from sklearn.datasets import load_digits
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, train_test_split
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

import bayesnb as bnb
from bayesnb.comparison import all_estimates, compare
from bayesnb.families import family_of
from bayesnb.families.dcm.crossval import DCMCrossval
from bayesnb.model_selection import cross_val_predict, elpd_loo
from bayesnb.posterior.polya import polya_fixed_point
from bayesnb.scoring import dcm_jll, normalize_log_proba

HELD_OUT = 20_000
FIT_TARGET, LOSS_TARGET, LOO_TARGET = 10.0, 1e-4, 5.0
TEXT_HELD_OUT, TEXT_CLASSES, TEXT_REFITS = 10_000, 16, 8
CATEGORIES = ["art", "computers", "definitions", "food", "law", "linux", "science",
              "songs-poems", "startrek", "zippy"]  # fmt: skip


# -- text: a corpus that looks like text ------------------------------------------------------
def lognormal_text_corpus(n_docs: int, n_features: int, n_classes: int, seed: int = 0):
    """Zipf(1.1) words, half of a document's tokens through its class's own ranking of the
    vocabulary (as :func:`_common.zipf_corpus`), lengths lognormal (median 30 tokens, σ = 1)
    clipped to 10-500 tokens: most stored counts are 1, a few frequent words repeat."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_docs)
    own_ranking = np.stack([rng.permutation(n_features) for _ in range(n_classes)])
    _, cdf = zipf_law(n_features, 1.1)
    lengths = np.clip(np.round(rng.lognormal(np.log(30.0), 1.0, n_docs)), 10, 500)
    lengths = lengths.astype(np.int64)
    ranks = np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")
    own = rng.random(ranks.shape[0]) < 0.5
    cols = np.where(own, own_ranking[np.repeat(y, lengths), ranks], ranks).astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_matrix((np.ones(cols.shape[0]), cols, indptr), shape=(n_docs, n_features))
    X.sum_duplicates()  # repeated tokens become counts
    return X, y


def loo_against_refits(X, y, exact, n: int) -> float:
    """Largest relative difference of the joint log-probabilities log p(x_i, c | D without i)
    of ``n`` documents (evenly spaced rows) in ``exact`` (an elpd_loo) and cold refits."""
    gap = 0.0
    for i in np.linspace(0, y.size - 1, n).astype(int):
        keep = np.ones(y.size, dtype=bool)
        keep[i] = False
        ref = bnb.DirichletCompoundNB().fit(X[keep], y[keep]).predict_joint_log_proba(X[i])[0]
        gap = max(gap, float(np.max(np.abs(exact.joint[i] - ref) / np.abs(ref))))
    return gap


def text_part(args, checks: Checks) -> None:
    t0 = time.perf_counter()
    X_all, y_all = lognormal_text_corpus(
        args.text_docs + TEXT_HELD_OUT, args.text_features, TEXT_CLASSES, args.seed
    )
    X, y = X_all[: args.text_docs], y_all[: args.text_docs]
    X_test, y_test = X_all[args.text_docs :], y_all[args.text_docs :]
    ones = float(np.mean(X.data == 1))
    print(
        f"text: {X.shape[0]} training + {X_test.shape[0]} held-out docs x {X.shape[1]} words, "
        f"{TEXT_CLASSES} classes, {X.sum() / X.shape[0]:.1f} tokens a document, {ones:.0%} of "
        f"the stored counts 1; built in {time.perf_counter() - t0:.1f} s; median of "
        f"{args.repeats} interleaved runs (load average {load_average()})"
    )
    times = medians(
        time_interleaved(
            {
                "multinomial": lambda: bnb.MultinomialNB().fit(X, y),
                "dcm": lambda: bnb.DirichletCompoundNB().fit(X, y),
            },
            args.repeats,
        )
    )
    dcm = bnb.DirichletCompoundNB().fit(X, y)
    loss = log_loss(dcm.predict_log_proba(X_test), y_test)
    ratio = times["dcm"] / times["multinomial"]
    print(
        f"  DirichletCompoundNB fit {times['dcm']:.3f} s ({dcm.n_iter_} Newton iterations) vs "
        f"MultinomialNB {times['multinomial']:.3f} s ({ratio:.1f}x); held-out log loss "
        f"{loss:.10f}"
    )
    checks.at_most("text: DirichletCompoundNB fit / MultinomialNB fit", ratio, FIT_TARGET, "x")
    loo_against_fit("text", X, y, args.repeats, checks)


def loo_against_fit(label: str, X, y, repeats: int, checks: Checks) -> None:
    """``elpd_loo`` of the DCM against one DCM fit (target ≤ 5×) and against cold refits."""
    # Untimed first call at full size (ArviZ's import, the first pass's page faults); then
    # elpd_loo and a fit interleaved, the ratio paired round by round.
    first, exact = timed(lambda: elpd_loo(bnb.DirichletCompoundNB(), X, y))
    rounds = time_interleaved(
        {
            "loo": lambda: elpd_loo(bnb.DirichletCompoundNB(), X, y),
            "dcm": lambda: bnb.DirichletCompoundNB().fit(X, y),
        },
        repeats,
    )
    ratio, lo, hi = paired(rounds["loo"], rounds["dcm"])
    print(
        f"  elpd_loo {seconds(rounds['loo'])} (first call {first:.3f} s), DCM fit "
        f"{seconds(rounds['dcm'])}: {ratio:.1f}x one fit (rounds {lo:.1f}-{hi:.1f}x), elpd "
        f"{exact.elpd:.6f} (load average {load_average()})"
    )
    checks.at_most(f"{label}: DCM elpd_loo / DCM fit", ratio, LOO_TARGET, "x")
    gap = loo_against_refits(X, y, exact, TEXT_REFITS)
    checks.at_most(
        f"{label}: DCM elpd_loo against {TEXT_REFITS} cold refits, largest relative difference",
        gap,
        float(bnb.DirichletCompoundNB().tol),
    )


def fortunes_loo_part(args, checks: Checks) -> None:
    """The same on Debian's fortunes (70 % of the records, the categories with at least 10
    of them: small classes, where one document moves its class's optimum the most), and
    ``temperature="loo"``'s fit, which is one leave-one-out."""
    data = fortunes(held_out=0.3, seed=0, min_docs=10)
    if data is None:
        return
    X, y = data[0], data[1]
    sizes = np.unique(y, return_counts=True)[1]
    print(
        f"fortunes: {X.shape[0]} documents x {X.shape[1]} words, {sizes.size} classes of "
        f"{sizes.min()}-{sizes.max()} documents; median of {args.repeats} interleaved runs"
    )
    loo_against_fit("fortunes", X, y, args.repeats, checks)
    rounds = time_interleaved(
        {
            "tau": lambda: bnb.DirichletCompoundNB(temperature="loo").fit(X, y),
            "dcm": lambda: bnb.DirichletCompoundNB().fit(X, y),
        },
        args.repeats,
    )
    ratio = paired(rounds["tau"], rounds["dcm"])[0]
    print(
        f"  DirichletCompoundNB(temperature='loo') fit {seconds(rounds['tau'])}: {ratio:.1f}x "
        f"one fit (load average {load_average()})"
    )


# -- fit: Newton against the multinomial's fit and against the fixed point --------------------
def log_loss(log_proba: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log probability of the true classes (codes ``y``)."""
    return float(-np.mean(log_proba[np.arange(y.size), y]))


def fit_costs(X, y, X_test, y_test, repeats: int) -> dict[str, float]:
    """DCM and multinomial fit times, and held-out log losses of Newton and the fixed point."""
    times = medians(
        time_interleaved(
            {
                "multinomial": lambda: bnb.MultinomialNB().fit(X, y),
                "dcm": lambda: bnb.DirichletCompoundNB().fit(X, y),
            },
            repeats,
        )
    )
    dcm = bnb.DirichletCompoundNB().fit(X, y)
    prior = dcm.class_log_prior_
    newton = log_loss(normalize_log_proba(dcm.predict_joint_log_proba(X_test), prior), y_test)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning is a figure here, not an error
        fp = polya_fixed_point(
            dcm.polya_stats_,
            dcm.feature_count_,
            shape_extra=float(dcm.prior_shape) - 1.0,
            rate=float(dcm.prior_rate),
            tol=float(dcm.tol),
            max_iter=int(dcm.max_iter),
        )
    times["fixed_point"] = time.perf_counter() - t0
    jll = dcm_jll(X_test, fp.beta) + prior
    fixed = log_loss(normalize_log_proba(jll, prior), y_test)
    return times | {
        "log_loss_newton": newton,
        "log_loss_fixed_point": fixed,
        "n_iter_newton": dcm.n_iter_,
        "n_iter_fixed_point": fp.n_iter,
    }


def _check_log_loss(checks: Checks, what: str, res: dict) -> None:
    # Relative, with a floor (on the synthetic corpus both are close to 0). The fixed point
    # stops at tol = 1e-6 in β, short of the optimum Newton reaches (a relative difference
    # near 1e-6 in the held-out log loss, of either sign): "no worse" up to 1e-4.
    ref = res["log_loss_fixed_point"]
    excess = (res["log_loss_newton"] - ref) / max(ref, 1e-3)
    checks.at_most(
        f"DCM held-out log loss on {what}, excess over the fixed point", excess, LOSS_TARGET
    )


def fit_part(args, checks: Checks) -> None:
    t0 = time.perf_counter()
    X_all, y_all = text_corpus(
        args.docs + HELD_OUT, args.features, args.classes, args.nnz, args.seed
    )
    X, y = X_all[: args.docs], y_all[: args.docs]
    X_test, y_test = X_all[args.docs :], y_all[args.docs :]
    print(
        f"fit: {X.shape[0]} training + {X_test.shape[0]} held-out docs x {X.shape[1]} features, "
        f"{args.classes} classes; built in {time.perf_counter() - t0:.1f} s; median of "
        f"{args.repeats} interleaved runs"
    )
    res = fit_costs(X, y, X_test, y_test, args.repeats)
    ratio = res["dcm"] / res["multinomial"]
    print(
        f"  DirichletCompoundNB fit {res['dcm']:.3f} s ({res['n_iter_newton']} Newton "
        f"iterations) vs MultinomialNB {res['multinomial']:.3f} s ({ratio:.1f}x); the fixed "
        f"point alone took {res['fixed_point']:.1f} s ({res['n_iter_fixed_point']} iterations)"
    )
    print(
        f"  held-out log loss: Newton {res['log_loss_newton']:.6g}, fixed point "
        f"{res['log_loss_fixed_point']:.6g}"
    )
    checks.at_most("DirichletCompoundNB fit / MultinomialNB fit", ratio, FIT_TARGET, "x")
    _check_log_loss(checks, "synthetic", res)
    data = fortunes(["art", "computers", "food", "law", "science"], held_out=0.25)
    if data is None:
        return
    X, labels, X_test, labels_test = data
    classes = np.unique(np.concatenate([labels, labels_test]))
    codes, codes_test = np.searchsorted(classes, labels), np.searchsorted(classes, labels_test)
    real = fit_costs(X, codes, X_test, codes_test, args.repeats)
    print(
        f"  fortunes ({X.shape[0]} training docs x {X.shape[1]} words): DirichletCompoundNB fit "
        f"{real['dcm']:.3f} s vs MultinomialNB {real['multinomial']:.3f} s "
        f"({real['dcm'] / real['multinomial']:.1f}x, a small corpus: fixed costs); held-out "
        f"log loss: Newton {real['log_loss_newton']:.6g}, fixed point "
        f"{real['log_loss_fixed_point']:.6g}"
    )
    _check_log_loss(checks, "fortunes", real)


# -- folds: warm-started downdates against refits --------------------------------------------
def folds_against_refits(X, y, estimate: str) -> dict:
    """Warm-started folds against refits: largest relative differences and iterations."""
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


def folds_part(args) -> None:
    data = fortunes(CATEGORIES, keep=0.75)
    if data is None:
        return
    X, y = data[:2]
    print(f"folds: 10 fortune categories, {X.shape[0]} documents x {X.shape[1]} words")
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


# -- loo: exact leave-one-out against refits and against the generic downdate -----------------
@contextmanager
def generic():
    """The generic per-document path (the family declines its fast path)."""
    fast = DCMCrossval.loo_joint_log_proba
    DCMCrossval.loo_joint_log_proba = lambda self, est, X, codes, weights: None
    try:
        yield
    finally:
        DCMCrossval.loo_joint_log_proba = fast


def quiet(run):
    """``run()`` with its warnings silenced (timed by the contests)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run()


def _gap(a, b) -> float:
    if hasattr(a, "pointwise"):
        x, y = a.pointwise, b.pointwise
    else:
        x, y = a["elpd_loo"].values, b["elpd_loo"].values
    fin = np.isfinite(x) & np.isfinite(y)
    assert np.array_equal(np.isfinite(x), np.isfinite(y))
    return float(np.max(np.abs(x[fin] - y[fin]), initial=0.0))


def contest(label: str, run, repeats: int, skip_generic: bool) -> None:
    """Interleaved repeats of the fast and the generic path; medians and their agreement."""
    fast, slow, gap = [], [], 0.0
    for _ in range(repeats):
        t, a = timed(lambda: quiet(run))
        fast.append(t)
        if not skip_generic:
            with generic():
                t, b = timed(lambda: quiet(run))
            slow.append(t)
            gap = max(gap, _gap(a, b))
    line = f"  {label}: fast {np.median(fast):.2f} s"
    if slow:
        line += (
            f", generic {np.median(slow):.2f} s: {np.median(slow) / np.median(fast):.1f}x "
            f"(median of {repeats}); largest difference {gap:.1e}"
        )
    print(line, flush=True)


def elpd_contests(X, y, args) -> None:
    """``elpd_loo`` of every estimate in ``args.estimates``, fast against generic."""
    for e in args.estimates.split(","):
        contest(
            f"elpd_loo {e}",
            lambda e=e: elpd_loo(bnb.DirichletCompoundNB(estimate=e), X, y),
            args.loo_repeats,
            args.skip_generic,
        )


def loo_part(args) -> None:
    data = fortunes(args.loo_categories.split(","), keep=0.5)
    if data is not None:
        X, y = data[:2]
        print(f"loo: {X.shape[0]} documents x {X.shape[1]} words against refits")
        ours, exact = timed(lambda: elpd_loo(bnb.DirichletCompoundNB(), X, y))
        ref, refit = timed(
            lambda: sk_cross_val_predict(
                bnb.DirichletCompoundNB(), X, y, cv=LeaveOneOut(), method="predict_log_proba"
            )
        )
        refit = refit[np.arange(y.size), np.searchsorted(np.unique(y), y)]
        gap = float(np.max(np.abs(exact.pointwise - refit) / np.maximum(np.abs(refit), 1e-300)))
        print(
            f"  elpd_loo {ours:.2f} s, scikit-learn's LOO refits {ref:.2f} s: {ref / ours:.2f}x; "
            f"max relative difference of the pointwise values {gap:.1e}"
        )
    Xd, yd = load_digits(return_X_y=True)
    print(f"loo: digits, {Xd.shape[0]} documents x {Xd.shape[1]} features, fast against generic")
    elpd_contests(Xd, yd, args)
    split = train_test_split(Xd, yd, test_size=0.25, random_state=0, stratify=yd)
    # The DCM refuses "bayes": its three estimates, and beside MultinomialNB's four.
    dcm = {k: v for k, v in all_estimates(bnb.DirichletCompoundNB()).items() if k != "bayes"}
    both = {**all_estimates(bnb.MultinomialNB()), "dcm": bnb.DirichletCompoundNB()}
    for label, models in (("DCM mle/map/mean", dcm), ("MultinomialNB x4 + DCM", both)):
        contest(
            f"compare({label}, 3/4 train, loo=True)",
            lambda m=models: compare(m, *split[::2], *split[1::2], loo=True),
            args.loo_repeats,
            args.skip_generic,
        )
    data = fortunes(CATEGORIES, keep=0.5)
    if data is not None:
        X, y = data[:2]
        print(f"loo: 10 fortune categories, {X.shape[0]} documents x {X.shape[1]} words")
        elpd_contests(X, y, args)


def main(argv: list[str] | None = None) -> int:
    """Run the parts; returns the number of failed targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser, repeats=3)
    parser.add_argument("--parts", default="text,fit,folds,loo")
    parser.add_argument("--text-docs", type=int, default=44_328)
    parser.add_argument("--text-features", type=int, default=65_250)
    parser.add_argument("--loo-repeats", type=int, default=1)
    parser.add_argument("--skip-generic", action="store_true")
    parser.add_argument("--estimates", default="map,mle,mean")
    parser.add_argument("--loo-categories", default="food,law,medicine")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    print(f"== bench_dcm (load average {load_average()}) ==")
    checks = Checks()
    if "text" in parts:
        text_part(args, checks)
        fortunes_loo_part(args, checks)
    if "fit" in parts:
        fit_part(args, checks)
    if "folds" in parts:
        folds_part(args)
    if "loo" in parts:
        loo_part(args)
    return checks.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
