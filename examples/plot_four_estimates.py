"""
MLE, MAP, posterior mean and full Bayes
=======================================

One fitted set of sufficient statistics scores new data four ways (``estimate=``): the
maximum likelihood estimate, the posterior mode (MAP), the posterior mean and the full
posterior predictive (``"bayes"``). The differences are largest when data are scarce: with
a few training images per digit the MLE gives probability zero to most test images, the
smoothed point estimates are accurate but overconfident, and full Bayes — the parameters
integrated out — has by far the best log loss. With more data the four converge.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import xarray as xr
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import bayesnb as bnb
from bayesnb.comparison import all_estimates

data = bnb.datasets.load_digits_counts()
X_pool, X_test, y_pool, y_test = train_test_split(
    data.data, data.target, test_size=0.3, random_state=0, stratify=data.target
)

# %%
# One model, four estimates
# -------------------------
# ``all_estimates`` returns four unfitted clones of a model that differ only in
# ``estimate``. The MAP needs concentrations of at least 1 for an interior mode; at α = 2
# it is add-one smoothing, which is exactly the posterior mean at α = 1 (Laplace): those two
# columns below agree to the last digit.
estimators = all_estimates(
    bnb.MultinomialNB(alpha=1.0), map_params={"alpha": 2.0, "class_alpha": 2.0}
)
sizes = [20, 50, 100, 200, 500, len(y_pool)]


def by_size(estimators, scale=lambda X: X):
    """``bnb.compare`` on stratified training sets of every size, against one test set."""
    rows = []
    for n in sizes:
        X_tr, y_tr = X_pool, y_pool
        if n < len(y_pool):
            X_tr, _, y_tr, _ = train_test_split(
                X_pool, y_pool, train_size=n, random_state=0, stratify=y_pool
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the MLE's impossible documents
            result = bnb.compare(estimators, scale(X_tr), y_tr, scale(X_test), y_test, loo=False)
        rows.append(result[["accuracy", "log_loss"]].expand_dims(train_size=[n]))
    return xr.concat(rows, dim="train_size")


nb = by_size(estimators)
print("multinomial NB, test log loss by training size")
print(nb["log_loss"].to_pandas().round(3))

# %%
# The same for GDA
# ----------------
# With one covariance matrix per class and 64 pixels, the MLE covariance of a handful of
# images is singular (``estimate="mle"`` refuses it: constant pixels have zero variance).
# Under the Normal-Inverse-Wishart prior the MAP and mean are regularised, and the full
# posterior predictive is a multivariate Student-t, whose heavier tails keep it from being
# sure of a class it has seen a few examples of.
scaler = StandardScaler().fit(X_pool)
gda = {e: bnb.GDA(covariance="per_class", estimate=e) for e in ("map", "mean", "bayes")}
qda = by_size(gda, scale=scaler.transform)
print("per-class GDA, test log loss by training size")
print(qda["log_loss"].to_pandas().round(3))

# %%
fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), layout="constrained", sharex=True)
for row, (title, table) in enumerate([("multinomial NB", nb), ("per-class GDA", qda)]):
    for name in table["name"].values:
        axes[row, 0].semilogx(sizes, table["accuracy"].sel(name=name), "o-", label=name)
        axes[row, 1].semilogx(sizes, table["log_loss"].sel(name=name), "o-", label=name)
    axes[row, 0].set_ylabel(f"{title}\ntest accuracy")
    axes[row, 1].set_ylabel("test log loss (lower is better)")
    axes[row, 0].legend(fontsize=8)
for ax in axes[1]:
    ax.set_xlabel("training images")
plt.show()

# %%
# When each wins
# --------------
# * **MLE**: unbiased frequencies, no prior to choose, and the fastest to explain; but a
#   pixel (or word) a class never showed gets probability 0, so with scarce data most test
#   documents are impossible under some class. Use it only with plenty of data per class,
#   or to reproduce an unsmoothed textbook computation.
# * **MAP**: the posterior mode. With a Dirichlet(α) prior it is ``(T + α − 1) / (T_c +
#   V(α − 1))``: α = 1 gives the MLE back and α = 2 add-one smoothing. For GDA it is the
#   mode of the Normal-Inverse-Wishart posterior, a shrunk covariance.
# * **Posterior mean**: the right plug-in for predicting the *next single* token; Laplace's
#   rule at α = 1. The default: accurate, cheap, one table per class.
# * **Full Bayes**: the parameters integrated out over the whole document (the Pólya
#   predictive for multinomial NB, the Student-t for GDA). Equally accurate, and much better
#   calibrated when data are scarce — the choice when probabilities matter (log loss,
#   decisions with costs). It costs one ``gammaln`` per nonzero count when scoring.
print(nb["accuracy"].to_pandas().round(3))
