"""
Unlabelled documents through EM: when they help and when they hurt
==================================================================

A generative classifier gives a document nobody labelled a likelihood, p(x) = Σ_c p(c)
p(x | c), so EM can fit it to labelled and unlabelled documents together (Nigam, McCallum,
Thrun and Mitchell, 2000): ``bnb.SemiSupervisedNB`` runs EM to the MAP from the
labelled-only fit, the E-step giving every unlabelled document its class probabilities.
Whether that helps depends on how well the data fit the model: EM makes the classes the
mixture components the model explains best. Here multinomial naive Bayes on the digits as
counts, against the number of labelled documents per class, with the rest of the training
pool unlabelled. On documents drawn from the model itself, EM with one label per class is
more accurate than the labelled-only fit with twenty. On the real digits it helps only with
one or two labels per class and hurts from five on: a digit is not one multinomial (several
ways of writing it, correlated pixels), so the components EM finds drift from the classes
once the labels alone would have placed them better.
"""

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss

import bayesnb as bnb

digits = bnb.datasets.load_digits_counts()
X_real = sp.csr_matrix(digits.data, dtype=np.float64)
y = digits.target

# The same classes, drawn from the model: multinomial naive Bayes fitted on every digit,
# then 40 pixel "tokens" per document from its θ_c, so the data fit the model exactly.
truth = bnb.MultinomialNB(alpha=2.0, estimate="map").fit(X_real, y)
theta = np.exp(truth.feature_log_prob_)[np.searchsorted(truth.classes_, y)]
X_model = sp.csr_matrix(np.random.default_rng(0).multinomial(40, theta), dtype=np.float64)

studies = {"drawn from the model": X_model, "real digits": X_real}
SIZES = [1, 2, 5, 10, 20]  # labelled documents per class
SEEDS = range(4)
N_TEST = 500
TOL = 1e-6  # EM stops once the log posterior rises by less than 1e-6 of itself


def model():
    return bnb.MultinomialNB(alpha=2.0, estimate="map")  # add-one smoothing, as a MAP


def one_split(X, n, seed):
    """Accuracy and log loss on held-out documents: labelled-only, then EM."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    test, pool = order[:N_TEST], order[N_TEST:]
    labelled = np.concatenate(
        [rng.choice(pool[y[pool] == c], n, replace=False) for c in truth.classes_]
    )
    unlabelled = np.setdiff1d(pool, labelled)
    fits = [model().fit(X[labelled], y[labelled])]
    marks = np.concatenate([y[labelled], np.full(unlabelled.size, -1)])  # -1: unlabelled
    fits.append(bnb.SemiSupervisedNB(model(), tol=TOL).fit(X[np.r_[labelled, unlabelled]], marks))
    out = []
    for fit in fits:
        proba = fit.predict_proba(X[test])
        accuracy = np.mean(fit.classes_[proba.argmax(axis=1)] == y[test])
        out.append((accuracy, log_loss(y[test], proba, labels=fit.classes_)))
    return out


t0 = time.perf_counter()
# results[study][size, seed, fit, metric]; fit 0 labelled-only, 1 EM; metric 0 accuracy
results = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # a few splits stop at max_iter
    for name, X in studies.items():
        results[name] = np.array([[one_split(X, n, s) for s in SEEDS] for n in SIZES])
n_fits = len(studies) * len(SIZES) * len(SEEDS)
seconds = time.perf_counter() - t0
print(f"{n_fits} EM fits, {len(y) - N_TEST} training documents each, in {seconds:.1f} s")

# %%
# Accuracy and log loss against the labels
# -----------------------------------------
# Mean ± standard error over the random splits (the held-out documents change with them);
# the unlabelled pool is every training document not labelled.
fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), layout="constrained", sharex=True)
for col, (name, res) in enumerate(results.items()):
    mean = res.mean(axis=1)
    se = res.std(axis=1, ddof=1) / np.sqrt(len(SEEDS))
    for row, metric in enumerate(["accuracy", "log loss"]):
        ax = axes[row, col]
        for fit, label in enumerate(["labelled only", "EM with the unlabelled pool"]):
            ax.errorbar(
                SIZES, mean[:, fit, row], se[:, fit, row], marker="o", ms=4, capsize=3, label=label
            )
        ax.set(xscale="log", ylabel=metric)
        if row == 0:
            ax.set_title(name, fontsize=10)
        else:
            ax.set(xlabel="labelled documents per class")
        ax.set_xticks(SIZES, [str(s) for s in SIZES])
axes[0, 0].legend(fontsize=8)
plt.show()

for name, res in results.items():
    mean = res.mean(axis=1)
    print(name)
    print("  per class   accuracy: labelled  EM      log loss: labelled  EM")
    for n, m in zip(SIZES, mean, strict=True):
        print(f"  {n:>9}   {m[0, 0]:18.3f} {m[1, 0]:6.3f}   {m[0, 1]:18.3f} {m[1, 1]:6.3f}")

# %%
# When to trust EM
# ----------------
# EM maximises the likelihood of the unlabelled documents under the model, which serves the
# classes only as far as the model's classes are the data's clusters. Data drawn from the
# model satisfy that, and a single label per class is enough to name the clusters EM finds.
# The real digits violate it: with a few labels EM still gains by seeing the pool, with more
# the labelled-only fit is already better placed than the clusters EM pulls it to. Nigam et
# al.'s remedies are a weight λ < 1 on the unlabelled documents (``unlabelled_weight``;
# λ = 0 is the labelled-only fit) and several components per class; whether the pool helps
# is measured, as here, on held-out labelled documents.
