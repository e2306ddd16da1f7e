"""
A hyperprior on the smoothing, sampled with NUTS
================================================

Every bayesnb model is conjugate for a *fixed* prior. A researcher's next step is to change
the model: here, to learn the Dirichlet concentration α of a multinomial naive Bayes model
with a Gamma hyperprior, one α per class, and sample it with NUTS (``fit_pymc(alpha_prior=
...)``). The exact answer is still at hand: given α_c the words of class c are
Dirichlet-multinomial, so the marginal posterior of each α_c is its Gamma prior times the
class's closed-form evidence, a one-dimensional density we evaluate on a grid. NUTS must
agree with it within Monte Carlo error.

The corpus is text-like on purpose: 500 Zipfian words, most of them never seen in a class,
the boundary of the simplex where a Dirichlet declared the usual way makes NUTS diverge.
bayesnb declares every Dirichlet as normalised Gamma variates in log space, whose
log-density is concave, so the fit below has no divergences.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats
from scipy.special import gammaln

import bayesnb as bnb

rng = np.random.default_rng(0)
n_words, n_docs = 500, 150
zipf = 1.0 / np.arange(1, n_words + 1) ** 1.1
theta = rng.dirichlet(300.0 * zipf / zipf.sum() + 1e-3, 3)  # 3 classes around one Zipf law
y = rng.integers(0, 3, n_docs)
lengths = np.maximum(1, rng.lognormal(np.log(20.0), 0.8, n_docs).astype(int))
X = np.stack([rng.multinomial(n, theta[c]) for n, c in zip(lengths, y, strict=True)])
est = bnb.MultinomialNB(alpha=1.0).fit(X, y)
T = est.feature_count_
print(f"{n_docs} documents, {int(X.sum())} tokens; cells never seen in their class: "
      f"{np.mean(T == 0):.0%}")  # fmt: skip

# %%
# One α per class with a Gamma(3, 2) hyperprior
# ----------------------------------------------
# ``alpha_prior`` takes the Gamma shape ``alpha``, the rate ``beta`` and ``per_class``; its
# values are data of the compiled model, so trying another hyperprior does not recompile.
prior = {"alpha": 3.0, "beta": 2.0, "per_class": True}
nuts = est.fit_pymc(X, y, draws=500, tune=500, chains=2, random_seed=1, alpha_prior=prior,
                    progressbar=False)  # fmt: skip
print("posterior variables:", list(nuts.posterior.data_vars))
print("divergences:", int(nuts.sample_stats["diverging"].sum()))


# %%
# The yardstick: Gamma prior × closed-form evidence, per class
# -------------------------------------------------------------
# log p(words of class c | α) = ln Γ(Vα) − ln Γ(T_c + Vα) + Σ_j [ln Γ(T_cj + α) − ln Γ(α)].
def log_evidence(alpha: np.ndarray, counts: np.ndarray) -> np.ndarray:
    V = counts.size
    a = alpha[:, None]
    return (
        gammaln(V * alpha)
        - gammaln(counts.sum() + V * alpha)
        + (gammaln(counts[None] + a) - gammaln(a)).sum(1)
    )


grid = np.linspace(0.005, 1.0, 2000)
fig, axes = plt.subplots(1, 3, figsize=(10, 3), layout="constrained", sharey=True)
for c, ax in enumerate(axes):
    log_post = stats.gamma.logpdf(grid, prior["alpha"], scale=1 / prior["beta"])
    log_post = log_post + log_evidence(grid, T[c])
    density = np.exp(log_post - log_post.max())
    density /= np.trapezoid(density, grid)
    draws = nuts.posterior["alpha"].values[..., c].ravel()
    ax.hist(draws, bins=40, density=True, alpha=0.5, label="NUTS")
    ax.plot(grid, density, color="k", lw=1, label="exact")
    exact_mean = np.trapezoid(grid * density, grid)
    ax.set(xlim=(draws.min() * 0.8, draws.max() * 1.2), xlabel=f"α of class {c}")
    print(f"class {c}: NUTS mean {draws.mean():.4f}, exact mean {exact_mean:.4f}")
axes[0].legend()
plt.show()

# %%
# The probabilities given the learned α
# -------------------------------------
# The word probabilities are reported in the usual layout (``feature_prob``, dims ``class,
# feature``); the log-Gamma variates behind them are not, unless ``auxiliary=True``.
print(nuts.posterior["feature_prob"].dims)
