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
  class counts, layer sizes): ``_families.family_checks`` lists one check per
  family (DNF functions, Haar filters, competence flags, denoising layouts,
  RVFL networks, boosting rounds, deep-forest levels and grains), and
  ``_families.check_tree_reads`` pins every tree a family walks itself to the
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
        from ._families import check_family  # the family checks import this module's helpers

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


def _stored_values(tree):
    """The value table prediction reads: a leaf-value tree's leaf rows, every node's row otherwise."""
    return tree.__dict__["leaf_values"] if isinstance(tree, LeafValueTree) else tree.__dict__["values"]


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
            check_proportions(_stored_values(tree), f"{where}.tree_.values")
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
    # the members' predictions are added before they are averaged: each tree's values finite is not enough
    peak = sum(float(np.abs(_stored_values(m.tree_)).max(initial=0.0)) for m in members)
    if not np.isfinite(peak):
        _fail(f"{where}.estimators_", "the members' values are so large that their sum overflows: no fit gives them")
    if "n_features_in_" in est.__dict__:
        d = _n_features_in(est, where)
        if any(m.__dict__.get("n_features_in_") != d for m in members):
            _fail(f"{where}.estimators_", f"every member must have n_features_in_={d}")
    if isinstance_classifier(est) and all(map(isinstance_classifier, members)) and "n_classes_" in est.__dict__:
        k = _expected_values(est, where)
        if widths and widths != {k}:
            _fail(f"{where}.estimators_", f"every tree must have n_classes_={k} value columns")
