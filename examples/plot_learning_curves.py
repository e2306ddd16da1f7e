"""
Generative against discriminative: learning curves
==================================================

Ng & Jordan (2002) compared naive Bayes with logistic regression, its discriminative
counterpart: the generative model approaches its (higher) asymptotic error much faster, in
O(log d) rather than O(d) training examples, so it wins with little data and the
discriminative model wins with much. ``bnb.learning_curve`` measures test error against
training-set size over random splits; here for GDA and for naive Bayes on two embedded
data sets. On the digits the crossover is plain: Bernoulli naive Bayes is far ahead below a
hundred images and logistic regression ahead beyond a few hundred. On the breast-cancer
data Gaussian naive Bayes leads only for the first handful of examples, against an
L2-regularised logistic regression (the regularisation is a prior too); the shared-Σ GDA,
which has a 30 × 30 covariance to estimate, needs far more.
"""

# %%
import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayesnb as bnb

cancer = load_breast_cancer()
digits = bnb.datasets.load_digits_binary()

studies = {
    "breast cancer (30 continuous features)": (
        cancer.data,
        cancer.target,
        {
            "GDA, shared Σ": make_pipeline(StandardScaler(), bnb.GDA(covariance="shared")),
            "Gaussian NB (diagonal Σ)": make_pipeline(
                StandardScaler(), bnb.GDA(covariance="diagonal")
            ),
            "logistic regression": make_pipeline(StandardScaler(), LogisticRegression()),
        },
        [6, 10, 15, 20, 30, 50, 80, 130, 200, 320],
    ),
    "digits (64 binary pixels, 10 classes)": (
        digits.data,
        digits.target,
        {
            "Bernoulli NB": bnb.BernoulliNB(),
            "logistic regression": LogisticRegression(C=0.1, max_iter=2000),
        },
        [20, 40, 70, 100, 150, 250, 400, 700, 1100],
    ),
}

curves = {}
for title, (X, y, estimators, sizes) in studies.items():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs iteration warnings on tiny training sets
        curves[title] = bnb.learning_curve(
            estimators, X, y, train_sizes=sizes, n_repeats=6, random_state=0
        )

# %%
# The curves
# ----------
# Shaded: ± one standard deviation over the 6 random splits.
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
for ax, (title, lc) in zip(axes, curves.items(), strict=True):
    for name in lc["estimator"].values:
        m = lc["error_mean"].sel(estimator=name)
        s = lc["error_std"].sel(estimator=name)
        ax.plot(lc["train_size"], m, "o-", ms=3, label=name)
        ax.fill_between(lc["train_size"], m - s, m + s, alpha=0.15)
    ax.set_xscale("log")
    ax.set(title=title, xlabel="training examples", ylabel="test error")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8)
plt.show()

for title, lc in curves.items():
    print(title)
    print(lc["error_mean"].to_pandas().T.round(3).to_string())
