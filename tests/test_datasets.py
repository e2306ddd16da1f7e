"""Loaders of bayesnb.datasets, and naive Bayes on real text (Debian's fortunes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import Pipeline

from bayesnb import MultinomialNB, datasets

FORTUNE_CATEGORIES = ["art", "computers", "food", "law", "science"]
needs_fortunes = pytest.mark.skipif(
    not all((datasets.FORTUNES_PATH / c).is_file() for c in FORTUNE_CATEGORIES),
    reason=f"Debian's fortunes ({', '.join(FORTUNE_CATEGORIES)}) not installed in "
    f"{datasets.FORTUNES_PATH}: apt-get install fortunes",
)


# -- digits -----------------------------------------------------------------------------------
def test_digits_counts_bunch():
    b = datasets.load_digits_counts()
    assert b.data.shape == (1797, 64)
    assert b.data.dtype == np.float64
    assert b.data.min() == 0 and b.data.max() == 16
    assert np.all(b.data == np.round(b.data))
    assert b.feature_names[0] == "px_0_0" and b.feature_names[9] == "px_1_1"
    assert b.feature_names[-1] == "px_7_7" and len(set(b.feature_names)) == 64
    np.testing.assert_array_equal(b.target_names, np.arange(10))
    assert "px_r_c" in b.DESCR
    # Row-major pixel order: px_r_c is images[:, r, c] of scikit-learn's bundle.
    images = load_digits().images
    np.testing.assert_array_equal(b.data[:, b.feature_names.index("px_3_5")], images[:, 3, 5])


def test_digits_return_X_y():
    X, y = datasets.load_digits_counts(return_X_y=True)
    assert X.shape == (1797, 64) and y.shape == (1797,)
    assert set(np.unique(y)) == set(range(10))


def test_digits_binary_threshold():
    X, y = datasets.load_digits_counts(return_X_y=True)
    b = datasets.load_digits_binary()
    assert set(np.unique(b.data)) == {0.0, 1.0}
    np.testing.assert_array_equal(b.data, X > 8)
    np.testing.assert_array_equal(b.target, y)
    Xb, _ = datasets.load_digits_binary(threshold=0, return_X_y=True)
    np.testing.assert_array_equal(Xb, X > 0)
    assert Xb.sum() > b.data.sum()


@pytest.mark.parametrize("bad", ["8", None, np.nan])
def test_digits_binary_bad_threshold(bad):
    with pytest.raises((TypeError, ValueError), match="threshold"):
        datasets.load_digits_binary(threshold=bad)


# -- fortunes from a temporary folder ---------------------------------------------------------
@pytest.fixture
def fortune_dir(tmp_path):
    root = tmp_path / "fortunes"
    root.mkdir()
    (root / "cats").write_text("Cats sleep.\n%\nA cat\non two lines.\n%\n%\n   \n%\nLast cat.\n")
    (root / "dogs").write_bytes("Dogs bark.\n%\nCaf\xe9 dog.\n%\n".encode("latin-1"))
    (root / "cats.dat").write_bytes(b"\x00\x00\x00\x02binary index")
    (root / "cats.u8").symlink_to(root / "cats")
    (root / "off").mkdir()
    (root / "off" / "rude").write_text("Hidden.\n%\n")
    return root


@pytest.mark.filterwarnings("ignore:1 file not valid utf-8:UserWarning")  # dogs: latin-1
def test_fortunes_records_and_labels(fortune_dir):
    b = datasets.load_fortunes(path=fortune_dir)
    assert b.data == [
        "Cats sleep.",
        "A cat\non two lines.",
        "Last cat.",
        "Dogs bark.",
        "Caf\ufffd dog.",
    ]
    np.testing.assert_array_equal(b.target, ["cats"] * 3 + ["dogs"] * 2)
    np.testing.assert_array_equal(b.target_names, ["cats", "dogs"])
    assert len(b.filenames) == 5 and b.filenames[-1] == str(fortune_dir / "dogs")


@pytest.mark.filterwarnings("ignore:1 file not valid utf-8:UserWarning")  # dogs: latin-1
def test_fortunes_categories_and_return_X_y(fortune_dir):
    data, target = datasets.load_fortunes(categories="dogs", path=fortune_dir, return_X_y=True)
    assert data == ["Dogs bark.", "Caf\ufffd dog."]
    np.testing.assert_array_equal(target, ["dogs", "dogs"])


def test_fortunes_unknown_category_lists_available(fortune_dir):
    with pytest.raises(ValueError, match=r"unknown category.*\['birds'\].*\['cats', 'dogs'\]"):
        datasets.load_fortunes(categories=["cats", "birds"], path=fortune_dir)
    with pytest.raises(ValueError, match="empty"):
        datasets.load_fortunes(categories=[], path=fortune_dir)


def test_fortunes_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="apt-get install fortunes"):
        datasets.load_fortunes(path=tmp_path / "absent")


def test_fortunes_folder_without_categories(tmp_path):
    (tmp_path / "x.dat").write_bytes(b"\x00")
    with pytest.raises(FileNotFoundError, match="no category files"):
        datasets.load_fortunes(path=tmp_path)


# -- load_folder ------------------------------------------------------------------------------
@pytest.fixture
def corpus_dir(tmp_path):
    root = tmp_path / "corpus"
    for name, docs in {"ham": ["hello friend", "lunch today?"], "spam": ["win money now"]}.items():
        (root / name).mkdir(parents=True)
        for i, doc in enumerate(docs):
            (root / name / f"{i}.txt").write_text(doc, encoding="utf-8")
    (root / "ham" / ".hidden").write_text("skip me")
    (root / ".git").mkdir()
    (root / "README").write_text("not a class")
    return root


def test_folder_layout(corpus_dir):
    b = datasets.load_folder(corpus_dir)
    assert b.data == ["hello friend", "lunch today?", "win money now"]
    np.testing.assert_array_equal(b.target, ["ham", "ham", "spam"])
    np.testing.assert_array_equal(b.target_names, ["ham", "spam"])
    assert b.filenames[2] == str(corpus_dir / "spam" / "0.txt")


def test_folder_categories(corpus_dir):
    b = datasets.load_folder(corpus_dir, categories=["spam"])
    assert b.data == ["win money now"]
    with pytest.raises(ValueError, match=r"unknown class.*available: \['ham', 'spam'\]"):
        datasets.load_folder(corpus_dir, categories=["eggs"])


def test_folder_encoding(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "doc").write_bytes("na\xefve".encode("latin-1"))
    with pytest.raises(ValueError, match=r"cannot decode .*doc.* as utf-8.*errors='replace'"):
        datasets.load_folder(tmp_path, errors="strict")
    assert datasets.load_folder(tmp_path, encoding="latin-1").data == ["na\xefve"]
    with pytest.warns(datasets.CorpusWarning, match=r"^1 file not valid utf-8.*: .*doc$"):
        assert datasets.load_folder(tmp_path).data == ["na\ufffdve"]


def test_folder_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.load_folder(tmp_path / "absent")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotADirectoryError, match="one sub-folder per class"):
        datasets.load_folder(tmp_path / "file.txt")
    with pytest.raises(ValueError, match="no class sub-folders"):
        datasets.load_folder(tmp_path)
    (tmp_path / "empty").mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match="no documents"):
            datasets.load_folder(tmp_path)
    with pytest.warns(UserWarning, match="holds no documents"):
        with pytest.raises(ValueError):
            datasets.load_folder(tmp_path)


# -- load_csv ---------------------------------------------------------------------------------
def test_csv(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text('label,text,extra\nham,"hi, there",1\nspam,,2\nham,bye,3\n')
    with pytest.warns(datasets.CorpusWarning, match=r"^1 empty document .*c\.csv line 3$"):
        b = datasets.load_csv(f)
    assert b.data == ["hi, there", "", "bye"]
    np.testing.assert_array_equal(b.target, ["ham", "spam", "ham"])
    np.testing.assert_array_equal(b.target_names, ["ham", "spam"])
    assert list(b.frame.columns) == ["label", "text", "extra"]
    with pytest.warns(datasets.CorpusWarning):
        _, y = datasets.load_csv(f, label="extra", return_X_y=True)
    np.testing.assert_array_equal(y, [1, 2, 3])


def test_csv_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a file"):
        datasets.load_csv(tmp_path / "absent.csv")
    f = tmp_path / "c.csv"
    f.write_text("category,body\nham,hi\n")
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['label', 'text'\].*'category'"):
        datasets.load_csv(f)
    f.write_text("label,text\nham,hi\n,orphan\n")
    with pytest.raises(ValueError, match=r"1 row without a 'label' value: line 3 \(line numbers"):
        datasets.load_csv(f)


# -- real text: Debian's fortunes -------------------------------------------------------------
@needs_fortunes
def test_fortunes_installed_bunch():
    b = datasets.load_fortunes(FORTUNE_CATEGORIES)
    np.testing.assert_array_equal(b.target_names, FORTUNE_CATEGORIES)
    assert len(b.data) == len(b.target) == len(b.filenames) > 1000
    assert set(b.target) == set(FORTUNE_CATEGORIES)
    assert all(doc.strip() and "\n%\n" not in doc for doc in b.data)


@needs_fortunes
def test_fortunes_multinomial_matches_sklearn_per_document():
    data, y = datasets.load_fortunes(FORTUNE_CATEGORIES, return_X_y=True)
    docs = np.asarray(data, dtype=object)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(docs, y)
    n_checked = 0
    for train, test in folds:
        cv = CountVectorizer().fit(docs[train])
        X_train, X_test = cv.transform(docs[train]), cv.transform(docs[test])
        ours = MultinomialNB(alpha=1, class_alpha=0).fit(X_train, y[train])
        ref = SkMultinomialNB().fit(X_train, y[train])
        np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))
        np.testing.assert_allclose(
            ours.predict_log_proba(X_test), ref.predict_log_proba(X_test), rtol=1e-10, atol=1e-9
        )
        # Better than guessing the largest class: the features carry signal.
        assert np.mean(ours.predict(X_test) == y[test]) > 0.45
        n_checked += len(test)
    assert n_checked == len(data)


@needs_fortunes
def test_fortunes_pipeline_and_grid_search():
    data, y = datasets.load_fortunes(FORTUNE_CATEGORIES, return_X_y=True)
    pipe = Pipeline([("cv", CountVectorizer()), ("nb", MultinomialNB())])
    assert pipe.fit(data, y).score(data, y) > 0.8
    grid = GridSearchCV(
        pipe,
        # "map" needs alpha > 1 for a smoothed mode (alpha = 1 is the MLE).
        [
            {"nb__alpha": [0.5, 1.0], "nb__estimate": ["mean", "bayes"]},
            {"nb__alpha": [2.0], "nb__estimate": ["map"]},
        ],
        cv=StratifiedKFold(n_splits=3, shuffle=True, random_state=0),
        error_score="raise",
    ).fit(data, y)
    scores = grid.cv_results_["mean_test_score"]
    assert scores.shape == (5,) and np.all((scores > 0.4) & (scores <= 1))
    assert grid.best_params_["nb__estimate"] in {"map", "mean", "bayes"}
    assert set(grid.predict(data[:50])) <= set(FORTUNE_CATEGORIES)
