"""Hostile model files: every malformed file gives ModelFormatError, never a crash, a hang or garbage.

Each file is crafted the way an attacker would (checksums recomputed) and loaded -- then, if it
loads, predicted with -- in a worker process bounded in address space and time
(``benchmarks/io_mutations.py``), so a segfault or an endless loop fails the test instead of
ending the run.  The classes of malformed file are those of the node tables, value tables,
compact tables, oblique side arrays, online forests, each family's own arrays (DNF functions,
Haar filters, competence flags, denoising layouts, RVFL networks, boosting rounds, deep-forest
levels), containers and JSON graphs; a few random
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
from forestzoo.deep import MultiGrainedScanner
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


# ---------------------------------------------------------------------------------------------
# family arrays: each family's own state, tampered and saved (save does not check, as an author who
# recomputes checksums does not), must be refused on load; valid variants of each family must load


from _estimators import fast_instance  # noqa: E402


def _fit(name, **params):
    from sklearn.base import is_classifier

    est = fast_instance(getattr(forestzoo, name), **params)
    return est.fit(X, Y if is_classifier(est) else X[:, 0])


@pytest.fixture(scope="module")
def family_models():
    return {
        "dnf": _fit("DNDTClassifier"),
        "dnrf": _fit("DNRFClassifier", n_estimators=2),
        "haar": _fit("HaarTreeClassifier", max_depth=3),
        "competence": _fit("CompetenceForestClassifier"),
        "denoising": _fit("DenoisingRandomForestClassifier"),
        "rvfl": _fit("RVFLClassifier", n_hidden=6),
        "rvfl_forest": _fit("RVFLForestClassifier", n_estimators=2, n_hidden=6),
        "gb": _fit("GradientBoostingClassifier", n_estimators=3),
        "rf_reg": _fit("RandomForestRegressor", n_estimators=3),
        "ada": _fit("AdaBoostClassifier", n_estimators=3),
        "ada_logit": _fit("AdaBoostClassifier", n_estimators=3, algorithm="LogitBoost"),
        "ada_reg": _fit("AdaBoostRegressor", n_estimators=3),
        "cascade": _fit("CascadeForestRegressor", max_levels=2),
        "gcforest": _fit("GCForestClassifier", max_levels=1),
        "scanner": fast_instance(MultiGrainedScanner, n_estimators=2, n_folds=2).fit(X, Y),
    }


def _set(path, value):
    """An edit that sets ``model.<path>`` (attribute and index steps, e.g. ``"dnfs_[0].unit_parent[-1]"``)."""
    import re

    steps = re.findall(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(-?\d+)\]", path)

    def edit(model):
        obj = model
        for attr, index in steps[:-1]:
            obj = getattr(obj, attr) if attr else obj[int(index)]
        attr, index = steps[-1]
        value_ = value(obj[int(index)] if index else getattr(obj, attr)) if callable(value) else value
        if attr:
            setattr(obj, attr, value_)
        else:
            obj[int(index)] = value_

    return edit


def _tuple_item(i, value):
    return lambda t: tuple(value(v) if j == i else v for j, v in enumerate(t))


FAMILY_EDITS = {
    # DNF: pointers, parents and sides that the compiled kernel indexes with, weights, classes
    "dnf unit parent out of range": ("dnf", "dnfs_[0].unit_parent[-1]", 10**6, "unit_parent"),
    "dnf unit parent after the unit": ("dnf", "dnfs_[0].unit_parent[1]", lambda p: 5, "unit_parent"),
    "dnf term parent out of range": ("dnf", "dnfs_[0].term_parent[0]", 10**6, "term_parent"),
    "dnf unit pointer past the units": ("dnf", "dnfs_[0].unit_ptr[-1]", lambda p: p + 1, "unit_ptr"),
    "dnf term side not 0/1": ("dnf", "dnfs_[0].term_right[0]", 7, "term_right"),
    "dnf function of no class": ("dnf", "dnfs_[0].func_class[0]", 3, "func_class"),
    "dnf weights one column short": ("dnf", "dnfs_[0].weights", lambda w: np.ascontiguousarray(w[:, :-1]),
                                     "weights"),
    "dnf weight NaN": ("dnf", "dnfs_[0].weights", lambda w: np.where(w == w.max(), np.nan, w), "weights"),
    "dnf zero scale": ("dnf", "scale_", lambda s: s * 0, "scale_"),
    "dnrf second tree's term pointer": ("dnrf", "dnfs_[1].term_ptr", lambda p: p[::-1].copy(), "term_ptr"),
    # Haar: the tree reads the integral image of image_shape_; filters lie inside it
    "haar image shape transposed": ("haar", "image_shape_", (1, 4), "n_features"),
    "haar filter outside the image": ("haar", "node_filters_",
                                      lambda f: _edit_record(f, "top", 40), "node_filters_"),
    "haar unknown filter shape": ("haar", "node_filters_", lambda f: _edit_record(f, "shape", "spiral"),
                                  "node_filters_"),
    "haar proportion above one": ("haar", "tree_.values", lambda v: v + 1.0, "proportions"),
    # competence: one flag per node of each tree
    "competence proportion above one": ("competence", "trees_[0].values", lambda v: v + 1.0, "proportions"),
    "competence flags one short": ("competence", "incompetent_[0]", lambda a: a[:-1].copy(), "incompetent_"),
    "competence flags of another type": ("competence", "incompetent_[0]", lambda a: a.astype(np.int64),
                                         "incompetent_"),
    # denoising: layouts are derived from their trees; autoencoders read every selected tree's units
    "denoising ancestor out of range": ("denoising", "layouts_[0].anc", lambda a: a + 100, "anc"),
    "denoising unit list": ("denoising", "layouts_[0].units", lambda u: {k: v[::-1].copy() for k, v in u.items()},
                            "units"),
    "denoising layout of another depth": ("denoising", "layouts_[0].units", lambda u: {1: u[1]}, "units"),
    # RVFL: every part of the network tuple
    "rvfl output weights one row short": ("rvfl", "model_", _tuple_item(6, lambda b: b[:-1].copy()), "model_"),
    "rvfl hidden weights NaN": ("rvfl", "model_", _tuple_item(2, lambda w: w * np.nan), "model_"),
    "rvfl hidden weight that overflows": ("rvfl", "model_", _tuple_item(2, lambda w: np.where(w == w.max(), 1e308, w)),
                                          "overflow"),
    "rvfl output weight that overflows": ("rvfl", "model_", _tuple_item(6, lambda b: b * 1e300), "overflow"),
    "dnf weight that overflows": ("dnf", "dnfs_[0].weights", lambda w: w * 1e300, "overflow"),
    "gradient boosting leaves that overflow together": ("gb", "estimators_", lambda e: _set_leaves(e, 1e308),
                                                        "overflow"),
    "forest regressor leaves that overflow together": ("rf_reg", "estimators_", lambda e: _set_leaves(e, 1e308),
                                                       "overflows"),
    "rvfl unknown activation": ("rvfl", "model_", _tuple_item(4, lambda a: "__class__"), "model_"),
    "rvfl forest bag without its trees": ("rvfl_forest", "bags_[0]", lambda b: (b[0], b[1][:1]), "bags_"),
    # boosting: a tree per score column, initial scores per column, a weight per round
    "gradient boosting one initial score": ("gb", "init_raw_prediction_", lambda a: a[:1].copy(),
                                            "init_raw_prediction_"),
    "gradient boosting more rounds than trees": ("gb", "n_estimators_", 10**6, "n_estimators_"),
    "adaboost weights one short": ("ada", "estimator_weights_", lambda a: a[:-1].copy(), "estimator_weights_"),
    "adaboost infinite weight": ("ada", "estimator_weights_", lambda a: a * np.inf, "estimator_weights_"),
    "logitboost round one tree short": ("ada_logit", "estimators_[0]", lambda r: r[:-1], "estimators_"),
    "adaboost regressor infinite start": ("ada_reg", "init_", np.inf, "init_"),
    # deep forests: class vectors' width and the columns each level reads
    "cascade level reads other columns": ("cascade", "levels_[1].forests[0].estimators_[0].n_features_in_",
                                          lambda n: n + 1, "n_features_in_"),
    "cascade fold of another width": ("cascade", "levels_[0].forests[0].n_outputs", 2, "n_outputs"),
    "gcforest class code out of range": ("gcforest", "levels_[0][0].forests[0].estimators_[0].classes_",
                                         lambda c: c - 1, "classes_"),
    "gcforest window larger than the image": ("gcforest", "grains_[0].window", (9, 9), "window"),
    "gcforest window count": ("gcforest", "grains_[0].n_windows", lambda n: n + 1, "n_windows"),
    "scanner output width": ("scanner", "n_features_out_", lambda n: n + 3, "n_features_out_"),
    "scanner stride": ("scanner", "grains_[0].stride", 0, "stride"),
}


def _set_leaves(members, factor):
    """Every member tree's values set to ``factor`` (each finite, their sum over the members not)."""
    for member in np.asarray(members, dtype=object).flat:
        member.tree_.values[:] = factor
    return members


def _edit_record(filters, field, value):
    f = filters.copy()
    f[field][0] = value
    return f


@pytest.mark.parametrize("edit", FAMILY_EDITS, ids=list(FAMILY_EDITS))
def test_family_array_rules(runner, family_models, edit):
    import copy

    name, path, value, match = FAMILY_EDITS[edit]
    model = copy.deepcopy(family_models[name])
    _set(path, value)(model)
    refused(runner, saved(model), match)


@pytest.mark.parametrize("name, params", [
    ("DNDTClassifier", {}), ("GradientBoostingClassifier", {"n_estimators": 2}),
    ("AdaBoostClassifier", {"algorithm": "GentleBoost"}), ("AdaBoostClassifier", {"algorithm": "SAMME.R"}),
    ("AdaBoostClassifier", {"algorithm": "RUSBoost"}), ("AdaBoostClassifier", {"algorithm": "M1"}),
    ("RVFLClassifier", {"direct_link": False}), ("HaarTreeClassifier", {"image_shape": (1, 4)}),
    ("GCForestClassifier", {"image_shape": (2, 2), "window_sizes": [(1, 1), (2, 1)], "max_levels": 2}),
    ("CompetenceForestClassifier", {"strategy": "first_competent"}),
])
@pytest.mark.parametrize("binary", [False, True])
def test_family_variants_load(name, params, binary):
    """Every variant of a family's state is one the checks accept (two classes and three)."""
    from sklearn.base import is_classifier

    est = fast_instance(getattr(forestzoo, name), **params)
    y = (Y > 0).astype(int) if binary else Y
    est.fit(X, y if is_classifier(est) else X[:, 0])
    assert_array_equal(load(io.BytesIO(saved(est))).predict(X), est.predict(X))
