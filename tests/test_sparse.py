"""Sparse X (scipy sparse matrices and arrays) in the axis-aligned trees and forests.

A model fitted on a sparse matrix equals the one fitted on the same matrix made
dense (same trees, node for node), and every predict-side method gives on a
sparse matrix what it gives on the dense one.  Other families reject sparse X
with a TypeError naming the estimator.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from forestzoo import (
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
    RandomForestRegressor, RotationForestClassifier,
)
from forestzoo._engine.api import dense_row_blocks

CONTAINERS = [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array]
TREES = [DecisionTreeClassifier, DecisionTreeRegressor]
FORESTS = [RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor]


def _data(seed=0, n=300, d=12):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.uniform(size=X.shape) < 0.75] = 0.0
    X[:, 3] = 0.0  # a column with no stored value
    X[rng.uniform(size=n) < 0.05, 5] = np.nan  # stored NaN: missing values
    y = (X[:, 0] > 0).astype(np.int64) + (np.nan_to_num(X[:, 1]) > 0.2) + (np.nan_to_num(X[:, 5]) < -0.3)
    return X, y


def _target(est, X, y):
    return y if hasattr(est, "predict_proba") else y + X[:, 2].astype(np.float64)


def _trees(est):
    return [est.tree_] if hasattr(est, "tree_") else [e.tree_ for e in est.estimators_]


def _assert_same_model(a, b):
    ta, tb = _trees(a), _trees(b)
    assert len(ta) == len(tb)
    for x, y in zip(ta, tb):
        assert_array_equal(x.nodes, y.nodes)
        assert_array_equal(x.values, y.values)


def _make(cls, splitter, **kw):
    if cls in FORESTS:
        kw.setdefault("n_estimators", 4)
    return cls(splitter=splitter, random_state=0, **kw)


@pytest.mark.parametrize("splitter", ["exact", "random", "hist", "stochastic"])
@pytest.mark.parametrize("cls", TREES + FORESTS)
def test_fit_on_sparse_grows_the_dense_model(cls, splitter):
    X, y = _data()
    dense = _make(cls, splitter)
    y = _target(dense, X, y)
    dense.fit(X, y)
    for container in (sp.csr_matrix, sp.csc_array):
        sparse = _make(cls, splitter).fit(container(X), y)
        _assert_same_model(dense, sparse)
        assert_array_equal(dense.predict(X), sparse.predict(container(X)))
    assert _trees(dense)[0].node_count > 7


@pytest.mark.parametrize("container", CONTAINERS)
@pytest.mark.parametrize("cls", TREES + [RandomForestClassifier, ExtraTreesRegressor])
def test_predict_side_methods_on_sparse_equal_dense(cls, container):
    X, y = _data(1)
    est = _make(cls, "exact")
    est.fit(X, _target(est, X, y))
    Xs = container(X)
    assert_array_equal(est.predict(Xs), est.predict(X))
    assert_array_equal(est.apply(Xs), est.apply(X))
    assert est.score(Xs, _target(est, X, y)) == est.score(X, _target(est, X, y))
    if hasattr(est, "predict_proba"):
        assert_array_equal(est.predict_proba(Xs), est.predict_proba(X))
        assert_array_equal(est.predict_log_proba(Xs), est.predict_log_proba(X))
    path_s, path_d = est.decision_path(Xs), est.decision_path(X)
    if isinstance(path_d, tuple):
        assert_array_equal(path_s[1], path_d[1])
        path_s, path_d = path_s[0], path_d[0]
    assert sp.issparse(path_s) and path_s.format == "csr"
    assert_array_equal(path_s.toarray(), path_d.toarray())


def test_prediction_walks_many_dense_blocks(monkeypatch):
    # blocks of 7 rows: every method crosses many block boundaries
    from forestzoo._engine import tree as tree_module

    X, y = _data(2, n=200)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    expected = (forest.predict_proba(X), forest.apply(X), forest.decision_path(X)[0].toarray(),
                forest.estimators_[0].tree_.decision_path(X).toarray())
    monkeypatch.setattr(tree_module, "BLOCK_VALUES", 7 * X.shape[1])
    Xs = sp.csr_matrix(X)
    assert len(list(dense_row_blocks(Xs))) == 29
    assert_array_equal(forest.predict_proba(Xs), expected[0])
    assert_array_equal(forest.apply(Xs), expected[1])
    assert_array_equal(forest.decision_path(Xs)[0].toarray(), expected[2])
    assert_array_equal(forest.estimators_[0].tree_.decision_path(Xs).toarray(), expected[3])


def test_apply_csr_walks_every_row_as_its_dense_row():
    """Both CSR walkers against the dense walker: row counts not a multiple of 8, NaN (in feature 0
    too, at a leaf), explicit zeros, duplicate entries (summed), unsorted indices, fewer rows than
    the eight lanes, a one-leaf tree, a best-first tree (not in preorder, so only the eight lanes
    walk it); the scratch buffer comes back zeroed."""
    from forestzoo._engine.api import apply_csr, apply_csr_preorder, csr_arrays, csr_walker

    X, y = _data(9, n=203)
    X[[3, 50, 51], 0] = np.nan
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    best_first = DecisionTreeClassifier(max_leaf_nodes=12, random_state=0).fit(X, y).tree_
    csr = sp.csr_matrix(X)
    # the same matrix with every stored value split into two entries, each row's entries reversed
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        lo, hi = csr.indptr[i], csr.indptr[i + 1]
        data += list(csr.data[lo:hi][::-1] / 2) * 2
        indices += list(csr.indices[lo:hi][::-1]) * 2
        indptr.append(len(data))
    dup = sp.csr_matrix((np.array(data, np.float32), np.array(indices), np.array(indptr)), shape=X.shape)
    assert dup.nnz == 2 * csr.nnz
    stump = DecisionTreeClassifier().fit(X, np.zeros(X.shape[0], dtype=int)).tree_  # the root is a leaf
    assert stump.node_count == 1
    assert tree.preorder and stump.preorder and not best_first.preorder
    assert csr_walker(tree) is apply_csr_preorder and csr_walker(best_first) is apply_csr
    cases = [(csr, X), (dup, X)] + [(sp.csr_matrix(X[:m]), X[:m]) for m in (0, 1, 5, 8, 9, 17)]
    for t, walkers in ((tree, (apply_csr, apply_csr_preorder)), (stump, (apply_csr, apply_csr_preorder)),
                       (best_first, (apply_csr,))):
        for walk in walkers:
            for Xs, dense in cases:
                buf = np.zeros((8, X.shape[1]), dtype=np.float32)
                out = np.full(Xs.shape[0], -1, dtype=np.intp)
                walk(*csr_arrays(Xs), t.compact, buf, out)
                assert_array_equal(out, t.apply(np.ascontiguousarray(dense, dtype=np.float32)))
                assert not buf.any()


def test_forest_predicts_sparse_rows_across_threads_and_leaf_value_trees():
    """Sparse prediction split among threads (row blocks) and over prediction-only trees equals dense."""
    rng = np.random.RandomState(10)
    X = rng.normal(size=(8500, 30)).astype(np.float32)
    X[rng.uniform(size=X.shape) < 0.9] = 0.0
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=4, max_depth=8, n_jobs=2, random_state=0).fit(X, y)
    Xs = sp.csr_matrix(X)
    assert_array_equal(forest.predict_proba(Xs), forest.predict_proba(X))
    assert_array_equal(forest.apply(Xs), forest.apply(X))
    forest._keep_prediction_only()
    assert_array_equal(forest.predict_proba(Xs), forest.predict_proba(X))


def test_dense_row_blocks():
    X, _ = _data(3, n=50)
    blocks = list(dense_row_blocks(X, 5, 20))
    assert len(blocks) == 1 and blocks[0][:2] == (5, 20) and blocks[0][2].base is not None  # a view, no copy
    for a, b, block in dense_row_blocks(sp.csr_matrix(X.astype(np.float64)), 5, 20):
        assert block.dtype == np.float32 and block.flags.c_contiguous
        assert_array_equal(block, X[a:b])
    assert [(a, b) for a, b, _ in dense_row_blocks(sp.csr_matrix(X), 4, 4)] == [(4, 4)]


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_oob_on_sparse_equals_dense(splitter):
    X, y = _data(4, n=400)
    for cls, target in ((RandomForestClassifier, y), (RandomForestRegressor, y + X[:, 2].astype(np.float64))):
        dense = cls(n_estimators=6, oob_score=True, splitter=splitter, random_state=0).fit(X, target)
        sparse = cls(n_estimators=6, oob_score=True, splitter=splitter, random_state=0).fit(sp.csc_matrix(X), target)
        assert sparse.oob_score_ == dense.oob_score_
        oob = "oob_decision_function_" if cls is RandomForestClassifier else "oob_prediction_"
        assert_array_equal(getattr(sparse, oob), getattr(dense, oob))


def test_stored_nan_is_missing_and_absent_entries_are_zero():
    # one feature: rows 0-2 absent (0), row 3 stored 1.0, row 4 stored NaN, row 5 stored -1.0
    X = np.array([[0.0], [0.0], [0.0], [1.0], [np.nan], [-1.0]], dtype=np.float32)
    y = np.array([0, 0, 0, 1, 1, 0])
    Xs = sp.csr_matrix(X)
    assert Xs.nnz == 3
    for splitter in ("exact", "hist"):
        tree = DecisionTreeClassifier(splitter=splitter, random_state=0).fit(Xs, y)
        assert_array_equal(tree.predict(Xs), y)
        assert_array_equal(tree.predict(Xs), tree.predict(X))
        _assert_same_model(tree, DecisionTreeClassifier(splitter=splitter, random_state=0).fit(X, y))


def test_all_zero_matrix_and_explicit_zeros():
    X, y = _data(5, n=60)
    empty = sp.csr_matrix(X.shape, dtype=np.float64)
    tree = DecisionTreeClassifier(random_state=0).fit(empty, y)
    assert tree.tree_.node_count == 1
    # explicit zeros are values 0, as absent entries are
    explicit = sp.csr_matrix(X)
    explicit.data[::3] = 0.0
    assert explicit.nnz == sp.csr_matrix(X).nnz
    dense = explicit.toarray()
    for splitter in ("exact", "hist"):
        a = DecisionTreeClassifier(splitter=splitter, random_state=0).fit(explicit, y)
        b = DecisionTreeClassifier(splitter=splitter, random_state=0).fit(dense, y)
        _assert_same_model(a, b)


def test_unsorted_indices_and_duplicates_are_read_as_scipy_reads_them():
    X, y = _data(6, n=80)
    csc = sp.csc_matrix(X)
    csc.indices = csc.indices.copy()
    csc.data = csc.data.copy()
    # reverse the row order inside every column: the same matrix, indices unsorted
    for f in range(csc.shape[1]):
        lo, hi = csc.indptr[f], csc.indptr[f + 1]
        csc.indices[lo:hi] = csc.indices[lo:hi][::-1]
        csc.data[lo:hi] = csc.data[lo:hi][::-1]
    csc.has_sorted_indices = False
    before = (csc.indices.copy(), csc.data.copy())
    a = DecisionTreeClassifier(random_state=0).fit(csc, y)
    assert_array_equal(csc.indices, before[0])  # the caller's matrix is not modified
    assert_array_equal(csc.data, before[1])
    _assert_same_model(a, DecisionTreeClassifier(random_state=0).fit(X, y))
    # COO with duplicates: summed, as scipy's toarray sums them
    coo = sp.coo_matrix(X)
    half = coo.data / 2
    dup = sp.coo_matrix((np.concatenate([half, half]), (np.tile(coo.row, 2), np.tile(coo.col, 2))), shape=X.shape)
    b = DecisionTreeClassifier(random_state=0).fit(dup, y)
    _assert_same_model(b, DecisionTreeClassifier(random_state=0).fit(dup.toarray(), y))


def test_sparse_with_infinity_is_rejected():
    X, y = _data(7, n=40)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="[Ii]nfinity"):
        DecisionTreeClassifier().fit(sp.csr_matrix(X), y)
    X[0, 0] = 1.0
    tree = DecisionTreeClassifier().fit(sp.csr_matrix(X), y)
    X[1, 1] = np.inf
    with pytest.raises(ValueError, match="[Ii]nfinity"):
        tree.predict(sp.csr_matrix(X))


def test_low_level_tree_methods_take_sparse_and_name_what_they_take():
    X, y = _data(8)
    tree = DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    Xs = sp.csr_matrix(X)
    assert_array_equal(tree.apply(Xs), tree.apply(X))
    assert_array_equal(tree.predict(sp.csc_array(X)), tree.predict(X))
    assert_array_equal(tree.decision_path(Xs).toarray(), tree.decision_path(X).toarray())
    with pytest.raises(TypeError, match="numpy array or a scipy sparse"):
        tree.apply(X.tolist())


def test_sparse_tags():
    for cls in TREES + FORESTS:
        assert cls().__sklearn_tags__().input_tags.sparse
    assert not RotationForestClassifier().__sklearn_tags__().input_tags.sparse


def test_other_families_reject_sparse_naming_themselves():
    X, y = _data(9, n=60)
    with pytest.raises(TypeError, match="Sparse data .* RotationForestClassifier requires dense data"):
        RotationForestClassifier(n_estimators=2).fit(sp.csr_matrix(X), y)
    fitted = RotationForestClassifier(n_estimators=2, random_state=0).fit(np.nan_to_num(X), y)
    with pytest.raises(TypeError, match="RotationForestClassifier requires dense data"):
        fitted.predict(sp.csr_matrix(X))


@pytest.mark.parametrize("cls", FORESTS)
def test_forests_refuse_a_sparse_y_as_scikit_learn_does(cls):
    with pytest.raises(ValueError, match="sparse multilabel-indicator for y is not supported"):
        cls(n_estimators=2).fit(np.eye(3), sp.csr_matrix(np.eye(3)))


def _indexed_data(seed=0, n=1500, d=120):
    """A sparse matrix whose hist codes are kept in the column index alone: 3 % stored values, explicit
    zeros, NaN, a column stored in every row without a dominant code and one whose dominant value is not 0."""
    rng = np.random.RandomState(seed)
    X = np.zeros((n, d), np.float32)
    mask = rng.uniform(size=X.shape) < 0.03
    X[mask] = rng.normal(size=mask.sum())
    X[:, 0] = rng.normal(size=n).round(1)
    X[:, 1] = np.where(rng.uniform(size=n) < 0.7, 2.0, rng.normal(size=n))
    X[rng.uniform(size=n) < 0.01, 2] = np.nan
    Xs = sp.csr_matrix(X)
    Xs.data[::40] = 0.0  # explicit zeros
    y = ((X[:, 0] > 0) ^ (X[:, 3] > 0) | (X[:, 1] != 2.0)).astype(np.int64) + (X[:, 4] > 0)
    return Xs, Xs.toarray(), y


def test_sparse_hist_codes_kept_in_the_column_index_equal_the_code_matrix():
    from forestzoo._engine.builder import prepare_data

    for seed in range(3):
        Xs, X, _ = _indexed_data(seed)
        kept, dense = prepare_data(Xs, "hist", 255), prepare_data(X, "hist", 255)
        assert kept.indexed_only and not dense.indexed_only
        assert kept.Xb.shape == (X.shape[1], 0)  # no code matrix
        assert_array_equal(kept.codes(), dense.Xb)
        for a, b in [(kept.dominant, dense.dominant), (kept.row_ptr, dense.row_ptr), (kept.row_feat, dense.row_feat)]:
            assert_array_equal(a, b)
        for a, b in zip(kept.columns()[:4], dense.columns()[:4]):
            assert_array_equal(a, b)
        dense_row, Xd = kept.columns()[4:]
        assert dense_row[0] == 0 and (dense_row[1:] == -1).all() and kept.dominant[0] == -1
        assert_array_equal(Xd[0], dense.Xb[0])
    # a matrix too dense for the index keeps the code matrix
    Xs = sp.random(200, 20, density=0.5, random_state=0, format="csr", dtype=np.float32)
    data = prepare_data(Xs, "hist", 255)
    assert not data.indexed_only and data.Xb.shape == (20, 200)


def test_node_codes_and_indexed_histograms_equal_the_code_matrix_reads():
    from forestzoo._engine.binning import MISSING_BIN
    from forestzoo._engine.builder import prepare_data
    from forestzoo._engine.splitters.hist import (
        build_histogram_cls, entry_codes, gather_node_entries, indexed_histogram_cls, node_codes,
    )

    Xs, X, _ = _indexed_data(1)
    kept, Xb = prepare_data(Xs, "hist", 255), prepare_data(X, "hist", 255).Xb
    col_ptr, col_rows, col_codes, _, dense_row, Xd = kept.columns()
    rng = np.random.RandomState(0)
    n_classes = 3
    for n_rows in (5, 40, 300, 1500):
        idx = np.sort(rng.choice(X.shape[0], n_rows, replace=False)).astype(np.uint32)
        rng.shuffle(idx[: n_rows // 2])  # a node's rows need not be sorted
        row_pos = np.full(X.shape[0], -1, np.int64)
        row_pos[idx] = np.arange(n_rows)
        w = rng.poisson(1.0, n_rows).astype(np.float64) + 1.0
        yk = rng.randint(0, n_classes, n_rows).astype(np.int32)
        start, end = n_rows // 4, n_rows
        total = np.zeros(2 + n_classes)
        for p in range(start, end):
            total[0] += 1.0
            total[1] += w[p]
            total[2 + yk[p]] += w[p]
        counts = np.zeros(X.shape[1], np.int32)
        ent_off = np.zeros(X.shape[1], np.int64)
        n_entries = int(np.diff(kept.row_ptr)[idx[start:end]].sum())
        ent_pos, ent_code = np.zeros(n_entries, np.int64), np.zeros(n_entries, np.uint8)
        gather_node_entries(idx, start, end, kept.row_ptr, kept.row_feat, kept.columns()[3], counts,
                            np.zeros(X.shape[1], np.int32), ent_off, ent_pos, ent_code, True)
        for f in range(X.shape[1]):
            row_codes = np.zeros(X.shape[0], np.uint8)
            codes = node_codes(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, kept.dominant[f], dense_row,
                               Xd, row_codes)
            assert_array_equal(codes[idx[start:end]], Xb[f, idx[start:end]])
            # the same codes from the node's entries of the row index (the regression grower's small nodes)
            lo_e = ent_off[f] - counts[f]
            codes = entry_codes(f, idx, start, end, kept.dominant[f], ent_pos, ent_code, lo_e, ent_off[f], dense_row,
                                Xd, np.zeros(X.shape[0], np.uint8))
            assert_array_equal(codes[idx[start:end]], Xb[f, idx[start:end]])
            want = np.full((MISSING_BIN + 1, 2 + n_classes), -1.0)
            got = want.copy()
            n_bins = int(kept.n_bins[f])
            build_histogram_cls(Xb[f], idx, start, end, w, yk, np.empty(0), n_bins, want)
            indexed_histogram_cls(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, w, yk, np.empty(0), n_bins,
                                  got, kept.dominant[f], total, dense_row, Xd, row_codes)
            assert_array_equal(got[:n_bins], want[:n_bins])
            assert_array_equal(got[MISSING_BIN], want[MISSING_BIN])


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=4, random_state=0),
    lambda: RandomForestClassifier(n_estimators=2, max_features=None, max_leaf_nodes=40, random_state=1),
    lambda: DecisionTreeClassifier(splitter="hist", criterion="entropy", random_state=0),
    lambda: ExtraTreesClassifier(n_estimators=3, splitter="hist", random_state=0),
    lambda: RandomForestClassifier(n_estimators=3, class_weight="balanced", random_state=0),
    lambda: RandomForestRegressor(n_estimators=3, random_state=0),
    lambda: RandomForestRegressor(n_estimators=2, max_features=None, max_leaf_nodes=60, random_state=1),
    lambda: RandomForestRegressor(n_estimators=2, criterion="poisson", random_state=0),
    lambda: DecisionTreeRegressor(splitter="hist", min_samples_leaf=3, random_state=0),
    lambda: ExtraTreesRegressor(n_estimators=2, splitter="hist", random_state=0),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_on_sparse_codes_kept_in_the_column_index_grows_the_dense_model(make, weighted, monkeypatch):
    monkeypatch.setattr("forestzoo._engine.builder.INDEXED_READ_MIN_CELLS", 0)  # the index for these sizes
    Xs, X, y = _indexed_data(2)
    dense = make()
    if not hasattr(dense, "predict_proba"):
        y = y + np.abs(np.nan_to_num(X[:, 0] * X[:, 5], nan=0.0)).astype(np.float64) + 1.0
    # fractional weights: the classification grower then reads the code matrix rebuilt from the index,
    # the regression grower still reads the index
    sw = np.random.RandomState(3).uniform(0.2, 2.0, X.shape[0]) if weighted else None
    dense.fit(X, y, sample_weight=sw)
    sparse = make().fit(Xs, y, sample_weight=sw)
    _assert_same_model(dense, sparse)
    assert_array_equal(dense.predict(X), sparse.predict(Xs))
    # multi-output y: the grower of .multioutput reads the index too
    if hasattr(dense, "predict_proba"):
        Y = np.c_[y, (X[:, 0] > 0.5).astype(int)]
    else:
        Y = np.c_[y, np.abs(np.nan_to_num(X[:, 7])) + 0.5]
    _assert_same_model(make().fit(X, Y, sample_weight=sw), make().fit(Xs, Y, sample_weight=sw))


def test_regression_and_multi_output_on_codes_kept_in_the_column_index_build_no_code_matrix(monkeypatch):
    from forestzoo._engine.builder import TrainingData

    Xs, X, y = _indexed_data(4)
    y = y + X[:, 0].astype(np.float64)

    def no_matrix(self):
        raise AssertionError("the code matrix was rebuilt")

    monkeypatch.setattr(TrainingData, "codes", no_matrix)
    RandomForestClassifier(n_estimators=2, random_state=0).fit(Xs, (y > 1).astype(np.int64))
    # the regression and multi-output growers read the code matrix while it is small, the index once it is large
    regressor = RandomForestRegressor(n_estimators=2, random_state=0)
    Y = np.c_[(y > 1).astype(np.int64), (X[:, 0] > 0).astype(np.int64)]
    with pytest.raises(AssertionError, match="rebuilt"):
        regressor.fit(Xs, y)
    with pytest.raises(AssertionError, match="rebuilt"):
        RandomForestClassifier(n_estimators=2, random_state=0).fit(Xs, Y)
    monkeypatch.setattr("forestzoo._engine.builder.INDEXED_READ_MIN_CELLS", Xs.shape[0] * Xs.shape[1])
    regressor.fit(Xs, y, sample_weight=np.linspace(0.5, 1.5, len(y)))
    regressor.fit(Xs, np.c_[y, y ** 2])
    RandomForestClassifier(n_estimators=2, random_state=0).fit(Xs, Y)
    # the absolute-error grower reads the code matrix, rebuilt from the index
    with pytest.raises(AssertionError, match="rebuilt"):
        RandomForestRegressor(n_estimators=1, criterion="absolute_error", max_depth=2, random_state=0).fit(Xs, y)
