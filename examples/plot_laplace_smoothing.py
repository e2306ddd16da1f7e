"""
Laplace smoothing is the posterior mean
=======================================

The maximum-likelihood estimate of a word's probability in a class is its relative
frequency ``T_cw / T_c``. A word never seen in a class gets probability zero, and one such
word sends the whole document's likelihood for that class to zero (log 0 = −∞), whatever
the other words say: the *zero-probability problem*. Put a Dirichlet(α) prior on the word
probabilities and the posterior mean is ``(T_cw + α) / (T_c + Vα)``: with α = 1 that is
Laplace's add-one rule. ``estimate="mle"`` and ``estimate="mean"`` score the same fitted
counts both ways.

The corpus is Debian's fortune cookies (``apt-get install fortunes``), five categories of
short texts; without them the example falls back to the digits as 64-"word" documents.
"""

# %%
# The documents
# -------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=["art", "computers", "food", "law", "science"])
    vectorizer = CountVectorizer()
    X = vectorizer.fit_transform(data.data)
    words = vectorizer.get_feature_names_out()
else:
    print("Debian's fortunes are not installed: using the digits (64 pixel counts) instead.")
    data = bnb.datasets.load_digits_counts()
    X, words = data.data, np.asarray(data.feature_names)
y = data.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
print(f"{X.shape[0]} documents, {X.shape[1]} distinct words, classes {sorted(map(str, set(y)))}")

# %%
# One set of counts, two estimates
# --------------------------------
# ``set_params(estimate=...)`` rescores a fitted model without refitting: the counts are
# the same, only the table of word probabilities changes.
mean = bnb.MultinomialNB(alpha=1.0, estimate="mean").fit(X_train, y_train)
mle = bnb.MultinomialNB(alpha=1.0, estimate="mle").fit(X_train, y_train)

joint = mle.predict_joint_log_proba(X_test)
impossible = np.isneginf(joint)
print(
    f"MLE: {impossible.all(axis=1).mean():.0%} of test documents are impossible under every class"
)
print(f"MLE: {impossible.any(axis=1).mean():.0%} are impossible under at least one class")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name, est in [("MLE", mle), ("Laplace (posterior mean, α = 1)", mean)]:
        print(f"{name:32s} accuracy {est.score(X_test, y_test):.3f}")
for w in caught:
    print("warning:", str(w.message).split(";")[0])

# %%
# The MLE cannot tell the documents that every class rules out apart: they get the
# probability 0/0 and a fallback answer. Laplace's rule never says never.
#
# The posterior behind the rule
# -----------------------------
# Under the Dirichlet posterior the probability of one word in one class is
# Beta(α + T_cw, (T_c + Vα) − (α + T_cw)), drawn below; its mean is the Laplace estimate.
# (The mode of the whole Dirichlet, the MAP of θ_c, is ``(T_cw + α − 1) / (T_c + V(α − 1))``,
# which at α = 1 is the MLE again; one word's marginal peaks elsewhere.) For a word the
# class never used, the MLE sits at zero and the posterior still spreads mass above it. For
# a frequent word the MLE is far above the posterior: α = 1 adds V pseudo-tokens to every
# class, as many as the class has real ones — the bias of Laplace's rule on text
# (see :ref:`sphx_glr_auto_examples_plot_deleted_estimation.py`).
counts = mean.feature_count_
totals = counts.sum(axis=1)
V = counts.shape[1]
classes = list(mean.classes_)
c = 0
seen = np.flatnonzero(counts[c] > 0)
unseen = np.flatnonzero(counts[c] == 0)
# a frequent word of the class, and one it never used but another class did
w_seen = seen[np.argmax(counts[c, seen])]
w_unseen = unseen[np.argmax(counts[:, unseen].sum(axis=0))]

fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
for ax, w in zip(axes, [w_seen, w_unseen], strict=True):
    a = 1.0 + counts[c, w]
    b = totals[c] + V * 1.0 - a
    dist = stats.beta(a, b)
    grid = np.linspace(0, max(dist.ppf(0.999), 1.15 * counts[c, w] / totals[c]), 400)
    ax.plot(grid, dist.pdf(grid), color="C0", label="posterior (α = 1)")
    ax.axvline(counts[c, w] / totals[c], color="C3", ls="--", label="MLE")
    ax.axvline(dist.mean(), color="C2", label="posterior mean = Laplace")
    ax.set_title(f"P({words[w]!s} | {classes[c]}): seen {int(counts[c, w])} times")
    ax.set_xlabel("word probability")
    ax.set_yticks([])
axes[0].legend(fontsize=8)
plt.show()

# %%
# How much smoothing
# ------------------
# α = 1 is one choice among many (Lidstone's rule uses any α > 0). Accuracy and test log
# loss over α: the MLE is the limit α → 0, where the log loss is infinite.
from sklearn.metrics import log_loss  # noqa: E402

alphas = np.geomspace(1e-3, 10, 17)
acc, loss = [], []
for a in alphas:
    mean.set_params(alpha=a)
    acc.append(mean.score(X_test, y_test))
    loss.append(log_loss(y_test, mean.predict_proba(X_test), labels=mean.classes_))
fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
ax.semilogx(alphas, loss, "o-", label="test log loss")
ax.set_xlabel("α (Dirichlet concentration)")
ax.set_ylabel("log loss per document")
ax2 = ax.twinx()
ax2.semilogx(alphas, acc, "s-", color="C1", label="accuracy")
ax2.set_ylabel("accuracy")
ax.axvline(1.0, color="grey", lw=0.8)
fig.legend(loc="upper center", ncols=2, fontsize=8)
plt.show()
