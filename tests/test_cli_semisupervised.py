"""``bayesnb fit --unlabelled FOLDER``: the EM fit of the command line is the Python API's
(``SemiSupervisedNB`` on the same counts), λ = 0 is the supervised ``bayesnb fit``, the
saved model loads, predicts and is inspected as any other, and bad input exits 2."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer

import bayesnb as bnb
from bayesnb.cli import main
from tests.file_helpers import craft

WORDS = {
    "spam": "win money prize free offer click cash deal now".split(),
    "ham": "meeting lunch report project team notes monday plan".split(),
}
COMMON = "the a to and of for".split()
NEVER_LABELLED = "zebra quartz".split()  # only the unlabelled documents use them: dropped
pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")


def _texts(rng, label: str, n: int) -> list[str]:
    pool = WORDS[label] + COMMON
    return [" ".join(rng.choice(pool, size=rng.integers(4, 12))) for _ in range(n)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    """Three labelled mails per class, and 60 unlabelled ones in nested folders."""
    root = tmp_path_factory.mktemp("em")
    rng = np.random.default_rng(3)
    labelled = root / "labelled"
    for label in WORDS:
        (labelled / label).mkdir(parents=True)
        for i, text in enumerate(_texts(rng, label, 3)):
            (labelled / label / f"{i}.txt").write_text(text)
    pool = root / "pool"
    for i in range(60):
        where = pool / ("" if i % 3 else f"spam/{i % 2}")  # a class-like name is ignored
        where.mkdir(parents=True, exist_ok=True)
        text = _texts(rng, ("spam", "ham")[i % 2], 1)[0] + " " + NEVER_LABELLED[i % 2]
        (where / f"u{i:02d}.txt").write_text(text)
    (pool / ".hidden").write_text("never read")
    return labelled, pool


def _run(argv, capsys) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _reference_counts(labelled: Path, pool: Path):
    """X, y of the labelled folder and X of the pool, counted without the command line."""
    files = sorted(p for p in labelled.glob("*/*.txt"))
    texts, y = [p.read_text() for p in files], np.array([p.parent.name for p in files])
    vec = CountVectorizer().fit(texts)
    unl = sorted(p for p in pool.rglob("*") if p.is_file() and not p.name.startswith("."))
    return vec.transform(texts), y, vec.transform([p.read_text() for p in unl]), vec


def _semi(Xl, yl, Xu):
    """X and y of the Python fit: the labelled rows, then the unlabelled ones marked ``""``."""
    return sp.vstack([Xl, Xu]).tocsr(), np.concatenate([yl, np.full(Xu.shape[0], "")])


def _fit(model, corpus, tmp_path, capsys, *extra) -> tuple[Path, str]:
    labelled, pool = corpus
    path = tmp_path / f"{model}.nc"
    argv = ["fit", model, "--data", labelled, "--unlabelled", pool, "--out", path, *extra]
    rc, out, err = _run(argv, capsys)
    assert rc == 0, err
    return path, out


ESTIMATORS = {
    "multinomial": lambda: bnb.MultinomialNB(alpha=2.0, estimate="map"),
    "bernoulli": lambda: bnb.BernoulliNB(alpha=2.0, estimate="map", binarize=0.0),
}


@pytest.mark.parametrize(
    ("model", "weight", "max_iter"), [("multinomial", "0.5", None), ("bernoulli", "1", "2")]
)
def test_em_fit_equals_the_python_api(model, weight, max_iter, corpus, tmp_path, capsys):
    extra = ["--estimate", "map", "--alpha", "2", "--unlabelled-weight", weight]
    extra += [] if max_iter is None else ["--max-iter", max_iter]
    path, out = _fit(model, corpus, tmp_path, capsys, *extra)
    got = bnb.load(path)
    Xl, yl, Xu, vec = _reference_counts(*corpus)
    em = bnb.SemiSupervisedNB(
        ESTIMATORS[model](), unlabelled_weight=float(weight), max_iter=int(max_iter or 100)
    )
    with pytest.warns(ConvergenceWarning) if max_iter else contextlib.nullcontext():
        em.fit(*_semi(Xl, yl, Xu))
    ref = em.estimator_
    assert list(got.feature_names_in_) == list(vec.get_feature_names_out())
    assert_array_equal(got.classes_, ref.classes_)
    assert_allclose(got.class_count_, ref.class_count_, rtol=1e-12)
    assert_allclose(got.feature_count_, ref.feature_count_, rtol=1e-12)
    X = sp.vstack([Xl, Xu]).tocsr()
    assert_allclose(got.predict_proba(X), ref.predict_proba(X), rtol=1e-12, atol=1e-15)
    # EM moved the model: the unlabelled documents count.
    sup = ESTIMATORS[model]().fit(Xl, yl)
    assert np.abs(got.predict_proba(Xu) - sup.predict_proba(Xu)).max() > 1e-3
    assert_allclose(got.class_count_.sum(), 6 + float(weight) * 60, rtol=1e-12)
    record = got.semisupervised_
    assert record["n_unlabelled"] == 60
    assert record["unlabelled_weight"] == float(weight)
    assert record["n_iter"] == em.n_iter_ and record["converged"] == em.converged_
    assert record["converged"] == (max_iter is None)
    assert_allclose(record["log_posterior"], em.log_posterior_[-1], rtol=1e-12)
    assert_allclose(record["log_posterior_start"], em.log_posterior_[0], rtol=1e-12)
    assert record["log_posterior"] > record["log_posterior_start"]
    ended = "converged" if max_iter is None else "not converged"
    assert (
        f"fitted by EM with 60 unlabelled documents (unlabelled_weight λ={float(weight):g}; " in out
    )
    assert f"{em.n_iter_} iterations of at most {em.max_iter}, {ended}" in out
    assert "on 6 labelled documents × " in out and out.splitlines()[-1] == f"saved: {path}"


def test_zero_weight_is_the_supervised_fit(corpus, tmp_path, capsys):
    labelled, _ = corpus
    options = ["--estimate", "map", "--alpha", "1.5"]
    path, out = _fit("multinomial", corpus, tmp_path, capsys, *options, "--unlabelled-weight", "0")
    supervised = tmp_path / "supervised.nc"  # streamed from disk, as a corpus folder is
    argv = ["fit", "multinomial", "--data", labelled, *options, "--out", supervised]
    rc, _, err = _run(argv, capsys)
    assert rc == 0, err
    got, ref = bnb.load(path), bnb.load(supervised)
    assert got.get_params() == ref.get_params()
    assert list(got.feature_names_in_) == list(ref.feature_names_in_)
    assert got.vectorizer_params_ == ref.vectorizer_params_
    assert_array_equal(got.classes_, ref.classes_)
    assert_array_equal(got.class_count_, ref.class_count_)
    assert_array_equal(got.feature_count_, ref.feature_count_)
    Xl, _, Xu, _ = _reference_counts(*corpus)
    X = sp.vstack([Xl, Xu]).tocsr()
    assert_allclose(got.predict_proba(X), ref.predict_proba(X), rtol=1e-12, atol=0)
    assert got.semisupervised_["n_iter"] == 0 and got.semisupervised_["converged"]
    assert "0 iterations of at most 100, converged" in out


@pytest.mark.parametrize(("rule", "folds"), [("loo", "leave-one-out"), ("cv", "3-fold")])
def test_weight_by_cv_is_recorded_and_loaded(corpus, tmp_path, capsys, rule, folds):
    extra = ["--estimate", "map", "--alpha", "2", "--unlabelled-weight", rule]
    path, out = _fit("multinomial", corpus, tmp_path, capsys, *extra)
    got = bnb.load(path)
    Xl, yl, Xu, _ = _reference_counts(*corpus)
    em = bnb.SemiSupervisedNB(ESTIMATORS["multinomial"](), unlabelled_weight=rule)
    em.fit(*_semi(Xl, yl, Xu))
    record = got.semisupervised_
    assert record["unlabelled_weight_rule"] == rule
    assert record["loo_n_splits"] == (6 if rule == "loo" else 3)  # 2 classes of 3 documents
    assert record["unlabelled_weight"] == em.unlabelled_weight_
    assert record["loo_unlabelled_weight"] == list(em.loo_curve_["unlabelled_weight"])
    assert_allclose(record["loo_elpd"], em.loo_curve_["elpd_cv"], rtol=1e-12)
    assert record["loo_alpha"] == [2.0] * len(record["loo_elpd"])
    assert_allclose(got.class_count_.sum(), 6 + em.unlabelled_weight_ * 60, rtol=1e-12)
    best = max(record["loo_elpd"])
    assert (
        f"λ={em.unlabelled_weight_:g} chosen by {folds}"
        f"{' cross-validation' if rule == 'cv' else ''} of EM over the labelled documents "
        f"among 6 values, elpd {best:.6g}; " in out
    )
    rc, shown, err = _run(["inspect", path], capsys)
    assert rc == 0, err
    assert f"among 6 values, elpd {best:.6g}" in shown


def test_saved_em_model_predicts_and_is_inspected(corpus, tmp_path, capsys):
    path, _ = _fit("multinomial", corpus, tmp_path, capsys, "--estimate", "map", "--alpha", "2")
    model = bnb.load(path)
    new = tmp_path / "new"
    new.mkdir()
    texts = ["free cash prize now zebra", "team lunch monday", "the a to"]
    for i, text in enumerate(texts):
        (new / f"{i}.txt").write_text(text)
    csv = tmp_path / "p.csv"
    rc, _, err = _run(["predict", path, "--data", new, "--out", csv], capsys)
    assert rc == 0, err
    frame = pd.read_csv(csv)
    X = CountVectorizer(vocabulary=list(model.feature_names_in_)).transform(texts)
    proba = frame[[f"proba_{c}" for c in model.classes_]].to_numpy()
    assert_allclose(proba, model.predict_proba(X), rtol=1e-12, atol=1e-15)
    assert list(frame["predicted"][:2]) == ["spam", "ham"]
    rc, out, err = _run(["inspect", path], capsys)
    assert rc == 0, err
    record = model.semisupervised_
    line = next(s for s in out.splitlines() if s.startswith("fitted by EM"))
    assert line.startswith(
        f"fitted by EM with 60 unlabelled documents (unlabelled_weight λ=1; "
        f"{record['n_iter']} iterations of at most 100, converged; log posterior "
        f"{record['log_posterior']:.6g} from {record['log_posterior_start']:.6g})"
    )
    assert f"log evidence (of the statistics): {model.log_evidence():.6g}" in out


def test_a_record_that_is_not_data_is_refused(corpus, tmp_path, capsys):
    import json

    path, _ = _fit("multinomial", corpus, tmp_path, capsys, "--estimate", "mle")

    def edit(tree):
        fitted = json.loads(tree.attrs["fitted"])
        fitted["semisupervised"] = {"n_iter": {"nested": 1}}
        tree.attrs["fitted"] = json.dumps(fitted, sort_keys=True)

    bad = craft(path, tmp_path / "bad.nc", edit)
    with pytest.raises(ValueError, match="its 'semisupervised' record is not an object"):
        bnb.load(bad)


# case -> (argv, the message); "@x" stands for a path made by the test: the labelled corpus,
# the unlabelled pool, a folder without documents, a CSV file with numeric labels, a missing
# folder, a glob pattern.
EM = ["--unlabelled", "@pool", "--estimate", "map"]
FIT = ["fit", "multinomial", "--data", "@labelled"]
BAD = {
    "missing folder": ([*FIT, "--unlabelled", "@nowhere"], "@nowhere': no such folder"),
    "a file": ([*FIT, "--unlabelled", "@numeric"], "is a file, not a folder of documents"),
    "empty folder": ([*FIT, "--unlabelled", "@empty"], "holds no documents"),
    "negative weight": (
        [*FIT, *EM, "--unlabelled-weight", "-0.5"],
        "--unlabelled-weight must be a finite number >= 0, 'cv' or 'loo', got '-0.5'",
    ),
    "weight not a number": ([*FIT, *EM, "--unlabelled-weight", "x"], "got 'x'"),
    "weight without folder": ([*FIT, "--unlabelled-weight", "1"], "--unlabelled FOLDER"),
    "zero iterations": ([*FIT, *EM, "--max-iter", "0"], "--max-iter must be an integer >= 1"),
    "estimate mean": (
        [*FIT, "--unlabelled", "@pool"],
        "runs EM to the MAP or the MLE: estimate='mean' is refused",
    ),
    "learned alpha": (
        ["fit", "poisson", "--data", "@labelled", *EM],
        "needs a fixed prior: alpha='evidence'",
    ),
    "learned temperature": ([*FIT, *EM, "--temperature", "loo"], "temperature='loo'"),
    "nuts": ([*FIT, *EM, "--nuts"], "--nuts does not go with --unlabelled"),
    "hashed": ([*FIT, *EM, "--hash-features", "64"], "--hash-features does not go"),
    "glob": (["fit", "multinomial", "--data", "@glob", *EM], "not the glob pattern"),
    "not text": (
        ["fit", "multinomial", "--data", "digits", *EM],
        "--unlabelled takes text documents; --data 'digits' holds counts",
    ),
    "label -1": (
        ["fit", "multinomial", "--data", "@numeric", *EM],
        "a label of --data marks an unlabelled row",
    ),
    "inference without folder": ([*FIT, "--inference", "vb"], "--inference: options of a fit"),
    "cv without folder": ([*FIT, "--cv", "3"], "--cv: options of a fit on unlabelled"),
    "bad inference": ([*FIT, *EM, "--inference", "gibbs"], "--inference must be em or vb"),
    "cv without weight cv": (
        [*FIT, *EM, "--cv", "3"],
        "--cv '3' gives the folds of --unlabelled-weight cv, got --unlabelled-weight None",
    ),
    "cv with weight loo": (
        [*FIT, *EM, "--unlabelled-weight", "loo", "--cv", "3"],
        "got --unlabelled-weight 'loo'",
    ),
    "cv one fold": ([*FIT, *EM, "--unlabelled-weight", "cv", "--cv", "1"], "got '1'"),
    "cv not a number": ([*FIT, *EM, "--unlabelled-weight", "cv", "--cv", "x"], "got 'x'"),
    "cv too many folds": (
        [*FIT, *EM, "--unlabelled-weight", "cv", "--cv", "4"],
        "cannot be fitted by EM",
    ),
}


def _paths(tmp: Path, labelled: Path, pool: Path) -> dict[str, str]:
    empty = tmp / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / ".only-hidden").write_text("x")
    numeric = tmp / "numeric.csv"
    texts = ["free cash", "team lunch"] * 2
    pd.DataFrame({"label": [-1, 1, -1, 1], "text": texts}).to_csv(numeric, index=False)
    paths = {"labelled": labelled, "pool": pool, "empty": empty, "numeric": numeric}
    paths |= {"nowhere": tmp / "nowhere", "glob": tmp / "*.csv"}
    return {f"@{k}": str(v) for k, v in paths.items()}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_two_with_one_line(case, corpus, tmp_path, capsys):
    paths = _paths(tmp_path, *corpus)
    argv, expected = BAD[case]
    argv = [paths.get(a, a) for a in argv]
    expected = next((expected.replace(k, v) for k, v in paths.items() if k in expected), expected)
    out_file = tmp_path / "m.nc"
    out_file.write_bytes(b"an earlier model")  # never overwritten by a failed fit
    rc, out, err = _run([*argv, "--out", out_file], capsys)
    assert rc == 2, (case, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("bayesnb: error: "), (case, err)
    assert expected in lines[0], (case, lines[0])
    assert out == "" and out_file.read_bytes() == b"an earlier model"


@pytest.mark.parametrize(("model", "estimate"), [("multinomial", "mean"), ("bernoulli", "map")])
def test_vb_fit_equals_the_python_api(model, estimate, corpus, tmp_path, capsys):
    extra = ["--inference", "vb", "--estimate", estimate, "--alpha", "2"]
    path, out = _fit(model, corpus, tmp_path, capsys, *extra, "--unlabelled-weight", "0.5")
    got = bnb.load(path)
    Xl, yl, Xu, _ = _reference_counts(*corpus)
    est = ESTIMATORS[model]().set_params(estimate=estimate)
    vb = bnb.SemiSupervisedNB(est, unlabelled_weight=0.5, inference="vb")
    vb.fit(*_semi(Xl, yl, Xu))
    X = sp.vstack([Xl, Xu]).tocsr()
    assert got.estimate == estimate
    assert_allclose(got.predict_proba(X), vb.estimator_.predict_proba(X), rtol=1e-12, atol=1e-15)
    # VB is not EM: the same data, another model.
    em = bnb.SemiSupervisedNB(ESTIMATORS[model](), unlabelled_weight=0.5)
    em.fit(*_semi(Xl, yl, Xu))
    assert np.abs(got.feature_count_ - em.estimator_.feature_count_).max() > 1e-3
    record = got.semisupervised_
    assert record["inference"] == "vb" and "log_posterior" not in record
    assert record["n_iter"] == vb.n_iter_ > 0 and record["converged"] == vb.converged_ is True
    assert_allclose(record["elbo"], vb.elbo_[-1], rtol=1e-12)
    assert_allclose(record["elbo_start"], vb.elbo_[0], rtol=1e-12)
    assert record["elbo"] > record["elbo_start"]
    line = (
        f"fitted by VB with 60 unlabelled documents (unlabelled_weight λ=0.5; {vb.n_iter_} "
        f"iterations of at most 100, converged; ELBO {record['elbo']:.6g} from "
        f"{record['elbo_start']:.6g})"
    )
    assert line in out
    rc, shown, err = _run(["inspect", path], capsys)
    assert rc == 0, err
    assert line in shown


@pytest.mark.parametrize(("cv", "splits", "folds"), [("3", 3, "3-fold"), ("2", 2, "2-fold")])
def test_cv_folds_are_the_python_api(corpus, tmp_path, capsys, cv, splits, folds):
    extra = ["--estimate", "map", "--alpha", "2", "--unlabelled-weight", "cv", "--cv", cv]
    path, out = _fit("multinomial", corpus, tmp_path, capsys, *extra)
    record = bnb.load(path).semisupervised_
    Xl, yl, Xu, _ = _reference_counts(*corpus)
    em = bnb.SemiSupervisedNB(ESTIMATORS["multinomial"](), unlabelled_weight="cv", cv=int(cv))
    em.fit(*_semi(Xl, yl, Xu))
    assert record["cv"] == int(cv) and record["loo_n_splits"] == splits
    assert em.loo_curve_["n_splits"] == splits
    assert record["unlabelled_weight"] == em.unlabelled_weight_
    assert_allclose(record["loo_elpd"], em.loo_curve_["elpd_cv"], rtol=1e-12)
    assert f"chosen by {folds} cross-validation of EM over the labelled documents" in out


def test_cv_loo_is_leave_one_out(corpus, tmp_path, capsys):
    extra = ["--estimate", "map", "--alpha", "2", "--unlabelled-weight", "cv", "--cv", "loo"]
    path, out = _fit("multinomial", corpus, tmp_path, capsys, *extra)
    record = bnb.load(path).semisupervised_
    Xl, yl, Xu, _ = _reference_counts(*corpus)
    em = bnb.SemiSupervisedNB(ESTIMATORS["multinomial"](), unlabelled_weight="loo")
    em.fit(*_semi(Xl, yl, Xu))
    assert record["cv"] == "loo" and record["loo_n_splits"] == 6
    assert record["unlabelled_weight"] == em.unlabelled_weight_
    assert_allclose(record["loo_elpd"], em.loo_curve_["elpd_cv"], rtol=1e-12)
    assert "chosen by leave-one-out of EM over the labelled documents" in out


def test_a_record_of_an_older_file_is_em(corpus, tmp_path, capsys):
    import json

    path, _ = _fit("multinomial", corpus, tmp_path, capsys, "--estimate", "map")
    record = bnb.load(path).semisupervised_

    def edit(tree):  # an older record: no inference, cv or elbo keys
        fitted = json.loads(tree.attrs["fitted"])
        del fitted["semisupervised"]["inference"]
        tree.attrs["fitted"] = json.dumps(fitted, sort_keys=True)

    old = craft(path, tmp_path / "old.nc", edit)
    assert "inference" not in bnb.load(old).semisupervised_
    rc, out, err = _run(["inspect", old], capsys)
    assert rc == 0, err
    assert (
        f"fitted by EM with 60 unlabelled documents (unlabelled_weight λ=1; {record['n_iter']} "
        f"iterations of at most 100, converged; log posterior {record['log_posterior']:.6g} "
    ) in out
