"""Sequential construction of a competence-area forest, and its two answer strategies.

Donskoy (2016), Sections 3 and 5: the first smart tree is built as well as
possible on all training rows; every next tree is built on the rows that fall
into the incompetence areas of all the trees before it; construction stops
when a new tree would have no competent leaf at all, when no row is left, or
after ``max_estimators`` trees.  A first tree without any competent leaf is
kept (the forest then rejects every object), so that a fitted forest always
holds at least one tree.
"""

import numpy as np

from .._engine.api import TreeTarget, grow, prepare_data
from ._smart_tree import mdl_prune


def build_chain(X, yk, weights, n_classes, gamma, seeds, params, max_estimators, patience=1, splitter="exact",
                max_bins=255):
    """Grow the chain of smart trees.

    Parameters
    ----------
    X : float32 C-ordered (n_samples, n_features)
    yk : int32 class codes
    weights : float64 sample weights (read as counts by the MDL rule)
    n_classes : int
    gamma : float > 0
    seeds : sequence of int, one per candidate tree (at least one)
    params : :class:`forestzoo._engine.api.TreeParams` of every tree
    max_estimators : int
        Most trees kept.
    patience : int
        Candidate trees without a competent leaf tolerated in a row before
        construction stops (1: stop at the first, as in the paper).  Only a
        randomised tree (``max_features`` below the feature count, or
        ``splitter="random"``) can differ from a failed candidate grown on the
        same rows.
    splitter, max_bins : how the training matrix is prepared once for the
        chain (:func:`forestzoo._engine.api.prepare_data`).

    Returns
    -------
    trees : list of Tree
    incompetent : list of bool arrays, the incompetence leaves of each tree
    remaining : bool array, training rows no tree is competent for
    """
    data = prepare_data(X, splitter, max_bins, seed=int(seeds[0]) & 0x7FFFFFFF)
    target = TreeTarget(yk, np.zeros(X.shape[0]), n_classes)
    remaining = weights > 0
    trees, incompetent = [], []
    failures = 0
    last = None
    for seed in seeds:
        if len(trees) == max_estimators or failures == patience or not remaining.any():
            break
        w = np.where(remaining, weights, 0.0)
        full = grow(data, target, w, params, int(seed))
        tree, inc = mdl_prune(full, gamma, X.shape[1])
        if not np.any((tree.nodes["left"] == -1) & ~inc):
            failures += 1  # this candidate is incompetent everywhere
            last = (tree, inc)
            continue
        failures = 0
        trees.append(tree)
        incompetent.append(inc)
        rows = np.flatnonzero(remaining)
        remaining[rows] = inc[tree.apply(X[rows])]
    if not trees:
        # even the first tree is incompetent everywhere: keep it, so that the
        # forest can still answer with its fallback
        trees.append(last[0])
        incompetent.append(last[1])
    return trees, incompetent, remaining


def tree_answers(trees, incompetent, X):
    """Per tree: the leaf of every row, whether it is competent, and its branch length.

    Returns ``(leaves, competent, lengths)``, each of shape (n_samples, n_trees).
    """
    n, t = X.shape[0], len(trees)
    leaves = np.empty((n, t), dtype=np.intp)
    competent = np.empty((n, t), dtype=bool)
    lengths = np.empty((n, t), dtype=np.float64)
    for j, (tree, inc) in enumerate(zip(trees, incompetent)):
        leaf = tree.apply(X)
        leaves[:, j] = leaf
        competent[:, j] = ~inc[leaf]
        lengths[:, j] = tree.nodes["depth"][leaf]
    return leaves, competent, lengths


def combine(trees, incompetent, X, strategy, n_classes):
    """Class probabilities of the forest and the rows it rejects.

    ``"first_competent"`` (strategy 1 of Section 5): the first tree, in the
    order of synthesis, that is competent for the row answers.
    ``"weighted_vote"`` (strategy 2): every competent tree votes for its
    leaf's class with weight ``W_j = N_o / (N_j * lambda_j(x))``, ``N_o``
    the number of trees, ``N_j`` the tree's 1-based rank and ``lambda_j(x)``
    the number of decision nodes on the row's branch.  A tree that is a
    single leaf has a branch of length 0; its length is taken as 1 so that
    its weight stays finite.

    Rows for which every tree is incompetent are rejected: their row of the
    returned probabilities holds the class frequencies of the incompetence
    leaf they reach in the last tree (the training rows that fell through
    every tree to that leaf), which the caller uses as the fallback or
    replaces by NaN.
    """
    leaves, competent, lengths = tree_answers(trees, incompetent, X)
    n, n_trees = competent.shape
    proba = np.zeros((n, n_classes))
    if strategy == "first_competent":
        first = np.argmax(competent, axis=1)
        for j, tree in enumerate(trees):
            rows = np.flatnonzero(competent[:, j] & (first == j))
            proba[rows] = tree.values[leaves[rows, j]]
    else:
        ranks = np.arange(1, n_trees + 1, dtype=np.float64)
        weights = n_trees / (ranks[None, :] * np.maximum(lengths, 1.0))
        weights *= competent
        for j, tree in enumerate(trees):
            proba += weights[:, j, None] * tree.values[leaves[:, j]]
        total = weights.sum(axis=1)
        ok = total > 0
        proba[ok] /= total[ok, None]
    rejected = ~competent.any(axis=1)
    if rejected.any():
        proba[rejected] = trees[-1].values[leaves[rejected, -1]]
    return proba, rejected
