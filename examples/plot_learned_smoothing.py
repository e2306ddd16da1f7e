"""
Learning the smoothing from the evidence
========================================

Instead of fixing α = 1 (Laplace) or tuning it by cross-validation, ``alpha="evidence"``
picks the α that maximises the closed-form marginal likelihood of the training data,
``log p(X, y | α)`` — a Dirichlet-multinomial for every class (Minka's fixed point; the
value lands in ``alpha_``). One fit, no held-out data, and on text it lands close to the
α that cross-validation would choose, far from α = 1.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import cross_val_score, train_test_split

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=["art", "computers", "food", "law", "science"])
    X = CountVectorizer().fit_transform(data.data).tocsr()
else:
    print("Debian's fortunes are not installed: using the digits (64 pixel counts) instead.")
    data = bnb.datasets.load_digits_counts()
    X = sp.csr_matrix(data.data)
y = data.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

learned = bnb.MultinomialNB(alpha="evidence").fit(X_train, y_train)
print(f"alpha_ = {learned.alpha_:.4f}, log evidence {learned.log_evidence():.1f}")

# %%
# The evidence and cross-validation over α
# ----------------------------------------
# ``set_params(alpha=...)`` on a fitted model is honoured at the next use without a refit
# (the statistics are kept), so the log evidence over a grid of α is one pass over the
# stored counts. Cross-validation refits five times per α.
alphas = np.geomspace(1e-2, 10, 19)
model = bnb.MultinomialNB().fit(X_train, y_train)
log_ev = []
for a in alphas:
    model.set_params(alpha=a)
    log_ev.append(model.log_evidence())
cv = [
    -cross_val_score(
        bnb.MultinomialNB(alpha=a), X_train, y_train, cv=5, scoring="neg_log_loss"
    ).mean()
    for a in alphas
]
alpha_cv = alphas[int(np.argmin(cv))]

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained", sharex=True)
axes[0].semilogx(alphas, log_ev, "o-")
axes[0].set(xlabel="α", ylabel="log evidence  log p(X, y | α)")
axes[1].semilogx(alphas, cv, "o-", color="C1")
axes[1].set(xlabel="α", ylabel="5-fold CV log loss")
for ax in axes:
    ax.axvline(learned.alpha_, color="C2", label=f"evidence α = {learned.alpha_:.3f}")
    ax.axvline(1.0, color="grey", ls="--", label="Laplace α = 1")
axes[1].axvline(alpha_cv, color="C1", ls=":", label=f"CV α = {alpha_cv:.3f}")
axes[1].legend(fontsize=8)
plt.show()

# %%
# On held-out documents
# ---------------------
for name, est in [
    ("Laplace, α = 1", bnb.MultinomialNB(alpha=1.0)),
    (f"cross-validated α = {alpha_cv:.3f}", bnb.MultinomialNB(alpha=alpha_cv)),
    ("evidence α (one fit)", bnb.MultinomialNB(alpha="evidence")),
]:
    est.fit(X_train, y_train)
    proba = est.predict_proba(X_test)
    loss = -np.mean(np.log(proba[np.arange(len(y_test)), np.searchsorted(est.classes_, y_test)]))
    print(f"{name:28s} accuracy {est.score(X_test, y_test):.3f}  log loss {loss:.3f}")

# %%
# The class prior's concentration can be learned the same way (``class_alpha="evidence"``),
# and so can the Beta prior of ``BernoulliNB`` and the Gamma shape of ``PoissonNB``.
# The learned value is a property of the fitted statistics: change ``alpha`` back and forth
# with ``set_params`` and the evidence α is re-learned from the same counts.
bern = bnb.BernoulliNB(alpha="evidence", class_alpha="evidence").fit(X_train, y_train)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(
        f"BernoulliNB: alpha_ = {bern.alpha_:.4f}, class_alpha_ = {bern.class_alpha_:.3f}, "
        f"accuracy {bern.score(X_test, y_test):.3f}"
    )
