"""
Words never seen in training: the UNK token
===========================================

A vocabulary built from more text than the training documents (the whole corpus, or a
larger collection) has columns that are zero in every training document. With a
Dirichlet(α) prior each of them still takes α/(T_c + Vα) of every class's probability,
so the more such columns, the thinner the probabilities of the words that *were* seen, and
a test document's score depends on how big the vocabulary happened to be. ``unk=True``
pools every column unseen in training into one UNK category, the standard remedy of
language modelling: P(UNK | c) = α / (T_c + α(V_seen + 1)).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split

import bayesnb as bnb
from bayesnb.datasets import FORTUNES_PATH

categories = ["art", "computers", "food", "law", "science"]
if FORTUNES_PATH.is_dir():
    data = bnb.datasets.load_fortunes(categories=categories)
    docs, y = list(data.data), data.target
    # Text from the other categories only grows the vocabulary
    others = bnb.datasets.load_fortunes(
        categories=["people", "definitions", "cookie", "songs-poems", "politics"]
    ).data
else:
    print("Debian's fortunes are not installed: using a small synthetic corpus instead.")
    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(3000)])
    topics = rng.dirichlet(np.full(3000, 0.05), size=5)
    y = np.repeat(np.array(categories), 200)
    docs = [" ".join(rng.choice(vocab, size=20, p=topics[i // 200])) for i in range(1000)]
    others = [" ".join(rng.choice(vocab, size=20)) for _ in range(2000)]
docs_train, docs_test, y_train, y_test = train_test_split(
    docs, y, test_size=0.3, random_state=0, stratify=y
)

# %%
# Vocabularies of growing size
# ----------------------------
# The training documents are the same throughout; only the vocabulary grows: first the
# training words only (test words outside it are dropped by the vectoriser), then the
# words of the test documents, then more and more words from other texts (columns that are
# zero in training *and* in test).
vocab_train = CountVectorizer().fit(docs_train).vocabulary_
vocab_all = CountVectorizer().fit(docs_train + docs_test).vocabulary_
extra = CountVectorizer().fit(others).get_feature_names_out()
extra = [w for w in extra if w not in vocab_all]

settings = [("training words", list(vocab_train))]
settings.append(("+ test words", list(vocab_all)))
for k in (len(extra) // 4, len(extra) // 2, len(extra)):
    settings.append((f"+ {k} other words", list(vocab_all) + extra[:k]))

rows = []
for label, vocabulary in settings:
    vec = CountVectorizer(vocabulary=vocabulary)
    X_tr, X_te = vec.transform(docs_train), vec.transform(docs_test)
    unseen_cols = np.asarray(X_tr.sum(axis=0)).ravel() == 0
    unseen_tokens = X_te[:, unseen_cols].sum() / X_te.sum()
    row = {"vocabulary": label, "V": len(vocabulary), "unseen test tokens": unseen_tokens}
    for unk in (False, True):
        est = bnb.MultinomialNB(alpha=1.0, unk=unk).fit(X_tr, y_train)
        proba = est.predict_proba(X_te)
        p_true = proba[np.arange(len(y_test)), np.searchsorted(est.classes_, y_test)]
        row[f"log loss unk={unk}"] = -np.mean(np.log(p_true))
        row[f"accuracy unk={unk}"] = est.score(X_te, y_test)
    rows.append(row)

print(f"{'vocabulary':22s} {'V':>6} {'unseen':>7}   log loss (unk=False / True)   accuracy")
for r in rows:
    print(
        f"{r['vocabulary']:22s} {r['V']:>6} {r['unseen test tokens']:>7.1%}   "
        f"{r['log loss unk=False']:.3f} / {r['log loss unk=True']:.3f}"
        f"                 {r['accuracy unk=False']:.3f} / {r['accuracy unk=True']:.3f}"
    )

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained", sharex=True)
V = [r["V"] for r in rows]
for unk, style in [(False, "o-"), (True, "s-")]:
    axes[0].plot(V, [r[f"log loss unk={unk}"] for r in rows], style, label=f"unk={unk}")
    axes[1].plot(V, [r[f"accuracy unk={unk}"] for r in rows], style, label=f"unk={unk}")
axes[0].set(xlabel="vocabulary size V", ylabel="test log loss")
axes[1].set(xlabel="vocabulary size V", ylabel="test accuracy")
axes[0].legend()
plt.show()

# %%
# With ``unk=True`` the columns never seen in training cost nothing: they are one pooled
# category, so the score does not depend on how many of them the vocabulary holds, and a
# test token of a new word counts as one UNK token. Without it every extra column takes
# its share α/(T_c + Vα) from every class. The posterior of the fitted model has one
# category per seen word plus UNK; every pooled column scores as UNK:
vec = CountVectorizer(vocabulary=settings[-1][1])
est = bnb.MultinomialNB(unk=True).fit(vec.transform(docs_train), y_train)
seen = est.feature_count_.sum(axis=0) > 0
print(
    f"{est.n_features_in_} columns, {seen.sum()} seen in training; the posterior's "
    f"concentration has shape {est.posterior_.concentration.shape}"
)
p_unk = np.exp(est.feature_log_prob_[:, np.flatnonzero(~seen)[0]])
print("P(UNK | c):", {str(c): float(f"{p:.3g}") for c, p in zip(est.classes_, p_unk, strict=True)})
