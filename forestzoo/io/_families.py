"""Structural checks of each family's own arrays: what a family's prediction reads besides its trees' tables.

Part of the load-time validation of :mod:`forestzoo.io._validate`: one check
per family (DNF functions, Haar filters, competence flags, denoising layouts,
RVFL networks, boosting rounds and initial scores, deep-forest levels and
grains), each against the estimator's own attributes (feature and class
counts, layer sizes), listed by :func:`family_checks`; :func:`check_tree_reads`
pins every tree a family walks itself to the columns the family gives it.
"""

import functools

import numpy as np

from .._engine.api import TREE_LEAF, LeafValueTree, PredictionTree, Tree
from ._validate import _array, _fail, _is_int, _n_features_in, check_proportions, is_fitted, isinstance_classifier



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

