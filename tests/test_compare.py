"""compare(): every metric against a direct computation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import StratifiedKFold, train_test_split

import bayesnb as bnb
from bayesnb.comparison import all_estimates, compare, expected_calibration_error


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_ece_by_hand():
    # 4 documents, 2 bins of 2 (equal mass): confidences sorted 0.6, 0.7 | 0.8, 0.9.
    proba = np.array([[0.6, 0.4], [0.3, 0.7], [0.8, 0.2], [0.1, 0.9]])
    y = np.array([0, 0, 0, 1])  # correct, wrong, correct, correct
    # bin 1: accuracy 1/2, confidence 0.65; bin 2: accuracy 1, confidence 0.85
    expected = 0.5 * abs(0.5 - 0.65) + 0.5 * abs(1.0 - 0.85)
    assert expected_calibration_error(y, proba, [0, 1], n_bins=2) == pytest.approx(expected)
    # 15 bins on 4 documents: one per document.
    direct = np.mean(np.abs(np.array([1, 0, 1, 1]) - proba.max(axis=1)))
    assert expected_calibration_error(y, proba, [0, 1]) == pytest.approx(direct)


@pytest.mark.filterwarnings("ignore:.*probability 0 under every class:RuntimeWarning")
def test_compare_metrics_match_direct(digits):
    X_tr, X_te, y_tr, y_te = digits
    ests = all_estimates(bnb.MultinomialNB(), map_params={"alpha": 2.0, "class_alpha": 2.0})
    ests["logreg"] = LogisticRegression(max_iter=2000)
    ds = compare(ests, X_tr, y_tr, X_te, y_te, loo=False)
    assert list(ds.name.values) == ["mle", "map", "mean", "bayes", "logreg"]
    for name, est in ests.items():
        proba = est.fit(X_tr, y_tr).predict_proba(X_te)
        row = ds.sel(name=name)
        assert float(row.accuracy) == pytest.approx(np.mean(est.classes_[proba.argmax(1)] == y_te))
        assert float(row.log_loss) == pytest.approx(log_loss(y_te, proba, labels=est.classes_))
        assert float(row.brier) == pytest.approx(brier_score_loss(y_te, proba, labels=est.classes_))
        with np.errstate(divide="ignore"):
            lpd = np.log(proba[np.arange(len(y_te)), np.searchsorted(est.classes_, y_te)]).sum()
        assert float(row.lpd) == pytest.approx(lpd)
    assert int(ds.n_parameters.sel(name="mean")) == 9 + 10 * 63
    assert float(ds.accuracy.sel(name="mean")) > 0.85
    df = ds.to_dataframe()
    assert df.shape[0] == 5 and "brier" in df.columns


def test_all_estimates_keeps_what_the_family_computes():
    dcm = all_estimates(bnb.DirichletCompoundNB(prior_shape=2.0), map_params={"class_alpha": 3.0})
    assert list(dcm) == ["mle", "map", "mean"]  # no closed-form Pólya predictive: no "bayes"
    assert [e.estimate for e in dcm.values()] == ["mle", "map", "mean"]
    assert dcm["map"].class_alpha == 3.0 and dcm["mean"].class_alpha != 3.0
    assert all(e.prior_shape == 2.0 for e in dcm.values())
    assert list(all_estimates(bnb.GDA())) == ["mle", "map", "mean", "bayes"]


def test_compare_cross_validated(digits):
    X_tr, _, y_tr, _ = digits
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ds = compare({"nb": bnb.MultinomialNB()}, X_tr, y_tr, cv=cv, loo=False)
    assert ds.accuracy_folds.shape == (1, 3)
    manual = []
    for tr, te in cv.split(X_tr, y_tr):
        m = bnb.MultinomialNB().fit(X_tr[tr], y_tr[tr])
        manual.append(np.mean(m.predict(X_tr[te]) == y_tr[te]))
    np.testing.assert_allclose(ds.accuracy_folds.values[0], manual)
    assert float(ds.accuracy[0]) == pytest.approx(np.mean(manual))


def test_compare_bad_arguments(digits):
    X_tr, X_te, y_tr, y_te = digits
    with pytest.raises(TypeError, match="estimators"):
        compare([bnb.MultinomialNB()], X_tr, y_tr, X_te, y_te)
    with pytest.raises(ValueError, match="either X_test"):
        compare({"a": bnb.MultinomialNB()}, X_tr, y_tr)
    with pytest.raises(ValueError, match="y_test is required"):
        compare({"a": bnb.MultinomialNB()}, X_tr, y_tr, X_te)


# -- PSIS-LOO of the labels (bayesnb.loo) --------------------------------------------------------
def _hand_label_loglik(est, X, y, post, s: int) -> np.ndarray:
    """log p(y_i | x_i, θ_s) for every document, one loop per document and class."""
    from scipy.special import logsumexp
    from scipy.stats import multivariate_normal

    pi = post["class_prior"].values[0, s]
    kind = type(est).__name__
    out = []
    for x, label in zip(np.asarray(X, dtype=float), y, strict=True):
        joint = []
        for c in range(len(est.classes_)):
            lp = np.log(pi[c])
            if kind == "BernoulliNB":
                phi = post["feature_prob"].values[0, s, c]
                xb = (x > est.binarize).astype(float) if est.binarize is not None else x
                lp += np.sum(xb * np.log(phi) + (1 - xb) * np.log1p(-phi))
            elif kind == "MultinomialNB":
                lp += np.sum(x * np.log(post["feature_prob"].values[0, s, c]))
            elif kind == "CategoricalNB":
                theta = post["feature_prob"].values[0, s, c]
                for j, v in enumerate(x.astype(int)):
                    lp += np.log(theta[j, min(v, est.n_categories_[j])])
            else:
                mean = post["mean"].values[0, s, c]
                cov = post["cov"].values[0, s]
                cov = cov if cov.ndim == 2 else cov[c]
                lp += multivariate_normal(mean, cov).logpdf(x)
            joint.append(lp)
        joint = np.array(joint)
        out.append(joint[list(est.classes_).index(label)] - logsumexp(joint))
    return np.array(out)


@pytest.mark.parametrize(
    "make",
    [
        lambda: bnb.BernoulliNB(binarize=8.0),
        lambda: bnb.MultinomialNB(alpha=0.5),
        lambda: bnb.CategoricalNB(),
        lambda: bnb.GDA(),
        lambda: bnb.GDA(covariance="per_class"),
    ],
    ids=["bernoulli", "multinomial", "categorical", "gda-shared", "gda-per-class"],
)
def test_label_log_likelihood_by_hand(make, digits):
    X_tr, _, y_tr, _ = digits
    X, y = X_tr[:60], y_tr[:60]
    if "GDA" in repr(make()):
        from sklearn.datasets import load_wine

        X, y = load_wine(return_X_y=True)
    est = make().fit(X, y)
    tree = est.label_log_likelihood(X, y, draws=5, random_seed=7)
    ll = tree["log_likelihood"]["y"]
    assert ll.dims == ("chain", "draw", "doc") and ll.shape == (1, 5, len(y))
    assert list(tree["observed_data"]["y"].values) == [str(v) for v in y]
    # The draws are est.sample_posterior's for the same seed.
    post = est.sample_posterior(draws=5, chains=1, random_seed=np.random.default_rng(7))
    np.testing.assert_allclose(
        tree["posterior"]["class_prior"].values, post["posterior"]["class_prior"].values
    )
    for s in (0, 4):
        expected = _hand_label_loglik(est, X, y, post["posterior"], s)
        np.testing.assert_allclose(ll.values[0, s], expected, rtol=1e-9, atol=1e-9)
    assert np.all(ll.values <= 0)


def test_label_log_likelihood_blocks_and_seed(digits):
    X_tr, _, y_tr, _ = digits
    X, y = X_tr[:200], y_tr[:200]
    est = bnb.MultinomialNB().fit(X, y)
    from bayesnb.draws import posterior_draws
    from bayesnb.loo import label_log_likelihood_draws

    # About 2 draws per block: 3 blocks of posterior_draws from one generator.
    per_draw = 8.0 * (2 * 10 * 64 + 2 * 10 * 200)
    ll, pi = label_log_likelihood_draws(est, X, y, draws=5, random_seed=3, max_bytes=2 * per_draw)
    rng = np.random.default_rng(3)
    blocks = [posterior_draws(est, draws=m, chains=1, random_seed=rng) for m in (2, 2, 1)]
    theta = np.concatenate([b["feature_prob"][0] for b in blocks])
    np.testing.assert_allclose(pi, np.concatenate([b["class_prior"][0] for b in blocks]))
    codes = np.searchsorted(est.classes_, y)
    for s in range(5):
        joint = X @ np.log(theta[s]).T + np.log(pi[s])
        m = joint.max(axis=1, keepdims=True)
        lse = (m + np.log(np.exp(joint - m).sum(axis=1, keepdims=True)))[:, 0]
        np.testing.assert_allclose(ll[s], joint[np.arange(len(y)), codes] - lse, atol=1e-9)
    again, _ = label_log_likelihood_draws(est, X, y, draws=5, random_seed=3, max_bytes=2 * per_draw)
    np.testing.assert_array_equal(ll, again)


def test_label_log_likelihood_keeps_tiny_losses():
    # Two classes far apart: p(y | x) rounds to 1, but its log must stay a tiny negative
    # number (log1p), not 0, or PSIS is left with a constant tail.
    X = np.array([[30.0, 0.0], [29.0, 1.0], [0.0, 30.0], [1.0, 29.0]])
    y = np.array([0, 0, 1, 1])
    from bayesnb.loo import label_log_likelihood_draws

    ll, _ = label_log_likelihood_draws(bnb.MultinomialNB().fit(X, y), X, y, draws=50)
    assert np.all(ll < 0) and np.all(ll > -1e-6)


def test_compare_elpd_loo_matches_az_loo(digits):
    import arviz as az

    from bayesnb.model_selection import elpd_loo

    X_tr, X_te, y_tr, y_te = digits
    X_tr, y_tr = X_tr[:400], y_tr[:400]
    ests = all_estimates(bnb.BernoulliNB(binarize=8.0), map_params={"alpha": 2.0})
    # PSIS-LOO for the rows given posterior draws (exact draws here; NUTS fits in practice).
    trees = {
        name: ests[name].fit(X_tr, y_tr).sample_posterior(draws=300, chains=1, random_seed=1)
        for name in ("mean", "map")
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pareto-k warnings (tested below)
        ds = compare(ests, X_tr, y_tr, X_te, y_te, posteriors=trees)
        for name in ("mean", "map"):
            est = ests[name].fit(X_tr, y_tr)
            tree = est.label_log_likelihood(X_tr, y_tr, posterior=trees[name])
            loo = az.loo(tree, var_name="y")
            assert ds.loo_method.sel(name=name).item() == "psis"
            assert float(ds.elpd_loo.sel(name=name)) == pytest.approx(loo.elpd, rel=1e-9)
            assert float(ds.elpd_loo_se.sel(name=name)) == pytest.approx(loo.se, rel=1e-6)
            # Documents whose log-likelihood spreads by under 1e-6 nats over the draws have
            # uniform weights to that precision; their k (scale-free, fitted to differences
            # of 1e-7) means nothing and bayesnb.loo.psis_loo sets it to 0.
            ll = tree["log_likelihood"]["y"].values[0]
            spread = ll.max(axis=0) - ll.min(axis=0)
            bad = np.sum((loo.pareto_k.values > loo.good_k) & (spread > 1e-6))
            assert float(ds.pareto_k_bad.sel(name=name)) == bad
    # The closed-form rows without a tree: exact LOO of their own estimate, no Pareto k.
    for name in ("mle", "bayes"):
        assert ds.loo_method.sel(name=name).item() == "exact"
        assert float(ds.elpd_loo.sel(name=name)) == elpd_loo(ests[name], X_tr, y_tr).elpd
        assert np.isnan(float(ds.pareto_k_bad.sel(name=name)))
    # PSIS over the α = 1 posterior against the exact LOO of its predictive ("bayes" equals
    # the mean for Bernoulli): the gap the Pareto-k-flagged documents open.
    elpd = ds.elpd_loo.to_series()
    assert elpd["mean"] == pytest.approx(
        elpd["bayes"], abs=3 * float(ds.elpd_loo_se.sel(name="bayes"))
    )
    # Held-out and leave-one-out log density per document agree roughly.
    assert elpd["bayes"] / len(y_tr) == pytest.approx(
        float(ds.lpd.sel(name="bayes")) / len(y_te), abs=0.3
    )


@pytest.mark.filterwarnings("ignore:Estimated shape parameter of Pareto:UserWarning")
def test_psis_loo_constant_documents():
    import arviz as az

    from bayesnb.loo import psis_loo

    rng = np.random.default_rng(0)
    s, n = 400, 12
    ll = -np.exp(rng.normal(-1.0, 0.8, size=(1, s, n)))
    ll[..., :3] = -0.25  # predicted with the same probability by every draw
    ll[..., 3] = -1e-17 * (1 + rng.random(s))  # spread far below 1e-6 nats

    def tree(values):
        return az.from_dict(
            {"posterior": {"a": rng.normal(size=(1, s))}, "log_likelihood": {"y": values}},
            dims={"y": ["doc"]},
        )

    loo = psis_loo(tree(ll))
    rest = az.loo(tree(ll[..., 4:]), var_name="y", pointwise=True)
    const = 3 * -0.25 + np.mean(ll[0, :, 3])
    assert loo.elpd == pytest.approx(rest.elpd + const, rel=1e-9)
    np.testing.assert_array_equal(loo.pareto_k.values[:4], 0.0)
    np.testing.assert_allclose(loo.pareto_k.values[4:], rest.pareto_k.values)
    np.testing.assert_allclose(loo.elpd_i.values[:3], -0.25)


def test_compare_names_pareto_warnings(digits):
    X_tr, X_te, y_tr, y_te = digits
    tree = bnb.MultinomialNB().fit(X_tr[:300], y_tr[:300]).sample_posterior(200, chains=1)
    with pytest.warns(UserWarning, match=r"^MultinomialNB: .*Pareto"):
        compare(
            {"nb": bnb.MultinomialNB()}, X_tr[:300], y_tr[:300], X_te, y_te,
            posteriors={"nb": tree},
        )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exact LOO: no Pareto k, no warning
        compare({"nb": bnb.MultinomialNB()}, X_tr[:300], y_tr[:300], X_te, y_te)


def test_label_log_likelihood_bad_arguments(digits):
    X_tr, _, y_tr, _ = digits
    est = bnb.MultinomialNB().fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="draws"):
        est.label_log_likelihood(X_tr, y_tr, draws=0)
    with pytest.raises(ValueError, match="labels not in classes"):
        est.label_log_likelihood(X_tr[:3], np.array([0, 1, 99]))
    from bayesnb.loo import label_log_likelihood

    with pytest.raises(TypeError, match="LogisticRegression"):
        label_log_likelihood(LogisticRegression(), X_tr, y_tr)


# -- scikit-learn baselines ------------------------------------------------------------------
def test_baselines_work_everywhere_in_compare(digits):
    from sklearn.naive_bayes import ComplementNB

    X_tr, X_te, y_tr, y_te = digits
    ests = {
        "nb": bnb.MultinomialNB(),
        "complement": ComplementNB(),
        "logreg": LogisticRegression(max_iter=2000),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pareto-k warnings of the posterior model
        ds = compare(ests, X_tr, y_tr, X_te, y_te, loo=True, loo_draws=100)
    # No statistics to downdate: the LOO columns are NaN for the baselines, exact for NB.
    for name in ("complement", "logreg"):
        for m in ("elpd_loo", "elpd_loo_se", "pareto_k_bad"):
            assert np.isnan(float(ds[m].sel(name=name))), (name, m)
    assert np.isfinite(float(ds.elpd_loo.sel(name="nb")))
    cnb = ComplementNB().fit(X_tr, y_tr)
    proba = cnb.predict_proba(X_te)
    row = ds.sel(name="complement")
    assert float(row.accuracy) == pytest.approx(np.mean(cnb.predict(X_te) == y_te))
    assert float(row.ece) == pytest.approx(expected_calibration_error(y_te, proba, cnb.classes_))
    lpd = np.log(proba[np.arange(len(y_te)), np.searchsorted(cnb.classes_, y_te)]).sum()
    assert float(row.lpd) == pytest.approx(lpd)
    # ComplementNB: 10 complement word distributions over 64 pixels (its class prior is not
    # used for 10 classes); logistic regression: 10 × 64 coefficients + 10 intercepts.
    assert float(ds.n_parameters.sel(name="complement")) == 10 * 63
    assert float(ds.n_parameters.sel(name="logreg")) == 10 * 64 + 10
    assert float(ds.n_parameters.sel(name="nb")) == 9 + 10 * 63
    # Cross-validated, with LOO: the baselines' LOO folds are NaN too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = compare(
            {"complement": ComplementNB(), "nb": bnb.MultinomialNB()},
            X_tr[:300],
            y_tr[:300],
            cv=2,
            loo=True,
            loo_draws=50,
        )
    assert np.isnan(cv.elpd_loo_folds.sel(name="complement")).all()
    assert np.isfinite(cv.elpd_loo_folds.sel(name="nb")).all()


def test_n_parameters_of_foreign_models(digits):
    from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB
    from sklearn.neighbors import KNeighborsClassifier

    from bayesnb.comparison import n_parameters

    X_tr, _, y_tr, _ = digits
    assert n_parameters(GaussianNB().fit(X_tr, y_tr)) == 9 + 2 * 10 * 64
    assert n_parameters(BernoulliNB().fit(X_tr, y_tr)) == 9 + 10 * 64
    Xc = np.array([[0, 1], [1, 2], [2, 0], [1, 1]])
    sk_cat = CategoricalNB().fit(Xc, [0, 0, 1, 1])  # 3 values each: 2 free per feature
    assert n_parameters(sk_cat) == 1 + 2 * (2 + 2)
    assert np.isnan(n_parameters(KNeighborsClassifier().fit(X_tr, y_tr)))


def test_compare_refuses_a_model_without_predict_proba(digits):
    from sklearn.svm import SVC

    X_tr, X_te, y_tr, y_te = digits
    with pytest.raises(TypeError, match=r"'svm'.*no predict_proba.*probability=True"):
        compare({"nb": bnb.MultinomialNB(), "svm": SVC()}, X_tr, y_tr, X_te, y_te)


def test_cli_compare_with_baselines(capsys):
    from bayesnb.cli import main

    rc = main(
        ["compare", "--data", "digits", "multinomial:mean", "complement", "logistic",
         "sklearn:GaussianNB", "--no-loo"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert rc == 0, err
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for name in ("multinomial:mean", "complement", "logistic", "sklearn:GaussianNB"):
        assert name in lines
    # The printed accuracy is ComplementNB's on the CLI's split (digits, seed 0, 30%).
    from sklearn.naive_bayes import ComplementNB

    from bayesnb.cli import load_data

    data = load_data("digits")
    acc = np.mean(
        ComplementNB().fit(data.X_train, data.y_train).predict(data.X_test) == data.y_test
    )
    assert float(lines["complement"][1]) == pytest.approx(acc, abs=5e-5)
    # Baselines on continuous data are standardised like GDA: logistic regression runs.
    assert main(["compare", "--data", "wine", "gda:mean", "logistic", "--no-loo"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sklearn:NoSuchModel"], "unknown scikit-learn classifier 'NoSuchModel'"),
        (["sklearn:VotingClassifier"], "cannot build VotingClassifier"),
        (["sklearn:RidgeClassifier"], "RidgeClassifier has no predict_proba"),
        (["complemnt"], "unknown model 'complemnt'"),
    ],
)
def test_cli_compare_bad_baselines_exit_2(argv, message, capsys):
    from bayesnb.cli import main

    rc = main(["compare", "--data", "digits", *argv, "--no-loo"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.startswith("bayesnb: error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_compare_baseline_that_cannot_fit_exits_2(capsys):
    from bayesnb.cli import main

    # ComplementNB refuses the negative (standardised) wine measurements: a clean error.
    rc = main(["compare", "--data", "wine", "complement", "--no-loo"])
    _, err = capsys.readouterr()
    assert rc == 2 and "Negative values" in err and len(err.strip().splitlines()) == 1


def test_a_failing_estimator_is_recorded_in_its_row_and_the_table_goes_on():
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    import bayesnb as bnb

    rng = np.random.default_rng(0)
    z = rng.normal(size=(60, 2))
    X = np.hstack([z, z])  # collinear: a QDA with no regularisation cannot invert Σ_c
    y = np.repeat([0, 1, 2], 20)
    X = X + y[:, None]

    class Broken(QuadraticDiscriminantAnalysis):
        def fit(self, X, y):
            raise np.linalg.LinAlgError("singular matrix")

    ests = {"gda": bnb.GDA(), "qda": Broken()}
    with pytest.warns(UserWarning, match="'qda' failed: singular matrix"):
        ds = bnb.compare(ests, X[::2], y[::2], X[1::2], y[1::2])
    assert str(ds.error.sel(name="qda").values) == "singular matrix"
    assert str(ds.error.sel(name="gda").values) == ""
    assert np.isnan(float(ds.accuracy.sel(name="qda")))
    gda = bnb.GDA().fit(X[::2], y[::2])
    assert float(ds.accuracy.sel(name="gda")) == np.mean(gda.predict(X[1::2]) == y[1::2])
    # nll is the unclipped mean negative log-likelihood; log_loss is sklearn's
    p = gda.predict_proba(X[1::2])[np.arange(30), y[1::2]]
    assert float(ds.nll.sel(name="gda")) == pytest.approx(-np.mean(np.log(p)), rel=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        bnb.compare({"qda": Broken()}, X[::2], y[::2], X[1::2], y[1::2])


def test_compare_nll_is_unclipped_where_log_loss_clips():
    import bayesnb as bnb

    rng = np.random.default_rng(1)
    X = rng.poisson(3.0, size=(80, 30)).astype(float)
    y = np.repeat([0, 1], 40)
    X[y == 1, :5] += 40  # long, very distinct documents: confident and sometimes wrong
    X[:40:7, :5] += 40
    ds = bnb.compare({"m": bnb.MultinomialNB()}, X[::2], y[::2], X[1::2], y[1::2])
    m = bnb.MultinomialNB().fit(X[::2], y[::2])
    logp = m.predict_log_proba(X[1::2])[np.arange(40), y[1::2]]
    assert float(ds.nll.sel(name="m")) == pytest.approx(-np.mean(logp), rel=1e-10)
    assert float(ds.nll.sel(name="m")) > float(ds.log_loss.sel(name="m"))  # sklearn clips
