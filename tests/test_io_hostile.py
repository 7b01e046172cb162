"""Hostile model files: every malformed file gives ModelFormatError, never a crash, a hang or garbage.

Each file is crafted the way an attacker would (checksums recomputed) and loaded -- then, if it
loads, predicted with -- in a worker process bounded in address space and time
(``benchmarks/io_mutations.py``), so a segfault or an endless loop fails the test instead of
ending the run.  The classes of malformed file are those of the node tables, value tables,
compact tables, oblique side arrays, online forests, containers and JSON graphs; a few random
mutations of each kind (``benchmarks/io_mutations.py`` runs thousands) must each load cleanly
or be refused.
"""

import io
import json
import random
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import forestzoo
from forestzoo.io import ModelFormatError, load, save

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import io_mutations as mut  # noqa: E402
from test_io import _walk  # noqa: E402

RNG = np.random.RandomState(0)
X = RNG.normal(size=(60, 4))
Y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    r = mut.Runner(str(tmp_path_factory.mktemp("mutants")), timeout=60, mem_limit=4 * 2**30)
    yield r
    r.close()


def saved(model):
    buf = io.BytesIO()
    save(model, buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def files():
    return {
        "rf": saved(forestzoo.RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, Y)),
        "rotation": saved(forestzoo.RotationForestClassifier(n_estimators=1, max_depth=3, random_state=0).fit(X, Y)),
        "online": saved(forestzoo.OnlineRandomForestClassifier(n_estimators=2, n_tests=4, min_samples_split=5,
                                                               random_state=0).fit(X, Y)),
        "prediction": saved(forestzoo.RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0)
                            .fit(X, Y)._keep_prediction_only()),
    }


def graph_and_members(data):
    members = mut.members_of(data)
    return json.loads(members["model.json"]), members


def array_member(members, name):
    header, offset = mut.split_npy(members[name])
    dtype = np.lib.format.descr_to_dtype(header["descr"])
    return np.frombuffer(members[name][offset:], dtype=dtype).reshape(header["shape"]).copy(), header


def put_array(members, name, a, header=None):
    header = dict(header or {}, shape=a.shape, descr=np.lib.format.dtype_to_descr(a.dtype),
                  fortran_order=False)
    members[name] = mut.npy_bytes(header, a.tobytes())
    return mut.seal(members, [name])


def tree_states(graph):
    """Every tree's state node, as ``(class, {attribute: value node})``."""
    for node in _walk(graph):
        if node.get("t") == "object" and node["class"].startswith("forestzoo._engine.tree:"):
            state = node["state"]
            yield node["class"].split(":")[1], dict(zip(state["k"], state["v"])), state


def first_tree_member(data, attribute, cls="Tree"):
    graph, members = graph_and_members(data)
    _, attrs, _ = next(t for t in tree_states(graph) if t[0] == cls)
    return members, attrs[attribute]["m"]


def edit_nodes(data, edit):
    members, name = first_tree_member(data, "nodes")
    nodes, header = array_member(members, name)
    nodes = nodes.view(forestzoo._engine.tree.NODE_DTYPE)
    edit(nodes)
    return put_array(members, name, nodes.view(nodes.dtype), header)


def internal_row(nodes):
    return int(np.flatnonzero(nodes["left"] != -1)[0])


def refused(runner, data, match=None):
    r = runner.check(data)
    assert r["outcome"] == "refused", r
    if match:
        assert match in r["why"], r["why"]
    return r


# ---------------------------------------------------------------------------------------------
# node tables


NODE_EDITS = {
    "left child out of range": lambda n: n["left"].__setitem__(internal_row(n), len(n)),
    "right child negative": lambda n: n["right"].__setitem__(internal_row(n), -7),
    "cycle to the root": lambda n: n["left"].__setitem__(int(np.flatnonzero(n["left"] != -1)[-1]), 0),
    "child before parent": lambda n: (n["left"].__setitem__(1, 0), n["right"].__setitem__(1, 0)),
    "node shared by two parents": lambda n: n["right"].__setitem__(0, n["left"][0]),
    "half leaf marker": lambda n: n["left"].__setitem__(internal_row(n), -1),
    "feature out of range": lambda n: n["feature"].__setitem__(internal_row(n), 4),
    "negative feature": lambda n: n["feature"].__setitem__(internal_row(n), -3),
    "oblique row out of range": lambda n: n["oblique"].__setitem__(internal_row(n), 5),
    "NaN threshold": lambda n: n["threshold"].__setitem__(internal_row(n), np.nan),
    "-inf threshold": lambda n: n["threshold"].__setitem__(internal_row(n), -np.inf),
    "missing_left not 0/1": lambda n: n["missing_left"].__setitem__(internal_row(n), 7),
}


@pytest.mark.parametrize("edit", NODE_EDITS, ids=list(NODE_EDITS))
def test_node_table_rules(runner, files, edit):
    refused(runner, edit_nodes(files["rf"], NODE_EDITS[edit]), "nodes")


def test_empty_node_table(runner, files):
    members, name = first_tree_member(files["rf"], "nodes")
    nodes, header = array_member(members, name)
    refused(runner, put_array(members, name, nodes[:0], header), "at least one node")


@pytest.mark.parametrize("descr", [
    [("left", "<i8"), ("right", "<i8"), ("feature", "<i8"), ("oblique", "<i8"), ("threshold", "<f8"),
     ("depth", "<i8"), ("n_samples", "<i8"), ("weighted_n_samples", "<f8")],
    "<i4",
])
def test_other_node_layouts_are_refused_never_compiled(runner, files, descr):
    graph, members = graph_and_members(files["rf"])
    _, attrs, _ = next(tree_states(graph))
    name = attrs["nodes"]["m"]
    a = np.zeros(5, dtype=np.dtype(descr))
    if isinstance(descr, list):
        spec = attrs["nodes"]["dtype"]
        spec.update(names=[d[0] for d in descr], formats=[d[1] for d in descr],
                    offsets=[8 * i for i in range(len(descr))], itemsize=8 * len(descr))
    else:
        del attrs["nodes"]["dtype"]
    members["model.json"] = json.dumps(graph).encode()
    members[name] = mut.npy_bytes({"shape": a.shape, "descr": np.lib.format.dtype_to_descr(a.dtype),
                                   "fortran_order": False}, a.tobytes())
    refused(runner, mut.seal(members, [name, "model.json"]))


# ---------------------------------------------------------------------------------------------
# value tables, compact tables, side arrays


@pytest.mark.parametrize("shape_edit", ["short", "one-d", "complex", "seven columns", "int"])
def test_value_table_rules(runner, files, shape_edit):
    members, name = first_tree_member(files["rf"], "values")
    values, header = array_member(members, name)
    new = {"short": values[:-1], "one-d": values[:, 0].copy(), "complex": values.astype(np.complex128),
           "seven columns": np.zeros((values.shape[0], 7)), "int": values.astype(np.int64)}[shape_edit]
    refused(runner, put_array(members, name, new, header), "value")


def test_values_from_missing_split_with_infinite_threshold_loads(files):
    """The splitters' split of values from NaN has threshold +inf; it is valid in both table kinds."""
    X_nan = X.copy()
    X_nan[::3, 0] = np.nan
    model = forestzoo.RandomForestClassifier(n_estimators=2, random_state=0).fit(X_nan, Y)
    for est in model.estimators_:
        internal = np.flatnonzero(est.tree_.nodes["left"] != -1)
        est.tree_.nodes["threshold"][internal[0]] = np.inf
        est.tree_.invalidate()
    expected = model.predict_proba(X_nan)
    assert_array_equal(load(io.BytesIO(saved(model))).predict_proba(X_nan), expected)
    model._keep_prediction_only()
    assert_array_equal(load(io.BytesIO(saved(model))).predict_proba(X_nan), expected)


def test_injected_compact_table_is_rebuilt_not_trusted(runner, files):
    """A ``_compact`` entry in a tree's state (never written by save) is dropped and rebuilt."""
    graph, members = graph_and_members(files["rf"])
    _, attrs, state = next(tree_states(graph))
    bad = np.full(4 * 64, 2**30, dtype=np.int32)
    name = f"arrays/{len(members)}.npy"
    members[name] = mut.npy_bytes({"shape": bad.shape, "descr": "<i4", "fortran_order": False}, bad.tobytes())
    state["k"].append("_compact")
    state["v"].append({"t": "array", "id": 10**6, "m": name})
    members["model.json"] = json.dumps(graph).encode()
    r = runner.check(mut.seal(members, [name, "model.json"]))
    assert r["outcome"] == "ok", r
    model = load(io.BytesIO(mut.seal(members, [name, "model.json"])))
    original = load(io.BytesIO(files["rf"]))
    assert_array_equal(model.predict_proba(X), original.predict_proba(X))


@pytest.mark.parametrize("field, value", [(2, 1000), (3, -1000), (0, 99), (2, 0)])
def test_prediction_tree_table_rules(runner, files, field, value):
    members, name = first_tree_member(files["prediction"], "cnodes", cls="PredictionTree")
    c, header = array_member(members, name)
    c = c.reshape(-1, 4)
    k = int(np.flatnonzero(c[:, 2] != np.arange(c.shape[0]))[0])  # an internal node
    c[k, field] = value
    refused(runner, put_array(members, name, c.ravel(), header), "cnodes")


@pytest.mark.parametrize("attribute, edit", [
    ("obl_feature", lambda a: a.__setitem__(0, 50)),
    ("obl_ptr", lambda a: a.__setitem__(-1, a[-1] + 3)),
    ("obl_weight", lambda a: a.__setitem__(0, np.inf)),
])
def test_oblique_side_array_rules(runner, files, attribute, edit):
    graph, members = graph_and_members(files["rotation"])
    _, attrs, _ = next(t for t in tree_states(graph) if t[1]["obl_feature"].get("m"))
    name = attrs[attribute]["m"]
    a, header = array_member(members, name)
    edit(a)
    refused(runner, put_array(members, name, a, header), attribute)


@pytest.mark.parametrize("attribute, edit", [
    ("slot", lambda a: a.__setitem__((0, 0), 10**6) if a[0, 0] >= 0 else a.__setitem__((0, 1), 10**6)),
    ("counts", lambda a: a.__setitem__((0, 0), 10**6)),
    ("counts", lambda a: a.__setitem__((1, 1), 0)),
    ("tfeat", lambda a: a.__setitem__((0, 0, 0), 9)),
    ("parent_of", lambda a: a.__setitem__((0, 1), 5)),
])
def test_online_forest_rules(runner, files, attribute, edit):
    graph, members = graph_and_members(files["online"])
    forest = next(n for n in _walk(graph) if n.get("t") == "object" and n["class"].endswith(":OnlineForest"))
    name = dict(zip(forest["state"]["k"], forest["state"]["v"]))[attribute]["m"]
    a, header = array_member(members, name)
    edit(a)
    refused(runner, put_array(members, name, a, header), attribute)


def test_online_forest_may_differ_from_n_estimators_after_set_params(tmp_path):
    # set_params between batches reshapes the forest at the next partial_fit; a model saved in between loads
    orf = forestzoo.OnlineRandomForestClassifier(n_estimators=2, n_tests=4, min_samples_split=5, random_state=0)
    orf.fit(X, Y).set_params(n_estimators=5, drift="oob")
    buf = io.BytesIO()
    save(orf, buf)
    loaded = load(io.BytesIO(buf.getvalue()))
    np.testing.assert_array_equal(loaded.predict_proba(X), orf.predict_proba(X))
    loaded.partial_fit(X, Y)
    assert loaded.forest_.dstate.shape[0] == 5 and not loaded.forest_.paired


@pytest.mark.parametrize("attribute, edit, match", [
    ("dstate", lambda a: a.__setitem__((0, 0), 7), "voting tree p"),
    ("dstate", lambda a: a.__setitem__((1, 1), 3), "background"),
    ("dstate", lambda a: a.__setitem__((0, 2), -4), "counters"),
    ("detect", lambda a: a.__setitem__((0, 1, 4), 40.0), "levels used"),
    ("detect", lambda a: a.__setitem__((1, 0, 5), 9.0), "buckets"),
    ("detect", lambda a: a.__setitem__((0, 0, 0), a[0, 0, 0] + 1), "width"),
    ("detect", lambda a: a.__setitem__((0, 0, 1), np.nan), "finite"),
])
def test_online_forest_drift_state_rules(runner, files, attribute, edit, match):
    graph, members = graph_and_members(files["online"])
    forest = next(n for n in _walk(graph) if n.get("t") == "object" and n["class"].endswith(":OnlineForest"))
    name = dict(zip(forest["state"]["k"], forest["state"]["v"]))[attribute]["m"]
    a, header = array_member(members, name)
    edit(a)
    refused(runner, put_array(members, name, a, header), match)


def test_online_forest_trees_must_match_its_drift_rows(runner, files):
    graph, members = graph_and_members(files["online"])
    forest = next(n for n in _walk(graph) if n.get("t") == "object" and n["class"].endswith(":OnlineForest"))
    name = dict(zip(forest["state"]["k"], forest["state"]["v"]))["dstate"]["m"]
    a, header = array_member(members, name)
    refused(runner, put_array(members, name, np.concatenate([a, a[:1]]), header),
            "dstate")


# ---------------------------------------------------------------------------------------------
# container and graph


def test_object_array_shape_is_checked_before_allocating(runner, files):
    graph, members = graph_and_members(files["rf"])
    graph["state"]["v"][0] = {"t": "objarray", "id": 10**6, "shape": [2**20, 2**20], "v": [1, 2]}
    members["model.json"] = json.dumps(graph).encode()
    refused(runner, mut.seal(members, ["model.json"]), "shape")


def test_npy_shape_is_checked_against_its_bytes(runner, files):
    members, name = first_tree_member(files["rf"], "values")
    header, offset = mut.split_npy(members[name])
    members[name] = mut.npy_bytes(dict(header, shape=(2**40, 3)), members[name][offset:])
    refused(runner, mut.seal(members, [name]), "holds")


def test_member_above_max_bytes_and_impossible_sizes(tmp_path, files):
    with pytest.raises(ModelFormatError, match="max_bytes"):
        load(io.BytesIO(files["rf"]), max_bytes=1000)
    # a deflated member of zeros: 2 MB from a few KB, within deflate's ratio, above the caller's cap
    members = mut.members_of(files["rf"])
    _, name = first_tree_member(files["rf"], "values")
    members[name] = mut.npy_bytes({"shape": (2**18,), "descr": "<f8", "fortran_order": False}, bytes(2**21))
    data = mut.seal(members, [name])
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    with pytest.raises(ModelFormatError, match="cap"):
        load(io.BytesIO(buf.getvalue()), max_bytes=2**20)


def _patch_local_and_central(data, name, edit):
    """Apply ``edit(bytearray, offset_of_flag_bits)`` to the local and central headers of member ``name``."""
    b = bytearray(data)
    enc = name.encode()
    i = b.find(b"PK\x03\x04")
    while i >= 0:
        if b[i + 30:i + 30 + len(enc)] == enc:
            edit(b, i + 6)
        i = b.find(b"PK\x03\x04", i + 4)
    i = b.find(b"PK\x01\x02")
    while i >= 0:
        if b[i + 46:i + 46 + len(enc)] == enc:
            edit(b, i + 8)
        i = b.find(b"PK\x01\x02", i + 4)
    return bytes(b)


@pytest.mark.parametrize("what", ["encrypted", "unknown compression", "stored size lies"])
def test_container_flags(runner, files, what):
    def edit(b, at):
        if what == "encrypted":
            b[at] |= 1
        elif what == "unknown compression":
            b[at + 2] = 99  # method field follows the flag bits
        else:  # uncompressed size field: +16 from flags in the local header, +16 in the central one too
            b[at + 16:at + 20] = (10**9).to_bytes(4, "little")

    refused(runner, _patch_local_and_central(files["rf"], "arrays/1.npy", edit))


def test_deep_json(runner, files):
    graph, members = graph_and_members(files["rf"])
    head = b'{"t":"object","class":' + json.dumps(graph["class"]).encode() + b',"id":0,"state":'
    members["model.json"] = head + b"[" * 200000 + b"]" * 200000 + b"}"  # beyond the parser's recursion
    refused(runner, mut.seal(dict(members), ["model.json"]), "deep")
    nested = {"t": "dict", "id": 10**6, "k": [], "v": []}
    node = nested
    for i in range(300):  # parseable, but deeper than any model's graph
        child = {"t": "list", "id": 10**6 + i + 1, "v": []}
        node.setdefault("v", []).append(child)
        node = child
    graph["state"]["v"][0] = nested
    nested["k"] = ["x"]
    members["model.json"] = json.dumps(graph).encode()
    refused(runner, mut.seal(members, ["model.json"]), "nested")


# ---------------------------------------------------------------------------------------------
# side effects, byte order, the allow-list


def test_side_effect_parameters_are_reset(tmp_path):
    from sklearn.pipeline import Pipeline

    forest = forestzoo.RandomForestClassifier(n_estimators=2, random_state=0, n_jobs=2008, verbose=3).fit(X, Y)
    pipe = Pipeline([("rf", forest)], memory=str(tmp_path / "cache"))
    loaded = load(io.BytesIO(saved(pipe)))
    assert loaded.memory is None
    assert loaded.steps[0][1].n_jobs is None and loaded.steps[0][1].verbose == 0
    assert_array_equal(loaded.predict_proba(X), forest.predict_proba(X))


def test_non_native_byte_order_loads_as_native(files):
    other = ">" if sys.byteorder == "little" else "<"
    graph, members = graph_and_members(files["rf"])
    touched = []
    for _, attrs, _ in tree_states(graph):
        for key in ("nodes", "values"):
            name = attrs[key]["m"]
            a, header = array_member(members, name)
            if a.dtype.fields is not None:
                swapped = a.astype(a.dtype.newbyteorder(other))
                attrs[key]["dtype"]["formats"] = [swapped.dtype.fields[n][0].str for n in swapped.dtype.names]
            else:
                swapped = a.astype(a.dtype.newbyteorder(other))
            members[name] = mut.npy_bytes({"shape": a.shape, "descr": np.lib.format.dtype_to_descr(swapped.dtype),
                                           "fortran_order": False}, swapped.tobytes())
            touched.append(name)
    members["model.json"] = json.dumps(graph).encode()
    model = load(io.BytesIO(mut.seal(members, touched + ["model.json"])))
    tree = model.estimators_[0].tree_
    assert tree.nodes.dtype.isnative and tree.values.dtype.isnative
    assert_array_equal(model.predict_proba(X), load(io.BytesIO(files["rf"])).predict_proba(X))


def test_class_and_function_outside_the_allow_list(runner, files):
    graph, members = graph_and_members(files["rf"])
    node = next(n for n in _walk(graph) if n.get("t") == "object" and n["class"].endswith(":Tree"))
    node["class"] = "os:system"
    members["model.json"] = json.dumps(graph).encode()
    refused(runner, mut.seal(dict(members), ["model.json"]), "allow-list")
    graph, members = graph_and_members(files["rf"])
    graph["state"]["v"][0] = {"t": "function", "v": "builtins:eval"}
    members["model.json"] = json.dumps(graph).encode()
    refused(runner, mut.seal(members, ["model.json"]), "allow-list")


# ---------------------------------------------------------------------------------------------
# random mutations


@pytest.mark.parametrize("kind", mut.KINDS)
def test_random_mutations(runner, files, kind):
    rng = random.Random(kind)
    for name in ("rf", "rotation", "online", "prediction"):
        for _ in range(4):
            data, what = mut.mutate(files[name], kind, rng)
            r = runner.check(data)
            assert r["outcome"] in ("ok", "refused"), (name, what, r)
