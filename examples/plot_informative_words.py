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
from sklearn.pipeline import make_pipeline

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=["computers", "food"])
    # The usual text pipeline: bayesnb's functions take the fitted pipeline and name the
    # features with its vectoriser's vocabulary.
    model = make_pipeline(
        CountVectorizer(stop_words="english", min_df=2), bnb.MultinomialNB(alpha="evidence")
    ).fit(data.data, data.target)
    pair = ("food", "computers")
else:
    print("Debian's fortunes are not installed: using the digits 0 and 1 (pixel counts).")
    data = bnb.datasets.load_digits_counts()
    keep = np.isin(data.target, [0, 1])
    X = sp.csr_matrix(data.data[keep])
    model = bnb.MultinomialNB(alpha="evidence")
    model.fit(X, data.target[keep], feature_names=data.feature_names)
    pair = (0, 1)
est = bnb.final_estimator(model)  # the fitted MultinomialNB, its features named
print(
    f"{est.class_count_.sum():.0f} documents, {est.n_features_in_} words, "
    f"learned alpha_ = {est.alpha_:.3f}"
)

# %%
# ``most_informative_features`` returns a DataFrame, one row per (pair, feature)
table = bnb.most_informative_features(model, n=15, classes=[pair], ci_prob=0.9)
pd.set_option("display.width", 120)
print(table.head(8).round(2).to_string())

# %%
# Both directions of the pair in one figure: the words most indicative of each class, with
# their 89% equal-tailed intervals. The top of each list is words the other class never
# used: their mean log-odds is large and so is their uncertainty.
both = bnb.most_informative_features(model, n=12, classes=[pair, pair[::-1]], ci_prob=0.89)
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
