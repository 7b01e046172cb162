"""Training data preparation and one-tree growth: what the estimators call to grow a tree.

Everything here works on validated numpy arrays or scipy sparse matrices.  A forest prepares the
training data once (:func:`prepare_data`: bins or the feature-major float
matrix) and then calls :func:`grow` once per tree with that tree's weights.
"""

import threading
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from .binning import bin_data, compute_bin_edges, dominant_codes, other_code_rows, sparse_code_index
from .criteria import ABSOLUTE_ERROR, CRITERIA, SQUARED_ERROR
from .data import csc_layout
from .edit import depth_first_order
from .grower import (
    COL_DEPTH, COL_FEATURE, COL_IMPROVEMENT, COL_IMPURITY, COL_LEFT, COL_MISSING_LEFT,
    COL_N_SAMPLES, COL_OBLIQUE, COL_RIGHT, COL_THRESHOLD, COL_WEIGHTED_N, grower_for,
)
from .node_model import registered
from .prune import prune_tree
from .rng import make_state
from .multioutput import MAX_POOL_SLOTS, grow_multi_for
from .splitters import EXACT, HIST, RANDOM, SPLITTERS, STOCHASTIC
from .splitters.hist import column_index, integral_weights
from .tree import NODE_DTYPE, Tree
from .._jit import njit

# Histogram buffers kept per tree for the subtraction trick, capped in bytes.
_POOL_BYTES = 64 * 2**20
# Node-local copies of small subtrees (exact and random splitters; see grow_tree's local_rows), capped
# in bytes; 0 disables them.  4 MB was the fastest of 0.5-16 MB for ExtraTrees on make_classification
# 100k x 50 and 1M x 50 here (2 threads, 32 MB L3): larger blocks fall out of the cache.
_LOCAL_BYTES = 4 * 2**20
_LOCAL_MAX_ROWS = 1 << 16
_EMPTY_POOL = np.empty((0, 0, 256, 1))
_EMPTY_MONO = np.empty(0)  # no monotonic constraint (read-only: grow_tree writes only a non-empty one)
_EMPTY_INT32 = np.empty(0, dtype=np.int32)  # no dominant codes / no row-wise index
_NO_ROW_PTR = np.empty(0, dtype=np.int64)
_NO_BOUNDS = np.empty((0, 0, 2), dtype=np.float64)
# no column index (splitters.hist.column_index): col_ptr, col_rows, col_codes, row_code, and no code rows kept
# apart (binning.sparse_code_index): dense_row, Xd
_NO_COLUMNS = (np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0, np.uint8), np.empty(0, np.uint8),
               np.empty(0, np.int32), np.empty((0, 0), np.uint8))
_NO_CODE_ROWS = _NO_COLUMNS[4:]
_COLUMNS_LOCK = threading.Lock()
#: The regression and multi-output hist growers read sparse codes kept in the column index alone (no code
#: matrix) when the code matrix would hold at least this many cells (bytes); a smaller one is rebuilt and
#: read, which fits faster while it stays in the CPU's caches (measured in docs/benchmarks/sparse.md,
#: "Regression and multi-output y").
INDEXED_READ_MIN_CELLS = 2**27


def _bounds_of(data):
    """The bins' bounds the grower reads (an empty array: thresholds at the bin edges)."""
    return _NO_BOUNDS if data.bin_bounds is None else data.bin_bounds


@dataclass
class TrainingData:
    """The training matrix in the layout the chosen splitter reads."""

    splitter: int
    n_features: int
    #: uint8 (n_features, n_samples) codes (hist; empty otherwise), or (n_features, 0) when the codes of a
    #: sparse X are kept in its column index alone (see :meth:`codes` and binning.sparse_code_index)
    Xb: np.ndarray
    Xf: np.ndarray | tuple  # float32 (n_features, n_samples) values, or the CSC tuple of .data; empty for hist
    edges: np.ndarray  # float64 (n_features, max_bins - 1)
    n_bins: np.ndarray  # int32 (n_features,)
    #: int32 (n_features,): per feature the code most rows hold, -1 where none holds more than half
    #: (hist; see binning.dominant_codes), or None
    dominant: np.ndarray | None = None
    #: int64 (n_samples + 1,) and int32: the row-wise index of binning.other_code_rows, or None
    row_ptr: np.ndarray | None = None
    row_feat: np.ndarray | None = None
    #: float64 (n_features, max_bins, 2): each bin's least and greatest value (hist; see
    #: binning.split_threshold), or None: thresholds at the bin edges
    bin_bounds: np.ndarray | None = None
    _columns: tuple | None = field(default=None, repr=False)
    _codes: np.ndarray | None = field(default=None, repr=False)

    @property
    def indexed_only(self):
        """Whether the codes are kept in the column index alone (a sparse ``X``; ``Xb`` has no columns)."""
        return self.splitter == HIST and self.Xb.shape[1] == 0 and self.row_ptr is not None and self.row_ptr.size > 1

    def index_read_rowwise(self):
        """Whether a grower that reads codes row by row (regression, multi-output ``y``) reads them from the
        column index: codes kept there alone, and a code matrix of at least ``INDEXED_READ_MIN_CELLS`` cells."""
        return self.indexed_only and self.n_features * (self.row_ptr.shape[0] - 1) >= INDEXED_READ_MIN_CELLS

    def columns(self):
        """The column index of the row-wise index and the code rows kept apart
        (``(col_ptr, col_rows, col_codes, row_code, dense_row, Xd)``, see
        :func:`.binning.sparse_code_index`), built on first use and then shared
        by every tree grown on this data; empty arrays without a row-wise index."""
        if self.row_ptr is None or self.row_ptr.size == 0:
            return _NO_COLUMNS
        if self._columns is None:
            with _COLUMNS_LOCK:  # the trees of a forest ask from several threads: build it once
                if self._columns is None:
                    self._columns = column_index(self.row_ptr, self.row_feat, self.Xb) + _NO_CODE_ROWS
        return self._columns

    def codes(self):
        """The ``(n_features, n_samples)`` code matrix: ``Xb``, or, for codes kept in the column index
        alone, the matrix rebuilt from it on first use (for the growers that read codes row by row:
        absolute error, node models, classification with non-integer weights, and regression and
        multi-output ``y`` below ``INDEXED_READ_MIN_CELLS`` cells)."""
        if not self.indexed_only:
            return self.Xb
        if self._codes is None:
            with _COLUMNS_LOCK:
                if self._codes is None:
                    col_ptr, col_rows, col_codes, _, dense_row, Xd = self._columns
                    n_samples = self.row_ptr.shape[0] - 1
                    codes = np.empty((self.n_features, n_samples), np.uint8)
                    codes[:] = np.maximum(self.dominant, 0).astype(np.uint8)[:, None]
                    dense = np.flatnonzero(dense_row >= 0)
                    codes[dense] = Xd[dense_row[dense]]
                    codes[np.repeat(np.arange(self.n_features), np.diff(col_ptr)), col_rows] = col_codes
                    self._codes = codes
        return self._codes


def prepare_data(X, splitter, max_bins, seed=0, sample_weight=None, n_threads=1):
    """Bin ``X`` (hist) or store it feature-major (exact, random); done once per forest.

    ``X`` is a 2-D numpy array or a scipy sparse matrix or array (absent
    entries are 0, a stored NaN is missing).  A sparse ``X`` is never made
    dense: the exact, random and stochastic splitters read it in the CSC
    layout of :mod:`.data` (:func:`.data.csc_layout`), and hist codes it
    column by column with the same uint8 codes as the dense matrix, so that it
    grows the same trees as on the dense matrix.  Where at most an eighth of
    the codes differ from their feature's dominant code, only those are kept,
    in the index of :func:`.binning.sparse_code_index` (``Xb`` then has no
    columns; :meth:`TrainingData.codes` rebuilds the matrix for the growers
    that read it), else the ``n_features x n_samples`` code matrix.

    With ``sample_weight``, the bin edges are the quantiles of the rows of
    positive weight only: a row of weight 0 is absent from training and must
    not move a threshold (scikit-learn's sample-weight equivalence).
    ``n_threads`` threads bin blocks of features; the result does not depend on it.
    """
    code = SPLITTERS[splitter]
    n_samples, n_features = X.shape
    if n_samples >= 2**31 - 1:
        raise ValueError(f"X has {n_samples} rows; forestzoo trees index rows with int32 (< 2**31 - 1).")
    if code == HIST:
        if sp.issparse(X):
            X = sp.csc_matrix(X)
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
        rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        edges, n_bins, bin_bounds = compute_bin_edges(rows if rows.shape[0] else X, max_bins, seed=seed,
                                                      n_threads=n_threads, bounds=True)
        Xf = np.empty((0, 0), dtype=np.float32)
        # an index of at most an eighth of the codes: half the bytes of the code matrix at most
        max_entries = n_features * n_samples // 8
        index = sparse_code_index(X, edges, n_bins, max_entries) if sp.issparse(X) else None
        if index is not None:  # the codes kept in the index alone: no code matrix
            dominant, row_ptr, row_feat, columns = index
            return TrainingData(code, n_features, np.zeros((n_features, 0), np.uint8), Xf, edges, n_bins, dominant,
                                row_ptr, row_feat, bin_bounds, columns)
        Xb = bin_data(X, edges, n_bins, n_threads=n_threads)
        csc = X if sp.issparse(X) else None
        dominant = dominant_codes(Xb, n_bins, edges, csc)
        row_ptr, row_feat = other_code_rows(Xb, dominant, max_entries, csc)
    else:
        edges = np.empty((n_features, 0), dtype=np.float64)
        n_bins = np.zeros(n_features, dtype=np.int32)
        Xb = np.empty((0, 0), dtype=np.uint8)
        Xf = csc_layout(X) if sp.issparse(X) else np.ascontiguousarray(X.T, dtype=np.float32)
        dominant = row_ptr = row_feat = bin_bounds = None
    return TrainingData(code, n_features, Xb, Xf, edges, n_bins, dominant, row_ptr, row_feat, bin_bounds)


def resolve_max_features(max_features, n_features):
    """Number of features drawn per node, as scikit-learn defines ``max_features``."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(np.log2(n_features)))
        raise ValueError(f"max_features={max_features!r} is not one of 'sqrt', 'log2'.")
    if isinstance(max_features, (int, np.integer)):
        return int(min(max_features, n_features))
    return max(1, int(max_features * n_features))


# _fill_nodes zeroes a record's last 8 bytes and then writes missing_left there: the only padding of
# NODE_DTYPE must lie in them (a new field would move it; then zero the padding another way)
_TAIL = NODE_DTYPE.itemsize - 8
if not (NODE_DTYPE.itemsize % 8 == 0 and NODE_DTYPE.fields["missing_left"][1] == _TAIL
        and sum(dt.itemsize for name, (dt, _) in NODE_DTYPE.fields.items() if name != "missing_left") == _TAIL):
    raise RuntimeError("NODE_DTYPE changed: revisit table_to_nodes' padding")


@njit
def _fill_nodes(table, nodes, tail):
    """One pass over the rows: ``tail`` (the records' last 8 bytes as uint64) is zeroed first, so
    the padding after ``missing_left`` is zero and equal trees pickle equal."""
    for i in range(table.shape[0]):
        tail[i] = 0
        rec = nodes[i]
        rec.left = np.int32(table[i, COL_LEFT])
        rec.right = np.int32(table[i, COL_RIGHT])
        rec.feature = np.int32(table[i, COL_FEATURE])
        rec.oblique = np.int32(table[i, COL_OBLIQUE])
        rec.threshold = table[i, COL_THRESHOLD]
        rec.depth = np.int32(table[i, COL_DEPTH])
        rec.n_samples = np.int32(table[i, COL_N_SAMPLES])
        rec.weighted_n_samples = table[i, COL_WEIGHTED_N]
        rec.impurity = table[i, COL_IMPURITY]
        rec.improvement = table[i, COL_IMPROVEMENT]
        rec.missing_left = np.uint8(table[i, COL_MISSING_LEFT])


def table_to_nodes(table):
    """The grower's float64 node table as a :data:`NODE_DTYPE` array.

    One compiled pass over the rows: eleven NumPy field assignments each swept
    the whole record array (~4 ms, 6 % of a 10-class Extra Trees tree's fit).
    """
    n = table.shape[0]
    nodes = np.empty(n, dtype=NODE_DTYPE)
    # the last 8 bytes of a record: missing_left and the padding (NODE_DTYPE is 64 bytes, aligned)
    tail = nodes.view(np.uint64).reshape(n, NODE_DTYPE.itemsize // 8)[:, -1]
    _fill_nodes(np.ascontiguousarray(table), nodes, tail)
    return nodes


#: Default parameters of the stochastic splitter: C, alpha, min_features_fraction, N_0
#: (the SDT paper, "Stochastic induction of decision trees with application to learning Haar tree",
#: Sections 3 and 4: C = 10, alpha = 7-10, ~0.5 % of the features kept, N_0 = 20).
SDT_DEFAULTS = (10.0, 8.0, 0.005, 20.0)


@dataclass(frozen=True, eq=False)
class TreeTarget:
    """What a tree is grown to predict, in the engine's encoding.

    ``yk`` (int32 class codes) and ``yr`` (float64 targets) both have one
    entry per training row; the criterion decides which one is read, the
    other is usually zeros.  ``n_values`` is the width of a node's value
    row: the number of classes, or 1 for regression.
    """

    yk: np.ndarray
    yr: np.ndarray
    n_values: int

    @classmethod
    def regression(cls, yr, yk=None):
        """The target of a squared-error tree on ``yr``; ``yk`` (int32 zeros) may be passed to reuse it."""
        return cls(np.zeros(yr.shape[0], np.int32) if yk is None else yk, yr, 1)


@dataclass(frozen=True, eq=False)
class MultiOutputTarget:
    """A 2-D target: ``n_outputs`` columns predicted by one tree (:mod:`.multioutput`).

    ``Y`` is float64 ``(n_samples, n_outputs)``: each output's class codes
    (0 .. ``n_classes[o] - 1``) for classification, its values for
    regression.  ``n_classes`` holds the number of classes of every output
    (None for regression).  A node's value row has ``n_outputs * max(n_classes)``
    entries (class proportions, zero-padded) or ``n_outputs`` (means).
    """

    Y: np.ndarray
    n_classes: tuple | None = None

    @property
    def n_outputs(self):
        """The number of outputs (columns of ``Y``)."""
        return int(self.Y.shape[1])

    @property
    def n_values(self):
        """Width of a node's value row: ``n_outputs * max(n_classes)``, or ``n_outputs`` for regression."""
        return self.n_outputs * (1 if self.n_classes is None else max(self.n_classes))


@dataclass(frozen=True)
class TreeParams:
    """How one tree is grown: the engine's growth parameters, resolved for the training data.

    Fields are the values the grower reads, not the estimators' parameters:
    ``max_features`` is the number of candidate features per node (None:
    every feature of the data), ``min_samples_split`` / ``min_samples_leaf``
    are row counts, ``min_weight_fraction_leaf`` is a fraction of each
    tree's own total weight (its weights differ per tree),
    ``monotonic_cst`` one of -1 / 0 / +1 per feature of the data the tree
    is grown on (None: unconstrained), ``sdt`` the stochastic splitter's
    ``(C, alpha, min_features_fraction, N_0)``.  ``ccp_alpha > 0`` prunes
    the grown tree (minimal cost-complexity, :mod:`forestzoo._engine.prune`).

    An estimator resolves them once per fit from its parameters;
    :func:`grow` takes them for every tree of that fit.
    """

    criterion: str
    max_features: int | None = None
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_weight_fraction_leaf: float = 0.0
    min_impurity_decrease: float = 0.0
    max_leaf_nodes: int | None = None
    ccp_alpha: float = 0.0
    monotonic_cst: tuple | None = None
    sdt: tuple = SDT_DEFAULTS

    def __post_init__(self):
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion={self.criterion!r} is not one of {sorted(CRITERIA)}.")
        if self.max_features is not None and not (isinstance(self.max_features, Integral) and self.max_features >= 1):
            raise ValueError(f"TreeParams.max_features is a number of features (>= 1) or None, not "
                             f"{self.max_features!r}; resolve_max_features turns a fraction or name into one.")

    def min_weight_leaf(self, weights):
        """Least weight of a leaf for a tree grown with ``weights``."""
        return self.min_weight_fraction_leaf * weights.sum()


def _check_absolute_error(data, params):
    """Refuse what the absolute-error search does not support: monotonic constraints, the SDT splitter."""
    if data.splitter == STOCHASTIC:
        raise ValueError('criterion="absolute_error" is not supported with splitter="stochastic"; use "exact", '
                         '"random" or "hist".')
    if params.monotonic_cst is not None:
        raise ValueError('Monotonicity constraints are not supported with criterion="absolute_error".')


def _numbered_as_scikit_learn(nodes, values, max_leaf_nodes, row_leaf=None):
    """The grown tree's ``(nodes, values)`` in scikit-learn's node order.

    The growers number a node's two children together, when the node is
    split.  A tree grown depth-first (no ``max_leaf_nodes``) is renumbered
    depth-first, left child first, as scikit-learn's depth-first builder
    numbers it; best-first growth numbers the children of each split in
    the order of the splits, as scikit-learn's best-first builder does, and
    is kept.  ``row_leaf`` (each row's leaf, -1 for none) is renumbered in
    place.
    """
    if max_leaf_nodes >= 0:
        return nodes, values
    nodes, values, new_index = depth_first_order(nodes, values)
    if row_leaf is not None and row_leaf.shape[0]:
        reached = row_leaf >= 0
        row_leaf[reached] = new_index[row_leaf[reached]]
    return nodes, values


def grow(data, target, weights, params, seed, *, node_model=None, workspace=None, return_leaves=False,
         hist_threads=1):
    """Grow one tree on the rows with positive ``weights``; returns a :class:`Tree`.

    ``data`` comes from :func:`prepare_data`, ``target`` is a
    :class:`TreeTarget` and ``params`` a :class:`TreeParams`; ``seed``
    seeds the tree's random stream.  ``node_model`` (a
    :class:`forestzoo._engine.node_model.NodeModel`) is asked first at
    every node; its projections become the tree's oblique side arrays.  The
    returned tree's ``n_split_evaluations`` is the number of (row, feature)
    pairs its split searches read.

    ``workspace`` (a dict owned by the caller, one per thread) keeps the
    histogram pool from one call to the next, which saves its allocation
    when many trees are grown on the same data (boosting).  With
    ``return_leaves``, returns ``(tree, leaves)``: the leaf each row ends in
    (-1 for rows of weight 0).  ``hist_threads`` threads build the
    histograms of large nodes (hist splitter, every feature evaluated); the
    tree is the same for any value, so it is an argument of the call, not
    one of the tree's parameters.  ``params.monotonic_cst`` (checked by the
    caller) constrains the tree to be monotonic in those features, as
    scikit-learn's trees are (see ``mono`` in the grower of
    :func:`forestzoo._engine.grower.grower_for`).
    """
    if params.ccp_alpha > 0 and return_leaves:
        raise ValueError("return_leaves maps rows to the leaves of the grown tree; it cannot follow ccp_alpha pruning.")
    if isinstance(target, MultiOutputTarget):
        if node_model is not None or return_leaves:
            raise ValueError("A multi-output tree is grown without a node model or return_leaves.")
        return _grow_multi(data, target, weights, params, seed)
    crit = CRITERIA[params.criterion]
    absolute_error = crit == ABSOLUTE_ERROR
    if absolute_error:
        _check_absolute_error(data, params)
    n_values = target.n_values
    weights = weights.astype(np.float64, copy=False)
    # unsigned: numba then skips the negative-index test on every gather X[f, idx[p]]
    idx = np.flatnonzero(weights > 0).astype(np.uint32)
    if idx.shape[0] == 0:
        raise ValueError("No training row has a positive weight: a tree needs at least one.")
    n_stats = 4 if crit >= SQUARED_ERROR else 2 + n_values
    slot_bytes = data.n_features * 256 * n_stats * 8
    # absolute error searches the rows themselves: no histograms to keep
    pool_slots = 0 if absolute_error else int(min(32, max(2, _POOL_BYTES // max(slot_bytes, 1))))
    n_evals = np.zeros(1, np.int64)
    sdt = np.asarray(params.sdt, dtype=np.float64)
    n_candidates = data.n_features if params.max_features is None else min(params.max_features, data.n_features)
    pool_buf = _EMPTY_POOL
    if workspace is not None and data.splitter == HIST and n_candidates >= data.n_features:
        pool_buf = workspace.get("pool", _EMPTY_POOL)
        if pool_buf.shape[0] < pool_slots or pool_buf.shape[1] != data.n_features or pool_buf.shape[3] != n_stats:
            pool_buf = workspace["pool"] = np.empty((pool_slots, data.n_features, 256, n_stats))
    row_leaf = np.full(weights.shape[0] if return_leaves else 0, -1, dtype=np.int32)
    if params.monotonic_cst is None:
        mono = _EMPTY_MONO
    else:
        # mono[:2]: the current node's bounds, which the grower writes per node
        mono = np.concatenate(([-np.inf, np.inf], np.asarray(params.monotonic_cst, dtype=np.float64)))
    local_rows = min(_LOCAL_MAX_ROWS, _LOCAL_BYTES // (4 * max(data.n_features, 1)), idx.shape[0])
    max_depth = -1 if params.max_depth is None else int(params.max_depth)
    max_leaf_nodes = -1 if params.max_leaf_nodes is None else int(params.max_leaf_nodes)
    min_impurity_decrease = float(params.min_impurity_decrease)

    has_index = data.row_ptr is not None and data.row_ptr.size > 0
    regression = crit >= SQUARED_ERROR
    # codes kept in the column index alone are read from it by the classification hist grower when every
    # weight is an integer (its column searches are exact then) and by the squared-error and Poisson hist
    # grower when the code matrix would be large (INDEXED_READ_MIN_CELLS); the absolute-error grower,
    # node models and the other cases read the code matrix
    indexed = data.indexed_only and node_model is None and not absolute_error
    if indexed:
        indexed = data.index_read_rowwise() if regression else integral_weights(weights)
    # what a hist grower reads of the column index (see grower_for's ``columns``): the classification
    # grower searches sparse columns from it, the regression one reads codes kept there alone
    columns = has_index and data.splitter == HIST and node_model is None and (indexed or not regression)
    Xb = data.Xb if indexed else data.codes()
    if indexed:
        hist_threads = 1  # the threaded histogram builder reads the code matrix

    def run(handle):
        return grower_for(data.splitter, absolute_error, regression, has_index and (indexed or not regression))(
            Xb, data.Xf, data.n_bins, data.edges, _bounds_of(data), target.yk, target.yr, weights, idx, n_values,
            crit, data.splitter, n_candidates, max_depth, int(params.min_samples_split), int(params.min_samples_leaf),
            float(params.min_weight_fraction_leaf) * weights.sum(), min_impurity_decrease,
            max_leaf_nodes, make_state(seed), pool_slots, handle, sdt, n_evals,
            pool_buf, row_leaf, int(hist_threads), int(local_rows), mono,
            _EMPTY_INT32 if data.dominant is None else data.dominant,
            _NO_ROW_PTR if data.row_ptr is None else data.row_ptr,
            _EMPTY_INT32 if data.row_feat is None else data.row_feat,
            data.columns() if columns else _NO_COLUMNS,
        )

    if node_model is None:
        table, values = run(-1)
        side_arrays = ()
    else:
        with registered(node_model) as handle:
            table, values = run(handle)
        side_arrays = node_model.side_arrays()
    nodes, values = _numbered_as_scikit_learn(table_to_nodes(table), values, max_leaf_nodes, row_leaf)
    tree = Tree(nodes, values, data.n_features, *side_arrays)
    if params.ccp_alpha > 0:
        tree = prune_tree(tree, params.ccp_alpha)
    tree.n_split_evaluations = int(n_evals[0])
    tree.compact  # the prediction layout, derived here on the fitting thread rather than at the first predict
    if return_leaves:
        return tree, row_leaf
    return tree


#: Criteria of multi-output trees (:mod:`.multioutput`): the others have no multi-output search.
MULTI_OUTPUT_CRITERIA = ("gini", "entropy", "log_loss", "squared_error", "friedman_mse", "poisson", "absolute_error")


def check_multi_output(splitter, params):
    """Raise a ``ValueError`` naming the reason when a multi-output tree cannot be grown with ``splitter``
    (a name or code) and ``params``.

    Supported: the ``gini``, ``entropy`` / ``log_loss``, ``squared_error``,
    ``poisson`` and ``absolute_error`` criteria, the exact, random and hist
    splitters; not monotonic constraints (scikit-learn refuses them too) or
    the stochastic splitter.
    """
    if params.criterion not in MULTI_OUTPUT_CRITERIA:
        raise ValueError(f"criterion={params.criterion!r} does not support multi-output y (a 2-D y with several "
                         f"columns); use one of {sorted(MULTI_OUTPUT_CRITERIA)}, or fit one estimator per output.")
    code = SPLITTERS[splitter] if isinstance(splitter, str) else splitter
    if code not in (HIST, EXACT, RANDOM):
        raise ValueError('splitter="stochastic" does not support multi-output y; use "exact", "random" or "hist".')
    if params.monotonic_cst is not None:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")


def _grow_multi(data, target, weights, params, seed):
    """:func:`grow` for a :class:`MultiOutputTarget` (the grower of :mod:`.multioutput`)."""
    check_multi_output(data.splitter, params)
    crit = CRITERIA[params.criterion]
    weights = weights.astype(np.float64, copy=False)
    idx = np.flatnonzero(weights > 0).astype(np.uint32)
    if idx.shape[0] == 0:
        raise ValueError("No training row has a positive weight: a tree needs at least one.")
    n_out = target.n_outputs
    K = 1 if target.n_classes is None else int(max(target.n_classes))
    n_hist = 2 + n_out * K
    n_candidates = data.n_features if params.max_features is None else min(params.max_features, data.n_features)
    slot_bytes = data.n_features * 256 * n_hist * 8
    pool_slots = int(min(MAX_POOL_SLOTS, max(2, _POOL_BYTES // max(slot_bytes, 1)))) if data.splitter == HIST else 0
    n_evals = np.zeros(1, np.int64)
    # codes kept in the column index alone are read from it once the code matrix would be large (as the
    # regression grower reads them: INDEXED_READ_MIN_CELLS); absolute error reads the code matrix
    indexed = crit != ABSOLUTE_ERROR and data.index_read_rowwise()
    table, values = grow_multi_for(indexed)(
        data.Xb if indexed else data.codes(), data.Xf, data.n_bins, data.edges, _bounds_of(data),
        np.ascontiguousarray(target.Y, dtype=np.float64), weights, idx, K,
        crit, data.splitter, n_candidates, -1 if params.max_depth is None else int(params.max_depth),
        int(params.min_samples_split), int(params.min_samples_leaf),
        float(params.min_weight_fraction_leaf) * weights.sum(), float(params.min_impurity_decrease),
        -1 if params.max_leaf_nodes is None else int(params.max_leaf_nodes), make_state(seed), pool_slots, n_evals,
        data.dominant if indexed else _EMPTY_INT32, data.row_ptr if indexed else _NO_ROW_PTR,
        data.row_feat if indexed else _EMPTY_INT32, data.columns() if indexed else _NO_COLUMNS,
    )
    nodes, values = _numbered_as_scikit_learn(table_to_nodes(table), values,
                                              -1 if params.max_leaf_nodes is None else int(params.max_leaf_nodes))
    tree = Tree(nodes, values, data.n_features)
    if params.ccp_alpha > 0:
        tree = prune_tree(tree, params.ccp_alpha)
    tree.output_classes = np.asarray(target.n_classes if target.n_classes is not None else [1] * n_out, dtype=np.intp)
    tree.n_split_evaluations = int(n_evals[0])
    tree.compact
    return tree
