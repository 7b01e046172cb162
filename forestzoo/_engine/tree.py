"""Fitted trees as plain numpy arrays, and the one predictor over them.

A fitted tree is

* ``nodes``: a structured array of :data:`NODE_DTYPE`, one row per node, the
  root at row 0, children always after their parent;
* ``values``: ``float64`` array ``(n_nodes, n_values)``; class proportions
  (weighted) for classification, the weighted mean for regression;
* oblique side arrays, in CSR layout: node ``k`` with ``nodes[k].oblique = j``
  projects ``x`` on ``obl_weight[obl_ptr[j]:obl_ptr[j + 1]]`` over the
  features ``obl_feature[obl_ptr[j]:obl_ptr[j + 1]]`` and compares the
  projection with ``threshold``.  Axis-aligned trees keep these arrays empty
  (``obl_ptr == [0]``) and every node's ``oblique`` is -1.

Because the same ``apply`` serves axis-aligned, rotated (a rotated split is
an oblique node) and oblique trees, a family adds new node kinds by filling
the side arrays, never by writing a predictor.

Prediction walks a *compact* copy of the nodes (:data:`COMPACT_DTYPE`, 16
bytes instead of 64), derived on first use: four nodes per cache line instead
of one keep much more of a deep tree in cache.  The compact threshold is
float32, rounded towards -inf, which sends every float32 input exactly where
the float64 threshold does (``x <= t`` iff ``x <= t32`` for float32 ``x``).
The walk itself is branch-free and eight rows go down together (see
:func:`_axis_child` and :func:`_walk8`): on fully grown trees that measured
2.7x faster than one row at a time with a branch per node.  In small
trees whose paths differ much in length, lanes that take the next row as
soon as their row has reached its leaf are faster (:func:`walk_in_lanes`,
:func:`apply_lanes`).  On wide rows beyond the cache the branch per node
wins instead (:func:`walk_by_branch`, :func:`apply_by_branch`).

The walkers read a float32 C-contiguous ``X``.  A scipy sparse ``X`` is
walked from its CSR arrays by axis-aligned trees, each row scattered into a
small dense buffer: by branches with the next left node known ahead in a
tree numbered in preorder (:func:`apply_csr_preorder`), eight rows in
flight otherwise (:func:`apply_csr`); and in dense blocks of
rows by trees with oblique nodes (:func:`dense_row_blocks`: a block of a few
MB is densified, walked, and dropped); either way the whole matrix is never
dense and every row goes where its dense row goes.
"""

import numpy as np
import scipy.sparse as sp

from .._jit import njit

TREE_LEAF = -1

NODE_DTYPE = np.dtype(
    [
        ("left", np.int32),  # row of the left child; TREE_LEAF (-1) for a leaf
        ("right", np.int32),  # row of the right child; TREE_LEAF (-1) for a leaf
        ("feature", np.int32),  # split feature of an axis-aligned node; -1 for leaves and oblique nodes
        ("oblique", np.int32),  # row in the oblique side arrays; -1 when the split is axis-aligned
        ("threshold", np.float64),  # go left when x[feature] (or the projection) <= threshold
        ("depth", np.int32),  # depth of the node, the root has depth 0
        ("n_samples", np.int32),  # distinct training rows that reached the node (bootstrap copies count once)
        ("weighted_n_samples", np.float64),  # sum of the sample weights of those rows
        ("impurity", np.float64),  # weighted impurity of the node under the fitting criterion
        ("improvement", np.float64),  # weighted impurity decrease of the split (0 for leaves), for MDI
        ("missing_left", np.uint8),  # 1: a NaN value goes left; 0: it goes right
    ],
    align=True,  # naturally aligned fields: the predictor's loads stay single instructions
)


COMPACT_DTYPE = np.dtype(
    [
        ("feature", np.int32),  # >= 0 axis feature (0 for a leaf); <= -1 oblique node, side-array row -feature - 1
        ("threshold", np.float32),  # float32 rounded towards -inf (axis nodes); +inf for a leaf
        ("left", np.int32),  # left child; a leaf's own row
        ("right", np.int32),  # right child r, stored as -r when NaN goes left; a leaf's own row
    ]
)


@njit
def _fill_compact(left, right, feature, oblique, threshold, missing_left, ci, cf):
    for k in range(left.shape[0]):
        b = 4 * k
        if left[k] == TREE_LEAF:
            ci[b] = 0
            cf[b + 1] = np.inf
            ci[b + 2] = k
            ci[b + 3] = k
            continue
        ci[b] = -1 - oblique[k] if oblique[k] >= 0 else feature[k]
        t = np.float32(threshold[k])
        if np.float64(t) > threshold[k]:  # rounded up: step down to the next float32
            t = np.nextafter(t, np.float32(-np.inf))
        cf[b + 1] = t
        ci[b + 2] = left[k]
        ci[b + 3] = -right[k] if missing_left[k] == 1 else right[k]


def compact_table(nodes):
    """The 16-byte prediction layout of a :data:`NODE_DTYPE` array, as a flat
    int32 array with four fields per node (see :data:`COMPACT_DTYPE`), the form
    the predictor reads.

    A leaf points to itself on both sides (feature 0, threshold +inf), so
    the walk needs no leaf test: a row that reached its leaf stays there.
    """
    ci = np.empty(4 * nodes.shape[0], dtype=np.int32)
    _fill_compact(nodes["left"], nodes["right"], nodes["feature"], nodes["oblique"], nodes["threshold"],
                  nodes["missing_left"], ci, ci.view(np.float32))
    return ci


@njit(inline="always")
def _axis_child(X, i, ci, thr, k):
    """Next node of row ``i`` at axis-aligned node or leaf ``k`` (a leaf returns ``k``), branch-free.

    ``ci`` / ``thr`` are flat int32 / float32 views of the compact nodes
    (four fields per node).  The child is loaded from field ``2 + go_right``,
    so the comparison never becomes a branch: a random split direction
    mispredicts half the time, which measured as most of the walk's cost.
    """
    b = np.uint64(4) * k
    rt = ci[b + np.uint64(3)]
    v = X[i, np.uint64(ci[b])]
    go_left = (v <= thr[b + np.uint64(1)]) | ((v != v) & (rt < 0))
    return np.uint64(abs(ci[b + np.uint64(3) - np.uint64(go_left)]))


@njit(inline="always")
def _child(X, i, ci, thr, nodes, k, obl_ptr, obl_feature, obl_weight):
    """Next node of row ``i`` at node ``k`` (``k`` itself at a leaf), oblique nodes included."""
    b = np.uint64(4) * k
    f = ci[b]
    if f >= 0:
        return _axis_child(X, i, ci, thr, k)
    rt = ci[b + np.uint64(3)]
    if _oblique_side(X, i, -f - 1, 1 if rt < 0 else 0, nodes[k].threshold, obl_ptr, obl_feature, obl_weight):
        return np.uint64(ci[b + np.uint64(2)])
    return np.uint64(abs(rt))


@njit(inline="always")
def _walk8(X, i, ci, thr, leaves):
    """Leaves of rows ``i .. i + 7`` of an axis-aligned tree into ``leaves[:8]``.

    The eight rows walk the tree together until none moves.  One row's walk
    is a chain of dependent loads (a node's child is known only once the node
    has arrived); eight independent chains keep eight loads in flight, which
    measured 3x faster than one row at a time on fully grown trees.
    """
    z = np.uint64(0)
    k0 = k1 = k2 = k3 = k4 = k5 = k6 = k7 = z
    while True:
        n0 = _axis_child(X, i, ci, thr, k0)
        n1 = _axis_child(X, i + np.uint64(1), ci, thr, k1)
        n2 = _axis_child(X, i + np.uint64(2), ci, thr, k2)
        n3 = _axis_child(X, i + np.uint64(3), ci, thr, k3)
        n4 = _axis_child(X, i + np.uint64(4), ci, thr, k4)
        n5 = _axis_child(X, i + np.uint64(5), ci, thr, k5)
        n6 = _axis_child(X, i + np.uint64(6), ci, thr, k6)
        n7 = _axis_child(X, i + np.uint64(7), ci, thr, k7)
        if ((n0 == k0) & (n1 == k1) & (n2 == k2) & (n3 == k3) & (n4 == k4) & (n5 == k5) & (n6 == k6)
                & (n7 == k7)):
            break
        k0, k1, k2, k3, k4, k5, k6, k7 = n0, n1, n2, n3, n4, n5, n6, n7
    leaves[0], leaves[1], leaves[2], leaves[3] = k0, k1, k2, k3
    leaves[4], leaves[5], leaves[6], leaves[7] = k4, k5, k6, k7


@njit(inline="always")
def _walk_by_branch(X, i, ci, thr):
    """Leaf of row ``i`` of an axis-aligned tree, one node at a time with a branch per node.

    The same decisions as :func:`_axis_child`.  The processor runs ahead
    along the predicted path and issues the loads of ``X`` of several nodes
    at once, which a branch-free walk, waiting for each load, cannot; a
    wrongly predicted branch costs a restart (see :func:`walk_by_branch`).
    """
    k = np.uint64(0)
    while True:
        b = np.uint64(4) * k
        left = np.uint64(ci[b + np.uint64(2)])
        if left == k:  # a leaf points to itself
            return k
        v = X[i, np.uint64(ci[b])]
        rt = ci[b + np.uint64(3)]
        if v <= thr[b + np.uint64(1)]:
            k = left
        elif (v != v) and rt < 0:
            k = left
        else:
            k = np.uint64(abs(rt))


@njit(inline="always")
def _lane_step(X, i, ci, thr, k, nxt, out):
    """One step of a lane of :func:`apply_lanes`: row ``i`` at node ``k``; returns ``(row, node, next free row)``.

    ``out[i]`` is written at every step, so it holds the row's leaf once the
    row stops moving; the lane then takes row ``nxt`` at the root.  The
    choices are selects, not branches: when a lane finishes is as
    unpredictable as a split's direction.
    """
    nk = _axis_child(X, i, ci, thr, k)
    done = nk == k
    out[i] = k
    i = nxt if done else i
    nxt += np.uint64(done)
    nk = np.uint64(0) if done else nk
    return i, nk, nxt


@njit(inline="always")
def _walk_on(X, i, ci, thr, k):
    """Leaf of row ``i`` of an axis-aligned tree, walked on from node ``k``."""
    while True:
        nk = _axis_child(X, i, ci, thr, k)
        if nk == k:
            return k
        k = nk


@njit
def apply_lanes(X, cnodes, out):
    """:func:`apply_compact` for an axis-aligned tree, eight rows in flight, each lane taking the next row at once.

    The eight-row walk (:func:`_walk8`) moves eight rows until the deepest
    has reached its leaf; here a lane whose row has reached its leaf takes
    the next row while the others go on, so the walk takes as many steps as
    the rows' paths have nodes.  Each step costs more (a store and two
    selects per lane), so this walk is faster only where the deepest of eight
    paths is much longer than the mean path and the tree is small enough to
    stay in cache (:func:`walk_in_lanes`).  Same leaves.
    """
    thr = cnodes.view(np.float32)
    n = np.uint64(X.shape[0])
    z = np.uint64(0)
    if n < np.uint64(8):
        for i in range(n):
            out[i] = _walk_on(X, i, cnodes, thr, z)
        return
    k0 = k1 = k2 = k3 = k4 = k5 = k6 = k7 = z
    i0, i1, i2, i3 = z, np.uint64(1), np.uint64(2), np.uint64(3)
    i4, i5, i6, i7 = np.uint64(4), np.uint64(5), np.uint64(6), np.uint64(7)
    nxt = np.uint64(8)
    while nxt < n:  # every lane holds a row below n at the top of the loop
        i0, k0, nxt = _lane_step(X, i0, cnodes, thr, k0, nxt, out)
        i1, k1, nxt = _lane_step(X, i1, cnodes, thr, k1, nxt, out)
        i2, k2, nxt = _lane_step(X, i2, cnodes, thr, k2, nxt, out)
        i3, k3, nxt = _lane_step(X, i3, cnodes, thr, k3, nxt, out)
        i4, k4, nxt = _lane_step(X, i4, cnodes, thr, k4, nxt, out)
        i5, k5, nxt = _lane_step(X, i5, cnodes, thr, k5, nxt, out)
        i6, k6, nxt = _lane_step(X, i6, cnodes, thr, k6, nxt, out)
        i7, k7, nxt = _lane_step(X, i7, cnodes, thr, k7, nxt, out)
    rows = (i0, i1, i2, i3, i4, i5, i6, i7)
    at = (k0, k1, k2, k3, k4, k5, k6, k7)
    for lane in range(8):  # the rows still on their way (a lane given a row past the end holds none)
        i = rows[lane]
        if i < n:
            out[i] = _walk_on(X, i, cnodes, thr, at[lane])


@njit
def apply_compact(X, cnodes, nodes, obl_ptr, obl_feature, obl_weight, out):
    """Leaf reached by every row of ``X``; ``cnodes`` is :func:`compact_table` (flat int32).

    Axis-aligned trees walk eight rows at a time (:func:`_walk8`); a tree
    with oblique nodes walks one row at a time.  :func:`apply_by_branch` is
    the other walk of axis-aligned trees.
    """
    thr = cnodes.view(np.float32)
    n = np.uint64(X.shape[0])
    start = np.uint64(0)
    if obl_ptr.shape[0] <= 1:
        start = n - n % np.uint64(8)
        leaves = np.empty(8, np.uint64)
        for i in range(np.uint64(0), start, np.uint64(8)):
            _walk8(X, i, cnodes, thr, leaves)
            for r in range(8):
                out[i + np.uint64(r)] = leaves[r]
    for i in range(start, n):
        k = np.uint64(0)
        while True:
            nk = _child(X, i, cnodes, thr, nodes, k, obl_ptr, obl_feature, obl_weight)
            if nk == k:
                break
            k = nk
        out[i] = k


@njit(inline="always")
def _csr_lane_load(indptr, indices, data, buf, lane, nxt, n):
    """Scatter CSR row ``nxt`` into ``buf[lane]``; returns ``(row, next row)``, or ``(-1, nxt)`` past the last row."""
    if nxt >= n:
        return -1, nxt
    for p in range(indptr[nxt], indptr[nxt + 1]):
        buf[lane, indices[p]] += data[p]
    return nxt, nxt + 1


@njit(inline="always")
def _csr_lane_done(indptr, indices, data, buf, lane, i, k, nxt, n, out):
    """Row ``i`` of ``lane`` reached leaf ``k``: record it, clear the lane and load the next row.

    Returns ``(row, node, next row)``: the new row at the root, or, with no
    row left (or an idle lane, ``i < 0``), ``-1`` at the leaf, where the lane stays.
    """
    if i < 0:
        return i, k, nxt
    out[i] = k
    for p in range(indptr[i], indptr[i + 1]):
        buf[lane, indices[p]] = 0.0
    i, nxt = _csr_lane_load(indptr, indices, data, buf, lane, nxt, n)
    return i, (np.uint64(0) if i >= 0 else k), nxt


@njit
def apply_csr(indptr, indices, data, cnodes, buf, out):
    """Leaf reached by every row of a CSR matrix in an axis-aligned tree (:func:`apply_compact` for sparse rows).

    ``indptr, indices, data`` are the CSR arrays (float32 values; duplicate
    entries of a row add up, as scipy's ``toarray`` does); ``buf`` is float32
    zeros of shape ``(8, n_features)``, left zeroed on return.  Eight lanes
    walk eight rows at once, each row scattered into its lane's row of
    ``buf`` (a walk reads values that stay in cache, never a densified block
    of many rows), with :func:`_walk8`'s branch-free steps.  Unlike
    :func:`_walk8`, a lane whose row reaches its leaf takes the next row at
    once instead of waiting for the deepest of the eight: on unbalanced trees
    (sparse data grows paths of hundreds of nodes) the eight paths differ
    widely.  Every row reaches the leaf its dense row reaches.  A tree
    numbered in preorder is walked faster by :func:`apply_csr_preorder`
    (:func:`csr_walker` picks).
    """
    thr = cnodes.view(np.float32)
    n = indptr.shape[0] - 1
    z = np.uint64(0)
    k0 = k1 = k2 = k3 = k4 = k5 = k6 = k7 = z
    nxt = 0
    i0, nxt = _csr_lane_load(indptr, indices, data, buf, 0, nxt, n)
    i1, nxt = _csr_lane_load(indptr, indices, data, buf, 1, nxt, n)
    i2, nxt = _csr_lane_load(indptr, indices, data, buf, 2, nxt, n)
    i3, nxt = _csr_lane_load(indptr, indices, data, buf, 3, nxt, n)
    i4, nxt = _csr_lane_load(indptr, indices, data, buf, 4, nxt, n)
    i5, nxt = _csr_lane_load(indptr, indices, data, buf, 5, nxt, n)
    i6, nxt = _csr_lane_load(indptr, indices, data, buf, 6, nxt, n)
    i7, nxt = _csr_lane_load(indptr, indices, data, buf, 7, nxt, n)
    while True:
        n0 = _axis_child(buf, z, cnodes, thr, k0)
        n1 = _axis_child(buf, np.uint64(1), cnodes, thr, k1)
        n2 = _axis_child(buf, np.uint64(2), cnodes, thr, k2)
        n3 = _axis_child(buf, np.uint64(3), cnodes, thr, k3)
        n4 = _axis_child(buf, np.uint64(4), cnodes, thr, k4)
        n5 = _axis_child(buf, np.uint64(5), cnodes, thr, k5)
        n6 = _axis_child(buf, np.uint64(6), cnodes, thr, k6)
        n7 = _axis_child(buf, np.uint64(7), cnodes, thr, k7)
        # an idle lane (no row left) sits at a leaf, so this test passes at every step near the end
        if ((n0 == k0) | (n1 == k1) | (n2 == k2) | (n3 == k3) | (n4 == k4) | (n5 == k5) | (n6 == k6)
                | (n7 == k7)):
            if n0 == k0:
                i0, n0, nxt = _csr_lane_done(indptr, indices, data, buf, 0, i0, k0, nxt, n, out)
            if n1 == k1:
                i1, n1, nxt = _csr_lane_done(indptr, indices, data, buf, 1, i1, k1, nxt, n, out)
            if n2 == k2:
                i2, n2, nxt = _csr_lane_done(indptr, indices, data, buf, 2, i2, k2, nxt, n, out)
            if n3 == k3:
                i3, n3, nxt = _csr_lane_done(indptr, indices, data, buf, 3, i3, k3, nxt, n, out)
            if n4 == k4:
                i4, n4, nxt = _csr_lane_done(indptr, indices, data, buf, 4, i4, k4, nxt, n, out)
            if n5 == k5:
                i5, n5, nxt = _csr_lane_done(indptr, indices, data, buf, 5, i5, k5, nxt, n, out)
            if n6 == k6:
                i6, n6, nxt = _csr_lane_done(indptr, indices, data, buf, 6, i6, k6, nxt, n, out)
            if n7 == k7:
                i7, n7, nxt = _csr_lane_done(indptr, indices, data, buf, 7, i7, k7, nxt, n, out)
            if (i0 < 0) & (i1 < 0) & (i2 < 0) & (i3 < 0) & (i4 < 0) & (i5 < 0) & (i6 < 0) & (i7 < 0):
                return
        k0, k1, k2, k3, k4, k5, k6, k7 = n0, n1, n2, n3, n4, n5, n6, n7


@njit(inline="always")
def _walk_preorder(X, i, ci, thr):
    """:func:`_walk_by_branch` for a tree numbered in preorder, where every left child is ``k + 1``.

    The next node on the left is known before the node's fields are read,
    so along a predicted path the processor issues the loads of many nodes
    ahead; a right child still comes from the node.  Same decisions as
    :func:`_axis_child`, so the same leaves.
    """
    k = np.uint64(0)
    while True:
        b = np.uint64(4) * k
        if np.uint64(ci[b + np.uint64(2)]) == k:  # a leaf points to itself (a branch, predicted: not a leaf)
            return k
        v = X[i, np.uint64(ci[b])]
        rt = ci[b + np.uint64(3)]
        if v <= thr[b + np.uint64(1)] or ((v != v) and rt < 0):
            k += np.uint64(1)
        else:
            k = np.uint64(abs(rt))


@njit
def apply_csr_preorder(indptr, indices, data, cnodes, buf, out):
    """:func:`apply_csr` for a tree numbered in preorder (:func:`is_preorder`), one row at a time by branches.

    Each row is scattered into ``buf[0]``, walked by :func:`_walk_preorder`
    and cleared.  On sparse rows most splits send a row to the side of its
    zeros, so the branches are predicted well; with the next left node known
    ahead, this walk took 0.48 of the time of :func:`apply_csr`'s eight
    lanes on 20000 x 2000 rows at 1 % density (docs/benchmarks/engine.md).
    Every row reaches the leaf its dense row reaches.
    """
    thr = cnodes.view(np.float32)
    z = np.uint64(0)
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            buf[0, indices[p]] += data[p]
        out[i] = _walk_preorder(buf, z, cnodes, thr)
        for p in range(indptr[i], indptr[i + 1]):
            buf[0, indices[p]] = 0.0


def is_preorder(cnodes):
    """Whether the compact table ``cnodes`` numbers its nodes in preorder: every left child follows its parent.

    Trees grown depth first are (forestzoo's and scikit-learn's); best-first
    trees (``max_leaf_nodes``) are not.
    """
    c = cnodes.reshape(-1, 4)
    k = np.arange(c.shape[0], dtype=np.int64)
    left = c[:, 2]
    return bool(np.all((left == k) | (left == k + 1)))


def csr_walker(tree):
    """The compiled walk of sparse rows for ``tree``: :func:`apply_csr_preorder` or :func:`apply_csr`.

    Both take the same arguments.
    """
    return apply_csr_preorder if tree.preorder else apply_csr


@njit
def add_leaf_values(leaves, values, out):
    """``out[i] += values[leaves[i]]`` for every row ``i``."""
    n_values = values.shape[1]
    for i in range(leaves.shape[0]):
        leaf = leaves[i]
        for c in range(n_values):
            out[i, c] += values[leaf, c]


@njit
def add_leaf_rows(leaves, leaf_values, leaf_row, out):
    """:func:`add_leaf_values` for a :class:`LeafValueTree`.

    A leaf adds its row ``leaf_values[leaf_row[leaf]]``, or, when
    ``leaf_row[leaf] = -2 - c`` (a pure leaf), 1.0 to class ``c``: the sums
    are bit-identical to adding the one-hot row, whose zeros change nothing.
    """
    n_values = leaf_values.shape[1]
    for i in range(leaves.shape[0]):
        r = leaf_row[leaves[i]]
        if r < 0:
            out[i, -2 - r] += 1.0
            continue
        for c in range(n_values):
            out[i, c] += leaf_values[r, c]


@njit
def accumulate_compact(X, cnodes, nodes, values, obl_ptr, obl_feature, obl_weight, leaves, out):
    """Add ``values[leaf(x)]`` of one tree to ``out`` for every row ``x``.

    ``leaves`` is scratch of ``X.shape[0]`` integers.
    """
    apply_compact(X, cnodes, nodes, obl_ptr, obl_feature, obl_weight, leaves)
    add_leaf_values(leaves, values, out)


@njit
def accumulate_compact_leaves(X, cnodes, nodes, leaf_values, leaf_row, obl_ptr, obl_feature, obl_weight, leaves,
                              out):
    """:func:`accumulate_compact` for a :class:`LeafValueTree` (see :func:`add_leaf_rows`)."""
    apply_compact(X, cnodes, nodes, obl_ptr, obl_feature, obl_weight, leaves)
    add_leaf_rows(leaves, leaf_values, leaf_row, out)


@njit
def apply_by_branch(X, cnodes, out):
    """:func:`apply_compact` for an axis-aligned tree, one row at a time by branches (:func:`_walk_by_branch`).

    A function of its own, called where :func:`walk_by_branch` says so:
    the eight-row walk's compiled code stays as it is.
    """
    thr = cnodes.view(np.float32)
    for i in range(np.uint64(X.shape[0])):
        out[i] = _walk_by_branch(X, i, cnodes, thr)


@njit
def apply_by_branch_preorder(X, cnodes, out):
    """:func:`apply_by_branch` for a tree numbered in preorder (:func:`is_preorder`), by :func:`_walk_preorder`.

    Stepping left without reading the node, the walk has the loads of the
    next nodes in flight sooner; same leaves.
    """
    thr = cnodes.view(np.float32)
    for i in range(np.uint64(X.shape[0])):
        out[i] = _walk_preorder(X, i, cnodes, thr)


def branch_walker(tree):
    """The walk by branches for ``tree``: :func:`apply_by_branch_preorder` or :func:`apply_by_branch`.

    Both take the same arguments.
    """
    return apply_by_branch_preorder if tree.preorder else apply_by_branch


#: :func:`walk_by_branch`'s bounds: rows of at least this many features, in a block of at least this many bytes
BRANCH_MIN_FEATURES = 160
BRANCH_MIN_BYTES = 14 << 20


def walk_by_branch(tree, X):
    """Whether ``tree`` should walk the rows ``X`` by branches (:func:`apply_by_branch`), not eight at a time.

    The eight-row walk waits for every load of ``X``; a walk by branches
    runs ahead along the predicted path and has several loads in flight.
    Which wins depends on where ``X`` is.  Measured on a 2-core AMD EPYC
    with 32 MB of L3 cache (CPU time of walks that reach the same leaves,
    fully grown Random Forest trees, ``benchmarks/predict_walks.py``): on
    rows of 160 features and more, blocks of 12 MB and less stayed in cache
    and the eight-row walk was faster (1.7-1.9x on numeric data, 0.9-1.07
    on mostly-zero data), while blocks of 16 MB and more did not, and a walk
    by branches took 0.48-0.87 of the eight-row walk's time on numeric data
    (1.00 at 1,000 features on a regression forest) and 0.39-0.5 on
    mostly-zero data, whose trees are long chains of predictable splits.  On
    rows of 100 features and fewer the eight-row walk was faster (1.3-2.7x,
    up to 500,000 rows of 50 features), but for 200,000 rows of 100 features
    (0.8) and 40,000 rows of 128 features (0.85), which the bounds leave to
    the eight-row walk.
    """
    return tree.obl_ptr.shape[0] <= 1 and X.shape[1] >= BRANCH_MIN_FEATURES and X.nbytes >= BRANCH_MIN_BYTES


#: :func:`walk_in_lanes`'s bounds: the deepest of eight paths at least this many times the mean path (both
#: counting the step that finds the leaf), in a compact table of at most this many bytes
LANES_MIN_SPREAD = 1.25
LANES_MAX_BYTES = 512 << 10


def path_spread(tree):
    """Expected longest of eight paths over the expected path, for rows distributed as the training rows.

    A path of a row reaching a leaf of depth ``d`` takes ``d + 1`` steps of
    the walk.  Leaves are weighted by their training weight; a tree that
    does not keep it (:class:`PredictionTree`) weighs its leaves equally.
    """
    if isinstance(tree, PredictionTree):  # no node records: depths from the compact table, leaves weighed equally
        depth = _leaf_depths(tree.cnodes)
        w = np.ones(depth.shape[0])
    else:
        nodes = tree.nodes
        leaf = nodes["left"] == TREE_LEAF
        depth = nodes["depth"][leaf].astype(np.int64)
        w = nodes["weighted_n_samples"][leaf]
        if not (np.all(np.isfinite(w)) and w.sum() > 0):
            w = np.ones(depth.shape[0])
    p = np.bincount(depth, weights=w) / w.sum()
    below = np.cumsum(p)[:-1]  # P(depth < d) for d = 1 .. max
    longest = np.sum(1.0 - below ** 8)  # E[max of 8 depths] = sum over d >= 1 of P(max >= d)
    return float((longest + 1.0) / (np.dot(p, np.arange(p.shape[0])) + 1.0))


def _leaf_depths(cnodes):
    """Depths of the leaves of the compact table ``cnodes``, level by level (no compiled code to load)."""
    c = cnodes.reshape(-1, 4)
    k = np.arange(c.shape[0])
    leaf = c[:, 2] == k  # a leaf points to itself
    out = []
    level = np.zeros(1, dtype=np.int64)
    d = 0
    while level.size:
        is_leaf = leaf[level]
        out.append(np.full(int(is_leaf.sum()), d, dtype=np.int64))
        inner = level[~is_leaf]
        level = np.concatenate([c[inner, 2], np.abs(c[inner, 3])]).astype(np.int64)
        d += 1
    return np.concatenate(out)


def walk_in_lanes(tree):
    """Whether ``tree`` should walk dense rows in refilling lanes (:func:`apply_lanes`), not eight together.

    Measured on a 2-core Intel Xeon (one thread's CPU time of both walks
    over the same trees and 100,000 rows, ``benchmarks/predict_lanes.py``):
    fully grown Random Forest and Extra Trees classifiers and small fully
    grown regressors, path spreads (:func:`path_spread`) of 1.28-1.39 and
    tables of 16-400 KB, took 0.90-0.97 of the eight-row walk's time in
    lanes; regressors of spread 1.21-1.26 took 1.01-1.07 (a 1.5 MB table
    among them), and trees of depth 6 (spread 1.0) 1.30.  Axis-aligned
    trees only.  Derived once per tree (cached with the compact table).
    """
    lanes = tree.__dict__.get("_lanes")
    if lanes is None:
        lanes = bool(tree.obl_ptr.shape[0] <= 1 and tree.compact.nbytes <= LANES_MAX_BYTES
                     and path_spread(tree) >= LANES_MIN_SPREAD)
        tree.__dict__["_lanes"] = lanes
    return lanes


@njit
def _internal_values(left, right, weight, values):
    """Fill the rows of internal nodes from their children, leaves up (children follow their parents).

    A node's value is the weighted mean of its children's: class proportions
    and means are ratios of sums over the node's rows, and the children
    partition those rows, so this gives the grower's own value up to rounding.
    """
    for k in range(left.shape[0] - 1, -1, -1):
        a = left[k]
        if a == TREE_LEAF:
            continue
        b = right[k]
        wa, wb = weight[a], weight[b]
        total = wa + wb
        for c in range(values.shape[1]):
            if total > 0:
                values[k, c] = (wa * values[a, c] + wb * values[b, c]) / total
            else:
                values[k, c] = 0.5 * (values[a, c] + values[b, c])


@njit
def _oblique_side(X, i, j, missing_left, threshold, obl_ptr, obl_feature, obl_weight):
    """True when row ``i`` goes left at an oblique node (side-array row ``j``)."""
    s = 0.0
    for q in range(obl_ptr[j], obl_ptr[j + 1]):
        xv = X[i, obl_feature[q]]
        if np.isnan(xv):
            return missing_left == 1
        s += obl_weight[q] * xv
    return s <= threshold


@njit(inline="always")
def _step(X, i, nodes, k, obl_ptr, obl_feature, obl_weight):
    """Child of internal node ``k`` that row ``i`` of ``X`` goes to.

    Node and feature indices are handled as unsigned integers: numba then
    omits the negative-index wraparound test on every access, which measured
    20% of the traversal time.
    """
    nd = nodes[k]
    f = nd.feature
    if f >= 0:
        v = X[i, np.uint64(f)]
        if v <= nd.threshold or (v != v and nd.missing_left == 1):
            return np.uint64(nd.left)
        return np.uint64(nd.right)
    if _oblique_side(X, i, nd.oblique, nd.missing_left, nd.threshold, obl_ptr, obl_feature, obl_weight):
        return np.uint64(nd.left)
    return np.uint64(nd.right)


@njit(inline="always")
def _leaf_of(X, i, nodes, obl_ptr, obl_feature, obl_weight):
    """Row index of the leaf that row ``i`` of ``X`` reaches."""
    k = np.uint64(0)
    while nodes[k].left != TREE_LEAF:
        k = _step(X, i, nodes, k, obl_ptr, obl_feature, obl_weight)
    return k


@njit
def accumulate_tree(X, nodes, values, obl_ptr, obl_feature, obl_weight, out):
    """Add ``values[leaf(x)]`` of one tree to ``out`` for every row ``x``."""
    n_values = values.shape[1]
    for i in range(X.shape[0]):
        leaf = _leaf_of(X, i, nodes, obl_ptr, obl_feature, obl_weight)
        for c in range(n_values):
            out[i, c] += values[leaf, c]


@njit
def path_lengths(X, nodes, obl_ptr, obl_feature, obl_weight, lengths):
    """Number of nodes on the root-to-leaf path of every row."""
    for i in range(X.shape[0]):
        k = np.uint64(0)
        count = 1
        while nodes[k].left != TREE_LEAF:
            k = _step(X, i, nodes, k, obl_ptr, obl_feature, obl_weight)
            count += 1
        lengths[i] = count


@njit
def fill_paths(X, nodes, obl_ptr, obl_feature, obl_weight, indptr, indices):
    """CSR column indices of the nodes every row visits (``indptr`` given)."""
    for i in range(X.shape[0]):
        k = np.uint64(0)
        p = indptr[i]
        indices[p] = 0
        p += 1
        while nodes[k].left != TREE_LEAF:
            k = _step(X, i, nodes, k, obl_ptr, obl_feature, obl_weight)
            indices[p] = k
            p += 1


#: float32 values per dense block of a sparse ``X`` (4 MiB): see :func:`dense_row_blocks`.
BLOCK_VALUES = 2**20


def dense_row_blocks(X, start=0, stop=None):
    """Yield ``(a, b, block)``: consecutive row ranges ``a:b`` covering ``start:stop`` and their dense rows.

    A numpy ``X`` is one block, the view ``X[start:stop]``.  A scipy sparse
    matrix or array (any format) is read as float32 CSR and densified
    ``max(1, BLOCK_VALUES // n_features)`` rows at a time into float32
    C-contiguous arrays (absent entries 0, stored NaN kept), the layout the
    walkers read.  An empty range yields one empty block.
    """
    stop = X.shape[0] if stop is None else stop
    if not sp.issparse(X):
        yield start, stop, X[start:stop]
        return
    X = X.tocsr()
    if X.dtype != np.float32:
        X = X.astype(np.float32)
    step = max(1, BLOCK_VALUES // max(X.shape[1], 1))
    a = start
    while True:
        b = min(stop, a + step)
        yield a, b, np.ascontiguousarray(X[a:b].toarray())
        a = b
        if a >= stop:
            return


def csr_arrays(X):
    """The CSR arrays ``(indptr, indices, data)`` of a scipy sparse ``X`` as :func:`apply_csr` reads them.

    int64 row pointers, int32 column indices and float32 values; arrays
    that already have these types are shared, not copied.
    """
    X = X.tocsr()
    return (X.indptr.astype(np.int64, copy=False), X.indices.astype(np.int32, copy=False),
            X.data.astype(np.float32, copy=False))


def walks_csr(trees):
    """Whether every tree of ``trees`` is axis-aligned, so that :func:`apply_csr` can walk sparse rows."""
    return all(t.obl_ptr.shape[0] <= 1 for t in trees)


def _walker_input(X, method):
    """Raise a TypeError unless ``X`` is a numpy array or a scipy sparse matrix or array."""
    if not (isinstance(X, np.ndarray) or sp.issparse(X)):
        raise TypeError(f"Tree.{method} takes a 2-D float32 numpy array or a scipy sparse matrix or array, "
                        f"not {type(X).__name__}; estimators' {method} accept any array-like.")


def _native(a):
    """``a`` in the machine's byte order (a copy only when it is not)."""
    if isinstance(a, np.ndarray) and not a.dtype.isnative:
        return a.astype(a.dtype.newbyteorder("="))
    return a


class Tree:
    """A fitted tree: node array, value array and oblique side arrays.

    Plain numpy arrays only, so a tree pickles, travels to Dask workers and
    can be saved without pickle.  Estimators expose it as ``tree_``.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
    values : ndarray of shape (n_nodes, n_values)
    n_features : int
    obl_ptr, obl_feature, obl_weight : ndarray, optional
        Oblique side arrays (CSR); empty for axis-aligned trees.
    """

    #: Multi-output trees: the number of classes of every output (1 per output for regression), an intp
    #: array; ``values`` then has ``n_outputs * max_n_classes`` columns, output ``o``'s classes at
    #: ``o * max_n_classes + k`` (zero-padded).  None for a single-output tree.
    output_classes = None

    def __init__(self, nodes, values, n_features, obl_ptr=None, obl_feature=None, obl_weight=None):
        self.nodes = nodes
        self.values = values
        self.n_features = int(n_features)
        self.obl_ptr = np.zeros(1, np.int64) if obl_ptr is None else obl_ptr
        self.obl_feature = np.zeros(0, np.int32) if obl_feature is None else obl_feature
        self.obl_weight = np.zeros(0, np.float64) if obl_weight is None else obl_weight

    # -- structure -----------------------------------------------------
    @property
    def n_values(self):
        """Columns of ``values``: classes, or 1 for regression."""
        return int(self.values.shape[1])

    @property
    def node_count(self):
        return int(self.nodes.shape[0])

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.nodes["left"] == TREE_LEAF))

    @property
    def max_depth(self):
        return int(self.nodes["depth"].max()) if self.node_count else 0

    def _side(self):
        return self.obl_ptr, self.obl_feature, self.obl_weight

    @property
    def walk_nodes(self):
        """The node records the compiled walk reads (only oblique nodes' thresholds; see :func:`_child`)."""
        return self.nodes

    # -- scikit-learn's ``Tree`` attribute names ---------------------------
    # Read-only views under the names scikit-learn's ``tree_`` uses, so that
    # code written for it (``sklearn.tree.export_graphviz``, tree walkers,
    # plotting helpers) reads forestzoo trees.  Leaves have feature and
    # threshold -2 (scikit-learn's TREE_UNDEFINED); an oblique node, which
    # has no single feature, has feature -1.
    @property
    def children_left(self):
        return self.nodes["left"].astype(np.intp)

    @property
    def children_right(self):
        return self.nodes["right"].astype(np.intp)

    @property
    def feature(self):
        f = self.nodes["feature"].astype(np.intp)
        f[self.nodes["left"] == TREE_LEAF] = -2
        return f

    @property
    def threshold(self):
        t = self.nodes["threshold"].copy()
        t[self.nodes["left"] == TREE_LEAF] = -2.0
        return t

    @property
    def impurity(self):
        return self.nodes["impurity"].copy()

    @property
    def n_node_samples(self):
        return self.nodes["n_samples"].astype(np.intp)

    @property
    def weighted_n_node_samples(self):
        return self.nodes["weighted_n_samples"].copy()

    @property
    def missing_go_to_left(self):
        return self.nodes["missing_left"].copy()

    @property
    def value(self):
        """``values`` as ``(n_nodes, n_outputs, max_n_classes)``: class proportions, or the means."""
        if self.output_classes is None:
            return self.values[:, None, :]
        return self.values.reshape(self.values.shape[0], self.n_outputs, -1)

    @property
    def n_outputs(self):
        return 1 if self.output_classes is None else int(self.output_classes.shape[0])

    @property
    def n_classes(self):
        if self.output_classes is None:
            return np.array([self.n_values], dtype=np.intp)
        return self.output_classes.astype(np.intp)

    @property
    def max_n_classes(self):
        return self.n_values // self.n_outputs

    @property
    def capacity(self):
        return self.node_count

    def compute_node_depths(self):
        """Depth of every node, the root at 1 (scikit-learn's convention)."""
        return self.nodes["depth"].astype(np.int64) + 1

    @property
    def compact(self):
        """The 16-byte prediction layout of ``nodes`` as int32 ``(n_nodes, 4)`` (derived once, not pickled).

        Code that edits ``nodes`` in place must call :meth:`invalidate` afterwards.
        """
        c = self.__dict__.get("_compact")
        if c is None or c.shape[0] != 4 * self.nodes.shape[0]:
            c = compact_table(self.nodes)
            self.__dict__["_compact"] = c
            self.__dict__.pop("_preorder", None)
            self.__dict__.pop("_lanes", None)
        return c

    @property
    def preorder(self):
        """Whether the nodes are numbered in preorder (:func:`is_preorder`), derived with the compact table."""
        c = self.compact
        p = self.__dict__.get("_preorder")
        if p is None:
            p = self.__dict__["_preorder"] = is_preorder(c)
        return p

    def invalidate(self):
        """Forget derived arrays after an in-place edit of ``nodes``."""
        self.__dict__.pop("_compact", None)
        self.__dict__.pop("_preorder", None)
        self.__dict__.pop("_lanes", None)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_compact", None)
        state.pop("_preorder", None)
        state.pop("_lanes", None)
        return state

    def __setstate__(self, state):
        # A pickle written on a machine of the other byte order holds non-native arrays, which the
        # compiled kernels cannot read: convert them once, here.
        self.__dict__.update({k: _native(v) for k, v in state.items()})

    # -- prediction (X: float32, C-contiguous, validated by the caller; or scipy sparse) --
    def apply(self, X):
        """Leaf index of every row of ``X`` (a sparse ``X`` is walked in dense row blocks)."""
        if not isinstance(X, np.ndarray):
            _walker_input(X, "apply")
            if walks_csr([self]):
                out = np.empty(X.shape[0], dtype=np.intp)
                csr_walker(self)(*csr_arrays(X), self.compact, np.zeros((8, X.shape[1]), np.float32), out)
                return out
            return np.concatenate([self.apply(block) for _, _, block in dense_row_blocks(X)])
        out = np.empty(X.shape[0], dtype=np.intp)
        if walk_by_branch(self, X):
            branch_walker(self)(X, self.compact, out)
        elif walk_in_lanes(self):
            apply_lanes(X, self.compact, out)
        else:
            apply_compact(X, self.compact, self.walk_nodes, *self._side(), out)
        return out

    def predict(self, X):
        """``values`` of the leaf each row reaches, shape (n_samples, n_values)."""
        return self.values[self.apply(X)]

    def decision_path(self, X):
        """Sparse CSR indicator (n_samples, n_nodes) of the nodes each row visits."""
        from scipy.sparse import csr_matrix

        if not isinstance(X, np.ndarray):
            _walker_input(X, "decision_path")
            parts = [self.decision_path(block) for _, _, block in dense_row_blocks(X)]
            return parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")
        lengths = np.empty(X.shape[0], dtype=np.int64)
        path_lengths(X, self.nodes, *self._side(), lengths)
        indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=np.int64)
        fill_paths(X, self.nodes, *self._side(), indptr, indices)
        data = np.ones(indices.shape[0], dtype=np.int8)
        return csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def compute_feature_importances(self, normalize=True):
        """Mean decrease in impurity (MDI) per feature.

        Oblique nodes share their improvement among their features in
        proportion to ``|weight|``.
        """
        imp = np.zeros(self.n_features, dtype=np.float64)
        nodes = self.nodes
        internal = nodes["left"] != TREE_LEAF
        axis = internal & (nodes["oblique"] < 0)
        np.add.at(imp, nodes["feature"][axis], nodes["improvement"][axis])
        for k in np.flatnonzero(internal & (nodes["oblique"] >= 0)):
            j = nodes["oblique"][k]
            sl = slice(self.obl_ptr[j], self.obl_ptr[j + 1])
            aw = np.abs(self.obl_weight[sl])
            if aw.sum() > 0:
                np.add.at(imp, self.obl_feature[sl], nodes["improvement"][k] * aw / aw.sum())
        root_w = nodes["weighted_n_samples"][0] if self.node_count else 1.0
        imp /= root_w
        if normalize:
            total = imp.sum()
            if total > 0:
                imp /= total
        return imp


class LeafValueTree(Tree):
    """A :class:`Tree` that stores value rows for its impure leaves only.

    Prediction reads only the leaves' values, and a fully grown binary tree
    has as many internal nodes as leaves (minus one), so half of the value
    rows, the largest part of a many-class tree (26 float64 classes: 208 of
    a node's 288 bytes), are never read.  Most leaves of a fully grown
    classification tree are pure, and their row is one-hot: such a leaf
    needs only its class.  This tree keeps ``leaf_values`` (one row per
    leaf that is not one-hot) and ``leaf_row`` per node: the leaf's row in
    ``leaf_values``, ``-2 - c`` for a pure leaf of class ``c`` (classification
    only), -1 for internal nodes.  Predictions are bit-identical to the full
    tree's.  ``values``
    is still available, rebuilt on each access from the leaves and the
    nodes' weights (the grower's values up to rounding), so inspection code
    works unchanged.  Only trees whose values are the grower's own may be
    converted (not edited trees, whose internal values need not be the
    children's weighted mean).

    Parameters
    ----------
    tree : Tree
        The full tree to convert (its arrays are shared, not copied, except
        the leaves' value rows).
    """

    def __init__(self, tree):  # not Tree.__init__: it assigns ``values``, a read-only property here
        self.nodes = tree.nodes
        self._take_leaves(tree)
        compact = tree.__dict__.get("_compact")  # the prediction layout depends on the nodes only: keep it
        if compact is not None:
            self.__dict__["_compact"] = compact

    def _take_leaves(self, tree):
        """Keep what this and :class:`PredictionTree` share of ``tree``: feature count, side arrays, leaf codes."""
        self.n_features = tree.n_features
        self.obl_ptr, self.obl_feature, self.obl_weight = tree.obl_ptr, tree.obl_feature, tree.obl_weight
        leaf = np.flatnonzero(tree.nodes["left"] == TREE_LEAF)
        rows = tree.values[leaf]
        n_values = rows.shape[1]
        if n_values >= 2:  # class proportions: a pure leaf's row is one-hot
            one_hot = ((rows == 1.0).sum(axis=1) == 1) & ((rows == 0.0).sum(axis=1) == n_values - 1)
        else:
            one_hot = np.zeros(leaf.shape[0], dtype=bool)
        leaf_row = np.full(tree.node_count, -1, dtype=np.int32)
        leaf_row[leaf[one_hot]] = -2 - np.argmax(rows[one_hot], axis=1).astype(np.int32)
        leaf_row[leaf[~one_hot]] = np.arange(int((~one_hot).sum()), dtype=np.int32)
        self.leaf_row, self.leaf_values = leaf_row, np.ascontiguousarray(rows[~one_hot])

    @property
    def n_values(self):
        return int(self.leaf_values.shape[1])

    @property
    def values(self):
        """``(n_nodes, n_values)``, rebuilt from the leaves on every access (not stored)."""
        out = self._leaf_rows(self.leaf_row)
        _internal_values(self.nodes["left"], self.nodes["right"], self.nodes["weighted_n_samples"], out)
        return out

    def _leaf_rows(self, codes):
        """Value rows of the ``leaf_row`` entries ``codes`` (zeros for internal nodes)."""
        out = np.zeros((codes.shape[0], self.n_values))
        dense = codes >= 0
        out[dense] = self.leaf_values[codes[dense]]
        pure = np.flatnonzero(codes <= -2)
        out[pure, -2 - codes[pure]] = 1.0
        return out

    def predict(self, X):
        """``values`` of the leaf each row reaches, shape (n_samples, n_values)."""
        return self._leaf_rows(self.leaf_row[self.apply(X)])


_NO_NODES = np.zeros(0, dtype=NODE_DTYPE)


@njit
def _depths(left, right, depth):
    """Depth of every node from the child links (children follow their parents)."""
    depth[0] = 0
    for k in range(left.shape[0]):
        if left[k] != TREE_LEAF:
            depth[left[k]] = depth[k] + 1
            depth[right[k]] = depth[k] + 1


class PredictionTree(LeafValueTree):
    """An axis-aligned :class:`LeafValueTree` that keeps only what prediction reads: 20 bytes a node.

    A fitted tree's 64-byte node records hold what inspection and
    refitting need (float64 thresholds, sample counts and weights,
    impurities, improvements, depths); prediction walks the 16-byte compact
    table alone (:func:`compact_table`), plus the 4-byte ``leaf_row`` of
    :class:`LeafValueTree`.  This tree stores only those two and the impure
    leaves' value rows: a fully grown 10-class tree takes about a quarter of
    a :class:`LeafValueTree`'s bytes.  Predictions are bit-identical (the
    compact table is what the walk already read).

    Meant for forests that are only predicted with once fitted, such as the
    fold forests of a cascade (:mod:`forestzoo.deep`).  What it cannot
    give back, it says so:

    * ``nodes`` is rebuilt on access from the compact table: the structure
      (children, features, NaN directions, depths) is exact; ``threshold``
      is the float32 threshold the walk compares float32 inputs with (same
      decisions; the float64 midpoint is not kept); ``n_samples`` is -1 and
      ``weighted_n_samples``, ``impurity`` and ``improvement`` are NaN;
    * ``values`` has the leaves' rows and NaN rows for internal nodes;
    * :meth:`compute_feature_importances` raises ``ValueError``.

    Parameters
    ----------
    tree : Tree
        A full, axis-aligned tree (no oblique node) with the grower's values.
    """

    def __init__(self, tree):  # not Tree.__init__: ``nodes`` and ``values`` are read-only properties here
        if tree.obl_ptr.shape[0] > 1:
            raise ValueError("PredictionTree holds axis-aligned trees only; this tree has oblique nodes.")
        self._take_leaves(tree)
        self.cnodes = tree.compact  # stored (and pickled): it is the tree

    # -- structure, from the compact table --------------------------------
    @property
    def compact(self):
        return self.cnodes

    @property
    def walk_nodes(self):
        return _NO_NODES  # axis-aligned: the walk reads no node record

    @property
    def node_count(self):
        return int(self.cnodes.shape[0] // 4)

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.leaf_row != -1))  # every leaf has a row or a class code

    @property
    def nodes(self):
        """Records rebuilt from the compact table; statistics are not kept (see the class docstring)."""
        c = self.cnodes.reshape(-1, 4)
        n = c.shape[0]
        leaf = c[:, 2] == np.arange(n)  # a leaf points to itself; a child always follows its parent
        nodes = np.zeros(n, dtype=NODE_DTYPE)
        nodes["left"] = np.where(leaf, TREE_LEAF, c[:, 2])
        nodes["right"] = np.where(leaf, TREE_LEAF, np.abs(c[:, 3]))
        nodes["feature"] = np.where(leaf, -1, c[:, 0])
        nodes["oblique"] = -1
        nodes["threshold"] = np.where(leaf, 0.0, self.cnodes.view(np.float32).reshape(-1, 4)[:, 1])
        nodes["missing_left"] = (~leaf) & (c[:, 3] < 0)
        nodes["n_samples"] = -1
        for name in ("weighted_n_samples", "impurity", "improvement"):
            nodes[name] = np.nan
        depth = np.zeros(n, dtype=np.int32)
        if n:
            _depths(nodes["left"], nodes["right"], depth)
        nodes["depth"] = depth
        return nodes

    @property
    def values(self):
        """The leaves' rows; internal nodes' rows are NaN (their weights are not kept)."""
        out = self._leaf_rows(self.leaf_row)
        out[self.leaf_row == -1] = np.nan
        return out

    def compute_feature_importances(self, normalize=True):
        raise ValueError("This tree keeps only what prediction reads (a PredictionTree, e.g. a cascade's fold "
                         "forest): impurity decreases were not kept, so feature importances are not available.")
