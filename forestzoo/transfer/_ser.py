"""Structure Expansion / Reduction (SER), Segev et al. 2017, Algorithm 1.

For one source tree and the target sample ``S`` (rows with positive weight):

1. *expansion*: every leaf ``v`` reached by target rows is replaced by a tree
   grown by the engine on ``S_v``, the target rows that reach it
   (``v <- BuildTree(S_v)``); leaves no target row reaches keep their source
   value;
2. *reduction*: working bottom-up over the source tree's internal nodes, a node
   is pruned to a leaf labelled by ``S_v`` when ``leafError(v, S_v) <
   subtreeError(v, S_v)``; the subtree error already accounts for reductions
   made below.  Expansion subtrees are not reduced (Algorithm 1 returns right
   after ``BuildTree``).

Errors are weighted misclassification counts for classification (the leaf
predicts ``argmax`` of its value) and weighted sums of squared errors for
regression.
"""

import numpy as np

from .._engine.api import TREE_LEAF, expand_leaves, grow, node_sums, prune_to_leaves, values_from_sums
from .._jit import njit


@njit
def _reduce(left, right, values, sums, candidate, classification):
    """Bottom-up SER reduction; returns the mask of nodes to prune.

    ``sums`` are :func:`node_sums` of the target data; ``candidate`` marks the
    source tree's internal nodes.  Rows are visited in decreasing order, which
    is bottom-up because children are stored after their parents.
    """
    n = left.shape[0]
    err = np.zeros(n)  # error of the (reduced) subtree rooted at each node
    prune = np.zeros(n, np.bool_)
    m = sums.shape[1] - 2
    for k in range(n - 1, -1, -1):
        w = sums[k, 1]
        if classification:
            best = 0.0
            for c in range(m):
                if sums[k, 2 + c] > best:
                    best = sums[k, 2 + c]
            leaf_err = w - best
        else:
            leaf_err = sums[k, 3] - sums[k, 2] * sums[k, 2] / w if w > 0.0 else 0.0
            if leaf_err < 0.0:
                leaf_err = 0.0
        if left[k] == TREE_LEAF:
            if classification:
                c_hat = np.argmax(values[k])
                err[k] = w - sums[k, 2 + c_hat]
            else:
                v = values[k, 0]
                err[k] = max(sums[k, 3] - 2.0 * v * sums[k, 2] + v * v * w, 0.0)
            continue
        sub = err[left[k]] + err[right[k]]
        # Algorithm 1: prune when leafError(v, S_v) < subtreeError(v, S_v)
        if candidate[k] and leaf_err < sub - 1e-12 * max(1.0, sub):
            prune[k] = True
            err[k] = leaf_err
        else:
            err[k] = sub
    return prune


def ser_tree(tree, X, data, target, w, targets, classification, params, seed):
    """SER applied to one engine tree; returns the new (compacted) tree.

    ``X`` is the validated float32 target matrix, ``data`` the same rows
    prepared once for the engine (``prepare_data``), ``target`` their
    :class:`~forestzoo._engine.api.TreeTarget`, ``w`` the per-row weights (zero: the row is not in
    this tree's target sample), ``targets`` the :func:`node_sums` targets of
    the same labels, ``params`` the :class:`~forestzoo._engine.api.TreeParams` of the expansion
    subtrees.
    """
    rows = np.flatnonzero(w > 0)
    leaf_of = tree.apply(X[rows])
    order = np.argsort(leaf_of, kind="stable")
    leaves, starts = np.unique(leaf_of[order], return_index=True)
    ends = np.append(starts[1:], order.shape[0])
    rs = np.random.RandomState(seed & 0x7FFFFFFF)
    leaf_seeds = rs.randint(0, np.iinfo(np.int32).max, size=leaves.shape[0])
    subtrees = []
    w_leaf = np.zeros_like(w)
    for leaf, a, b, s in zip(leaves, starts, ends, leaf_seeds):
        members = rows[order[a:b]]
        w_leaf[members] = w[members]
        # Algorithm 1, expansion: v <- BuildTree(S_v)
        subtrees.append(grow(data, target, w_leaf, params, int(s)))
        w_leaf[members] = 0.0
    candidate = tree.nodes["left"] != TREE_LEAF
    expanded = expand_leaves(tree, leaves, subtrees)
    cand = np.zeros(expanded.node_count, dtype=np.bool_)
    cand[: candidate.shape[0]] = candidate
    sums = node_sums(expanded, X, targets, w)
    prune = _reduce(expanded.nodes["left"].astype(np.int64), expanded.nodes["right"].astype(np.int64),
                    expanded.values, sums, cand, classification)
    pruned = np.flatnonzero(prune)
    values, _, _ = values_from_sums(sums[pruned], classification)
    # Algorithm 1, reduction: d(v) <- 0, y(v) <- the target label distribution of S_v
    return prune_to_leaves(expanded, pruned, values)
