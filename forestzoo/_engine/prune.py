"""Minimal cost-complexity pruning (Breiman, Friedman, Olshen & Stone 1984, Sec. 3.3).

The cost of a subtree ``T`` at complexity ``alpha`` is ``R_alpha(T) = R(T) +
alpha |leaves(T)|``, with ``R(T)`` the sum over its leaves of ``R(t) =
(weighted rows of t / weighted rows of the root) * impurity(t)``, as in
scikit-learn.  Weakest-link pruning repeatedly collapses the internal node
``t`` of smallest effective alpha

    g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1),

``T_t`` being the current subtree below ``t``: the alpha at which ``t`` as a
leaf costs no more than its subtree.  The sequence of ``g`` values is the
pruning path; pruning at ``ccp_alpha`` collapses nodes while the smallest
``g`` is ``<= ccp_alpha``.
"""

import numpy as np

from .._jit import njit
from .edit import prune_to_leaves
from .tree import TREE_LEAF


@njit
def weakest_link(left, right, weight, impurity, ccp_alpha):
    """Weakest-link pruning of a tree given as arrays (children stored after their parents).

    Returns ``(collapsed, alphas, costs)``: a bool mask of the internal nodes
    that become leaves when pruning at ``ccp_alpha`` (``ccp_alpha = inf``:
    down to the root), and the path: the effective alpha of every prune
    step, preceded by 0 for the unpruned tree, and ``R`` of the tree after
    each step.
    """
    n = left.shape[0]
    root_w = weight[0]
    r = np.empty(n)  # R(t) of every node
    for k in range(n):
        r[k] = weight[k] / root_w * impurity[k] if root_w > 0 else 0.0
    parent = np.full(n, -1, np.int64)
    n_leaves = np.ones(n, np.int64)  # leaves of the current subtree below each node
    r_sub = r.copy()  # R of the current subtree below each node
    for k in range(n - 1, -1, -1):
        if left[k] != TREE_LEAF:
            a, b = left[k], right[k]
            parent[a] = k
            parent[b] = k
            n_leaves[k] = n_leaves[a] + n_leaves[b]
            r_sub[k] = r_sub[a] + r_sub[b]
    is_leaf = left == TREE_LEAF
    alive = np.ones(n, np.bool_)
    collapsed = np.zeros(n, np.bool_)
    alphas = np.empty(n + 1)
    costs = np.empty(n + 1)
    alphas[0] = 0.0
    costs[0] = r_sub[0]
    steps = 1
    stack = np.empty(n, np.int64)
    while not is_leaf[0]:
        best = -1
        best_g = np.inf
        for k in range(n):
            if alive[k] and not is_leaf[k]:
                g = (r[k] - r_sub[k]) / (n_leaves[k] - 1)
                if g < best_g:  # the first of equal alphas, in row order
                    best_g = g
                    best = k
        g = max(best_g, 0.0)  # rounding can make R(t) - R(T_t) slightly negative
        if g > ccp_alpha:
            break
        # collapse `best`: its descendants leave the tree, its ancestors lose leaves and cost
        top = 0
        stack[top] = left[best]
        stack[top + 1] = right[best]
        top = 2
        while top > 0:
            top -= 1
            k = stack[top]
            alive[k] = False
            if not is_leaf[k]:
                stack[top] = left[k]
                stack[top + 1] = right[k]
                top += 2
        d_leaves = n_leaves[best] - 1
        d_cost = r_sub[best] - r[best]
        is_leaf[best] = True
        collapsed[best] = True
        n_leaves[best] = 1
        r_sub[best] = r[best]
        p = parent[best]
        while p >= 0:
            n_leaves[p] -= d_leaves
            r_sub[p] -= d_cost
            p = parent[p]
        alphas[steps] = g
        costs[steps] = r_sub[0]
        steps += 1
    # a collapsed node inside a later-collapsed subtree is gone, not a leaf
    collapsed &= alive
    return collapsed, alphas[:steps].copy(), costs[:steps].copy()


def _arrays(tree):
    nodes = tree.nodes
    return (nodes["left"].astype(np.int64), nodes["right"].astype(np.int64),
            nodes["weighted_n_samples"].astype(np.float64), nodes["impurity"].astype(np.float64))


def cost_complexity_path(tree):
    """``(ccp_alphas, impurities)`` of ``tree``'s weakest-link pruning path (scikit-learn's layout)."""
    _, alphas, costs = weakest_link(*_arrays(tree), np.inf)
    return alphas, costs


def prune_tree(tree, ccp_alpha):
    """The subtree of minimal cost-complexity at ``ccp_alpha`` (``tree`` itself when nothing is pruned).

    Collapsed nodes keep the values they were fitted with (the class
    distribution or mean of their rows).
    """
    if ccp_alpha <= 0.0 or tree.nodes.shape[0] <= 1:
        return tree
    collapsed, _, _ = weakest_link(*_arrays(tree), float(ccp_alpha))
    if not collapsed.any():
        return tree
    return prune_to_leaves(tree, np.flatnonzero(collapsed))
