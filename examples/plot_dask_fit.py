"""
Fitting on a Dask cluster
=========================

Sufficient statistics add up, so a model can be fitted chunk by chunk anywhere: each Dask
task counts its chunk of documents, the counts are summed in a tree, and the estimator is
finished from the totals. ``bayesnb.distributed.fit`` gives exactly the fit of the whole
data in memory (the same counts, the same predictions), whether the chunks are arrays or a
bag of raw texts vectorised on the workers.

The cluster here is a small ``LocalCluster`` (two in-process workers, one thread each);
pass a ``Client`` connected to a real cluster and nothing else changes.
"""

# %%
import dask.array as da
import dask.bag as db
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

import bayesnb as bnb
from bayesnb import distributed
from bayesnb.datasets import FORTUNES_PATH

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
client = Client(cluster)
print(f"{len(client.scheduler_info()['workers'])} workers")

# %%
# An array in chunks
# ------------------
# The digits as pixel counts, 8 chunks of rows; labels chunked the same way.
data = bnb.datasets.load_digits_counts()
X = da.from_array(data.data, chunks=(225, -1))
y = da.from_array(data.target, chunks=(225,))
print(f"X: {X.shape}, {X.numblocks[0]} chunks")

on_dask = distributed.fit(bnb.MultinomialNB(), X, y, client=client)
in_memory = bnb.MultinomialNB().fit(data.data, data.target)
print(
    "same counts as in memory:",
    np.array_equal(on_dask.feature_count_, in_memory.feature_count_),
    "| same probabilities:",
    np.allclose(on_dask.predict_proba(data.data), in_memory.predict_proba(data.data)),
)

# %%
# Prediction stays lazy: a Dask array of probabilities, computed chunk by chunk.
proba = distributed.predict_proba(on_dask, X)
accuracy = float((on_dask.classes_[proba.argmax(axis=1)] == y).mean().compute())
print(f"{type(proba).__name__} of shape {proba.shape}; training accuracy {accuracy:.3f}")

# %%
# What the model learned: each digit's word (pixel) probabilities θ_c, the posterior mean
# of its Dirichlet, drawn as 8 × 8 images.
theta = np.exp(on_dask.feature_log_prob_)
fig, axes = plt.subplots(1, 10, figsize=(10, 1.6), layout="constrained")
for ax, c, row in zip(axes, on_dask.classes_, theta, strict=True):
    ax.imshow(row.reshape(8, 8), cmap="Greys")
    ax.set_title(str(c))
    ax.set_axis_off()
plt.show()

# %%
# Raw texts in a bag
# ------------------
# A bag of strings is vectorised on the workers with a stateless ``HashingVectorizer``
# (no vocabulary to share): 2**18 hashed columns by default.
if FORTUNES_PATH.is_dir():
    texts = bnb.datasets.load_fortunes(categories=["art", "computers", "food", "law", "science"])
    docs, labels = texts.data, texts.target
else:
    print("Debian's fortunes are not installed: using a small synthetic corpus instead.")
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(500)])
    labels = np.repeat(np.array(["a", "b"]), 300)
    docs = [" ".join(rng.choice(words[:300] if c == "a" else words[200:], size=15)) for c in labels]
bag = db.from_sequence(docs, npartitions=4)
label_bag = db.from_sequence(list(labels), npartitions=4)
text_model = distributed.fit(bnb.MultinomialNB(alpha="evidence"), bag, label_bag, client=client)
print(
    f"{text_model.n_features_in_} hashed columns, classes {list(map(str, text_model.classes_))}, "
    f"learned alpha_ = {text_model.alpha_:.3f}"
)

# %%
client.close()
cluster.close()
