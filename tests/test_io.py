"""Safe persistence (forestzoo.io): round trips for every estimator, refusals, damaged files.

Every estimator of ``forestzoo.all_estimators()`` is fitted on small data, saved, loaded, and
must give bit-identical outputs and an identical saved state; pickle must keep working too.
Damaged files (truncated, tampered, too new, foreign classes, pickled members) must each give a
clear error and must never run code.
"""

import functools
import hashlib
import io
import json
import os
import pickle
import sys
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import forestzoo
from _estimators import fast_instance, toy_data
from forestzoo.io import FORMAT_VERSION, ModelFormatError, UntrustedTypeError, load, read_header, save
from forestzoo.io._codec import Encoder

ESTIMATORS = forestzoo.all_estimators()
parametrize_estimators = pytest.mark.parametrize(
    "Estimator", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS]
)
OUTPUT_METHODS = ("predict", "predict_proba", "decision_function", "apply", "transform")


def small_data(estimator, n_samples=60, n_features=4, seed=0):
    return toy_data(estimator, n_samples, n_features, seed)


def fitted(Estimator):
    estimator = fast_instance(Estimator)
    X, y = small_data(estimator)
    return estimator.fit(X, y), X


def outputs(model, X):
    out = {}
    for method in OUTPUT_METHODS:
        if hasattr(model, method):
            value = getattr(model, method)(X)
            out[method] = value.toarray() if hasattr(value, "toarray") else value
    return out


def state_of(model):
    """The saved form of a model: the JSON graph and every array, a deep fingerprint of its state."""
    encoder = Encoder()
    graph = json.dumps(encoder.encode(model), sort_keys=True)
    return graph, [(name, a.dtype, a.shape, a.tobytes()) for name, a in encoder.arrays]


def roundtrip(model, tmp_path, **kwargs):
    path = tmp_path / "model.fzm"
    save(model, path, **kwargs)
    return load(path), path


def rewrite(path, edit):
    """Rewrite the zip at ``path``, passing ``{member: bytes}`` through ``edit``."""
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    members = edit(members)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def edit_header(members, **changes):
    header = json.loads(members["header.json"])
    header.update(changes)
    members["header.json"] = json.dumps(header).encode()
    return members


def reseal(members, name, data):
    """Replace a member *and* its recorded checksum, as a deliberate attacker would."""
    members[name] = data
    header = json.loads(members["header.json"])
    header["members"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    members["header.json"] = json.dumps(header).encode()
    return members


# ---------------------------------------------------------------------------------------------
# round trips


@parametrize_estimators
def test_roundtrip_gives_identical_outputs_and_state(Estimator, tmp_path):
    model, X = fitted(Estimator)
    expected = outputs(model, X)
    loaded, _ = roundtrip(model, tmp_path)
    assert type(loaded) is type(model)
    assert loaded.get_params().keys() == model.get_params().keys()
    got = outputs(loaded, X)
    assert got.keys() == expected.keys()
    for method, value in expected.items():
        assert_array_equal(got[method], value, err_msg=method)
    assert state_of(loaded) == state_of(model)


@parametrize_estimators
def test_pickle_keeps_working(Estimator):
    model, X = fitted(Estimator)
    clone = pickle.loads(pickle.dumps(model))
    for method, value in outputs(model, X).items():
        assert_array_equal(outputs(clone, X)[method], value, err_msg=method)


@parametrize_estimators
def test_unfitted_estimator_roundtrip(Estimator, tmp_path):
    estimator = fast_instance(Estimator)
    loaded, _ = roundtrip(estimator, tmp_path)
    assert repr(loaded.get_params()) == repr(estimator.get_params())


def test_same_model_writes_the_same_bytes(tmp_path):
    model, _ = fitted(forestzoo.RandomForestClassifier)
    a, b = tmp_path / "a.fzm", tmp_path / "b.fzm"
    save(model, a)
    save(load(a), b)
    assert a.read_bytes() == b.read_bytes()


def test_loaded_arrays_are_writable_and_aligned_and_refit_continues(tmp_path):
    X, y = small_data(forestzoo.RandomForestClassifier())
    model = forestzoo.RandomForestClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    loaded, _ = roundtrip(model, tmp_path)
    nodes = loaded.estimators_[0].tree_.nodes
    assert nodes.flags.writeable and nodes.flags.aligned and nodes.dtype.isalignedstruct
    loaded.set_params(n_estimators=6).fit(X, y)  # warm start continues from the loaded trees
    whole = forestzoo.RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    assert_array_equal(loaded.predict_proba(X), whole.predict_proba(X))


def test_shared_objects_stay_shared(tmp_path):
    model, _ = fitted(forestzoo.RandomForestClassifier)
    loaded, _ = roundtrip(model, tmp_path)
    assert all(e.classes_ is loaded.classes_ for e in loaded.estimators_) == all(
        e.classes_ is model.classes_ for e in model.estimators_)


def test_compressed_file_and_file_objects(tmp_path):
    model, X = fitted(forestzoo.ExtraTreesRegressor)
    buffer = io.BytesIO()
    save(model, buffer, compress=True)
    assert_array_equal(load(io.BytesIO(buffer.getvalue())).predict(X), model.predict(X))
    plain, _ = roundtrip(model, tmp_path)
    assert len(buffer.getvalue()) < (tmp_path / "model.fzm").stat().st_size


def test_random_state_objects_string_labels_and_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    X, _ = small_data(forestzoo.RandomForestClassifier())
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    y = np.array(["cat", "dog", "emu"])[np.arange(len(X)) % 3]
    rs = np.random.RandomState(7)
    model = forestzoo.RandomForestClassifier(n_estimators=4, random_state=rs).fit(frame, y)
    loaded, _ = roundtrip(model, tmp_path)
    assert_array_equal(loaded.feature_names_in_, ["a", "b", "c", "d"])
    assert_array_equal(loaded.predict(frame), model.predict(frame))
    assert loaded.random_state.get_state()[1].tolist() == rs.get_state()[1].tolist()


def test_pipeline_of_allowed_steps(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = small_data(forestzoo.GradientBoostingRegressor())
    pipe = make_pipeline(StandardScaler(), forestzoo.GradientBoostingRegressor(n_estimators=5)).fit(X, y)
    loaded, _ = roundtrip(pipe, tmp_path)
    assert_array_equal(loaded.predict(X), pipe.predict(X))


def test_denoising_forest_with_fitted_autoencoder(tmp_path):
    from sklearn.neural_network import MLPRegressor

    X, y = small_data(forestzoo.DenoisingRandomForestClassifier(), n_samples=200)
    model = forestzoo.DenoisingRandomForestClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y)
    assert any(isinstance(m, MLPRegressor) for m in model.autoencoders_.values())
    loaded, _ = roundtrip(model, tmp_path)
    assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


# ---------------------------------------------------------------------------------------------
# refusals at save time


class _Foreign:
    pass


@pytest.mark.parametrize("value, type_name", [
    (lambda x: x, "function"),
    (_Foreign(), "_Foreign"),
    (print, "builtin_function_or_method"),
    (np.float128(1) if hasattr(np, "float128") else np.longdouble(1), "float128|longdouble|float64"),
])
def test_save_refuses_foreign_types_naming_attribute_and_type(tmp_path, value, type_name):
    model, _ = fitted(forestzoo.RandomForestClassifier)
    model = pickle.loads(pickle.dumps(model))
    model.estimators_[1].extra_ = {"hook": value}
    path = tmp_path / "model.fzm"
    path.write_bytes(b"previous content")
    with pytest.raises(UntrustedTypeError, match=rf"estimators_\[1\]\.extra_\['hook'\]") as info:
        save(model, path)
    assert any(part in str(info.value) for part in type_name.split("|"))
    assert path.read_bytes() == b"previous content"  # nothing replaced
    assert [p.name for p in tmp_path.iterdir()] == ["model.fzm"]  # no temporary left behind


def test_save_refuses_non_estimators_and_sklearn_forests(tmp_path):
    from sklearn.ensemble import RandomForestClassifier as SkForest

    with pytest.raises(UntrustedTypeError, match="forestzoo estimator"):
        save({"a": 1}, tmp_path / "x.fzm")
    X, y = small_data(SkForest())
    source = SkForest(n_estimators=3, random_state=0).fit(X, y)
    transfer = forestzoo.TransferForestClassifier(source_forest=source, random_state=0).fit(X, y)
    with pytest.raises(UntrustedTypeError, match=r"source_forest.*sklearn\.ensemble"):
        save(transfer, tmp_path / "t.fzm")
    assert not (tmp_path / "t.fzm").exists()


# ---------------------------------------------------------------------------------------------
# damaged, foreign and future files


@pytest.fixture
def saved(tmp_path):
    model, X = fitted(forestzoo.RandomForestClassifier)
    path = tmp_path / "model.fzm"
    save(model, path)
    return path, model, X


def test_header_is_readable_without_loading(saved):
    path, _, _ = saved
    header = read_header(path)
    assert header["format"] == "forestzoo-model"
    assert header["format_version"] == list(FORMAT_VERSION)
    assert header["root_class"].endswith(":RandomForestClassifier")
    assert all(len(m["sha256"]) == 64 for m in header["members"].values())


def test_newer_major_version_is_refused(saved):
    path, _, _ = saved
    rewrite(path, lambda m: edit_header(m, format_version=[FORMAT_VERSION[0] + 1, 0]))
    with pytest.raises(ModelFormatError, match=rf"format {FORMAT_VERSION[0] + 1}\.0.*Upgrade forestzoo"):
        load(path)


def test_newer_minor_version_loads(saved):
    path, model, X = saved
    rewrite(path, lambda m: edit_header(m, format_version=[FORMAT_VERSION[0], FORMAT_VERSION[1] + 3]))
    assert_array_equal(load(path).predict(X), model.predict(X))


@pytest.mark.parametrize("keep", [0, 10, 100, 0.5, 0.9, -22, -1])
def test_truncated_file_is_refused(saved, keep):
    path, _, _ = saved
    data = path.read_bytes()
    n = int(len(data) * keep) if isinstance(keep, float) else (keep if keep >= 0 else len(data) + keep)
    path.write_bytes(data[:n])
    with pytest.raises(ModelFormatError, match="truncated|corrupted|not a forestzoo"):
        load(path)


def test_flipped_byte_in_the_raw_file_is_refused(saved):
    path, _, _ = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("arrays/3.npy")
    data[info.header_offset + 30 + len(info.filename) + 140] ^= 0xFF  # inside the member's bytes
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFormatError, match="arrays/3.npy"):
        load(path)


def test_modified_member_is_refused_by_checksum(saved):
    path, _, _ = saved

    def tamper(members):
        data = bytearray(members["arrays/2.npy"])
        data[-1] ^= 0x01  # one bit of the last value: still a valid .npy, still a valid zip member
        members["arrays/2.npy"] = bytes(data)
        return members

    rewrite(path, tamper)
    with pytest.raises(ModelFormatError, match="checksum mismatch in member arrays/2.npy"):
        load(path)


def test_edited_graph_is_refused_by_checksum(saved):
    path, _, _ = saved
    rewrite(path, lambda m: {**m, "model.json": m["model.json"].replace(b'"n_estimators"', b'"n_estimatorz"')})
    with pytest.raises(ModelFormatError, match="model.json"):
        load(path)


def test_missing_and_extra_members_are_refused(saved):
    path, _, _ = saved
    original = path.read_bytes()
    rewrite(path, lambda m: {k: v for k, v in m.items() if k != "arrays/1.npy"})
    with pytest.raises(ModelFormatError, match="missing"):
        load(path)
    path.write_bytes(original)
    rewrite(path, lambda m: {**m, "payload.pkl": pickle.dumps(1)})
    with pytest.raises(ModelFormatError, match="unexpected member.*payload.pkl"):
        load(path)


@pytest.mark.parametrize("content", [b"", b"not a zip at all", pickle.dumps({"a": 1})])
def test_other_files_are_refused(tmp_path, content):
    path = tmp_path / "x.fzm"
    path.write_bytes(content)
    with pytest.raises(ModelFormatError, match="not a forestzoo model file"):
        load(path)


def test_zip_without_header_is_refused(tmp_path):
    path = tmp_path / "x.fzm"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("model.json", "{}")
    with pytest.raises(ModelFormatError, match="header.json"):
        load(path)


_MARKER = "FORESTZOO_IO_TEST_EXECUTED"


def _mark_executed():
    os.environ[_MARKER] = "1"


class _Exploit:
    """Unpickling this sets an environment variable: a visible trace of code execution."""

    def __reduce__(self):
        return (_mark_executed, ())


def test_pickled_array_member_is_never_unpickled(saved):
    path, _, _ = saved
    os.environ.pop(_MARKER, None)
    out = io.BytesIO()
    np.lib.format.write_array(out, np.array([_Exploit()], dtype=object), allow_pickle=True)
    rewrite(path, lambda m: reseal(m, "arrays/0.npy", out.getvalue()))
    with pytest.raises(ModelFormatError, match="arrays/0.npy"):
        load(path)
    assert _MARKER not in os.environ


@pytest.mark.parametrize("cls_ref", [
    "os:system", "builtins:eval", "subprocess:Popen", "forestzoo.__main__:main", "forestzoo.bench.cli:main",
    "forestzoo.bench.registry:Suite", "forestzoo._engine.tree:np", "forestzoo.tree:grow", "tests.test_io:_Exploit",
    "forestzoo._engine.tree:Tree.__init__", "forestzoo.nosuchmodule:Tree",
])
def test_classes_outside_the_allow_list_are_refused_on_load(saved, cls_ref):
    path, _, _ = saved
    before = set(sys.modules)

    def swap(members):
        graph = json.loads(members["model.json"])
        graph["v"] = None
        tree_node = next(n for n in _walk(graph) if n.get("class", "").endswith(":Tree"))
        tree_node["class"] = cls_ref
        return reseal(members, "model.json", json.dumps(graph).encode())

    rewrite(path, swap)
    with pytest.raises(UntrustedTypeError, match="allow-list|Malformed"):
        load(path)
    imported = {m for m in set(sys.modules) - before if m.startswith(("forestzoo.bench", "forestzoo.__main__"))}
    assert not imported, f"loading imported {imported}"


def _walk(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def test_root_must_match_header(saved):
    path, _, _ = saved
    rewrite(path, lambda m: edit_header(m, root_class="forestzoo.ensemble._random_forest:ExtraTreesClassifier"))
    with pytest.raises(ModelFormatError, match="header announces"):
        load(path)
