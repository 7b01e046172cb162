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
bytes instead of 64), derived on first use: traversal is bound by cache misses
on the node array, and four nodes per cache line instead of one keeps much
more of a deep tree in cache.  The compact threshold is float32, rounded
towards -inf, which sends every float32 input exactly where the float64
threshold does (``x <= t`` iff ``x <= t32`` for float32 ``x``).
"""

import numpy as np

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
        ("feature", np.int32),  # >= 0 axis feature; -1 leaf; <= -2 oblique node, side-array row -feature - 2
        ("threshold", np.float32),  # float32 rounded towards -inf (axis nodes); oblique nodes use the float64 one
        ("left", np.int32),  # left child; -1 for a leaf
        ("right", np.int32),  # right child r, stored as -r when NaN goes left (r >= 1 always)
    ]
)


def compact_nodes(nodes):
    """The 16-byte prediction layout of a :data:`NODE_DTYPE` array."""
    out = np.empty(nodes.shape[0], dtype=COMPACT_DTYPE)
    leaf = nodes["left"] == TREE_LEAF
    oblique = (nodes["oblique"] >= 0) & ~leaf
    out["feature"] = np.where(leaf, -1, np.where(oblique, -2 - nodes["oblique"], nodes["feature"]))
    thr = nodes["threshold"]
    t32 = thr.astype(np.float32)
    too_big = t32.astype(np.float64) > thr  # rounded up: step down to the next float32
    t32[too_big] = np.nextafter(t32[too_big], np.float32(-np.inf))
    out["threshold"] = np.where(leaf, np.float32(0), t32)
    out["left"] = nodes["left"]
    right = nodes["right"].astype(np.int32)
    out["right"] = np.where(~leaf & (nodes["missing_left"] == 1), -right, right)
    return out


@njit(inline="always")
def _compact_leaf(X, i, cnodes, nodes, obl_ptr, obl_feature, obl_weight):
    """Row of the leaf that row ``i`` of ``X`` reaches, walking the compact nodes."""
    k = np.uint64(0)
    while True:
        nd = cnodes[k]
        left = nd.left
        if left < 0:
            return k
        f = nd.feature
        r = nd.right
        if f >= 0:
            v = X[i, np.uint64(f)]
            if v <= nd.threshold:
                k = np.uint64(left)
            elif v != v and r < 0:
                k = np.uint64(left)
            else:
                k = np.uint64(r if r > 0 else -r)
        elif _oblique_side(X, i, -f - 2, 1 if r < 0 else 0, nodes[k].threshold, obl_ptr, obl_feature, obl_weight):
            k = np.uint64(left)
        else:
            k = np.uint64(r if r > 0 else -r)


@njit
def accumulate_compact(X, cnodes, nodes, values, obl_ptr, obl_feature, obl_weight, out):
    """Add ``values[leaf(x)]`` of one tree to ``out`` for every row ``x`` (compact nodes)."""
    n_values = values.shape[1]
    for i in range(X.shape[0]):
        leaf = _compact_leaf(X, i, cnodes, nodes, obl_ptr, obl_feature, obl_weight)
        for c in range(n_values):
            out[i, c] += values[leaf, c]


@njit
def apply_compact(X, cnodes, nodes, obl_ptr, obl_feature, obl_weight, out):
    """Leaf reached by every row of ``X`` (compact nodes)."""
    for i in range(X.shape[0]):
        out[i] = _compact_leaf(X, i, cnodes, nodes, obl_ptr, obl_feature, obl_weight)


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
def apply_tree(X, nodes, obl_ptr, obl_feature, obl_weight, out):
    """Write the leaf reached by every row of ``X`` into ``out`` (int)."""
    for i in range(X.shape[0]):
        out[i] = _leaf_of(X, i, nodes, obl_ptr, obl_feature, obl_weight)


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

    def __init__(self, nodes, values, n_features, obl_ptr=None, obl_feature=None, obl_weight=None):
        self.nodes = nodes
        self.values = values
        self.n_features = int(n_features)
        self.obl_ptr = np.zeros(1, np.int64) if obl_ptr is None else obl_ptr
        self.obl_feature = np.zeros(0, np.int32) if obl_feature is None else obl_feature
        self.obl_weight = np.zeros(0, np.float64) if obl_weight is None else obl_weight

    # -- structure -----------------------------------------------------
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
    def compact(self):
        """The 16-byte prediction layout of ``nodes`` (derived once, not pickled).

        Code that edits ``nodes`` in place must call :meth:`invalidate` afterwards.
        """
        c = self.__dict__.get("_compact")
        if c is None or c.shape[0] != self.nodes.shape[0]:
            c = compact_nodes(self.nodes)
            self.__dict__["_compact"] = c
        return c

    def invalidate(self):
        """Forget derived arrays after an in-place edit of ``nodes``."""
        self.__dict__.pop("_compact", None)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_compact", None)
        return state

    # -- prediction (X: float32, C-contiguous, validated by the caller) --
    def apply(self, X):
        """Leaf index of every row of ``X``."""
        out = np.empty(X.shape[0], dtype=np.intp)
        apply_compact(X, self.compact, self.nodes, *self._side(), out)
        return out

    def predict(self, X):
        """``values`` of the leaf each row reaches, shape (n_samples, n_values)."""
        out = np.zeros((X.shape[0], self.values.shape[1]), dtype=np.float64)
        accumulate_compact(X, self.compact, self.nodes, self.values, *self._side(), out)
        return out

    def decision_path(self, X):
        """Sparse CSR indicator (n_samples, n_nodes) of the nodes each row visits."""
        from scipy.sparse import csr_matrix

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
