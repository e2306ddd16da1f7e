"""Benchmark: probabilities on real text, the learned likelihood temperature against
scikit-learn's calibration by refits.

Debian's fortunes (the categories with at least 10 training documents; 70 % training, 30 %
held out, seeded), word counts: held-out log loss, accuracy (of ``predict``, which the
temperature does not change) and fit time of

- bayesnb MultinomialNB (α learned by the evidence, and by exact LOO) at τ = 1 and with
  ``temperature="loo"`` (τ learned by exact leave-one-out on the training documents);
- bayesnb BernoulliNB and DirichletCompoundNB, τ = 1 and learned;
- scikit-learn's ``CalibratedClassifierCV(MultinomialNB(), cv=5)``, sigmoid and isotonic
  (five refits and a calibrator), and its ``MultinomialNB()``.

Targets: the learned τ's held-out log loss no worse than the better calibrated refit, and its
fit (α by evidence, τ by LOO) at least 20× faster than that refit's. The machine's load
average is printed beside the times.

Run: ``python benchmarks/bench_temperature.py``.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from _common import Checks, fortunes, load_average, timed
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import log_loss
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayesnb as bnb


def _row(name: str, seconds: float, model, X_test, y_test) -> float:
    proba = model.predict_proba(X_test)
    loss = log_loss(y_test, proba, labels=model.classes_)
    acc = float(np.mean(model.predict(X_test) == y_test))  # (predict ignores τ)
    tau = getattr(model, "temperature_", None)
    extra = "" if tau is None else f"  τ = {tau:.4g}"
    print(f"  {name:<46} log loss {loss:7.4f}  accuracy {acc:.4f}  fit {seconds:7.3f} s{extra}")
    return loss


def main() -> int:
    """Print the table and PASS/FAIL lines; return the number of failed targets."""
    # Categories with at least 10 training documents: the calibrators' 5 folds need 5 each.
    data = fortunes(held_out=0.3, seed=0, min_docs=10)
    if data is None:
        return 0
    X, y, X_test, y_test = data
    print(
        f"== bench_temperature: fortunes, {X.shape[0]:,} training × {X.shape[1]:,} words, "
        f"{X_test.shape[0]:,} held out, {len(np.unique(y))} classes ({load_average()}) =="
    )
    bnb.MultinomialNB().fit(X[::50], y[::50])  # imports, not the first large fit
    losses, times = {}, {}
    models = {
        "MultinomialNB α=evidence": bnb.MultinomialNB(alpha="evidence"),
        "MultinomialNB α=evidence, τ learned": bnb.MultinomialNB(
            alpha="evidence", temperature="loo"
        ),
        "MultinomialNB α=loo": bnb.MultinomialNB(alpha="loo"),
        "MultinomialNB α=loo, τ learned (jointly)": bnb.MultinomialNB(
            alpha="loo", temperature="loo"
        ),
        "BernoulliNB α=evidence": bnb.BernoulliNB(alpha="evidence"),
        "BernoulliNB α=evidence, τ learned": bnb.BernoulliNB(alpha="evidence", temperature="loo"),
        "DirichletCompoundNB": bnb.DirichletCompoundNB(),
        "DirichletCompoundNB, τ learned": bnb.DirichletCompoundNB(temperature="loo"),
        "sklearn MultinomialNB()": SkMultinomialNB(),
        "sklearn CalibratedClassifierCV sigmoid": CalibratedClassifierCV(
            SkMultinomialNB(), method="sigmoid", cv=5
        ),
        "sklearn CalibratedClassifierCV isotonic": CalibratedClassifierCV(
            SkMultinomialNB(), method="isotonic", cv=5
        ),
    }
    for name, model in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            times[name], _ = timed(lambda model=model: model.fit(X, y))
            losses[name] = _row(name, times[name], model, X_test, y_test)
    ours = "MultinomialNB α=evidence, τ learned"
    calibrated = min(
        ("sklearn CalibratedClassifierCV sigmoid", "sklearn CalibratedClassifierCV isotonic"),
        key=losses.get,
    )
    checks = Checks()
    checks.at_most(f"held-out log loss, {ours} (vs {calibrated})", losses[ours], losses[calibrated])
    checks.at_least(f"fit time, {calibrated} / {ours}", times[calibrated] / times[ours], 20.0)
    return checks.report()


if __name__ == "__main__":
    sys.exit(main())
