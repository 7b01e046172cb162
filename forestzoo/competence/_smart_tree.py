"""Smart trees: the MDL stopping rule of Donskoy (2016), applied to engine trees.

A branch of a smart tree keeps growing only while the split it would add
reduces the number of training errors of the branch by at least
``C_p / C_E``; a pure branch ends in a class leaf, and a branch stopped by the
rule ends in an *incompetence* leaf that hands the object to the next tree.

How the rule is applied
-----------------------
The engine grows the tree in full (the best split at every node, no stopping
rule), and :func:`mdl_prune` then walks it from the root: a node whose best
split fails the test becomes an incompetence leaf and its descendants are
dropped.  This gives the tree that stopping during growth would give, because
the test at a node reads only that node's own statistics (its class counts,
its size ``l_t``) and the class counts of its best split's two children, and
the best split of a node depends only on the rows that reach it: whether the
node's ancestors were tested first does not change any of these.  The one
limit is tie-breaking: the engine visits features in a random order drawn
from a per-tree stream, so when two splits are *exactly* equally good the one
kept may differ from the one a growth-time rule would keep (the stream is
consumed by nodes that the rule would never have grown).  With ``splitter=
"random"`` the thresholds themselves come from that stream, and the
equivalence holds only in distribution.
"""

import numpy as np

from .._engine.api import NODE_DTYPE, TREE_LEAF, Tree
from .._jit import njit

#: Slack on the comparisons of weighted error counts, which are sums of floats.
_EPS = 1e-9


def node_errors(tree):
    """Training errors ``q`` of every node labelled with its majority class.

    ``values`` holds the weighted class proportions of a node, so the weight
    of the rows outside the majority class is ``n_w * (1 - max proportion)``.
    """
    return tree.nodes["weighted_n_samples"] * (1.0 - tree.values.max(axis=1))


def mdl_threshold(gamma, n_features, l_t, d=1):
    """``C_p / C_E = gamma * d * log2(n) / log2(l_t)``, Section 4 of Donskoy (2016).

    ``n`` is the dimension of the feature space, ``d`` the number of features
    one splitting predicate reads (1 for axis-aligned splits) and ``l_t`` the
    number of training rows the branch classifies.  A branch with
    ``l_t <= 1`` cannot be split and gets an infinite threshold.  Note that
    with a single feature ``log2(n) = 0`` and every error-reducing (or
    error-neutral) split passes.
    """
    l_t = np.asarray(l_t, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_l = np.log2(np.maximum(l_t, 1.0))
    out = np.full(l_t.shape, np.inf)
    ok = log_l > 0
    out[ok] = gamma * d * np.log2(n_features) / log_l[ok]
    return out


@njit
def _keep_nodes(left, right, passes):
    """Nodes reachable from the root through nodes whose split passes the test."""
    n = left.shape[0]
    kept = np.zeros(n, np.bool_)
    split = np.zeros(n, np.bool_)
    if n == 0:
        return kept, split
    kept[0] = True
    # children always come after their parent, so one forward pass suffices
    for k in range(n):
        if kept[k] and left[k] != TREE_LEAF and passes[k]:
            split[k] = True
            kept[left[k]] = True
            kept[right[k]] = True
    return kept, split


def mdl_prune(tree, gamma, n_features, d=1):
    """Apply the MDL rule top-down to a fully grown tree.

    Parameters
    ----------
    tree : forestzoo._engine.api.Tree
        A classification tree grown without a stopping rule.
    gamma : float > 0
    n_features : int
        Dimension ``n`` of the feature space.
    d : int, default=1
        Features read by one splitting predicate.

    Returns
    -------
    pruned : Tree
        The smart tree; node ``0`` is the root, children after parents.
    incompetent : ndarray of bool, shape (pruned.node_count,)
        True at incompetence leaves (the pointer to the next tree).
    """
    nodes = tree.nodes
    q = node_errors(tree)
    left = nodes["left"]
    right = nodes["right"]
    internal = left != TREE_LEAF
    # Eq. (5)-(6), Donskoy (2016): continue while Delta q = q_t - q_{t+1} >= C_p / C_E,
    # with q_{t+1} = q(Omega_L) + q(Omega_R) the errors after the split.
    delta_q = np.zeros(q.shape)
    delta_q[internal] = q[internal] - q[left[internal]] - q[right[internal]]
    thr = mdl_threshold(gamma, n_features, nodes["weighted_n_samples"], d)
    # rule 1: a pure branch (q_t = 0) ends in a class leaf, it is never split
    pure = q <= _EPS * np.maximum(nodes["weighted_n_samples"], 1.0)
    passes = internal & ~pure & (delta_q >= thr - _EPS)
    kept, split = _keep_nodes(left, right, passes)

    new_index = np.cumsum(kept) - 1
    old = np.flatnonzero(kept)
    out = np.zeros(old.shape[0], dtype=NODE_DTYPE)
    out[:] = nodes[old]
    is_split = split[old]
    out["left"] = np.where(is_split, new_index[np.maximum(left[old], 0)], TREE_LEAF)
    out["right"] = np.where(is_split, new_index[np.maximum(right[old], 0)], TREE_LEAF)
    out["feature"] = np.where(is_split, out["feature"], -1)
    out["threshold"] = np.where(is_split, out["threshold"], 0.0)
    out["improvement"] = np.where(is_split, out["improvement"], 0.0)
    pruned = Tree(out, tree.values[old].copy(), tree.n_features)
    # rule 2: a leaf that is not pure was stopped by the test (or could not be
    # split at all): it is an area of incompetence
    incompetent = ~is_split & ~pure[old]
    return pruned, incompetent
