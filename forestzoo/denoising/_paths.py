"""Traversal paths of fitted trees: indicator vectors, refined paths, multi-path estimates.

Works on the engine's fitted arrays (``Tree.nodes`` / ``Tree.values`` /
``Tree.decision_path``) of axis-aligned trees.  Depth-``k`` *units* of a tree
are the nodes a sample can stop at when the tree is cut at depth ``k``: the
nodes of depth ``k`` and the leaves shallower than ``k``.  At the tree's
leaf depth the units are its leaves.
"""

import numpy as np

from .._engine.api import TREE_LEAF


class TreeLayout:
    """Ancestors, units per depth and distance encodings of one fitted tree.

    Parameters
    ----------
    tree : forestzoo._engine.api.Tree
    depths : sequence of int
        The depths (>= 1) at which units and encodings are prepared.
    path_distance : {"nodes", "edges"}
        How the distance of Eq. (4) is counted, see :func:`distance_encoding`.
    """

    def __init__(self, tree, depths, path_distance="nodes"):
        nodes = tree.nodes
        if np.any(nodes["oblique"] >= 0):
            raise ValueError("Denoising forests need axis-aligned trees.")
        self.tree = tree
        self.left = nodes["left"].astype(np.intp)
        self.right = nodes["right"].astype(np.intp)
        self.feature = nodes["feature"].astype(np.intp)
        self.threshold = nodes["threshold"]
        self.missing_left = nodes["missing_left"].astype(bool)
        self.depth = nodes["depth"].astype(np.intp)
        self.internal = np.flatnonzero(self.left != TREE_LEAF)
        self.is_leaf = self.left == TREE_LEAF
        n = nodes.shape[0]
        self.max_depth = int(self.depth.max())
        dmax = self.max_depth
        parent = np.full(n, -1, dtype=np.intp)
        parent[self.left[self.internal]] = self.internal
        parent[self.right[self.internal]] = self.internal
        # anc[u, j]: ancestor of u at depth j (u itself at j = depth(u)), -1 below
        anc = np.full((n, dmax + 1), -1, dtype=np.intp)
        anc[0, 0] = 0
        for j in range(1, dmax + 1):
            at = np.flatnonzero(self.depth == j)
            anc[at] = anc[parent[at]]
            anc[at, j] = at
        self.anc = anc
        # went_left[u, j]: the path to u goes left at its ancestor of depth j
        went_left = np.zeros((n, max(dmax, 1)), dtype=bool)
        for j in range(dmax):
            deeper = self.depth > j
            a = anc[deeper, j]
            went_left[deeper, j] = anc[deeper, j + 1] == self.left[a]
        self.went_left = went_left
        self.units, self.unit_of, self.encoding = {}, {}, {}
        for k in depths:
            units = np.flatnonzero((self.depth == k) | (self.is_leaf & (self.depth < k)))
            unit_of = np.full(n, -1, dtype=np.intp)
            unit_of[units] = np.arange(units.shape[0])
            self.units[k] = units
            self.unit_of[k] = unit_of
            self.encoding[k] = distance_encoding(self.tree_distance(units), path_distance)

    def tree_distance(self, nodes_a, nodes_b=None):
        """Number of edges between every pair of nodes, shape (len(a), len(b))."""
        nodes_b = nodes_a if nodes_b is None else nodes_b
        A = self.anc[nodes_a][:, None, :]
        B = self.anc[nodes_b][None, :, :]
        # depth of the lowest common ancestor: the last depth where the ancestors agree
        common = np.cumprod((A == B) & (A >= 0), axis=2).sum(axis=2) - 1
        da = self.depth[nodes_a][:, None]
        db = self.depth[nodes_b][None, :]
        return da + db - 2 * common

    def paths(self, X):
        """Node at every depth ``0..max_depth`` of each row's path (the leaf repeated below it)."""
        P = self.tree.decision_path(X)
        lengths = np.diff(P.indptr)
        pos = P.indptr[:-1, None] + np.minimum(np.arange(self.max_depth + 1)[None, :], lengths[:, None] - 1)
        return P.indices[pos]  # node ids increase along a path, so CSR order is path order

    def goes_left(self, X, nodes):
        """Whether each row of ``X`` goes left at each of ``nodes``, bool (n, len(nodes))."""
        v = X[:, self.feature[nodes]]
        return (v <= self.threshold[nodes]) | (np.isnan(v) & self.missing_left[nodes])


def distance_encoding(dist, path_distance="nodes"):
    """Eq. (4), Hibino et al. (2017): 1 at the reached unit, ``(d / 2) ** -1`` elsewhere.

    ``dist[a, b]`` is the number of edges between units ``a`` and ``b``; row
    ``a`` is the encoding of a row that reached unit ``a``.  With
    ``path_distance="edges"``, ``d`` is that number, as printed: two siblings
    are 2 edges apart and a sibling of the reached leaf then also gets 1, so
    the vector does not say which of the two was reached.  With ``"nodes"``
    (the default), ``d`` counts the nodes of the path between the units
    (edges + 1): the sibling gets 2/3, a cousin 2/5, ..., and only the
    reached unit gets 1.
    """
    enc = np.ones(dist.shape, dtype=np.float64)
    off = dist > 0
    d = dist[off] + (1 if path_distance == "nodes" else 0)
    enc[off] = 2.0 / d
    return enc


def unit_indices(layouts, paths, k):
    """Unit of depth ``k`` reached by every row in every tree, int (n, n_trees)."""
    cols = [lay.unit_of[k][p[:, min(k, lay.max_depth)]] for lay, p in zip(layouts, paths)]
    return np.stack(cols, axis=1)


def encode(layouts, units, k, encoded=True):
    """Indicator vectors of depth ``k``: distance-encoded (``z~``) or binary (``z``).

    ``units`` is what :func:`unit_indices` returns; the blocks of the trees
    are concatenated in tree order.
    """
    blocks = []
    for j, lay in enumerate(layouts):
        if encoded:
            blocks.append(lay.encoding[k][units[:, j]])
        else:
            blocks.append(np.eye(lay.units[k].shape[0])[units[:, j]])
    return np.hstack(blocks)


def block_argmax(Z, layouts, k):
    """Binarise a refined indicator vector: the unit with the largest output in each tree."""
    out = np.empty((Z.shape[0], len(layouts)), dtype=np.intp)
    start = 0
    for j, lay in enumerate(layouts):
        width = lay.units[k].shape[0]
        out[:, j] = np.argmax(Z[:, start:start + width], axis=1)
        start += width
    return out


def suspected_nodes(layout, X, refined_nodes, out):
    """Mark (``out[i, a] = True``) the nodes where the refined path of row ``i`` and the row's own decision differ.

    ``refined_nodes[i]`` is the node the refined path of row ``i`` ends at;
    every ancestor ``a`` of it whose decision for ``x_i`` sends ``x_i`` away
    from that path is a suspected noisy decision (Section 3.3).
    """
    r = refined_nodes
    rows = np.arange(X.shape[0])
    for j in range(layout.max_depth):
        deeper = np.flatnonzero(layout.depth[r] > j)
        if deeper.size == 0:
            break
        a = layout.anc[r[deeper], j]
        own = _goes_left_rows(layout, X[deeper], a)
        out[rows[deeper], a] |= own != layout.went_left[r[deeper], j]
    return out


def _goes_left_rows(layout, X, nodes):
    """Whether row ``i`` of ``X`` goes left at node ``nodes[i]`` (one node per row)."""
    v = X[np.arange(X.shape[0]), layout.feature[nodes]]
    return (v <= layout.threshold[nodes]) | (np.isnan(v) & layout.missing_left[nodes])


def multipath_values(layout, X, suspected):
    """Eq. of Section 3.4: the tree's estimate summed over all paths through the suspected nodes.

    At a suspected node both children are followed with half of the weight,
    elsewhere the row's own decision is followed, so a path through ``k_p``
    suspected nodes ends at its leaf with weight ``w_p = 2 ** -k_p`` and the
    weights of a row sum to one.

    Parameters
    ----------
    layout : TreeLayout
    X : ndarray (n, n_features)
    suspected : ndarray of bool (n, n_nodes)

    Returns
    -------
    ndarray (n, n_values): ``sum_p w_p * values[leaf(p)]`` for every row.
    """
    n = X.shape[0]
    nodes = layout.internal
    go = layout.goes_left(X, nodes).astype(np.float64)
    w = np.zeros((n, layout.left.shape[0]))
    w[:, 0] = 1.0
    for c, k in enumerate(nodes):  # parents come before their children
        wl = np.where(suspected[:, k], 0.5, go[:, c])
        w[:, layout.left[k]] += w[:, k] * wl
        w[:, layout.right[k]] += w[:, k] * (1.0 - wl)
    leaves = np.flatnonzero(layout.is_leaf)
    return w[:, leaves] @ layout.tree.values[leaves]
