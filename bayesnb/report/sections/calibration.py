"""Report section: calibration with and without the likelihood temperature.

Every estimate of the study's model is fitted twice on the training split, at τ = 1 and with
``temperature="loo"`` (τ learned by exact leave-one-out, :mod:`bayesnb.scoring.temperature`),
beside scikit-learn's ``CalibratedClassifierCV`` of its naive Bayes (MultinomialNB on counts,
GaussianNB on continuous data; sigmoid and isotonic, ``cv=5``: five refits and a calibrator);
each is scored on the held-out documents (log loss, ECE, accuracy of ``predict``) with its fit
time, and the reliability of the posterior mean at both temperatures and of the better
calibrated refit is kept for the figure.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import log_loss

from bayesnb.comparison import all_estimates, expected_calibration_error
from bayesnb.report.data import Study
from bayesnb.report.sections.common import ESTIMATE_LABELS, fmt, map_prior, split_xy, words
from bayesnb.report.sections.scores import reliability

__all__ = ["TemperatureResult", "calibrated_nb", "temperature"]

_CALIBRATED = ("sigmoid", "isotonic")


@dataclass
class TemperatureResult:
    """Held-out calibration of every estimate at τ = 1 and at the learned τ."""

    study: Study
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    reliability: dict[str, pd.DataFrame] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    reading: str = ""
    skipped: str | None = None


def calibrated_nb(method: str, continuous: bool = False):
    """scikit-learn's calibration by refits: ``CalibratedClassifierCV`` (``method``, ``cv=5``)
    of its naive Bayes, GaussianNB on continuous data, MultinomialNB on counts."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.naive_bayes import GaussianNB, MultinomialNB

    base = GaussianNB() if continuous else MultinomialNB()
    return CalibratedClassifierCV(base, method=method, cv=5)


def temperature(study: Study) -> TemperatureResult:
    """The section's numbers (see the module docstring)."""
    Xtr, ytr, Xte, yte = split_xy(study)
    fits: dict[str, tuple] = {}  # label -> (estimator, estimate or None)
    for name, est in all_estimates(study.estimator, map_params=map_prior(study.estimator)).items():
        for tau in (1.0, "loo"):
            label = f"{ESTIMATE_LABELS[name]}, τ {'learned' if tau == 'loo' else '= 1'}"
            fits[label] = (clone(est).set_params(temperature=tau), name)
    for method in _CALIBRATED:
        fits[f"CalibratedClassifierCV {method}"] = (
            calibrated_nb(method, study.report.continuous),
            None,
        )
    rows, proba, failed, classes = {}, {}, {}, None
    for label, (est, name) in fits.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                est.fit(Xtr, ytr)
                seconds = time.perf_counter() - t0
                proba[label] = p = est.predict_proba(Xte)
        except ValueError as exc:  # e.g. a class with fewer documents than the 5 folds
            failed[label] = str(exc).splitlines()[0]
            continue
        rows[label] = {
            "estimate": name or "",
            "temperature": float(getattr(est, "temperature_", np.nan)),
            "log_loss": log_loss(yte, p, labels=est.classes_),
            "ece": expected_calibration_error(yte, p, est.classes_),
            "accuracy": float(np.mean(est.predict(Xte) == yte)),
            "fit_seconds": seconds,
        }
        classes = est.classes_
    table = pd.DataFrame(rows).T
    table.index.name = "model"
    calibrated = [label for label in table.index if label.startswith("Calibrated")]
    shown = [label for label in table.index if table.loc[label, "estimate"] == "mean"]
    if calibrated:
        shown.append(min(calibrated, key=lambda label: table.loc[label, "log_loss"]))
    rel = {label: reliability(yte, proba[label], classes) for label in shown}
    result = TemperatureResult(study, table, rel, failed)
    result.reading = _reading(result)
    return result


def _reading(r: TemperatureResult) -> str:
    t = r.table
    _, doc = words(r.study.data)
    parts = []
    ours = t[t["estimate"] != ""]
    for name in dict.fromkeys(ours["estimate"]):
        one = ours[(ours["estimate"] == name) & (ours["temperature"] == 1.0)]
        learned = ours[(ours["estimate"] == name) & (ours["temperature"] != 1.0)]
        if one.empty or learned.empty:
            continue
        a, b = one.iloc[0], learned.iloc[0]
        if fmt(a["log_loss"]) == fmt(b["log_loss"]):
            change = f"leaves the held-out log loss at {fmt(a['log_loss'])}"
        else:
            verb = "lowers" if b["log_loss"] < a["log_loss"] else "raises"
            change = (
                f"{verb} the held-out log loss from {fmt(a['log_loss'])} to {fmt(b['log_loss'])}"
            )
        parts.append(
            f"The {ESTIMATE_LABELS[name]} at the learned temperature τ = {fmt(b['temperature'])} "
            f"{change} nats per {doc} (ECE {fmt(a['ece'], 2)} → {fmt(b['ece'], 2)}; accuracy "
            f"{fmt(a['accuracy'])}, unchanged: predict ignores τ)."
        )
    calibrated = t[t["estimate"] == ""]
    if not calibrated.empty:
        best = calibrated["log_loss"].astype(float).idxmin()
        mine = ours[ours["temperature"] != 1.0]
        top = mine["log_loss"].astype(float).idxmin()
        ratio = calibrated.loc[best, "fit_seconds"] / max(mine.loc[top, "fit_seconds"], 1e-9)
        below = mine.loc[top, "log_loss"] < calibrated.loc[best, "log_loss"]
        speed = f"{fmt(ratio, 2)}× faster" if ratio >= 1 else f"{fmt(1 / ratio, 2)}× slower"
        parts.append(
            f"scikit-learn's {best} (five refits and a calibrator) reaches "
            f"{fmt(calibrated.loc[best, 'log_loss'])} in "
            f"{fmt(calibrated.loc[best, 'fit_seconds'], 2)} s; the best tempered estimate "
            f"({top}, {fmt(mine.loc[top, 'log_loss'])}) is {'below' if below else 'above'} it, "
            f"fitted in {fmt(mine.loc[top, 'fit_seconds'], 2)} s ({speed})."
        )
    for label, why in r.failed.items():
        parts.append(f"{label} could not be fitted here: {why}")
    return " ".join(parts)
