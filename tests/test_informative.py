"""most_informative_features: exact means, calibrated intervals, ranking, selection, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import integrate
from scipy.special import digamma, polygamma
from scipy.stats import beta as beta_dist
from sklearn.linear_model import LogisticRegression

import bayesnb as bnb
from bayesnb.informative import most_informative_features

COLUMNS = [
    "class",
    "versus",
    "rank",
    "feature",
    "column",
    "mean",
    "sd",
    "eti90_lb",
    "eti90_ub",
    "count",
    "count_versus",
]


@pytest.fixture(scope="module")
def text():
    """Three classes of documents over 12 words with distinct word distributions."""
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(12, 0.7), size=3)
    y = np.repeat(["a", "b", "c"], [15, 25, 10])
    X = np.vstack([rng.multinomial(20, phi["abc".index(c)]) for c in y]).astype(float)
    return X, y


def _log_beta_diff_cdf(t: float, a1, b1, a2, b2) -> float:
    """P(log X1 − log X2 <= t), X_i ~ Beta(a_i, b_i) independent, by quadrature.

    P = ∫_0^1 F_1(exp(t + log Q_2(u))) du with Q_2 the quantile function of X2.
    """

    def f(u: float) -> float:
        x2 = beta_dist.ppf(u, a2, b2)
        return beta_dist.cdf(min(np.exp(t) * x2, 1.0), a1, b1)

    val, _ = integrate.quad(f, 0.0, 1.0, limit=200)
    return val


def test_multinomial_means_and_sd_are_exact_digamma(text):
    X, y = text
    est = bnb.MultinomialNB(alpha=0.5).fit(X, y)
    df = most_informative_features(est, n=12)
    assert list(df.columns) == COLUMNS
    conc = est.feature_count_ + 0.5
    total = conc.sum(axis=1)
    e_log = digamma(conc) - digamma(total)[:, None]
    v_log = polygamma(1, conc) - polygamma(1, total)[:, None]
    cls = list(est.classes_)
    for row in df.itertuples(index=False):
        a, b, j = cls.index(row[0]), cls.index(row[1]), row.column
        assert row.mean == pytest.approx(e_log[a, j] - e_log[b, j], rel=1e-12)
        assert row.sd == pytest.approx(np.sqrt(v_log[a, j] + v_log[b, j]), rel=1e-12)
        assert row.count == est.feature_count_[a, j]
        assert row.count_versus == est.feature_count_[b, j]
    # 6 ordered pairs × 12 features
    assert len(df) == 6 * 12


def test_bernoulli_means_are_exact_digamma(text):
    X, y = text
    est = bnb.BernoulliNB(alpha=2.0, beta=0.5).fit(X, y)
    df = most_informative_features(est, n=5, classes=[("c", "a")], rank="mean")
    a_post = est.feature_count_ + 2.0
    b_post = est.class_count_[:, None] - est.feature_count_ + 0.5
    e_log = digamma(a_post) - digamma(a_post + b_post)
    expected = e_log[2] - e_log[0]
    top = np.argsort(-expected, kind="stable")[:5]
    np.testing.assert_array_equal(df["column"], top)
    np.testing.assert_allclose(df["mean"], expected[top], rtol=1e-12)
    assert (df["class"] == "c").all() and (df["versus"] == "a").all()


def test_interval_bounds_are_the_exact_quantiles(text):
    # The Monte Carlo bounds sit at the 5% and 95% points of the exact distribution of the
    # difference of two log-Beta variables (computed here by quadrature), within MC error.
    X, y = text
    est = bnb.MultinomialNB(alpha=0.3).fit(X, y)
    df = most_informative_features(est, n=3, classes=[("a", "b")], draws=20_000)
    conc = est.feature_count_ + 0.3
    total = conc.sum(axis=1)
    for row in df.itertuples(index=False):
        j = row.column
        args = (conc[0, j], total[0] - conc[0, j], conc[1, j], total[1] - conc[1, j])
        # MC error of a 5% quantile's tail probability with 20k draws: sd ≈ 0.0015.
        assert _log_beta_diff_cdf(row.eti90_lb, *args) == pytest.approx(0.05, abs=0.006)
        assert _log_beta_diff_cdf(row.eti90_ub, *args) == pytest.approx(0.95, abs=0.006)
        assert row.eti90_lb < row.mean < row.eti90_ub


def test_draws_are_reproducible_and_tiny_concentrations_stay_finite(text):
    X, y = text
    est = bnb.MultinomialNB(alpha=1e-3).fit(X, y)  # zero counts: Beta(1e-3, ·) marginals
    one = most_informative_features(est, n=12, random_seed=7)
    two = most_informative_features(est, n=12, random_seed=7)
    pd.testing.assert_frame_equal(one, two)
    other = most_informative_features(est, n=12, random_seed=8)
    assert not np.allclose(one["eti90_lb"], other["eti90_lb"])
    assert np.isfinite(one[["mean", "sd", "eti90_lb", "eti90_ub"]].to_numpy()).all()
    # log of a Beta(1e-3, ·) draw is around −1/1e-3 · Exp(1): a lower bound far below −100.
    assert one["eti90_lb"].min() < -100


def _coverage(simulate, n_fits: int, seed: int) -> tuple[float, float, float]:
    """Coverage over fits (per-fit share of features covered), its SE, rank-1 coverage."""
    rng = np.random.default_rng(seed)
    per_fit, top = [], []
    for r in range(n_fits):
        est, truth = simulate(rng)
        df = most_informative_features(
            est, n=truth.size, classes=[(0, 1)], draws=2000, random_seed=r
        )
        t = truth[df["column"].to_numpy()]
        inside = (df["eti90_lb"] <= t) & (t <= df["eti90_ub"])
        per_fit.append(inside.mean())
        top.append(bool(inside.iloc[0]))
    per_fit = np.asarray(per_fit)
    # Features of one fit are dependent: the standard error is taken over fits.
    return per_fit.mean(), per_fit.std(ddof=1) / np.sqrt(n_fits), float(np.mean(top))


def test_multinomial_intervals_cover_the_true_log_odds():
    # Truth drawn from the prior, data from the truth: the posterior interval then covers
    # the truth with probability exactly ci_prob (averaged over the prior), for every feature
    # and even for the top-ranked one (Bayesian coverage holds conditionally on the data).
    V, alpha = 8, 0.8

    def simulate(rng):
        phi = rng.dirichlet(np.full(V, alpha), size=2)
        y = np.repeat([0, 1], 6)
        X = np.vstack([rng.multinomial(8, phi[c]) for c in y]).astype(float)
        est = bnb.MultinomialNB(alpha=alpha).fit(X, y)
        return est, np.log(phi[0]) - np.log(phi[1])

    cov, se, top = _coverage(simulate, 200, seed=11)
    # 200 fits × 8 features: SE ≈ 0.008. Below 0.9 − 3 SE fails, and so does over-coverage.
    assert 0.9 - 3 * se <= cov <= 0.9 + 3 * se, (cov, se)
    assert 0.82 <= top <= 0.98, top


def test_bernoulli_intervals_cover_the_true_log_odds():
    V, a0, b0 = 8, 1.5, 2.0

    def simulate(rng):
        theta = rng.beta(a0, b0, size=(2, V))
        y = np.repeat([0, 1], 10)
        X = (rng.random((y.size, V)) < theta[y]).astype(float)
        est = bnb.BernoulliNB(alpha=a0, beta=b0, binarize=None).fit(X, y)
        return est, np.log(theta[0]) - np.log(theta[1])

    cov, se, top = _coverage(simulate, 200, seed=12)
    assert 0.9 - 3 * se <= cov <= 0.9 + 3 * se, (cov, se)
    assert 0.82 <= top <= 0.98, top


def test_poisson_log_rate_ratio():
    rng = np.random.default_rng(3)
    V, shape0, rate0 = 6, 2.0, 0.5

    def simulate(rng):
        lam = rng.gamma(shape0, 1.0 / rate0, size=(2, V))
        y = np.repeat([0, 1], 5)
        X = rng.poisson(lam[y]).astype(float)
        est = bnb.PoissonNB(alpha=shape0, beta=rate0).fit(X, y)
        return est, np.log(lam[0]) - np.log(lam[1])

    est, _ = simulate(rng)
    df = most_informative_features(est, n=V, classes=[(0, 1)])
    # Gamma(α + S_cj, β + N_c), from the counts, not from the estimator's own posterior
    shape = shape0 + est.feature_count_
    rate = rate0 + est.class_count_[:, None]
    e_log = digamma(shape) - np.log(rate)
    j = df["column"].to_numpy()
    np.testing.assert_allclose(df["mean"], (e_log[0] - e_log[1])[j], rtol=1e-12)
    np.testing.assert_allclose(
        df["sd"], np.sqrt(polygamma(1, shape[0, j]) + polygamma(1, shape[1, j]))
    )
    assert df.attrs["quantity"] == "log rate ratio"
    cov, se, _ = _coverage(simulate, 200, seed=13)
    assert 0.9 - 3 * se <= cov <= 0.9 + 3 * se, (cov, se)


def _exact_lower(conc, total, a: int, b: int, j: int, tail: float = 0.05) -> float:
    """The ``tail`` quantile of log φ_aj − log φ_bj under the exact posterior (quadrature)."""
    from scipy.optimize import brentq

    args = (conc[a, j], total[a] - conc[a, j], conc[b, j], total[b] - conc[b, j])
    sd = np.sqrt(sum(polygamma(1, [args[0], args[2]])))
    m = digamma(args[0]) - digamma(args[0] + args[1]) - digamma(args[2]) + digamma(sum(args[2:]))
    return brentq(lambda t: _log_beta_diff_cdf(t, *args) - tail, m - 12 * sd, m + 2 * sd)


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")  # peaked integrands
def test_lower_ranking_is_the_sort_of_the_exact_lower_quantiles():
    # Words 0-3 the rival class never uses (their ratio is bounded by the prior alone)
    # beside words both classes use, at ratios 2..10 over larger counts.
    count_a = np.array([3, 6, 12, 24, 40, 80, 150, 300, 60, 120, 200, 500], dtype=float)
    count_b = np.array([0, 0, 0, 0, 4, 12, 30, 90, 30, 40, 50, 80], dtype=float)
    X = np.vstack([count_a // 2, count_a - count_a // 2, count_b // 2, count_b - count_b // 2])
    y = np.array(["a", "a", "b", "b"])
    est = bnb.MultinomialNB().fit(X, y)
    df = most_informative_features(est, n=12, classes=[("a", "b")], draws=40_000)
    conc = est.feature_count_ + 1.0
    total = conc.sum(axis=1)
    exact = np.array([_exact_lower(conc, total, 0, 1, j) for j in range(12)])
    order = np.argsort(-exact, kind="stable")
    # Neighbours in the exact order are further apart than the Monte Carlo error (~0.005).
    assert np.min(-np.diff(exact[order])) > 0.03
    np.testing.assert_array_equal(df["column"], order)
    np.testing.assert_allclose(df["eti90_lb"], exact[order], atol=0.02)
    assert list(df["rank"]) == list(range(1, 13)) and df.attrs["rank"] == "lower"
    # The mean ranks the exclusive words otherwise: it is another ranking.
    by_mean = most_informative_features(est, n=12, classes=[("a", "b")], rank="mean")
    assert list(by_mean["column"]) != list(order)
    assert np.all(np.diff(by_mean["mean"].to_numpy()) <= 0)


def test_lower_ranking_screens_candidates_on_a_large_vocabulary():
    # 400 words (more than the 100 candidates n = 5 draws for): the top 5 are those of the
    # sort of every word's lower end.
    rng = np.random.default_rng(4)
    phi = rng.dirichlet(np.full(400, 0.3), size=2)
    y = np.repeat(["a", "b"], 40)
    X = np.vstack([rng.multinomial(200, phi[int(c == "b")]) for c in y]).astype(float)
    est = bnb.MultinomialNB(alpha=0.5).fit(X, y)
    top = most_informative_features(est, n=5, classes=[("a", "b")], draws=20_000)
    every = most_informative_features(est, n=400, classes=[("a", "b")], draws=20_000)
    assert len(every) == 400
    assert np.all(np.diff(every["eti90_lb"].to_numpy()) <= 0)
    assert np.all(np.diff(top["eti90_lb"].to_numpy()) <= 0)
    # Up to the Monte Carlo error of two draw sets (sd ~0.03 for a word one class never
    # used, its tail is long): the same lower ends, and none of
    # the words left out is above the fifth.
    lower = dict(zip(every["column"], every["eti90_lb"], strict=True))
    np.testing.assert_allclose(top["eti90_lb"], [lower[j] for j in top["column"]], atol=0.1)
    left_out = every[~every["column"].isin(top["column"])]
    assert left_out["eti90_lb"].max() < top["eti90_lb"].min() + 0.1


def test_ordering_and_pair_selection(text):
    X, y = text
    est = bnb.MultinomialNB().fit(X, y)
    df = most_informative_features(est, n=4, rank="mean")
    pairs = list(dict.fromkeys(zip(df["class"], df["versus"], strict=True)))
    assert pairs == [("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "b")]
    for _, g in df.groupby(["class", "versus"], sort=False):
        assert list(g["rank"]) == [1, 2, 3, 4]
        assert np.all(np.diff(g["mean"].to_numpy()) <= 0)
    # The top 4 by mean are the 4 largest means over every feature.
    full = most_informative_features(est, n=100, classes=[("a", "b")], rank="mean")
    assert len(full) == 12
    np.testing.assert_array_equal(
        df.loc[(df["class"] == "a") & (df["versus"] == "b"), "column"], full["column"][:4]
    )
    # log(φ_a/φ_b) = −log(φ_b/φ_a): the means are antisymmetric.
    back = most_informative_features(est, n=12, classes=[("b", "a")])
    m_ab = dict(zip(full["column"], full["mean"], strict=True))
    for j, m in zip(back["column"], back["mean"], strict=True):
        assert m == pytest.approx(-m_ab[j])
    # A list of labels gives every ordered pair among them; pairs keep the given order.
    sub = most_informative_features(est, n=2, classes=["c", "a"])
    assert list(dict.fromkeys(zip(sub["class"], sub["versus"], strict=True))) == [
        ("c", "a"),
        ("a", "c"),
    ]
    given = most_informative_features(est, n=2, classes=[("c", "b"), ("a", "c")])
    assert list(given["class"]) == ["c", "c", "a", "a"]


def test_feature_names_sparse_input_and_evidence_alpha(text):
    X, y = text
    names = [f"w{j}" for j in range(12)]
    est = bnb.MultinomialNB(alpha="evidence").fit(pd.DataFrame(X, columns=names), y)
    df = most_informative_features(est, n=3, classes=[("a", "b")])
    assert list(df["feature"]) == [names[j] for j in df["column"]]
    conc = est.feature_count_ + est.alpha_
    e_log = digamma(conc) - digamma(conc.sum(axis=1))[:, None]
    np.testing.assert_allclose(df["mean"], (e_log[0] - e_log[1])[df["column"]], rtol=1e-12)
    # feature_names= overrides; without names the columns are x0, x1, ...
    sparse = bnb.MultinomialNB().fit(sp.csr_matrix(X), y)
    plain = most_informative_features(sparse, n=2, classes=[("a", "b")])
    assert all(f == f"x{j}" for f, j in zip(plain["feature"], plain["column"], strict=True))
    upper = [n.upper() for n in names]
    named = most_informative_features(sparse, n=2, classes=[("a", "b")], feature_names=upper)
    assert list(named["feature"]) == [upper[j] for j in named["column"]]
    # ci_prob sets the interval and its ArviZ-style column names.
    wide = most_informative_features(sparse, n=2, classes=[("a", "b")], ci_prob=0.5)
    assert "eti50_lb" in wide.columns and wide.attrs["ci_prob"] == 0.5
    assert (wide["eti50_ub"] - wide["eti50_lb"] < plain["eti90_ub"] - plain["eti90_lb"]).all()


def test_unk_pooled_columns_share_the_pooled_marginal():
    X = np.array([[3, 0, 1, 0], [0, 2, 1, 0], [2, 0, 0, 0], [0, 1, 2, 0]], dtype=float)
    y = np.array([0, 1, 0, 1])
    est = bnb.MultinomialNB(unk=True).fit(X, y)
    df = most_informative_features(est, n=4, classes=[(0, 1)])
    # Column 3 was never seen: pooled, its probability is the UNK slot α / (T_c + α(V_seen + 1)).
    conc = np.array([[5 + 1, 0 + 1, 1 + 1, 1], [0 + 1, 3 + 1, 3 + 1, 1]], dtype=float)
    e_log = digamma(conc) - digamma(conc.sum(axis=1))[:, None]
    row = df[df["column"] == 3].iloc[0]
    assert row["mean"] == pytest.approx(e_log[0, 3] - e_log[1, 3])


def test_bad_rank(text):
    est = bnb.MultinomialNB().fit(*text)
    with pytest.raises(ValueError, match=r"rank must be one of \('lower', 'mean'\), got 'sd'"):
        most_informative_features(est, rank="sd")


def test_bad_inputs(text):
    X, y = text
    est = bnb.MultinomialNB().fit(X, y)
    with pytest.raises(TypeError, match="CategoricalNB"):
        most_informative_features(bnb.CategoricalNB().fit(X.astype(int), y))
    with pytest.raises(TypeError, match="GDA"):
        most_informative_features(bnb.GDA().fit(X, y))
    with pytest.raises(TypeError, match="LogisticRegression"):
        most_informative_features(LogisticRegression().fit(X, y))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        most_informative_features(bnb.MultinomialNB())
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n must be"):
            most_informative_features(est, n=bad)
    for bad in (0, 1, 1.5, "0.9"):
        with pytest.raises(ValueError, match="ci_prob"):
            most_informative_features(est, ci_prob=bad)
    with pytest.raises(ValueError, match="draws"):
        most_informative_features(est, draws=10)
    with pytest.raises(ValueError, match="'z'"):
        most_informative_features(est, classes=["a", "z"])
    with pytest.raises(ValueError, match="two different"):
        most_informative_features(est, classes=[("a", "a")])
    with pytest.raises(ValueError, match="at least two"):
        most_informative_features(est, classes=["a"])
    with pytest.raises(ValueError, match="empty"):
        most_informative_features(est, classes=[])
    with pytest.raises(ValueError, match="all class labels or all"):
        most_informative_features(est, classes=["a", ("b", "c")])
    with pytest.raises(ValueError, match=r"\(class, versus\)"):
        most_informative_features(est, classes=[("a", "b", "c")])
    with pytest.raises(TypeError, match="classes must be"):
        most_informative_features(est, classes="ab")
    with pytest.raises(ValueError, match="one name per feature"):
        most_informative_features(est, feature_names=["x"])
    with pytest.raises(TypeError, match="feature_names"):
        most_informative_features(est, feature_names="abc")


def test_exported_from_the_package():
    assert bnb.most_informative_features is most_informative_features
    assert "most_informative_features" in bnb.__all__
