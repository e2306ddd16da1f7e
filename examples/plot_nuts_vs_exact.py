"""
NUTS against the exact posterior
================================

Every bayesnb model is conjugate, so its posterior can be drawn exactly
(``sample_posterior``). The same model declared in PyMC (``to_pymc``) and sampled with
NUTS (``fit_pymc``) must give the same posterior up to Monte Carlo error: a check of the
sampler, and of the declaration, that needs no asymptotics. Both results come in the same
``xarray.DataTree`` layout, so every ArviZ function takes either.

The model is small on purpose (Bernoulli naive Bayes on 16 pixels of the digits 3 and 8)
and sampled with the sufficient-statistic likelihood — a Binomial per (class, pixel)
instead of a Bernoulli per (image, pixel), the same posterior at a fraction of the cost.
"""

# %%
import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bayesnb as bnb

data = bnb.datasets.load_digits_binary()
keep = np.isin(data.target, [3, 8])
pixels = [r * 8 + c for r in range(2, 6) for c in range(2, 6)]  # the central 4 × 4 block
X = pd.DataFrame(data.data[keep][:, pixels], columns=np.asarray(data.feature_names)[pixels])
y = data.target[keep]
est = bnb.BernoulliNB(alpha=1.0).fit(X, y)
print(f"{X.shape[0]} images, {X.shape[1]} pixels, classes {est.classes_.tolist()}")

# %%
# Two ways to the same posterior
# ------------------------------
exact = est.sample_posterior(draws=500, chains=4, random_seed=1)
nuts = est.fit_pymc(
    X, y, draws=500, tune=500, chains=4, random_seed=1, likelihood="sufficient", progressbar=False
)
print(
    "groups:", list(nuts.children), "| sampler:", nuts["posterior"].attrs.get("inference_library")
)
print("divergences:", int(nuts["sample_stats"]["diverging"].sum()))

# %%
# ArviZ reads both: the summary of the NUTS draws, with ESS and R-hat
summary = az.summary(nuts, var_names=["feature_prob"], round_to="none")
print(summary[["mean", "sd", "ess_bulk", "r_hat", "mcse_mean"]].head(6).round(4))

# %%
# Means and standard deviations agree within Monte Carlo error
# ------------------------------------------------------------
# The z-score of each posterior mean is (NUTS − exact) / MCSE, with the Monte Carlo
# standard errors of both runs combined; a correct sampler gives roughly standard normal
# z-scores.
s_exact = az.summary(exact, var_names=["feature_prob"], round_to="none")
z = (summary["mean"] - s_exact["mean"]) / np.hypot(summary["mcse_mean"], s_exact["mcse_mean"])
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
axes[0].errorbar(s_exact["mean"], summary["mean"], yerr=2 * summary["mcse_mean"], fmt="o", ms=3)
axes[0].plot([0, 1], [0, 1], color="grey", lw=0.8)
axes[0].set(xlabel="exact posterior mean of φ", ylabel="NUTS posterior mean (± 2 MCSE)")
axes[1].hist(z, bins=12, density=True)
grid = np.linspace(-4, 4, 200)
axes[1].plot(grid, np.exp(-(grid**2) / 2) / np.sqrt(2 * np.pi), color="k", lw=1)
axes[1].set(xlabel="z = (NUTS − exact) / MCSE", ylabel="density")
plt.show()
print(
    f"{len(z)} parameters: max |z| = {np.abs(z).max():.2f}, "
    f"sd ratio NUTS/exact in [{(summary['sd'] / s_exact['sd']).min():.2f}, "
    f"{(summary['sd'] / s_exact['sd']).max():.2f}]"
)

# %%
# ArviZ plots on both trees
# -------------------------
# A forest plot of a few pixels' presence probabilities, NUTS next to the exact draws,
# and the rank plot of the NUTS chains (uniform ranks: the chains mix).
sel = {"feature": list(X.columns[:4])}
pc = az.plot_forest(
    {"NUTS": nuts, "exact": exact},
    var_names=["feature_prob"],
    coords=sel,
    combined=True,
    figure_kwargs={"figsize": (8, 4)},
)
plt.show()
pc = az.plot_rank(nuts, var_names=["class_prior"], figure_kwargs={"figsize": (8, 2.6)})
plt.show()
