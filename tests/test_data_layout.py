"""The engine's data-access layer: a tree grown from the CSC layout equals the one grown from the dense layout."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from forestzoo._engine.builder import TreeParams, TreeTarget, grow, prepare_data


def _sparse_data(seed, n=400, d=8):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.uniform(size=X.shape) < 0.6] = 0.0  # mostly zeros, as sparse data are
    X[:, 3] = 0.0  # a column with no stored value
    X[rng.uniform(size=n) < 0.05, 5] = np.nan  # missing values are stored NaNs
    y = ((X[:, 0] > 0) ^ (np.nan_to_num(X[:, 5]) < 0.1)).astype(np.int32) + (X[:, 1] > 0.5)
    return X, y


def _csc_layout(X):
    m = sp.csc_matrix(X)
    m.sort_indices()
    return (m.data.astype(np.float32), m.indices.astype(np.int32), m.indptr.astype(np.int64), np.int64(X.shape[1]))


@pytest.mark.parametrize("splitter", ["exact", "random", "stochastic"])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_csc_layout_grows_the_dense_layouts_tree(splitter, task):
    X, y = _sparse_data(0)
    dense = prepare_data(X, splitter, 255)
    sparse = prepare_data(X, splitter, 255)
    sparse.Xf = _csc_layout(X)
    assert sparse.Xf[0].shape[0] < 0.5 * X.size, "the layout stores the nonzeros only"
    weights = np.random.RandomState(1).poisson(1.0, size=X.shape[0]).astype(np.float64)
    if task == "classification":
        target, criterion = TreeTarget(y, np.zeros(len(y)), 3), "gini"
    else:
        target, criterion = TreeTarget.regression(y + X[:, 2].astype(np.float64)), "squared_error"
    for max_features in (None, 3):
        params = TreeParams(criterion, max_features=max_features)
        a = grow(dense, target, weights, params, 7)
        b = grow(sparse, target, weights, params, 7)
        assert a.node_count > 15
        assert_array_equal(a.nodes, b.nodes)
        assert_array_equal(a.values, b.values)


def test_csc_layout_routes_absent_entries_as_zero_and_stored_nan_as_missing():
    # one feature; rows 0-2 absent (value 0), row 3 stored 1.0, row 4 stored NaN, row 5 stored -1.0
    X = np.array([[0.0], [0.0], [0.0], [1.0], [np.nan], [-1.0]], dtype=np.float32)
    y = np.array([0, 0, 0, 1, 1, 0], dtype=np.int32)
    data = prepare_data(X, "exact", 255)
    data.Xf = _csc_layout(X)
    tree = grow(data, TreeTarget(y, np.zeros(6), 2), np.ones(6), TreeParams("gini"), 0)
    root = tree.nodes[0]
    assert root["feature"] == 0 and 0.0 <= root["threshold"] < 1.0 and root["missing_left"] == 0
    assert_array_equal(np.argmax(tree.predict(X), axis=1), y)


def test_python_reads_of_both_layouts_agree():
    from forestzoo._engine import data as layout

    X, _ = _sparse_data(2, n=50)
    dense, csc = np.ascontiguousarray(X.T), _csc_layout(X)
    assert layout.n_features(dense) == layout.n_features(csc) == X.shape[1]
    for f in range(X.shape[1]):
        for i in range(50):
            a, b = layout.value(dense, f, i), layout.value(csc, f, i)
            assert (a == b) or (np.isnan(a) and np.isnan(b))
    assert layout.can_copy_local(dense) and not layout.can_copy_local(csc)


@pytest.mark.parametrize("block", [1, 7, 150, 1 << 40])
def test_sparse_bin_edges_do_not_depend_on_the_block_of_stored_values(monkeypatch, block):
    """The edges, bins and bounds of a sparse matrix, found a block of columns at a time, are the dense matrix's."""
    from forestzoo._engine import binning

    rng = np.random.RandomState(block % 97)
    X, _ = _sparse_data(3, n=600, d=30)
    X[:, 7] = rng.randint(-2, 3, size=X.shape[0])  # few distinct values, stored in most rows
    X[:, 9] = np.where(rng.uniform(size=X.shape[0]) < 0.9, 0.0, rng.uniform(size=X.shape[0]))
    dense = binning.compute_bin_edges(X, 16, bounds=True)
    monkeypatch.setattr(binning, "SPARSE_BLOCK_VALUES", block)
    blocks = list(binning._stored_blocks(sp.csc_matrix(X).indptr, 0, X.shape[1], block))
    assert blocks[0][0] == 0 and blocks[-1][1] == X.shape[1]
    assert all(a < b and b == c for (a, b), (c, _) in zip(blocks, blocks[1:] + [(X.shape[1], None)]))
    for got, want in zip(binning.compute_bin_edges(sp.csr_matrix(X), 16, bounds=True), dense):
        assert_array_equal(got, want)
