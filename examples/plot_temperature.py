"""
Calibrated probabilities on long documents: the likelihood temperature
======================================================================

Naive Bayes multiplies the evidence of every word of a document as if the words were
independent, so on long documents it is far too sure of itself, under every estimate. Raising
the document likelihood to a power τ < 1 when scoring, p(c | x) ∝ p(c) · p(x | c)^τ, rescales
that evidence against the class prior. ``temperature="loo"`` learns τ by maximising the exact
leave-one-out label log-likelihood of the training documents: a one-dimensional search on the
fitted statistics, no refits. It changes the probabilities, not ``predict``.
"""

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayesnb as bnb
from bayesnb.comparison import expected_calibration_error
from bayesnb.datasets import FORTUNES_PATH
from bayesnb.model_selection import elpd_loo

if FORTUNES_PATH.is_dir():
    cats = ["art", "computers", "food", "law", "science", "politics", "medicine", "work"]
    data = bnb.datasets.load_fortunes(categories=cats)
    X = CountVectorizer().fit_transform(data.data).tocsr()
else:
    print("Debian's fortunes are not installed: using the digits, every pixel written 4 times.")
    data = bnb.datasets.load_digits_counts()
    X = sp.csr_matrix(np.hstack([data.data] * 4))
y = data.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

# %%
# τ = 1 against the learned τ, and scikit-learn's calibration by refits
# ---------------------------------------------------------------------
models = {
    "τ = 1": bnb.MultinomialNB(alpha="evidence"),
    "τ learned (exact LOO)": bnb.MultinomialNB(alpha="evidence", temperature="loo"),
    "CalibratedClassifierCV isotonic": CalibratedClassifierCV(
        SkMultinomialNB(), method="isotonic", cv=5
    ),
}
proba = {}
for name, model in models.items():
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X_train, y_train)
    seconds = time.perf_counter() - t0
    proba[name] = p = model.predict_proba(X_test)
    print(
        f"{name:<32} log loss {log_loss(y_test, p, labels=model.classes_):.3f}, "
        f"ECE {expected_calibration_error(y_test, p, model.classes_):.3f}, "
        f"accuracy {np.mean(model.predict(X_test) == y_test):.3f}, fit {seconds:.2f} s"
    )
tau = models["τ learned (exact LOO)"].temperature_
print(f"temperature_ = {tau:.3f}")

# %%
# The leave-one-out objective over τ
# ----------------------------------
# The learned τ is the maximum of the exact LOO label log-likelihood (``elpd_loo`` scores the
# labels at the estimator's temperature); it is concave in τ.
taus = np.geomspace(tau / 8, min(1.5, tau * 8), 15)
elpd = [
    elpd_loo(bnb.MultinomialNB(alpha="evidence", temperature=t), X_train, y_train).elpd
    for t in taus
]

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
axes[0].semilogx(taus, elpd, "o-")
axes[0].axvline(tau, color="C3", ls="--", label=f"learned τ = {tau:.3f}")
axes[0].set(xlabel="τ", ylabel="exact LOO label log-likelihood", title="Choosing τ")
axes[0].legend()
for (name, p), color in zip(proba.items(), ["C0", "C3", "C2"], strict=True):
    conf = p.max(axis=1)
    right = models[name].classes_[p.argmax(axis=1)] == y_test
    order = np.argsort(conf)
    bins = np.array_split(order, 10)
    axes[1].plot(
        [conf[b].mean() for b in bins], [right[b].mean() for b in bins], "o-", color=color,
        label=name,
    )  # fmt: skip
axes[1].plot([0, 1], [0, 1], color="0.6", ls="--", lw=1)
axes[1].set(
    xlabel="confidence (top-class probability)",
    ylabel="accuracy",
    title="Reliability on held-out documents",
)
axes[1].legend(fontsize=8)
plt.show()
