"""A fitted tree rewritten as disjunctive normal forms (Seyedhosseini & Tasdizen 2015, Sec. 2.1).

A tree is read through its arrays only (``nodes``: left / right / feature /
threshold, ``values``).  Every leaf is a conjunction of the split literals on
its root-to-leaf path -- ``f_k`` where the path goes right, ``not f_k`` where
it goes left -- and the leaves labelled ``c`` form the disjunction ``h^c`` of
Eq. (2) (binary) / Eq. (10) (one function per class).

The result is a :class:`DisjunctiveNormalForm`: plain arrays (pointers and parent links)
that the kernels of :mod:`forestzoo.dnf._kernels` evaluate and train.  Each
function owns its own copy of the weights of the nodes it uses, because the
classes of a multi-class tree are fine-tuned independently (Algorithm 2).
"""

from dataclasses import dataclass

import numpy as np

from .._engine.api import TREE_LEAF


@dataclass
class DisjunctiveNormalForm:
    """One tree as ``n_funcs`` differentiable disjunctive normal functions.

    A function is stored as the part of the tree its terms use: its split
    units in parent-before-child order with a link to their parent, and its
    terms (leaves) with a link to their last split.  The literals of a term
    -- its path, ``R_i`` and ``L_i`` of Eq. (2) -- are the chain of links up
    to the root; :func:`leaf_paths` lists them explicitly.  Walking the links
    shares every path prefix between the terms below it.

    Attributes
    ----------
    weights : float64 (n_units, n_features + 1)
        ``w_k`` of Eq. (4), one row per (function, split node); the last column
        is the bias (``phi_{d+1} = 1``).  ``f_k(x) = sigmoid(w_k . [x, 1])``
        is the literal "x goes right at node k".
    unit_ptr : int64 (n_funcs + 1,)
        Function ``j`` owns the weight rows ``unit_ptr[j]:unit_ptr[j + 1]``.
    unit_node : int32 (n_units,)
        The tree node each weight row came from.
    unit_parent : int32 (n_units,)
        Weight row of the parent split (-1 for the root); parents come first.
    unit_right : uint8 (n_units,)
        1 when the unit is the right child of its parent.
    term_ptr : int64 (n_funcs + 1,)
        Function ``j`` is the disjunction of the terms ``term_ptr[j]:term_ptr[j + 1]``.
    term_leaf : int32 (n_terms,)
        The leaf each term (conjunction) came from.
    term_parent : int32 (n_terms,)
        Weight row of the leaf's parent split (-1 when the root is the leaf).
    term_right : uint8 (n_terms,)
        1 when the leaf is the right child of its parent.
    func_class : int32 (n_funcs,)
        Class index each function scores.
    """

    weights: np.ndarray
    unit_ptr: np.ndarray
    unit_node: np.ndarray
    unit_parent: np.ndarray
    unit_right: np.ndarray
    term_ptr: np.ndarray
    term_leaf: np.ndarray
    term_parent: np.ndarray
    term_right: np.ndarray
    func_class: np.ndarray

    @property
    def n_funcs(self):
        return int(self.func_class.shape[0])

    @property
    def n_units(self):
        return int(self.weights.shape[0])

    def copy(self):
        """A copy whose weights can be trained without touching this one."""
        return DisjunctiveNormalForm(self.weights.copy(), *(getattr(self, f) for f in _STRUCTURE))

    def structure(self):
        """The structural arrays in the order the kernels take them."""
        return (self.unit_ptr, self.unit_parent, self.unit_right, self.term_ptr, self.term_parent,
                self.term_right, self.func_class)


_STRUCTURE = ("unit_ptr", "unit_node", "unit_parent", "unit_right", "term_ptr", "term_leaf", "term_parent",
              "term_right", "func_class")


def tree_links(nodes):
    """``(parent, went_right)`` of every node (-1 / 0 for the root)."""
    left = nodes["left"].astype(np.int64)
    right = nodes["right"].astype(np.int64)
    internal = np.flatnonzero(left != TREE_LEAF)
    parent = np.full(nodes.shape[0], -1, dtype=np.int64)
    went_right = np.zeros(nodes.shape[0], dtype=np.uint8)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    went_right[right[internal]] = 1
    return parent, went_right


def leaf_paths(nodes):
    """Root-to-leaf paths of a tree as ``(node, went_right)`` pairs.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        Children are stored after their parent; the root is row 0.

    Returns
    -------
    leaves : int64 (n_leaves,)
        Leaf rows, in increasing order.
    ptr : int64 (n_leaves + 1,)
        The path of ``leaves[i]`` is ``path_node[ptr[i]:ptr[i + 1]]``.
    path_node : int64 (n_literals,)
        Internal nodes visited, from the root down.
    path_right : uint8 (n_literals,)
        1 where the path takes the right child of that node.
    """
    n_nodes = nodes.shape[0]
    left = nodes["left"].astype(np.int64)
    right = nodes["right"].astype(np.int64)
    parent, went_right = tree_links(nodes)
    # depth from the child links, one level at a time
    depth = np.zeros(n_nodes, dtype=np.int64)
    frontier = np.zeros(1, dtype=np.int64)
    level = 0
    while frontier.size:
        level += 1
        frontier = frontier[left[frontier] != TREE_LEAF]
        frontier = np.concatenate((left[frontier], right[frontier]))
        depth[frontier] = level
    leaves = np.flatnonzero(left == TREE_LEAF)
    lengths = depth[leaves]
    ptr = np.zeros(leaves.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    path_node = np.empty(ptr[-1], dtype=np.int64)
    path_right = np.empty(ptr[-1], dtype=np.uint8)
    # climb all leaves together, one level per step, filling each path from its end
    cur = leaves.copy()
    pos = ptr[1:] - 1
    active = np.flatnonzero(lengths > 0)
    while active.size:
        c = cur[active]
        path_node[pos[active]] = parent[c]
        path_right[pos[active]] = went_right[c]
        cur[active] = parent[c]
        pos[active] -= 1
        active = active[cur[active] != 0]
    return leaves, ptr, path_node, path_right


def tie_free_thresholds(threshold):
    """Thresholds moved strictly between ``threshold`` and the next float32 above it.

    The tree sends ``x <= t`` left.  For every float32 ``x`` (what the trees
    read), ``x <= t`` holds exactly when ``x < t'`` with ``t'`` returned here,
    and no float32 equals ``t'``: the literal ``x - t' > 0`` of Eq. (1) then
    agrees with the tree on every sample, ties included.
    """
    t = np.asarray(threshold, dtype=np.float64)
    t32 = t.astype(np.float32)
    up = np.where(t32.astype(np.float64) > t, t32, np.nextafter(t32, np.float32(np.inf)))
    return 0.5 * (t + up.astype(np.float64))


def standardized_thresholds(threshold, feature, mean, scale):
    """Thresholds of a tree fitted on float32 ``x``, moved to ``z = (float64(x) - mean) / scale`` exactly.

    The tree sends ``x <= t`` left.  With ``lo`` the largest float32 not above
    ``t`` and ``hi`` the next float32, a float32 ``x`` goes left exactly when
    ``x <= lo``, and ``z`` (computed in float64, monotone in ``x``) is then at
    most ``z(lo)``, else at least ``z(hi)``.  The returned threshold lies
    strictly between the two, so ``z > t'`` is the tree's "goes right" on
    every float32 input, ties included (``z(lo) < z(hi)`` holds for every
    feature whose ``|mean|`` is below about ``2**29`` times its values).
    An infinite threshold (all finite values on one side) stays on the far
    side of every finite ``z``.

    Parameters
    ----------
    threshold : float64 (n_nodes,)
    feature : int (n_nodes,)
        Split feature of every node (only internal nodes' rows are meaningful).
    mean, scale : float64 (n_features,)
        The z-scoring of the features.

    Returns
    -------
    float64 (n_nodes,)
    """
    t = np.asarray(threshold, dtype=np.float64)
    f = np.clip(np.asarray(feature, dtype=np.int64), 0, None)
    m, s = mean[f], scale[f]
    with np.errstate(over="ignore", invalid="ignore"):
        lo = t.astype(np.float32)
        lo = np.where(lo.astype(np.float64) > t, np.nextafter(lo, np.float32(-np.inf)), lo)
        lo = np.where(np.isposinf(lo), np.finfo(np.float32).max, lo).astype(np.float32)
        hi = np.nextafter(lo, np.float32(np.inf))
        z_lo = (lo.astype(np.float64) - m) / s
        z_hi = (hi.astype(np.float64) - m) / s
        out = z_lo + 0.5 * (z_hi - z_lo)
    top = np.isposinf(hi)  # nothing finite lies above lo
    out[top] = np.nextafter(z_lo[top], np.inf)
    bottom = np.isneginf(lo)  # every finite value goes right
    out[bottom] = np.nextafter((np.float64(np.finfo(np.float32).min) - m[bottom]) / s[bottom], -np.inf)
    return out


def tree_to_dnf(nodes, leaf_class, n_features, classes, slope=1.0, thresholds=None):
    """Disjunctive normal forms of one tree, one function per class in ``classes``.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        The fitted tree (axis-aligned nodes).
    leaf_class : int array (n_nodes,)
        Class index predicted at every node (only leaves are read).
    n_features : int
    classes : sequence of int
        Class indices that get a function: ``[1]`` for a binary tree (Eq. 5:
        the positive leaves), ``range(C)`` for a multi-class tree (Eq. 12).
    slope : float
        Initial sigmoid slope: node ``k`` splitting feature ``f`` at ``t``
        starts as ``w_k = slope * (e_f, -t)``; the paper's initial ``w_k`` has
        "a 1 for the chosen splitting axis" (slope 1 on z-scored data).  With
        a large power-of-two slope the thresholded DNF equals the tree exactly.
    thresholds : float64 (n_nodes,) or None
        The literal of node ``k`` is ``x_f > thresholds[k]`` on the inputs the
        DNF reads (see :func:`standardized_thresholds`); None: the tree's
        thresholds made tie-free for float32 inputs (:func:`tie_free_thresholds`).

    Returns
    -------
    DisjunctiveNormalForm
    """
    if np.any((nodes["left"] != TREE_LEAF) & (nodes["oblique"] >= 0)):
        raise ValueError("tree_to_dnf converts axis-aligned trees; this tree has oblique nodes.")
    leaves, ptr, path_node, _ = leaf_paths(nodes)
    parent, went_right = tree_links(nodes)
    thresholds = tie_free_thresholds(nodes["threshold"]) if thresholds is None else thresholds
    local = np.full(nodes.shape[0], -1, dtype=np.int64)
    unit_ptr, term_ptr = [0], [0]
    parts = {name: [] for name in ("unit_node", "unit_parent", "unit_right", "term_leaf", "term_parent", "term_right")}
    rows = []
    for c in classes:
        mine = np.flatnonzero(leaf_class[leaves] == c)
        lits = np.concatenate([np.arange(ptr[i], ptr[i + 1]) for i in mine] + [np.zeros(0, np.int64)])
        used = np.unique(path_node[lits])  # ascending node rows: parents before children
        offset = unit_ptr[-1]
        local[used] = offset + np.arange(used.shape[0])
        up = parent[used]
        parts["unit_node"].append(used)
        parts["unit_parent"].append(np.where(up >= 0, local[np.maximum(up, 0)], -1))
        parts["unit_right"].append(went_right[used])
        lp = parent[leaves[mine]]
        parts["term_leaf"].append(leaves[mine])
        parts["term_parent"].append(np.where(lp >= 0, local[np.maximum(lp, 0)], -1))
        parts["term_right"].append(went_right[leaves[mine]])
        term_ptr.append(term_ptr[-1] + mine.shape[0])
        unit_ptr.append(offset + used.shape[0])
        w = np.zeros((used.shape[0], n_features + 1), dtype=np.float64)
        w[np.arange(used.shape[0]), nodes["feature"][used]] = slope
        w[:, n_features] = -slope * thresholds[used]
        rows.append(w)

    def cat(name, dtype):
        return np.concatenate(parts[name]).astype(dtype) if parts[name] else np.zeros(0, dtype=dtype)

    return DisjunctiveNormalForm(
        weights=np.ascontiguousarray(np.concatenate(rows)) if rows else np.zeros((0, n_features + 1)),
        unit_ptr=np.asarray(unit_ptr, dtype=np.int64),
        unit_node=cat("unit_node", np.int32),
        unit_parent=cat("unit_parent", np.int32),
        unit_right=cat("unit_right", np.uint8),
        term_ptr=np.asarray(term_ptr, dtype=np.int64),
        term_leaf=cat("term_leaf", np.int32),
        term_parent=cat("term_parent", np.int32),
        term_right=cat("term_right", np.uint8),
        func_class=np.asarray(list(classes), dtype=np.int32),
    )
