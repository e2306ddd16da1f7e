"""Dask fits and predictions, streaming fits from disk, and float32 scoring.

Every Dask fit is compared with the in-memory fit of the same data: the discrete statistics
must be identical (integer counts summed in float64 are exact), GDA's agree to rounding.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

import bayesnb as bnb
from bayesnb import streaming

da = pytest.importorskip("dask.array")
db = pytest.importorskip("dask.bag")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
bd = pytest.importorskip("bayesnb.distributed")
from bayesnb.distributed import reduce as bd_reduce  # noqa: E402 - after the skip

# Uneven row chunks with an empty one; two column chunks (joined before counting).
ROW_CHUNKS = (37, 0, 81, 2, 80)
N_ROWS = sum(ROW_CHUNKS)
N_FEATURES = 12

DISCRETE = [
    bnb.MultinomialNB(),
    bnb.MultinomialNB(alpha="evidence", estimate="bayes"),
    bnb.BernoulliNB(binarize=1.0),
    bnb.CategoricalNB(),
]
GAUSSIAN = [bnb.GDA(covariance=c) for c in ("shared", "per_class", "diagonal")]


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes: statistics really travel pickled."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        memory_limit="1GiB",
    )
    # Not the default scheduler: the "threads" cases must not silently run on the cluster.
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c
    cluster.close()


def _data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["ant", "bee", "cat"]), N_ROWS)
    # Counts with class-dependent rates; category values reach 6 only in the last chunk,
    # so chunks of CategoricalNB see different numbers of categories.
    rates = {"ant": 0.5, "bee": 1.0, "cat": 2.0}
    X = rng.poisson([[rates[c]] * N_FEATURES for c in y]).astype(np.float64)
    X[-3:, 0] = 6
    return X, y


def _dask_X(X, sparse: bool):
    chunks = (ROW_CHUNKS, (N_FEATURES // 2, N_FEATURES - N_FEATURES // 2))
    if sparse:
        return da.from_array(sp.csr_matrix(X), chunks=chunks, asarray=False)
    return da.from_array(X, chunks=chunks)


def _fit_dask(est, X, y, scheduler, client, **kwargs):
    if scheduler == "cluster":
        return bd.fit(est, X, y, client=client, **kwargs)
    with dask.config.set(scheduler="threads"):
        return bd.fit(est, X, y, **kwargs)


def _assert_same_discrete(got, ref):
    assert_array_equal(got.classes_, ref.classes_)
    assert got.n_features_in_ == ref.n_features_in_
    assert_array_equal(got.class_count_, ref.class_count_)
    assert_array_equal(got.feature_count_, ref.feature_count_)
    if isinstance(ref, bnb.CategoricalNB):
        assert_array_equal(got.n_categories_, ref.n_categories_)
        assert_array_equal(got._flat_count, ref._flat_count)
    if isinstance(ref, bnb.MultinomialNB):
        assert_array_equal(got.length_count_.toarray(), ref.length_count_.toarray())
    assert got.alpha_ == ref.alpha_


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("model", DISCRETE, ids=repr)
def test_dask_fit_equals_memory_fit_discrete(model, sparse, scheduler, client):
    X, y = _data()
    ref = clone(model).fit(X, y)
    yd = da.from_array(y, chunks=(ROW_CHUNKS,))
    got = _fit_dask(clone(model), _dask_X(X, sparse), yd, scheduler, client)
    _assert_same_discrete(got, ref)
    assert_array_equal(got.predict_proba(X), ref.predict_proba(X))


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
@pytest.mark.parametrize("model", GAUSSIAN, ids=repr)
def test_dask_fit_equals_memory_fit_gda(model, scheduler, client):
    X, y = _data()
    X = X + np.random.default_rng(1).normal(size=X.shape) + 1e3  # far from the origin
    ref = clone(model).fit(X, y)
    got = _fit_dask(clone(model), _dask_X(X, False), y, scheduler, client)
    assert_array_equal(got.class_count_, ref.class_count_)
    assert_allclose(got._stats.mean, ref._stats.mean, rtol=1e-13)
    assert_allclose(got._stats.scatter, ref._stats.scatter, rtol=1e-10, atol=1e-9)
    assert_allclose(got.predict_proba(X), ref.predict_proba(X), rtol=1e-9, atol=1e-12)


def test_gda_sparse_chunks_are_refused():
    X, y = _data()
    with pytest.raises((TypeError, ValueError), match=r"[Ss]parse"):
        bnb.GDA().fit(_dask_X(X, True), da.from_array(y, chunks=(ROW_CHUNKS,)))


def test_estimator_fit_delegates_to_dask_with_weights():
    X, y = _data()
    w = np.random.default_rng(2).integers(0, 4, N_ROWS).astype(float)
    ref = bnb.MultinomialNB().fit(X, y, sample_weight=w)
    wd = da.from_array(w, chunks=50)  # other chunks than X: rechunked to match
    got = bnb.MultinomialNB().fit(_dask_X(X, True), y, sample_weight=wd)
    _assert_same_discrete(got, ref)


@pytest.mark.filterwarnings("ignore:the evidence keeps increasing:RuntimeWarning")
def test_statistics_hook_is_pure():
    X, y = _data()
    for est in [*map(clone, DISCRETE), bnb.GDA()]:
        est.fit(X[:100], y[:100])
        state = dict(vars(est))
        if isinstance(est, bnb.GDA):
            state |= {f"_stats.{k}": v for k, v in vars(est._stats).items()}
        before = {k: np.copy(v) for k, v in state.items() if isinstance(v, np.ndarray)}
        assert len(before) >= 2
        _, codes = np.unique(y[100:], return_inverse=True)
        stats = est._statistics(est._check_input(X[100:], reset=False), codes, np.ones(100))
        assert stats["class_count" if "class_count" in stats else "gaussian"] is not None
        after = dict(vars(est))
        if isinstance(est, bnb.GDA):
            after |= {f"_stats.{k}": v for k, v in vars(est._stats).items()}
        for k, v in before.items():
            assert_array_equal(after[k], v)


def test_combine_statistics_ships_sparse_tables_exactly():
    rng = np.random.default_rng(3)
    mostly_zero = np.where(rng.random((4, 50)) < 0.1, rng.integers(1, 9, (4, 50)), 0.0)
    full = rng.integers(1, 9, (4, 50)).astype(float)
    assert isinstance(bd_reduce._pack(mostly_zero), bd_reduce._Packed)
    assert isinstance(bd_reduce._pack(full), np.ndarray)
    for x, z in [(mostly_zero, mostly_zero), (mostly_zero, full), (full, mostly_zero)]:
        x0, z0 = x.copy(), z.copy()
        out = bd.combine_statistics({"t": bd_reduce._pack(x)}, {"t": bd_reduce._pack(z)})["t"]
        assert_array_equal(bd._unpack(out), x + z)
        assert_array_equal(x, x0)  # inputs untouched: task results may be shared
        assert_array_equal(z, z0)
    with pytest.raises(ValueError, match="cannot combine statistics"):
        bd.combine_statistics({"a": full}, {"b": full})
    # A node of the reduction tree: any mix of packed, dense and empty (None) chunks.
    parts = [
        {"t": bd_reduce._pack(mostly_zero)},
        None,
        {"t": full},
        {"t": bd_reduce._pack(mostly_zero)},
    ]
    for pack in (False, True):
        out = bd._combine(pack, *parts)["t"]
        assert_array_equal(bd._unpack(out), 2 * mostly_zero + full)
    assert bd._combine(True, None, None) is None
    # Packed only when results cross processes; threads share them in memory.
    assert bd._crosses_processes(object())
    with dask.config.set(scheduler="threads"):
        assert not bd._crosses_processes(None)
    with dask.config.set(scheduler="processes"):
        assert bd._crosses_processes(None)


# -- labels ----------------------------------------------------------------------------------
def _late_class_data():
    """'cat' appears only in the last chunk, so no first chunk holds every class."""
    X, y = _data()
    y = np.where(y == "cat", "bee", y)
    y[-10:] = "cat"
    return X, y


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
def test_class_in_some_chunks_only(scheduler, client):
    X, y = _late_class_data()
    ref = bnb.MultinomialNB().fit(X, y)
    yd = da.from_array(y, chunks=(ROW_CHUNKS,))
    # classes=None: the first pass over y finds 'cat'.
    got = _fit_dask(bnb.MultinomialNB(), _dask_X(X, False), yd, scheduler, client)
    _assert_same_discrete(got, ref)
    declared = _fit_dask(
        bnb.MultinomialNB(), _dask_X(X, False), yd, scheduler, client, classes=["ant", "bee", "cat"]
    )
    _assert_same_discrete(declared, ref)


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
def test_undeclared_label_raises(scheduler, client):
    X, y = _late_class_data()
    yd = da.from_array(y, chunks=(ROW_CHUNKS,))
    with pytest.raises(ValueError, match=r"chunk 4 of y holds labels \['cat'\] not in classes"):
        _fit_dask(
            bnb.MultinomialNB(), _dask_X(X, False), yd, scheduler, client, classes=["ant", "bee"]
        )


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
@pytest.mark.parametrize("model", [bnb.MultinomialNB(), bnb.CategoricalNB()], ids=repr)
def test_reduction_tree_levels_and_refit_in_place(model, scheduler, client):
    # split_every=2 over 5 chunks: two levels of tasks (5 -> 3 -> 2), the last two summed by
    # the caller; the fitted tables are the estimator's own (writeable), so partial_fit adds.
    X, y = _data()
    got = _fit_dask(clone(model), _dask_X(X, True), y, scheduler, client, split_every=2)
    _assert_same_discrete(got, clone(model).fit(X, y))
    assert all(a.flags.writeable for a in vars(got).values() if isinstance(a, np.ndarray))
    got.partial_fit(X[:40], y[:40])
    ref = clone(model).fit(X, y).partial_fit(X[:40], y[:40])
    _assert_same_discrete(got, ref)


def test_a_task_reading_both_x_and_y_runs_once():
    # One read per chunk gives X and y (a file holding both): fusing the graphs of X and y
    # separately would run every read twice.
    X, y = _data()
    calls = []

    def read(i):
        calls.append(i)
        rows = slice(50 * i, 50 * (i + 1))
        return sp.csr_matrix(X[rows]), y[rows]

    parts = [dask.delayed(read)(i) for i in range(3)]
    meta = sp.csr_matrix((0, N_FEATURES))
    Xd = da.concatenate(
        [da.from_delayed(p[0], (50, N_FEATURES), dtype=float, meta=meta) for p in parts]
    )
    yd = da.concatenate([da.from_delayed(p[1], (50,), dtype=y.dtype) for p in parts])
    with dask.config.set(scheduler="threads"):
        got = bd.fit(bnb.MultinomialNB(), Xd, yd, classes=["ant", "bee", "cat"])
    assert sorted(calls) == [0, 1, 2]  # (classes=None would read y once more to find them)
    _assert_same_discrete(got, bnb.MultinomialNB().fit(X[:150], y[:150]))


def test_cluster_results_come_straight_from_the_workers(client):
    # A LocalCluster's scheduler listens on loopback: tables skip the scheduler hop, unless
    # the client says otherwise.
    assert client.scheduler.address.startswith("tcp://127.0.0.1:")
    assert client.direct_to_workers is None and bd_reduce._gather_direct(client) is True
    client.direct_to_workers = False
    try:
        assert bd_reduce._gather_direct(client) is False
        X, y = _data()
        got = bd.fit(bnb.MultinomialNB(), _dask_X(X, True), y, client=client)
        _assert_same_discrete(got, bnb.MultinomialNB().fit(X, y))
    finally:
        client.direct_to_workers = None


def test_declared_class_without_documents_is_kept():
    X, y = _data()
    got = bd.fit(bnb.MultinomialNB(), _dask_X(X, False), y, classes=["ant", "bee", "cat", "dog"])
    ref = bnb.MultinomialNB().partial_fit(X, y, classes=["ant", "bee", "cat", "dog"])
    _assert_same_discrete(got, ref)


def test_misaligned_and_bad_input_errors():
    X, y = _data()
    Xd = _dask_X(X, False)
    with pytest.raises(ValueError, match="y has 3 chunks but X has 5"):
        three = [dask.delayed(p.tolist()) for p in np.array_split(y, 3)]
        bd.fit(bnb.MultinomialNB(), Xd, db.from_delayed(three))
    with pytest.raises(ValueError, match="y has 10 entries but X has 200 rows"):
        bd.fit(bnb.MultinomialNB(), Xd, y[:10])
    with pytest.raises(ValueError, match="at least 2 classes"):
        bd.fit(bnb.MultinomialNB(), Xd, np.full(N_ROWS, "ant"))
    with pytest.raises(TypeError, match="X must be a dask array or dask bag"):
        bd.fit(bnb.MultinomialNB(), X, y)
    with pytest.raises(ValueError, match="split_every"):
        bd.fit(bnb.MultinomialNB(), Xd, y, split_every=1)
    # One chunk of y one label short: detected on the worker, naming the chunk.
    parts = [p.tolist() for p in np.split(y, np.cumsum(ROW_CHUNKS)[:-1])]
    parts[2] = parts[2][:-1]
    y_short = db.from_delayed([dask.delayed(p) for p in parts])
    with pytest.raises(ValueError, match="chunk 2: X has 81 rows but y has 80 labels"):
        bd.fit(bnb.MultinomialNB(), Xd, y_short, classes=["ant", "bee", "cat"])


# -- texts -----------------------------------------------------------------------------------
DOCS = [
    ("sport", "the match ended with a late goal and the crowd cheered"),
    ("sport", "the team won the match after extra time"),
    ("politics", "the parliament passed the budget after a long debate"),
    ("politics", "voters elected a new parliament in the spring"),
    ("science", "the telescope found a planet around a distant star"),
    ("science", "a new vaccine passed its first trial"),
    ("sport", "a goal in extra time won the cup"),
]


def _corpus(n_copies=5):
    labels, texts = zip(*(DOCS * n_copies), strict=True)
    return np.array(labels), list(texts)


@pytest.mark.parametrize("scheduler", ["threads", "cluster"])
def test_dask_bag_of_texts_equals_memory_fit(scheduler, client):
    labels, texts = _corpus()
    vec = HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None)
    ref = bnb.MultinomialNB().fit(vec.transform(texts), labels)
    got = _fit_dask(
        bnb.MultinomialNB(),
        db.from_sequence(texts, npartitions=4),
        db.from_sequence(labels.tolist(), npartitions=4),
        scheduler,
        client,
        vectorizer=vec,
    )
    _assert_same_discrete(got, ref)


def test_default_vectorizer_and_vectorizer_checks():
    labels, texts = _corpus()
    bag = db.from_sequence(texts, npartitions=3)
    y = db.from_sequence(labels.tolist(), npartitions=3)
    got = bd.fit(bnb.BernoulliNB(), bag, y)
    ref = bnb.BernoulliNB().fit(streaming.default_vectorizer().transform(texts), labels)
    _assert_same_discrete(got, ref)
    with pytest.raises(ValueError, match="alternate_sign=True"):
        bd.fit(bnb.MultinomialNB(), bag, y, vectorizer=HashingVectorizer())
    with pytest.raises(ValueError, match="not fitted"):
        bd.fit(bnb.MultinomialNB(), bag, y, vectorizer=CountVectorizer())
    fitted = CountVectorizer().fit(texts)  # a fixed vocabulary works chunk by chunk
    got = bd.fit(bnb.MultinomialNB(), bag, y, vectorizer=fitted)
    _assert_same_discrete(got, bnb.MultinomialNB().fit(fitted.transform(texts), labels))
    with pytest.raises(ValueError, match="vectorizer= is for"):
        bd.fit(bnb.MultinomialNB(), _dask_X(*_data()[:1], False), _data()[1], vectorizer=fitted)


# -- predict ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "sparse"),
    [(m, s) for m in DISCRETE for s in (False, True)] + [(m, False) for m in GAUSSIAN],
    ids=repr,
)
def test_dask_predict_returns_lazy_dask_arrays(model, sparse, client):
    X, y = _data()
    est = clone(model).fit(X, y)
    Xd = _dask_X(X, sparse)
    proba = est.predict_proba(Xd)
    assert isinstance(proba, da.Array)
    assert proba.shape == (N_ROWS, 3) and proba.chunks[0] == ROW_CHUNKS
    assert_allclose(proba.compute(scheduler="threads"), est.predict_proba(X), rtol=1e-12)
    log_proba = bd.predict_log_proba(est, Xd)
    assert isinstance(log_proba, da.Array)
    assert_allclose(
        client.compute(log_proba).result(), est.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )
    labels = est.predict(Xd)
    assert isinstance(labels, da.Array) and labels.dtype == est.classes_.dtype
    assert_array_equal(labels.compute(scheduler="threads"), est.predict(X))
    joint = est.predict_joint_log_proba(Xd) if not isinstance(est, bnb.GDA) else None
    if joint is not None:
        assert_allclose(joint.compute(), est.predict_joint_log_proba(X), rtol=1e-12)


def test_dask_predict_errors():
    X, y = _data()
    est = bnb.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="method must be one of"):
        bd.predict_method(est, "score", _dask_X(X, False))
    with pytest.raises(TypeError, match="vectorize"):
        bd.predict_proba(est, db.from_sequence(["a b"]))
    with pytest.raises(Exception, match="not fitted"):
        bd.predict_proba(bnb.MultinomialNB(), _dask_X(X, False))


# -- streaming from disk ---------------------------------------------------------------------
def _write_folder(root, docs):
    for i, (label, text) in enumerate(docs):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"doc{i:03d}.txt").write_text(text, encoding="utf-8")
    (root / "sport" / ".hidden").write_text("never read", encoding="utf-8")
    (root / "README.txt").write_text("files next to the class folders are skipped")


def _memory_fit(est, docs, vec):
    labels = np.array([label for label, _ in docs])
    return est.fit(vec.transform([text for _, text in docs]), labels)


@pytest.mark.parametrize("model", [bnb.MultinomialNB(), bnb.BernoulliNB()], ids=repr)
def test_streaming_fit_from_folder_equals_memory_fit(model, tmp_path, capsys):
    docs = DOCS * 3
    _write_folder(tmp_path, docs)
    vec = HashingVectorizer(n_features=2**12, alternate_sign=False, norm=None)
    got = streaming.fit_files(clone(model), tmp_path, vectorizer=vec, chunk_size=4)
    # load_files order (class folder by folder) differs from ``docs``: sums do not care.
    ref = _memory_fit(clone(model), docs, vec)
    _assert_same_discrete(got, ref)
    assert_array_equal(
        got.predict_proba(vec.transform(["a late goal"])),
        ref.predict_proba(vec.transform(["a late goal"])),
    )
    err = capsys.readouterr().err
    # Not a terminal: no \r; the run is shorter than the 1 s throttle, so only the summary.
    assert re.fullmatch(rf"fit: {len(docs)} documents in [\d.]+ s \([\d,]+ documents/s\)\n", err)
    # Refitting discards the previous fit (fit semantics, not partial_fit).
    again = streaming.fit_files(got, tmp_path, vectorizer=vec, chunk_size=100, progress=False)
    _assert_same_discrete(again, ref)
    assert capsys.readouterr().err == ""


def test_streaming_fit_from_csv_and_glob(tmp_path):
    docs = [*DOCS, ("science", 'a "quoted", comma-laden\nmulti-line abstract')] * 2
    with open(tmp_path / "part1.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "text", "label"])
        for i, (label, text) in enumerate(docs):
            writer.writerow([i, text, label])
    vec = streaming.default_vectorizer(2**12)
    ref = _memory_fit(bnb.MultinomialNB(), docs, vec)
    got = streaming.fit_files(
        bnb.MultinomialNB(), str(tmp_path / "*.csv"), vec, chunk_size=5, progress=False
    )
    _assert_same_discrete(got, ref)
    # A folder holding only CSV files reads them; a list mixes layouts.
    got = streaming.fit_files(bnb.MultinomialNB(), tmp_path, vec, progress=False)
    _assert_same_discrete(got, ref)
    _write_folder(tmp_path / "texts", DOCS)
    mixed = streaming.fit_files(
        bnb.MultinomialNB(),
        [tmp_path / "part1.csv", str(tmp_path / "texts" / "*" / "*.txt")],
        vec,
        progress=False,
    )
    _assert_same_discrete(mixed, _memory_fit(bnb.MultinomialNB(), docs + DOCS, vec))


def test_streaming_errors(tmp_path):
    (tmp_path / "bad.csv").write_text("label,body\nsport,goal\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['text'\]"):
        streaming.fit_files(bnb.MultinomialNB(), tmp_path / "bad.csv", progress=False)
    with pytest.raises(FileNotFoundError, match="matches no file"):
        streaming.fit_files(bnb.MultinomialNB(), str(tmp_path / "*.txt"), progress=False)
    with pytest.raises(ValueError, match="chunk_size must be"):
        streaming.fit_files(bnb.MultinomialNB(), tmp_path, chunk_size=0)
    _write_folder(tmp_path / "c", DOCS)
    with pytest.raises(ValueError, match=r"holds labels \['politics'\] not in classes"):
        streaming.fit_files(
            bnb.MultinomialNB(), tmp_path / "c", classes=["sport", "science"], progress=False
        )


def test_streaming_progress_lines_and_terminal(tmp_path, monkeypatch):
    _write_folder(tmp_path, DOCS * 3)
    # A line per chunk (no throttle), then the summary; a terminal gets \r-rewritten lines.
    monkeypatch.setattr(streaming, "PROGRESS_INTERVAL", 0.0)
    for tty in (False, True):
        stream = io.StringIO()
        stream.isatty = lambda tty=tty: tty
        monkeypatch.setattr(streaming.sys, "stderr", stream)
        streaming.fit_files(bnb.MultinomialNB(), tmp_path, chunk_size=8)
        text = stream.getvalue()
        lines = text.replace("\r\033[K", "\n").split("\n")
        lines = [line for line in lines if line]
        assert [line.split(" documents")[0] for line in lines] == [
            "fit: 8 / 21",
            "fit: 16 / 21",
            "fit: 21 / 21",
            "fit: 21",
        ]
        assert "(38%)" in lines[0] and lines[-1].endswith("documents/s)")
        assert ("\r" in text) == tty and text.endswith("\n")


def test_scan_files_vocabulary_equals_in_memory_count_vectorizer(tmp_path):
    docs = [*DOCS, ("science", "Ünïcode wörds, Mixed CASE and a-b hyphens\r\nsecond line")]
    _write_folder(tmp_path / "f", docs)
    scan = streaming.scan_files(tmp_path / "f", chunk_size=3, progress=False)
    labels = sorted(label for label, _ in docs)
    texts = [t for _, t in sorted(docs, key=lambda d: d[0])]
    ref = CountVectorizer().fit(texts)
    assert_array_equal(scan.vectorizer.get_feature_names_out(), ref.get_feature_names_out())
    assert scan.n_documents == len(docs) and scan.classes.tolist() == sorted(set(labels))
    model = streaming.fit_files(
        bnb.MultinomialNB(),
        scan.files,
        scan.vectorizer,
        chunk_size=2,
        classes=scan.classes,
        progress=False,
    )
    _assert_same_discrete(model, bnb.MultinomialNB().fit(ref.transform(texts), labels))
    # Tokenisation settings are kept, and the pruning of CountVectorizer.fit applied.
    for settings in (
        {"ngram_range": (1, 2), "lowercase": False},
        {"min_df": 2},
        {"max_df": 0.6, "ngram_range": (1, 2)},
        {"max_features": 3},
        {"max_features": 4, "binary": True, "stop_words": ["the"]},
    ):
        scanned = streaming.scan_files(tmp_path / "f", CountVectorizer(**settings), progress=False)
        ref2 = CountVectorizer(**settings).fit(texts)
        assert_array_equal(scanned.vectorizer.get_feature_names_out(), ref2.get_feature_names_out())
    with pytest.raises(ValueError, match="must not fix one"):
        streaming.scan_files(tmp_path / "f", CountVectorizer(vocabulary=["a"]), progress=False)
    (tmp_path / "stop" / "a").mkdir(parents=True)
    (tmp_path / "stop" / "b").mkdir()
    (tmp_path / "stop" / "a" / "1.txt").write_text("a b c")
    (tmp_path / "stop" / "b" / "1.txt").write_text("!")
    with pytest.raises(ValueError, match="empty vocabulary"):
        streaming.scan_files(tmp_path / "stop", progress=False)


def test_streamed_csv_labels_are_typed_like_load_csv(tmp_path):
    from bayesnb.datasets import load_csv

    path = tmp_path / "numbers.csv"
    rows = ["label,text"] + [f"{i % 3},word{i % 5} common" for i in range(30)] + ['1,"NA"']
    path.write_text("\n".join(rows) + "\n")
    texts, y = load_csv(path, return_X_y=True)
    vec = streaming.default_vectorizer(2**10)
    ref = bnb.MultinomialNB().fit(vec.transform(texts), y)
    # Chunks of 4 rows: a chunk of only "1"s must not be typed apart from the rest.
    got = streaming.fit_files(bnb.MultinomialNB(), path, vec, chunk_size=4, progress=False)
    assert got.classes_.dtype.kind == "i" and got.classes_.tolist() == [0, 1, 2]
    _assert_same_discrete(got, ref)
    scan = streaming.scan_files(path, chunk_size=4, progress=False)
    assert scan.classes.tolist() == [0, 1, 2] and scan.n_documents == 31
    (tmp_path / "nolabel.csv").write_text("label,text\na,x y\n,z w\n")
    with pytest.raises(ValueError, match="without a 'label' value"):
        streaming.fit_files(bnb.MultinomialNB(), tmp_path / "nolabel.csv", progress=False)


# -- float32 ---------------------------------------------------------------------------------
def _zipf_corpus(n_docs=3000, n_features=5000, n_classes=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_docs)
    p = 1.0 / np.arange(1, n_features + 1) ** 1.1
    tables = np.stack([rng.permutation(p) for _ in range(n_classes)]) + 3 * p
    tables /= tables.sum(axis=1, keepdims=True)
    X = sp.vstack([sp.csr_matrix(rng.multinomial(30, tables[c])) for c in y]).astype(float)
    return X.tocsr(), y


@pytest.mark.parametrize(
    "model",
    [
        bnb.MultinomialNB(),
        bnb.MultinomialNB(unk=True),
        bnb.BernoulliNB(),
        bnb.BernoulliNB(estimate="map", alpha=2.0),
    ],
    ids=repr,
)
def test_float32_argmax_equals_float64_on_synthetic_corpus(model):
    X, y = _zipf_corpus()
    X_test, _ = _zipf_corpus(n_docs=2000, seed=1)
    f64 = clone(model).fit(X, y)
    f32 = clone(model).set_params(dtype=np.float32).fit(X, y)
    assert_array_equal(f32.feature_count_, f64.feature_count_)  # counts stay exact
    assert f32.feature_count_.dtype == np.float64
    assert f32.feature_log_prob_.dtype == np.float32
    assert f32.feature_log_prob_.nbytes * 2 == f64.feature_log_prob_.nbytes
    assert_array_equal(f32.predict(X_test), f64.predict(X_test))
    assert_allclose(f32.predict_proba(X_test), f64.predict_proba(X_test), atol=1e-3)


@pytest.mark.parametrize(
    "model",
    [bnb.MultinomialNB(), bnb.BernoulliNB(binarize=7.0), bnb.CategoricalNB()],
    ids=repr,
)
def test_float32_argmax_equals_float64_on_digits(model):
    X, y = load_digits(return_X_y=True)
    f64 = clone(model).fit(X[:1200], y[:1200])
    f32 = clone(model).set_params(dtype="float32").fit(X[:1200], y[:1200])
    table = f32._flat_log_prob if isinstance(model, bnb.CategoricalNB) else f32.feature_log_prob_
    assert table.dtype == np.float32
    assert_array_equal(f32.predict(X[1200:]), f64.predict(X[1200:]))
    assert_allclose(f32.predict_proba(X[1200:]), f64.predict_proba(X[1200:]), atol=1e-4)


def test_dtype_is_validated_and_float32_works_on_dask():
    X, y = _data()
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        bnb.MultinomialNB(dtype=np.int32).fit(X, y)
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        bnb.BernoulliNB(dtype="half-precision").fit(X, y)
    est = bnb.MultinomialNB(dtype=np.float32).fit(_dask_X(X, True), y)
    assert est.feature_log_prob_.dtype == np.float32
    assert_array_equal(est.predict(_dask_X(X, True)).compute(), est.predict(X))
