"""The source model of a transfer forest, as engine trees.

A source may be a fitted forestzoo forest or tree, a fitted scikit-learn
forest or tree (converted to the engine's arrays, exactly: same thresholds,
same ``x <= threshold`` rule), or either wrapped in
``sklearn.frozen.FrozenEstimator`` so that it survives ``clone``.
"""

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.base import is_classifier, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from .._engine.api import TREE_LEAF, Tree, compact, empty_nodes

_ENGINE_CRITERIA = {"gini", "entropy", "log_loss", "squared_error"}


@dataclass
class Source:
    """Engine trees of the source model and what SER needs to grow like it."""

    trees: list  # of engine Tree, values in the source's class order
    classes: np.ndarray | None  # source classes (classification) or None
    n_features: int
    criterion: str
    max_features: object
    min_samples_split: int
    min_samples_leaf: int


def _unwrap(source):
    from sklearn.frozen import FrozenEstimator

    while isinstance(source, FrozenEstimator):
        source = source.estimator
    return source


def tree_from_sklearn(sk_tree, classification):
    """An engine :class:`Tree` equal to a fitted scikit-learn ``tree_``.

    Leaves hold class proportions (classification) or the mean; NaN follows
    ``missing_go_to_left`` as in scikit-learn.  Only single-output trees.
    """
    t = sk_tree
    if t.n_outputs != 1:
        raise ValueError("Multi-output scikit-learn trees cannot be used as a transfer source.")
    n = t.node_count
    nodes = empty_nodes(n)
    left = t.children_left.astype(np.int32)
    internal = left != -1
    nodes["left"] = np.where(internal, left, TREE_LEAF)
    nodes["right"] = np.where(internal, t.children_right, TREE_LEAF)
    nodes["feature"] = np.where(internal, t.feature, -1)
    nodes["threshold"] = np.where(internal, t.threshold, 0.0)
    if hasattr(t, "missing_go_to_left"):
        nodes["missing_left"] = np.where(internal, t.missing_go_to_left, 0)
    nodes["n_samples"] = t.n_node_samples
    nodes["weighted_n_samples"] = t.weighted_n_node_samples
    nodes["impurity"] = t.impurity
    wimp = t.weighted_n_node_samples * t.impurity
    k = np.flatnonzero(internal)
    nodes["improvement"][k] = wimp[k] - wimp[t.children_left[k]] - wimp[t.children_right[k]]
    value = np.asarray(t.value[:, 0, :], dtype=np.float64)
    if classification:
        total = value.sum(axis=1, keepdims=True)
        value = value / np.where(total > 0, total, 1.0)
    else:
        value = value[:, :1].copy()
    # scikit-learn stores children after parents; compact() recomputes depths
    return compact(Tree(nodes, value, t.n_features))


def _int_or(value, default):
    return int(value) if isinstance(value, Integral) else default


def load_source(source, classification):
    """Read a fitted source model into a :class:`Source`; clear errors otherwise."""
    source = _unwrap(source)
    kind = "classifier" if classification else "regressor"
    ok_kind = is_classifier(source) if classification else is_regressor(source)
    if not ok_kind:
        raise ValueError(
            f"source_forest must be a fitted {kind} (a forestzoo or scikit-learn forest or tree); "
            f"got {type(source).__name__}."
        )
    try:
        check_is_fitted(source)
    except NotFittedError as exc:
        raise NotFittedError(
            f"source_forest ({type(source).__name__}) is not fitted. Pass a fitted forest; wrap it in "
            "sklearn.frozen.FrozenEstimator so that clone() (used by cross-validation and grid search) "
            "keeps it fitted."
        ) from exc
    members = source.estimators_ if hasattr(source, "estimators_") else [source]
    trees = []
    for est in members:
        t = getattr(est, "tree_", None)
        if isinstance(t, Tree):
            trees.append(t)
        elif t is not None and hasattr(t, "children_left"):
            trees.append(tree_from_sklearn(t, classification))
        else:
            raise ValueError(
                f"source_forest member {type(est).__name__} has no decision tree (tree_); only forests of "
                "axis-aligned trees (forestzoo or scikit-learn Random Forest / Extra Trees / trees) can be transferred."
            )
    params = source.get_params()
    criterion = params.get("criterion", "gini" if classification else "squared_error")
    if criterion not in _ENGINE_CRITERIA:
        criterion = "gini" if classification else "squared_error"
    max_features = params.get("max_features", None)
    if max_features == "auto":
        max_features = "sqrt" if classification else None
    return Source(
        trees=trees,
        classes=np.asarray(source.classes_) if classification else None,
        n_features=int(trees[0].n_features),
        criterion=criterion,
        max_features=max_features,
        min_samples_split=max(2, _int_or(params.get("min_samples_split"), 2)),
        min_samples_leaf=max(1, _int_or(params.get("min_samples_leaf"), 1)),
    )


def remap_classes(tree, source_classes, classes):
    """Copy of ``tree`` whose value columns follow ``classes`` (a superset of ``source_classes``)."""
    cols = np.searchsorted(classes, source_classes)
    values = np.zeros((tree.values.shape[0], classes.shape[0]))
    values[:, cols] = tree.values
    return Tree(tree.nodes.copy(), values, tree.n_features, tree.obl_ptr.copy(), tree.obl_feature.copy(),
                tree.obl_weight.copy())
