"""Shared by every report section: prose helpers, the study's split, the MAP prior.

Also the toolkit of the sections a family contributes (:mod:`bayesnb.report.extension`):
they format numbers and name features with these, so every section reads alike.
"""

from __future__ import annotations

import numpy as np
from sklearn.preprocessing import StandardScaler

from bayesnb.report.data import Dataset, Study

__all__ = [
    "ESTIMATE_LABELS",
    "GDA_MAP_PRIOR",
    "MAP_PRIOR",
    "equal_count_bins",
    "fmt",
    "map_prior",
    "pct",
    "points",
    "split_xy",
    "true_log_proba",
    "words",
]

# "map" needs concentrations above 1 for an interior mode; alpha = 2 is add-one smoothing.
MAP_PRIOR = {"alpha": 2.0, "class_alpha": 2.0}
GDA_MAP_PRIOR = {"class_alpha": 2.0}
ESTIMATE_LABELS = {
    "mle": "MLE",
    "map": "MAP (α = 2)",
    "mean": "posterior mean",
    "bayes": "full Bayes",
    "logistic": "logistic regression",
}


def map_prior(est) -> dict:
    """The MAP prior on the concentrations ``est`` has (GDA and the DCM: the class prior only)."""
    params = est.get_params(deep=False)
    return {k: v for k, v in MAP_PRIOR.items() if k in params}


def fmt(x: float, digits: int = 3) -> str:
    """A number for prose: −∞ spelled out, otherwise ``digits`` significant digits."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "n/a"
    if np.isneginf(x):
        return "−∞"
    if np.isposinf(x):
        return "∞"
    return f"{x:.{digits}g}".replace("-", "−")


def _a(noun: str) -> str:
    """The noun with its indefinite article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def pct(x: float) -> str:
    """A share for prose: ``12.3%``."""
    return f"{100 * x:.1f}%"


def words(data: Dataset) -> tuple[str, str]:
    """How to call a feature and a document of these data in prose."""
    if data.kind == "text":
        return "word", "document"
    if data.name.startswith("digits"):
        return "pixel", "image"
    return "feature", "document"


def split_xy(study: Study):
    """Train/test arrays of a study; continuous features standardised with training moments."""
    data = study.data
    Xtr, Xte = data.X_train, data.X_test
    if study.report.continuous:
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    return Xtr, data.y_train, Xte, data.y_test


def equal_count_bins(key: np.ndarray, correct: np.ndarray, n_bins: int):
    """``(idx, accuracy, se)`` of each of ``n_bins`` bins of (nearly) equal size of the
    documents sorted by ``key``; ``se`` is the binomial standard error of the accuracy."""
    order = np.argsort(key, kind="stable")
    for idx in np.array_split(order, min(n_bins, key.size)):
        if idx.size:
            acc = float(correct[idx].mean())
            # Floored so that a bin at 0% or 100% still shows its uncertainty.
            yield idx, acc, float(np.sqrt(max(acc * (1 - acc), 0.25 / idx.size) / idx.size))


def true_log_proba(est, X, y) -> np.ndarray:
    """log p(y_i | x_i) of every document under a fitted classifier."""
    log_p = est.predict_log_proba(X)
    idx = np.searchsorted(est.classes_, y)
    return log_p[np.arange(len(y)), idx]


def points(x: float) -> str:
    """A difference of shares in percentage points for prose: ``−1.5``."""
    return f"{100 * x:.1f}".replace("-", "−")


def _times(x: float) -> str:
    """A ratio for prose: ``12×``, ``110×``, ``1,100×``."""
    return f"{x:.2g}×" if x < 100 else f"{float(f'{x:.2g}'):,.0f}×"
