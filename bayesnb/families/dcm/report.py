"""DirichletCompoundNB family methods: report studies, and the burstiness check they use."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from bayesnb.families import family_of
from bayesnb.validation import check_fitted, check_int, encode_labels

__all__ = ["DCMReport", "distinct_words_check"]


class DCMReport:
    """Family methods of DirichletCompoundNB for report; see :class:`bayesnb.families.Family`."""

    report_tokens = True

    @staticmethod
    def distinct_words_check(est, X, y, *, n_replicates: int = 20, random_seed=0) -> dict:
        """:func:`distinct_words_check` (the burstiness check of the report's section)."""
        return distinct_words_check(est, X, y, n_replicates=n_replicates, random_seed=random_seed)

    def report_studies(self) -> list:
        """Burstiness: distinct words of generated documents, multinomial against the DCM."""
        from bayesnb.families.dcm.studies import SECTION

        return [SECTION]


# -- posterior predictive check: distinct words per document -----------------------------------
def distinct_words_check(est, X, y, *, n_replicates: int = 20, random_seed=0) -> dict:
    """Posterior predictive check of the number of distinct words per document.

    For every document of ``(X, y)`` the fitted class model generates ``n_replicates``
    documents of the same class and length; the number of distinct words (non-zero columns)
    of the real documents is compared with that of the replicates. The multinomial model
    draws every token independently from θ_c and so spreads a document over too many distinct
    words; the DCM's Pólya urn repeats words within a document, as text does.

    Works for :class:`DirichletCompoundNB` (replicates from the Pólya urn with β_c of its
    estimate) and ``MultinomialNB`` (tokens i.i.d. from θ_c of its estimate; ``"bayes"``:
    the Pólya urn of its Dirichlet-multinomial predictive).

    Parameters
    ----------
    est : fitted DirichletCompoundNB or MultinomialNB
    X : array-like or sparse matrix of shape (n_docs, n_features)
        Integer counts (usually held-out documents).
    y : array-like of shape (n_docs,)
        Their labels.
    n_replicates : int, default 20
    random_seed : int or Generator, default 0

    Returns
    -------
    dict
        ``observed`` (n_docs,) distinct words of each document; ``replicated``
        (n_replicates, n_docs); ``observed_mean`` and ``replicated_mean`` (floats);
        ``ratio`` = replicated_mean / observed_mean (1 is a perfect match, above 1 the model
        spreads documents over too many words); ``p_value`` = fraction of replicate sets whose
        mean is ≥ the observed mean (near 0 or 1: the model misses the statistic);
        ``per_class`` = {label: (observed mean, replicated mean)}.
    """
    from bayesnb.generate import replicate_documents

    kind = family_of(est, "distinct_words_check").name
    if kind not in ("dcm", "multinomial"):
        raise TypeError(
            f"distinct_words_check needs a DirichletCompoundNB or MultinomialNB, got "
            f"{type(est).__name__}"
        )
    check_fitted(est)
    check_int(n_replicates, "n_replicates")
    Xc, yc = est._check_input(X, y, reset=False)
    _, codes = encode_labels(yc, est.classes_)
    Xs = Xc if sp.issparse(Xc) else sp.csr_matrix(Xc)
    lengths = np.rint(np.asarray(Xs.sum(axis=1)).ravel()).astype(np.int64)
    observed = np.asarray((Xs != 0).sum(axis=1)).ravel().astype(np.float64)
    rng = np.random.default_rng(random_seed)
    replicated = np.empty((n_replicates, codes.size))
    for r in range(n_replicates):
        docs = replicate_documents(est, codes, lengths, rng)
        replicated[r] = np.diff(docs.indptr)
    obs_mean = float(observed.mean()) if observed.size else np.nan
    rep_means = replicated.mean(axis=1)
    per_class = {}
    for c, label in enumerate(est.classes_):
        rows = codes == c
        if rows.any():
            per_class[label] = (float(observed[rows].mean()), float(replicated[:, rows].mean()))
    return {
        "observed": observed,
        "replicated": replicated,
        "observed_mean": obs_mean,
        "replicated_mean": float(rep_means.mean()),
        "ratio": float(rep_means.mean() / obs_mean) if obs_mean else np.nan,
        "p_value": float(np.mean(rep_means >= obs_mean)),
        "per_class": per_class,
    }
