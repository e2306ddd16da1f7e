"""
GDA's posterior is a logistic regression
========================================

Gaussian discriminant analysis models each class as a Gaussian, ``x | c ~ N(μ_c, Σ)``. With
one covariance shared by the classes the quadratic terms of ``log p(x | c)`` cancel between
classes, and Bayes' rule gives exactly a logistic (softmax) model that is linear in x:

.. math::

    P(y = 1 \\mid x) = \\sigma(\\theta^\\top x + \\theta_0),\\quad
    \\theta = \\Sigma^{-1}(\\mu_1 - \\mu_0),\\quad
    \\theta_0 = \\tfrac12 \\mu_0^\\top\\Sigma^{-1}\\mu_0 - \\tfrac12 \\mu_1^\\top\\Sigma^{-1}\\mu_1
    + \\log\\frac{\\phi_1}{\\phi_0}.

A fitted ``GDA(covariance="shared")`` exposes that linear form as ``coef_`` and
``intercept_``. The converse does not hold: logistic regression fits θ directly, without
assuming Gaussian classes, and so finds different coefficients. One covariance per class
(QDA) keeps the quadratic terms, and the boundary curves.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

import bayesnb as bnb

data = load_breast_cancer()
X = StandardScaler().fit_transform(data.data)
y = data.target  # 0 = malignant, 1 = benign

lda = bnb.GDA(covariance="shared", estimate="mean").fit(X, y)
theta = lda.coef_[1] - lda.coef_[0]  # one row per class: the log-odds is their difference
theta0 = lda.intercept_[1] - lda.intercept_[0]
score = X @ theta + theta0
p = lda.predict_proba(X)[:, 1]
print("max |P(benign | x) - σ(θᵀx + θ0)| =", float(np.abs(p - expit(score)).max()))

# %%
# On the sigmoid, with other coefficients than logistic regression's
# ------------------------------------------------------------------
# Left: every training point's shared-Σ posterior lies on σ(θᵀx + θ0); the per-class
# model's probabilities do not. Right: logistic regression maximises the conditional
# likelihood of y given x, GDA the joint likelihood of (x, y) from which θ follows. On these
# 30 correlated features the two agree on the strong directions and differ on the others.
qda = bnb.GDA(covariance="per_class", estimate="mean").fit(X, y)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
t = np.linspace(score.min(), score.max(), 400)
axes[0].plot(t, expit(t), color="k", lw=1, label="σ(t)")
axes[0].scatter(score, p, s=8, c=y, cmap="coolwarm", label="shared Σ: P(benign | x)")
axes[0].scatter(
    score,
    qda.predict_proba(X)[:, 1],
    s=8,
    marker="x",
    color="grey",
    alpha=0.5,
    label="per-class Σ (not on the curve)",
)
axes[0].set(xlabel="t = θᵀx + θ0 (from coef_, intercept_)", ylabel="P(benign | x)")
axes[0].legend(fontsize=8, loc="center right")

logreg = LogisticRegression(C=1.0, max_iter=5000).fit(X, y)
axes[1].scatter(theta, logreg.coef_[0], s=14)
lim = np.abs(np.concatenate([theta, logreg.coef_[0]])).max() * 1.05
axes[1].plot([-lim, lim], [-lim, lim], color="grey", lw=0.8)
axes[1].set(
    xlabel="GDA θ (shared Σ)",
    ylabel="logistic regression coefficient",
    xlim=(-lim, lim),
    ylim=(-lim, lim),
)
plt.show()
print(
    f"training accuracy: GDA {lda.score(X, y):.3f}, QDA {qda.score(X, y):.3f}, "
    f"logistic regression {logreg.score(X, y):.3f}"
)

# %%
# Two features, three boundaries
# ------------------------------
two = [0, 1]  # mean radius, mean texture
X2 = X[:, two]
models = {
    "GDA, shared Σ (linear)": bnb.GDA(covariance="shared").fit(X2, y),
    "GDA, per-class Σ (quadratic)": bnb.GDA(covariance="per_class").fit(X2, y),
    "logistic regression": LogisticRegression().fit(X2, y),
}
g0, g1 = np.meshgrid(np.linspace(-2.5, 4, 200), np.linspace(-2.5, 4, 200))
grid = np.column_stack([g0.ravel(), g1.ravel()])
fig, ax = plt.subplots(figsize=(5.5, 4.5), layout="constrained")
ax.scatter(X2[:, 0], X2[:, 1], c=y, cmap="coolwarm", s=8, alpha=0.6)
for (name, model), color in zip(models.items(), ["C0", "C2", "k"], strict=True):
    prob = model.predict_proba(grid)[:, 1].reshape(g0.shape)
    ax.contour(g0, g1, prob, levels=[0.5], colors=color)
    ax.plot([], [], color=color, label=name)
ax.set(
    xlabel=data.feature_names[0] + " (standardised)",
    ylabel=data.feature_names[1] + " (standardised)",
    xlim=(-2.5, 4),
    ylim=(-2.5, 4),
)
ax.legend(fontsize=8)
plt.show()
