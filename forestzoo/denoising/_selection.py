"""Selection of mutually correlated trees by mean cross entropy (Hibino et al. 2017, Section 3.1)."""

import numpy as np


def _entropy_rows(counts):
    """Entropy (bits) of every row of a count table; an empty row has entropy 0."""
    totals = counts.sum(axis=1, keepdims=True)
    p = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    logp = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logp).sum(axis=1)


def cross_entropy_matrix(leaves, n_leaves):
    """``C_{t,t'}(S) = (1 / N_t) * sum_n H_{t'}(S_tn(S))`` for every pair of trees.

    Parameters
    ----------
    leaves : int ndarray (n_samples, n_trees)
        Leaf index (0 .. N_t - 1) each sample of ``S`` reaches in each tree.
    n_leaves : sequence of int
        ``N_t``, the number of leaves of each tree.

    Returns
    -------
    ndarray (n_trees, n_trees), zero diagonal.  ``H_{t'}(S_tn)`` is the
    entropy of the leaves of tree ``t'`` reached by the samples that reach
    leaf ``n`` of tree ``t``; a leaf no sample of ``S`` reaches adds 0.
    """
    n_trees = leaves.shape[1]
    C = np.zeros((n_trees, n_trees))
    for t in range(n_trees):
        for u in range(n_trees):
            if t == u:
                continue
            codes = leaves[:, t] * n_leaves[u] + leaves[:, u]
            counts = np.bincount(codes, minlength=n_leaves[t] * n_leaves[u]).astype(np.float64)
            C[t, u] = _entropy_rows(counts.reshape(n_leaves[t], n_leaves[u])).sum() / n_leaves[t]
    return C


def mean_cross_entropy(leaves, n_leaves):
    """``C_t(S) = 1 / (T - 1) * sum_{t' != t} C_{t,t'}(S)``; zeros for a single tree."""
    n_trees = leaves.shape[1]
    if n_trees < 2:
        return np.zeros(n_trees)
    return cross_entropy_matrix(leaves, n_leaves).sum(axis=1) / (n_trees - 1)


def select_trees(scores, fraction):
    """Indices (sorted) of the ``ceil(fraction * T)`` trees with the lowest ``C_t``; ties keep tree order."""
    n_keep = max(1, int(np.ceil(fraction * scores.shape[0] - 1e-9)))
    return np.sort(np.argsort(scores, kind="stable")[:n_keep])
