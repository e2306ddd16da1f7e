"""
The most informative words, with posterior intervals
====================================================

Which words tell one class from another? For a multinomial model the natural measure is
the log-odds ratio ``log(θ_aw / θ_bw)``: how many nats one occurrence of word w adds to
the evidence for class a against class b. Under the Dirichlet posterior it has an exact
mean (differences of digammas) and a credible interval from exact draws, so rare words —
whose point estimates are the noisiest — show wide intervals instead of spurious certainty.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=["computers", "food"])
    vectorizer = CountVectorizer(stop_words="english", min_df=2)
    X = vectorizer.fit_transform(data.data)
    names = vectorizer.get_feature_names_out()
    pair = ("food", "computers")
else:
    print("Debian's fortunes are not installed: using the digits 0 and 1 (pixel counts).")
    data = bnb.datasets.load_digits_counts()
    keep = np.isin(data.target, [0, 1])
    X = sp.csr_matrix(data.data[keep])
    data.target = data.target[keep]
    names = np.asarray(data.feature_names)
    pair = (0, 1)
est = bnb.MultinomialNB(alpha="evidence").fit(X, data.target)
print(f"{X.shape[0]} documents, {X.shape[1]} words, learned alpha_ = {est.alpha_:.3f}")

# %%
# ``most_informative_features`` returns a DataFrame, one row per (pair, feature)
table = bnb.most_informative_features(est, n=15, classes=[pair], feature_names=names, ci_prob=0.9)
pd.set_option("display.width", 120)
print(table.head(8).round(2).to_string())

# %%
# Both directions of the pair in one figure: the words most indicative of each class, with
# their 89% equal-tailed intervals. The top of each list is words the other class never
# used: their mean log-odds is large and so is their uncertainty.
both = bnb.most_informative_features(
    est, n=12, classes=[pair, pair[::-1]], feature_names=names, ci_prob=0.89
)
lo, hi = "eti89_lb", "eti89_ub"  # 89%: ArviZ's default interval
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
for ax, (key, rows) in zip(axes, both.groupby(["class", "versus"], sort=False), strict=True):
    rows = rows.iloc[::-1]
    ypos = np.arange(len(rows))
    ax.errorbar(
        rows["mean"],
        ypos,
        xerr=[rows["mean"] - rows[lo], rows[hi] - rows["mean"]],
        fmt="o",
        ms=4,
        capsize=2,
    )
    ax.set_yticks(ypos, rows["feature"])
    ax.axvline(0, color="grey", lw=0.8)
    ax.set(
        title=f"{key[0]} against {key[1]}", xlabel="posterior log-odds ratio (nats per occurrence)"
    )
plt.show()
