"""Save/load: bitwise round trips, refusals, corruption and crash safety."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import io
from tests.file_helpers import craft

MODELS = {
    "bernoulli": bnb.BernoulliNB,
    "multinomial": bnb.MultinomialNB,
    "categorical": bnb.CategoricalNB,
}


def _data(labels: str, seed: int = 0, n: int = 120):
    rng = np.random.default_rng(seed)
    codes = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    X = rng.poisson(rng.gamma(0.6, 2.0, (3, 6))[codes])
    X = np.minimum(X, 4).astype(float)
    X[:, 5] = 0.0  # never seen (pooled by unk=True)
    y = np.array(["spam", "ham", "eggs"])[codes] if labels == "str" else codes * 10 - 5
    return X, y


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("estimate", ["mle", "map", "mean", "bayes"])
@pytest.mark.parametrize("labels", ["str", "int"])
def test_round_trip_is_bitwise(tmp_path, kind, estimate, labels):
    X, y = _data(labels)
    est = MODELS[kind](alpha=2.0, class_alpha=2.0, estimate=estimate).fit(X, y)
    path = tmp_path / "model.nc"
    est.save(path)
    back = bnb.load(path)
    assert type(back) is type(est)
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.classes_, est.classes_)
    assert back.classes_.dtype == est.classes_.dtype
    X_new = X.copy()
    X_new[0, 5] = 3.0  # exercises the pooled/unseen paths
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the MLE's impossible documents
        p_est = est.predict_proba(X_new)
        p_back = back.predict_proba(X_new)
        np.testing.assert_array_equal(back.predict(X_new), est.predict(X_new))
    assert np.array_equal(p_est, p_back, equal_nan=True)


def test_dataframe_feature_names_object_labels_and_learned_alpha(tmp_path):
    X, y = _data("str")
    df = pd.DataFrame(X, columns=[f"w_{j}" for j in range(6)])
    est = bnb.MultinomialNB(alpha="evidence", class_alpha="evidence", unk=True)
    est.fit(df, pd.Series(y, dtype=object))
    assert est.classes_.dtype == object
    path = tmp_path / "m.nc"
    est.save(path)
    back = bnb.load(path, expected="MultinomialNB")
    assert back.classes_.dtype == object and list(back.classes_) == list(est.classes_)
    np.testing.assert_array_equal(back.feature_names_in_, est.feature_names_in_)
    assert back.alpha_ == est.alpha_ and back.class_alpha_ == est.class_alpha_
    np.testing.assert_array_equal(back.predict_proba(df), est.predict_proba(df))
    np.testing.assert_array_equal(back.length_count_.toarray(), est.length_count_.toarray())
    with pytest.raises(ValueError, match="feature names"):
        back.predict_proba(df.rename(columns={"w_0": "other"}))


def test_array_parameters_and_fixed_class_prior(tmp_path):
    X, y = _data("int")
    est = bnb.BernoulliNB(alpha=np.linspace(0.5, 2.0, 6), beta=1.5, class_prior=[0.2, 0.3, 0.5])
    est.fit(X, y)
    est.save(tmp_path / "b.nc")
    back = bnb.load(tmp_path / "b.nc", expected=bnb.BernoulliNB)
    np.testing.assert_array_equal(back.alpha, est.alpha)
    assert back.alpha.dtype == np.float64
    np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))


def test_loaded_model_keeps_learning(tmp_path):
    X, y = _data("int")
    first = bnb.CategoricalNB().partial_fit(X[:60], y[:60], classes=np.unique(y))
    first.save(tmp_path / "c.nc")
    resumed = bnb.load(tmp_path / "c.nc").partial_fit(X[60:], y[60:])
    whole = bnb.CategoricalNB().fit(X, y)
    np.testing.assert_array_equal(resumed.predict_proba(X), whole.predict_proba(X))


def test_wrong_model_type_is_refused(tmp_path):
    X, y = _data("int")
    bnb.MultinomialNB().fit(X, y).save(tmp_path / "m.nc")
    with pytest.raises(ValueError, match=r"holds a MultinomialNB, not the expected BernoulliNB"):
        bnb.load(tmp_path / "m.nc", expected="BernoulliNB")
    with pytest.raises(ValueError, match="not the expected CategoricalNB"):
        bnb.load(tmp_path / "m.nc", expected=bnb.CategoricalNB)


def test_newer_format_version_is_refused(tmp_path, monkeypatch):
    X, y = _data("int")
    est = bnb.BernoulliNB().fit(X, y)
    monkeypatch.setattr(io, "FORMAT_VERSION", io.FORMAT_VERSION + 1)
    est.save(tmp_path / "new.nc")
    monkeypatch.undo()
    with pytest.raises(ValueError, match=rf"format_version {io.FORMAT_VERSION + 1}, newer"):
        bnb.load(tmp_path / "new.nc")


def test_truncated_file_gives_a_clear_error(tmp_path):
    X, y = _data("int")
    path = tmp_path / "t.nc"
    bnb.MultinomialNB().fit(X, y).save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a readable bayesnb model file"):
        bnb.load(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="not a readable bayesnb model file"):
        bnb.load(path)
    with pytest.raises(FileNotFoundError):
        bnb.load(tmp_path / "missing.nc")


def test_flipped_byte_in_the_statistics_fails_the_checksum(tmp_path):
    X, y = _data("int")
    est = bnb.MultinomialNB().fit(X, y)
    path = tmp_path / "f.nc"
    est.save(path)
    data = bytearray(path.read_bytes())
    raw = np.ascontiguousarray(est.feature_count_, dtype="<f8").tobytes()
    at = bytes(data).find(raw)
    assert at > 0  # stored uncompressed and contiguous
    data[at + 3 * 8 + 6] ^= 0x01  # one bit of one count
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        bnb.load(path)


def test_crash_mid_write_keeps_the_old_file(tmp_path, monkeypatch):
    X, y = _data("int")
    path = tmp_path / "model.nc"
    old = bnb.MultinomialNB().fit(X, y)
    old.save(path)
    before = path.read_bytes()
    seen = []

    def crash(tree, tmp):
        seen.append(tmp)
        with open(tmp, "wb") as fh:
            fh.write(b"\x89HDF\r\n partial")
        raise OSError("disk full")

    monkeypatch.setattr(io, "_write_netcdf", crash)
    with pytest.raises(OSError, match="disk full"):
        bnb.MultinomialNB(alpha=3.0).fit(X, y).save(path)
    assert seen and seen[0] != str(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.nc"]
    np.testing.assert_array_equal(bnb.load(path).predict_proba(X), old.predict_proba(X))


def test_saved_file_has_normal_permissions(tmp_path):
    # The temporary file behind the atomic write is created 0600; the model must not stay so.
    import os

    X, y = _data("int")
    path = tmp_path / "model.nc"
    umask = os.umask(0o022)
    try:
        bnb.MultinomialNB().fit(X, y).save(path)
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644


def test_file_holds_data_only(tmp_path):
    import xarray as xr

    X, y = _data("str")
    bnb.CategoricalNB().fit(X, y).save(tmp_path / "c.nc")
    with xr.open_datatree(tmp_path / "c.nc", engine="h5netcdf") as tree:
        attrs = dict(tree.attrs)
        stats = tree["statistics"].to_dataset()
        assert attrs["model"] == "CategoricalNB"
        assert attrs["format_version"] == io.FORMAT_VERSION
        assert attrs["bayesnb_version"] == bnb.__version__
        assert len(attrs["checksum"]) == 64
        assert set(stats.data_vars) == {"class_count", "category_count", "n_categories"}
        assert list(stats["class"].values) == ["eggs", "ham", "spam"]
    assert b"pickle" not in (tmp_path / "c.nc").read_bytes()


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot be saved"):
        io.save(object(), tmp_path / "x.nc")
    X, _ = _data("int")
    y = np.array([(1, 2), "a"] * 60, dtype=object)
    est = bnb.MultinomialNB().fit(X, [str(v) for v in y])
    est.classes_ = np.array([(1, 2), "a"], dtype=object)
    with pytest.raises(TypeError, match="labels must be numbers or strings"):
        est.save(tmp_path / "x.nc")
    assert list(tmp_path.iterdir()) == []


def test_random_bit_flips_load_identically_or_fail_with_value_error(tmp_path):
    X, y = _data("str")
    est = bnb.CategoricalNB().fit(X, y)
    path = tmp_path / "m.nc"
    est.save(path)
    original = path.read_bytes()
    expected = est.predict_proba(X)
    rng = np.random.default_rng(0)
    outcomes = {"same": 0, "refused": 0}
    for _ in range(24):
        data = bytearray(original)
        data[int(rng.integers(len(data)))] ^= 1 << int(rng.integers(8))
        path.write_bytes(bytes(data))
        try:
            back = bnb.load(path)
        except ValueError:
            outcomes["refused"] += 1
            continue
        np.testing.assert_array_equal(back.predict_proba(X), expected)  # never silently wrong
        outcomes["same"] += 1
    assert outcomes["refused"] > 6


# -- files from elsewhere: data only, refused before allocating, versions -------------------------
def _craft(src, dst, edit, reseal: bool = True):
    """Copy the model file ``src`` to ``dst`` with ``edit(tree)`` applied (checksum redone)."""
    return craft(src, dst, edit, reseal)


def _set_json(attr: str, **changes):
    def edit(tree):
        value = json.loads(tree.attrs[attr])
        value.update(changes)
        tree.attrs[attr] = json.dumps(value, sort_keys=True)

    return edit


def _set_stat(var: str, change):
    def edit(tree):
        ds = tree["statistics"].to_dataset()
        ds[var] = ds[var].copy(data=change(ds[var].values.copy()))
        tree["statistics"].dataset = ds

    return edit


def _set_attr(**attrs):
    def edit(tree):
        tree.attrs.update(attrs)

    return edit


@pytest.fixture
def saved(tmp_path):
    X, y = _data("int")
    paths = {}
    for kind, cls in MODELS.items():
        paths[kind] = tmp_path / f"{kind}.nc"
        cls(alpha=2.0).fit(X, y).save(paths[kind])
    return paths


def test_loading_never_unpickles(saved, monkeypatch):
    import pickle

    def refuse(*_a, **_k):
        raise AssertionError("pickle used while loading")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    X, _ = _data("int")
    for path in saved.values():
        assert bnb.load(path).predict_proba(X).shape == (X.shape[0], 3)


PWNED = "__import__('pathlib').Path('PWNED').touch()"


@pytest.mark.parametrize(
    ("kind", "edit", "match"),
    [
        (
            "multinomial",
            _set_json("params", alpha=PWNED),
            r"invalid MultinomialNB parameters.*alpha",
        ),
        (
            "bernoulli",
            _set_json("params", estimate="lambda x: x"),
            r"invalid BernoulliNB.*estimate",
        ),
        ("multinomial", _set_json("params", alpha={"__reduce__": PWNED}), "undecodable"),
        ("multinomial", _set_json("params", alpha={"__ndarray__": [1], "dtype": "O"}), "dtype"),
        ("categorical", _set_json("params", __class__="os.system"), "unknown CategoricalNB param"),
        ("multinomial", _set_json("params", class_prior=[0.5, 0.5]), "class_prior"),
        ("multinomial", _set_json("params", alpha=-1.0), "alpha"),
        ("multinomial", _set_json("fitted", alpha_=PWNED), r"invalid.*alpha_"),
        ("bernoulli", _set_json("fitted", class_alpha_=-3.0), "class_alpha"),
        ("multinomial", _set_attr(model="builtins.eval"), "not one of"),
        ("multinomial", _set_attr(model="bayesnb.naive_bayes.MultinomialNB"), "not one of"),
        ("multinomial", _set_attr(params="[1, 2]"), "not a JSON object"),
        ("multinomial", _set_attr(params="alpha = 1"), "not valid JSON"),
        ("multinomial", _set_attr(params="[" * 100_000 + "]" * 100_000), "characters"),
        ("multinomial", _set_attr(fitted=json.dumps({"pad": "x" * (1 << 20)})), "characters"),
        ("multinomial", _set_json("fitted", n_features_in=10**15), "n_features_in"),
        ("multinomial", _set_json("fitted", length_width=10**15), "length_width"),
        ("multinomial", _set_json("fitted", length_width=1), "exceeds length_width"),
        ("multinomial", _set_stat("feature_count", lambda a: -a), "negative"),
        ("bernoulli", _set_stat("class_count", lambda a: a * np.nan), "NaN"),
        ("categorical", _set_stat("n_categories", lambda a: a + 1), "slots"),
        ("categorical", _set_stat("n_categories", lambda a: a * 0 + 10**15), "n_categories"),
        ("multinomial", _set_stat("length_class", lambda a: a + 50), "inconsistent statistics"),
    ],
)
def test_crafted_files_are_refused_as_data(saved, tmp_path, monkeypatch, kind, edit, match):
    monkeypatch.chdir(tmp_path)
    path = _craft(saved[kind], tmp_path / "crafted.nc", edit)
    with pytest.raises(ValueError, match=match) as info:
        bnb.load(path)
    assert len(str(info.value)) < 600
    assert not (tmp_path / "PWNED").exists()


def test_declared_huge_array_is_refused_before_reading(saved, tmp_path):
    import tracemalloc

    import h5netcdf

    path = _craft(saved["multinomial"], tmp_path / "bomb.nc", lambda tree: None)
    with h5netcdf.File(path, "a") as f:  # 8 TB of fill values declared in a few bytes
        group = f.groups["statistics"]
        group.dimensions["huge"] = 10**12
        group.create_variable("bomb", ("huge",), dtype="f8", chunks=(1 << 16,))
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"declares 8e\+12 bytes .* before reading"):
            bnb.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6


def test_format_version_zero_is_refused_without_migration_and_loaded_with_one(
    saved, tmp_path, monkeypatch
):
    """A 'version 0' file stored the parameters under another name; a migration renames it."""
    X, _ = _data("int")

    def to_v0(tree):
        tree.attrs["parameters"] = tree.attrs.pop("params")
        tree.attrs["format_version"] = 0

    path = _craft(saved["bernoulli"], tmp_path / "v0.nc", to_v0, reseal=False)
    with pytest.raises(ValueError, match=r"format_version 0, older .* no migration"):
        bnb.load(path)

    def migrate(tree):
        tree.attrs["params"] = tree.attrs.pop("parameters")
        tree.attrs["format_version"] = 1
        return tree

    monkeypatch.setitem(io.MIGRATIONS, 0, migrate)
    back = bnb.load(path)
    np.testing.assert_array_equal(
        back.predict_proba(X), bnb.load(saved["bernoulli"]).predict_proba(X)
    )
    # A migration must move forward, or the loop would never end.
    monkeypatch.setitem(io.MIGRATIONS, 0, lambda tree: tree)
    with pytest.raises(RuntimeError, match="did not upgrade"):
        bnb.load(path)


@pytest.mark.parametrize("version", [io.FORMAT_VERSION + 1, 99])
def test_future_format_version_is_refused_naming_it(saved, tmp_path, version):
    path = _craft(saved["categorical"], tmp_path / "v.nc", _set_attr(format_version=version))
    with pytest.raises(
        ValueError, match=rf"format_version {version}, newer than the {io.FORMAT_VERSION}"
    ):
        bnb.load(path)


@pytest.mark.parametrize("keep", [0.05, 0.25, 0.5, 0.75, 0.95, -1])
def test_truncation_anywhere_is_refused(saved, tmp_path, keep):
    data = saved["multinomial"].read_bytes()
    cut = len(data) - 1 if keep == -1 else int(len(data) * keep)
    path = tmp_path / "cut.nc"
    path.write_bytes(data[:cut])
    with pytest.raises(ValueError, match=r"not a readable bayesnb model file|checksum|lacks"):
        bnb.load(path)


def test_edited_parameter_text_fails_the_checksum(saved, tmp_path):
    data = saved["multinomial"].read_bytes()
    at = data.find(b'"alpha": 2.0')
    assert at > 0  # the params JSON is stored as plain text
    path = tmp_path / "edited.nc"
    path.write_bytes(data[:at] + b'"alpha": 3.0' + data[at + 12 :])
    with pytest.raises(ValueError, match="checksum"):
        bnb.load(path)


@pytest.mark.parametrize("crash", [KeyboardInterrupt, MemoryError, OSError])
def test_interrupted_replace_keeps_the_old_file(tmp_path, monkeypatch, crash):
    """A crash at the rename itself (after the temporary file is complete) changes nothing."""
    X, y = _data("int")
    path = tmp_path / "model.nc"
    bnb.BernoulliNB().fit(X, y).save(path)
    before = path.read_bytes()

    def fail(*_args):
        raise crash("interrupted")

    monkeypatch.setattr(io.os, "replace", fail)
    with pytest.raises(crash):
        bnb.BernoulliNB(alpha=5.0).fit(X, y).save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.nc"]


def test_save_names_a_bad_target(tmp_path):
    X, y = _data("int")
    est = bnb.MultinomialNB().fit(X, y)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        est.save(tmp_path / "missing" / "m.nc")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        est.save(tmp_path)
