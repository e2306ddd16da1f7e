"""
Mixed data: one naive Bayes, an event model per block of columns
================================================================

Real records mix kinds of data: measurements, yes/no answers, counts, categories. Naive
Bayes only needs ``log p(x | c)`` to split into a sum over blocks of columns, so each block
can have its own event model and its own conjugate prior, and one class prior is counted
once: ``log p(x, c) = log π_c + Σ_b log p(x_b | c)``. ``ColumnwiseNB`` does that, the
naive-Bayes analogue of scikit-learn's ``ColumnTransformer``.

The data are synthetic patient records drawn from a known model (three diagnoses), so
that every block's contribution can be seen.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

import bayesnb as bnb

rng = np.random.default_rng(0)
n = 1500
diagnosis = rng.choice(np.array(["flu", "cold", "allergy"]), size=n, p=[0.3, 0.5, 0.2])
code = pd.Series(diagnosis).map({"flu": 0, "cold": 1, "allergy": 2}).to_numpy()
temperature = rng.normal(np.array([38.6, 37.3, 36.9])[code], np.array([0.6, 0.5, 0.4])[code])
heart_rate = rng.normal(np.array([92, 80, 74])[code] + 6 * (temperature - 37.5), 8)
records = pd.DataFrame(
    {
        "temperature": temperature,
        "heart_rate": heart_rate,
        "fever_reported": rng.random(n) < np.array([0.9, 0.3, 0.05])[code],
        "itchy_eyes": rng.random(n) < np.array([0.1, 0.15, 0.8])[code],
        "sneezes_per_day": rng.poisson(np.array([3.0, 8.0, 15.0])[code]),
        "season": rng.choice(4, size=n),  # 0..3; allergies peak in spring (1)
    }
)
spring = code == 2
records.loc[spring, "season"] = rng.choice(4, size=spring.sum(), p=[0.1, 0.6, 0.2, 0.1])
records[["fever_reported", "itchy_eyes"]] = records[["fever_reported", "itchy_eyes"]].astype(int)
print(records.head())

X_train, X_test, y_train, y_test = train_test_split(
    records, diagnosis, test_size=0.4, random_state=0, stratify=diagnosis
)

# %%
# One event model per block
# -------------------------
# Blocks are ``(name, estimator, columns)``; columns by DataFrame name. The two vital signs
# are correlated within a class, so they get a GDA with a full covariance.
model = bnb.ColumnwiseNB(
    [
        ("vitals", bnb.GDA(covariance="shared"), ["temperature", "heart_rate"]),
        ("symptoms", bnb.BernoulliNB(), ["fever_reported", "itchy_eyes"]),
        ("sneezes", bnb.PoissonNB(), ["sneezes_per_day"]),
        ("season", bnb.CategoricalNB(), ["season"]),
    ]
)
model.fit(X_train, y_train)
print(
    f"all blocks: accuracy {model.score(X_test, y_test):.3f}, "
    f"log evidence {model.log_evidence():.1f}"
)

# %%
# Each block alone, and where the evidence comes from
# ---------------------------------------------------
# Left: the test accuracy of each block alone (a ColumnwiseNB of that block only) and of
# all together. Right: the log-odds of flu against cold for the first five test patients,
# block by block. A block's own class-conditional log-likelihood ``log p(x_b | c)`` is its
# joint log probability minus the class prior; the blocks' terms plus one class prior give
# the composite's.
scores = {}
for name, block, cols in model.estimators_:
    alone = bnb.ColumnwiseNB(
        [(name, block.__class__(**block.get_params()), list(X_train.columns[cols]))]
    ).fit(X_train, y_train)
    scores[name] = alone.score(X_test, y_test)
scores["all blocks"] = model.score(X_test, y_test)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
axes[0].barh(list(scores), list(scores.values()), color=["C0"] * (len(scores) - 1) + ["C3"])
axes[0].set(xlabel="test accuracy", xlim=(0, 1))
axes[0].invert_yaxis()

first = X_test.iloc[:5]
classes = list(model.classes_)
flu, cold = classes.index("flu"), classes.index("cold")
contrib = {}
for name, block, cols in model.estimators_:
    block_X = first.iloc[:, cols]
    ll = block.predict_joint_log_proba(block_X) - block.class_log_prior_
    contrib[name] = ll[:, flu] - ll[:, cold]
prior = model.class_log_prior_[flu] - model.class_log_prior_[cold]
bottom_pos = np.zeros(len(first))
bottom_neg = np.zeros(len(first))
for i, (name, values) in enumerate(contrib.items()):
    base = np.where(values >= 0, bottom_pos, bottom_neg)
    axes[1].bar(np.arange(len(first)), values, bottom=base, color=f"C{i}", label=name)
    bottom_pos += np.clip(values, 0, None)
    bottom_neg += np.clip(values, None, 0)
axes[1].axhline(0, color="k", lw=0.8)
axes[1].set_xticks(np.arange(len(first)), [f"{d}" for d in y_test[:5]])
axes[1].set(xlabel="test patient (true diagnosis)", ylabel="log-odds flu : cold")
axes[1].legend(fontsize=8, ncols=2)
plt.show()
total = sum(contrib.values()) + prior
joint = model.predict_joint_log_proba(first)
print(
    "block sums + prior equal the composite's log-odds:",
    np.allclose(total, joint[:, flu] - joint[:, cold]),
)

# %%
# Exact posterior draws of the composite: a DataTree with the class prior in ``/posterior``
# and each block's own layout as a child group ``/<block>/posterior``.
tree = model.sample_posterior(draws=200, chains=2, random_seed=0)
print([node.path for node in tree.subtree if node.name == "posterior"])
print(tree["vitals/posterior"]["mean"].mean(("chain", "draw")).to_pandas().round(2))
