"""
Exact LOO and PSIS-LOO in one ArviZ comparison
==============================================

``bayesnb.model_selection.elpd_loo`` computes the leave-one-out log predictive density of every
training label exactly (each document scored under the model fitted without it, from one
fit), for the MLE, MAP, posterior mean and full posterior predictive. Its result is an ArviZ
``ELPDData`` of kind ``"loo"`` (method ``"exact"``, no Pareto k, since nothing is importance
sampled), so ``arviz.compare`` ranks and weights it as it is, beside the PSIS-LOO of a NUTS fit
of the same labels, and ``arviz.plot_compare`` draws the table.
"""

# %%
import warnings

import arviz as az
import matplotlib.pyplot as plt
import numpy as np

import bayesnb as bnb
from bayesnb.comparison import all_estimates
from bayesnb.loo import psis_loo
from bayesnb.model_selection import elpd_loo

# Multinomial naive Bayes on the pixel intensities (0-16, read as counts) of the central
# 4 × 4 pixels of all 1,797 digits: every estimate, the MLE too, gives each held-out
# image's label a probability above 0 (on all 64 pixels the MLE's ELPD is -inf).
data = bnb.datasets.load_digits_counts()
pixels = [r * 8 + c for r in range(2, 6) for c in range(2, 6)]
X, y = data.data[:, pixels], data.target
print(f"{X.shape[0]} images, {X.shape[1]} pixels, {np.unique(y).size} classes")

# %%
# Exact leave-one-out for the four estimates
# ------------------------------------------
# One Dirichlet(α = 2) prior, four ways to predict with it. Each result prints as ArviZ's
# ``loo`` does; ``p_loo`` is the in-sample log predictive density minus the leave-one-out one.
models = all_estimates(bnb.MultinomialNB(alpha=2.0))
exact = {name: elpd_loo(est, X, y) for name, est in models.items()}
print(exact["bayes"])

# %%
# PSIS-LOO of a NUTS fit of the same model
# ----------------------------------------
# The same prior declared in PyMC and sampled with NUTS (sufficient-statistic likelihood),
# keeping the per-document log-likelihood of each label; ``psis_loo`` is ``az.loo`` of that
# group, exact where every draw gives a label the same probability (nothing to smooth).
fitted = bnb.MultinomialNB(alpha=2.0).fit(X, y)
nuts = fitted.fit_pymc(
    X, y, draws=1000, tune=1000, chains=4, random_seed=1, log_likelihood=True, progressbar=False
)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # Pareto k: shown in the table's diag_elpd
    loos = exact | {"NUTS (PSIS)": psis_loo(nuts)}
print(f"NUTS: {int(nuts['sample_stats']['diverging'].sum())} divergences")

# %%
# One ArviZ table
# ---------------
# Ranked by ELPD, with each difference from the best model and its standard error computed
# from the pointwise values (``dse = sqrt(n · Var_i(Δ_i))``), and stacking weights. Full
# Bayes and its NUTS estimate differ by sampling error only; the point estimates lose tens of
# nats to it: they ignore the uncertainty in the pixel probabilities. Only the NUTS row has
# a Pareto-k diagnostic (``diag_elpd``). The two ``p`` of full Bayes differ by definition,
# not by error: ArviZ's in-sample term averages p(y_i | x_i, θ) over the draws, the exact one
# is the estimator's own prediction p(x_i, y_i | D) / p(x_i | D).
cmp = az.compare(loos, round_to="none")
cols = ["rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "diag_elpd"]
print(cmp[cols].round(2).to_string())

# %%
pc = az.plot_compare(cmp, figure_kwargs={"figsize": (7, 3.2)})
plt.show()

# %%
# PSIS against exact, document by document
# ----------------------------------------
# ``elpd_i`` of both results, for the full-Bayes predictive they estimate alike.
gap = np.ravel(loos["NUTS (PSIS)"].elpd_i) - exact["bayes"].pointwise
print(
    f"PSIS − exact per image: max |Δ| = {np.abs(gap).max():.4f} nats, "
    f"total {gap.sum():+.3f} (exact SE {exact['bayes'].se:.1f})"
)
