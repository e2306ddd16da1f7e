"""ColumnwiseNB: one class prior, blocks of columns with their own event models.

Every closed form composes from the blocks: a one-block model is that block's model, and a
two-block model is the sum of the blocks' joint log-likelihoods minus one class prior (its
evidence the sum of block evidences minus one label term). The NUTS test checks the one
composed pm.Model against the blocks' exact posteriors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

import bayesnb
from bayesnb import GDA, BernoulliNB, CategoricalNB, ColumnwiseNB, MultinomialNB
from bayesnb.draws import posterior_summary
from bayesnb.evidence import class_log_evidence, feature_log_evidence
from tests.missing_helpers import quiet, sparse_nan

WORDS, FLAGS, CATS, REAL = slice(0, 6), slice(6, 10), slice(10, 13), slice(13, 15)
ESTIMATES = ["mle", "map", "mean", "bayes"]


def _data(n: int = 150, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    words = rng.poisson(1.0 + y[:, None], (n, 6))
    flags = rng.random((n, 4)) < 0.2 + 0.25 * y[:, None]
    cats = rng.integers(0, 3, (n, 3))
    cats[:, 0] = np.minimum(cats[:, 0] + y, 3)
    real = rng.normal(y[:, None] * np.array([1.0, -0.5]), 1.0, (n, 2))
    X = np.hstack([words, flags, cats, real]).astype(float)
    return X, np.array(["ham", "spam", "eggs"])[y]


def _frame(X):
    names = ([f"w{j}" for j in range(6)] + [f"f{j}" for j in range(4)] + ["c0", "c1", "c2"]) + [
        "age",
        "height",
    ]
    return pd.DataFrame(X, columns=names)


BLOCKS = {
    "multinomial": (lambda e: MultinomialNB(alpha=2.0, estimate=e), WORDS),
    "bernoulli": (lambda e: BernoulliNB(alpha=2.0, estimate=e), FLAGS),
    "categorical": (lambda e: CategoricalNB(alpha=2.0, estimate=e), CATS),
    "gda_diagonal": (lambda e: GDA(covariance="diagonal", estimate=e), REAL),
    "gda_shared": (lambda e: GDA(covariance="shared", estimate=e), REAL),
}
# estimate="bayes" is not a point for these two (Pólya / Student-t predictives)
NO_BAYES_POINT = {"multinomial", "gda_diagonal", "gda_shared"}


# -- one block is that block's model ----------------------------------------------------------
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("kind", list(BLOCKS))
def test_one_block_equals_the_block_model(kind, estimate):
    X, y = _data()
    make, cols = BLOCKS[kind]
    alone = make(estimate).fit(X[:, cols], y)
    model = ColumnwiseNB([("b", make(estimate), cols)]).fit(X, y)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(
            model.predict_proba(X), alone.predict_proba(X[:, cols]), atol=1e-12
        )
        np.testing.assert_allclose(
            model.predict_joint_log_proba(X), alone.predict_joint_log_proba(X[:, cols]), rtol=1e-12
        )
    np.testing.assert_array_equal(model.predict(X), alone.predict(X[:, cols]))
    assert model.log_evidence() == pytest.approx(alone.log_evidence(), rel=1e-12)
    if estimate == "bayes" and kind in NO_BAYES_POINT:
        with pytest.raises(ValueError, match=r"block 'b'.*not a point"):
            model.point_estimate(estimate)
        return
    tree, ref = model.point_estimate(estimate), alone.point_estimate(estimate)
    np.testing.assert_allclose(
        tree["posterior"]["class_prior"].values, ref["posterior"]["class_prior"].values, rtol=1e-12
    )
    block = tree["b"]["posterior"].to_dataset()
    assert "class_prior" not in block  # the class prior is shared, at the root
    for var in block.data_vars:
        np.testing.assert_allclose(block[var].values, ref["posterior"][var].values, rtol=1e-12)


def test_a_summary_is_per_block_and_features_are_chosen_per_block():
    X, y = _data()
    make, cols = BLOCKS["bernoulli"]
    model = ColumnwiseNB([("b", make("mean"), cols)]).fit(X, y)
    with pytest.raises(TypeError, match=r"summarise each block, posterior_summary\(est"):
        posterior_summary(model)
    with pytest.raises(ValueError, match=r"for a ColumnwiseNB select them per block"):
        model.sample_posterior(draws=2, features=[0])
    with pytest.raises(ValueError, match=r"var_names \['nope'\] are variables of no block"):
        model.point_estimate("mean", var_names=["nope"])
    alone = posterior_summary(model.named_estimators_["b"])
    assert "feature_prob" in alone  # each block summarises its own parameters


@pytest.mark.parametrize(
    ("module", "name"), [("poisson", "PoissonNB"), ("dcm", "DirichletCompoundNB")]
)
def test_newer_event_models_compose_too(tmp_path, module, name):
    cls = getattr(bayesnb, name)
    X, y = _data()
    alone = cls().fit(X[:, WORDS], y)
    real = GDA().fit(X[:, REAL], y)
    model = ColumnwiseNB([("counts", cls(), WORDS), ("real", GDA(), REAL)]).fit(X, y)
    # (DirichletCompoundNB's default estimate is "map", GDA's "mean": blocks that disagree
    # score the one class prior by its posterior mean, GDA's here)
    np.testing.assert_allclose(model.class_log_prior_, real.class_log_prior_, rtol=1e-12)
    expected = (
        alone.predict_joint_log_proba(X[:, WORDS])
        - alone.class_log_prior_
        + real.predict_joint_log_proba(X[:, REAL])
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, atol=1e-10)
    assert model.log_evidence() == pytest.approx(
        alone.log_evidence() + real.log_evidence() - class_log_evidence(real), abs=1e-10
    )
    model.save(tmp_path / "m.nc")
    np.testing.assert_array_equal(
        bayesnb.load(tmp_path / "m.nc").predict_proba(X), model.predict_proba(X)
    )
    assert set(model.sample_posterior(draws=3, chains=1).children) == {
        "posterior",
        "counts",
        "real",
    }


# -- two blocks: sums of blocks, one class prior ----------------------------------------------
def test_two_blocks_sum_minus_one_class_prior():
    X, y = _data()
    words = MultinomialNB(alpha=0.5).fit(X[:, WORDS], y)
    real = GDA(covariance="diagonal").fit(X[:, REAL], y)
    model = ColumnwiseNB(
        [("words", MultinomialNB(alpha=0.5), WORDS), ("real", GDA(covariance="diagonal"), REAL)]
    ).fit(X, y)
    expected = (
        words.predict_joint_log_proba(X[:, WORDS])
        + real.predict_joint_log_proba(X[:, REAL])
        - words.class_log_prior_
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=0, atol=1e-10)
    label = class_log_evidence(words)
    assert label == pytest.approx(class_log_evidence(model), abs=1e-12)
    total = words.log_evidence() + real.log_evidence() - label
    assert model.log_evidence() == pytest.approx(total, abs=1e-10)
    assert feature_log_evidence(model) == pytest.approx(
        feature_log_evidence(words) + feature_log_evidence(real), abs=1e-10
    )


def test_four_blocks_and_a_dataframe_by_name():
    X, y = _data()
    df = _frame(X)
    spec = {
        "words": (MultinomialNB(), [f"w{j}" for j in range(6)]),
        "flags": (BernoulliNB(), slice("f0", "f3")),  # a name slice is inclusive
        "cats": (CategoricalNB(), ["c0", "c1", "c2"]),
        "age": GDA(covariance="diagonal"),  # shorthand: the column of that name
    }
    model = ColumnwiseNB(spec).fit(df, y)
    assert model.remainder_.tolist() == [14]  # "height" is used by no block: dropped
    parts = [
        MultinomialNB().fit(X[:, WORDS], y),
        BernoulliNB().fit(X[:, FLAGS], y),
        CategoricalNB().fit(X[:, CATS], y),
        GDA(covariance="diagonal").fit(X[:, [13]], y),
    ]
    cols = [WORDS, FLAGS, CATS, [13]]
    jll = sum(p.predict_joint_log_proba(X[:, c]) for p, c in zip(parts, cols, strict=True))
    np.testing.assert_allclose(
        model.predict_joint_log_proba(df), jll - 3 * parts[0].class_log_prior_, atol=1e-10
    )
    # names of a DataFrame reach the blocks: the DataTree coordinates are the column names
    tree = model.point_estimate("mean")
    assert list(tree["flags"]["posterior"]["feature"].values) == ["f0", "f1", "f2", "f3"]
    assert list(tree["age"]["posterior"]["feature"].values) == ["age"]


def test_estimate_is_propagated_and_rescores_without_refit():
    X, y = _data()
    model = ColumnwiseNB(
        [("words", MultinomialNB(alpha=2.0), WORDS), ("flags", BernoulliNB(alpha=2.0), FLAGS)],
        estimate="map",
    ).fit(X, y)
    words = MultinomialNB(alpha=2.0, estimate="map").fit(X[:, WORDS], y)
    flags = BernoulliNB(alpha=2.0, estimate="map").fit(X[:, FLAGS], y)
    expected = (
        words.predict_joint_log_proba(X[:, WORDS])
        + flags.predict_joint_log_proba(X[:, FLAGS])
        - words.class_log_prior_
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, atol=1e-10)
    model.set_params(estimate=None)  # back to the blocks' own ("mean")
    mean = ColumnwiseNB(
        [("words", MultinomialNB(alpha=2.0), WORDS), ("flags", BernoulliNB(alpha=2.0), FLAGS)]
    ).fit(X, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), mean.predict_joint_log_proba(X), atol=1e-12
    )
    # blocks that disagree: the class prior is scored by its posterior mean
    mixed = ColumnwiseNB(
        [
            ("words", MultinomialNB(alpha=2.0, estimate="bayes"), WORDS),
            ("flags", BernoulliNB(alpha=2.0, estimate="mle"), FLAGS),
        ],
        class_alpha=3.0,
    ).fit(X, y)
    counts = mixed.class_count_
    np.testing.assert_allclose(
        np.exp(mixed.class_log_prior_), (counts + 3.0) / (counts.sum() + 9.0), rtol=1e-12
    )


# -- scikit-learn composition -----------------------------------------------------------------
def test_params_clone_pipeline_and_grid_search():
    X, y = _data()
    df = _frame(X)
    model = ColumnwiseNB(
        [
            ("words", MultinomialNB(), [f"w{j}" for j in range(6)]),
            ("real", GDA(covariance="diagonal"), ["age", "height"]),
        ]
    )
    params = model.get_params()
    assert params["words__alpha"] == 1.0 and params["real__covariance"] == "diagonal"
    copy = clone(model).set_params(words__alpha=0.25)
    assert copy.estimators[0][1].alpha == 0.25 and model.estimators[0][1].alpha == 1.0
    copy.set_params(real=GDA(covariance="shared"))
    assert copy.estimators[1][1].covariance == "shared" and copy.estimators[1][2] == [
        "age",
        "height",
    ]
    fitted = copy.fit(df, y)
    alone = MultinomialNB(alpha=0.25).fit(df[[f"w{j}" for j in range(6)]], y)
    assert fitted.named_estimators_["words"].alpha == 0.25
    np.testing.assert_allclose(
        fitted.named_estimators_["words"].feature_log_prob_, alone.feature_log_prob_, rtol=1e-12
    )

    pipe = Pipeline([("nb", clone(model))]).fit(df, y)
    np.testing.assert_allclose(pipe.predict_proba(df), clone(model).fit(df, y).predict_proba(df))
    logged = Pipeline(
        [
            ("square", FunctionTransformer(np.square)),
            (
                "nb",
                ColumnwiseNB([("words", MultinomialNB(), WORDS), ("flags", BernoulliNB(), FLAGS)]),
            ),
        ]
    ).fit(X, y)
    direct = ColumnwiseNB([("words", MultinomialNB(), WORDS), ("flags", BernoulliNB(), FLAGS)])
    np.testing.assert_allclose(logged.predict_proba(X), direct.fit(X**2, y).predict_proba(X**2))

    grid = GridSearchCV(
        clone(model),
        {"words__alpha": [0.1, 1.0, 10.0]},
        cv=3,
        scoring="neg_log_loss",
        error_score="raise",
    ).fit(df, y)
    assert grid.best_params_["words__alpha"] in (0.1, 1.0, 10.0)
    scores = grid.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and len(set(np.round(scores, 12))) > 1


def test_text_column_vectorised_by_a_preceding_step_stays_sparse():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 80)
    vocab = np.array(["cheap", "win", "meeting", "lunch", "offer", "report"])
    texts = [" ".join(rng.choice(vocab[:3] if c else vocab[3:], 5)) for c in y]
    df = pd.DataFrame(
        {"text": texts, "age": rng.normal(y * 2.0, 1.0), "vip": y ^ (rng.random(80) < 0.2)}
    )
    vectorise = ColumnTransformer(
        [("words", CountVectorizer(), "text"), ("rest", "passthrough", ["age", "vip"])],
        sparse_threshold=1.0,
    )
    nb = ColumnwiseNB(
        [
            ("words", MultinomialNB(), lambda Z: np.arange(Z.shape[1] - 2)),
            ("age", GDA(covariance="diagonal"), [-2]),
            ("vip", BernoulliNB(), [-1]),
        ]
    )
    pipe = Pipeline([("vec", vectorise), ("nb", nb)]).fit(df, y)
    Z = pipe[:-1].transform(df)
    assert sp.issparse(Z)
    blocks = pipe[-1]._check_input(Z, reset=False).parts
    assert sp.issparse(blocks[0]) and not sp.issparse(blocks[1])  # GDA gets its dense slice
    dense = clone(nb).fit(Z.toarray(), y)
    np.testing.assert_allclose(pipe.predict_proba(df), dense.predict_proba(Z.toarray()), atol=1e-12)
    assert pipe.score(df, y) > 0.9


def test_sparse_matrix_input_equals_dense():
    X, y = _data()
    spec = [
        ("words", MultinomialNB(), WORDS),
        ("flags", BernoulliNB(), FLAGS),
        ("real", GDA(), REAL),
    ]
    dense = ColumnwiseNB(spec).fit(X, y)
    sparse = ColumnwiseNB(spec).fit(sp.csr_matrix(X), y)
    parts = sparse._check_input(sp.coo_matrix(X), reset=False).parts
    assert sp.issparse(parts[0]) and sp.issparse(parts[1]) and not sp.issparse(parts[2])
    np.testing.assert_allclose(
        sparse.predict_joint_log_proba(sp.csr_matrix(X)),
        dense.predict_joint_log_proba(X),
        atol=1e-10,
    )


# -- partial_fit, save/load -------------------------------------------------------------------
def test_partial_fit_equals_fit():
    X, y = _data()
    spec = [
        ("words", MultinomialNB(alpha="evidence"), WORDS),
        ("cats", CategoricalNB(), CATS),
        ("real", GDA(covariance="shared"), REAL),
    ]
    full = ColumnwiseNB(spec, class_alpha=2.0).fit(X, y)
    parts = ColumnwiseNB(spec, class_alpha=2.0)
    for rows in np.array_split(np.arange(len(y)), 4):
        parts.partial_fit(X[rows], y[rows], classes=np.unique(y))
    np.testing.assert_array_equal(parts.class_count_, full.class_count_)
    np.testing.assert_allclose(
        parts.predict_joint_log_proba(X), full.predict_joint_log_proba(X), rtol=1e-10
    )
    assert parts.log_evidence() == pytest.approx(full.log_evidence(), rel=1e-12)
    assert parts.named_estimators_["words"].alpha_ == pytest.approx(
        full.named_estimators_["words"].alpha_, rel=1e-9
    )
    # every block holds the same class counts as the one class prior (counted, not doubled)
    for _, block, _ in full.estimators_:
        np.testing.assert_array_equal(block.class_count_, full.class_count_)


@pytest.mark.parametrize("form", ["list", "dict"])
def test_save_load_round_trip(tmp_path, form):
    X, y = _data()
    df = _frame(X)
    blocks = {
        "words": (MultinomialNB(alpha=2.0), lambda d: [c for c in d.columns if c.startswith("w")]),
        "flags": (BernoulliNB(), slice("f0", "f3")),
        "real": (GDA(covariance="per_class"), ["age", "height"]),
    }
    spec = blocks if form == "dict" else [(n, e, c) for n, (e, c) in blocks.items()]
    model = ColumnwiseNB(spec, class_alpha=2.0, estimate="map").fit(df, y)
    path = tmp_path / "columnwise.nc"
    model.save(path)
    loaded = bayesnb.load(path, expected=ColumnwiseNB)
    np.testing.assert_array_equal(loaded.predict_proba(df), model.predict_proba(df))
    assert loaded.log_evidence() == model.log_evidence()
    assert loaded.get_params()["words__alpha"] == 2.0 and loaded.estimate == "map"
    # the callable selector is stored as the columns it selected
    refit = clone(loaded).fit(df, y)
    np.testing.assert_allclose(refit.predict_proba(df), model.predict_proba(df), rtol=1e-12)
    loaded.set_params(estimate=None)  # the blocks' own estimates survive the round trip
    np.testing.assert_allclose(
        loaded.predict_proba(df),
        ColumnwiseNB(spec, class_alpha=2.0).fit(df, y).predict_proba(df),
        rtol=1e-12,
    )


def test_load_refuses_a_tampered_block(tmp_path):
    import xarray as xr

    X, y = _data()
    model = ColumnwiseNB([("words", MultinomialNB(), WORDS), ("flags", BernoulliNB(), FLAGS)]).fit(
        X, y
    )
    path = tmp_path / "m.nc"
    model.save(path)
    tree = xr.open_datatree(path, engine="h5netcdf").load()
    counts = tree["blocks/flags/statistics"].to_dataset()
    counts["feature_count"] = counts["feature_count"] + 1.0
    tree["blocks/flags/statistics"] = xr.DataTree(counts)
    bad = tmp_path / "bad.nc"
    tree.to_netcdf(bad, engine="h5netcdf")
    with pytest.raises(ValueError, match="checksum"):
        bayesnb.load(bad)


# -- bad specs ---------------------------------------------------------------------------------
def test_bad_specs():
    X, y = _data()
    df = _frame(X)
    with pytest.raises(ValueError, match="'f1' is selected by blocks 'a' and 'b'"):
        ColumnwiseNB([("a", BernoulliNB(), ["f0", "f1"]), ("b", BernoulliNB(), ["f1"])]).fit(df, y)
    with pytest.raises(ValueError, match=r"unknown column name.*'nope'"):
        ColumnwiseNB([("a", BernoulliNB(), ["f0", "nope"])]).fit(df, y)
    with pytest.raises(ValueError, match="needs a pandas DataFrame"):
        ColumnwiseNB([("a", BernoulliNB(), ["f0"])]).fit(X, y)
    with pytest.raises(TypeError, match=r"block 'a'.*MultinomialNB is not a bayesnb generative"):
        ColumnwiseNB([("a", SkMultinomialNB(), WORDS)]).fit(X, y)
    with pytest.raises(TypeError, match="estimator instance"):
        ColumnwiseNB([("a", MultinomialNB, WORDS)]).fit(X, y)
    with pytest.raises(ValueError, match=r"block 'a' sets class_alpha=2.0.*ColumnwiseNB"):
        ColumnwiseNB([("a", MultinomialNB(class_alpha=2.0), WORDS)]).fit(X, y)
    with pytest.raises(ValueError, match=r"used by no block.*remainder='error'"):
        ColumnwiseNB([("a", MultinomialNB(), WORDS)], remainder="error").fit(X, y)
    with pytest.raises(ValueError, match="unique"):
        ColumnwiseNB([("a", MultinomialNB(), WORDS), ("a", BernoulliNB(), FLAGS)]).fit(X, y)
    with pytest.raises(ValueError, match="conflict with ColumnwiseNB parameters"):
        ColumnwiseNB([("estimate", MultinomialNB(), WORDS)]).fit(X, y)
    with pytest.raises(ValueError, match="reserved"):
        ColumnwiseNB([("posterior", MultinomialNB(), WORDS)]).fit(X, y)
    with pytest.raises(ValueError, match="out of range"):
        ColumnwiseNB([("a", MultinomialNB(), [0, 99])]).fit(X, y)
    with pytest.raises(ValueError, match="selects no column"):
        ColumnwiseNB([("a", MultinomialNB(), [])]).fit(X, y)
    with pytest.raises(ValueError, match="estimators must hold at least one"):
        ColumnwiseNB([]).fit(X, y)
    with pytest.raises(ValueError, match="remainder must be one of"):
        ColumnwiseNB([("a", MultinomialNB(), WORDS)], remainder="passthrough").fit(X, y)
    # the block's own checks run at fit (here: negative counts for the multinomial block)
    with pytest.raises(ValueError, match="Negative values"):
        ColumnwiseNB([("a", MultinomialNB(), REAL)]).fit(X, y)
    # a fitted model checks the columns of new data like any estimator
    fitted = ColumnwiseNB([("a", MultinomialNB(), WORDS)]).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :10])


# -- the Bayesian workflow ---------------------------------------------------------------------
def test_exact_draws_and_loo_compose():
    X, y = _data()
    model = ColumnwiseNB(
        [("words", MultinomialNB(), WORDS), ("real", GDA(covariance="diagonal"), REAL)]
    ).fit(X, y)
    tree = model.sample_posterior(draws=2000, chains=2, random_seed=5)
    again = model.sample_posterior(draws=2000, chains=2, random_seed=5)
    np.testing.assert_array_equal(
        tree["words"]["posterior"]["feature_prob"].values,
        again["words"]["posterior"]["feature_prob"].values,
    )
    pi = tree["posterior"]["class_prior"].mean(("chain", "draw")).values
    np.testing.assert_allclose(pi, model.class_posterior_.mean(), atol=0.01)
    theta = tree["words"]["posterior"]["feature_prob"].mean(("chain", "draw")).values
    words = model.named_estimators_["words"]
    np.testing.assert_allclose(theta, words.posterior_.mean(), atol=0.01)
    mean = tree["real"]["posterior"]["mean"].mean(("chain", "draw")).values
    np.testing.assert_allclose(mean, model.named_estimators_["real"].means_, atol=0.05)
    only = model.sample_posterior(draws=10, chains=1, var_names=["mean"])
    assert "posterior" not in only.children and list(only.children) == ["real"]
    with pytest.raises(ValueError, match="no block"):
        model.sample_posterior(draws=10, var_names=["nope"])
    with pytest.raises(ValueError, match="per block"):
        model.sample_posterior(draws=10, features=[0])

    # one block: the label log-likelihood equals that of the block model on the same draws
    one = ColumnwiseNB([("words", MultinomialNB(), WORDS)]).fit(X, y)
    ll = one.label_log_likelihood(X, y, draws=50, random_seed=1)["log_likelihood"]["y"].values
    from bayesnb.draws import posterior_draws

    draws = posterior_draws(one, draws=50, chains=1, random_seed=np.random.default_rng(1))
    pi, theta = draws["class_prior"][0], draws["words/feature_prob"][0]
    joint = X[:, WORDS] @ np.log(theta).transpose(0, 2, 1) + np.log(pi)[:, None, :]
    codes = np.searchsorted(one.classes_, y)
    from scipy.special import logsumexp

    expected = joint[:, np.arange(len(y)), codes] - logsumexp(joint, axis=2)
    np.testing.assert_allclose(ll[0], expected, atol=1e-10)


def test_sample_generates_every_block_given_one_label():
    X, y = _data()
    model = ColumnwiseNB(
        [("flags", BernoulliNB(), FLAGS), ("real", GDA(covariance="diagonal"), REAL)]
    ).fit(X, y)
    Xs, ys = model.sample(20000, random_seed=2)
    assert Xs.shape == (20000, 15) and not sp.issparse(Xs)
    assert np.all(Xs[:, WORDS] == 0)  # columns of no block
    for c, label in enumerate(model.classes_):
        rows = ys == label
        phi = np.exp(model.named_estimators_["flags"].feature_log_prob_[c])
        np.testing.assert_allclose(Xs[rows][:, FLAGS].mean(axis=0), phi, atol=0.03)
        np.testing.assert_allclose(
            Xs[rows][:, REAL].mean(axis=0), model.named_estimators_["real"].means_[c], atol=0.06
        )
    again = ColumnwiseNB([("words", MultinomialNB(), WORDS), ("flags", BernoulliNB(), FLAGS)])
    Xw, _ = again.fit(X, y).sample(50, random_seed=1)
    assert sp.issparse(Xw) and Xw.shape == (50, 15)


def test_pymc_declaration_is_the_blocks_minus_their_class_parts():
    X, y = _data(n=60)
    model = ColumnwiseNB(
        [
            ("flags", BernoulliNB(), FLAGS),
            ("cats", CategoricalNB(), CATS),
            ("real", GDA(covariance="shared"), REAL),
        ]
    ).fit(X, y)
    composed = model.to_pymc(X, y)
    names = {v.name for v in composed.free_RVs}
    # π as normalised log-Gamma variates (its free variable), once, at the root
    assert "class_prior_log_gamma" in names and "flags::feature_prob" in names
    assert not any("::class_prior" in n for n in names)  # one class prior
    logp = composed.compile_logp(mode="FAST_COMPILE")
    class_part = composed.compile_logp(
        vars=[composed["class_prior_log_gamma"], composed["class_count"]], mode="FAST_COMPILE"
    )
    rng = np.random.default_rng(0)
    point = {
        k: v + 0.1 * rng.standard_normal(np.shape(v)) for k, v in composed.initial_point().items()
    }
    total = 0.0
    for (name, block, _), part in zip(model.estimators_, model._block_inputs(X), strict=True):
        alone = block.to_pymc(part, y)
        sub = {k.split("::", 1)[1]: v for k, v in point.items() if k.startswith(f"{name}::")}
        sub |= {k: v for k, v in point.items() if "::" not in k}  # the same π
        total += alone.compile_logp(mode="FAST_COMPILE")(sub)
    # each block model alone also holds the class prior and the labels: counted once here
    assert logp(point) == pytest.approx(total - 2 * class_part(point), rel=1e-10)
    assert abs(class_part(point)) > 1.0


@pytest.fixture(scope="session")
def nuts_fit():
    from tests.pymc_helpers import fit_recording_warnings

    X, y = _data(n=60, seed=4)
    model = ColumnwiseNB(
        [("words", MultinomialNB(), WORDS), ("real", GDA(covariance="diagonal"), REAL)]
    ).fit(X, y)
    dt, warned = fit_recording_warnings(model, X, y, log_likelihood=True)
    return model, dt, warned


@pytest.mark.slow
def test_nuts_two_blocks_match_the_exact_posteriors(nuts_fit):
    from tests.pymc_helpers import mcse

    model, dt, warned = nuts_fit
    assert not warned, [str(w.message) for w in warned]
    words, real = model.named_estimators_["words"], model.named_estimators_["real"]
    checks = [
        (dt, "class_prior", model.class_posterior_.mean()),
        (dt["words"], "feature_prob", words.posterior_.mean()),
        (dt["real"], "mean", real.posterior_.mu),
    ]
    for tree, var, exact in checks:
        nuts = tree["posterior"][var].mean(("chain", "draw")).values
        err = np.abs(nuts - exact) / mcse(tree, var)
        assert np.all(err < 4.0), (var, err.max())
    # the diagonal variances: posterior mean Ψ_jj / (ν' − 2), ν' = ν − d + 1 per class
    post = real.posterior_
    d = post.stats.n_features
    exact_var = post.psi / (post.nu - d + 1.0 - 2.0)[:, None]
    cov = dt["real"]["posterior"]["cov"]
    nuts_var = np.diagonal(cov.mean(("chain", "draw")).values, axis1=-2, axis2=-1)
    se = np.diagonal(mcse(dt["real"], "cov"), axis1=-2, axis2=-1)
    assert np.all(np.abs(nuts_var - exact_var) / se < 4.0)
    assert dt["log_likelihood"]["y"].shape == (4, 1000, 60)
    assert np.all(dt["log_likelihood"]["y"].values <= 0)


# -- missing values: missing="error" | "ignore" -----------------------------------------------
def _mixed_spec(estimate="mean"):
    """The four event models over the columns of ``_data``; alpha 2 keeps the MAP interior."""
    return [
        ("words", MultinomialNB(alpha=2.0, estimate=estimate), WORDS),
        ("flags", BernoulliNB(alpha=2.0, estimate=estimate), FLAGS),
        ("cats", CategoricalNB(alpha=2.0, estimate=estimate), CATS),
        ("real", GDA(covariance="per_class", estimate=estimate), REAL),
    ]


def _with_nan(X, seed=1, rate=0.08):
    """NaN in random cells, and rows whose features of one block are all missing."""
    rng = np.random.default_rng(seed)
    Xn = X.copy()
    hole = rng.random(X.shape) < rate
    hole[:12] = False  # (the rows below and complete rows for GDA's first batches)
    Xn[hole] = np.nan
    for row, cols in zip(range(4), (WORDS, FLAGS, CATS, REAL), strict=True):
        Xn[row, cols] = np.nan  # row 0: no word count, row 1: no flag, ...
    Xn[4, :] = np.nan  # nothing observed: the class prior alone
    return Xn


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_missing_ignore_on_clean_data_is_unchanged(sparse):
    X, y = _data()
    Xf = sp.csr_matrix(X) if sparse else X
    ref = ColumnwiseNB(_mixed_spec()).fit(Xf, y)
    got = ColumnwiseNB(_mixed_spec(), missing="ignore").fit(Xf, y)
    np.testing.assert_array_equal(got.predict_joint_log_proba(Xf), ref.predict_joint_log_proba(Xf))
    np.testing.assert_array_equal(got.predict_proba(Xf), ref.predict_proba(Xf))
    assert got.log_evidence() == ref.log_evidence()
    assert all(b.missing == "ignore" for _, b, _ in got.estimators_)
    assert all(b.missing == "error" for _, b, _ in ref.estimators_)
    assert got.__sklearn_tags__().input_tags.allow_nan
    assert not ref.__sklearn_tags__().input_tags.allow_nan


@pytest.mark.parametrize("estimate", ["map", "mean", "bayes"])
def test_missing_ignore_is_the_sum_of_block_models_with_missing_ignore(estimate):
    X, y = _data(n=200)
    Xn = _with_nan(X)
    model = quiet(ColumnwiseNB(_mixed_spec(estimate), missing="ignore").fit, Xn, y)
    # By hand: every block alone (missing="ignore") on its columns of the same data.
    alone = [
        (quiet(clone(est).set_params(missing="ignore").fit, Xn[:, cols], y), cols)
        for _, est, cols in _mixed_spec(estimate)
    ]
    log_prior = model.class_log_prior_
    np.testing.assert_allclose(log_prior, alone[0][0].class_log_prior_, rtol=1e-12)
    # each block's class-conditional term: its joint minus its own class prior
    terms = [b.predict_joint_log_proba(Xn[:, c]) - b.class_log_prior_ for b, c in alone]
    joint = log_prior + sum(terms)
    np.testing.assert_allclose(model.predict_joint_log_proba(Xn), joint, rtol=0, atol=1e-10)
    proba = np.exp(joint - joint.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(Xn), proba, rtol=0, atol=1e-10)
    # A block whose features are all missing in a row contributes nothing to that row ...
    for row, term in enumerate(terms):
        np.testing.assert_allclose(term[row], 0.0, atol=1e-12)
        others = log_prior + sum(t[row] for k, t in enumerate(terms) if k != row)
        np.testing.assert_allclose(model.predict_joint_log_proba(Xn)[row], others, atol=1e-10)
    # ... and a row with nothing observed is scored by the class prior alone.
    np.testing.assert_allclose(model.predict_log_proba(Xn[4:5])[0], log_prior, atol=1e-12)
    # the statistics are the blocks' own (Bernoulli's observed trials, GDA's complete rows)
    flags, real = model.named_estimators_["flags"], model.named_estimators_["real"]
    np.testing.assert_array_equal(flags.missing_count_, alone[1][0].missing_count_)
    np.testing.assert_array_equal(real.class_count_, model.class_count_)
    assert model.log_evidence() == pytest.approx(
        sum(b.log_evidence() for b, _ in alone) - 3 * class_log_evidence(alone[0][0]), abs=1e-9
    )


def test_missing_ignore_sparse_stays_sparse_and_equals_dense():
    X, y = _data()
    Xn = _with_nan(X)
    S = sparse_nan(Xn)
    dense = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, Xn, y)
    sparse = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, S, y)
    parts = sparse._check_input(S, reset=False).parts
    assert [sp.issparse(p) for p in parts] == [True, True, True, False]  # GDA's slice: dense
    assert np.isnan(parts[0].data).sum() == np.isnan(Xn[:, WORDS]).sum()
    np.testing.assert_allclose(
        sparse.predict_joint_log_proba(S), dense.predict_joint_log_proba(Xn), rtol=1e-12
    )
    np.testing.assert_allclose(
        sparse.predict_joint_log_proba(Xn), dense.predict_joint_log_proba(S), rtol=1e-12
    )


def test_missing_ignore_partial_fit_equals_fit():
    X, y = _data(n=200)
    Xn = _with_nan(X)
    full = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, Xn, y)
    parts = ColumnwiseNB(_mixed_spec(), missing="ignore")
    for rows in np.array_split(np.arange(len(y)), 4):
        quiet(parts.partial_fit, Xn[rows], y[rows], classes=np.unique(y))
    np.testing.assert_array_equal(parts.class_count_, full.class_count_)
    for (_, a, _), (_, b, _) in zip(parts.estimators_, full.estimators_, strict=True):
        np.testing.assert_array_equal(a.class_count_, b.class_count_)
    np.testing.assert_array_equal(
        parts.named_estimators_["flags"].missing_count_,
        full.named_estimators_["flags"].missing_count_,
    )
    np.testing.assert_array_equal(
        parts.named_estimators_["cats"].feature_count_,
        full.named_estimators_["cats"].feature_count_,
    )
    np.testing.assert_allclose(
        parts.predict_joint_log_proba(Xn), full.predict_joint_log_proba(Xn), rtol=1e-10
    )
    assert parts.log_evidence() == pytest.approx(full.log_evidence(), rel=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_missing_error_names_the_rows_and_columns_of_x(sparse):
    X, y = _data()
    Xn = X.copy()
    Xn[[3, 7, 7, 12], [2, 2, 11, 14]] = np.nan  # in three blocks
    Xf = sparse_nan(Xn) if sparse else Xn
    msg = (
        r"NaN \(missing values\) in 4 entries in 3 row\(s\) and 3 column\(s\): rows "
        r"\[3, 7, 12\], columns \[2, 11, 14\]\. ColumnwiseNB\(missing='error'\) refuses"
    )
    with pytest.raises(ValueError, match=msg):
        ColumnwiseNB(_mixed_spec()).fit(Xf, y)
    fitted = ColumnwiseNB(_mixed_spec()).fit(X, y)
    with pytest.raises(ValueError, match=msg):
        fitted.predict_proba(Xf)
    with pytest.raises(ValueError, match=msg):
        fitted.partial_fit(Xf, y)
    many = X.copy()
    many[:9, 13] = np.nan
    with pytest.raises(ValueError, match=r"rows \[0, 1, 2, 3, 4\] \(first 5 of 9\)"):
        fitted.predict(many)
    # infinity is refused under either setting, also named in X's coordinates
    Xi = X.copy()
    Xi[5, 12] = np.inf
    for missing in ("error", "ignore"):
        with pytest.raises(ValueError, match=r"infinity in 1 entry .* rows \[5\], columns \[12\]"):
            ColumnwiseNB(_mixed_spec(), missing=missing).fit(Xi, y)
    # a column no block uses is never read: NaN there is no error
    dropped = ColumnwiseNB([("words", MultinomialNB(), WORDS)]).fit(X, y)
    Xd = X.copy()
    Xd[:, 14] = np.nan
    np.testing.assert_array_equal(dropped.predict_proba(Xd), dropped.predict_proba(X))


def test_missing_error_message_uses_dataframe_column_names():
    X, y = _data()
    df = _frame(X)
    df.iloc[[1, 8], [3, 13]] = np.nan
    with pytest.raises(ValueError, match=r"rows \[1, 8\], columns \['3 \(w3\)', '13 \(age\)'\]"):
        ColumnwiseNB(_mixed_spec()).fit(df, y)
    model = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, df, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(df),
        quiet(
            ColumnwiseNB(_mixed_spec(), missing="ignore").fit, df.to_numpy(), y
        ).predict_joint_log_proba(df.to_numpy()),
        rtol=1e-12,
    )


def test_missing_belongs_to_columnwise_not_to_a_block():
    X, y = _data()
    Xn = _with_nan(X)
    own = [("words", MultinomialNB(missing="ignore"), WORDS), ("real", GDA(), REAL)]
    with pytest.raises(ValueError, match=r"block 'words' sets missing='ignore'.*ColumnwiseNB\("):
        ColumnwiseNB(own).fit(X, y)
    # the same value as ColumnwiseNB's is accepted; the unfitted blocks are left unchanged
    model = quiet(ColumnwiseNB(own, missing="ignore").fit, Xn, y)
    assert model.named_estimators_["real"].missing == "ignore" and own[1][1].missing == "error"
    assert model.get_params()["real__missing"] == "error"
    with pytest.raises(ValueError, match="missing must be one of"):
        ColumnwiseNB(_mixed_spec(), missing="drop").fit(X, y)

    class NoMissing(MultinomialNB):
        """A third-party block without a missing parameter."""

        def __init__(self, alpha=1.0):
            super().__init__(alpha=alpha)

    legacy = [("words", NoMissing(), WORDS), ("real", GDA(), REAL)]
    ColumnwiseNB(legacy).fit(X, y)  # fine without NaN
    with pytest.raises(ValueError, match=r"block 'words': NoMissing has no missing parameter"):
        ColumnwiseNB(legacy, missing="ignore").fit(Xn, y)


def test_missing_ignore_save_load_round_trip(tmp_path):
    X, y = _data()
    Xn = _with_nan(X)
    model = quiet(ColumnwiseNB(_mixed_spec("map"), missing="ignore").fit, Xn, y)
    model.save(tmp_path / "m.nc")
    loaded = bayesnb.load(tmp_path / "m.nc")
    assert loaded.missing == "ignore"
    assert all(b.missing == "ignore" for _, b, _ in loaded.estimators_)
    np.testing.assert_array_equal(loaded.predict_proba(Xn), model.predict_proba(Xn))
    assert loaded.log_evidence() == model.log_evidence()
    np.testing.assert_array_equal(
        loaded.named_estimators_["flags"].missing_count_,
        model.named_estimators_["flags"].missing_count_,
    )
    quiet(loaded.partial_fit, Xn[:20], y[:20])  # keeps learning from the loaded state
    quiet(model.partial_fit, Xn[:20], y[:20])
    np.testing.assert_allclose(loaded.predict_proba(Xn), model.predict_proba(Xn), rtol=1e-12)
    ColumnwiseNB(_mixed_spec()).fit(X, y).save(tmp_path / "plain.nc")
    assert bayesnb.load(tmp_path / "plain.nc").missing == "error"


def test_missing_pymc_path_refuses_nan():
    X, y = _data()
    Xn = _with_nan(X)
    model = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, Xn, y)
    with pytest.raises(ValueError, match=r"PyMC path of ColumnwiseNB .* complete data only"):
        model.to_pymc(Xn, y)
    with pytest.raises(ValueError, match=r"PyMC path of ColumnwiseNB .* complete data only"):
        model.fit_pymc(Xn, y, sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match=r"ColumnwiseNB\(missing='error'\) refuses"):
        ColumnwiseNB(_mixed_spec()).fit(X, y).to_pymc(Xn, y)


# -- Dask: the map-reduce fit and lazy scoring ------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_dask_fit_and_predict_equal_memory(sparse):
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    from bayesnb import distributed

    X, y = _data(n=200)
    spec = [
        ("words", MultinomialNB(alpha="evidence"), WORDS),
        ("flags", BernoulliNB(binarize=0.5), FLAGS),
        ("cats", CategoricalNB(), CATS),
        ("real", GDA(covariance="shared"), REAL),
    ]
    X[-3:, 10] = 5  # a category seen by the last chunk only: chunks differ in k_j
    row_chunks, col_chunks = (61, 0, 97, 42), (7, 8)
    Xf = sp.csr_matrix(X) if sparse else X
    dX = da.from_array(Xf, chunks=(row_chunks, col_chunks), asarray=not sparse)
    ref = ColumnwiseNB(spec, class_alpha=2.0).fit(X, y)
    for scheduler in ("sync", "processes"):  # processes: statistics travel pickled and packed
        with dask.config.set(scheduler=scheduler):
            got = distributed.fit(ColumnwiseNB(spec, class_alpha=2.0), dX, y)
        np.testing.assert_array_equal(got.class_count_, ref.class_count_)
        for (_, a, _), (_, b, _) in zip(got.estimators_, ref.estimators_, strict=True):
            np.testing.assert_array_equal(a.class_count_, b.class_count_)
            if hasattr(b, "feature_count_"):
                np.testing.assert_array_equal(a.feature_count_, b.feature_count_)
        np.testing.assert_allclose(
            got.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-10
        )
        assert got.log_evidence() == pytest.approx(ref.log_evidence(), rel=1e-10)
    with dask.config.set(scheduler="sync"):
        proba = distributed.predict_proba(ref, dX)
        assert isinstance(proba, da.Array)
        np.testing.assert_array_equal(proba.compute(), ref.predict_proba(X))
        np.testing.assert_array_equal(ref.predict(dX).compute(), ref.predict(X))


def test_dask_fit_with_missing_ignore():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    from bayesnb import distributed

    X, y = _data(n=200)
    Xn = _with_nan(X)
    Xn[150:] = X[150:]  # a chunk without NaN: its missing counts are scalar zeros
    ref = quiet(ColumnwiseNB(_mixed_spec(), missing="ignore").fit, Xn, y)
    dX = da.from_array(Xn, chunks=(50, 15))
    with dask.config.set(scheduler="sync"):
        got = quiet(distributed.fit, ColumnwiseNB(_mixed_spec(), missing="ignore"), dX, y)
        np.testing.assert_allclose(
            distributed.predict_proba(got, dX).compute(), ref.predict_proba(Xn), rtol=1e-10
        )
    np.testing.assert_array_equal(
        got.named_estimators_["flags"].missing_count_,
        ref.named_estimators_["flags"].missing_count_,
    )
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="missing='ignore'"):
        distributed.fit(ColumnwiseNB(_mixed_spec()), dX, y)


def test_dask_fit_packs_sparse_block_tables_across_processes():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    from bayesnb import distributed
    from bayesnb.distributed import reduce

    rng = np.random.default_rng(3)
    n, v = 240, 400
    codes = rng.integers(0, 3, n)
    words = rng.poisson(0.01 * (1 + codes[:, None]), (n, v))  # a rarely used vocabulary
    X = np.hstack([words, rng.normal(codes[:, None], 1.0, (n, 2))]).astype(float)
    spec = [("words", MultinomialNB(), slice(0, v)), ("real", GDA(), [v, v + 1])]
    ref = ColumnwiseNB(spec).fit(X, codes)
    dX = da.from_array(sp.csr_matrix(X), chunks=(60, v + 2), asarray=False)
    # A chunk's K × V word table is mostly zeros: it travels as CSR inside its block's stats.
    shell = clone(ref)
    shell.classes_, shell.n_features_in_ = ref.classes_, X.shape[1]
    shell._setup_blocks(dX)
    stats = reduce.chunk_statistics(shell, X[:60], codes[:60], None, 0, True)
    assert isinstance(stats["blocks"][0]["feature_count"], reduce._Packed)
    with dask.config.set(scheduler="processes"):
        got = distributed.fit(ColumnwiseNB(spec), dX, codes, classes=[0, 1, 2])
    words_got, words_ref = got.named_estimators_["words"], ref.named_estimators_["words"]
    np.testing.assert_array_equal(words_got.feature_count_, words_ref.feature_count_)
    np.testing.assert_allclose(
        got.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-10
    )
