"""The discrete event models: textbook numbers, scikit-learn agreement, identities, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer

import bayesnb as bnb

MODELS = [bnb.BernoulliNB, bnb.MultinomialNB, bnb.CategoricalNB]


@pytest.fixture(scope="module")
def iir():
    """Manning, Raghavan & Schütze, Introduction to Information Retrieval, §13.2-13.3."""
    docs = [
        "Chinese Beijing Chinese",
        "Chinese Chinese Shanghai",
        "Chinese Macao",
        "Tokyo Japan Chinese",
    ]
    y = np.array(["China", "China", "China", "not China"])
    cv = CountVectorizer(lowercase=False)
    X = cv.fit_transform(docs)
    test = cv.transform(["Chinese Chinese Chinese Tokyo Japan"])
    return X, y, test, cv.vocabulary_


def counts_data(seed=0, n=120, v=15, k=3, lam=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.gamma(0.5, 2.0, size=(k, v)) * lam
    X = rng.poisson(rates[y]).astype(np.int64)
    return X, y


# -- the textbook example ----------------------------------------------------------------------
def test_iir_multinomial(iir):
    X, y, test, vocab = iir
    m = bnb.MultinomialNB(alpha=1.0, class_alpha=0.0).fit(X, y)
    china = list(m.classes_).index("China")
    assert np.exp(m.feature_log_prob_[china, vocab["Chinese"]]) == pytest.approx(3 / 7, abs=1e-12)
    assert np.exp(m.feature_log_prob_[china, vocab["Tokyo"]]) == pytest.approx(1 / 14, abs=1e-12)
    assert np.exp(m.feature_log_prob_[china, vocab["Japan"]]) == pytest.approx(1 / 14, abs=1e-12)
    assert np.exp(m.class_log_prior_[china]) == pytest.approx(3 / 4)
    # Book: P(c|d5) ∝ 3/4 (3/7)^3 (1/14)(1/14) ≈ 0.0003, P(~c|d5) ∝ 1/4 (2/9)^3 (2/9)(2/9) ≈ 0.0001.
    joint = np.exp(m.predict_joint_log_proba(test))[0]
    assert joint[china] == pytest.approx(0.75 * (3 / 7) ** 3 / 14**2, rel=1e-12)
    assert joint[1 - china] == pytest.approx(0.25 * (2 / 9) ** 5, rel=1e-12)
    assert m.predict_proba(test)[0, china] == pytest.approx(0.6898, abs=5e-5)
    assert m.predict(test)[0] == "China"


def test_iir_bernoulli(iir):
    X, y, test, vocab = iir
    b = bnb.BernoulliNB(alpha=1.0, class_alpha=0.0).fit(X, y)
    china = list(b.classes_).index("China")
    assert np.exp(b.feature_log_prob_[china, vocab["Chinese"]]) == pytest.approx(4 / 5)
    assert np.exp(b.feature_log_prob_[china, vocab["Japan"]]) == pytest.approx(1 / 5)
    assert np.exp(b.feature_log_prob_[1 - china, vocab["Tokyo"]]) == pytest.approx(2 / 3)
    assert b.predict_proba(test)[0, china] == pytest.approx(0.1911, abs=5e-5)
    assert b.predict(test)[0] == "not China"


# -- agreement with scikit-learn -----------------------------------------------------------------
@pytest.mark.parametrize("alpha", [1e-3, 0.1, 1.0, 3.7])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    ("ours", "theirs"), [(bnb.MultinomialNB, sk.MultinomialNB), (bnb.BernoulliNB, sk.BernoulliNB)]
)
def test_agrees_with_sklearn(alpha, sparse, weighted, ours, theirs):
    X, y = counts_data(seed=1)
    Xt, _ = counts_data(seed=2, n=40)
    w = np.random.default_rng(3).uniform(0.2, 3.0, len(y)) if weighted else None
    if sparse:
        X, Xt = sp.csr_matrix(X), sp.csc_matrix(Xt)
    a = ours(alpha=alpha, class_alpha=0.0).fit(X, y, sample_weight=w)
    b = theirs(alpha=alpha, force_alpha=True).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(a.feature_log_prob_, b.feature_log_prob_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.class_log_prior_, b.class_log_prior_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.feature_count_, b.feature_count_, rtol=1e-14)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))


# -- the estimate identities -------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_map_at_two_is_mean_at_one(model):
    X, y = counts_data(seed=4)
    Xt, _ = counts_data(seed=5, n=30)
    m = model(alpha=2.0, class_alpha=2.0, estimate="map").fit(X, y)
    e = model(alpha=1.0, class_alpha=1.0, estimate="mean").fit(X, y)
    np.testing.assert_allclose(m.class_log_prior_, e.class_log_prior_, atol=1e-13)
    np.testing.assert_allclose(
        m.predict_joint_log_proba(Xt), e.predict_joint_log_proba(Xt), atol=1e-9
    )


@pytest.mark.parametrize("model", MODELS)
def test_map_at_one_is_mle(model):
    X, y = counts_data(seed=6, lam=4.0)  # dense enough that the MLE is finite
    Xt, _ = counts_data(seed=7, n=30, lam=4.0)
    m = model(alpha=1.0, class_alpha=1.0, estimate="map").fit(X, y)
    e = model(estimate="mle").fit(X, y)
    np.testing.assert_allclose(m.class_log_prior_, np.log(np.bincount(y) / len(y)), atol=1e-13)
    np.testing.assert_allclose(m.class_log_prior_, e.class_log_prior_, atol=1e-13)
    np.testing.assert_allclose(
        m.predict_joint_log_proba(Xt), e.predict_joint_log_proba(Xt), atol=1e-9
    )


@pytest.mark.parametrize("model", [bnb.BernoulliNB, bnb.CategoricalNB])
def test_bayes_is_mean_when_posterior_factorises(model):
    X, y = counts_data(seed=8)
    Xt, _ = counts_data(seed=9, n=50)
    bayes = model(estimate="bayes", alpha=0.7).fit(X, y)
    mean = model(estimate="mean", alpha=0.7).fit(X, y)
    # The Beta-Bernoulli predictive of a document, computed directly from the posterior: a
    # product over features of E[φ]^x E[1-φ]^(1-x) — by independence of the Beta posteriors.
    if model is bnb.BernoulliNB:
        post = bayes.posterior_
        xb = (Xt > 0).astype(float)
        direct = (
            xb @ np.log(post.a / (post.a + post.b)).T
            + (1 - xb) @ np.log(post.b / (post.a + post.b)).T
        )
        np.testing.assert_allclose(
            bayes.predict_joint_log_proba(Xt) - bayes.class_log_prior_, direct, atol=1e-10
        )
    np.testing.assert_allclose(bayes.predict_proba(Xt), mean.predict_proba(Xt), atol=1e-12)


def dirichlet_multinomial_direct(x, a):
    """log p(x as a token sequence | Dirichlet(a)) for one document and one class."""
    n, A = x.sum(), a.sum()
    return gammaln(A) - gammaln(A + n) + np.sum(gammaln(a + x) - gammaln(a))


@pytest.mark.parametrize("sparse", [False, True])
def test_multinomial_bayes_is_polya(sparse):
    X, y = counts_data(seed=10, lam=3.0)
    Xt, _ = counts_data(seed=11, n=25, lam=3.0)
    Xt[0, :] = 0
    Xt[0, 2] = 40  # one bursty word: exercises the large-count remainder
    m = bnb.MultinomialNB(estimate="bayes", alpha=0.5).fit(sp.csr_matrix(X) if sparse else X, y)
    a = m.feature_count_ + 0.5
    direct = np.array(
        [[dirichlet_multinomial_direct(x, a[c]) for c in range(a.shape[0])] for x in Xt]
    )
    got = m.predict_joint_log_proba(sp.csr_matrix(Xt) if sparse else Xt) - m.class_log_prior_
    np.testing.assert_allclose(got, direct, rtol=1e-12, atol=1e-9)


def test_multinomial_bayes_non_integer_counts():
    X, y = counts_data(seed=12)
    Xt = np.random.default_rng(13).uniform(0, 2, size=(10, X.shape[1]))
    m = bnb.MultinomialNB(estimate="bayes").fit(X, y)
    a = m.feature_count_ + 1.0
    direct = np.array([[dirichlet_multinomial_direct(x, a[c]) for c in range(3)] for x in Xt])
    np.testing.assert_allclose(
        m.predict_joint_log_proba(Xt) - m.class_log_prior_, direct, rtol=1e-12
    )


def test_bayes_differs_from_mean_through_repeats_and_length():
    """bayes − mean = Σ_j [ln Γ(a+x) − ln Γ(a) − x ln a] − [ln Γ(A+n) − ln Γ(A) − n ln A].

    The per-feature bracket is zero exactly when no token repeats (x ∈ {0, 1}); the length
    bracket is the same for every document of length n, so for single-token documents the two
    estimates agree exactly and otherwise differ by a class-dependent length term too.
    """
    X, y = counts_data(seed=14)
    mean = bnb.MultinomialNB(estimate="mean").fit(X, y)
    bayes = bnb.MultinomialNB(estimate="bayes").fit(X, y)
    a = mean.feature_count_ + 1.0
    A = a.sum(axis=1)
    single = np.zeros((3, X.shape[1]))
    single[np.arange(3), [0, 4, 9]] = 1
    np.testing.assert_allclose(
        bayes.predict_joint_log_proba(single), mean.predict_joint_log_proba(single), atol=1e-12
    )
    no_repeat = np.zeros((1, X.shape[1]))
    no_repeat[0, [1, 2, 3]] = 1
    length_term = gammaln(A + 3) - gammaln(A) - 3 * np.log(A)
    diff = bayes.predict_joint_log_proba(no_repeat) - mean.predict_joint_log_proba(no_repeat)
    np.testing.assert_allclose(diff[0], -length_term, atol=1e-10)
    repeat = np.zeros((1, X.shape[1]))
    repeat[0, 1] = 3
    diff = bayes.predict_joint_log_proba(repeat) - mean.predict_joint_log_proba(repeat)
    burst = gammaln(a[:, 1] + 3) - gammaln(a[:, 1]) - 3 * np.log(a[:, 1])
    np.testing.assert_allclose(diff[0], burst - length_term, atol=1e-10)
    assert np.all(burst > 0.0)


# -- additivity: partial_fit and weights -------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_partial_fit_equals_fit(model, sparse):
    X, y = counts_data(seed=15, n=200)
    Xt, _ = counts_data(seed=16, n=30)
    conv = sp.csr_matrix if sparse else np.asarray
    full = model().fit(conv(X), y)
    inc = model()
    for chunk in np.array_split(np.arange(len(y)), [7, 8, 90]):  # uneven, one of size 1
        inc.partial_fit(conv(X[chunk]), y[chunk], classes=np.unique(y))
    np.testing.assert_allclose(inc.class_count_, full.class_count_)
    np.testing.assert_allclose(inc.feature_count_, full.feature_count_)
    np.testing.assert_allclose(
        inc.predict_proba(conv(Xt)), full.predict_proba(conv(Xt)), atol=1e-12
    )


def test_partial_fit_grows_categories():
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    y = np.array([0, 1, 0, 1])
    later = np.array([[3, 1], [2, 2]])
    m = bnb.CategoricalNB().partial_fit(X, y).partial_fit(later, [0, 1])
    full = bnb.CategoricalNB().fit(np.vstack([X, later]), np.r_[y, 0, 1])
    np.testing.assert_array_equal(m.n_categories_, [4, 3])
    for a, b in zip(m.category_count_, full.category_count_, strict=True):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("model", MODELS)
def test_integer_weights_equal_repeated_rows(model):
    X, y = counts_data(seed=17, n=60)
    Xt, _ = counts_data(seed=18, n=20)
    w = np.random.default_rng(19).integers(0, 4, len(y))
    weighted = model().fit(X, y, sample_weight=w)
    repeated = model().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.feature_count_, repeated.feature_count_)
    np.testing.assert_allclose(weighted.predict_proba(Xt), repeated.predict_proba(Xt), atol=1e-12)


# -- inputs: labels, frames, sparse formats, dtypes ----------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_dense_equals_sparse_all_formats(model):
    X, y = counts_data(seed=20)
    Xt, _ = counts_data(seed=21, n=30)
    ref = model(estimate="bayes").fit(X, y).predict_proba(Xt)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array):
        for dtype in (np.int32, np.float32, np.float64):
            m = model(estimate="bayes").fit(fmt(X.astype(dtype)), y)
            np.testing.assert_allclose(m.predict_proba(fmt(Xt.astype(dtype))), ref, atol=1e-12)


def test_labels_of_any_type_round_trip():
    X, y = counts_data(seed=22)
    names = np.array(["spam", "ham", "eggs"])[y]
    m = bnb.MultinomialNB().fit(X, names)
    assert set(m.predict(X)) <= {"spam", "ham", "eggs"}
    m2 = bnb.MultinomialNB().fit(X, y + 10)
    np.testing.assert_array_equal(m2.classes_, [10, 11, 12])
    np.testing.assert_array_equal(
        m.predict(X), np.array(["spam", "ham", "eggs"])[m2.predict(X) - 10]
    )


def test_dataframe_feature_names_kept():
    X, y = counts_data(seed=23)
    df = pd.DataFrame(X, columns=[f"w{j}" for j in range(X.shape[1])])
    m = bnb.MultinomialNB().fit(df, y)
    assert list(m.feature_names_in_) == list(df.columns)
    np.testing.assert_allclose(m.predict_proba(df), bnb.MultinomialNB().fit(X, y).predict_proba(X))


def test_array_alpha_per_feature():
    X, y = counts_data(seed=24)
    alpha = np.linspace(0.1, 3.0, X.shape[1])
    m = bnb.MultinomialNB(alpha=alpha).fit(X, y)
    T = m.feature_count_
    expected = np.log((T + alpha) / (T + alpha).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(m.feature_log_prob_, expected, atol=1e-13)
    b = bnb.BernoulliNB(alpha=alpha, beta=2 * alpha).fit(X, y)
    D, N = b.feature_count_, b.class_count_[:, None]
    np.testing.assert_allclose(
        b.feature_log_prob_, np.log((D + alpha) / (N + 3 * alpha)), atol=1e-13
    )
    np.testing.assert_allclose(
        b.feature_log_neg_prob_, np.log((N - D + 2 * alpha) / (N + 3 * alpha)), atol=1e-13
    )


# -- class prior options -----------------------------------------------------------------------
def test_class_prior_options():
    X, y = counts_data(seed=25)
    n = np.bincount(y)
    m = bnb.MultinomialNB(class_alpha=2.5).fit(X, y)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), (n + 2.5) / (n.sum() + 3 * 2.5))
    m = bnb.MultinomialNB(fit_prior=False).fit(X, y)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), 1 / 3)
    m = bnb.MultinomialNB(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    np.testing.assert_allclose(np.exp(m.class_log_prior_), [0.2, 0.3, 0.5])


@pytest.mark.parametrize("bad", [[-1, 2, 0], [0.5, 0.5], [0.3, 0.3, 0.3], [np.nan, 0.5, 0.5]])
@pytest.mark.parametrize("model", MODELS)
def test_class_prior_validated_for_every_model(model, bad):
    X, y = counts_data(seed=26)
    with pytest.raises(ValueError, match="class_prior"):
        model(class_prior=bad).fit(X, y).predict(X)


# -- MLE zeros and the MAP boundary ----------------------------------------------------------------
def test_mle_zero_probability_falls_back_to_prior(iir):
    X, y, _, vocab = iir
    m = bnb.MultinomialNB(estimate="mle").fit(X, y)
    assert np.isneginf(m.feature_log_prob_).any()
    # "Tokyo" is unseen in China and "Beijing" unseen in not-China: impossible under both.
    doc = np.zeros((2, X.shape[1]))
    doc[0, [vocab["Tokyo"], vocab["Beijing"]]] = 1
    doc[1, vocab["Chinese"]] = 2
    with pytest.warns(RuntimeWarning, match="1 document"):
        p = m.predict_proba(doc)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[0], np.exp(m.class_log_prior_))
    # The second document has finite likelihood under both classes: ordinary posterior.
    china = list(m.classes_).index("China")
    lik = np.array([(3 / 4) * (5 / 8) ** 2, (1 / 4) * (1 / 3) ** 2])
    lik = lik if china == 0 else lik[::-1]
    np.testing.assert_allclose(p[1], lik / lik.sum())


def test_bernoulli_mle_with_certain_features():
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    y = np.array([0, 0, 1, 1])
    m = bnb.BernoulliNB(estimate="mle").fit(X, y)  # φ_00 = 1, φ_10 = 0
    p = m.predict_proba(np.array([[1, 1], [0, 1]]))
    np.testing.assert_allclose(p, [[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("model", MODELS)
def test_map_on_boundary_raises(model):
    X, y = counts_data(seed=27)
    with pytest.raises(ValueError, match=r"alpha >= 1.*interior.*mean"):
        model(estimate="map", alpha=0.5, class_alpha=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"class_alpha >= 1"):
        model(estimate="map", alpha=2.0, class_alpha=0.5).fit(X, y).predict(X)


# -- unknown tokens and categories ---------------------------------------------------------------
def test_unk_pools_unseen_features():
    X = np.array([[2, 1, 0, 0], [0, 3, 0, 0], [1, 0, 1, 0]])
    y = np.array([0, 0, 1])
    m = bnb.MultinomialNB(alpha=1.0, unk=True).fit(X, y)
    V = 3  # column 3 never seen
    T_c = np.array([6.0, 2.0])
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[:, 3]), 1.0 / (T_c + V + 1))
    np.testing.assert_allclose(np.exp(m.feature_log_prob_[0, 1]), (4 + 1) / (6 + V + 1))
    # Probabilities of seen words plus one UNK slot sum to one.
    p = np.exp(m.feature_log_prob_)
    np.testing.assert_allclose(p[:, :3].sum(axis=1) + p[:, 3], 1.0)
    # "bayes" pools the unseen columns' counts into one UNK category.
    Xt = np.array([[1, 0, 0, 2]])
    bayes = bnb.MultinomialNB(alpha=1.0, unk=True, estimate="bayes").fit(X, y)
    a = np.hstack([m.feature_count_[:, :3] + 1.0, np.ones((2, 1))])
    direct = [dirichlet_multinomial_direct(np.array([1, 0, 0, 2.0]), a[c]) for c in range(2)]
    np.testing.assert_allclose(
        bayes.predict_joint_log_proba(Xt)[0] - bayes.class_log_prior_, direct
    )
    # Every column seen: nothing pooled, but the UNK slot still holds prior mass α.
    full = bnb.MultinomialNB(alpha=1.0, unk=True, estimate="bayes").fit(X[:, :3], y)
    a = np.hstack([full.feature_count_ + 1.0, np.ones((2, 1))])
    direct = [dirichlet_multinomial_direct(np.array([1, 0, 2, 0.0]), a[c]) for c in range(2)]
    got = full.predict_joint_log_proba(np.array([[1, 0, 2]]))[0] - full.class_log_prior_
    np.testing.assert_allclose(got, direct)


def test_categorical_unseen_category_gets_pooled_slot():
    X = np.array([[0, 1], [1, 1], [2, 0], [0, 0]])
    y = np.array([0, 0, 1, 1])
    m = bnb.CategoricalNB(alpha=1.0, class_alpha=0.0).fit(X, y)
    np.testing.assert_array_equal(m.n_categories_, [3, 2])
    N_c = 2.0
    # Feature 0 has k=3 seen categories: P(x0=7 | c) = α / (N_c + α(k+1)).
    p_unseen = 1.0 / (N_c + 4)
    p_x1_1 = np.array([(2 + 1) / (N_c + 3), (0 + 1) / (N_c + 3)])
    jll = m.predict_joint_log_proba(np.array([[7, 1]]))[0]
    np.testing.assert_allclose(jll, np.log(0.5) + np.log(p_unseen) + np.log(p_x1_1))
    for table in m.feature_log_prob_:
        np.testing.assert_allclose(np.exp(table).sum(axis=1), 1.0)


def test_categorical_matches_direct_computation_sparse():
    rng = np.random.default_rng(28)
    X = rng.integers(0, 4, size=(80, 5)) * (rng.random((80, 5)) < 0.4)
    y = rng.integers(0, 3, 80)
    Xt = rng.integers(0, 5, size=(15, 5))
    m = bnb.CategoricalNB(alpha=0.3).fit(sp.csr_matrix(X), y)
    jll = np.zeros((15, 3))
    for j in range(5):
        k = X[:, j].max() + 1
        for c in range(3):
            counts = np.bincount(X[y == c, j], minlength=k)
            probs = (counts + 0.3) / (counts.sum() + 0.3 * (k + 1))
            jll[:, c] += np.where(
                Xt[:, j] < k,
                np.log(probs[np.minimum(Xt[:, j], k - 1)]),
                np.log(0.3 / (counts.sum() + 0.3 * (k + 1))),
            )
    got = m.predict_joint_log_proba(sp.csr_matrix(Xt)) - m.class_log_prior_
    np.testing.assert_allclose(got, jll, atol=1e-12)


# -- numerics ----------------------------------------------------------------------------------
def test_long_documents_and_tiny_alpha_dense_equals_sparse():
    X, y = counts_data(seed=29, lam=2.0)
    long = np.zeros((2, X.shape[1]))
    long[0, :] = 100_000 // X.shape[1]
    long[1, 3] = 100_000
    for est in ("mean", "bayes"):
        for alpha in (1e-10, 1.0):
            m = bnb.MultinomialNB(alpha=alpha, estimate=est).fit(X, y)
            dense, sparse = m.predict_log_proba(long), m.predict_log_proba(sp.csr_matrix(long))
            assert np.all(np.isfinite(dense)) and np.all(dense <= 0)
            np.testing.assert_allclose(logsumexp(dense, axis=1), 0.0, atol=1e-12)
            np.testing.assert_allclose(dense, sparse, atol=1e-9)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_bad_input_messages(model):
    X, y = counts_data(seed=30)
    bad_nan = X.astype(float)
    bad_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model().fit(bad_nan, y)
    bad_inf = X.astype(float)
    bad_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model().fit(bad_inf, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model().fit(X, y[:-1])
    with pytest.raises(ValueError, match="one class only"):
        model().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="alpha must be > 0"):
        model(alpha=0.0).fit(X, y).predict(X)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        model(alpha=-1.0).fit(X, y).predict(X)
    with pytest.raises(ValueError, match="estimate must be one of"):
        model(estimate="median").fit(X, y)
    with pytest.raises(ValueError, match="class_alpha"):
        model(class_alpha=-1).fit(X, y)
    m = model().fit(X, y)
    with pytest.raises(ValueError, match=r"X has 14 features, but .* is expecting 15"):
        m.predict(X[:, :-1])
    m = model().partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels not in classes: \[7\]"):
        m.partial_fit(X[:2], [7, 0])
    with pytest.raises(ValueError, match="y holds NaN"):
        model().fit(X, np.where(y == 0, np.nan, y))


def test_negative_counts_and_non_integer_categories():
    X, y = counts_data(seed=31)
    neg = X.copy()
    neg[3, 2] = -1
    with pytest.raises(ValueError, match="Negative values"):
        bnb.MultinomialNB().fit(neg, y)
    with pytest.raises(ValueError, match="Negative values"):
        bnb.MultinomialNB().fit(sp.csr_matrix(neg), y)
    with pytest.raises(ValueError, match="Non-integer values"):
        bnb.CategoricalNB().fit(X + 0.5, y)
    # Bernoulli accepts any real values: it binarises at a threshold.
    bnb.BernoulliNB(binarize=0.5).fit(neg - 0.25, y)


def test_first_partial_fit_without_classes_then_new_label_errors():
    X, y = counts_data(seed=32)
    m = bnb.MultinomialNB().partial_fit(X[y < 2], y[y < 2])
    with pytest.raises(ValueError, match=r"labels not in classes.*classes=\.\.\."):
        m.partial_fit(X[y == 2], y[y == 2])


def test_mismatched_classes_argument():
    X, y = counts_data(seed=33)
    m = bnb.MultinomialNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="differs from the classes"):
        m.partial_fit(X, y, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="duplicate"):
        bnb.MultinomialNB().partial_fit(X, y, classes=[0, 1, 1, 2])
