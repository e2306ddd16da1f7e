"""The ``bayesnb`` command line: fit, report, compare; every bad input exits 2 (the demo:
test_cli_demo.py; predict and inspect: test_cli_predict.py, test_cli_inspect.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import bayesnb as bnb
from bayesnb import datasets
from bayesnb.cli import load_data, main

BAR = re.compile(r"^\[[#.]{24}\]\s+(\d+)/(\d+)\s+[\d.]+ s  \S")


def _corpus(path: Path, n: int = 120, labels=("spam", "ham")) -> Path:
    rng = np.random.default_rng(1)
    words = {
        labels[0]: "win money prize free offer click cash deal now".split(),
        labels[-1]: "meeting lunch report project team notes monday plan".split(),
    }
    common = "the a to and of for".split()
    rows = []
    for i in range(n):
        label = labels[i % len(labels)]
        text = rng.choice(words[label] + common, size=rng.integers(4, 15))
        rows.append({"label": label, "text": " ".join(text)})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(argv, capsys) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# -- help and usage ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], "demo"),
        (["demo", "--help"], "--no-nuts"),
        (["fit", "--help"], "--alpha"),
        (["predict", "--help"], "--estimate"),
        (["inspect", "--help"], "94% interval"),
        (["report", "--help"], "--out"),
        (["compare", "--help"], "MODEL[:ESTIMATE]"),
    ],
)
def test_help_on_every_command(argv, expected, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert expected in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate"],
        [],
        ["demo", "--no-such-flag"],
        ["fit", "frobnicatenb", "--data", "digits", "--out", "x.nc"],
        ["fit", "multinomial", "--out", "x.nc"],
        ["compare", "--data", "digits"],
    ],
)
def test_usage_errors_exit_two(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: bayesnb" in capsys.readouterr().err


# -- compare ----------------------------------------------------------------------------------
def test_compare_prints_the_table(capsys):
    rc, out, err = _run(
        ["compare", "--data", "digits", "multinomial", "bernoulli:mean", "--no-loo"], capsys
    )
    assert rc == 0, err
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and re.fullmatch(r"\w+:\w+", parts[0]):
            rows[parts[0]] = parts[1:]
    assert list(rows) == [
        "multinomial:mle",
        "multinomial:map",
        "multinomial:mean",
        "multinomial:bayes",
        "bernoulli:mean",
    ]
    # Numbers match a direct fit on the same split.
    data = load_data("digits")
    est = bnb.BernoulliNB(binarize=8.0).fit(data.X_train, data.y_train)
    acc = np.mean(est.predict(data.X_test) == data.y_test)
    assert float(rows["bernoulli:mean"][0]) == pytest.approx(acc, abs=5e-5)
    lp = est.predict_log_proba(data.X_test)[np.arange(len(data.y_test)), data.y_test]
    # columns: accuracy, log_loss (sklearn's, clipped), nll (unclipped), brier, ECE
    assert float(rows["bernoulli:mean"][2]) == pytest.approx(-lp.mean(), abs=5e-5)
    assert rows["multinomial:mle"][2] == "inf"
    assert float(rows["multinomial:mle"][1]) < 40  # clipped at machine epsilon
    assert "540 held-out documents" in out


def test_compare_poisson_and_dcm(capsys):
    rc, out, err = _run(["compare", "--data", "digits", "poisson", "dcm", "--no-loo"], capsys)
    assert rc == 0, err
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and re.fullmatch(r"\w+:\w+", parts[0]):
            rows[parts[0]] = parts[1:]
    # The DCM has no "bayes" (no closed-form predictive): three rows, not four.
    assert list(rows) == [
        "poisson:mle",
        "poisson:map",
        "poisson:mean",
        "poisson:bayes",
        "dcm:mle",
        "dcm:map",
        "dcm:mean",
    ]
    data = load_data("digits")
    idx = np.arange(len(data.y_test))
    # poisson defaults to alpha="evidence"; its numbers are those of a direct fit.
    pois = bnb.PoissonNB(alpha="evidence", estimate="bayes").fit(data.X_train, data.y_train)
    assert 1.0 < pois.alpha_ < 1.5
    acc = np.mean(pois.predict(data.X_test) == data.y_test)
    assert float(rows["poisson:bayes"][0]) == pytest.approx(acc, abs=5e-5)
    lp = pois.predict_log_proba(data.X_test)[idx, data.y_test].mean()
    assert -float(rows["poisson:bayes"][2]) == pytest.approx(lp, abs=5e-5)
    # the MAP entry uses the fixed shape 2 (a mode needs alpha >= 1), as multinomial's
    pmap = bnb.PoissonNB(alpha=2.0, class_alpha=2.0, estimate="map")
    pmap.fit(data.X_train, data.y_train)
    lp = pmap.predict_log_proba(data.X_test)[idx, data.y_test].mean()
    assert -float(rows["poisson:map"][2]) == pytest.approx(lp, abs=5e-5)
    dcm = bnb.DirichletCompoundNB(estimate="map").fit(data.X_train, data.y_train)
    lp = dcm.predict_log_proba(data.X_test)[idx, data.y_test].mean()
    assert -float(rows["dcm:map"][2]) == pytest.approx(lp, abs=5e-5)
    assert rows["poisson:mle"][2] == "inf" and rows["dcm:mle"][2] == "inf"


def test_compare_gda_with_loo(capsys):
    rc, out, err = _run(["compare", "--data", "wine", "gda:mean", "gda:bayes"], capsys)
    assert rc == 0, err
    line = next(x for x in out.splitlines() if x.startswith("gda:mean"))
    elpd = float(line.split()[6])
    assert np.isfinite(elpd) and elpd < 0


# -- fit and report ---------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_fit_and_report_on_a_csv_corpus(tmp_path, capsys):
    corpus = _corpus(tmp_path / "mail.csv")
    model = tmp_path / "models" / "mail.nc"
    rc, out, err = _run(
        ["fit", "multinomial", "--data", corpus, "--alpha", "evidence", "--out", model], capsys
    )
    assert rc == 0, err
    assert out.splitlines()[-1] == f"saved: {model}"
    assert "alpha=" in out and "120 documents" in out
    est = bnb.load(model)
    vocab = list(est.feature_names_in_)
    assert "money" in vocab and "meeting" in vocab
    # The stored vocabulary makes the file usable on new text.
    from sklearn.feature_extraction.text import CountVectorizer

    X_new = CountVectorizer(vocabulary=vocab).transform(["free money now", "team meeting monday"])
    assert list(est.predict(X_new)) == ["spam", "ham"]
    out_dir = tmp_path / "reports" / "mail"
    rc, out, err = _run(["report", model, "--data", corpus, "--out", out_dir, "--quick"], capsys)
    assert rc == 0, err
    assert out.splitlines()[-1] == f"report: {out_dir / 'index.html'}"
    page = (out_dir / "index.html").read_text(encoding="utf-8")
    assert 'id="saved-model"' in page and str(model) in page
    bars = [BAR.match(line) for line in err.splitlines()]
    assert all(bars) and bars[-1][1] == bars[-1][2]


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize(
    ("model", "cls", "estimate"),
    [
        ("poisson", "PoissonNB", "mean"),
        ("dcm", "DirichletCompoundNB", "map"),
    ],
)
def test_fit_and_report_poisson_and_dcm_on_digits(model, cls, estimate, tmp_path, capsys):
    path = tmp_path / f"{model}.nc"
    rc, out, err = _run(["fit", model, "--data", "digits", "--out", path], capsys)
    assert rc == 0, err
    assert f"fitted {cls} (estimate={estimate}" in out
    est = bnb.load(path)
    assert type(est).__name__ == cls and est.estimate == estimate
    data = load_data("digits")
    if model == "poisson":  # the default learns the Gamma shape
        assert est.alpha == "evidence"
        learned = bnb.PoissonNB(alpha="evidence").fit(data.X, data.y).alpha_
        assert est.alpha_ == pytest.approx(learned, rel=1e-12)
        assert f"alpha={learned:.4g}" in out
    ref = type(est)(**est.get_params()).fit(data.X, data.y)
    assert_allclose(est.predict_proba(data.X), ref.predict_proba(data.X), rtol=1e-10)
    acc = float(re.search(r"training accuracy ([\d.]+)", out)[1])
    assert acc == pytest.approx(np.mean(ref.predict(data.X) == data.y), abs=5e-5)
    rc, out, err = _run(
        ["report", path, "--data", "digits", "--out", tmp_path / "rep", "--quick"], capsys
    )
    assert rc == 0, err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert 'id="saved-model"' in page and cls in page
    assert 'id="failures"' not in page


def test_fit_gda_and_report(tmp_path, capsys):
    model = tmp_path / "wine.nc"
    rc, _, err = _run(["fit", "gda", "--data", "wine", "--out", model], capsys)
    assert rc == 0, err
    assert isinstance(bnb.load(model), bnb.GDA)
    rc, _, err = _run(
        ["report", model, "--data", "wine", "--out", tmp_path / "rep", "--quick"], capsys
    )
    assert rc == 0, err
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert 'id="gda"' in page and 'id="failures"' not in page


def test_fit_nuts_saves_draws_and_report_checks_them(tmp_path, capsys):
    corpus = _corpus(tmp_path / "mail.csv", n=60)
    model = tmp_path / "mail.nc"
    argv = ["fit", "bernoulli", "--data", corpus, "--nuts", "--draws", "150", "--tune", "150"]
    rc, out, err = _run([*argv, "--chains", "2", "--out", model], capsys)
    assert rc == 0, err
    nuts = tmp_path / "mail.nuts.nc"
    assert nuts.is_file() and f"NUTS draws: {nuts}" in out
    assert "Against the exact conjugate posterior means" in out
    assert "0.0 s wall time" not in out
    rc, out, err = _run(
        ["report", model, "--data", corpus, "--out", tmp_path / "r", "--quick"], capsys
    )
    assert rc == 0, err
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert 'id="sampler"' in page and "2 chains × 150 draws" in page


# -- bad input: one line on stderr, exit 2 ----------------------------------------------------
def _bad_inputs(tmp: Path) -> dict[str, list]:
    no_cols = tmp / "nocols.csv"
    no_cols.write_text("a,b\n1,2\n")
    empty = tmp / "empty.csv"
    empty.write_text("")
    one_class = tmp / "one.csv"
    one_class.write_text("label,text\nx,hello world\nx,good bye\n")
    binary = tmp / "binary.csv"
    binary.write_bytes(b"label,text\n\xff\xfe\x00\x01,\x80\x81\n")
    garbage = tmp / "model.nc"
    garbage.write_bytes(b"not a netcdf file")
    corpus = _corpus(tmp / "ok.csv")
    a_file = tmp / "file"
    a_file.write_text("x")
    return {
        "unknown data": ["compare", "--data", "mnist", "multinomial"],
        "missing path": ["compare", "--data", tmp / "nope.csv", "multinomial"],
        "missing folder": [
            "fit",
            "multinomial",
            "--data",
            tmp / "no" / "dir",
            "--out",
            tmp / "m.nc",
        ],
        "csv without columns": ["compare", "--data", no_cols, "multinomial"],
        "empty csv": ["compare", "--data", empty, "multinomial"],
        "single class": ["compare", "--data", one_class, "multinomial"],
        "undecodable csv": ["compare", "--data", binary, "multinomial"],
        "unknown fortune": ["compare", "--data", "fortunes:nosuchcategory", "multinomial"],
        "unknown model": ["compare", "--data", "digits", "frobnicatenb"],
        "dcm bayes": ["compare", "--data", "digits", "dcm:bayes"],
        "fit dcm bayes": [
            "fit",
            "dcm",
            "--data",
            "digits",
            "--estimate",
            "bayes",
            "--out",
            tmp / "m.nc",
        ],
        "alpha for dcm": ["fit", "dcm", "--data", "digits", "--alpha", "2", "--out", tmp / "m.nc"],
        "poisson on measurements": ["compare", "--data", "wine", "poisson"],
        "poisson map below one": [
            "fit",
            "poisson",
            "--data",
            "digits",
            "--estimate",
            "map",
            "--alpha",
            "0.5",
            "--out",
            tmp / "m.nc",
        ],
        "unknown estimate": ["compare", "--data", "digits", "multinomial:median"],
        "bad alpha": [
            "fit",
            "multinomial",
            "--data",
            "digits",
            "--alpha",
            "-1",
            "--out",
            tmp / "m.nc",
        ],
        "alpha for gda": ["fit", "gda", "--data", "wine", "--alpha", "2", "--out", tmp / "m.nc"],
        "gda on counts": ["fit", "gda", "--data", "digits", "--out", tmp / "m.nc"],
        "categorical on measurements": ["compare", "--data", "wine", "categorical"],
        "out under a file": ["fit", "multinomial", "--data", "digits", "--out", a_file / "m.nc"],
        "missing model": ["report", tmp / "none.nc", "--data", "digits", "--out", tmp / "r"],
        "corrupt model": ["report", garbage, "--data", "digits", "--out", tmp / "r"],
        "report into a file": ["report", garbage, "--data", "digits", "--out", a_file],
        "model/data mismatch": ["report", "@model", "--data", corpus, "--out", tmp / "r"],
    }


@pytest.fixture(scope="module")
def digits_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "digits.nc"
    assert main(["fit", "multinomial", "--data", "digits", "--out", str(path)]) == 0
    return path


BAD_CASES = [
    "unknown data",
    "missing path",
    "missing folder",
    "csv without columns",
    "empty csv",
    "single class",
    "undecodable csv",
    "unknown fortune",
    "unknown model",
    "dcm bayes",
    "fit dcm bayes",
    "alpha for dcm",
    "poisson on measurements",
    "poisson map below one",
    "unknown estimate",
    "bad alpha",
    "alpha for gda",
    "gda on counts",
    "categorical on measurements",
    "out under a file",
    "missing model",
    "corrupt model",
    "report into a file",
    "model/data mismatch",
]


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_exits_two_with_one_line(case, tmp_path, capsys, digits_model):
    cases = _bad_inputs(tmp_path)
    assert list(cases) == BAD_CASES
    argv = [digits_model if a == "@model" else a for a in cases[case]]
    capsys.readouterr()
    rc, out, err = _run(argv, capsys)
    assert rc == 2, (case, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("bayesnb: error: "), (case, err)
    assert "Traceback" not in err


def test_report_refuses_a_model_outside_the_cli_with_one_line(tmp_path, capsys):
    # A ColumnwiseNB file loads, but `report` studies only the MODELs of `fit`.
    data = load_data("digits")
    est = bnb.ColumnwiseNB([("pixels", bnb.MultinomialNB(), slice(None))]).fit(data.X, data.y)
    path = tmp_path / "cw.nc"
    est.save(path)
    rc, out, err = _run(["report", path, "--data", "digits", "--out", tmp_path / "r"], capsys)
    assert rc == 2 and out == ""
    assert err == (
        "bayesnb: error: model cw.nc is a ColumnwiseNB, which bayesnb report does not study: "
        "it reports the models of bayesnb fit (bernoulli, multinomial, categorical, poisson, "
        "dcm, gda)\n"
    )


# -- the models come from the family registry -------------------------------------------------
def test_cli_models_are_the_registry_families_with_their_report_configuration():
    from bayesnb import families
    from bayesnb.cli.models import build_estimator, cli_models
    from bayesnb.report.data import default_estimator

    MODELS = cli_models()

    assert MODELS == ("bernoulli", "multinomial", "categorical", "poisson", "dcm", "gda")
    assert set(families.names()) - set(MODELS) == {"columnwise"}
    for model in MODELS:
        data = load_data("wine" if families.get(model).data_kinds == ("continuous",) else "digits")
        est = build_estimator(model, data, None)
        ref = default_estimator(model, data)
        assert type(est) is type(ref) and est.get_params() == ref.get_params(), model
        assert type(est)._family == model
    # Data-dependent arguments: BernoulliNB takes the data set's binarize threshold.
    assert build_estimator("bernoulli", load_data("digits"), None).binarize == 8.0
    assert build_estimator("poisson", None, "map").get_params()["alpha"] == "evidence"
    assert families.get("dcm").estimates == ("mle", "map", "mean")
    with pytest.raises(TypeError, match="ColumnwiseNB does not support the command line"):
        build_estimator("columnwise", None)


def test_console_script_errors_cleanly():
    script = Path(sys.executable).parent / "bayesnb"
    if not script.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    done = subprocess.run(
        [str(script), "compare", "--data", "nope", "multinomial"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("bayesnb: error: unknown --data 'nope'")
    assert len(done.stderr.strip().splitlines()) == 1
    help_ = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert help_.returncode == 0 and "demo" in help_.stdout


# -- fit: a corpus on disk is streamed --------------------------------------------------------
STREAM_LINE = re.compile(r"^(scan|fit): [\d,]+ documents.* in [\d.]+ s \([\d,]+ documents/s\)$")
STREAM_TICK = re.compile(r"^fit: ([\d,]+) / ([\d,]+) documents \(\d+%\)  [\d,]+ documents/s  ")


def _folder_corpus(root: Path, n: int = 40) -> Path:
    """Class folders of short mails; a few odd files that the in-memory loader reads alike."""
    frame = pd.read_csv(_corpus(root.with_suffix(".csv"), n=n))
    for i, (label, text) in enumerate(zip(frame["label"], frame["text"], strict=True)):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i:03d}.txt").write_text(text + ("\r\n" if i % 3 else ""))
    (root / "spam" / "bytes.txt").write_bytes(b"free \xff\xfe money")  # replaced, not fatal
    (root / "ham" / ".hidden").write_text("never read")
    return root


def _reference_fit(model: str, spec: str):
    from bayesnb.cli.models import build_estimator

    data = load_data(spec)
    return data, build_estimator(model, data, None).fit(data.X, data.y)


@pytest.mark.filterwarnings("ignore:1 file not valid utf-8:UserWarning")  # bytes.txt
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "categorical", "poisson", "dcm"])
def test_fit_streams_a_folder_and_equals_the_in_memory_fit(model, tmp_path, capsys, monkeypatch):
    from bayesnb import streaming

    root = _folder_corpus(tmp_path / "mail")
    monkeypatch.setattr(streaming, "PROGRESS_INTERVAL", 0.0)  # a progress line per chunk
    path = tmp_path / "m.nc"
    rc, out, err = _run(["fit", model, "--data", root, "--chunk-size", "7", "--out", path], capsys)
    assert rc == 0, err
    assert out.splitlines()[-1] == f"saved: {path}"
    assert "on 41 documents × " in out and "streamed from disk in chunks of 7 documents" in out
    got = bnb.load(path)
    data, ref = _reference_fit(model, str(root))
    assert list(got.feature_names_in_) == [str(f) for f in data.feature_names]
    assert_array_equal(got.classes_, ref.classes_)
    assert_array_equal(got.class_count_, ref.class_count_)
    if model == "categorical":
        assert_array_equal(got.n_categories_, ref.n_categories_)
    else:
        assert_array_equal(got.feature_count_, ref.feature_count_)
    assert_array_equal(got.predict(data.X), ref.predict(data.X))
    assert_allclose(got.predict_proba(data.X), ref.predict_proba(data.X), rtol=1e-12, atol=0)
    # Progress: the first pass, a line per chunk of the second (6 chunks of <= 7), summaries.
    lines = err.splitlines()
    ticks = [m for m in map(STREAM_TICK.match, lines) if m]
    assert [t[1] for t in ticks] == ["7", "14", "21", "28", "35", "41"]
    assert {t[2] for t in ticks} == {"41"}
    summaries = [line for line in lines if STREAM_LINE.match(line)]
    assert [s.split(":")[0] for s in summaries] == ["scan", "fit"]
    assert "2 classes" in summaries[0] and f"{len(data.feature_names)} words" in summaries[0]


def _csv_parts(tmp: Path) -> list[str]:
    parts = [_corpus(tmp / "part1.csv", n=30), _corpus(tmp / "part2.csv", n=25)]
    return [str(p) for p in parts]


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_fit_streams_a_glob_of_csv_files(tmp_path, capsys):
    from sklearn.feature_extraction.text import CountVectorizer

    parts = _csv_parts(tmp_path)
    frame = pd.concat([pd.read_csv(p) for p in parts], ignore_index=True)
    vec = CountVectorizer()
    X = vec.fit_transform(frame["text"])
    ref = bnb.MultinomialNB(alpha="evidence").fit(X, frame["label"].to_numpy())
    path = tmp_path / "g.nc"
    pattern = str(tmp_path / "part*.csv")
    argv = ["fit", "multinomial", "--data", pattern, "--alpha", "evidence", "--chunk-size", "8"]
    rc, out, err = _run([*argv, "--out", path], capsys)
    assert rc == 0, err
    got = bnb.load(path)
    assert list(got.feature_names_in_) == list(vec.get_feature_names_out())
    assert_array_equal(got.feature_count_, ref.feature_count_)
    assert_allclose(got.alpha_, ref.alpha_, rtol=1e-10)
    assert_array_equal(got.predict(X), ref.predict(X))
    assert "on 55 documents" in out
    assert [line.split(":")[0] for line in err.splitlines()] == ["scan", "fit"]


@pytest.mark.filterwarnings("ignore:1 file not valid utf-8:UserWarning")  # bytes.txt
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_fit_hash_features_is_one_pass_over_hashed_columns(tmp_path, capsys):
    from bayesnb.streaming import default_vectorizer

    root = _folder_corpus(tmp_path / "mail")
    path = tmp_path / "h.nc"
    argv = ["fit", "bernoulli", "--data", root, "--hash-features", "4096", "--out", path]
    rc, out, err = _run(argv, capsys)
    assert rc == 0, err
    assert "4,096 hashed features" in out
    assert [line.split(":")[0] for line in err.splitlines()] == ["fit"]  # no vocabulary pass
    got = bnb.load(path)
    assert getattr(got, "feature_names_in_", None) is None
    bunch = datasets.load_folder(root, errors="replace")
    X = default_vectorizer(4096).transform(bunch.data)
    ref = bnb.BernoulliNB(binarize=0.0).fit(X, bunch.target)
    assert_array_equal(got.feature_count_, ref.feature_count_)
    assert_array_equal(got.predict_proba(X), ref.predict_proba(X))


@pytest.mark.filterwarnings("ignore:1 file not valid utf-8:UserWarning")  # bytes.txt
def test_fit_nuts_keeps_a_corpus_in_memory(tmp_path, capsys, monkeypatch):
    from bayesnb.cli import fit as cli_fit  # the module of the fit command

    root = _folder_corpus(tmp_path / "mail", n=10)
    monkeypatch.setattr(cli_fit, "fit_streamed", lambda args: pytest.fail("streamed with --nuts"))
    seen = []
    monkeypatch.setattr(cli_fit, "load_data", lambda spec, **kw: seen.append(spec) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        main(["fit", "multinomial", "--data", str(root), "--nuts", "--out", str(tmp_path / "n")])
    assert seen == [str(root)]


def _stream_errors(tmp: Path) -> dict[str, list]:
    no_text = tmp / "notext.csv"
    no_text.write_text("label,body\na,x y\nb,z w\n")
    broken = tmp / "broken.csv"
    broken.write_text('label,text\na,"never closed\nb,ok ok\n')
    one = tmp / "one"
    (one / "only").mkdir(parents=True)
    (one / "only" / "1.txt").write_text("hello world")
    silent = tmp / "silent"
    for label in ("a", "b"):
        (silent / label).mkdir(parents=True)
        (silent / label / "1.txt").write_text("? ! x")
    (tmp / "nofiles").mkdir()
    out = ["--out", tmp / "m.nc"]
    return {
        "missing folder": ["fit", "multinomial", "--data", tmp / "no" / "dir", *out],
        "empty glob": ["fit", "multinomial", "--data", tmp / "*.nothing", *out],
        "folder without classes": ["fit", "multinomial", "--data", tmp / "nofiles", *out],
        "csv without text": ["fit", "multinomial", "--data", no_text, *out],
        "unterminated quote": ["fit", "multinomial", "--data", broken, *out],
        "one class": ["fit", "multinomial", "--data", one, *out],
        "no words": ["fit", "multinomial", "--data", silent, *out],
        "zero chunk size": ["fit", "bernoulli", "--data", one, "--chunk-size", "0", *out],
        "zero hash features": ["fit", "bernoulli", "--data", one, "--hash-features", "0", *out],
        "gda on a corpus": ["fit", "gda", "--data", one, *out],
        "map without a mode": [
            "fit",
            "multinomial",
            "--data",
            silent,
            "--estimate",
            "map",
            "--alpha",
            "0.5",
            *out,
        ],
    }


STREAM_ERRORS = [
    "missing folder",
    "empty glob",
    "folder without classes",
    "csv without text",
    "unterminated quote",
    "one class",
    "no words",
    "zero chunk size",
    "zero hash features",
    "gda on a corpus",
    "map without a mode",
]


@pytest.mark.parametrize("case", STREAM_ERRORS)
def test_streamed_fit_errors_exit_two_with_one_line(case, tmp_path, capsys):
    cases = _stream_errors(tmp_path)
    assert list(cases) == STREAM_ERRORS
    argv = cases[case]
    rc, out, err = _run(argv, capsys)
    assert rc == 2, (case, out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("bayesnb: error: "), (case, err)
    assert out == "" and not (tmp_path / "m.nc").exists()


def test_fit_help_documents_corpora_on_disk(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for phrase in ("streams", "--chunk-size", "--hash-features", "glob pattern", "./digits"):
        assert phrase in text


def test_report_tokenises_the_data_as_fit_did(tmp_path, capsys, monkeypatch):
    """A model fitted with --stop-words/--ngram-range is reported on those columns."""
    from sklearn.feature_extraction.text import CountVectorizer

    from bayesnb.cli import report as cli_report

    corpus = _corpus(tmp_path / "mail.csv")
    model = tmp_path / "mail.nc"
    options = ["--stop-words", "english", "--ngram-range", "1,2"]
    rc, _, err = _run(["fit", "multinomial", "--data", corpus, "--out", model, *options], capsys)
    assert rc == 0, err
    vocab = list(bnb.load(model).feature_names_in_)
    assert any(" " in w for w in vocab) and "the" not in vocab
    seen = []

    def spy(*args, **kwargs):
        seen.append(load_data(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(cli_report, "load_data", spy)
    rc, _, err = _run(
        ["report", model, "--data", corpus, "--out", tmp_path / "r", "--quick"], capsys
    )
    assert rc == 0, err
    texts = pd.read_csv(corpus)["text"].tolist()
    expected = CountVectorizer(stop_words="english", ngram_range=(1, 2), vocabulary=vocab)
    assert_array_equal(seen[0].X.toarray(), expected.transform(texts).toarray())
    assert seen[0].X[:, [" " in w for w in vocab]].sum() > 0  # the word pairs are counted
