"""The engine's node-model seam (oblique splits proposed from Python) and the stochastic splitter."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification

from forestzoo import DecisionTreeClassifier
from forestzoo._engine.node_model import (
    NODE_AXIS, NODE_AXIS_SUBTREE, NODE_LEAF, NODE_OBLIQUE, NodeModel,
)
from forestzoo._engine.tree import TREE_LEAF
from forestzoo._engine.builder import TreeParams, TreeTarget, grow, prepare_data


class FixedProjection(NodeModel):
    """Proposes the same projection at every node (a test double with a real split search).

    With ``axis_at_odd_depths``, nodes at odd depths are left to the grower's kernel
    (``NODE_AXIS``), so the tree mixes oblique and axis-aligned splits.
    """

    def __init__(self, X, weights, status=NODE_OBLIQUE, max_depth=None, axis_at_odd_depths=False, **kw):
        super().__init__(**kw)
        self.X, self.weights, self.status, self.max_depth = X, np.asarray(weights, float), status, max_depth
        self.axis_at_odd_depths = axis_at_odd_depths
        self.calls = 0

    def split_node(self, rows, w, yk, yr, depth, total, go_left, out):
        self.calls += 1
        if self.max_depth is not None and depth >= self.max_depth:
            return NODE_LEAF
        if self.status in (NODE_AXIS_SUBTREE, NODE_AXIS) or (self.axis_at_odd_depths and depth % 2):
            return NODE_AXIS_SUBTREE if self.status == NODE_AXIS_SUBTREE else NODE_AXIS
        feats = np.arange(self.X.shape[1])
        cost = self.propose(feats, self.weights, self.X, rows, w, yk, yr, total, go_left, out)
        if cost == np.inf:
            return NODE_LEAF if not self.axis_at_odd_depths else NODE_AXIS
        return self.status


def _grow(X, y, model=None, splitter="exact", **kw):
    X = np.ascontiguousarray(X, dtype=np.float32)
    data = prepare_data(X, splitter, 255)
    n_classes = int(y.max()) + 1
    return grow(data, TreeTarget(y.astype(np.int32), np.zeros(len(y)), n_classes), np.ones(len(y)),
                TreeParams("gini", **kw), 0, node_model=model), X


def _check_consistent(tree, X, y):
    """Rows routed by the predictor land in leaves whose counts and class proportions are the grower's."""
    leaves = tree.apply(X)
    nodes = tree.nodes
    for leaf in np.unique(leaves):
        assert nodes["left"][leaf] == TREE_LEAF
        in_leaf = leaves == leaf
        assert nodes["n_samples"][leaf] == in_leaf.sum()
        proportions = np.bincount(y[in_leaf], minlength=tree.values.shape[1]) / in_leaf.sum()
        assert_allclose(tree.values[leaf], proportions)


def test_one_oblique_split_separates_a_diagonal_boundary():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(400, 2))
    y = (X[:, 0] + X[:, 1] > 0.1).astype(int)
    tree, X32 = _grow(X, y, FixedProjection(np.float32(X), [1.0, 1.0]))
    assert tree.node_count == 3, "a single projection on x0 + x1 separates the classes"
    assert tree.nodes["oblique"][0] == 0 and tree.nodes["feature"][0] == -1
    assert_array_equal(tree.obl_feature, [0, 1])
    axis_tree, _ = _grow(X, y)
    assert axis_tree.node_count > 9
    _check_consistent(tree, X32, y)
    pred = np.argmax(tree.predict(X32), axis=1)
    assert_array_equal(pred, y)


def test_oblique_tree_routes_training_rows_where_the_grower_sent_them():
    X, y = make_classification(500, 6, n_informative=4, n_classes=3, random_state=1)
    w = np.random.RandomState(2).normal(size=6)
    for splitter in ("exact", "hist", "random"):
        tree, X32 = _grow(X, y, FixedProjection(np.float32(X), w, axis_at_odd_depths=True), splitter=splitter)
        assert (tree.nodes["oblique"] >= 0).any() and (tree.nodes["feature"] >= 0).any()
        _check_consistent(tree, X32, y)


def test_a_model_that_always_answers_axis_leaves_the_tree_unchanged():
    X, y = make_classification(300, 5, random_state=3)
    for splitter in ("exact", "hist", "random"):
        silent = FixedProjection(np.float32(X), np.ones(5), status=NODE_AXIS)
        with_model, _ = _grow(X, y, silent, splitter=splitter)
        without, _ = _grow(X, y, splitter=splitter)
        n_internal = int((with_model.nodes["left"] != TREE_LEAF).sum())
        assert n_internal <= silent.calls <= with_model.node_count, "asked at every node it could split"
        assert_array_equal(with_model.nodes, without.nodes)
        assert_array_equal(with_model.values, without.values)


def test_leaf_and_axis_subtree_statuses():
    X, y = make_classification(300, 5, random_state=4)
    tree, X32 = _grow(X, y, FixedProjection(np.float32(X), np.ones(5), max_depth=2))
    assert tree.max_depth == 2
    _check_consistent(tree, X32, y)
    model = FixedProjection(np.float32(X), np.ones(5), status=NODE_AXIS_SUBTREE)
    tree, _ = _grow(X, y, model)
    assert model.calls == 1, "axis-aligned from the root down: the model is not asked again"
    assert (tree.nodes["oblique"] == -1).all()


def test_oblique_nan_goes_to_the_learned_side():
    rng = np.random.RandomState(5)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X[::7, 1] = np.nan
    y[::7] = 1
    tree, X32 = _grow(X, y, FixedProjection(np.float32(X), [1.0, -1.0]))
    _check_consistent(tree, X32, y)
    assert tree.nodes["missing_left"][0] in (0, 1)


def test_stochastic_falls_back_to_exact_on_small_nodes():
    X, y = make_classification(200, 8, random_state=6)
    exact, _ = _grow(X, y, splitter="exact")
    # N_0 = 1000: no node has room for two rounds of sampling, so every node is searched
    # exactly, over the same random feature order
    sdt, _ = _grow(X, y, splitter="stochastic", sdt=(10.0, 8.0, 0.005, 1000.0))
    assert_array_equal(sdt.nodes["feature"], exact.nodes["feature"])
    assert_array_equal(sdt.nodes["threshold"], exact.nodes["threshold"])
    assert sdt.n_split_evaluations == exact.n_split_evaluations


@pytest.mark.parametrize("seed", [0, 1])
def test_stochastic_reads_far_fewer_values_for_similar_accuracy(seed):
    X, y = make_classification(20000, 40, n_informative=8, random_state=seed)
    Xtr, ytr, Xte, yte = X[:15000], y[:15000], X[15000:], y[15000:]
    exact = DecisionTreeClassifier(splitter="exact", max_depth=8, random_state=0).fit(Xtr, ytr)
    sdt = DecisionTreeClassifier(splitter="stochastic", max_depth=8, random_state=0).fit(Xtr, ytr)
    assert sdt.tree_.n_split_evaluations * 3 < exact.tree_.n_split_evaluations
    assert sdt.score(Xte, yte) > exact.score(Xte, yte) - 0.03


def test_grow_returns_the_leaf_of_every_training_row_and_reuses_its_workspace():
    X, y = make_classification(3000, 10, random_state=7)
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    data = prepare_data(X32, "hist", 255)
    w = np.ones(len(y))
    w[::5] = 0.0
    workspace = {}
    trees = []
    for max_leaf_nodes in (None, 20):  # depth-first, and best-first stopped early
        params = TreeParams("gini", max_leaf_nodes=max_leaf_nodes)
        target = TreeTarget(y.astype(np.int32), np.zeros(len(y)), 2)
        tree, leaves = grow(data, target, w, params, 0, workspace=workspace, return_leaves=True)
        assert_array_equal(leaves[w > 0], tree.apply(X32)[w > 0])
        assert (leaves[w == 0] == -1).all()
        again = grow(data, target, w, params, 0)
        assert_array_equal(again.nodes["threshold"], tree.nodes["threshold"])
        trees.append(tree)
    assert "pool" in workspace


def test_zero_weight_rows_do_not_move_histogram_bins():
    rng = np.random.RandomState(8)
    X, y = make_classification(600, 5, random_state=8)
    w = np.ones(len(y))
    w[:200] = 0.0
    X[:200] = rng.normal(scale=50.0, size=(200, 5))  # far outliers, all of weight 0
    a = DecisionTreeClassifier(splitter="hist", random_state=0).fit(X, y, sample_weight=w)
    b = DecisionTreeClassifier(splitter="hist", random_state=0).fit(X[200:], y[200:])
    assert_array_equal(a.tree_.nodes["threshold"], b.tree_.nodes["threshold"])
