"""``bayesnb compare --cv N|loo``: cross-validated columns through the exact path.

The printed numbers equal :func:`bayesnb.model_selection.cross_val_predict`'s (one fit, folds
subtracted) and scikit-learn's refits (``sklearn.model_selection.cross_val_predict``) on the
same folds; bad ``--cv`` values exit 2 with one line.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import LeaveOneOut, StratifiedKFold
from sklearn.model_selection import cross_val_predict as sk_cross_val_predict
from sklearn.preprocessing import StandardScaler

import bayesnb as bnb
from bayesnb.cli import load_data, main
from bayesnb.cli.compare import cross_validated
from bayesnb.model_selection import cross_val_predict, elpd_loo


def _table(out: str) -> dict[str, list[str]]:
    """Printed rows by name (the header and the notes left out)."""
    lines = [line.split() for line in out.splitlines()[2:] if line.strip()]
    return {cells[0]: cells for cells in lines if not cells[0].startswith(("elpd_loo:", "("))}


def _expected(log_p: np.ndarray, y) -> dict[str, float]:
    classes = np.unique(y)
    codes = np.searchsorted(classes, y)
    point = log_p[np.arange(len(y)), codes]
    return {
        "accuracy": float(np.mean(log_p.argmax(axis=1) == codes)),
        "log_loss": float(log_loss(y, np.exp(log_p), labels=classes)),
        "elpd": float(point.sum()),
        "elpd_se": float(np.sqrt(len(y) * np.var(point))),
    }


def _check_printed(cells: list[str], exp: dict[str, float]) -> None:
    acc, loss, elpd, se = (float(c) for c in cells[-4:])
    assert acc == pytest.approx(exp["accuracy"], abs=5e-5)
    assert loss == pytest.approx(exp["log_loss"], abs=5e-5)
    assert elpd == pytest.approx(exp["elpd"], abs=0.05)
    assert se == pytest.approx(exp["elpd_se"], abs=0.05)


def test_cv_folds_equal_model_selection_and_refits(capsys):
    rc = main(
        ["compare", "--data", "digits", "multinomial:bayes", "bernoulli:mean", "complement",
         "--cv", "5", "--no-loo"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "5-fold stratified cross-validation on all 1797" in out
    rows = _table(out)
    data = load_data("digits")
    X, y = data.X, data.y
    folds = StratifiedKFold(5, shuffle=True, random_state=0)  # --seed 0
    ests = {
        "multinomial:bayes": bnb.MultinomialNB(estimate="bayes"),
        "bernoulli:mean": bnb.BernoulliNB(binarize=8.0),
    }
    table = cross_validated(ests, X, y, 5, seed=0)
    for name, est in ests.items():
        ours = cross_val_predict(est, X, y, cv=folds, method="predict_log_proba")
        refit = sk_cross_val_predict(est, X, y, cv=folds, method="predict_log_proba")
        np.testing.assert_allclose(ours, refit, rtol=0, atol=1e-10)
        exp = _expected(refit, y)
        for key, value in exp.items():
            assert table[name][key] == pytest.approx(value, rel=1e-12, abs=1e-10), (name, key)
        _check_printed(rows[name], exp)
    # The baseline is refitted per fold, on the same folds.
    from sklearn.naive_bayes import ComplementNB

    refit = sk_cross_val_predict(ComplementNB(), X, y, cv=folds, method="predict_log_proba")
    _check_printed(rows["complement"], _expected(refit, y))


def test_cv_loo_equals_exact_loo_and_refits(capsys):
    rc = main(["compare", "--data", "iris", "gda:mean", "gda:bayes", "logistic", "--cv", "loo"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "leave-one-out cross-validation on all 150" in out
    rows = _table(out)
    data = load_data("iris")
    X = StandardScaler().fit_transform(data.X)  # continuous: standardised, as the CLI does
    y = data.y
    for name, est in {
        "gda:mean": bnb.GDA(estimate="mean"),
        "gda:bayes": bnb.GDA(estimate="bayes"),
    }.items():
        ours = cross_val_predict(est, X, y, cv=LeaveOneOut(), method="predict_log_proba")
        refit = sk_cross_val_predict(est, X, y, cv=LeaveOneOut(), method="predict_log_proba")
        np.testing.assert_allclose(ours, refit, rtol=0, atol=1e-10)
        exp = _expected(refit, y)
        # Leave-one-out's ELPD is elpd_loo's on all documents.
        assert exp["elpd"] == pytest.approx(elpd_loo(est, X, y).elpd, abs=1e-9)
        _check_printed(rows[name], exp)
    # No exact leave-one-out for a baseline (it would refit once per document).
    assert rows["logistic"][-4:] == ["-"] * 4
    # The training-set column is the exact LOO of the split's training part.
    assert "elpd_loo: exact leave-one-out" in out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1", "--cv must be N (N-fold stratified"),
        ("0", "got '0'"),
        ("-3", "got '-3'"),
        ("abc", "got 'abc'"),
        ("2.5", "got '2.5'"),
        ("51", "--cv 51: stratified folds need at least 51 documents in every class"),
    ],
)
def test_bad_cv_exits_2(value, message, capsys):
    rc = main(["compare", "--data", "iris", "gda", "--cv", value])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.startswith("bayesnb: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cv_help(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = capsys.readouterr().out
    assert "--cv N|loo" in out and "leave-one-out" in out
    assert "exact leave-one-out ELPD of the training labels" in " ".join(out.split())
