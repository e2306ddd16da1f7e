"""``bayesnb predict``: a saved model applied to a corpus, one CSV row per document."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import xarray as xr
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

import bayesnb as bnb
from bayesnb import datasets
from bayesnb.cli import load_data, main
from bayesnb.columns import TextColumns, record_vectorizer

WORDS = {
    "spam": "win money prize free offer click cash deal now".split(),
    "ham": "meeting lunch report project team notes monday plan".split(),
}
COMMON = "the a to and of for".split()
# The models carry their words; the tests score plain matrices in the same columns.
pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")
FORTUNES = all((datasets.FORTUNES_PATH / c).is_file() for c in ("art", "food"))


def _folder(root: Path, n: int = 40, extra=(), seed: int = 1) -> Path:
    """Class folders of short mails; ``extra`` words (never seen in training) mixed in."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        label = ("spam", "ham")[i % 2]
        text = rng.choice(WORDS[label] + COMMON + list(extra), size=rng.integers(4, 15))
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i:03d}.txt").write_text(" ".join(text))
    return root


def _run(argv, capsys) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _fit(tmp_path, capsys, *extra) -> Path:
    train = _folder(tmp_path / "train")
    model = tmp_path / "model.nc"
    rc, _, err = _run(["fit", "multinomial", "--data", train, "--out", model, *extra], capsys)
    assert rc == 0, err
    return model


def _proba(frame: pd.DataFrame, classes) -> np.ndarray:
    return frame[[f"proba_{c}" for c in classes]].to_numpy()


def _bad(argv, capsys, *expected: str) -> str:
    rc, out, err = _run(argv, capsys)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayesnb: error: "), err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


# -- a folder corpus ---------------------------------------------------------------------------
def test_predict_folder_equals_predict_proba(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    new = _folder(tmp_path / "new", n=30, seed=2)
    out = tmp_path / "pred.csv"
    rc, stdout, err = _run(
        ["predict", model, "--data", new, "--out", out, "--chunk-size", 7], capsys
    )
    assert rc == 0, err
    assert stdout.strip() == f"predictions of 30 documents (MultinomialNB, estimate=mean): {out}"
    # Progress on stderr: the summary line with the mapping of the words.
    assert "predict: 30 documents (0 of " in err and "not in the model's vocabulary" in err
    frame = pd.read_csv(out)
    est = bnb.load(model)
    assert list(frame.columns) == ["document", "predicted", "proba_ham", "proba_spam"]
    files = sorted(str(p) for p in new.glob("*/*.txt"))
    assert frame["document"].tolist() == files  # one row per document, in file order
    P = _proba(frame, est.classes_)
    assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # The same documents through the in-memory loader and the model's own vocabulary.
    data = load_data(str(new), vocabulary=est.feature_names_in_)
    assert_allclose(P, est.predict_proba(data.X), rtol=1e-15, atol=0)
    assert_array_equal(frame["predicted"], est.predict(data.X))
    assert np.mean(frame["predicted"] == [Path(f).parent.name for f in files]) > 0.9


def test_predict_estimate_rescores_without_refitting(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    new = _folder(tmp_path / "new", n=10, seed=3)
    out = tmp_path / "pred.csv"
    rc, stdout, err = _run(
        ["predict", model, "--data", new, "--out", out, "--estimate", "bayes"], capsys
    )
    assert rc == 0, err and "estimate=bayes" in stdout
    est = bnb.load(model).set_params(estimate="bayes")
    data = load_data(str(new), vocabulary=est.feature_names_in_)
    P = _proba(pd.read_csv(out), est.classes_)
    assert_allclose(P, est.predict_proba(data.X), rtol=1e-15, atol=0)
    mean = bnb.load(model).predict_proba(data.X)
    assert np.abs(P - mean).max() > 1e-6  # a different estimate, a different answer


def test_predict_flat_folder_and_csv(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "a.txt").write_text("win money now")
    (flat / "b.txt").write_text("team meeting monday")
    (flat / ".hidden").write_text("never read")
    out = tmp_path / "flat.csv"
    rc, _, err = _run(["predict", model, "--data", flat, "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    assert frame["document"].tolist() == [str(flat / "a.txt"), str(flat / "b.txt")]
    assert frame["predicted"].tolist() == ["spam", "ham"]
    rows = tmp_path / "rows.csv"
    pd.DataFrame({"text": ["free prize cash", None, "project notes"]}).to_csv(rows, index=False)
    rc, _, err = _run(["predict", model, "--data", rows, "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    assert frame["document"].tolist() == [f"{rows}:0", f"{rows}:1", f"{rows}:2"]
    est = bnb.load(model)
    assert frame["predicted"][0] == "spam" and frame["predicted"][2] == "ham"
    # An empty text scores as the class prior.
    assert_allclose(_proba(frame, est.classes_)[1], np.exp(est.class_log_prior_), rtol=1e-12)


# -- words the model never saw -----------------------------------------------------------------
def test_unseen_words_are_dropped(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    new = _folder(tmp_path / "new", n=20, extra=["zebra", "quokka"], seed=4)
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", new, "--out", out], capsys)
    assert rc == 0, err
    est = bnb.load(model)
    texts = [p.read_text() for p in sorted(new.glob("*/*.txt"))]
    n_unseen = sum(t.split().count("zebra") + t.split().count("quokka") for t in texts)
    n_tokens = sum(len(t.split()) for t in texts) - sum(t.split().count("a") for t in texts)
    assert n_unseen > 0
    assert f"{n_unseen:,} of {n_tokens:,} tokens not in the model's vocabulary: dropped" in err
    # Dropped: the scores are those of the documents without the unseen words.
    stripped = [" ".join(w for w in t.split() if w not in ("zebra", "quokka")) for t in texts]
    X = CountVectorizer(vocabulary=list(est.feature_names_in_)).fit_transform(stripped)
    assert_allclose(_proba(pd.read_csv(out), est.classes_), est.predict_proba(X), rtol=1e-15)


def test_unseen_words_pooled_into_unk(tmp_path, capsys):
    train = _folder(tmp_path / "train")
    data = load_data(str(train))
    est = bnb.MultinomialNB(unk=True).fit(data.X, data.y)
    est.feature_names_in_ = np.asarray(data.feature_names, dtype=object)
    record_vectorizer(est, CountVectorizer())
    model = tmp_path / "unk.nc"
    est.save(model)
    new = tmp_path / "new"
    (new / "x").mkdir(parents=True)
    docs = ["win money zebra quokka zebra", "meeting lunch", "zebra"]
    for i, text in enumerate(docs):
        (new / "x" / f"{i}.txt").write_text(text)
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", new, "--out", out], capsys)
    assert rc == 0, err
    assert "4 of 8 tokens not in the model's vocabulary: pooled into UNK" in err
    # UNK: P(UNK | c) = α / (T_c + α(V + 1)) for each unseen token, V the seen words.
    T = est.feature_count_.sum(axis=1)
    V = est.n_features_in_
    log_unk = np.log(1.0 / (T + (V + 1)))
    X = CountVectorizer(vocabulary=list(est.feature_names_in_)).fit_transform(docs)
    jll = est.predict_joint_log_proba(X) + np.array([3, 0, 1])[:, None] * log_unk[None, :]
    expected = np.exp(jll - np.logaddexp.reduce(jll, axis=1, keepdims=True))
    P = _proba(pd.read_csv(out), est.classes_)
    assert_allclose(P, expected, rtol=1e-12)
    assert P[2, 0] != pytest.approx(np.exp(est.class_log_prior_)[0], rel=1e-6)  # not dropped
    # The widened model scores seen words exactly as the saved one.
    wide = TextColumns(bnb.load(model)).estimator
    assert wide.n_features_in_ == V + 1 and wide.feature_names_in_[-1] == "UNK"
    Xw = sp.hstack([X, sp.csr_matrix((3, 1))]).tocsr()
    assert_array_equal(wide.predict_proba(Xw), est.predict_proba(X))


# -- a hashed model ----------------------------------------------------------------------------
def test_hashed_model_hashes_the_same_way(tmp_path, capsys):
    model = _fit(tmp_path, capsys, "--hash-features", 512)
    est = bnb.load(model)
    assert est.vectorizer_params_["name"] == "HashingVectorizer"
    assert est.vectorizer_params_["n_features"] == 512 and est.n_features_in_ == 512
    new = _folder(tmp_path / "new", n=12, extra=["zebra"], seed=5)
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", new, "--out", out], capsys)
    assert rc == 0, err
    assert "tokens hashed into 512 columns" in err
    texts = [p.read_text() for p in sorted(new.glob("*/*.txt"))]
    X = HashingVectorizer(n_features=512, alternate_sign=False, norm=None).transform(texts)
    P = _proba(pd.read_csv(out), est.classes_)
    assert_allclose(P, est.predict_proba(X), rtol=1e-15)
    assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


# -- embedded data sets ------------------------------------------------------------------------
def test_predict_embedded_table(tmp_path, capsys):
    model = tmp_path / "wine.nc"
    assert _run(["fit", "gda", "--data", "wine", "--out", model], capsys)[0] == 0
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", "wine", "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    data = load_data("wine")
    est = bnb.load(model)
    assert frame["document"].tolist() == list(range(len(data.y)))
    assert_allclose(_proba(frame, est.classes_), est.predict_proba(data.X), rtol=1e-15)


@pytest.mark.skipif(not FORTUNES, reason="fortunes not installed: apt-get install fortunes")
def test_predict_embedded_fortunes(tmp_path, capsys):
    model = tmp_path / "fortunes.nc"
    argv = ["fit", "multinomial", "--data", "fortunes:art,food", "--out", model]
    assert _run(argv, capsys)[0] == 0
    est = bnb.load(model)
    assert est.vectorizer_params_["name"] == "CountVectorizer"
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", "fortunes:art,food", "--out", out], capsys)
    assert rc == 0, err
    data = load_data("fortunes:art,food", vocabulary=est.feature_names_in_)
    assert_allclose(_proba(pd.read_csv(out), est.classes_), est.predict_proba(data.X), rtol=1e-15)


# -- bad input: exit 2, one line ---------------------------------------------------------------
def test_missing_model_file(tmp_path, capsys):
    new = _folder(tmp_path / "new", n=4)
    _bad(
        ["predict", tmp_path / "none.nc", "--data", new, "--out", tmp_path / "p.csv"],
        capsys,
        "no model file at",
        "none.nc",
    )
    _bad(["inspect", tmp_path / "none.nc"], capsys, "no model file at")


def test_model_file_of_another_kind(tmp_path, capsys):
    new = _folder(tmp_path / "new", n=4)
    other = tmp_path / "other.nc"
    xr.Dataset({"t": ("x", [1.0, 2.0])}).to_netcdf(other, engine="h5netcdf")
    out = tmp_path / "p.csv"
    _bad(["predict", other, "--data", new, "--out", out], capsys, "is not a bayesnb model file")
    _bad(["inspect", other], capsys, "is not a bayesnb model file")
    text = tmp_path / "notes.nc"
    text.write_text("not even HDF5")
    _bad(["predict", text, "--data", new, "--out", out], capsys, "is not a bayesnb model file")
    # A model of continuous measurements given a text corpus, and the reverse.
    gda = tmp_path / "wine.nc"
    assert _run(["fit", "gda", "--data", "wine", "--out", gda], capsys)[0] == 0
    _bad(["predict", gda, "--data", new, "--out", out], capsys, "GDA", "not word counts")
    model = _fit(tmp_path, capsys)
    _bad(["predict", model, "--data", "wine", "--out", out], capsys, "wine")
    _bad(["predict", gda, "--data", "breast_cancer", "--out", out], capsys, "30 columns")
    # A model fitted on other columns: digits pixels never match a word.
    digits = tmp_path / "digits.nc"
    assert _run(["fit", "multinomial", "--data", "digits", "--out", digits], capsys)[0] == 0
    _bad(["predict", digits, "--data", new, "--out", out], capsys, "no word of --data")
    # A model saved from Python without its columns' names cannot read text.
    data = load_data(str(new))
    bare = tmp_path / "bare.nc"
    bnb.MultinomialNB().fit(data.X.toarray(), data.y).save(bare)
    _bad(["predict", bare, "--data", new, "--out", out], capsys, "records neither its words")
    # Such a model's file is what it was before vectorizers were recorded: no new entry.
    with xr.open_datatree(bare, engine="h5netcdf") as tree:
        assert "vectorizer" not in json.loads(tree.attrs["fitted"])
    assert not out.exists() and not list(tmp_path.glob(".p.csv*"))


def test_empty_corpus(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    out = tmp_path / "p.csv"
    empty = tmp_path / "empty"
    (empty / "spam").mkdir(parents=True)
    (empty / "ham").mkdir()
    _bad(["predict", model, "--data", empty, "--out", out], capsys, "holds no documents")
    flat = tmp_path / "flat"
    flat.mkdir()
    _bad(["predict", model, "--data", flat, "--out", out], capsys, "holds no documents")
    rows = tmp_path / "rows.csv"
    rows.write_text("text\n")
    _bad(["predict", model, "--data", rows, "--out", out], capsys, "holds no documents")
    nothing = tmp_path / "nothing.csv"
    nothing.write_text("")
    _bad(["predict", model, "--data", nothing, "--out", out], capsys, "is empty")
    _bad(
        ["predict", model, "--data", tmp_path / "none" / "*.txt", "--out", out],
        capsys,
        "matches no file",
    )
    assert not out.exists()


def test_bad_options(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    new = _folder(tmp_path / "new", n=4)
    out = tmp_path / "p.csv"
    _bad(["predict", model, "--data", new, "--out", out, "--chunk-size", 0], capsys, "--chunk-size")
    _bad(["predict", model, "--data", "nope", "--out", out], capsys, "unknown --data 'nope'")
    dcm = tmp_path / "dcm.nc"
    assert _run(["fit", "dcm", "--data", new, "--out", dcm], capsys)[0] == 0
    _bad(
        ["predict", dcm, "--data", new, "--out", out, "--estimate", "bayes"],
        capsys,
        "cannot score with estimate='bayes'",
    )
    _bad(
        ["predict", model, "--data", new, "--out", tmp_path / "no" / "p.csv"],
        capsys,
        "cannot write --out",
    )


def test_large_vocabulary_with_a_long_word_loads(tmp_path, capsys):
    # Feature names are stored as variable-length strings; the size check before reading
    # counted each at the longest name's width and refused such files (the demo's fortunes).
    rng = np.random.default_rng(7)
    words = [f"w{i:05d}" for i in range(4000)] + ["x" * 300]
    texts = [" ".join(rng.choice(words, size=30)) for _ in range(40)]
    X = CountVectorizer(vocabulary=words).fit_transform(texts)
    est = bnb.MultinomialNB().fit(X, np.arange(40) % 2)
    est.feature_names_in_ = np.asarray(words, dtype=object)
    record_vectorizer(est, CountVectorizer())
    path = tmp_path / "big.nc"
    est.save(path)
    declared = 4 * 300 * len(words)  # what the string coordinate's dtype declares
    assert declared > 2 * path.stat().st_size + (1 << 20)
    loaded = bnb.load(path)
    assert_array_equal(loaded.feature_names_in_, words)
    assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    assert main(["inspect", str(path)]) == 0
    assert "features: 4,001 words: w00000, w00001" in capsys.readouterr().out


def test_model_warnings_said_once_with_their_total(tmp_path, capsys):
    model = _fit(tmp_path, capsys)
    flat = tmp_path / "mixed"
    flat.mkdir()
    for i in range(3):  # a spam word and a ham word: probability 0 under both for the MLE
        (flat / f"{i}.txt").write_text("win meeting")
    out = tmp_path / "p.csv"
    argv = ["predict", model, "--data", flat, "--out", out, "--estimate", "mle"]
    rc, _, err = _run([*argv, "--chunk-size", 1], capsys)
    assert rc == 0, err
    notes = [line for line in err.splitlines() if line.startswith("bayesnb: note: ")]
    assert len(notes) == 1 and notes[0].startswith(
        "bayesnb: note: 3 document(s) have probability 0 under every class"
    )
    est = bnb.load(model)
    assert_allclose(
        _proba(pd.read_csv(out), est.classes_), np.exp(est.class_log_prior_)[None].repeat(3, 0)
    )


def test_predict_with_a_saved_pipeline_tokenises_as_the_pipeline(tmp_path, capsys):
    """save(pipeline) records its vectorizer's settings: bigrams are rebuilt at predict."""
    from sklearn.pipeline import make_pipeline

    train = _folder(tmp_path / "train")
    docs, y = [], []
    for path in sorted(train.glob("*/*.txt")):
        docs.append(path.read_text())
        y.append(path.parent.name)
    pipe = make_pipeline(CountVectorizer(ngram_range=(1, 2), min_df=2), bnb.MultinomialNB())
    pipe.fit(docs, y)
    model = tmp_path / "pipe.nc"
    from bayesnb.io import save

    save(pipe, model)
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", train, "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    expected = pipe.predict_proba([Path(p).read_text() for p in frame["document"]])
    assert_allclose(_proba(frame, pipe.classes_), expected, rtol=1e-12)
    assert len(frame) == len(docs)


def test_a_reader_that_closes_stdout_early_ends_predict_quietly(tmp_path, capsys):
    """``predict --out - | head -1``: status 141 (128 + SIGPIPE), nothing on stderr."""
    import subprocess
    import sys

    model = _fit(tmp_path, capsys)
    words = WORDS["spam"] + WORDS["ham"]
    corpus = tmp_path / "new.csv"
    # 4,000 rows of about 60 bytes: far more than a pipe and Python's buffer hold.
    pd.DataFrame({"text": [" ".join(words[i % 7 : i % 7 + 5]) for i in range(4000)]}).to_csv(
        corpus, index=False
    )
    root = Path(__file__).resolve().parent.parent
    code = "import sys; from bayesnb.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "predict", str(model), "--data", str(corpus), "--out", "-"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    header = proc.stdout.readline()
    proc.stdout.close()  # the reader goes, as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert header == b"document,predicted,proba_ham,proba_spam\n"
    assert "error" not in err and "Broken pipe" not in err and "Traceback" not in err, err


# -- the vectorizer options of fit -------------------------------------------------------------
def _texts(folder: Path) -> tuple[list[str], list[str]]:
    paths = sorted(folder.glob("*/*.txt"))
    return [p.read_text() for p in paths], [p.parent.name for p in paths]


@pytest.mark.parametrize(
    ("options", "settings"),
    [
        (["--min-df", "3"], {"min_df": 3}),
        (["--max-df", "0.5"], {"max_df": 0.5}),
        (["--max-features", "7"], {"max_features": 7}),
        (["--stop-words", "english"], {"stop_words": "english"}),
        (["--ngram-range", "1,2", "--min-df", "0.1"], {"ngram_range": (1, 2), "min_df": 0.1}),
    ],
)
def test_fit_vectorizer_options_round_trip_through_predict(tmp_path, capsys, options, settings):
    """fit --OPTION on a corpus == scikit-learn's pipeline with CountVectorizer(OPTION)."""
    from sklearn.pipeline import make_pipeline

    model = _fit(tmp_path, capsys, *options)
    docs, y = _texts(tmp_path / "train")
    pipe = make_pipeline(CountVectorizer(**settings), bnb.MultinomialNB()).fit(docs, y)
    est = bnb.load(model)
    assert_array_equal(est.feature_names_in_, pipe[0].get_feature_names_out())
    recorded = {k: est.vectorizer_params_[k] for k in settings}
    assert recorded == {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}
    new = _folder(tmp_path / "new", n=20, seed=5, extra=["unseen", "words"])
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", new, "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    texts = [Path(p).read_text() for p in frame["document"]]
    assert_allclose(_proba(frame, est.classes_), pipe.predict_proba(texts), rtol=1e-12)


def test_fit_pruning_changes_the_vocabulary(tmp_path, capsys):
    model = _fit(tmp_path, capsys, "--stop-words", "english", "--max-features", "5")
    words = list(bnb.load(model).feature_names_in_)
    assert len(words) == 5 and not set(words) & {"the", "to", "and", "of", "for"}


def test_fit_stop_words_from_a_file(tmp_path, capsys):
    stop = tmp_path / "stop.txt"
    stop.write_text("the\nmoney\n\nteam\n")
    model = _fit(tmp_path, capsys, "--stop-words", stop)
    est = bnb.load(model)
    assert est.vectorizer_params_["stop_words"] == ["money", "team", "the"]
    docs, _ = _texts(tmp_path / "train")
    expected = CountVectorizer(stop_words=["money", "team", "the"]).fit(docs)
    assert_array_equal(est.feature_names_in_, expected.get_feature_names_out())


def test_fit_hashed_with_stop_words_and_ngrams(tmp_path, capsys):
    from sklearn.pipeline import make_pipeline

    model = _fit(
        tmp_path, capsys, "--hash-features", "64", "--stop-words", "english", "--ngram-range", "1,2"
    )
    docs, y = _texts(tmp_path / "train")
    hashing = HashingVectorizer(
        n_features=64, alternate_sign=False, norm=None, stop_words="english", ngram_range=(1, 2)
    )
    pipe = make_pipeline(hashing, bnb.MultinomialNB()).fit(docs, y)
    out = tmp_path / "pred.csv"
    rc, _, err = _run(["predict", model, "--data", tmp_path / "train", "--out", out], capsys)
    assert rc == 0, err
    frame = pd.read_csv(out)
    texts = [Path(p).read_text() for p in frame["document"]]
    assert_allclose(_proba(frame, pipe.classes_), pipe.predict_proba(texts), rtol=1e-12)


def test_load_data_applies_the_vectorizer(tmp_path):
    folder = _folder(tmp_path / "docs")
    data = load_data(str(folder), vectorizer=CountVectorizer(ngram_range=(1, 2), min_df=2))
    docs, _ = _texts(folder)
    expected = CountVectorizer(ngram_range=(1, 2), min_df=2).fit(docs)
    assert_array_equal(data.feature_names, expected.get_feature_names_out())
    assert_array_equal(data.X.toarray(), expected.transform(docs).toarray())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--min-df", "0"], "--min-df must be a number of documents >= 1 or a fraction"),
        (["--max-df", "1.5"], "--max-df must be a number of documents >= 1 or a fraction"),
        (["--min-df", "many"], "--min-df must be a number of documents"),
        (["--ngram-range", "2,1"], "--ngram-range must be MIN,MAX"),
        (["--max-features", "0"], "--max-features must be an integer >= 1"),
        (["--stop-words", "no/such/file"], "--stop-words must be 'english' or a file"),
        (["--hash-features", "64", "--min-df", "2"], "--min-df choose words of a vocabulary"),
        (["--min-df", "30", "--max-df", "2"], "max_df corresponds to < documents than min_df"),
        (["--min-df", "0.99"], "After pruning, no terms remain"),
    ],
)
def test_bad_vectorizer_options(tmp_path, capsys, options, message):
    train = _folder(tmp_path / "train")
    argv = ["fit", "multinomial", "--data", train, "--out", tmp_path / "m.nc", *options]
    _bad(argv, capsys, message)
    assert not (tmp_path / "m.nc").exists()


def test_vectorizer_options_refused_for_a_table(tmp_path, capsys):
    argv = ["fit", "multinomial", "--data", "digits", "--out", tmp_path / "m.nc", "--min-df", "2"]
    _bad(argv, capsys, "--min-df: options of text data; --data 'digits' is counts")
