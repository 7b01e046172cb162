"""Editing fitted trees: expand leaves, prune subtrees, refit leaf values.

Every function here is pure: it takes a :class:`~forestzoo._engine.tree.Tree`
(or its arrays) and returns a new one, leaving its input untouched, so an
estimator can edit a copy and assign it only once the whole edit succeeded.
Results keep the engine's invariants -- root at row 0, every child stored after
its parent, ``depth`` consistent with the structure -- so the one predictor of
:mod:`.tree` (``apply``, ``accumulate_tree``, ``decision_path``) serves edited
trees unchanged.

Edits that disconnect nodes (pruning, a node turned into a leaf) leave the
disconnected rows in place; :func:`compact` drops them and renumbers the
survivors in depth-first order.  The SER model-transfer algorithm (Segev et
al., "Learn on source, refine on target: a model transfer learning framework
with random forests", 2017), which expands leaves and prunes, is built from
these operations.
"""

import numpy as np

from .._jit import njit
from .tree import NODE_DTYPE, TREE_LEAF, Tree, _step


def _copy(tree, nodes=None, values=None):
    return Tree(
        tree.nodes.copy() if nodes is None else nodes,
        tree.values.copy() if values is None else values,
        tree.n_features, tree.obl_ptr.copy(), tree.obl_feature.copy(), tree.obl_weight.copy(),
    )


@njit
def _preorder(left, right):
    """Rows reachable from the root, in depth-first (pre)order, left child first."""
    n = left.shape[0]
    order = np.empty(n, np.int64)
    stack = np.empty(n + 1, np.int64)
    stack[0] = 0
    top = 1
    m = 0
    while top > 0:
        top -= 1
        k = stack[top]
        order[m] = k
        m += 1
        if left[k] != TREE_LEAF:
            stack[top] = right[k]
            stack[top + 1] = left[k]
            top += 2
    return order[:m]


def _take_records(nodes, order):
    """``nodes[order]`` copied byte for byte, padding included (numpy copies a record's fields only,
    leaving its padding bytes undefined, and equal trees must pickle to equal bytes)."""
    raw = np.ascontiguousarray(nodes).view(np.uint8).reshape(nodes.shape[0], nodes.dtype.itemsize)
    return raw[order].view(nodes.dtype).reshape(order.shape[0])


def _in_preorder(nodes):
    """``(order, new_index, out)``: the rows reachable from the root in depth-first (pre)order, each old
    row's new number (``TREE_LEAF`` for an unreachable one), and those rows renumbered."""
    order = _preorder(nodes["left"].astype(np.int64), nodes["right"].astype(np.int64))
    new_index = np.full(nodes.shape[0], TREE_LEAF, dtype=np.int64)
    new_index[order] = np.arange(order.shape[0])
    out = _take_records(nodes, order)
    internal = out["left"] != TREE_LEAF
    out["left"][internal] = new_index[out["left"][internal]]
    out["right"][internal] = new_index[out["right"][internal]]
    return order, new_index, out


def depth_first_order(nodes, values):
    """``(nodes, values, new_index)`` with the nodes numbered depth-first, left child first.

    scikit-learn's depth-first builder numbers a tree's nodes in this order
    (preorder), and tools that read ``tree_`` arrays may assume it.  Every
    row of ``nodes`` must be reachable from the root (a freshly grown tree);
    depths and side-array references are unchanged by the renumbering.
    ``new_index[k]`` is the new number of old row ``k``.
    """
    order, new_index, out = _in_preorder(nodes)
    if order.shape[0] != nodes.shape[0]:
        raise ValueError(f"{nodes.shape[0] - order.shape[0]} of the tree's {nodes.shape[0]} nodes are not "
                         f"reachable from its root.")
    return out, values[order], new_index


def compact(tree):
    """Drop the rows no longer reachable from the root; renumber depth-first.

    Depths are recomputed from the structure and unused oblique side-array
    rows are dropped too.  The result satisfies the engine's invariants.
    """
    order, _, out = _in_preorder(tree.nodes)
    internal = out["left"] != TREE_LEAF
    # depths: parents come first in preorder, so one forward pass suffices
    depth = np.zeros(out.shape[0], dtype=np.int32)
    for k in np.flatnonzero(internal):
        depth[out["left"][k]] = depth[k] + 1
        depth[out["right"][k]] = depth[k] + 1
    out["depth"] = depth
    values = tree.values[order].copy()
    obl_ptr, obl_feature, obl_weight = tree.obl_ptr, tree.obl_feature, tree.obl_weight
    obl_rows = out["oblique"][internal & (out["oblique"] >= 0)]
    if obl_ptr.shape[0] > 1:
        keep = np.unique(obl_rows)
        remap = np.full(obl_ptr.shape[0] - 1, -1, dtype=np.int64)
        remap[keep] = np.arange(keep.shape[0])
        sel = out["oblique"] >= 0
        out["oblique"][sel] = remap[out["oblique"][sel]]
        sizes = obl_ptr[keep + 1] - obl_ptr[keep]
        new_ptr = np.zeros(keep.shape[0] + 1, dtype=obl_ptr.dtype)
        np.cumsum(sizes, out=new_ptr[1:])
        take = np.concatenate([np.arange(obl_ptr[j], obl_ptr[j + 1]) for j in keep]) if keep.size else np.zeros(0, np.int64)
        obl_ptr, obl_feature, obl_weight = new_ptr, obl_feature[take], obl_weight[take]
    return Tree(out, values, tree.n_features, obl_ptr.copy(), obl_feature.copy(), obl_weight.copy())


def _make_leaf(nodes, k):
    nodes["left"][k] = TREE_LEAF
    nodes["right"][k] = TREE_LEAF
    nodes["feature"][k] = -1
    nodes["oblique"][k] = -1
    nodes["threshold"][k] = 0.0
    nodes["improvement"][k] = 0.0
    nodes["missing_left"][k] = 0


def prune_to_leaves(tree, nodes_to_prune, values=None):
    """Turn every node of ``nodes_to_prune`` into a leaf; returns a compacted tree.

    Parameters
    ----------
    tree : Tree
    nodes_to_prune : array-like of int
        Rows to turn into leaves; their descendants are removed.
    values : ndarray of shape (len(nodes_to_prune), n_values), optional
        New values of those leaves; by default each keeps its current row of
        ``tree.values`` (for an internal node, the distribution it was fitted with).
    """
    nodes_to_prune = np.asarray(nodes_to_prune, dtype=np.int64).reshape(-1)
    _check_rows(tree, nodes_to_prune)
    out = _copy(tree)
    for j, k in enumerate(nodes_to_prune):
        _make_leaf(out.nodes, k)
        if values is not None:
            out.values[k] = values[j]
    return compact(out)


def expand_leaves(tree, leaves, subtrees):
    """Replace each leaf of ``leaves`` by the matching tree of ``subtrees``.

    The subtree's root takes the leaf's row (so references to the leaf stay
    valid) and its other rows are appended, with depths offset by the leaf's
    depth; children therefore still follow their parents.  Oblique side arrays
    of the subtrees are appended to the tree's.

    Parameters
    ----------
    tree : Tree
    leaves : array-like of int
        Distinct leaf rows of ``tree``.
    subtrees : sequence of Tree
        Same ``n_features`` and ``values`` width as ``tree``.
    """
    leaves = np.asarray(leaves, dtype=np.int64).reshape(-1)
    if len(subtrees) != leaves.shape[0]:
        raise ValueError(f"Got {leaves.shape[0]} leaves but {len(subtrees)} subtrees.")
    _check_rows(tree, leaves)
    if np.unique(leaves).shape[0] != leaves.shape[0]:
        raise ValueError("leaves must be distinct.")
    if np.any(tree.nodes["left"][leaves] != TREE_LEAF):
        raise ValueError("Only leaves can be expanded; prune the node to a leaf first.")
    node_parts, value_parts = [tree.nodes.copy()], [tree.values.copy()]
    obl_ptr_parts, obl_feature_parts, obl_weight_parts = [tree.obl_ptr], [tree.obl_feature], [tree.obl_weight]
    n_rows = tree.nodes.shape[0]
    n_obl = tree.obl_ptr.shape[0] - 1
    base = node_parts[0]
    for leaf, sub in zip(leaves, subtrees):
        if sub.n_features != tree.n_features or sub.values.shape[1] != tree.values.shape[1]:
            raise ValueError(
                f"Subtree for leaf {leaf} has n_features={sub.n_features}, n_values={sub.values.shape[1]}; "
                f"the tree has {tree.n_features}, {tree.values.shape[1]}."
            )
        sn = sub.nodes.copy()
        m = sn.shape[0]
        # rows 1.. of the subtree go to n_rows.., row 0 goes to `leaf`
        remap = np.empty(m, dtype=np.int64)
        remap[0] = leaf
        remap[1:] = n_rows + np.arange(m - 1)
        internal = sn["left"] != TREE_LEAF
        sn["left"][internal] = remap[sn["left"][internal]]
        sn["right"][internal] = remap[sn["right"][internal]]
        sn["depth"] += base["depth"][leaf]
        obl = sn["oblique"] >= 0
        sn["oblique"][obl] += n_obl
        base[leaf] = sn[0]
        value_parts[0][leaf] = sub.values[0]
        node_parts.append(sn[1:])
        value_parts.append(sub.values[1:])
        if sub.obl_ptr.shape[0] > 1:
            obl_ptr_parts.append(sub.obl_ptr[1:] + obl_ptr_parts[-1][-1])
            obl_feature_parts.append(sub.obl_feature)
            obl_weight_parts.append(sub.obl_weight)
            n_obl += sub.obl_ptr.shape[0] - 1
        n_rows += m - 1
    return Tree(
        np.concatenate(node_parts), np.concatenate(value_parts), tree.n_features,
        np.concatenate(obl_ptr_parts).astype(tree.obl_ptr.dtype),
        np.concatenate(obl_feature_parts).astype(tree.obl_feature.dtype),
        np.concatenate(obl_weight_parts).astype(tree.obl_weight.dtype),
    )


@njit
def _node_sums(X, nodes, obl_ptr, obl_feature, obl_weight, targets, w, out):
    """Along every row's path add ``[1, w, w * targets]`` to each visited node."""
    m = targets.shape[1]
    for i in range(X.shape[0]):
        wi = w[i]
        if wi <= 0.0:
            continue
        k = np.uint64(0)
        while True:
            out[k, 0] += 1.0
            out[k, 1] += wi
            for c in range(m):
                out[k, 2 + c] += wi * targets[i, c]
            if nodes[k].left == TREE_LEAF:
                break
            k = _step(X, i, nodes, k, obl_ptr, obl_feature, obl_weight)


def node_sums(tree, X, targets, sample_weight=None):
    """Per-node sufficient statistics of new data ``(X, targets)``.

    Returns ``S`` of shape ``(n_nodes, 2 + n_targets)``: ``S[k, 0]`` the number
    of rows reaching node ``k``, ``S[k, 1]`` their weight and ``S[k, 2:]`` the
    weighted sums of ``targets`` (one-hot classes, or ``[y, y**2]``).
    ``X`` is float32 and C-contiguous, as for prediction.
    """
    targets = np.ascontiguousarray(targets, dtype=np.float64)
    if targets.ndim == 1:
        targets = targets[:, None]
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    out = np.zeros((tree.node_count, 2 + targets.shape[1]))
    _node_sums(X, tree.nodes, tree.obl_ptr, tree.obl_feature, tree.obl_weight, targets, w, out)
    return out


def class_targets(yk, n_classes):
    """One-hot float64 matrix of class codes ``yk``, the ``targets`` of :func:`node_sums`."""
    onehot = np.zeros((yk.shape[0], n_classes))
    onehot[np.arange(yk.shape[0]), yk] = 1.0
    return onehot


def regression_targets(y):
    """``[y, y**2]``, the ``targets`` of :func:`node_sums` for a regression tree."""
    y = np.asarray(y, dtype=np.float64)
    return np.column_stack((y, y * y))


def values_from_sums(sums, classification):
    """Node values (class proportions, or the mean) and impurities (gini / variance) from :func:`node_sums`."""
    w = sums[:, 1]
    reached = w > 0
    safe = np.where(reached, w, 1.0)
    if classification:
        values = sums[:, 2:] / safe[:, None]
        impurity = 1.0 - np.sum(values * values, axis=1)
    else:
        mean = sums[:, 2] / safe
        values = mean[:, None]
        impurity = np.maximum(sums[:, 3] / safe - mean * mean, 0.0)
    return values, np.where(reached, impurity, 0.0), reached


def refit_values(tree, X, targets, sample_weight=None, classification=True):
    """Recompute node values and statistics from new data; returns a new tree.

    Every node reached by a row of ``X`` gets the weighted class proportions
    (``classification``) or the weighted mean of ``targets`` as its value, and
    its ``n_samples``, ``weighted_n_samples``, ``impurity`` (gini or variance)
    and ``improvement`` are recomputed from the new data.  Nodes no row
    reaches keep their values and get zero counts.

    ``targets`` are as for :func:`node_sums` (:func:`class_targets` or
    :func:`regression_targets`).
    """
    sums = node_sums(tree, X, targets, sample_weight)
    values, impurity, reached = values_from_sums(sums, classification)
    if not classification:
        values = values.copy()
    out = _copy(tree)
    out.values[reached] = values[reached]
    nd = out.nodes
    nd["n_samples"] = sums[:, 0].astype(np.int32)
    nd["weighted_n_samples"] = sums[:, 1]
    nd["impurity"] = impurity
    internal = np.flatnonzero(nd["left"] != TREE_LEAF)
    wimp = sums[:, 1] * impurity
    gain = wimp[internal] - wimp[nd["left"][internal]] - wimp[nd["right"][internal]]
    nd["improvement"][internal] = np.maximum(gain, 0.0)
    return out


def _check_rows(tree, rows):
    n = tree.node_count
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise ValueError(f"Node indices must be in [0, {n}); got {rows.min()}..{rows.max()}.")


def empty_nodes(n):
    """``n`` leaf rows of :data:`NODE_DTYPE` with neutral fields (for builders)."""
    nodes = np.zeros(n, dtype=NODE_DTYPE)
    nodes["left"] = TREE_LEAF
    nodes["right"] = TREE_LEAF
    nodes["feature"] = -1
    nodes["oblique"] = -1
    return nodes
