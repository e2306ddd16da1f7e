"""Corpora as they come: undecodable files, empty documents, nested folders, unlabelled CSV rows.

Each case is read both ways, in memory (bayesnb.datasets) and streamed (bayesnb.streaming, the
path of ``bayesnb fit --data``), and the tests assert what the user is told: one warning line
per finding, counting the files or documents and naming the first three, and errors that name
the line of the file.
"""

from __future__ import annotations

import os
import pickle
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import bayesnb as bnb
from bayesnb import corpora, datasets, streaming
from bayesnb.cli import main
from bayesnb.datasets import CorpusWarning


def _said(call, *args, **kwargs):
    """``call``'s result and the messages of the CorpusWarnings it issued, in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, [str(w.message) for w in caught if issubclass(w.category, CorpusWarning)]


def _write(path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def _streamed(source, **kw):
    return streaming.fit_files(bnb.MultinomialNB(), source, progress=False, **kw)


def _scanned(source, **kw):
    return streaming.scan_files(source, progress=False, **kw)


# -- files that are not valid UTF-8 -------------------------------------------------------------
@pytest.fixture
def latin1_corpus(tmp_path):
    root = tmp_path / "mail"
    for i in range(4):  # four latin-1 files, one valid: the warning names three, counts four
        _write(root / "ham" / f"{i}.txt", f"caf\xe9 number {i}".encode("latin-1"))
    _write(root / "spam" / "ok.txt", "plain ascii money")
    return root


def test_undecodable_files_are_replaced_and_counted_in_one_line(latin1_corpus):
    b, said = _said(datasets.load_folder, latin1_corpus)
    ham = latin1_corpus / "ham"
    assert said == [
        f"4 files not valid utf-8, decoded with errors='replace' (undecodable bytes became "
        f"U+FFFD): {ham / '0.txt'}, {ham / '1.txt'}, {ham / '2.txt'} and 1 more"
    ]
    assert b.data[:2] == ["caf\ufffd number 0", "caf\ufffd number 1"]
    assert b.data[4] == "plain ascii money"
    # Streamed (the scan of `bayesnb fit`, and fit_files alone) says the same, once per load.
    scan, said_scan = _said(_scanned, latin1_corpus)
    model, said_fit = _said(_streamed, latin1_corpus)
    assert said_scan == said and said_fit == said
    assert "caf" in scan.vectorizer.vocabulary_ and model.class_count_.tolist() == [4, 1]


def test_strict_decoding_is_an_error_naming_the_file(latin1_corpus):
    first = latin1_corpus / "ham" / "0.txt"
    expected = rf"cannot decode '{first}' as utf-8: invalid continuation byte at byte 3"
    with pytest.raises(ValueError, match=expected):
        datasets.load_folder(latin1_corpus, errors="strict")
    with pytest.raises(ValueError, match=expected):
        _streamed(latin1_corpus, errors="strict")
    # The right encoding reads them without a word said.
    b, said = _said(datasets.load_folder, latin1_corpus, encoding="latin-1")
    assert said == [] and b.data[0] == "caf\xe9 number 0"


def test_undecodable_csv_is_replaced_and_named(tmp_path):
    path = tmp_path / "mail.csv"
    _write(path, b"label,text\nham,caf\xe9\nspam,money \xff\xfe\nham,fine\n")
    message = (
        f"1 file not valid utf-8, decoded with errors='replace' (undecodable bytes became "
        f"U+FFFD): {path}"
    )
    b, said = _said(datasets.load_csv, path)
    assert said == [message] and b.data == ["caf\ufffd", "money \ufffd\ufffd", "fine"]
    model, said_fit = _said(_streamed, path)
    assert said_fit == [message] and model.class_count_.tolist() == [2, 1]
    with pytest.raises(ValueError, match=rf"cannot decode '{path}' as utf-8"):
        datasets.load_csv(path, encoding_errors="strict")
    with pytest.raises(ValueError, match=rf"cannot decode '{path}' as utf-8"):
        _streamed(path, errors="strict")


def test_fortunes_name_an_undecodable_category_file(tmp_path):
    _write(tmp_path / "cats", "Cats sleep.\n%\nOne more.\n")
    _write(tmp_path / "dogs", "Caf\xe9 dog.\n%\n".encode("latin-1"))
    b, said = _said(datasets.load_fortunes, path=tmp_path)
    assert said == [
        f"1 file not valid utf-8, decoded with errors='replace' (undecodable bytes became "
        f"U+FFFD): {tmp_path / 'dogs'}"
    ]
    assert b.data == ["Cats sleep.", "One more.", "Caf\ufffd dog."]


# -- empty documents ----------------------------------------------------------------------------
def test_empty_documents_are_kept_counted_and_named(tmp_path):
    root = tmp_path / "mail"
    _write(root / "ham" / "a.txt", "")
    _write(root / "ham" / "b.txt", "  \n\t")
    _write(root / "ham" / "c.txt", "hello friend")
    _write(root / "spam" / "d.txt", "")
    _write(root / "spam" / "e.txt", "win money")
    _write(root / "spam" / "f.txt", "\n")
    b, said = _said(datasets.load_folder, root)
    ham, spam = root / "ham", root / "spam"
    assert said == [
        f"4 empty documents (kept; no text but whitespace): {ham / 'a.txt'}, {ham / 'b.txt'}, "
        f"{spam / 'd.txt'} and 1 more"
    ]
    assert len(b.data) == 6 and b.data[0] == ""
    model, said_fit = _said(_streamed, root)
    _, said_scan = _said(_scanned, root)
    assert said_fit == said and said_scan == said
    assert model.class_count_.tolist() == [3, 3]  # empty documents still count for the prior


def test_empty_csv_texts_name_their_lines(tmp_path):
    path = tmp_path / "mail.csv"
    # Line 4-5 is one row (a quoted text over two lines) and line 6 is blank: the empty rows
    # are on lines 3 and 7 of the file.
    _write(path, 'label,text\nham,hi there\nspam,\nham,"two\nlines"\n\nspam,"  "\nham,x\n')
    message = f"2 empty documents (kept; no text but whitespace): {path} line 3, {path} line 7"
    b, said = _said(datasets.load_csv, path)
    assert said == [message] and b.data == ["hi there", "", "two\nlines", "  ", "x"]
    model, said_fit = _said(_streamed, path, chunk_size=2)  # rows counted across chunks
    assert said_fit == [message] and model.class_count_.tolist() == [3, 2]


# -- folders nested below a class folder --------------------------------------------------------
@pytest.fixture
def nested_corpus(tmp_path):
    root = tmp_path / "mail"
    _write(root / "ham" / "top.txt", "lunch today")
    _write(root / "ham" / "2024" / "jan" / "deep.txt", "meeting notes")
    _write(root / "ham" / "2024" / "feb.txt", "project plan")
    _write(root / "ham" / ".archive" / "hidden.txt", "not read: hidden")
    _write(root / "spam" / "offers" / "x.txt", "win money now")
    _write(root / "spam" / "y.txt", "cheap pills")
    return root


def test_nested_files_are_documents_of_their_class_folder(nested_corpus):
    b, said = _said(datasets.load_folder, nested_corpus)
    assert said == []
    names = [os.path.relpath(f, nested_corpus) for f in b.filenames]
    assert names == [
        "ham/2024/feb.txt",
        "ham/2024/jan/deep.txt",
        "ham/top.txt",
        "spam/offers/x.txt",
        "spam/y.txt",
    ]
    assert_array_equal(b.target, ["ham", "ham", "ham", "spam", "spam"])
    # Streamed: the same documents under the same labels ("ham", not "2024" or "jan"), so the
    # model equals the in-memory one.
    scan = _scanned(nested_corpus)
    assert [str(f) for f in scan.files] == b.filenames.tolist()
    assert [f.label for f in scan.files] == b.target.tolist()
    assert scan.classes.tolist() == ["ham", "spam"] and scan.n_documents == 5
    assert pickle.loads(pickle.dumps(scan.files[1])).label == "ham"
    for source in (nested_corpus, scan.files):
        model = streaming.fit_files(
            bnb.MultinomialNB(), source, scan.vectorizer, classes=scan.classes, progress=False
        )
        ref = bnb.MultinomialNB().fit(scan.vectorizer.transform(b.data), b.target)
        assert_array_equal(model.feature_count_, ref.feature_count_)
        assert_array_equal(model.class_count_, [3, 2])
    docs = list(streaming.iter_documents(streaming.list_files(nested_corpus)))
    assert docs == list(zip(b.target.tolist(), b.data, strict=True))


def test_entries_that_are_not_documents_are_named(nested_corpus):
    ham = nested_corpus / "ham"
    (ham / "2024" / "loop").symlink_to(ham)  # back up the tree: read once
    (ham / "gone").symlink_to(nested_corpus / "nowhere")  # a broken link
    message = (
        f"2 entries below the class folders not read as documents: {ham / '2024' / 'loop'} (a "
        f"link to a folder already read), {ham / 'gone'} (not a regular file)"
    )
    b, said = _said(datasets.load_folder, nested_corpus)
    assert said == [message] and len(b.data) == 5
    model, said_fit = _said(_streamed, nested_corpus)
    assert said_fit == [message] and model.class_count_.tolist() == [3, 2]


def test_a_class_folder_without_documents_is_named(tmp_path):
    _write(tmp_path / "ham" / "1.txt", "hello")
    (tmp_path / "spam" / "empty").mkdir(parents=True)
    b, said = _said(datasets.load_folder, tmp_path)
    assert said == [f"class folder '{tmp_path / 'spam'}' holds no documents"]
    assert b.target.tolist() == ["ham"]


# -- CSV rows without a label -------------------------------------------------------------------
UNLABELLED = 'label,text\nham,hi\n,orphan\nspam,"two\nlines"\n\n  ,blank label\nham,x\n,z\n'


def test_csv_row_without_a_label_names_its_line(tmp_path):
    path = tmp_path / "mail.csv"
    _write(path, UNLABELLED)
    message = (
        f"CSV file '{path}' has 3 rows without a 'label' value: line 3, line 7, line 9 (line "
        "numbers of the file, the header is line 1)"
    )
    for load in (datasets.load_csv, _streamed, _scanned):
        with pytest.raises(ValueError) as exc:
            load(path)
        assert str(exc.value) == message, load
    # In chunks of 2 rows the first chunk with an unlabelled row stops the fit: line 3.
    with pytest.raises(ValueError, match=r"1 row without a 'label' value: line 3 \(line"):
        _streamed(path, chunk_size=2)
    more = tmp_path / "more.csv"
    _write(more, "label,text\n" + ",x\n" * 5)
    with pytest.raises(ValueError, match=r"5 rows .*: line 2, line 3, line 4 and 2 more \(line"):
        datasets.load_csv(more)


def test_csv_row_without_a_label_under_options_that_skip_lines(tmp_path):
    path = tmp_path / "mail.csv"
    _write(path, "# a comment\nlabel;text\nham;hi\n;orphan\n")
    with pytest.raises(ValueError, match=r"1 row without a 'label' value: data row 2 \(data rows"):
        datasets.load_csv(path, sep=";", comment="#")
    _write(path, "label;text\nham;hi\n;orphan\n")
    with pytest.raises(ValueError, match=r": line 3 \(line numbers"):
        datasets.load_csv(path, sep=";")


def test_cli_says_what_the_corpus_holds(latin1_corpus, tmp_path, capsys):
    """``bayesnb fit --data``: the warning once (the scan's, not again by the fit); an
    unlabelled CSV row exits 2 with one line naming it, streamed or in memory."""
    _write(latin1_corpus / "spam" / "empty.txt", "")
    out = tmp_path / "m.nc"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rc = main(["fit", "multinomial", "--data", str(latin1_corpus), "--out", str(out)])
    said = [str(w.message) for w in caught if issubclass(w.category, CorpusWarning)]
    assert rc == 0 and out.exists()
    assert [m.split(" (")[0] for m in said] == [
        "4 files not valid utf-8, decoded with errors='replace'",
        "1 empty document",
    ]
    path = tmp_path / "mail.csv"
    _write(path, UNLABELLED)
    for argv in (
        ["fit", "multinomial", "--data", str(path), "--out", str(tmp_path / "x.nc")],
        ["compare", "multinomial", "--data", str(path), "--no-loo"],
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("bayesnb: error: "), err
        assert "has 3 rows without a 'label' value: line 3, line 7, line 9" in err[0]
    assert not (tmp_path / "x.nc").exists()


def test_csv_line_numbers_of_a_gzip_file(tmp_path):
    import gzip

    path = tmp_path / "mail.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(UNLABELLED)
    assert corpora.csv_lines(path, [1, 3, 5], "utf-8") == {1: 3, 3: 7, 5: 9}
    with pytest.raises(ValueError, match="line 3, line 7, line 9"):
        _streamed(path)
    assert np.array_equal(corpora.missing_labels(datasets.pd.Series(["a", " ", None])), [1, 2])
