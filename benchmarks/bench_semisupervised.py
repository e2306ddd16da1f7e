"""Benchmark: EM and VB with unlabelled documents (``bayesnb.SemiSupervisedNB``), speed and gain.

1. Speed. A synthetic Zipf corpus (:func:`_common.text_corpus`; default 100,000 documents ×
   20,000 features, about 100 stored values a document, 20 classes), 5 % of the documents
   labelled. One EM iteration (an E-step, the soft statistics Rᵀ·X and the M-step, with the
   observed-data log posterior: the ``step`` that ``SemiSupervisedNB.fit`` repeats) against
   one ``fit`` on every document plus one ``predict_proba`` of the unlabelled ones,
   interleaved over ``--repeats`` rounds. Target: at most 1.5× (median of the per-round
   ratios). One VB iteration (q(z) from the digamma tables, the soft statistics, the
   conjugate update and the ELBO, whose log evidence costs K × V log-gammas) is timed in the
   same rounds and reported, no target.
2. Gain. Debian's fortunes (categories with at least 10 training documents, 30 % held out,
   as ``bench_temperature.py`` loads them), 5 labelled documents per class and the rest of
   the training part unlabelled: held-out accuracy and log loss of the labelled-only fit
   against EM (λ = 1 and λ = 0.1), MultinomialNB(α = 1.1, ``"map"``), and of the
   labelled-only posterior predictive (``"bayes"``) against variational Bayes
   (``inference="vb"``, λ = 1 and 0.1, scored by the predictive of q(θ)); mean ± standard
   error over ``--seeds`` draws of the labelled documents, each gain paired with its own
   baseline on the same draw. Reported, no target.
3. λ by cross-validation of EM (``unlabelled_weight="cv"``, default folds: 5 stratified,
   one labelled document per class held out in each), the same estimator, in the same
   rounds: its accuracy and log loss beside λ = 1 and the labelled-only fit, paired
   differences against both, the λ chosen, and its cost relative to one EM fit at λ = 1
   (the median over the seeds of the paired ratio of the two fits' times). Reported.
4. The leak of the diagnostic ``labelled_loo`` (responsibilities held at the full fit's):
   for ``--gap-docs`` labelled documents of the first draw (seeded), log p(y_i | x_i) under
   EM re-run without document i against that score, at λ = 1 and λ = 0.01. Reported.

The load average is printed beside every figure. Run ``python benchmarks/bench_semisupervised.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
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
)
from sklearn.metrics import log_loss

import bayesnb as bnb


def _speed(args, checks: Checks) -> None:
    X, y = text_corpus(args.docs, args.features, args.classes, args.nnz, args.seed)
    rng = np.random.default_rng(args.seed)
    yy = np.where(rng.random(len(y)) < 0.05, y, -1)
    unlabelled = X[yy == -1]
    print(
        f"== EM iteration: {X.shape[0]:,} × {X.shape[1]:,}, {X.nnz:,} stored values, "
        f"{len(np.unique(y))} classes, {np.mean(yy != -1):.1%} labelled ({load_average()}) =="
    )
    est = bnb.MultinomialNB(alpha=1.1, estimate="map")
    # The EM state after the labelled-only fit; each step() is one iteration (E, soft
    # statistics, M and the log posterior), as SemiSupervisedNB.fit runs them.
    state = bnb.SemiSupervisedNB(est)._start(X, yy, None)
    vb = bnb.SemiSupervisedNB(bnb.MultinomialNB(alpha=1.1), inference="vb")._start(X, yy, None)

    def fit_predict():
        bnb.MultinomialNB(alpha=1.1, estimate="map").fit(X, y).predict_proba(unlabelled)

    fit_predict()  # imports and first-call costs out of the timing
    state.step()
    vb.step()
    rounds = time_interleaved(
        {"iteration": state.step, "VB iteration": vb.step, "fit+predict_proba": fit_predict},
        args.repeats,
    )
    ratio, low, high = paired(rounds["iteration"], rounds["fit+predict_proba"])
    med = medians(rounds)
    print(f"  one EM iteration      {med['iteration']:.3f} s  ({seconds(rounds['iteration'])})")
    print(
        f"  fit + predict_proba   {med['fit+predict_proba']:.3f} s  "
        f"({seconds(rounds['fit+predict_proba'])})"
    )
    print(f"  ratio {ratio:.3f} (min {low:.3f}, max {high:.3f})  load {load_average()}")
    vb_ratio, vb_low, vb_high = paired(rounds["VB iteration"], rounds["fit+predict_proba"])
    print(
        f"  one VB iteration      {med['VB iteration']:.3f} s  ({seconds(rounds['VB iteration'])})"
        f"  ratio {vb_ratio:.3f} (min {vb_low:.3f}, max {vb_high:.3f})  load {load_average()}"
    )
    checks.at_most("one EM iteration / (fit + predict_proba)", ratio, 1.5, "×")


def _scores(model, X_test, y_test, classes) -> tuple[float, float]:
    proba = model.predict_proba(X_test)
    return float(np.mean(model.predict(X_test) == y_test)), log_loss(y_test, proba, labels=classes)


def _gain(args) -> None:
    data = fortunes(held_out=0.3, seed=0, min_docs=10)
    if data is None:
        return
    X, y, X_test, y_test = data
    kept = np.unique(y)
    print(
        f"\n== fortunes, 5 labelled per class: {X.shape[0]:,} training × {X.shape[1]:,} words, "
        f"{X_test.shape[0]:,} held out, {len(kept)} classes ({load_average()}) =="
    )
    runs = {  # name: (estimator, inference, λ, the baseline its gain is paired with)
        "EM λ = 1": ("map", "em", 1.0, "labelled only"),
        "EM λ = 0.1": ("map", "em", 0.1, "labelled only"),
        "EM λ = cv": ("map", "em", "cv", "labelled only"),
        "VB λ = 1": ("bayes", "vb", 1.0, "labelled, bayes"),
        "VB λ = 0.1": ("bayes", "vb", 0.1, "labelled, bayes"),
    }
    rows = {"labelled only": [], "labelled, bayes": [], **{name: [] for name in runs}}
    iters = {name: [] for name in runs}
    took = {name: [] for name in runs}
    chosen, curves = [], []
    for seed in range(args.seeds):
        pick, yy = _labelled_draw(y, kept, seed)
        for name, estimate in (("labelled only", "map"), ("labelled, bayes", "bayes")):
            sup = bnb.MultinomialNB(alpha=1.1, estimate=estimate).fit(X[pick], y[pick])
            rows[name].append(_scores(sup, X_test, y_test, kept))
        for name, (estimate, inference, lam, _) in runs.items():
            est = bnb.MultinomialNB(alpha=1.1, estimate=estimate)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = bnb.SemiSupervisedNB(est, unlabelled_weight=lam, inference=inference)
                start = time.perf_counter()
                model.fit(X, yy)
                took[name].append(time.perf_counter() - start)
            rows[name].append(_scores(model, X_test, y_test, kept))
            iters[name].append(model.n_iter_)
            if lam == "cv":
                chosen.append(model.unlabelled_weight_)
                curves.append(model.loo_curve_)
    for name, values in rows.items():
        v = np.asarray(values)
        se = v.std(axis=0, ddof=1) / np.sqrt(len(v))
        line = (
            f"  {name:<16} accuracy {v[:, 0].mean():.4f} ± {se[0]:.4f}   "
            f"log loss {v[:, 1].mean():.4f} ± {se[1]:.4f}"
        )
        if name in runs:
            d = v - np.asarray(rows[runs[name][3]])  # paired: the same labelled documents
            dse = d.std(axis=0, ddof=1) / np.sqrt(len(d))
            line += (
                f"   gain: accuracy {d[:, 0].mean():+.4f} ± {dse[0]:.4f}, log loss "
                f"{d[:, 1].mean():+.4f} ± {dse[1]:.4f}  ({np.mean(iters[name]):.0f} iterations)"
            )
        print(line)
    print(f"  ({args.seeds} seeds, mean ± SE; load {load_average()})")
    d = np.asarray(rows["EM λ = cv"]) - np.asarray(rows["EM λ = 1"])
    dse = d.std(axis=0, ddof=1) / np.sqrt(len(d))
    print(
        f"  λ = cv − λ = 1 (paired): accuracy {d[:, 0].mean():+.4f} ± {dse[0]:.4f}, log loss "
        f"{d[:, 1].mean():+.4f} ± {dse[1]:.4f}"
    )
    for c in curves:
        print(
            "  elpd_cv per λ "
            + ", ".join(
                f"{w:g}: {e:.1f}" for w, e in zip(c["unlabelled_weight"], c["elpd_cv"], strict=True)
            )
            + "; iterations, full fit / fold mean: "
            + ", ".join(
                f"{n:.0f}/{f:.0f}" for n, f in zip(c["n_iter"], c["fold_n_iter"], strict=True)
            )
        )
    ratio = np.median(np.asarray(took["EM λ = cv"]) / np.asarray(took["EM λ = 1"]))
    print(
        f"  λ = cv chose {', '.join(f'{v:g}' for v in chosen)}; its fit took "
        f"{np.median(took['EM λ = cv']):.1f} s, {ratio:.2f}× one EM fit at λ = 1 "
        f"({np.median(took['EM λ = 1']):.1f} s; medians over seeds; load {load_average()})"
    )


def _labelled_draw(y, kept, seed: int):
    """5 labelled documents per class (seeded); the rest marked unlabelled ("")."""
    rng = np.random.default_rng(seed)
    pick = np.concatenate([rng.choice(np.flatnonzero(y == c), 5, replace=False) for c in kept])
    yy = np.full(len(y), "", dtype=object)
    yy[pick] = y[pick]
    return pick, yy


def _gap(args) -> None:
    from bayesnb.semisupervised_loo import labelled_loo

    data = fortunes(held_out=0.3, seed=0, min_docs=10)
    if data is None or args.gap_docs <= 0:
        return
    X, y = data[0], data[1]
    _, yy = _labelled_draw(y, np.unique(y), 0)
    labelled = np.flatnonzero(yy != "")
    docs = np.random.default_rng(5).choice(labelled.size, args.gap_docs, replace=False)
    print(f"\n== labelled_loo against re-running EM without the document ({load_average()}) ==")
    est = bnb.MultinomialNB(alpha=1.1, estimate="map")
    for lam in (1.0, 0.01):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fixed = labelled_loo(bnb.SemiSupervisedNB(est, unlabelled_weight=lam).fit(X, yy), X, yy)
            gaps = []
            for j in docs:
                i = labelled[j]
                keep = np.arange(len(yy)) != i
                refit = bnb.SemiSupervisedNB(est, unlabelled_weight=lam).fit(X[keep], yy[keep])
                own = list(refit.classes_).index(yy[i])
                gaps.append(fixed[j] - refit.predict_log_proba(X[i : i + 1])[0, own])
        g = np.asarray(gaps)
        print(
            f"  λ = {lam:g}: fixed − refit per document mean {g.mean():.3f}, median "
            f"{np.median(g):.3f}, min {g.min():.3f}, max {g.max():.3f} nats "
            f"({g.size} documents; load {load_average()})"
        )


def main(argv: list[str] | None = None) -> int:
    """Print the figures and the PASS/FAIL line; return the number of failed targets."""
    parser = add_corpus_options(argparse.ArgumentParser(description=__doc__), repeats=3)
    parser.set_defaults(docs=100_000, features=20_000)
    parser.add_argument("--seeds", type=int, default=5, help="labelled draws on fortunes")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-gain", action="store_true")
    parser.add_argument(
        "--gap-docs", type=int, default=10, help="labelled documents refitted (0: skip)"
    )
    args = parser.parse_args(argv)
    checks = Checks()
    if not args.skip_speed:
        _speed(args, checks)
    if not args.skip_gain:
        _gain(args)
    _gap(args)
    return checks.report()


if __name__ == "__main__":
    sys.exit(main())
