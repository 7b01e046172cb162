"""Minimal cost-complexity pruning (``ccp_alpha``, ``cost_complexity_pruning_path``)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

from forestzoo import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesRegressor,
                       RandomForestClassifier)
from forestzoo._engine.prune import cost_complexity_path, prune_tree, weakest_link
from forestzoo._engine.tree import TREE_LEAF


def _sk_arrays(tree):
    return (tree.children_left.astype(np.int64), tree.children_right.astype(np.int64),
            tree.weighted_n_node_samples.astype(np.float64), tree.impurity.astype(np.float64))


def _kept_nodes(left, right, collapsed):
    kept, stack = 0, [0]
    while stack:
        k = stack.pop()
        kept += 1
        if left[k] != TREE_LEAF and not collapsed[k]:
            stack += [left[k], right[k]]
    return kept


@pytest.mark.parametrize("Sk, data", [(SkTreeClassifier, load_breast_cancer), (SkTreeRegressor, load_diabetes)])
def test_path_and_pruning_match_scikit_learn_on_its_own_trees(Sk, data):
    X, y = data(return_X_y=True)
    grown = Sk(random_state=0).fit(X, y)
    path = grown.cost_complexity_pruning_path(X, y)
    arrays = _sk_arrays(grown.tree_)
    _, alphas, costs = weakest_link(*arrays, np.inf)
    assert_allclose(alphas, path.ccp_alphas, rtol=1e-9, atol=1e-15)
    assert_allclose(costs, path.impurities, rtol=1e-9, atol=1e-15)
    distinct = np.unique(path.ccp_alphas)
    for alpha in ((distinct[:-1] + distinct[1:]) / 2)[::4]:  # between steps: no tie at the boundary
        collapsed, _, _ = weakest_link(*arrays, alpha)
        pruned = Sk(random_state=0, ccp_alpha=alpha).fit(X, y)
        assert _kept_nodes(arrays[0], arrays[1], collapsed) == pruned.tree_.node_count


def _optimal_cost(tree, alpha):
    """min over pruned subtrees of R(T) + alpha |leaves(T)|, by recursion over the full tree."""
    nodes = tree.nodes
    r = nodes["weighted_n_samples"] / nodes["weighted_n_samples"][0] * nodes["impurity"]

    def best(k):
        leaf_cost = r[k] + alpha
        if nodes["left"][k] == TREE_LEAF:
            return leaf_cost, 1
        (cl, nl), (cr, nr) = best(nodes["left"][k]), best(nodes["right"][k])
        if leaf_cost <= cl + cr + 1e-12:  # the smallest optimal subtree collapses ties
            return leaf_cost, 1
        return cl + cr, nl + nr

    return best(0)


@pytest.mark.parametrize("Tree, data", [(DecisionTreeClassifier, load_breast_cancer),
                                        (DecisionTreeRegressor, load_diabetes)])
def test_pruned_tree_is_the_smallest_subtree_of_least_cost(Tree, data):
    # Breiman et al. (1984), Sec. 3.3: weakest-link pruning finds the smallest minimising subtree
    X, y = data(return_X_y=True)
    grown = Tree(min_samples_leaf=3, random_state=0).fit(X, y).tree_
    alphas, costs = cost_complexity_path(grown)
    assert alphas[0] == 0 and costs[0] == pytest.approx(_optimal_cost(grown, 0.0)[0])
    distinct = np.unique(alphas)
    for alpha in ((distinct[:-1] + distinct[1:]) / 2)[::3]:
        pruned = prune_tree(grown, alpha)
        r = pruned.nodes["weighted_n_samples"] / pruned.nodes["weighted_n_samples"][0] * pruned.nodes["impurity"]
        leaves = pruned.nodes["left"] == TREE_LEAF
        cost, n_leaves = _optimal_cost(grown, alpha)
        assert pruned.n_leaves == n_leaves
        assert r[leaves].sum() + alpha * n_leaves == pytest.approx(cost, rel=1e-9)


def test_ccp_alpha_prunes_the_grown_tree_and_keeps_the_collapsed_nodes_values():
    X, y = load_breast_cancer(return_X_y=True)
    full = DecisionTreeClassifier(random_state=0).fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    assert full.tree_.node_count == DecisionTreeClassifier(random_state=0).fit(X, y).tree_.node_count  # unchanged
    alpha = (path.ccp_alphas[3] + path.ccp_alphas[4]) / 2
    pruned = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    expected = prune_tree(full.tree_, alpha)
    assert_array_equal(pruned.tree_.nodes, expected.nodes)
    assert_array_equal(pruned.predict_proba(X), expected.predict(X.astype(np.float32)))
    assert pruned.tree_.node_count < full.tree_.node_count
    # every leaf of the pruned tree holds the values its node had in the grown tree
    grown_rows = {tuple(v) for v in np.round(full.tree_.values, 12)}
    assert {tuple(v) for v in np.round(pruned.tree_.values, 12)} <= grown_rows
    top = DecisionTreeClassifier(random_state=0, ccp_alpha=path.ccp_alphas[-1] + 1.0).fit(X, y)
    assert top.tree_.node_count == 1 and top.get_depth() == 0


def test_forests_prune_every_tree():
    X, y = load_breast_cancer(return_X_y=True)
    plain = RandomForestClassifier(10, random_state=0).fit(X, y)
    pruned = RandomForestClassifier(10, random_state=0, ccp_alpha=0.01).fit(X, y)
    for a, b in zip(plain.estimators_, pruned.estimators_):
        assert_array_equal(b.tree_.nodes, prune_tree(a.tree_, 0.01).nodes)
    Xr, yr = load_diabetes(return_X_y=True)
    sizes = [np.mean([e.tree_.node_count for e in ExtraTreesRegressor(5, ccp_alpha=a, random_state=0).fit(Xr, yr)
                      .estimators_]) for a in (0.0, 1.0, 50.0)]
    assert sizes[0] > sizes[1] > sizes[2]


@pytest.mark.parametrize("Estimator", [DecisionTreeClassifier, RandomForestClassifier])
def test_negative_ccp_alpha_is_rejected(Estimator):
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="ccp_alpha"):
        Estimator(ccp_alpha=-0.1).fit(X, y)
