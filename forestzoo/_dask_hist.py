"""Global bagging for :mod:`forestzoo.dask`: trees grown level by level on histograms summed over all partitions.

The design is PLANET's and Spark MLlib's random forests (Panda et al., "PLANET:
massively parallel learning of tree ensembles with MapReduce", 2009; Meng et
al., "MLlib: machine learning in Apache Spark", 2016): the rows never move;
the client chooses every split of the upper levels of a batch of trees from
histograms that the partitions compute over their own rows and that Dask
sums; a node small enough is grown to the end by the in-memory engine on its
rows alone, gathered to one worker.

1. **Binning.**  Each partition sends, per feature, a summary of its sorted
   non-NaN values (all of them up to :data:`SKETCH_POINTS`, else that many
   equally spaced order statistics, each standing for ``n / SKETCH_POINTS``
   rows).  The client merges the summaries into the weighted quantiles of the
   whole data set and cuts each feature into at most ``max_bins`` bins, with
   the engine's rule (midpoints between distinct values); NaN is code 255.
   Every partition codes its rows once (``uint8``, feature-major) and keeps
   them.
2. **Bootstrap.**  Breiman's bootstrap of ``n`` rows is ``Multinomial(n, 1/n
   each)``: the client draws the partitions' shares ``Multinomial(n, n_i / n)``
   from the tree's generator, and partition ``i`` draws its rows' counts
   ``Multinomial(share_i, 1 / n_i each)`` (``share_i`` of its rows drawn
   with replacement) from a generator seeded with the tree's seed and
   ``i``.  A row's count multiplies its weight.
3. **Levels.**  Every open node of every tree of the batch gets a random
   order of the features (drawn on the client, in the node order of the
   level).  Each partition adds, for every open node and each requested
   feature, its rows' statistics to a histogram over the codes (distinct
   rows, weight, per-class weight or ``sum w y`` and ``sum w y**2``); the
   histograms are summed in a fixed binary tree of Dask tasks, so the sums do
   not depend on which worker holds which partition.  The client scans them
   with the engine's split rules (:func:`forestzoo._engine.api.evaluate_split`:
   NaN rows tried on both sides, ``min_samples_leaf`` and the leaf weight on
   both children; features visited in the drawn order, ``max_features`` of
   them and then on until one is not constant in the node, scikit-learn's
   rule, asking the partitions for more histograms when all were constant),
   and the partitions route their rows to the children.
4. **Small nodes.**  A node with fewer than :func:`local_rows` distinct rows
   is gathered to one worker and grown to its end by the in-memory engine
   (:func:`forestzoo._engine.api.grow`, hist splitter) on its rows' codes
   and the global bin edges and bounds, with the bootstrap counts times the weights as
   row weights, the remaining depth, the leaf sizes of the forest and a seed
   drawn from the tree's generator; it is grafted in place of the node.
5. The trees are ordinary :class:`~forestzoo._engine.api.Tree` objects (node
   arrays, thresholds between the bins' values as the engine places them:
   ``binning.split_threshold`` on the global bins' bounds), wrapped as the forest's tree
   estimators: the result predicts, pickles and saves like any in-memory
   forest.
"""

import operator

import numpy as np

from ._base import tree_params
from ._engine.api import (
    CRITERIA, HIST, NODE_DTYPE, SQUARED_ERROR, TREE_LEAF, TrainingData, Tree, TreeParams, TreeTarget, bin_data,
    draw_seeds, evaluate_split, grow, split_threshold,
)
from ._jit import njit

#: Largest number of order statistics per feature a partition sends for the bin edges.
SKETCH_POINTS = 2048
#: A node with fewer distinct rows than :func:`local_rows` gives is grown to its end on one worker by the
#: in-memory engine: at least this many rows, ...
LOCAL_ROWS = 100_000
#: ... or as many as this many bytes of ``uint8`` codes hold (419,430 rows of 20 features).  Each small node
#: costs a task per partition, a transfer and an engine call, and the levels above it a round trip each; on
#: narrow data a larger node keeps those fixed costs down while its rows stay a few MiB.
LOCAL_CODE_BYTES = 8 << 20
#: Trees grown together (one pass over the partitions per level serves all of them).
BATCH_TREES = 32
MISSING = 255
_LEVEL = 10  # Dask priority of the tasks of the levels: ahead of the queued subtree fits, which need no round trip
_DBL_EPS = np.finfo(np.float64).eps
GLOBAL_CRITERIA = ("gini", "entropy", "log_loss", "squared_error", "friedman_mse")


def check_global(estimator):
    """Refuse, before any work is scheduled, what global bagging does not grow; ``ValueError``."""
    name = type(estimator).__name__
    if estimator.splitter != "hist":
        raise ValueError(f'bagging="global" grows splitter="hist" trees; {name} has splitter='
                         f'{estimator.splitter!r}. Use bagging="local" for the other splitters.')
    if estimator.criterion not in GLOBAL_CRITERIA:
        raise ValueError(f'bagging="global" supports criterion in {GLOBAL_CRITERIA}; got '
                         f'{estimator.criterion!r}. Use bagging="local" for it.')
    for param, default in (("max_leaf_nodes", None), ("monotonic_cst", None), ("ccp_alpha", 0.0)):
        value = getattr(estimator, param, default)
        if not (value is None if default is None else value == default):
            raise ValueError(f'{param}={value!r} is not supported with bagging="global" (the trees are grown '
                             'level by level); use bagging="local".')
    if getattr(estimator, "class_weight", None) == "balanced_subsample":
        raise ValueError('class_weight="balanced_subsample" is not supported with bagging="global"; use '
                         '"balanced" (from the global class counts).')


# -- worker side: binning -----------------------------------------------------------------------------------------
def sketch(part, points):
    """Per feature, ``(values, weight)``: the sorted non-NaN values (or ``points`` order statistics of them)."""
    X = part[0]
    out = []
    for f in range(X.shape[1]):
        col = X[:, f]
        col = np.sort(col[~np.isnan(col)]).astype(np.float64)
        if col.size <= points:
            out.append((col, 1.0))
        else:
            pick = np.round(np.linspace(0, col.size - 1, points)).astype(np.int64)
            out.append((col[pick], col.size / points))
    return out


def merge_edges(sketches, n_features, max_bins):
    """Bin edges ``(n_features, max_bins - 1)`` (padded with +inf) and bins per feature from the partitions' sketches.

    The weighted order statistics of all partitions stand for the whole
    column; cut points at equal steps of weight, snapped between distinct
    values and placed at their midpoint, as the in-memory engine does.
    """
    edges = np.full((n_features, max(max_bins - 1, 1)), np.inf)
    n_bins = np.ones(n_features, dtype=np.int32)
    for f in range(n_features):
        vals = np.concatenate([s[f][0] for s in sketches])
        wts = np.concatenate([np.full(s[f][0].size, s[f][1]) for s in sketches])
        if vals.size == 0:
            continue
        order = np.argsort(vals, kind="stable")
        vals, wts = vals[order], wts[order]
        uniq = np.unique(vals)
        if uniq.size <= max_bins:
            lo, hi = uniq[:-1], uniq[1:]
        else:
            cw = np.cumsum(wts)
            targets = cw[-1] * np.arange(1, max_bins) / max_bins
            qs = vals[np.minimum(np.searchsorted(cw, targets, side="left"), vals.size - 1)]
            pos = np.unique(np.clip(np.searchsorted(uniq, qs, side="left"), 1, uniq.size - 1))
            lo, hi = uniq[pos - 1], uniq[pos]
        mid = 0.5 * (lo + hi)
        e = np.where(mid >= hi, lo, mid)
        edges[f, :e.size] = e
        n_bins[f] = e.size + 1
    return edges, n_bins


def partition_bounds(part, binned, max_bins):
    """Each bin's least and greatest value in a partition, read with its codes: float64 ``(n_features, max_bins,
    2)``, +-inf where the partition holds none (the client takes the least and greatest over the partitions)."""
    X = part[0]
    codes = binned[0]
    bounds = np.empty((X.shape[1], max_bins, 2))
    bounds[:, :, 0] = np.inf
    bounds[:, :, 1] = -np.inf
    _code_bounds(X, codes, bounds)
    return bounds


@njit
def _code_bounds(X, codes, bounds):
    for f in range(codes.shape[0]):
        for i in range(codes.shape[1]):
            c = codes[f, i]
            if c == MISSING:
                continue
            v = np.float64(X[i, f])
            if v < bounds[f, c, 0]:
                bounds[f, c, 0] = v
            if v > bounds[f, c, 1]:
                bounds[f, c, 1] = v


def merge_bounds(bounds):
    """The bins' bounds over all partitions (NaN for a bin no partition holds), as ``binning.compute_bin_edges``
    gives them."""
    out = np.stack([np.min([b[:, :, 0] for b in bounds], axis=0), np.max([b[:, :, 1] for b in bounds], axis=0)],
                   axis=-1)
    out[~np.isfinite(out)] = np.nan
    return out


def bin_partition(part, edges, n_bins, classes, class_weights):
    """A packed partition as ``(codes uint8 (n_features, n), yk int32, yr float64, w float64)``."""
    X, y, w = part
    n = X.shape[0]
    codes = bin_data(X, edges, n_bins)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    if classes is not None:
        yk = np.searchsorted(classes, y).astype(np.int32)
        yr = np.zeros(n)
        if class_weights is not None:
            w = w * class_weights[yk]
    else:
        yk = np.zeros(n, dtype=np.int32)
        yr = np.asarray(y, dtype=np.float64)
    return codes, yk, yr, w


def merged_bounds(*bounds):
    """:func:`merge_bounds` of the partitions' bounds, as one task."""
    return merge_bounds(bounds)


# -- worker side: bootstrap, histograms, routing, small nodes ------------------------------------------------------
def start_state(binned, index, seeds, shares, bootstrap):
    """Rows' bootstrap counts ``(n_trees, n)`` and their node ``(n_trees, n)`` (tree ``t``'s root is node ``t``)."""
    n = binned[0].shape[1]
    n_trees = len(seeds)
    counts = np.ones((n_trees, n), dtype=np.int32)
    if bootstrap and n:
        for t in range(n_trees):
            # Multinomial(share, 1/n each) as the share's rows drawn with replacement: the same law, without
            # numpy's multinomial's one binomial draw per row (docs/benchmarks/dask.md has the times)
            rng = np.random.default_rng([int(seeds[t]), int(index)])
            counts[t] = np.bincount(rng.integers(0, n, int(shares[t])), minlength=n)
    w = binned[3]
    node = np.where((counts > 0) & (w[None, :] > 0), np.arange(n_trees, dtype=np.int32)[:, None], -1)
    return counts, node.astype(np.int32)


@njit
def _histograms(codes, yk, yr, w, counts, node, req_ptr, req_feat, classification, out):
    n_trees, n = node.shape
    for t in range(n_trees):
        for i in range(n):
            nd = node[t, i]
            if nd < 0:
                continue
            r0 = req_ptr[nd]
            r1 = req_ptr[nd + 1]
            if r0 == r1:
                continue
            wi = counts[t, i] * w[i]
            if classification:
                k = 2 + yk[i]
                for r in range(r0, r1):
                    b = codes[req_feat[r], i]
                    out[r, b, 0] += 1.0
                    out[r, b, 1] += wi
                    out[r, b, k] += wi
            else:
                wy = wi * yr[i]
                wyy = wy * yr[i]
                for r in range(r0, r1):
                    b = codes[req_feat[r], i]
                    out[r, b, 0] += 1.0
                    out[r, b, 1] += wi
                    out[r, b, 2] += wy
                    out[r, b, 3] += wyy


def histograms_of(binned, state, req_ptr, req_feat, n_stats, classification):
    """Histograms ``(n_requests, 256, n_stats)`` of one partition's rows over their codes.

    Request ``r`` is feature ``req_feat[r]`` of the node whose requests are
    ``req_ptr[node]:req_ptr[node + 1]``.  Statistics per bin: distinct rows,
    weight (bootstrap count times row weight), then per-class weights for a
    classification, or ``sum w y`` and ``sum w y**2`` for a regression.
    """
    codes, yk, yr, w = binned
    counts, node = state
    out = np.zeros((req_feat.shape[0], 256, n_stats))
    if req_feat.shape[0]:
        _histograms(codes, yk, yr, w, counts, node, req_ptr, req_feat, classification, out)
    return out


def add(a, b):
    """``a + b`` (one step of the fixed summation tree)."""
    return a + b


@njit
def _route(codes, node, feature, bin_, missing_left, left, right, out):
    n_trees, n = node.shape
    for t in range(n_trees):
        for i in range(n):
            nd = node[t, i]
            if nd < 0:
                out[t, i] = -1
                continue
            f = feature[nd]
            if f < 0:
                out[t, i] = -1
                continue
            c = codes[f, i]
            go_left = (c <= bin_[nd]) if c != 255 else (missing_left[nd] == 1)
            out[t, i] = left[nd] if go_left else right[nd]


def route(binned, state, table):
    """The state with every row moved from its node to the child ``table`` names (-1: the row is done)."""
    counts, node = state
    out = np.empty_like(node)
    _route(binned[0], node, *table, out)
    return counts, out


def extract(binned, state, nodes):
    """Rows of each node of ``nodes``: ``[(codes (n_features, m), counts*w, yk, yr)]``, in the order of ``nodes``.

    A node's rows are in the order of the partition (they all belong to one
    tree); each piece is a view of one buffer per array.
    """
    codes, yk, yr, w = binned
    counts, node = state
    slot = np.full(int(nodes.max()) + 1, -1, dtype=np.int64)
    slot[nodes] = np.arange(nodes.shape[0])
    starts, out_codes, out_w, out_yk, out_yr = _gather_rows(codes, yk, yr, w, counts, node, slot, nodes.shape[0])
    d = codes.shape[0]
    return [(out_codes[d * a:d * b].reshape(d, b - a), out_w[a:b], out_yk[a:b], out_yr[a:b])
            for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]


@njit(inline="always")
def _slot_of(node, slot, t, i):
    """Slot of row ``i``'s node in tree ``t``, or -1 when the node is not extracted (or the row is done)."""
    nd = node[t, i]
    if nd < 0 or nd >= slot.shape[0]:
        return -1
    return slot[nd]


@njit
def _gather_rows(codes, yk, yr, w, counts, node, slot, n_nodes):
    # node j gets rows starts[j]:starts[j + 1], in the partition's order; its codes are the (n_features, m_j)
    # block at n_features * starts[j] of out_codes, written feature by feature from the list of its rows
    n_trees, n = node.shape
    d = codes.shape[0]
    starts = np.zeros(n_nodes + 1, dtype=np.int64)
    for t in range(n_trees):
        for i in range(n):
            j = _slot_of(node, slot, t, i)
            if j >= 0:
                starts[j + 1] += 1
    starts = np.cumsum(starts)
    total = starts[-1]
    rows = np.empty(total, dtype=np.int64)
    out_codes = np.empty(d * total, dtype=np.uint8)
    out_w = np.empty(total)
    out_yk = np.empty(total, dtype=np.int32)
    out_yr = np.empty(total)
    fill = starts[:-1].copy()
    for t in range(n_trees):
        for i in range(n):
            j = _slot_of(node, slot, t, i)
            if j < 0:
                continue
            k = fill[j]
            fill[j] = k + 1
            rows[k] = i
            out_w[k] = counts[t, i] * w[i]
            out_yk[k] = yk[i]
            out_yr[k] = yr[i]
    for j in range(n_nodes):
        a = starts[j]
        m = starts[j + 1] - a
        for f in range(d):
            at = d * a + f * m
            for k in range(m):
                out_codes[at + k] = codes[f, rows[a + k]]
    return starts, out_codes, out_w, out_yk, out_yr


def grow_local(spec, edges, n_bins, bounds, *pieces):
    """Grow one small node's subtree with the in-memory engine on its rows' codes; its nodes and values.

    The engine reads the codes with the forest's global bin edges and bin
    bounds, so the subtree's thresholds are placed as the levels' are.
    """
    params, n_values, seed = spec
    codes = np.ascontiguousarray(np.concatenate([p[0] for p in pieces], axis=1))
    weights = np.concatenate([p[1] for p in pieces]).astype(np.float64)
    yk = np.concatenate([p[2] for p in pieces]).astype(np.int32)
    yr = np.concatenate([p[3] for p in pieces]).astype(np.float64)
    data = TrainingData(HIST, codes.shape[0], codes, np.empty((0, 0), dtype=np.float32), edges, n_bins,
                        bin_bounds=bounds)
    tree = grow(data, TreeTarget(yk, yr, n_values), weights, params, seed)
    return tree.nodes, tree.values


def local_rows(n_features):
    """Distinct rows below which a node is grown on one worker: the larger of :data:`LOCAL_ROWS` and the rows
    whose codes fit in :data:`LOCAL_CODE_BYTES`."""
    return max(LOCAL_ROWS, LOCAL_CODE_BYTES // max(int(n_features), 1))


def warm_kernels(n_features, classification):
    """Compile (or load from Numba's disk cache) the partitions' kernels on a few random rows.

    The rows' arrays have the types a packed partition has, so the
    compiled signatures are the fit's.  Returns nothing.
    """
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, n_features)).astype(np.float32)
    X[0, 0] = np.nan
    y = (X[:, -1] > 0).astype(np.int64) if classification else rng.standard_normal(64)
    part = (X, y, None)
    edges, n_bins = merge_edges([sketch(part, SKETCH_POINTS)], n_features, 255)
    classes = np.array([0, 1]) if classification else None
    binned = bin_partition(part, edges, n_bins, classes, None)
    partition_bounds(part, binned, edges.shape[1] + 1)
    state = start_state(binned, 0, np.array([1, 2]), np.array([64, 64]), True)
    n_stats = 4  # two classes, or the four statistics of a regression
    req_ptr = np.array([0, 1, 2], dtype=np.int64)
    req_feat = np.zeros(2, dtype=np.int64)
    histograms_of(binned, state, req_ptr, req_feat, n_stats, classification)
    table = (np.zeros(2, dtype=np.int32), np.full(2, 100, dtype=np.int32), np.zeros(2, dtype=np.uint8),
             np.array([0, 2], dtype=np.int32), np.array([1, 3], dtype=np.int32))
    state = route(binned, state, table)
    extract(binned, state, np.array([0, 3], dtype=np.int32))


# -- client side: split search --------------------------------------------------------------------------------------
@njit
def _scan(h, nb, total, msl, mwl, criterion, cum, tmp):
    """Best split of one feature's histogram ``h`` over its ``nb`` value bins: ``(cost, bin, missing_left, ok)``.

    The engine's candidates: values up to a non-empty bin left with the NaN
    rows right and (when there are any) left; every value left (bin 254)
    with the NaN rows right.  ``ok``: the feature is not constant in the node.
    """
    miss = h[MISSING]
    n_values = total[0] - miss[0]
    best = np.inf
    best_bin = -1
    best_ml = 0.0
    if n_values <= 0.0:
        return best, best_bin, best_ml, False
    cum[:] = 0.0
    n_nonempty = 0
    for b in range(nb):
        if h[b, 0] == 0.0:
            continue
        n_nonempty += 1
        for k in range(cum.shape[0]):
            cum[k] += h[b, k]
        last = cum[0] >= n_values
        if last and miss[0] == 0.0:
            break
        c, ml = evaluate_split(cum, miss, total, msl, mwl, criterion, tmp, 0.0, -np.inf, np.inf)
        if c < best:
            best = c
            best_ml = ml
            best_bin = MISSING - 1 if last else b
        if last:
            break
    return best, best_bin, best_ml, n_nonempty > 1 or (n_nonempty == 1 and miss[0] > 0.0)


def _weighted_impurity(tot, criterion):
    """``W * impurity`` of the statistics ``tot``."""
    w = tot[1]
    if w <= 0.0:
        return 0.0
    if criterion == SQUARED_ERROR:
        return max(tot[3] - tot[2] * tot[2] / w, 0.0)
    c = tot[2:]
    if criterion == CRITERIA["gini"]:
        return max(w - float(np.dot(c, c)) / w, 0.0)
    c = c[c > 0.0]
    return float(np.sum(c * np.log(w / c)) / np.log(2.0))


def _value(tot, criterion):
    w = tot[1]
    if criterion == SQUARED_ERROR:
        return np.array([tot[2] / w if w > 0.0 else 0.0])
    return tot[2:] / w if w > 0.0 else np.zeros(tot.shape[0] - 2)


class _Node:
    """One node of a tree under construction (its statistics, and its split or subtree once known)."""

    __slots__ = ("tree", "depth", "tot", "order", "cursor", "n_scanned", "n_valid", "best", "left", "right",
                 "subtree", "wimp")

    def __init__(self, tree, depth, tot):
        self.tree, self.depth, self.tot = tree, depth, tot
        self.order, self.cursor, self.n_scanned, self.n_valid = None, 0, 0, 0
        self.best = (np.inf, -1, -1, 0.0)  # cost, feature, bin, missing_left
        self.left = self.right = self.subtree = None
        self.wimp = 0.0


class GlobalGrower:
    """Grow a forest's trees level by level on the partitions' summed histograms (see the module docstring).

    Parameters
    ----------
    estimator : forestzoo forest
        The in-memory forest whose parameters the trees follow.
    client : distributed.Client
        The cluster holding the partitions.
    packed : list of Future
        The packed partitions ``(X float32, y, sample_weight)``.
    holders : list of str or None
        The worker holding each partition.
    n_rows : ndarray of int
        Rows of each partition.
    classes, class_weights : ndarray or None
        The classes of the whole data set and their weights (None: regression, or no class weight).
    n_features : int
        Columns of ``X``.
    """

    def __init__(self, estimator, client, packed, holders, n_rows, classes, class_weights, n_features):
        self.est, self.client = estimator, client
        self.packed, self.holders = packed, holders
        self.n_rows = np.asarray(n_rows, dtype=np.int64)
        self.n = int(self.n_rows.sum())
        self.classes, self.class_weights = classes, class_weights
        self.n_features = n_features
        self.local_rows = local_rows(n_features)
        self.classification = classes is not None
        self.n_classes = 0 if classes is None else int(classes.shape[0])
        self.params = tree_params(estimator, self.n, n_features, max(self.n_classes, 1))
        self.criterion = CRITERIA[estimator.criterion]
        self.n_stats = 2 + self.n_classes if self.classification else 4
        self.max_features = self.params.max_features or n_features

    # -- tasks on the partitions ------------------------------------------------------------------------------------
    def _on_parts(self, fn, *per_part, shared=()):
        """``fn(per_part[0][i], per_part[1][i], ..., *shared)`` for every partition ``i``, run where it is held."""
        futures = []
        for i, holder in enumerate(self.holders):
            args = [a[i] for a in per_part]
            futures.append(self.client.submit(fn, *args, *shared, workers=None if holder is None else [holder],
                                              allow_other_workers=True, pure=False, priority=_LEVEL))
        return futures

    def _sum(self, futures):
        """The sum of ``futures`` by a fixed binary tree (pairs of neighbours), as one future."""
        level = list(futures)
        while len(level) > 1:
            nxt = [self.client.submit(add, level[i], level[i + 1], pure=False, priority=_LEVEL) for i in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        return level[0]

    # -- the fit ------------------------------------------------------------------------------------------------------
    def fit(self, random_state):
        """Bin the partitions, grow ``n_estimators`` trees; return ``(trees, seeds, n_draws)``."""
        from sklearn.utils import check_random_state

        est = self.est
        sketches = self.client.gather(self._on_parts(sketch, self.packed, shared=(SKETCH_POINTS,)))
        self.edges, self.n_bins = merge_edges(sketches, self.n_features, est.max_bins)
        # the edges travel inside the tasks that read them (n_features x 255 floats): scattered data has no graph,
        # and a worker lost before its replicas were placed would take them with it, unrecoverable
        self.binned = self._on_parts(bin_partition, self.packed,
                                     shared=(self.edges, self.n_bins, self.classes, self.class_weights))
        # the bins' bounds as a future: the subtrees read them on the workers, the client only to assemble the trees
        bounds = self._on_parts(partition_bounds, self.packed, self.binned, shared=(self.edges.shape[1] + 1,))
        self.bounds_future = self.client.submit(merged_bounds, *bounds, pure=False, priority=_LEVEL)
        seeds = draw_seeds(check_random_state(random_state), est.n_estimators)
        if est.bootstrap:
            ms = est.max_samples
            if ms is None:
                n_draws = self.n
            elif isinstance(ms, (int, np.integer)):
                n_draws = int(ms)
            else:
                n_draws = max(int(ms * self.n), 1)
        else:
            n_draws = 0
        trees = []
        for b0 in range(0, len(seeds), BATCH_TREES):
            trees += self._grow_batch(seeds[b0:b0 + BATCH_TREES], n_draws)
        return trees, seeds, n_draws

    def _grow_batch(self, seeds, n_draws):
        client = self.client
        n_trees = len(seeds)
        rngs = [np.random.default_rng(int(s)) for s in seeds]
        if n_draws:
            shares = np.array([rng.multinomial(n_draws, self.n_rows / self.n) for rng in rngs])  # (trees, parts)
        else:
            shares = np.zeros((n_trees, len(self.packed)), dtype=np.int64)
        state = [client.submit(start_state, b, i, seeds, shares[:, i], bool(n_draws),
                               workers=None if h is None else [h], allow_other_workers=True, pure=False,
                               priority=_LEVEL)
                 for i, (b, h) in enumerate(zip(self.binned, self.holders))]
        roots = [_Node(t, 0, None) for t in range(n_trees)]
        frontier = list(roots)  # node id in the partitions' state = position here
        self.root_weight = np.zeros(n_trees)
        self.min_weight_leaf = np.zeros(n_trees)
        for node in frontier:
            self._draw_order(node, rngs[node.tree])
        # the roots' totals come with their first histograms
        local_jobs = []
        first = True
        request = None  # the level's first histograms, submitted ahead of the previous level's subtrees
        while frontier:
            open_ids = [k for k, nd in enumerate(frontier) if nd.subtree is None and nd.order is not None]
            pending = list(open_ids)
            while pending:
                if request is None:
                    request = self._request_histograms(state, frontier, pending)
                future, req_nodes, req_feats = request
                hist = client.gather(future)
                request = None
                if first:  # the roots' statistics: the sum over the bins of any feature's histogram
                    for r, k in enumerate(req_nodes):
                        nd = frontier[k]
                        if nd.tot is None:
                            nd.tot = hist[r].sum(axis=0)
                    for nd in roots:
                        self.root_weight[nd.tree] = nd.tot[1]
                        self.min_weight_leaf[nd.tree] = self.params.min_weight_fraction_leaf * nd.tot[1]
                    for k in pending:
                        nd = frontier[k]
                        nd.wimp = _weighted_impurity(nd.tot, self.criterion)
                        if self._is_leaf(nd):
                            nd.order = None
                        elif nd.tot[0] < self.local_rows:
                            nd.order = None
                            nd.subtree = "local"
                    first = False
                    keep = [r for r, k in enumerate(req_nodes) if frontier[k].order is not None]
                    pending = [k for k in pending if frontier[k].order is not None]
                    hist = hist[keep]
                    req_nodes = [req_nodes[r] for r in keep]
                    req_feats = [req_feats[r] for r in keep]
                self._scan_requests(hist, req_nodes, req_feats, frontier)
                pending = [k for k in pending if (frontier[k].n_scanned < self.max_features or frontier[k].n_valid == 0)
                           and frontier[k].cursor < self.n_features]
            # local nodes of this level: their rows are gathered and grown to the end on one worker, submitted
            # after the next level's tasks, which the client waits for
            local_ids = [k for k, nd in enumerate(frontier) if isinstance(nd.subtree, str)]
            local_specs = self._local_specs(frontier, local_ids, rngs)
            # split the open nodes; children that are not leaves form the next frontier
            nxt = []
            table = np.zeros((5, len(frontier)), dtype=np.int64)
            table[0] = -1
            for k, nd in enumerate(frontier):
                if nd.order is None or nd.subtree is not None:
                    continue
                cost, f, b, ml = nd.best[:4]
                gain = nd.wimp - cost
                if cost == np.inf or gain / self.root_weight[nd.tree] < self.params.min_impurity_decrease - 1e-12:
                    continue  # a leaf
                nd.left, nd.right = self._children(nd, f, b, ml)
                table[0, k], table[1, k], table[2, k] = f, b, int(ml)
                for side, child in ((3, nd.left), (4, nd.right)):
                    child.wimp = _weighted_impurity(child.tot, self.criterion)
                    if self._is_leaf(child):
                        table[side, k] = -1
                        continue
                    table[side, k] = len(nxt)
                    if child.tot[0] < self.local_rows:
                        child.subtree = "local"
                    else:
                        self._draw_order(child, rngs[child.tree])
                    nxt.append(child)
            level_state = state
            if nxt:
                tab = (table[0].astype(np.int32), table[1].astype(np.int32), table[2].astype(np.uint8),
                       table[3].astype(np.int32), table[4].astype(np.int32))
                state = [client.submit(route, b, s, tab, workers=None if h is None else [h],
                                       allow_other_workers=True, pure=False, priority=_LEVEL)
                         for b, s, h in zip(self.binned, state, self.holders)]
                next_open = [k for k, nd in enumerate(nxt) if nd.subtree is None and nd.order is not None]
                if next_open:
                    request = self._request_histograms(state, nxt, next_open)
            if local_ids:
                local_jobs += self._submit_locals(level_state, frontier, local_ids, local_specs)
            if not nxt:
                break
            frontier = nxt
        results = client.gather([job for _, job in local_jobs])
        for (nd, _), sub in zip(local_jobs, results):
            nd.subtree = sub
        self.bounds = client.gather(self.bounds_future)  # the thresholds of the levels' splits read them
        return [self._assemble(root) for root in roots]

    def _draw_order(self, node, rng):
        node.order = rng.permutation(self.n_features).astype(np.int32)

    def _is_leaf(self, nd):
        tot, p = nd.tot, self.params
        depth_limit = p.max_depth if p.max_depth is not None else 1 << 30
        if self.classification:
            pure = np.count_nonzero(tot[2:] > 0.0) <= 1
        else:
            pure = False
        mwl = self.min_weight_leaf[nd.tree]
        return bool(nd.depth >= depth_limit or tot[0] < p.min_samples_split or tot[0] < 2 * p.min_samples_leaf
                    or tot[1] < 2.0 * mwl or pure or nd.wimp / tot[1] <= _DBL_EPS)

    def _request_histograms(self, state, frontier, pending):
        """Submit the histograms of the next features of every node in ``pending``, summed over the partitions:
        ``(future of the sums, node of each request, feature of each request)``."""
        n_nodes = len(frontier)
        counts = np.zeros(n_nodes + 1, dtype=np.int64)
        feats = {}
        for k in pending:
            nd = frontier[k]
            # the first max_features of its order, then (all constant so far) as many again
            want = self.max_features - nd.cursor if nd.cursor < self.max_features else self.max_features
            take = nd.order[nd.cursor:nd.cursor + want]
            nd.cursor += take.shape[0]
            feats[k] = take
            counts[k + 1] = take.shape[0]
        req_ptr = np.cumsum(counts).astype(np.int64)
        req_feat = np.concatenate([feats[k] for k in sorted(feats)]).astype(np.int64)
        req_nodes = [k for k in sorted(feats) for _ in range(feats[k].shape[0])]
        parts = [self.client.submit(histograms_of, b, s, req_ptr, req_feat, self.n_stats, self.classification,
                                    workers=None if h is None else [h], allow_other_workers=True, pure=False,
                                    priority=_LEVEL)
                 for b, s, h in zip(self.binned, state, self.holders)]
        return self._sum(parts), req_nodes, list(req_feat)

    def _scan_requests(self, hist, req_nodes, req_feats, frontier):
        cum = np.zeros(self.n_stats)
        tmp = np.zeros(self.n_stats)
        for r, (k, f) in enumerate(zip(req_nodes, req_feats)):
            nd = frontier[k]
            if nd.n_scanned >= self.max_features and nd.n_valid > 0:
                continue  # drawn after the search's end: a non-constant feature past max_features came first
            nd.n_scanned += 1
            cost, b, ml, ok = _scan(hist[r], int(self.n_bins[f]), nd.tot, float(self.params.min_samples_leaf),
                                    float(self.min_weight_leaf[nd.tree]), self.criterion, cum, tmp)
            if ok:
                nd.n_valid += 1
            if cost < nd.best[0]:
                nd.best = (cost, int(f), int(b), float(ml), hist[r])

    def _threshold(self, nd, f, b):
        """The threshold of the node's split: halfway between the values on its two sides, as the engine's
        (``binning.split_threshold``), from the least bin its right child holds in the node's histogram."""
        nb = int(self.n_bins[f])
        if b >= MISSING - 1 or b >= nb - 1:
            return np.inf
        held = np.flatnonzero(nd.best[4][b + 1:nb, 0] > 0)
        least_right = b + 1 + int(held[0]) if held.size else MISSING
        return float(split_threshold(self.bounds, self.edges, f, b, least_right, self.edges[f, b]))

    def _children(self, nd, f, b, ml):
        h = nd.best[4]
        nb = int(self.n_bins[f])
        left = h[:min(b, nb - 1) + 1].sum(axis=0)
        right = h[min(b, nb - 1) + 1:nb].sum(axis=0)
        if ml:
            left = left + h[MISSING]
        else:
            right = right + h[MISSING]
        return _Node(nd.tree, nd.depth + 1, left), _Node(nd.tree, nd.depth + 1, right)

    def _local_specs(self, frontier, local_ids, rngs):
        """``(params, n_values, seed)`` of the subtree of every local node of ``frontier``; draws the seeds."""
        p = self.params
        specs = []
        for k in local_ids:
            nd = frontier[k]
            # the engine measures min_weight_fraction_leaf and min_impurity_decrease against the subtree's root
            scale = self.root_weight[nd.tree] / nd.tot[1]
            params = TreeParams(criterion=p.criterion, max_features=self.max_features,
                                max_depth=None if p.max_depth is None else p.max_depth - nd.depth,
                                min_samples_split=p.min_samples_split, min_samples_leaf=p.min_samples_leaf,
                                min_weight_fraction_leaf=p.min_weight_fraction_leaf * scale,
                                min_impurity_decrease=p.min_impurity_decrease * scale)
            specs.append((params, max(self.n_classes, 1), int(rngs[nd.tree].integers(2**63 - 1))))
        return specs

    def _submit_locals(self, state, frontier, local_ids, specs):
        """Submit the subtree of every local node of ``frontier``: ``[(node, future of (nodes, values))]``."""
        client = self.client
        ids = np.asarray(local_ids, dtype=np.int32)
        pieces = [client.submit(extract, b, s, ids, workers=None if h is None else [h], allow_other_workers=True,
                                pure=False, priority=_LEVEL) for b, s, h in zip(self.binned, state, self.holders)]
        # one call per partition and one for the subtrees: a client.map sends its tasks in one message
        n_local = len(local_ids)
        mine = [client.map(operator.getitem, [pc] * n_local, range(n_local), workers=None if h is None else [h],
                           allow_other_workers=True, pure=False, priority=_LEVEL)
                for pc, h in zip(pieces, self.holders)]
        subtrees = client.map(grow_local, specs, [self.edges] * n_local, [self.n_bins] * n_local,
                              [self.bounds_future] * n_local, *mine, pure=False)
        jobs = [(frontier[k], job) for k, job in zip(local_ids, subtrees)]
        return jobs

    def _assemble(self, root):
        """The tree rooted at ``root`` as an engine :class:`Tree` (preorder, children after their parent)."""
        segments, values = [], []
        size = [0]

        def visit(nd):
            at = size[0]
            if isinstance(nd.subtree, tuple):
                sub_nodes, sub_values = nd.subtree
                sub = sub_nodes.copy()
                inner = sub["left"] != TREE_LEAF
                sub["left"][inner] += at
                sub["right"][inner] += at
                sub["depth"] += nd.depth
                segments.append(sub)
                values.append(sub_values)
                size[0] += sub.shape[0]
                return at
            rec = np.zeros(1, dtype=NODE_DTYPE)
            rec["depth"] = nd.depth
            rec["n_samples"] = int(nd.tot[0])
            rec["weighted_n_samples"] = nd.tot[1]
            rec["impurity"] = nd.wimp / nd.tot[1] if nd.tot[1] > 0 else 0.0
            rec["oblique"] = -1
            segments.append(rec)
            values.append(_value(nd.tot, self.criterion)[None, :])
            size[0] += 1
            if nd.left is None:
                rec["left"] = rec["right"] = TREE_LEAF
                rec["feature"] = -1
                return at
            cost, f, b, ml = nd.best[:4]
            rec["feature"] = f
            rec["threshold"] = self._threshold(nd, f, b)
            rec["missing_left"] = int(ml)
            rec["improvement"] = nd.wimp - cost
            rec["left"] = visit(nd.left)
            rec["right"] = visit(nd.right)
            return at

        visit(root)
        return Tree(np.concatenate(segments), np.concatenate(values).astype(np.float64), self.n_features)
