"""Structural checks of a decoded model, before any compiled code sees it.

A model file's checksums say nothing about an attacker who recomputes them,
and forestzoo's compiled walkers read node tables without bounds checks.  So
every array that compiled code indexes is checked here, once, on load, with
vectorised numpy (a few passes over each node table), one function per kind
of array:

* node tables (:data:`~forestzoo._engine.tree.NODE_DTYPE`, field for field:
  a different layout is refused, never compiled): :func:`check_nodes`;
* value tables (:func:`check_values`) and a :class:`LeafValueTree`'s leaf
  codes;
* compact prediction tables: a :class:`Tree`'s is dropped and rebuilt from
  its nodes; a :class:`PredictionTree`'s, which is its tree, is checked like
  a node table (:func:`check_compact`);
* oblique side arrays (CSR rows of features and weights):
  :func:`check_oblique`;
* an online forest's stacked arrays, slots and counters: :func:`check_online`;
* each family's own arrays, against the estimator's attributes (feature and
  class counts, layer sizes): :func:`family_checks` lists one check per
  family (DNF functions, Haar filters, competence flags, denoising layouts,
  RVFL networks, boosting rounds, deep-forest levels and grains), and
  :func:`check_tree_reads` pins every tree a family walks itself to the
  columns the family gives it;
* a fitted estimator's attributes that prediction reads
  (:data:`PREDICT_READS`): one missing is named, not met at predict.

A failed check raises :class:`~forestzoo.io.ModelFormatError` naming the
attribute path and the rule.
"""

import functools

import numpy as np

from .._engine.api import NODE_DTYPE, TREE_LEAF, LeafValueTree, PredictionTree, Tree
from ._container import ModelFormatError


def isinstance_classifier(est):
    """``sklearn.base.is_classifier`` without building the estimator's tags (a cost per tree on load)."""
    from sklearn.base import ClassifierMixin

    return isinstance(est, ClassifierMixin)


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _fail(where, rule):
    raise ModelFormatError(f"{where}: {rule}")


def _array(a, where, dtype, ndim):
    """``a`` must be a C-contiguous ndarray of exactly ``dtype`` and ``ndim`` dimensions."""
    if type(a) is not np.ndarray:
        _fail(where, f"must be a numpy array, got {type(a).__name__}")
    if a.dtype != dtype or (a.dtype.fields is not None and a.dtype.isalignedstruct != dtype.isalignedstruct):
        _fail(where, f"must have dtype {dtype}, got {a.dtype}")
    if a.ndim != ndim:
        _fail(where, f"must have {ndim} dimension(s), got shape {a.shape}")
    if not a.flags.c_contiguous or not a.flags.writeable:
        _fail(where, "must be a C-contiguous writeable array")
    return a


def _n_features(tree, where):
    n = tree.__dict__.get("n_features")
    if type(n) is not int or n < 0:
        _fail(f"{where}.n_features", f"must be a non-negative int, got {n!r}")
    return n


_THRESHOLD_RULE = ("a split's threshold must be finite, or +inf for the split of values from missing values "
                   "(NaN goes the way missing_left says)")


def _thresholds_ok(t):
    """Finite, or +inf: the splitters' split of every value (left) from NaN (missing_left's side)."""
    return bool(np.all(np.isfinite(t) | (t == np.inf)))


def check_links(left, right, where):
    """Child links of a node table: leaf markers paired, children in range and after their parent, each node
    (but the root) the child of exactly one node.

    Children stored after their parent make the links acyclic, and one
    parent per node then makes every node reachable from the root exactly
    once: following parents from any node strictly decreases the row and ends
    at row 0.  Returns the mask of internal nodes.
    """
    n = left.shape[0]
    if n == 0:
        _fail(where, "a tree has at least one node (the root)")
    leaf = left == TREE_LEAF
    if not np.array_equal(leaf, right == TREE_LEAF):
        _fail(f"{where}['left'/'right']", "a leaf has both links -1, an internal node neither")
    internal = ~leaf
    rows = np.flatnonzero(internal)
    lc, rc = left[internal].astype(np.int64), right[internal].astype(np.int64)
    if lc.size and (lc.min() <= 0 or rc.min() <= 0 or lc.max() >= n or rc.max() >= n):
        _fail(f"{where}['left'/'right']", f"child links must lie in [1, {n})")
    if np.any(lc <= rows) or np.any(rc <= rows):
        _fail(f"{where}['left'/'right']", "every child must be stored after its parent (no cycles)")
    parents = np.bincount(np.concatenate([lc, rc]), minlength=n)
    if parents[0] != 0 or np.any(parents[1:] != 1):
        _fail(f"{where}['left'/'right']", "every node but the root must be the child of exactly one node")
    return internal


def check_nodes(nodes, where, n_features, n_oblique):
    """A :data:`NODE_DTYPE` table: links (:func:`check_links`), features, oblique rows, thresholds, depths."""
    _array(nodes, where, NODE_DTYPE, 1)
    internal = check_links(nodes["left"], nodes["right"], where)
    obl = nodes["oblique"][internal]
    axis = obl == -1
    if np.any(obl < -1) or np.any(obl >= n_oblique):
        _fail(f"{where}['oblique']", f"an internal node's oblique row must be -1 or in [0, {n_oblique})")
    feat = nodes["feature"][internal][axis]
    if feat.size and (feat.min() < 0 or feat.max() >= n_features):
        _fail(f"{where}['feature']", f"an axis-aligned split's feature must lie in [0, n_features={n_features})")
    if not _thresholds_ok(nodes["threshold"][internal]):
        _fail(f"{where}['threshold']", _THRESHOLD_RULE)
    if np.any(nodes["missing_left"] > 1):
        _fail(f"{where}['missing_left']", "must be 0 or 1")
    depth = nodes["depth"]
    if depth[0] != 0 or np.any(depth[nodes["left"][internal]] != depth[internal] + 1) or np.any(
            depth[nodes["right"][internal]] != depth[internal] + 1):
        _fail(f"{where}['depth']", "the root has depth 0 and a child its parent's depth + 1")


def check_values(values, where, n_rows):
    """A float64 value table ``(n_rows, n_values)`` with ``n_values >= 1``."""
    _array(values, where, np.dtype(np.float64), 2)
    if values.shape[0] != n_rows or values.shape[1] < 1:
        _fail(where, f"must have shape ({n_rows}, n_values >= 1), got {values.shape}")
    if not np.all(np.isfinite(values)):
        _fail(where, "must be finite")


def check_proportions(values, where):
    """A classifier's value rows are class proportions: in [0, 1]."""
    if values.size and (values.min() < 0.0 or values.max() > 1.0):
        _fail(where, "a classifier's values are class proportions in [0, 1]")


def check_oblique(tree, where, n_features):
    """CSR side arrays: ``obl_ptr`` from 0, non-decreasing, ending at the length of features and weights."""
    ptr = _array(tree.__dict__.get("obl_ptr"), f"{where}.obl_ptr", np.dtype(np.int64), 1)
    feat = _array(tree.__dict__.get("obl_feature"), f"{where}.obl_feature", np.dtype(np.int32), 1)
    weight = _array(tree.__dict__.get("obl_weight"), f"{where}.obl_weight", np.dtype(np.float64), 1)
    if ptr.shape[0] < 1 or ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != feat.shape[0]:
        _fail(f"{where}.obl_ptr", "must start at 0, never decrease and end at len(obl_feature)")
    if weight.shape[0] != feat.shape[0]:
        _fail(f"{where}.obl_weight", "must be as long as obl_feature")
    if feat.size and (feat.min() < 0 or feat.max() >= n_features):
        _fail(f"{where}.obl_feature", f"features must lie in [0, n_features={n_features})")
    if not np.all(np.isfinite(weight)):
        _fail(f"{where}.obl_weight", "must be finite")
    return ptr.shape[0] - 1


def check_compact(cnodes, where, n_features):
    """A :class:`PredictionTree`'s compact table (flat int32, four fields per node, axis-aligned)."""
    _array(cnodes, where, np.dtype(np.int32), 1)
    if cnodes.shape[0] == 0 or cnodes.shape[0] % 4:
        _fail(where, "must hold four int32 fields per node, at least one node")
    c = cnodes.reshape(-1, 4).astype(np.int64)
    thr = cnodes.view(np.float32).reshape(-1, 4)[:, 1]
    rows = np.arange(c.shape[0])
    leaf = c[:, 2] == rows
    if np.any(c[leaf, 3] != rows[leaf]) or np.any(c[leaf, 0] != 0) or np.any(thr[leaf] != np.inf):
        _fail(where, "a leaf points to itself on both sides, with feature 0 and threshold +inf")
    left = np.where(leaf, TREE_LEAF, c[:, 2])
    right = np.where(leaf, TREE_LEAF, np.abs(c[:, 3]))
    internal = check_links(left, right, where)
    feat = c[internal, 0]
    if feat.size and (feat.min() < 0 or feat.max() >= n_features):
        _fail(where, f"a split's feature must lie in [0, n_features={n_features})")
    if not _thresholds_ok(thr[internal]):
        _fail(where, _THRESHOLD_RULE)
    return internal


def check_leaf_codes(tree, where, internal):
    """A :class:`LeafValueTree`'s ``leaf_row`` (-1 internal, a row of ``leaf_values``, or ``-2 - class``)."""
    lv = tree.__dict__.get("leaf_values")
    check_values(lv, f"{where}.leaf_values", lv.shape[0])
    codes = _array(tree.__dict__.get("leaf_row"), f"{where}.leaf_row", np.dtype(np.int32), 1)
    if codes.shape[0] != internal.shape[0]:
        _fail(f"{where}.leaf_row", f"must have one entry per node ({internal.shape[0]}), got {codes.shape[0]}")
    if np.any(codes[internal] != -1):
        _fail(f"{where}.leaf_row", "internal nodes have -1")
    lc = codes[~internal]
    if np.any(lc >= lv.shape[0]) or np.any(lc == -1) or np.any(lc < -1 - lv.shape[1]):
        _fail(f"{where}.leaf_row", f"a leaf has a row of leaf_values (< {lv.shape[0]}) or -2 - class "
                                   f"(class < {lv.shape[1]})")


def check_tree(tree, where):
    """Every array of a :class:`Tree`, :class:`LeafValueTree` or :class:`PredictionTree` that prediction reads."""
    if type(tree) not in (Tree, LeafValueTree, PredictionTree):
        _fail(where, f"unknown tree class {type(tree).__qualname__}")
    n_features = _n_features(tree, where)
    tree.__dict__.pop("_compact", None)  # derived from the nodes: rebuilt on first use, never trusted
    n_oblique = check_oblique(tree, where, n_features)
    if type(tree) is PredictionTree:
        if n_oblique:
            _fail(f"{where}.obl_ptr", "a PredictionTree is axis-aligned")
        internal = check_compact(tree.__dict__.get("cnodes"), f"{where}.cnodes", n_features)
    else:
        nodes = tree.__dict__.get("nodes")
        check_nodes(nodes, f"{where}.nodes", n_features, n_oblique)
        internal = nodes["left"] != TREE_LEAF
        if type(tree) is Tree:
            check_values(tree.__dict__.get("values"), f"{where}.values", nodes.shape[0])
    if type(tree) is not Tree:
        check_leaf_codes(tree, where, internal)
    check_output_classes(tree, where)
    return tree.n_values


def check_output_classes(tree, where):
    """A multi-output tree's ``output_classes``: at least two positive ints whose layout fills ``values``."""
    oc = tree.__dict__.get("output_classes")
    if oc is None:
        return
    if type(tree) is not Tree:
        _fail(f"{where}.output_classes", "only a Tree has several outputs")
    if not isinstance(oc, np.ndarray) or oc.dtype.kind not in "iu" or oc.ndim != 1 or oc.shape[0] < 2:
        _fail(f"{where}.output_classes", "must be a 1-D integer array of at least two outputs")
    if oc.min() < 1 or tree.n_values != oc.shape[0] * int(oc.max()):
        _fail(f"{where}.output_classes", f"must hold positive class counts whose n_outputs * max fills the "
                                         f"{tree.n_values} value columns")


def check_online(forest, owner, where):
    """An online forest's stacked arrays (see :mod:`forestzoo.online._kernels`) against its estimator.

    Per tree ``t`` with ``n = counts[t, 0]`` nodes and ``m = counts[t, 1]``
    pool rows: ``nodes[t, :n]`` is a valid node table, leaves have a slot in
    ``[0, m)`` and internal nodes -1, parents are in range, candidate features
    in ``[0, n_features_in_)``; all shapes agree with the estimator's
    classes and criterion.  The forest has one drift row per voting tree
    and one physical tree per voting tree, or two when it is paired with
    background trees; each voting tree is one of its pair, and a paired
    forest's ADWIN detectors are ones the kernel could have left.  The
    number of voting trees may differ from ``n_estimators``: a
    ``set_params`` before saving reshapes the forest at the next
    ``partial_fit``.
    """
    from ..online._classes import _CRITERIA, BaseOnlineForest

    if not isinstance(owner, BaseOnlineForest):
        _fail(where, "an online forest belongs to an online estimator")
    d = owner.__dict__.get("n_features_in_")
    if not _is_int(d) or d < 1:
        _fail(f"{where}.n_features_in_", "must be a positive int")
    if owner.__dict__.get("criterion") not in _CRITERIA:
        _fail(f"{where}.criterion", f"must be one of {sorted(_CRITERIA)}")
    if owner._is_classifier():
        classes = owner.__dict__.get("classes_")
        if type(classes) is not np.ndarray or classes.ndim != 1 or classes.shape[0] < 1:
            _fail(f"{where}.classes_", "must be a 1-D array of at least one class")
        n_values = classes.shape[0]
        if owner.criterion == "squared_error":
            _fail(f"{where}.criterion", "a classifier's criterion counts classes")
    else:
        n_values = 1
    n_stats = 3 if owner.criterion == "squared_error" else n_values
    a = {name: getattr(forest, name, None) for name in
         ("nodes", "values", "parent_of", "slot", "seen", "stats", "tfeat", "tthr", "tstats", "counts", "fmin",
          "fmax", "rng")}
    f64, i64 = np.dtype(np.float64), np.dtype(np.int64)
    nodes = _array(a["nodes"], f"{where}.nodes", NODE_DTYPE, 2)
    T, cap = nodes.shape
    if cap < 3:
        _fail(f"{where}.nodes", "must have a capacity of at least 3 nodes")
    _check_drift_state(forest, T, where)
    tfeat = _array(a["tfeat"], f"{where}.tfeat", i64, 3)
    scap, n_tests = tfeat.shape[1:]
    rng = a["rng"]
    expected = {
        "values": (f64, (T, cap, n_values)), "parent_of": (i64, (T, cap)), "slot": (i64, (T, cap)),
        "seen": (f64, (T, scap)), "stats": (f64, (T, scap, n_stats)), "tthr": (f64, (T, scap, n_tests)),
        "tstats": (f64, (T, scap, n_tests, 2, n_stats)), "counts": (i64, (T, 3)), "fmin": (f64, (T, d)),
        "fmax": (f64, (T, d)),
        "rng": (getattr(rng, "dtype", None), (T, rng.shape[1] if isinstance(rng, np.ndarray) and rng.ndim == 2 else -1)),
    }
    for name, (dtype, shape) in expected.items():
        arr = _array(a[name], f"{where}.{name}", dtype if dtype is not None else f64, len(shape))
        if arr.shape != shape:
            _fail(f"{where}.{name}", f"must have shape {shape}, got {arr.shape}")
    from .._engine.api import make_state

    if rng.dtype != make_state(0).dtype or rng.shape[1] != make_state(0).shape[0]:
        _fail(f"{where}.rng", "must hold one engine random state per tree")
    if scap < 1 or n_tests < 1:
        _fail(f"{where}.tfeat", "needs at least one pool row and one candidate test")
    counts = a["counts"]
    if np.any(counts[:, 0] < 1) or np.any(counts[:, 0] > cap) or np.any(counts[:, 1] < 1) or np.any(
            counts[:, 1] > scap) or np.any(counts[:, 2] < 0):
        _fail(f"{where}.counts", f"nodes in [1, {cap}], pool rows in [1, {scap}] and samples >= 0 per tree")
    if tfeat.size and (tfeat.min() < 0 or tfeat.max() >= d):
        _fail(f"{where}.tfeat", f"candidate features must lie in [0, n_features_in_={d})")
    slot, parent = a["slot"], a["parent_of"]
    for t in range(T):
        n, m = int(counts[t, 0]), int(counts[t, 1])
        tw = f"{where}.nodes[{t}]"
        nd = nodes[t, :n]
        check_links(nd["left"], nd["right"], tw)
        internal = nd["left"] != TREE_LEAF
        feat = nd["feature"][internal]
        if feat.size and (feat.min() < 0 or feat.max() >= d):
            _fail(f"{tw}['feature']", f"a split's feature must lie in [0, n_features_in_={d})")
        if np.any(nd["oblique"][internal] != -1):
            _fail(f"{tw}['oblique']", "online trees are axis-aligned")
        if not np.all(np.isfinite(nd["threshold"][internal])):
            _fail(f"{tw}['threshold']", "a split's threshold must be finite")
        vals = a["values"][t, :n]
        if not np.all(np.isfinite(vals)):
            _fail(f"{where}.values[{t}]", "must be finite")
        if owner._is_classifier():
            check_proportions(vals, f"{where}.values[{t}]")
        depth = nd["depth"]
        if depth[0] != 0 or np.any(depth < 0):
            _fail(f"{tw}['depth']", "the root has depth 0, others a non-negative depth")
        s = slot[t, :n]
        if np.any(s[internal] != -1) or np.any(s[~internal] < 0) or np.any(s[~internal] >= m):
            _fail(f"{where}.slot[{t}]", f"internal nodes have -1, leaves a pool row in [0, {m})")
        p = parent[t, :n]
        if p[0] != -1 or np.any(p[1:] < 0) or np.any(p[1:] >= np.arange(1, n)):
            _fail(f"{where}.parent_of[{t}]", "the root has -1, every other node an earlier row")


def _check_drift_state(forest, n_phys, where):
    """``dstate`` and ``detect`` of an online forest of ``n_phys`` physical trees (see :func:`check_online`)."""
    from ..online._adwin import ADWIN_SIZE, detector_problem
    from ..online._kernels import BG_ON, FG, LAST_DRIFT, N_DRIFTS, N_DSTATE, N_WARNINGS, ROWS

    dstate = _array(getattr(forest, "dstate", None), f"{where}.dstate", np.dtype(np.int64), 2)
    V = dstate.shape[0]
    if V < 1 or dstate.shape[1] != N_DSTATE or n_phys not in (V, 2 * V):
        _fail(f"{where}.dstate", f"must have shape (n_voting >= 1, {N_DSTATE}) with n_voting or 2 * n_voting trees")
    detect = _array(getattr(forest, "detect", None), f"{where}.detect", np.dtype(np.float64), 3)
    if detect.shape != (V, 2, ADWIN_SIZE) or not np.all(np.isfinite(detect)):
        _fail(f"{where}.detect", f"must hold finite values of shape {(V, 2, ADWIN_SIZE)}")
    p = np.arange(V)
    paired = n_phys == 2 * V
    fg = dstate[:, FG]
    if np.any((fg != p) & ~(paired & (fg == p + V))):
        _fail(f"{where}.dstate", "voting tree p is physical tree p, or p + n_voting in a paired forest")
    if np.any((dstate[:, BG_ON] != 0) & ((dstate[:, BG_ON] != 1) | (not paired))):
        _fail(f"{where}.dstate", "only a paired forest has background trees learning (flag 0 or 1)")
    if np.any(dstate[:, [N_DRIFTS, N_WARNINGS, ROWS]] < 0) or np.any(dstate[:, LAST_DRIFT] < -1):
        _fail(f"{where}.dstate", "drift counters must be non-negative and the last drift -1 or a stream position")
    if paired:
        for v in range(V):
            for k in range(2):
                why = detector_problem(detect[v, k])
                if why:
                    _fail(f"{where}.detect[{v}, {k}]", why)


@functools.lru_cache(maxsize=None)
def _param_names(cls):
    return frozenset(cls._get_param_names()) if hasattr(cls, "_get_param_names") else frozenset()


def check_params(estimator, where):
    """The estimator's parameters must pass its own ``_parameter_constraints`` (those ``fit`` checks)."""
    from sklearn.utils._param_validation import validate_parameter_constraints

    constraints = getattr(type(estimator), "_parameter_constraints", None)
    if not constraints:
        return
    state = estimator.__dict__
    names = _param_names(type(estimator))
    missing = sorted(n for n in names if n not in state)
    if missing:
        _fail(where, f"parameter(s) {', '.join(missing)} missing")
    try:
        validate_parameter_constraints(constraints, {n: state[n] for n in names},
                                       caller_name=type(estimator).__name__)
    except (ValueError, TypeError) as exc:
        _fail(where, f"invalid parameter: {exc}")


def check_side_effect_free(estimator):
    """Parameters that would let a file choose threads, output, caches or paths, reset to their defaults.

    ``n_jobs`` becomes None (one thread), ``verbose`` 0 (False where it is a
    boolean), and ``memory``
    (``Pipeline``'s cache directory, or any estimator's) None: a loaded
    model never starts more threads, prints, or reads and writes files
    because its file says so.  Set them again after loading if wanted.
    """
    names = _param_names(type(estimator))
    state = estimator.__dict__
    for name, safe in (("n_jobs", None), ("verbose", 0), ("memory", None)):
        if name in names and name in state:
            # a boolean verbose (Pipeline's) stays a boolean
            state[name] = False if name == "verbose" and isinstance(state[name], (bool, np.bool_)) else safe


#: Fitted attributes that each estimator's prediction reads (``predict``, ``predict_proba``,
#: ``decision_function``, ``apply``, ``transform``) or that :func:`validate_model` checks its arrays
#: against.  A fitted model whose file lacks one of them (a file whose writer stored the state under
#: another name) is refused on load, naming the attribute, instead of failing at predict.
#: ``tests/test_io_attributes.py`` removes each fitted attribute of every estimator in turn and checks
#: that every one whose absence breaks prediction is listed here.
PREDICT_READS = {
    "AdaBoostClassifier": ("classes_", "estimator_weights_", "estimators_", "n_classes_", "n_features_in_"),
    "AdaBoostRegressor": ("estimator_weights_", "estimators_", "init_", "n_features_in_"),
    "CascadeForestClassifier": ("_n_outputs", "classes_", "levels_", "n_classes_", "n_features_in_"),
    "CascadeForestRegressor": ("_n_outputs", "levels_", "n_features_in_"),
    "CompetenceForestClassifier": ("classes_", "incompetent_", "n_classes_", "n_features_in_", "trees_"),
    "DNDTClassifier": ("classes_", "dnfs_", "input_dtype_", "mean_", "n_classes_", "n_features_in_", "scale_"),
    "DNRFClassifier": ("classes_", "dnfs_", "input_dtype_", "mean_", "n_classes_", "n_features_in_", "scale_"),
    "DecisionTreeClassifier": ("classes_", "n_classes_", "n_features_in_", "n_outputs_", "tree_"),
    "DecisionTreeRegressor": ("n_features_in_", "n_outputs_", "tree_"),
    "DenoisingRandomForestClassifier": ("autoencoders_", "classes_", "feature_mean_", "feature_std_", "layouts_",
                                        "n_classes_", "n_features_in_"),
    "DenoisingRandomForestRegressor": ("autoencoders_", "feature_mean_", "feature_std_", "layouts_",
                                       "n_features_in_"),
    "ExtraTreesClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "ExtraTreesRegressor": ("estimators_", "n_features_in_", "n_outputs_"),
    "GCForestClassifier": ("classes_", "grains_", "levels_", "n_classes_", "n_features_in_"),
    "GradientBoostingClassifier": ("classes_", "estimators_", "init_raw_prediction_", "n_classes_", "n_estimators_",
                                   "n_features_in_", "n_trees_per_iteration_"),
    "GradientBoostingRegressor": ("estimators_", "init_raw_prediction_", "n_estimators_", "n_features_in_",
                                  "n_trees_per_iteration_"),
    "MultiGrainedScanner": ("classes_", "grains_", "n_classes_", "n_features_in_", "n_features_out_"),
    "HaarTreeClassifier": ("classes_", "image_shape_", "n_classes_", "n_features_in_", "node_filters_", "tree_"),
    "HeterogeneousObliqueForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_",
                                             "n_outputs_"),
    "MPSVMForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "OneVsAllObliqueForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "OnlineRandomForestClassifier": ("classes_", "forest_", "n_features_in_"),
    "OnlineRandomForestRegressor": ("forest_", "n_features_in_"),
    "RVFLClassifier": ("classes_", "model_", "n_features_in_"),
    "RVFLClassifierCV": ("best_estimator_",),
    "RVFLForestClassifier": ("bags_", "classes_", "n_classes_", "n_features_in_"),
    "RandomForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "RandomForestRegressor": ("estimators_", "n_features_in_", "n_outputs_"),
    "RotationForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "RotationForestRegressor": ("estimators_", "n_features_in_", "n_outputs_"),
    "TransferForestClassifier": ("classes_", "estimators_", "n_classes_", "n_features_in_", "n_outputs_"),
    "TransferForestRegressor": ("estimators_", "n_features_in_", "n_outputs_"),
}


def is_fitted(est):
    """scikit-learn's rule (``check_is_fitted``): a public attribute whose name ends with an underscore."""
    return any(k.endswith("_") and not k.startswith("_") for k in est.__dict__)


def check_fitted_attributes(est, where):
    """A fitted forestzoo estimator holds every attribute of :data:`PREDICT_READS` for its class."""
    cls = type(est)
    if not cls.__module__.startswith("forestzoo.") or not is_fitted(est):
        return
    missing = [a for a in PREDICT_READS.get(cls.__name__, ()) if a not in est.__dict__]
    if missing:
        _fail(where, f"fitted attribute(s) {', '.join(missing)} missing: the file stores a fitted {cls.__name__} "
                     "without them (written by a version that named or kept its state differently); refit the "
                     "model and save it again")


def validate_model(model, root="model"):
    """Walk the decoded object graph once: check every tree and online forest, reset file-chosen side effects.

    Returns ``model``; raises :class:`~forestzoo.io.ModelFormatError` at the
    first array that fails its rule.
    """
    from sklearn.base import BaseEstimator

    from ..online._classes import OnlineForest

    seen = set()
    owners = []
    stack = [(model, root, None)]
    while stack:
        obj, where, owner = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic)):
            continue
        seen.add(id(obj))
        if isinstance(obj, Tree):
            check_tree(obj, where)
            continue
        if type(obj) is OnlineForest:
            check_online(obj, owner, where)
            continue
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind == "O":
                stack.extend((v, f"{where}.flat[{i}]", owner) for i, v in enumerate(obj.flat))
            continue
        if isinstance(obj, dict):
            stack.extend((v, f"{where}[{k!r}]", owner) for k, v in obj.items())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend((v, f"{where}[{i}]", owner) for i, v in enumerate(obj))
        elif hasattr(obj, "__dict__"):
            if isinstance(obj, BaseEstimator):
                missing = sorted(n for n in _param_names(type(obj)) if n not in obj.__dict__)
                if missing:
                    _fail(where, f"parameter(s) {', '.join(missing)} missing")
                check_fitted_attributes(obj, where)
                check_side_effect_free(obj)
                owners.append((obj, where))
                owner = obj
            stack.extend((v, f"{where}.{k}", owner) for k, v in vars(obj).items())
    checked = set()
    for est, where in owners:  # every tree is valid by now: its shape properties may be read
        check_tree_owner(est, where, checked)
        check_family(est, where)
    if isinstance(model, BaseEstimator):
        _check_param_tree(model, root, set())
    return model


def _check_param_tree(est, where, seen):
    """:func:`check_params` on ``est`` and the estimators among its parameters (pipeline steps, ...).

    Estimators a fitted model builds for itself (a forest's trees) are not
    parameters of the user's and are not checked: their parameters are
    whatever the fit gave them, and prediction does not read them.
    """
    from sklearn.base import BaseEstimator

    if id(est) in seen:
        return
    seen.add(id(est))
    check_params(est, where)
    for name in sorted(_param_names(type(est))):
        value = est.__dict__.get(name)
        items = value if isinstance(value, (list, tuple)) else [value]
        for i, item in enumerate(items):
            parts = item if isinstance(item, tuple) else (item,)
            for part in parts:
                if isinstance(part, BaseEstimator):
                    _check_param_tree(part, f"{where}.{name}[{i}]" if items is value else f"{where}.{name}", seen)


def _decision_tree_types():
    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    return DecisionTreeClassifier, DecisionTreeRegressor


def _n_outputs(est, where):
    """``est.n_outputs_`` (1 when absent), a positive int."""
    n = est.__dict__.get("n_outputs_", 1)
    if not _is_int(n) or n < 1:
        _fail(f"{where}.n_outputs_", f"must be a positive int, got {n!r}")
    return n


def _expected_values(est, where):
    """Columns of a tree's value table under ``est``: ``n_classes_`` for a classifier, 1 for a regressor.

    With several outputs (``n_outputs_ > 1``): ``n_outputs_ * max(n_classes_)``, or ``n_outputs_``.
    """
    n_out = _n_outputs(est, where)
    if n_out > 1:
        if not isinstance_classifier(est):
            return n_out
        k = est.__dict__.get("n_classes_")
        if (not isinstance(k, (list, np.ndarray)) or len(k) != n_out
                or not all(_is_int(c) and c >= 1 for c in list(k))):
            _fail(f"{where}.n_classes_", f"must hold n_outputs_={n_out} positive ints, got {k!r}")
        return n_out * int(max(k))
    if not isinstance_classifier(est):
        return 1
    k = est.__dict__.get("n_classes_")
    if not _is_int(k) or k < 1:
        _fail(f"{where}.n_classes_", f"must be a positive int, got {k!r}")
    return k


def _n_features_in(est, where):
    d = est.__dict__.get("n_features_in_")
    if not _is_int(d) or d < 1:
        _fail(f"{where}.n_features_in_", f"must be a positive int, got {d!r}")
    return d


def check_classes(est, where, checked):
    """A fitted classifier's ``classes_``: sorted, distinct class labels (what ``fit`` stores), as many as
    ``n_classes_`` says.  ``checked``: ids of label arrays already checked (a forest's trees share one)."""
    classes = est.__dict__["classes_"]
    if isinstance(classes, list) and _n_outputs(est, where) > 1:
        k = est.__dict__.get("n_classes_")
        if not isinstance(k, (list, np.ndarray)) or len(k) != len(classes):
            _fail(f"{where}.classes_", f"must hold one label array per output, got {len(classes)}")
        for o, labels in enumerate(classes):
            if not isinstance(labels, np.ndarray):
                _fail(f"{where}.classes_[{o}]", "must be an array of labels")
            _check_labels(labels, k[o], f"{where}.classes_[{o}]", checked)
        return
    if not isinstance(classes, np.ndarray):
        return  # other layouts are the family's own
    _check_labels(classes, est.__dict__.get("n_classes_"), f"{where}.classes_", checked)


def _check_labels(classes, k, where, checked):
    """One output's ``classes_``: ``k`` sorted, distinct class labels."""
    from sklearn.utils.multiclass import type_of_target

    if _is_int(k) and k != classes.shape[0]:
        _fail(where, f"must hold n_classes_={k} labels, got {classes.shape[0]}")
    if id(classes) in checked:
        return
    checked.add(id(classes))
    if classes.ndim != 1 or classes.shape[0] < 1:
        _fail(where, f"must be a 1-D array of at least one label, got shape {classes.shape}")
    try:
        ordered = np.array_equal(np.unique(classes), classes)
        kind = type_of_target(classes)
    except (TypeError, ValueError):
        ordered, kind = False, None
    if not ordered or kind not in ("binary", "multiclass"):
        _fail(where, "must hold sorted, distinct class labels")


def check_tree_owner(est, where, checked):
    """A decision tree's ``tree_`` reads the columns it validates: feature count and value columns agree.

    For a :class:`DecisionTreeClassifier` / :class:`DecisionTreeRegressor`,
    ``tree_.n_features == n_features_in_`` and ``tree_.n_values`` is
    ``n_classes_`` (classifier) or 1; for an estimator whose ``estimators_``
    are such trees (forests, boosting), every member has the estimator's
    ``n_features_in_`` and the same value columns (the estimator's
    ``n_classes_`` for a classifier with classifier members), since their
    predictions are added into one array.
    """
    tree_types = _decision_tree_types()
    tree = est.__dict__.get("tree_")
    if type(est) in tree_types and isinstance(tree, Tree):
        if tree.n_features != _n_features_in(est, where):
            _fail(f"{where}.tree_.n_features", f"must equal n_features_in_={est.n_features_in_}")
        n_out = _n_outputs(est, where)
        if tree.n_outputs != n_out:
            _fail(f"{where}.tree_.output_classes", f"must give n_outputs_={n_out} outputs, got {tree.n_outputs}")
        if tree.n_values != _expected_values(est, where):
            _fail(f"{where}.tree_.values", f"must have {_expected_values(est, where)} column(s) (n_classes_ "
                                           f"or 1), got {tree.n_values}")
        if isinstance_classifier(est):
            stored = tree.__dict__["leaf_values"] if isinstance(tree, LeafValueTree) else tree.__dict__["values"]
            check_proportions(stored, f"{where}.tree_.values")
    if isinstance_classifier(est) and "classes_" in est.__dict__:
        check_classes(est, where, checked)
    members = est.__dict__.get("estimators_")
    if isinstance(members, np.ndarray) and members.dtype == object:
        members = list(members.flat)
    if not isinstance(members, list) or not members or not all(type(m) in tree_types for m in members):
        return
    if not all(isinstance(m.__dict__.get("tree_"), Tree) for m in members):
        _fail(f"{where}.estimators_", "every fitted member has a tree_")
    widths = {m.tree_.n_values for m in members if isinstance(m.__dict__.get("tree_"), Tree)}
    if len(widths) > 1:
        _fail(f"{where}.estimators_", f"every tree must have the same value columns, got {sorted(widths)}")
    if "n_features_in_" in est.__dict__:
        d = _n_features_in(est, where)
        if any(m.__dict__.get("n_features_in_") != d for m in members):
            _fail(f"{where}.estimators_", f"every member must have n_features_in_={d}")
    if isinstance_classifier(est) and all(map(isinstance_classifier, members)) and "n_classes_" in est.__dict__:
        k = _expected_values(est, where)
        if widths and widths != {k}:
            _fail(f"{where}.estimators_", f"every tree must have n_classes_={k} value columns")


# ---------------------------------------------------------------------------------------------
# family arrays: what each family's prediction reads besides its trees' own tables


def _shaped(a, where, dtype, shape, finite=False):
    """``a`` must be an array of exactly ``dtype`` and ``shape`` (``-1``: any length), finite if asked."""
    _array(a, where, np.dtype(dtype), len(shape))
    if any(s != -1 and s != n for s, n in zip(shape, a.shape)):
        _fail(where, f"must have shape {tuple('any' if s == -1 else s for s in shape)}, got {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        _fail(where, "must be finite")
    return a


def _list(value, where, n=None, kind="list", min_len=1):
    """``value`` must be a list (or tuple, ``kind="sequence"``) of ``n`` items (at least ``min_len``)."""
    types = (list, tuple) if kind == "sequence" else (list,)
    if not isinstance(value, types):
        _fail(where, f"must be a {kind}, got {type(value).__name__}")
    if n is not None and len(value) != n:
        _fail(where, f"must hold {n} item(s), got {len(value)}")
    if len(value) < min_len:
        _fail(where, f"must hold at least {min_len} item(s)")
    return value


#: Largest magnitude of an input feature that prediction accepts (larger values are refused as too
#: large for float32).
_INPUT_BOUND = float(np.finfo(np.float32).max)


def _standardized_bound(mean, scale):
    """Largest ``|(x - mean) / scale|`` per feature over the inputs prediction accepts (float64, may be inf)."""
    with np.errstate(over="ignore", divide="ignore"):
        return (_INPUT_BOUND + np.abs(mean)) / np.abs(scale)


def _check_bounded(bound, where):
    """Scores bounded by ``bound`` (float64 upper bounds of their magnitudes) must stay finite."""
    if not np.all(np.isfinite(bound)):
        _fail(where, "is so large that the scores overflow for inputs prediction accepts (|x| up to the float32 "
                     "maximum): no fit gives such weights")


def check_tree_reads(tree, where, n_features, n_values=None, tree_types=(Tree,), proportions=False):
    """A tree a family walks itself: of ``tree_types``, reading ``n_features`` columns, with ``n_values`` columns
    (class proportions in [0, 1] with ``proportions``).

    The compiled walkers index the rows they are given by the tree's
    features, so a tree must read exactly the columns its family gives it.
    """
    if type(tree) not in tree_types:
        _fail(where, f"must be a {' or '.join(t.__name__ for t in tree_types)}, got {type(tree).__name__}")
    if tree.n_features != n_features:
        _fail(f"{where}.n_features", f"must equal {n_features}, the columns the family gives the tree, "
                                     f"got {tree.n_features}")
    if n_values is not None and tree.n_values != n_values:
        _fail(f"{where}.values", f"must have {n_values} column(s), got {tree.n_values}")
    if proportions:
        stored = tree.__dict__["leaf_values"] if isinstance(tree, LeafValueTree) else tree.__dict__["values"]
        check_proportions(stored, f"{where}.values")
    return tree


def _member_tree(member, where, cls, n_features, n_values):
    """A fitted ``DecisionTree*`` member (``cls``) whose ``tree_`` reads ``n_features`` and has ``n_values``."""
    if type(member) is not cls:
        _fail(where, f"must be a {cls.__name__}, got {type(member).__name__}")
    tree = member.__dict__.get("tree_")
    if not isinstance(tree, Tree):
        _fail(f"{where}.tree_", "must be a fitted tree")
    return check_tree_reads(tree, f"{where}.tree_", n_features, n_values, (Tree, LeafValueTree, PredictionTree))


def _peak(tree):
    """Largest magnitude a tree's prediction can add (its value table's, over every node)."""
    stored = tree.__dict__["leaf_values"] if isinstance(tree, LeafValueTree) else tree.__dict__["values"]
    with np.errstate(over="ignore"):
        return float(np.abs(stored).max()) if stored.size else 0.0


def _n_classes(est, where):
    """A classifier's number of classes, the length of its checked ``classes_``."""
    classes = est.__dict__.get("classes_")
    if type(classes) is not np.ndarray or classes.ndim != 1 or classes.shape[0] < 2:
        _fail(f"{where}.classes_", "must be a 1-D array of at least two class labels")
    k = est.__dict__.get("n_classes_", classes.shape[0])
    if k != classes.shape[0]:
        _fail(f"{where}.n_classes_", f"must equal len(classes_)={classes.shape[0]}")
    return classes.shape[0]


def check_dnf(dnf, where, n_features, n_classes):
    """A :class:`~forestzoo.dnf.DisjunctiveNormalForm` (Seyedhosseini & Tasdizen 2015, Eqs. 4, 5 and 12).

    ``weights`` is ``(n_units, n_features + 1)`` and finite; ``unit_ptr`` and
    ``term_ptr`` split units and terms into ``n_funcs`` functions (one for two
    classes, Eq. 5; one per class, Eq. 12); a unit's parent is -1 or an
    earlier unit of its own function, a term's parent -1 or a unit of its own
    function (the compiled kernel reads the products of literals at those
    rows); sides are 0 or 1; ``func_class`` names classes.
    """
    from ..dnf._convert import DisjunctiveNormalForm

    if type(dnf) is not DisjunctiveNormalForm:
        _fail(where, f"must be a DisjunctiveNormalForm, got {type(dnf).__name__}")
    a = dnf.__dict__
    n_funcs = 1 if n_classes == 2 else n_classes
    weights = _shaped(a.get("weights"), f"{where}.weights", np.float64, (-1, n_features + 1), finite=True)
    n_units = weights.shape[0]
    i32, i64, u8 = np.int32, np.int64, np.uint8
    parts = {}
    for name, dtype, n in (("unit_ptr", i64, n_funcs + 1), ("term_ptr", i64, n_funcs + 1), ("func_class", i32, n_funcs),
                           ("unit_node", i32, n_units), ("unit_parent", i32, n_units), ("unit_right", u8, n_units),
                           ("term_leaf", i32, -1), ("term_parent", i32, -1), ("term_right", u8, -1)):
        parts[name] = _shaped(a.get(name), f"{where}.{name}", dtype, (n,))
    n_terms = parts["term_leaf"].shape[0]
    for name in ("term_parent", "term_right"):
        if parts[name].shape[0] != n_terms:
            _fail(f"{where}.{name}", f"must have one entry per term ({n_terms}), got {parts[name].shape[0]}")
    for ptr, total in (("unit_ptr", n_units), ("term_ptr", n_terms)):
        p = parts[ptr]
        if p[0] != 0 or p[-1] != total or np.any(np.diff(p) < 0):
            _fail(f"{where}.{ptr}", f"must start at 0, never decrease and end at {total}")
    for side in ("unit_right", "term_right"):
        if np.any(parts[side] > 1):
            _fail(f"{where}.{side}", "must be 0 or 1")
    fc = parts["func_class"]
    if np.any(fc < 0) or np.any(fc >= n_classes):
        _fail(f"{where}.func_class", f"must name classes in [0, n_classes_={n_classes})")
    if np.any(parts["unit_node"] < 0) or np.any(parts["term_leaf"] < 0):
        _fail(f"{where}.unit_node/term_leaf", "must be node rows (>= 0)")
    # first unit (term) of the function each unit (term) belongs to
    u_start = np.repeat(parts["unit_ptr"][:-1], np.diff(parts["unit_ptr"]))
    t_start = np.repeat(parts["unit_ptr"][:-1], np.diff(parts["term_ptr"]))
    t_stop = np.repeat(parts["unit_ptr"][1:], np.diff(parts["term_ptr"]))
    up = parts["unit_parent"].astype(np.int64)
    if np.any((up != -1) & ((up < u_start) | (up >= np.arange(n_units)))):
        _fail(f"{where}.unit_parent", "must be -1 or an earlier unit of the same function")
    tp = parts["term_parent"].astype(np.int64)
    if np.any((tp != -1) & ((tp < t_start) | (tp >= t_stop))):
        _fail(f"{where}.term_parent", "must be -1 or a unit of the term's own function")


def check_dnf_model(est, where):
    """DNDT / DNRF: the standardisation and every tree's disjunctive normal functions."""
    d = _n_features_in(est, where)
    k = _n_classes(est, where)
    _shaped(est.__dict__.get("mean_"), f"{where}.mean_", np.float64, (d,), finite=True)
    scale = _shaped(est.__dict__.get("scale_"), f"{where}.scale_", np.float64, (d,), finite=True)
    if np.any(scale == 0):
        _fail(f"{where}.scale_", "must be non-zero (it divides the features)")
    z = np.append(_standardized_bound(est.mean_, scale), 1.0)
    dt = est.__dict__.get("input_dtype_")
    if not isinstance(dt, np.dtype) or dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        _fail(f"{where}.input_dtype_", "must be float32 or float64")
    for i, dnf in enumerate(_list(est.__dict__.get("dnfs_"), f"{where}.dnfs_")):
        check_dnf(dnf, f"{where}.dnfs_[{i}]", d, k)
        with np.errstate(over="ignore", invalid="ignore"):
            _check_bounded(np.abs(dnf.weights) @ z, f"{where}.dnfs_[{i}].weights")


def check_haar(est, where):
    """A Haar tree: the tree reads integral images of ``image_shape_``, and ``node_filters_`` fit in them.

    The tree's features are entries of the ``(H + 1) x (W + 1)`` integral
    image of the padded image (Viola & Jones, "Rapid object detection using
    a boosted cascade of simple features", 2001); each split's filter is a
    known shape whose region, a multiple of 3 x 3 cells, lies inside the
    padded image.
    """
    from ..tree._haar import FILTER_DTYPE
    from ..tree._haar_bank import CELLS, SHAPES, padded_shape

    d = _n_features_in(est, where)
    shape = est.__dict__.get("image_shape_")
    if (not isinstance(shape, tuple) or len(shape) != 2 or not all(_is_int(v) and v > 0 for v in shape)
            or shape[0] * shape[1] != d):
        _fail(f"{where}.image_shape_", f"must be two positive ints whose product is n_features_in_={d}")
    H, W = padded_shape(shape)
    tree = check_tree_reads(est.__dict__.get("tree_"), f"{where}.tree_", (H + 1) * (W + 1), _n_classes(est, where),
                            proportions=True)
    filters = est.__dict__.get("node_filters_")
    if type(filters) is not np.ndarray or filters.dtype != FILTER_DTYPE or filters.shape != (tree.node_count,):
        _fail(f"{where}.node_filters_", f"must be {tree.node_count} records of {FILTER_DTYPE}")
    f = filters[tree.nodes["left"] != TREE_LEAF]
    if (not np.all(np.isin(f["shape"], SHAPES)) or np.any(f["height"] < CELLS) or np.any(f["width"] < CELLS)
            or np.any(f["height"] % CELLS) or np.any(f["width"] % CELLS) or np.any(f["top"] < 0)
            or np.any(f["left"] < 0) or np.any(f["top"] + f["height"] > H) or np.any(f["left"] + f["width"] > W)):
        _fail(f"{where}.node_filters_", f"a split's filter is one of {SHAPES}, a region of 3 x 3 cells inside "
                                        f"the padded {H} x {W} image")


def check_competence(est, where):
    """A competence forest: its trees read the input, each with an incompetence flag per node."""
    d = _n_features_in(est, where)
    k = _n_classes(est, where)
    trees = _list(est.__dict__.get("trees_"), f"{where}.trees_")
    flags = _list(est.__dict__.get("incompetent_"), f"{where}.incompetent_", len(trees))
    for i, (tree, inc) in enumerate(zip(trees, flags)):
        check_tree_reads(tree, f"{where}.trees_[{i}]", d, k, proportions=True)
        _shaped(inc, f"{where}.incompetent_[{i}]", np.bool_, (tree.node_count,))


def check_denoising(est, where):
    """A denoising forest (Hibino et al. 2017): layouts rebuilt from their trees, autoencoders that fit them.

    A :class:`~forestzoo.denoising._paths.TreeLayout` is derived from its
    tree, so it is rebuilt from the (checked) tree and must equal the stored
    one, array for array; each depth's autoencoder reads and writes the
    indicator vectors of every selected tree at that depth.
    """
    from ..denoising._paths import TreeLayout

    d = _n_features_in(est, where)
    n_values = _n_classes(est, where) if isinstance_classifier(est) else 1
    depths = list(range(1, int(est.max_depth) + 1))
    layouts = _list(est.__dict__.get("layouts_"), f"{where}.layouts_")
    for i, lay in enumerate(layouts):
        lw = f"{where}.layouts_[{i}]"
        if type(lay) is not TreeLayout:
            _fail(lw, f"must be a TreeLayout, got {type(lay).__name__}")
        tree = check_tree_reads(lay.__dict__.get("tree"), f"{lw}.tree", d, n_values,
                                proportions=isinstance_classifier(est))
        if tree.obl_ptr.shape[0] != 1:
            _fail(f"{lw}.tree", "denoising forests' trees are axis-aligned")
        units = lay.__dict__.get("units")
        if not isinstance(units, dict) or sorted(units) != depths:
            _fail(f"{lw}.units", f"must have the depths {depths} (1 to max_depth)")
        fresh = TreeLayout(tree, depths, est.path_distance)
        for name, value in vars(fresh).items():
            if name == "tree":
                continue
            stored = lay.__dict__.get(name)
            same = (isinstance(stored, dict) and stored.keys() == value.keys()
                    and all(_same_array(stored[k], value[k]) for k in value)) if isinstance(value, dict) else (
                _same_array(stored, value) if isinstance(value, np.ndarray) else stored == value)
            if not same:
                _fail(f"{lw}.{name}", "must be what the layout's tree gives (it is derived from the tree)")
    for name in ("feature_mean_", "feature_std_"):
        _shaped(est.__dict__.get(name), f"{where}.{name}", np.float64, (d,))
    autoencoders = est.__dict__.get("autoencoders_")
    if not isinstance(autoencoders, dict) or not set(autoencoders) <= set(depths):
        _fail(f"{where}.autoencoders_", f"must map depths among {depths} to an autoencoder or None")
    for depth, dae in autoencoders.items():
        if dae is not None:
            width = sum(lay.units[depth].shape[0] for lay in layouts)
            check_mlp(dae, f"{where}.autoencoders_[{depth}]", width, width)


def _same_array(a, b):
    return type(a) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def check_mlp(mlp, where, n_in, n_out):
    """A fitted scikit-learn ``MLPRegressor``: finite layers chained from ``n_in`` inputs to ``n_out`` outputs."""
    from sklearn.neural_network import MLPRegressor

    if type(mlp) is not MLPRegressor:
        _fail(where, f"must be an MLPRegressor, got {type(mlp).__name__}")
    coefs = _list(mlp.__dict__.get("coefs_"), f"{where}.coefs_")
    intercepts = _list(mlp.__dict__.get("intercepts_"), f"{where}.intercepts_", len(coefs))
    width = n_in
    for i, (w, b) in enumerate(zip(coefs, intercepts)):
        w = _shaped(w, f"{where}.coefs_[{i}]", np.float64, (width, -1), finite=True)
        width = w.shape[1]
        _shaped(b, f"{where}.intercepts_[{i}]", np.float64, (width,), finite=True)
    if width != n_out:
        _fail(f"{where}.coefs_", f"the last layer must have {n_out} outputs, got {width}")
    if mlp.__dict__.get("n_features_in_") != n_in or mlp.__dict__.get("n_layers_") != len(coefs) + 1 or (
            mlp.__dict__.get("n_outputs_") != n_out):
        _fail(where, f"n_features_in_, n_layers_ and n_outputs_ must agree with its layers ({n_in} inputs, "
                     f"{len(coefs) + 1} layers, {n_out} outputs)")


def check_rvfl_model(model, where, n_features, n_outputs):
    """An RVFL network ``(mean, scale, W, c, activation, direct_link, beta)`` (Pao, Park & Sobajic 1994).

    ``W`` is ``(n_features, n_hidden)``, ``c`` ``(n_hidden,)``, and ``beta``
    has one row per column of ``[z, g(z W + c), 1]`` (``z`` only with the
    direct link) and ``n_outputs`` columns; everything finite, ``scale``
    non-zero.
    """
    from ..rvfl._rvfl import ACTIVATIONS

    _list(model, where, 7, kind="sequence")
    mean, scale, W, c, activation, direct, beta = model
    _shaped(mean, f"{where}[0]", np.float64, (n_features,), finite=True)
    _shaped(scale, f"{where}[1]", np.float64, (n_features,), finite=True)
    if np.any(scale == 0):
        _fail(f"{where}[1]", "the scale must be non-zero (it divides the features)")
    W = _shaped(W, f"{where}[2]", np.float64, (n_features, -1), finite=True)
    h = W.shape[1]
    _shaped(c, f"{where}[3]", np.float64, (h,), finite=True)
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        _fail(f"{where}[4]", f"the activation must be one of {sorted(ACTIVATIONS)}")
    if type(direct) is not bool:
        _fail(f"{where}[5]", "direct_link must be a bool")
    _shaped(beta, f"{where}[6]", np.float64, ((n_features if direct else 0) + h + 1, n_outputs), finite=True)
    with np.errstate(over="ignore", invalid="ignore"):
        z = _standardized_bound(mean, scale)
        pre = z @ np.abs(W) + np.abs(c)
        hidden = pre if activation == "relu" else np.ones(h)  # the other activations lie in [-1, 1]
        _check_bounded(pre, f"{where}[2]")
        _check_bounded(np.concatenate([z if direct else np.zeros(0), hidden, [1.0]]) @ np.abs(beta), f"{where}[6]")


def check_rvfl(est, where):
    """An RVFL classifier's network: its output weights score every class."""
    check_rvfl_model(est.__dict__.get("model_"), f"{where}.model_", _n_features_in(est, where),
                     _n_classes(est, where))


def check_rvfl_forest(est, where):
    """An RVFL forest's bags (Katuwal, Suganthan & Zhang 2020): a network and one tree (or None) per class."""
    d = _n_features_in(est, where)
    k = _n_classes(est, where)
    for i, bag in enumerate(_list(est.__dict__.get("bags_"), f"{where}.bags_")):
        bw = f"{where}.bags_[{i}]"
        model, trees = _list(bag, bw, 2, kind="sequence")
        check_rvfl_model(model, f"{bw}[0]", d, k)
        for j, tree in enumerate(_list(trees, f"{bw}[1]", k)):
            if tree is not None:
                check_tree_reads(tree, f"{bw}[1][{j}]", d, k, proportions=True)


def check_gradient_boosting(est, where):
    """Gradient boosting: ``n_estimators_`` rounds of one regression tree per score column, and the initial scores.

    A tree adds its leaf value into its column of the raw scores, which
    start at ``init_raw_prediction_`` (Friedman, "Greedy function
    approximation: a gradient boosting machine", 2001, Algorithm 1): a
    column per tree of a round.
    """
    from ..tree import DecisionTreeRegressor

    d = _n_features_in(est, where)
    if isinstance_classifier(est):
        k = _n_classes(est, where)
        cols = 1 if k == 2 else k
    else:
        cols = 1
    if est.__dict__.get("n_trees_per_iteration_") != cols:
        _fail(f"{where}.n_trees_per_iteration_", f"must be {cols}")
    _shaped(est.__dict__.get("init_raw_prediction_"), f"{where}.init_raw_prediction_", np.float64, (cols,),
            finite=True)
    members = est.__dict__.get("estimators_")
    if type(members) is not np.ndarray or members.dtype != object or members.ndim != 2 or members.shape[1] != cols:
        _fail(f"{where}.estimators_", f"must be an object array of shape (n_estimators_, {cols})")
    n = est.__dict__.get("n_estimators_")
    if not _is_int(n) or not 1 <= n <= members.shape[0]:
        _fail(f"{where}.n_estimators_", f"must be an int in [1, {members.shape[0]}] (rows of estimators_)")
    peak = np.abs(est.init_raw_prediction_)
    for (m, j), member in np.ndenumerate(members):
        tree = _member_tree(member, f"{where}.estimators_[{m}, {j}]", DecisionTreeRegressor, d, 1)
        peak[j] += _peak(tree)
    _check_bounded(peak, f"{where}.estimators_")


def check_adaboost(est, where):
    """AdaBoost: one tree per round (one regression tree per score column for LogitBoost / GentleBoost),
    a finite weight per round (Freund & Schapire 1997; Zhu et al., "Multi-class AdaBoost", 2009; Friedman,
    Hastie & Tibshirani, "Additive logistic regression", 2000)."""
    from ..boosting._adaboost import ADDITIVE
    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    d = _n_features_in(est, where)
    k = _n_classes(est, where)
    rounds = _list(est.__dict__.get("estimators_"), f"{where}.estimators_")
    _shaped(est.__dict__.get("estimator_weights_"), f"{where}.estimator_weights_", np.float64, (len(rounds),),
            finite=True)
    peak = np.abs(est.estimator_weights_).sum()
    for m, member in enumerate(rounds):
        mw = f"{where}.estimators_[{m}]"
        if est.algorithm in ADDITIVE:
            for j, tree in enumerate(_list(member, mw, 1 if k == 2 else k)):
                peak += _peak(_member_tree(tree, f"{mw}[{j}]", DecisionTreeRegressor, d, 1))
        else:
            _member_tree(member, mw, DecisionTreeClassifier, d, k)
    _check_bounded(peak, f"{where}.estimator_weights_")


def check_adaboost_regressor(est, where):
    """AdaBoost.R2 (Drucker 1997): one regression tree per round, a finite weight per round, a finite start."""
    from ..tree import DecisionTreeRegressor

    d = _n_features_in(est, where)
    rounds = _list(est.__dict__.get("estimators_"), f"{where}.estimators_")
    _shaped(est.__dict__.get("estimator_weights_"), f"{where}.estimator_weights_", np.float64, (len(rounds),),
            finite=True)
    peak = 0.0
    for m, member in enumerate(rounds):
        peak += _peak(_member_tree(member, f"{where}.estimators_[{m}]", DecisionTreeRegressor, d, 1))
    init = est.__dict__.get("init_", 0.0)
    if not isinstance(init, (float, int, np.floating, np.integer)) or isinstance(init, bool) or not np.isfinite(init):
        _fail(f"{where}.init_", "must be a finite number")
    _check_bounded(abs(float(init)) + abs(float(est.learning_rate)) * peak, f"{where}.estimators_")


def check_cascade_levels(levels, where, n_outputs, widths, level_type=None):
    """Cascade levels (Zhou & Feng, "Deep forest", 2017, Sec. 3.1): k-fold forests giving class vectors.

    ``levels`` lists the grades of each level; ``widths(level, grade)`` is the
    number of columns a grade's forests read, or None when it is not known
    here.  Every fold forest scores ``n_outputs`` columns; a classifier fold
    forest's ``classes_`` are class codes in ``[0, n_outputs)`` (they place its
    probabilities in the class vector).
    """
    from ..deep._level import CascadeLevel, KFoldEstimator

    level_type = level_type or CascadeLevel
    for i, grades in enumerate(levels):
        for g, level in enumerate(grades):
            lw = f"{where}[{i}]" + (f"[{g}]" if len(grades) > 1 else "")
            if type(level) is not level_type or level.__dict__.get(
                    "n_classes" if level_type is not CascadeLevel else "n_outputs") != n_outputs:
                _fail(lw, f"must be a {level_type.__name__} of {n_outputs} outputs")
            width = widths(i, g)
            for f, fold in enumerate(_list(level.__dict__.get("forests"), f"{lw}.forests")):
                fw = f"{lw}.forests[{f}]"
                if type(fold) is not KFoldEstimator or fold.__dict__.get("n_outputs") != n_outputs:
                    _fail(fw, f"must be a KFoldEstimator of n_outputs={n_outputs}")
                if type(fold.__dict__.get("classification")) is not bool:
                    _fail(f"{fw}.classification", "must be a bool")
                for e, forest in enumerate(_list(fold.__dict__.get("estimators_"), f"{fw}.estimators_")):
                    ew = f"{fw}.estimators_[{e}]"
                    if width is not None and forest.__dict__.get("n_features_in_") != width:
                        _fail(f"{ew}.n_features_in_", f"must be {width}, the columns this level reads")
                    if isinstance_classifier(forest) != fold.classification:
                        _fail(f"{fw}.classification", "must say whether its forests are classifiers")
                    if not isinstance_classifier(forest):
                        continue
                    codes = forest.__dict__.get("classes_")
                    if (type(codes) is not np.ndarray or codes.ndim != 1 or codes.dtype.kind not in "iu"
                            or codes.size == 0 or codes.min() < 0 or codes.max() >= n_outputs):
                        _fail(f"{ew}.classes_", f"must be class codes in [0, {n_outputs})")


def check_cascade(est, where):
    """A cascade forest: level 0 reads the input, each later level the input and the previous level's vectors."""
    d = _n_features_in(est, where)
    n_outputs = _n_classes(est, where) if isinstance_classifier(est) else 1
    levels = _list(est.__dict__.get("levels_"), f"{where}.levels_")
    if est.__dict__.get("_n_outputs") != n_outputs:
        _fail(f"{where}._n_outputs", f"must be {n_outputs}")

    def width(i, g):
        return d if i == 0 else d + n_outputs * len(levels[i - 1].forests)

    check_cascade_levels([[level] for level in levels], f"{where}.levels_", n_outputs, width)


def check_grain(grain, where, image, n_outputs):
    """A scanning grain (Zhou & Feng 2017, Sec. 3.2): a window inside the image, its positions counted."""
    from ..deep._scanning import Grain
    from ..deep._windows import grid

    if type(grain) is not Grain:
        _fail(where, f"must be a Grain, got {type(grain).__name__}")
    a = grain.__dict__
    window, stride = a.get("window"), a.get("stride")
    if a.get("image") != image:
        _fail(f"{where}.image", f"must be the estimator's image shape {image}")
    if (not isinstance(window, tuple) or len(window) != 2 or not all(_is_int(v) and v >= 1 for v in window)
            or window[0] > image[0] or window[1] > image[1]):
        _fail(f"{where}.window", f"must be two positive ints no larger than the image {image}")
    if not _is_int(stride) or stride < 1:
        _fail(f"{where}.stride", "must be a positive int")
    if a.get("n_windows") != int(np.prod(grid(image, window, stride))) or a.get("n_classes") != n_outputs:
        _fail(where, f"n_windows must count the window positions and n_classes be {n_outputs}")
    check_cascade_levels([[grain]], where, n_outputs, lambda i, g: window[0] * window[1], level_type=Grain)
    return len(grain.forests) * grain.n_windows * n_outputs


def _check_grains(est, where, n_classes):
    """``(grains_, output width of each)`` of a scanning estimator, each grain checked (:func:`check_grain`)."""
    from ..deep._windows import resolve_image_shape

    d = _n_features_in(est, where)
    try:
        image = resolve_image_shape(est.image_shape, d)
    except (TypeError, ValueError) as exc:
        _fail(f"{where}.image_shape", str(exc))
    grains = _list(est.__dict__.get("grains_"), f"{where}.grains_")
    return grains, [check_grain(g, f"{where}.grains_[{i}]", image, n_classes) for i, g in enumerate(grains)]


def check_scanner(est, where):
    """Multi-grained scanning: its grains, and ``n_features_out_`` their outputs side by side."""
    _, outs = _check_grains(est, where, _n_classes(est, where))
    if est.__dict__.get("n_features_out_") != sum(outs):
        _fail(f"{where}.n_features_out_", f"must be {sum(outs)}, the grains' outputs side by side")


def check_gcforest(est, where):
    """gcForest (Zhou & Feng 2017, Sec. 3.3): scanning grains, then a cascade of cascades over their outputs.

    Grade ``g`` of every level reads grain ``g``'s output followed by the
    class vectors of the grade before it (the previous level's last grade
    for ``g = 0``; nothing before the very first grade).
    """
    k = _n_classes(est, where)
    grains, outs = _check_grains(est, where, k)
    levels = _list(est.__dict__.get("levels_"), f"{where}.levels_")
    for i, grades in enumerate(levels):
        _list(grades, f"{where}.levels_[{i}]", len(grains))
    flat = [grade for grades in levels for grade in grades]

    def width(i, g):
        n = i * len(grains) + g
        return outs[g] + (k * len(flat[n - 1].forests) if n else 0)

    check_cascade_levels(levels, f"{where}.levels_", k, width)


@functools.lru_cache(maxsize=None)
def family_checks():
    """``(class, check)`` for every family whose prediction reads arrays beyond its trees' own tables."""
    from ..boosting import AdaBoostClassifier, AdaBoostRegressor, GradientBoostingClassifier, GradientBoostingRegressor
    from ..competence import CompetenceForestClassifier
    from ..deep import CascadeForestClassifier, CascadeForestRegressor, GCForestClassifier, MultiGrainedScanner
    from ..denoising import DenoisingRandomForestClassifier, DenoisingRandomForestRegressor
    from ..dnf._base import BaseDNF
    from ..rvfl import RVFLClassifier, RVFLForestClassifier
    from ..tree import HaarTreeClassifier

    return ((BaseDNF, check_dnf_model), (HaarTreeClassifier, check_haar), (CompetenceForestClassifier, check_competence),
            (DenoisingRandomForestClassifier, check_denoising), (DenoisingRandomForestRegressor, check_denoising),
            (RVFLClassifier, check_rvfl), (RVFLForestClassifier, check_rvfl_forest),
            (GradientBoostingClassifier, check_gradient_boosting), (GradientBoostingRegressor, check_gradient_boosting),
            (AdaBoostClassifier, check_adaboost), (AdaBoostRegressor, check_adaboost_regressor),
            (CascadeForestClassifier, check_cascade), (CascadeForestRegressor, check_cascade),
            (GCForestClassifier, check_gcforest), (MultiGrainedScanner, check_scanner))


def check_family(est, where):
    """The family check of ``est`` (:func:`family_checks`), when it is fitted."""
    for cls, check in family_checks():
        if isinstance(est, cls):
            if is_fitted(est):
                check(est, where)
            return

