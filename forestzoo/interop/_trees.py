"""Axis-aligned trees and forests in and out of scikit-learn (see :mod:`forestzoo.interop`)."""

import numpy as np

from .._engine.api import NODE_DTYPE, TREE_LEAF, LeafValueTree, PredictionTree, Tree

#: scikit-learn's code for "no feature / no threshold" at a leaf.
_SK_UNDEFINED = -2

_TREE_HYPERPARAMS = ("max_depth", "min_samples_split", "min_samples_leaf", "min_weight_fraction_leaf",
                     "min_impurity_decrease", "max_features", "max_leaf_nodes", "ccp_alpha", "monotonic_cst")
_FOREST_HYPERPARAMS = ("n_estimators", "bootstrap", "max_samples", "n_jobs", "verbose")


def _kinds():
    """``[(forestzoo class, scikit-learn class, scikit-learn tree class, random splitter)]``, most specific first."""
    from sklearn import ensemble as ske, tree as skt

    from ..ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    return [
        (ExtraTreesClassifier, ske.ExtraTreesClassifier, skt.ExtraTreeClassifier, True),
        (ExtraTreesRegressor, ske.ExtraTreesRegressor, skt.ExtraTreeRegressor, True),
        (RandomForestClassifier, ske.RandomForestClassifier, skt.DecisionTreeClassifier, False),
        (RandomForestRegressor, ske.RandomForestRegressor, skt.DecisionTreeRegressor, False),
        (DecisionTreeClassifier, skt.DecisionTreeClassifier, None, False),
        (DecisionTreeRegressor, skt.DecisionTreeRegressor, None, False),
    ]


def _refuse(model, direction):
    names = ("DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier, RandomForestRegressor, "
             "ExtraTreesClassifier, ExtraTreesRegressor, GradientBoostingClassifier, GradientBoostingRegressor")
    raise TypeError(
        f"{direction} converts the axis-aligned trees, forests and gradient boosting ({names}); got "
        f"{type(model).__name__}. Oblique and rotated trees split on a combination of features, which "
        "scikit-learn's trees cannot hold (see forestzoo.interop)."
    )


def _check_fitted(model):
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)


# -- one tree's arrays -------------------------------------------------------------------------------------------
def sklearn_tree(tree, n_classes=None):
    """A forestzoo fitted :class:`~forestzoo._engine.api.Tree` as a ``sklearn.tree._tree.Tree``.

    Parameters
    ----------
    tree : Tree or LeafValueTree
        Axis-aligned (no oblique node).
    n_classes : int or None
        Number of classes (the value columns) of a single-output tree; None
        for a regression tree.  A multi-output tree's class counts are its
        own (``tree.n_classes``).

    Returns
    -------
    sklearn.tree._tree.Tree
        Built with scikit-learn's node dtype through ``__setstate__``; values
        ``(n_nodes, n_outputs, max_n_classes)``, every output's classes
        zero-padded to the largest count, as both libraries lay them out.

    Raises
    ------
    TypeError
        When the tree has oblique nodes.
    ValueError
        When the tree keeps only what prediction reads (a
        :class:`~forestzoo._engine.api.PredictionTree`): its node statistics,
        which scikit-learn's tree holds, are gone.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import DecisionTreeClassifier
    >>> from forestzoo.interop import sklearn_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> sk = sklearn_tree(clf.tree_, n_classes=3)
    >>> sk.node_count == clf.tree_.node_count, sk.max_depth
    (True, 2)
    """
    from sklearn.tree._tree import NODE_DTYPE as SK_NODE_DTYPE, Tree as SkTree

    if isinstance(tree, PredictionTree):
        raise ValueError("This tree keeps only what prediction reads (a PredictionTree): its node statistics "
                         "are gone, so it cannot become a scikit-learn tree.")
    nodes = tree.nodes
    internal = nodes["left"] != TREE_LEAF
    if tree.obl_ptr.shape[0] > 1 or np.any(internal & (nodes["oblique"] >= 0)):
        raise TypeError("This tree has oblique splits (a combination of features per node): scikit-learn's "
                        "trees split on one feature, so it cannot be converted.")
    out = np.zeros(nodes.shape[0], dtype=SK_NODE_DTYPE)
    out["left_child"] = nodes["left"]
    out["right_child"] = nodes["right"]
    out["feature"] = np.where(internal, nodes["feature"], _SK_UNDEFINED)
    out["threshold"] = np.where(internal, nodes["threshold"], float(_SK_UNDEFINED))
    out["impurity"] = nodes["impurity"]
    out["n_node_samples"] = nodes["n_samples"]
    out["weighted_n_node_samples"] = nodes["weighted_n_samples"]
    out["missing_go_to_left"] = np.where(internal, nodes["missing_left"], 0)
    values = np.ascontiguousarray(tree.values, dtype=np.float64)
    if tree.n_outputs > 1:
        counts = np.asarray(tree.n_classes, dtype=np.intp)
        values = values.reshape(values.shape[0], tree.n_outputs, -1)
    else:
        counts = np.array([values.shape[1] if n_classes is None else n_classes], dtype=np.intp)
        values = values[:, None, :]
    sk = SkTree(tree.n_features, counts, counts.shape[0])
    sk.__setstate__({"max_depth": int(nodes["depth"].max()) if nodes.shape[0] else 0,
                     "node_count": int(nodes.shape[0]), "nodes": out, "values": values.copy()})
    return sk


def forestzoo_tree(sk_tree):
    """A ``sklearn.tree._tree.Tree`` as a forestzoo :class:`~forestzoo._engine.api.Tree`.

    Depths are recomputed from the child links and ``improvement`` (the
    weighted impurity decrease of MDI) from the nodes' impurities and
    weights, as forestzoo's grower defines it.

    Parameters
    ----------
    sk_tree : sklearn.tree._tree.Tree
        A fitted scikit-learn tree, of one output or several.

    Returns
    -------
    Tree
        The same nodes, thresholds, NaN directions and leaf values; with
        several outputs, ``output_classes`` holds every output's class count
        (1 for regression) and ``values`` the outputs side by side, each
        zero-padded to the largest count.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from forestzoo.interop import forestzoo_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> sk = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> tree = forestzoo_tree(sk.tree_)
    >>> tree.node_count == sk.tree_.node_count
    True
    """
    state = sk_tree.__getstate__()
    src = state["nodes"]
    n = src.shape[0]
    left = src["left_child"].astype(np.int64)
    right = src["right_child"].astype(np.int64)
    internal = left != TREE_LEAF
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    nodes["left"] = left
    nodes["right"] = right
    nodes["feature"] = np.where(internal, src["feature"], -1)
    nodes["oblique"] = -1
    nodes["threshold"] = np.where(internal, src["threshold"], 0.0)
    nodes["n_samples"] = src["n_node_samples"]
    w = src["weighted_n_node_samples"]
    imp = src["impurity"]
    nodes["weighted_n_samples"] = w
    nodes["impurity"] = imp
    nodes["missing_left"] = np.where(internal, src["missing_go_to_left"], 0)
    k = np.flatnonzero(internal)
    improvement = np.zeros(n)
    improvement[k] = w[k] * imp[k] - w[left[k]] * imp[left[k]] - w[right[k]] * imp[right[k]]
    nodes["improvement"] = improvement
    depth = np.zeros(n, dtype=np.int32)
    for j in k:  # children follow their parents in scikit-learn's depth-first and best-first builders alike
        depth[left[j]] = depth[right[j]] = depth[j] + 1
    nodes["depth"] = depth
    if sk_tree.n_outputs == 1:
        values = np.ascontiguousarray(state["values"][:, 0, : int(sk_tree.n_classes[0])], dtype=np.float64)
        return Tree(nodes, values, int(sk_tree.n_features))
    values = np.ascontiguousarray(state["values"], dtype=np.float64).reshape(n, -1)
    tree = Tree(nodes, values, int(sk_tree.n_features))
    tree.output_classes = np.asarray(sk_tree.n_classes, dtype=np.intp)
    return tree


def _children_after_parents(sk_tree):
    left, right = sk_tree.children_left, sk_tree.children_right
    k = np.flatnonzero(left != TREE_LEAF)
    return bool(np.all(left[k] > k) and np.all(right[k] > k))


# -- estimators -------------------------------------------------------------------------------------------------
def _copy_params(src, names):
    return {p: getattr(src, p) for p in names if hasattr(src, p)}


def _int_or_none(random_state):
    return random_state if isinstance(random_state, (int, np.integer)) else None


def _fitted_common(dst, src, classifier, forest=False):
    """Copy the fitted attributes every tree and forest has.

    With several outputs both libraries hold ``classes_`` as a list of
    arrays and ``n_classes_`` as a list (a forest) or an intp array (a tree).
    """
    dst.n_features_in_ = int(src.n_features_in_)
    if hasattr(src, "feature_names_in_"):
        dst.feature_names_in_ = src.feature_names_in_
    n_outputs = int(getattr(src, "n_outputs_", 1))
    dst.n_outputs_ = n_outputs
    if classifier and n_outputs == 1:
        dst.classes_ = src.classes_
        dst.n_classes_ = int(src.n_classes_)
    elif classifier:
        dst.classes_ = [np.asarray(c) for c in src.classes_]
        counts = [int(c) for c in src.n_classes_]
        dst.n_classes_ = counts if forest else np.array(counts, dtype=np.intp)


def _sk_criterion(model, classifier):
    crit = getattr(model, "criterion", None)
    return crit if classifier else {"squared_error": "squared_error", "poisson": "poisson"}.get(crit, "squared_error")


def _to_sklearn_tree(est, sk_cls, classifier, random_splitter):
    """One fitted scikit-learn tree estimator of class ``sk_cls`` from the forestzoo tree estimator ``est``."""
    params = _copy_params(est, _TREE_HYPERPARAMS)
    params["criterion"] = _sk_criterion(est, classifier)
    params["random_state"] = _int_or_none(est.random_state)
    if classifier and sk_cls.__name__ == "DecisionTreeClassifier":
        cw = getattr(est, "class_weight", None)  # a forest's "balanced_subsample" is applied to its trees' weights
        params["class_weight"] = None if cw == "balanced_subsample" else cw
    if sk_cls.__name__.startswith("DecisionTree"):
        params["splitter"] = "random" if random_splitter or est.splitter == "random" else "best"
    sk = sk_cls(**params)
    sk.tree_ = sklearn_tree(est.tree_, est.n_classes_ if classifier else None)
    sk.max_features_ = int(getattr(est, "max_features_", est.tree_.n_features))
    _fitted_common(sk, est, classifier)
    return sk


def forest_to_sklearn(model):
    """The scikit-learn tree or forest equal to a forestzoo one (see :func:`forestzoo.interop.to_sklearn`)."""
    kind = next((k for k in _kinds() if type(model) is k[0]), None)
    if kind is None:
        _refuse(model, "to_sklearn")
    _check_fitted(model)
    _, sk_cls, sk_tree_cls, random_splitter = kind
    classifier = hasattr(model, "classes_")
    if sk_tree_cls is None:
        return _to_sklearn_tree(model, sk_cls, classifier, random_splitter)

    params = _copy_params(model, _FOREST_HYPERPARAMS + _TREE_HYPERPARAMS)
    params["criterion"] = _sk_criterion(model, classifier)
    params["random_state"] = _int_or_none(model.random_state)
    if classifier:
        params["class_weight"] = model.class_weight
    sk = sk_cls(**params)
    random = random_splitter or model.splitter == "random"
    sk.estimators_ = [_to_sklearn_tree(e, sk_tree_cls, classifier, random) for e in model.estimators_]
    sk.estimator_ = sk_tree_cls()
    _fitted_common(sk, model, classifier, forest=True)
    n = getattr(model, "_n_samples_fit", None)
    if n is not None:
        sk._n_samples = int(n)
        draws = [e._bootstrap_draws for e in model.estimators_ if getattr(e, "_bootstrap_draws", 0)]
        sk._n_samples_bootstrap = int(draws[0]) if draws else int(n)
        sk._sample_weight = None  # forestzoo draws rows uniformly (weights multiply the counts): no weighted draw
    for attr in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        if hasattr(model, attr):
            setattr(sk, attr, getattr(model, attr))
    return sk


def _sk_kind(sk_model):
    """The row of :func:`_kinds` for a scikit-learn estimator, or None."""
    for kind in _kinds():
        if type(sk_model) is kind[1]:
            return kind
    from sklearn import tree as skt

    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    if type(sk_model) is skt.ExtraTreeClassifier:
        return DecisionTreeClassifier, skt.ExtraTreeClassifier, None, True
    if type(sk_model) is skt.ExtraTreeRegressor:
        return DecisionTreeRegressor, skt.ExtraTreeRegressor, None, True
    return None


def _fz_criterion(sk_model, classifier):
    crit = getattr(sk_model, "criterion", None)
    if classifier:
        return crit
    return crit if crit in ("squared_error", "poisson") else "squared_error"


def _from_sklearn_tree(sk, fz_cls, classifier, random_splitter):
    """One fitted forestzoo tree estimator from a fitted scikit-learn tree estimator."""
    if not _children_after_parents(sk.tree_):
        raise ValueError("This tree stores a child before its parent, which forestzoo's predictor does not "
                         "read; scikit-learn's own builders never do.")
    params = _copy_params(sk, _TREE_HYPERPARAMS)
    params["criterion"] = _fz_criterion(sk, classifier)
    params["splitter"] = "random" if random_splitter or getattr(sk, "splitter", "best") == "random" else "exact"
    params["random_state"] = _int_or_none(sk.random_state)
    if classifier:
        params["class_weight"] = getattr(sk, "class_weight", None)
    est = fz_cls(**params)
    est.tree_ = forestzoo_tree(sk.tree_)
    est.max_features_ = int(getattr(sk, "max_features_", sk.n_features_in_))
    _fitted_common(est, sk, classifier)
    return est


def forest_from_sklearn(sk_model):
    """The forestzoo tree or forest equal to a scikit-learn one (see :func:`forestzoo.interop.from_sklearn`)."""
    kind = _sk_kind(sk_model)
    if kind is None:
        _refuse(sk_model, "from_sklearn")
    _check_fitted(sk_model)
    fz_cls, _, sk_tree_cls, random_splitter = kind
    classifier = hasattr(sk_model, "classes_")
    if sk_tree_cls is None:
        return _from_sklearn_tree(sk_model, fz_cls, classifier, random_splitter)

    tree_cls = fz_cls._tree_class
    params = _copy_params(sk_model, _FOREST_HYPERPARAMS + _TREE_HYPERPARAMS)
    params["criterion"] = _fz_criterion(sk_model, classifier)
    params["splitter"] = "random" if random_splitter else "exact"
    params["random_state"] = _int_or_none(sk_model.random_state)
    if classifier:
        params["class_weight"] = sk_model.class_weight
    model = fz_cls(**params)
    trees = []
    n_samples = getattr(sk_model, "_n_samples", None)
    draws = getattr(sk_model, "_n_samples_bootstrap", None) if sk_model.bootstrap else 0
    for e in sk_model.estimators_:
        t = _from_sklearn_tree(e, tree_cls, classifier, random_splitter)
        t._bootstrap_draws = int(draws or 0)
        trees.append(t)
    model.estimators_ = trees
    _fitted_common(model, sk_model, classifier, forest=True)
    if n_samples is not None:
        model._n_samples_fit = int(n_samples)
    for attr in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        if hasattr(sk_model, attr):
            setattr(model, attr, getattr(sk_model, attr))
    return model


def forest_trees(forest):
    """The fitted trees of a forestzoo or scikit-learn tree or forest, as forestzoo trees, with its classes.

    Parameters
    ----------
    forest : fitted estimator
        A forestzoo tree or forest whose trees are axis-aligned, or one of
        the scikit-learn trees and forests :func:`forestzoo.interop.from_sklearn`
        accepts (gradient boosting is not a forest of votes: refused).

    Returns
    -------
    trees : list of Tree
        Full trees (a forest stored for prediction only is refused).
    classes : ndarray or None
        The model's ``classes_`` (the value columns of every tree), None for a regressor.

    Raises
    ------
    TypeError
        When the model is neither, or has oblique trees.
    ValueError
        When the model has several outputs, or keeps only what prediction
        reads (``PredictionTree``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import RandomForestClassifier
    >>> from forestzoo.interop import forest_trees
    >>> X, y = load_iris(return_X_y=True)
    >>> trees, classes = forest_trees(RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y))
    >>> len(trees), classes.tolist()
    (3, [0, 1, 2])
    """
    if type(forest).__module__.startswith("sklearn."):
        forest = forest_from_sklearn(forest)
    _check_fitted(forest)
    if hasattr(forest, "estimators_"):
        ests = list(np.ravel(np.asarray(forest.estimators_, dtype=object)))
    elif hasattr(forest, "tree_"):
        ests = [forest]
    else:
        raise TypeError(f"Expected a fitted tree or forest (with tree_ or estimators_), got {type(forest).__name__}.")
    if getattr(forest, "n_outputs_", 1) != 1:
        raise ValueError(f"This {type(forest).__name__} predicts {forest.n_outputs_} outputs; a forest of one "
                         "output is needed.")
    trees = []
    for e in ests:
        t = getattr(e, "tree_", None)
        if not isinstance(t, Tree):
            raise TypeError(f"{type(forest).__name__}'s estimators hold no forestzoo tree.")
        if isinstance(t, PredictionTree):
            raise ValueError("This forest keeps only what prediction reads (PredictionTree): its full trees are "
                             "gone.")
        if t.obl_ptr.shape[0] > 1 or np.any((t.nodes["left"] != TREE_LEAF) & (t.nodes["oblique"] >= 0)):
            raise TypeError(f"{type(forest).__name__} has oblique or rotated splits; an axis-aligned forest "
                            "is needed.")
        trees.append(Tree(t.nodes, t.values, t.n_features) if isinstance(t, LeafValueTree) else t)
    return trees, getattr(forest, "classes_", None)


def given_forest(forest, n_features, classes, estimator_name):
    """A fitted forest handed to another method (``init_forest``), checked and laid out for ``y``.

    Parameters
    ----------
    forest : fitted estimator
        What :func:`forest_trees` accepts.
    n_features : int
        Features of the ``X`` the method is fitted on.
    classes : ndarray or None
        The classes of its ``y`` (sorted), None for a regression.
    estimator_name : str
        The method's class name, for the messages.

    Returns
    -------
    fz_forest : forestzoo estimator
        ``forest`` itself, or a scikit-learn model converted by
        :func:`forestzoo.interop.from_sklearn`.
    trees : list of Tree
        The trees, a classifier's value columns laid out as ``classes``.

    Raises
    ------
    ValueError
        When the features differ, the task differs, or the forest knows a
        class ``y`` does not have.
    """
    n_in = getattr(forest, "n_features_in_", None)
    if n_in is not None and n_in != n_features:
        raise ValueError(f"X has {n_features} features, but init_forest was fitted with {n_in} features.")
    trees, forest_classes = forest_trees(forest)
    if (forest_classes is None) != (classes is None):
        task = "classifier" if classes is not None else "regressor"
        raise ValueError(f"init_forest must be a {task} like {estimator_name}; got {type(forest).__name__}.")
    if classes is not None:
        col = np.searchsorted(classes, forest_classes)
        if np.any(col >= classes.shape[0]) or not np.array_equal(classes[np.minimum(col, len(classes) - 1)],
                                                                 forest_classes):
            raise ValueError(f"init_forest knows classes {list(forest_classes)} that y does not have "
                             f"(y has {list(classes)}).")
        if col.shape[0] != classes.shape[0]:
            widened = []
            for t in trees:
                values = np.zeros((t.values.shape[0], classes.shape[0]))
                values[:, col] = t.values
                widened.append(Tree(t.nodes, values, t.n_features))
            trees = widened
    fz_forest = forest if type(forest).__module__.startswith("forestzoo.") else forest_from_sklearn(forest)
    return fz_forest, trees


def fit_with_forest(estimator, fit, init_forest, *args):
    """``fit(*args)`` with ``init_forest`` visible to ``estimator``'s fit as ``estimator._init_forest``.

    The attribute is removed afterwards, whether the fit succeeds or not.
    """
    estimator._init_forest = init_forest
    try:
        return fit(*args)
    finally:
        estimator.__dict__.pop("_init_forest", None)
