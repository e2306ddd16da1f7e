"""
The MAP decision and the ML decision
====================================

Bayes' rule classifies by ``argmax_c P(c) P(x | c)``: the **MAP decision**. Dropping the
class prior, ``argmax_c P(x | c)``, is the **ML decision**: every class is treated as
equally likely before the document is read (``fit_prior=False``). When the classes are
balanced the two agree; when one class is rare the prior moves borderline documents towards
the common class. That raises accuracy and lowers the recall of the rare class: which
decision is right depends on what a mistake costs.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import balanced_accuracy_score, recall_score
from sklearn.model_selection import train_test_split

import bayesnb as bnb

# %%
# Digits 3 and 8 (binary pixels), with the 8s thinned out to make them rare
# --------------------------------------------------------------------------
data = bnb.datasets.load_digits_binary()
keep = np.isin(data.target, [3, 8])
X_all, y_all = data.data[keep], data.target[keep]
rng = np.random.default_rng(0)

shares = [0.5, 0.3, 0.2, 0.1, 0.05, 0.02]
names = ["MAP decision", "ML decision"]
metrics = {m: {n: np.zeros(len(shares)) for n in names} for m in ("acc", "recall", "bal")}
n_repeats = 10  # random subsamples and splits per share, averaged
for i, share in enumerate(shares):
    for _ in range(n_repeats):
        threes = np.flatnonzero(y_all == 3)
        eights = np.flatnonzero(y_all == 8)
        n8 = max(4, round(share / (1 - share) * len(threes)))
        pick = rng.choice(eights, size=min(n8, len(eights)), replace=False)
        idx = np.concatenate([threes, pick])
        X, y = X_all[idx], y_all[idx]
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.5, random_state=int(rng.integers(1 << 30)), stratify=y
        )
        for name, fit_prior in zip(names, [True, False], strict=True):
            est = bnb.BernoulliNB(alpha=1.0, fit_prior=fit_prior).fit(X_tr, y_tr)
            pred = est.predict(X_te)
            metrics["acc"][name][i] += np.mean(pred == y_te) / n_repeats
            metrics["recall"][name][i] += recall_score(y_te, pred, pos_label=8) / n_repeats
            metrics["bal"][name][i] += balanced_accuracy_score(y_te, pred) / n_repeats

# %%
# The prior trades the rare class's recall for overall accuracy
# -------------------------------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained", sharex=True)
x = np.arange(len(shares))
titles = {"acc": "accuracy", "recall": "recall of the rare class (8)", "bal": "balanced accuracy"}
for ax, (key, title) in zip(axes, titles.items(), strict=True):
    for name in names:
        ax.plot(x, metrics[key][name], "o-", label=name)
    ax.set_title(title, fontsize=10)
    ax.set_xticks(x, [f"{s:.0%}" for s in shares])
    ax.set_xlabel("share of 8s in the data")
axes[0].legend()
plt.show()

for i, share in enumerate(shares):
    print(
        f"8s {share:>4.0%}: accuracy MAP {metrics['acc']['MAP decision'][i]:.3f} / "
        f"ML {metrics['acc']['ML decision'][i]:.3f}; recall of 8 MAP "
        f"{metrics['recall']['MAP decision'][i]:.2f} / ML {metrics['recall']['ML decision'][i]:.2f}"
    )

# %%
# ``fit_prior=False`` is a uniform prior, not "no prior": it is the same as
# ``class_prior=[0.5, 0.5]``, and any other fixed ``class_prior`` (for instance the
# frequencies expected where the classifier will be used) can be given instead.
est = bnb.BernoulliNB(class_prior=[0.5, 0.5]).fit(X_tr, y_tr)
same = bnb.BernoulliNB(fit_prior=False).fit(X_tr, y_tr)
print(
    "class_prior=[0.5, 0.5] and fit_prior=False agree:",
    np.allclose(est.predict_proba(X_te), same.predict_proba(X_te)),
)
