"""Words as coordinates: a transformer's feature names reach the DataTree ``feature``
coordinate, the informative features, model files and the report.

Two routes: ``fit(X, y, feature_names=...)`` on every estimator, and every bayesnb function
that reads parameters by feature accepting a fitted ``Pipeline``
(:func:`bayesnb.final_estimator` names its last step with ``pipe[:-1].get_feature_names_out()``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import digamma
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

import bayesnb as bnb
from bayesnb.draws import point_estimate, posterior_draws, posterior_summary, sample_posterior

DOCS = [
    "cheap pills buy now",
    "buy cheap watches now",
    "win cash prize now",
    "meeting agenda for monday",
    "project report due monday",
    "lunch meeting with the team",
] * 4
LABELS = np.array(["spam", "spam", "spam", "ham", "ham", "ham"] * 4)


def _vocabulary() -> list[str]:
    return list(CountVectorizer().fit(DOCS).get_feature_names_out())


def _counts():
    vec = CountVectorizer()
    X = vec.fit_transform(DOCS)
    return X, list(vec.get_feature_names_out())


@pytest.fixture(autouse=True)
def _no_feature_name_warning():
    # Names given by hand label input without names: sklearn's "X does not have valid
    # feature names" warning (and every other warning) would be a failure here.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        yield


# -- the pipeline route ----------------------------------------------------------------------
def test_pipeline_vocabulary_reaches_sample_posterior_and_most_informative_features():
    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB()).fit(DOCS, LABELS)
    words = _vocabulary()
    tree = sample_posterior(pipe, draws=50, chains=2, random_seed=3)
    assert list(tree["posterior"]["feature"].values) == words
    # The names do not change the numbers: the same seed gives the bare estimator's draws.
    bare = pipe[-1].sample_posterior(draws=50, chains=2, random_seed=3)
    assert list(bare["posterior"]["feature"].values) == [f"x{j}" for j in range(len(words))]
    assert_array_equal(
        tree["posterior"]["feature_prob"].values, bare["posterior"]["feature_prob"].values
    )
    table = bnb.most_informative_features(pipe, n=3, classes=[("spam", "ham")])
    # "now" is in every spam document (12 tokens of 48) and in no ham one (52 tokens): the
    # largest posterior mean of log θ_spam,now − log θ_ham,now under Dirichlet(1 + T_c),
    # ψ(1 + 12) − ψ(19 + 48) − ψ(1) + ψ(19 + 52) with a vocabulary of 19 words.
    assert len(words) == 19
    assert table["feature"].iloc[0] == "now"
    assert table["count"].iloc[0] == 12.0 and table["count_versus"].iloc[0] == 0.0
    expected = digamma(13) - digamma(67) - digamma(1) + digamma(71)
    assert_allclose(table["mean"].iloc[0], expected, rtol=1e-12)
    assert set(table["feature"]) <= set(words)
    # The pipeline's own estimator is left as scikit-learn fitted it.
    assert not hasattr(pipe[-1], "feature_names_in_")


def test_final_estimator_names_a_copy_and_the_estimator_methods_see_the_words():
    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB()).fit(DOCS, LABELS)
    est = bnb.final_estimator(pipe)
    assert est is not pipe[-1]
    assert list(est.feature_names_in_) == _vocabulary()
    tree = est.sample_posterior(draws=10, chains=1, random_seed=0, features=["cash", "team"])
    assert list(tree["posterior"]["feature"].values) == ["cash", "team"]
    X = pipe[0].transform(DOCS)
    assert_array_equal(est.predict_proba(X), pipe.predict_proba(DOCS))
    assert bnb.final_estimator(est) is est  # an estimator is returned as it is


def test_point_estimate_posterior_draws_and_summary_accept_a_pipeline():
    pipe = make_pipeline(CountVectorizer(), bnb.BernoulliNB()).fit(DOCS, LABELS)
    words = _vocabulary()
    point = point_estimate(pipe, "mean")
    assert list(point["posterior"]["feature"].values) == words
    j = words.index("monday")
    # Beta(1 + D, 1 + N − D) posterior mean: "monday" is in 8 of 12 ham documents.
    ham = list(pipe[-1].classes_).index("ham")
    assert_allclose(point["posterior"]["feature_prob"].values[0, 0, ham, j], 9 / 14)
    summary = posterior_summary(pipe)
    assert list(summary["feature"].values) == words
    assert_allclose(
        summary["feature_prob"].sel(summary="mean", feature="monday").values[ham], 9 / 14
    )
    draws = posterior_draws(pipe, draws=5, chains=1, random_seed=1, features=["monday"])
    assert draws["feature_prob"].shape == (1, 5, 2, 1)


def test_tfidf_pipeline_passes_the_vocabulary_through():
    pipe = make_pipeline(CountVectorizer(), TfidfTransformer(), bnb.MultinomialNB())
    pipe.fit(DOCS, LABELS)
    assert list(sample_posterior(pipe, draws=2, chains=1)["posterior"]["feature"].values) == (
        _vocabulary()
    )


def test_a_transformer_without_names_keeps_positional_coordinates():
    pipe = make_pipeline(HashingVectorizer(n_features=16, alternate_sign=False), bnb.PoissonNB())
    pipe.fit(DOCS, LABELS)
    coords = point_estimate(pipe, "mean")["posterior"]["feature"].values
    assert list(coords) == [f"x{j}" for j in range(16)]


def test_a_pipeline_not_ending_in_a_bayesnb_estimator_is_refused():
    pipe = make_pipeline(CountVectorizer(), LogisticRegression()).fit(DOCS, LABELS)
    with pytest.raises(TypeError, match="last step of the pipeline is LogisticRegression"):
        bnb.most_informative_features(pipe)


def test_clone_and_grid_search_of_a_text_pipeline():
    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB())
    search = GridSearchCV(pipe, {"multinomialnb__alpha": [1.0, 2.0]}, cv=2).fit(DOCS, LABELS)
    best = search.best_estimator_
    assert list(point_estimate(best, "map")["posterior"]["feature"].values) == _vocabulary()
    named = bnb.MultinomialNB().fit(*_counts()[:1], LABELS, feature_names=_counts()[1])
    assert not hasattr(clone(named), "feature_names_in_")


# -- fit(..., feature_names=) on every estimator ---------------------------------------------
ESTIMATORS = [
    bnb.BernoulliNB(),
    bnb.MultinomialNB(),
    bnb.CategoricalNB(),
    bnb.PoissonNB(),
    bnb.DirichletCompoundNB(),
    bnb.GDA(covariance="diagonal"),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_fit_feature_names_label_every_layout(est):
    X, words = _counts()
    Xin = X.toarray() if isinstance(est, bnb.GDA | bnb.CategoricalNB) else X
    if isinstance(est, bnb.GDA):
        Xin = Xin + np.random.default_rng(0).normal(scale=0.1, size=Xin.shape)
    fitted = clone(est).fit(Xin, LABELS, feature_names=words)
    plain = clone(est).fit(Xin, LABELS)
    assert list(fitted.feature_names_in_) == words
    assert_array_equal(fitted.predict_proba(Xin), plain.predict_proba(Xin))  # no warning
    named = fitted.sample_posterior(draws=4, chains=1, random_seed=5)
    unnamed = plain.sample_posterior(draws=4, chains=1, random_seed=5)
    assert list(named["posterior"]["feature"].values) == words
    for var in named["posterior"].data_vars:
        assert_array_equal(named["posterior"][var].values, unnamed["posterior"][var].values)
    estimate = "map" if isinstance(est, bnb.DirichletCompoundNB) else "mean"
    assert list(fitted.point_estimate(estimate)["posterior"]["feature"].values) == words
    if not isinstance(est, bnb.DirichletCompoundNB):
        assert list(posterior_summary(fitted)["feature"].values) == words


def test_partial_fit_takes_the_names_on_the_first_call():
    X, words = _counts()
    est = bnb.MultinomialNB().partial_fit(X[:12], LABELS[:12], feature_names=words)
    est.partial_fit(X[12:], LABELS[12:])
    est.partial_fit(X[:6], LABELS[:6], feature_names=words)  # the same names again: fine
    assert list(est.feature_names_in_) == words
    with pytest.raises(ValueError, match="must equal the names of the first call"):
        est.partial_fit(X[:6], LABELS[:6], feature_names=words[::-1])


def test_most_informative_features_reads_the_names_given_to_fit():
    X, words = _counts()
    est = bnb.MultinomialNB().fit(X, LABELS, feature_names=words)
    table = bnb.most_informative_features(est, n=2, classes=[("ham", "spam")])
    # "meeting" and "monday": 8 ham tokens each and no spam one, so the same log-odds ratio.
    assert set(table["feature"]) == {"meeting", "monday"}
    assert_allclose(table["mean"].iloc[0], table["mean"].iloc[1], rtol=1e-12)
    assert sorted(table["column"]) == sorted([words.index("meeting"), words.index("monday")])


def test_refit_without_names_forgets_them():
    X, words = _counts()
    est = bnb.PoissonNB().fit(X, LABELS, feature_names=words)
    est.fit(X, LABELS)
    assert not hasattr(est, "feature_names_in_")
    assert list(est.point_estimate("mean")["posterior"]["feature"].values)[:2] == ["x0", "x1"]


def test_a_dataframe_fitted_model_keeps_scikit_learns_warning():
    frame = pd.DataFrame(_counts()[0].toarray(), columns=_counts()[1])
    est = bnb.MultinomialNB().fit(frame, LABELS)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        est.predict(frame.to_numpy())
    same = bnb.MultinomialNB().fit(frame, LABELS, feature_names=list(frame.columns))
    assert list(same.feature_names_in_) == list(frame.columns)


@pytest.mark.parametrize(
    ("names", "error", "match"),
    [
        (["a", "b"], ValueError, "feature_names has 2 names for 19 features"),
        (None, ValueError, r"duplicate names: \['buy'\]"),
        ("words", TypeError, "not a single string"),
        (list(range(19)), TypeError, "position 0 holds 0 \\(int\\)"),
    ],
)
def test_bad_feature_names_are_refused_before_counting(names, error, match):
    X, words = _counts()
    if names is None:
        names = ["buy", *words[1:-1], "buy"]
    est = bnb.MultinomialNB()
    with pytest.raises(error, match=match):
        est.fit(X, LABELS, feature_names=names)
    assert not hasattr(est, "classes_")


def test_feature_names_that_contradict_a_dataframe_are_refused():
    frame = pd.DataFrame(_counts()[0].toarray(), columns=_counts()[1])
    with pytest.raises(ValueError, match="differs from the column names of the DataFrame"):
        bnb.MultinomialNB().fit(frame, LABELS, feature_names=list(frame.columns)[::-1])


# -- ColumnwiseNB: names per block -------------------------------------------------------------
def _columnwise():
    X, words = _counts()
    model = bnb.ColumnwiseNB(
        [
            ("words", bnb.MultinomialNB(), slice(0, 12)),
            ("present", bnb.BernoulliNB(), slice(12, None)),
        ]
    )
    return model, X, words


def test_columnwise_blocks_carry_the_names_of_their_columns(tmp_path):
    model, X, words = _columnwise()
    est = clone(model).fit(X, LABELS, feature_names=words)
    assert list(est.named_estimators_["present"].feature_names_in_) == words[12:]
    tree = est.sample_posterior(draws=3, chains=1, random_seed=0)
    assert list(tree["words/posterior"]["feature"].values) == words[:12]
    assert list(tree["present/posterior"]["feature"].values) == words[12:]
    est.save(tmp_path / "cw.nc")
    back = bnb.load(tmp_path / "cw.nc")
    assert list(back.named_estimators_["words"].feature_names_in_) == words[:12]
    assert_array_equal(back.predict_proba(X), est.predict_proba(X))  # sparse: no warning


def test_columnwise_in_a_pipeline_names_copies_of_its_blocks():
    model, _, words = _columnwise()
    pipe = make_pipeline(CountVectorizer(), model).fit(DOCS, LABELS)
    tree = sample_posterior(pipe, draws=2, chains=1, random_seed=0)
    assert list(tree["present/posterior"]["feature"].values) == words[12:]
    assert not hasattr(pipe[-1].named_estimators_["present"], "feature_names_in_")


# -- model files ------------------------------------------------------------------------------
def test_names_round_trip_through_save_and_load(tmp_path):
    X, words = _counts()
    est = bnb.MultinomialNB(alpha=0.5).fit(X, LABELS, feature_names=words)
    est.save(tmp_path / "m.nc")
    back = bnb.load(tmp_path / "m.nc")
    assert list(back.feature_names_in_) == words
    assert_array_equal(back.predict_proba(X), est.predict_proba(X))  # sparse input: no warning
    tree = back.sample_posterior(draws=2, chains=1, random_seed=0)
    assert list(tree["posterior"]["feature"].values) == words


def test_saving_a_pipeline_saves_its_model_with_the_vocabulary(tmp_path):
    from bayesnb.io import save

    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB()).fit(DOCS, LABELS)
    save(pipe, tmp_path / "p.nc")
    back = bnb.load(tmp_path / "p.nc")
    est = bnb.final_estimator(back)
    assert isinstance(est, bnb.MultinomialNB)
    assert list(est.feature_names_in_) == _vocabulary()
    assert_array_equal(est.predict_proba(pipe[0].transform(DOCS)), pipe.predict_proba(DOCS))


@pytest.mark.parametrize(
    "vectorizer",
    [
        CountVectorizer(min_df=2),
        CountVectorizer(max_df=0.5),
        CountVectorizer(max_features=4),
        CountVectorizer(stop_words="english"),
        CountVectorizer(stop_words=["cheap", "meds"], ngram_range=(1, 2), binary=True),
        HashingVectorizer(n_features=32, alternate_sign=False, norm=None, stop_words="english"),
    ],
    ids=["min_df", "max_df", "max_features", "english", "list-bigrams", "hashing"],
)
def test_a_saved_text_pipeline_loads_as_a_pipeline_that_takes_raw_text(tmp_path, vectorizer):
    pipe = make_pipeline(vectorizer, bnb.MultinomialNB()).fit(DOCS, LABELS)
    bnb.io.save(pipe, tmp_path / "p.nc")
    back = bnb.load(tmp_path / "p.nc")
    assert [name for name, _ in back.steps] == [name for name, _ in pipe.steps]
    assert back[0].get_params() == pipe[0].get_params()
    new = ["cheap meds now", "lunch meeting at noon", "buy cheap cheap", "words never seen"]
    assert_array_equal(back.predict_proba(new), pipe.predict_proba(new))
    assert_array_equal(back.predict(DOCS), pipe.predict(DOCS))
    # Saved again it loads the same; a clone refitted is the same model.
    bnb.io.save(back, tmp_path / "again.nc")
    assert_array_equal(bnb.load(tmp_path / "again.nc").predict_proba(new), pipe.predict_proba(new))
    refit = clone(back).fit(DOCS, LABELS)
    assert_array_equal(refit.predict_proba(new), pipe.predict_proba(new))


def test_a_pipeline_with_more_steps_loads_as_its_estimator(tmp_path):
    pipe = make_pipeline(CountVectorizer(), TfidfTransformer(), bnb.MultinomialNB())
    pipe.fit(DOCS, LABELS)
    bnb.io.save(pipe, tmp_path / "p.nc")
    back = bnb.load(tmp_path / "p.nc")
    assert isinstance(back, bnb.MultinomialNB)
    assert list(back.feature_names_in_) == _vocabulary()


def test_a_file_without_given_names_loads_as_before(tmp_path):
    X = sp.csr_matrix(_counts()[0])
    bnb.MultinomialNB().fit(X, LABELS).save(tmp_path / "plain.nc")
    back = bnb.load(tmp_path / "plain.nc")
    assert not hasattr(back, "feature_names_in_")
    assert not getattr(back, "_feature_names_given", False)


# -- the report -------------------------------------------------------------------------------
def test_report_dataset_from_a_pipeline_speaks_of_words():
    from bayesnb.report import Dataset, Study

    pipe = make_pipeline(CountVectorizer(), bnb.MultinomialNB()).fit(DOCS, LABELS)
    data = Dataset.from_pipeline("spam", pipe, DOCS, LABELS)
    assert list(data.feature_names) == _vocabulary()
    assert data.X.shape == (len(DOCS), len(_vocabulary()))
    study = Study(data, "multinomial", fitted=pipe)
    assert list(study.fitted.feature_names_in_) == _vocabulary()


# -- files on disk and Dask: a vocabulary vectorizer names the columns -------------------------
def _folder(root):
    for i, (text, label) in enumerate(zip(DOCS, LABELS, strict=True)):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i}.txt").write_text(text)
    return root


def test_fit_files_with_a_scanned_vocabulary_names_the_columns(tmp_path):
    from bayesnb import streaming

    scan = streaming.scan_files(_folder(tmp_path / "corpus"), progress=False)
    est = streaming.fit_files(bnb.MultinomialNB(), scan.files, scan.vectorizer, progress=False)
    assert list(est.feature_names_in_) == _vocabulary()
    assert_array_equal(est.predict(scan.vectorizer.transform(DOCS)), LABELS)  # no warning
    hashed = streaming.fit_files(est, scan.files, progress=False)  # refit: hashed columns
    assert not hasattr(hashed, "feature_names_in_")


def test_cli_fit_of_a_folder_saves_the_vocabulary(tmp_path, capsys):
    from bayesnb.cli import main

    root = _folder(tmp_path / "corpus")
    path = tmp_path / "m.nc"
    assert main(["fit", "multinomial", "--data", str(root), "--out", str(path)]) == 0
    capsys.readouterr()
    back = bnb.load(path)
    tree = back.sample_posterior(draws=2, chains=1, random_seed=0)
    assert list(tree["posterior"]["feature"].values) == _vocabulary()
    assert_array_equal(back.predict(CountVectorizer().fit(DOCS).transform(DOCS)), LABELS)


def test_dask_bag_of_texts_with_a_vocabulary_names_the_columns():
    db = pytest.importorskip("dask.bag")
    from bayesnb.distributed import fit

    vec = CountVectorizer().fit(DOCS)
    est = fit(
        bnb.MultinomialNB(),
        db.from_sequence(DOCS, npartitions=3),
        db.from_sequence(LABELS.tolist(), npartitions=3),
        classes=np.unique(LABELS),
        vectorizer=vec,
    )
    assert list(est.feature_names_in_) == _vocabulary()
    ref = bnb.MultinomialNB().fit(vec.transform(DOCS), LABELS)
    assert_array_equal(est.feature_count_, ref.feature_count_)
