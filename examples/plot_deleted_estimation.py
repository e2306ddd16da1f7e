"""
Laplace's bias, measured by deleted estimation
==============================================

How often will a word seen r times in a class's training text appear in new text of the
same size? Deleted (held-out) estimation answers it from the data (Jelinek & Mercer 1985;
Church & Gale 1991): split the training documents in two halves, and for all the
(class, word) pairs seen r times in one half average their count in the other half. That
empirical ``r*`` is what a smoothing rule should predict. Laplace's add-one rule (the
posterior mean at α = 1) predicts ``(r + 1) N / (N + V)`` with N the class's tokens and V
the vocabulary: on text, where V is as large as N, it nearly doubles the never-seen and
once-seen words and takes the mass from the frequent ones, predicting a word seen 10 times
to appear 5 times. The posterior mean at the α learned from the evidence (about 0.13
here) gets the frequent words right; no single α gets r = 0 and r = 1 right together —
that takes a discount that depends on r (Good–Turing).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import StratifiedKFold

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=["art", "computers", "food", "law", "science"])
    X = CountVectorizer().fit_transform(data.data).tocsr()
    unit = "word"
else:
    print("Debian's fortunes are not installed: using the digits (64 pixel counts) instead.")
    data = bnb.datasets.load_digits_counts()
    X = sp.csr_matrix(data.data)
    unit = "pixel"
y = data.target

# %%
# Two halves, fitted separately
# -----------------------------
# Each half is fitted with ``alpha="evidence"``: the symmetric Dirichlet concentration that
# maximises the closed-form marginal likelihood of that half (``alpha_``).
half_a, half_b = next(StratifiedKFold(2, shuffle=True, random_state=0).split(X, y))
fits = [bnb.MultinomialNB(alpha="evidence").fit(X[h], y[h]) for h in (half_a, half_b)]
V = X.shape[1]
print(f"V = {V} {unit}s; learned α: {fits[0].alpha_:.3f} and {fits[1].alpha_:.3f}")

# %%
# Held-out counts by training count
# ---------------------------------
# For the pairs seen r times in half 1, the count in half 2 rescaled to half 1's size
# (× T_c¹ / T_c²), averaged over the pairs; both directions pooled.
max_r = 12
r_all, held, laplace, posterior = [], [], [], []
for one, two in [(fits[0], fits[1]), (fits[1], fits[0])]:
    c1, c2 = one.feature_count_, two.feature_count_
    n1, n2 = c1.sum(axis=1, keepdims=True), c2.sum(axis=1, keepdims=True)
    r_all.append(c1.ravel())
    held.append((c2 * n1 / n2).ravel())
    laplace.append(np.broadcast_to((c1 + 1) * n1 / (n1 + V), c1.shape).ravel())
    a = one.alpha_
    posterior.append(np.broadcast_to((c1 + a) * n1 / (n1 + V * a), c1.shape).ravel())
r_all, held = np.concatenate(r_all), np.concatenate(held)
laplace, posterior = np.concatenate(laplace), np.concatenate(posterior)

rs = np.arange(max_r + 1)
table = {"pairs": [], "r* (held out)": [], "MLE r": [], "Laplace": [], "evidence α": []}
for r in rs:
    sel = r_all == r
    table["pairs"].append(int(sel.sum()))
    table["r* (held out)"].append(held[sel].mean() if sel.any() else np.nan)
    table["MLE r"].append(float(r))
    table["Laplace"].append(laplace[sel].mean() if sel.any() else np.nan)
    table["evidence α"].append(posterior[sel].mean() if sel.any() else np.nan)

print(f"{'r':>3} {'pairs':>7} {'r*':>7} {'Laplace':>8} {'evid. α':>8}")
for i, r in enumerate(rs):
    print(
        f"{r:>3} {table['pairs'][i]:>7} {table['r* (held out)'][i]:>7.3f} "
        f"{table['Laplace'][i]:>8.3f} {table['evidence α'][i]:>8.3f}"
    )

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for name, style in [
    ("r* (held out)", "ko-"),
    ("MLE r", "C3--"),
    ("Laplace", "C0s-"),
    ("evidence α", "C2^-"),
]:
    axes[0].plot(rs, table[name], style, label=name, ms=4)
axes[0].set(xlabel="count r in one half", ylabel="predicted count in the other half")
axes[0].legend(fontsize=8)
ratio = np.asarray(table["Laplace"]) / np.asarray(table["r* (held out)"])
ratio_ev = np.asarray(table["evidence α"]) / np.asarray(table["r* (held out)"])
axes[1].semilogy(rs, ratio, "C0s-", label="Laplace / r*")
axes[1].semilogy(rs, ratio_ev, "C2^-", label="evidence α / r*")
axes[1].axhline(1.0, color="k", lw=0.8)
axes[1].set(xlabel="count r in one half", ylabel="predicted / held-out (log scale)")
axes[1].legend(fontsize=8)
plt.show()

# %%
# Summed over the unseen pairs, add-one smoothing reserves this share of each class's
# probability for words it has not seen, against the share they take in the other half:
unseen = r_all == 0
tokens = sum(f.feature_count_.sum() for f in fits)
print(
    f"Laplace: {laplace[unseen].sum() / tokens:.1%} of the mass on unseen pairs; "
    f"held out: {held[unseen].sum() / tokens:.1%}; "
    f"evidence α: {posterior[unseen].sum() / tokens:.1%}"
)
