"""Pipelines: a fitted scikit-learn ``Pipeline`` ending in a bayesnb estimator -> that
estimator, its columns named by the steps before it.

scikit-learn's ``Pipeline.fit`` hands its last step the transformed matrix only (for text a
bare sparse matrix): the estimator never sees the vocabulary, and no hook of the ``Pipeline``
protocol lets it ask (metadata routing passes what the caller knows *before* the fit, and
the vocabulary exists only after the vectoriser's fit). So the names are read when they
are needed: every bayesnb function that reads parameters by feature (draws, summaries,
:func:`bayesnb.most_informative_features`, :func:`bayesnb.io.save`) accepts the fitted
pipeline and calls :func:`final_estimator`, which names the last step's columns with
``pipe[:-1].get_feature_names_out()``. The pipeline itself is not changed (a named shallow
copy of its last step is used), so ``clone``, grid search and refits behave as in
scikit-learn. The other route is ``fit(X, y, feature_names=vectorizer.get_feature_names_out())``
on the estimator itself.

Saved and loaded: :func:`bayesnb.io.save` of a pipeline of one text vectorizer
(``CountVectorizer`` or ``HashingVectorizer``, settings that are data) and an estimator
records the vectorizer's settings and the step names (:func:`saved_steps`), and
:func:`bayesnb.io.load` returns the pipeline again (:func:`text_pipeline`), which takes raw
text as the saved one did. Other pipelines are saved as their last step and load as it.
"""

from __future__ import annotations

from bayesnb.families import has_family

__all__ = ["final_estimator", "saved_steps", "text_pipeline"]


def _is_pipeline(model) -> bool:
    # Duck-typed (steps + slicing), so a Pipeline subclass or imblearn's Pipeline qualify.
    return hasattr(model, "steps") and hasattr(model, "__getitem__")


def final_estimator(model):
    """The bayesnb estimator of ``model``: ``model`` itself, or the last step of a pipeline
    with the feature names of the steps before it.

    Parameters
    ----------
    model : fitted bayesnb estimator or fitted scikit-learn ``Pipeline``
        A pipeline's last step must be a bayesnb estimator. When the steps before it offer
        ``get_feature_names_out`` (``CountVectorizer``, ``TfidfVectorizer``, a
        ``ColumnTransformer``, feature selectors) and the estimator has no names of its own,
        the estimator returned carries them as ``feature_names_in_``.

    Returns
    -------
    estimator
        ``model`` unchanged when it is an estimator, when the pipeline's estimator has names
        already (``fit(..., feature_names=...)``, a DataFrame) or when the transformers
        offer none (``HashingVectorizer``: columns stay ``x0, x1, ...``); otherwise a shallow
        copy of the pipeline's last step with the names (the pipeline is not changed).

    Raises
    ------
    TypeError
        The pipeline's last step is not a bayesnb estimator.
    ValueError
        The transformers give another number of names than the estimator has columns.
    """
    if not _is_pipeline(model):
        return model
    est = model.steps[-1][1]
    if not has_family(est):
        raise TypeError(
            f"the last step of the pipeline is {type(est).__name__}, not a bayesnb estimator"
        )
    if len(model.steps) < 2 or not hasattr(est, "n_features_in_"):
        return est  # unfitted: the function that reads it says so
    return _with_vectorizer(_with_names(model, est), model.steps)


def _with_names(model, est):
    if getattr(est, "feature_names_in_", None) is not None:
        return est
    try:
        names = model[:-1].get_feature_names_out()
    except AttributeError:  # a step without names (HashingVectorizer, FunctionTransformer)
        return est
    if len(names) != est.n_features_in_:
        raise ValueError(
            f"the steps before {type(est).__name__} name {len(names)} features but it was "
            f"fitted on {est.n_features_in_} columns"
        )
    return est._named(names)


def _with_vectorizer(est, steps):
    """With one text vectorizer before it, ``est`` records its settings (``bayesnb predict``
    then tokenises new text as the pipeline did); a copy, so the pipeline is not changed."""
    if len(steps) != 2 or getattr(est, "vectorizer_params_", None) is not None:
        return est
    from bayesnb.columns import vectorizer_params  # lazy: pandas and the corpus readers

    try:
        params = vectorizer_params(steps[0][1])
    except TypeError:  # not a Count/HashingVectorizer, or settings a file cannot hold
        return est
    out = est if est is not steps[-1][1] else est._shallow_copy()
    out.vectorizer_params_ = params
    return out


def saved_steps(model) -> list[str] | None:
    """The step names a model file records for ``model``: those of a fitted pipeline of one
    recordable text vectorizer and a bayesnb estimator (None for anything else, saved and
    loaded as its estimator)."""
    if not _is_pipeline(model) or len(model.steps) != 2:
        return None
    if getattr(final_estimator(model), "vectorizer_params_", None) is None:
        return None
    return [str(name) for name, _ in model.steps]


def text_pipeline(est, steps):
    """The fitted pipeline ``steps[0]: vectorizer -> steps[1]: est`` of a loaded model that
    records its vectorizer (:func:`bayesnb.columns.saved_vectorizer`)."""
    from sklearn.pipeline import Pipeline

    from bayesnb.columns import saved_vectorizer

    return Pipeline([(steps[0], saved_vectorizer(est)), (steps[1], est)])
