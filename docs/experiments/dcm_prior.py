"""Experiment: DirichletCompoundNB's held-out accuracy and log loss over a grid of Gamma priors.

The conclusion (the default prior stays Gamma(1.1, 1)) is in docs/design.md, at
"The DCM's default prior"; this script reprints the grid it rests on. It is no benchmark
(``make bench`` does not run it).

Every β_cj ~ Gamma(shape a, rate b); the grid is over the shape a and the prior mean of one
concentration m = a / b, given as the total prior concentration of a class κ = V · m (V the
vocabulary size), plus the default's per-word prior mean (m = 1.1, κ = 1.1 V, "1.1·V").
Estimates "map" and "mean" at every grid point ("mean" only below shape 1, where the mode is
refused), "mle" once for reference. Data: 10 fortune
categories, all fortune categories (Debian's fortunes, stratified seeded 3/4 train, the
vocabulary of the training part) and a synthetic Zipf corpus (``bench_crossval.corpus``).

``python docs/experiments/dcm_prior.py [--setups fortunes10,fortunes,synthetic]
[--shapes 0.1,1.1,2,5,20] [--kappas 1,10,100,1000,10000,default]``
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

import bayesnb as bnb

# The Zipf corpus of the cross-validation benchmark.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_crossval import corpus as zipf_corpus

CATEGORIES = ["art", "computers", "definitions", "food", "law", "linux", "science",
              "songs-poems", "startrek", "zippy"]  # fmt: skip


def fortunes(categories):
    """Train/test counts of the fortunes of ``categories`` (None: all), stratified 3/4 split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        texts, y = bnb.datasets.load_fortunes(categories=categories, return_X_y=True)
    train, test = train_test_split(
        np.arange(len(texts)), test_size=0.25, random_state=0, stratify=y
    )
    vec = CountVectorizer()
    X_train = vec.fit_transform([texts[i] for i in train]).astype(np.float64)
    X_test = vec.transform([texts[i] for i in test]).astype(np.float64)
    return X_train, y[train], X_test, y[test]


def synthetic(n_docs: int = 20_000, n_features: int = 5_000):
    """The Zipf corpus of ``bench_crossval`` (not bursty: a non-text check), seeded 3/4 split."""
    X, y = zipf_corpus(n_docs + n_docs // 3, n_features, seed=0)
    return X[:n_docs], y[:n_docs], X[n_docs:], y[n_docs:]


SETUPS = {
    "fortunes10": lambda: fortunes(CATEGORIES),
    "fortunes": lambda: fortunes(None),
    "synthetic": synthetic,
}


def scores(est, X_test, y_test) -> tuple[float, float]:
    """Accuracy and log loss (mean −ln p(y | x); inf where a true class has probability 0)."""
    logp = est.predict_log_proba(X_test)
    codes = np.searchsorted(est.classes_, y_test)
    acc = float(np.mean(est.classes_[np.argmax(logp, axis=1)] == y_test))
    return acc, float(-np.mean(logp[np.arange(codes.size), codes]))


def run(X, y, X_test, y_test, estimate: str, shape: float, rate: float) -> tuple:
    """Accuracy, log loss and whether the iteration converged, of one fit (nan: it failed)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = bnb.DirichletCompoundNB(prior_shape=shape, prior_rate=rate, estimate=estimate)
        try:
            est.fit(X, y)
        except ValueError:  # the Laplace mode of a shape far below 1 may not be found
            return np.nan, np.nan, False
        acc, loss = scores(est, X_test, y_test)
    return acc, loss, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setups", default="fortunes10,fortunes,synthetic")
    parser.add_argument("--shapes", default="0.1,1.1,2,5,20")
    parser.add_argument("--kappas", default="default,10000,1000,100,10,1")
    args = parser.parse_args(argv)
    shapes = [float(s) for s in args.shapes.split(",")]
    print(f"load average: {os.getloadavg()[0]:.2f}")
    for name in args.setups.split(","):
        try:
            X, y, X_test, y_test = SETUPS[name]()
        except (FileNotFoundError, ValueError):
            print(f"{name}: fortunes not installed (apt-get install fortunes): skipped")
            continue
        v = X.shape[1]
        print(f"\n## {name}: {X.shape[0]} training x {v} words, {X_test.shape[0]} test, "
              f"{np.unique(y).size} classes")  # fmt: skip
        acc, loss, _ = run(X, y, X_test, y_test, "mle", 1.1, 1.0)
        print(f"mle: accuracy {acc:.1%}, log loss {loss:.3f}")
        print("| shape a | κ = V·a/b | rate b | map acc | map log loss | mean acc | "
              "mean log loss |\n|---|---|---|---|---|---|---|")  # fmt: skip
        for shape in shapes:
            for kappa in args.kappas.split(","):
                # "default": the default's per-word prior mean a / b = 1.1 at every shape.
                k = 1.1 * v if kappa == "default" else float(kappa)
                rate = shape * v / k
                # A shape < 1 has no interior mode: "map" is refused there.
                estimates = ("map", "mean") if shape >= 1 else ("mean",)
                row = [run(X, y, X_test, y_test, e, shape, rate) for e in estimates]
                label = "1.1·V" if kappa == "default" else f"{k:g}"
                # "*": the iteration hit max_iter (ConvergenceWarning).
                cells = " | ".join(f"{a:.1%}{'' if ok else '*'} | {ll:.3f}" for a, ll, ok in row)
                cells = cells if shape >= 1 else f"— | — | {cells}"
                print(f"| {shape:g} | {label} | {rate:.4g} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
