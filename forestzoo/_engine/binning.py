"""Quantile binning: per-feature bin edges and ``X -> uint8`` codes.

Codes ``0 .. n_bins[f] - 1`` hold values, code :data:`MISSING_BIN` (255) holds
NaN.  A value ``v`` gets code ``b`` = number of edges strictly below ``v``, so
``code <= b`` is exactly ``v <= edges[f, b]``: a split found on codes sends
a training row left exactly when its value is at most ``edges[f, b]``, or any
threshold between that edge and the next nonempty bin's lower edge.  The
bounds of each bin (its least and greatest value among the rows the edges
were computed on) let the grower put the threshold halfway between the values
on the two sides of a split, as the exact search does
(:func:`split_threshold`).

A scipy sparse ``X`` (CSC) is binned column by column without being
densified: a column's edges come from its sorted stored values with its
implicit zeros inserted in place, and its codes start as the code of 0 with
the stored entries coded over it.  Edges and codes equal those of the dense
matrix.
"""

import numpy as np
import scipy.sparse as sp

from .._jit import njit
from .._threads import run_blocks

MISSING_BIN = 255
MAX_BINS = 255  # value bins; one more code (255) is the missing-value bin
BINNING_SUBSAMPLE = 200_000


def _feature_edges(col, max_bins):
    """``(edges, uniq)``: the sorted thresholds (at most ``max_bins - 1``) between the bins of ``col``,
    and its distinct values."""
    col = np.sort(col[~np.isnan(col)].astype(np.float64))
    if col.size == 0:
        return np.zeros(0, dtype=np.float64), col
    starts = np.flatnonzero(np.concatenate(([True], col[1:] != col[:-1])))
    return _edges_of_counts(col[starts], np.diff(np.append(starts, col.size)), max_bins), col[starts]


def _set_bounds(bounds_row, e, uniq):
    """Fill ``bounds_row`` (``(max_bins, 2)``) with the least and greatest of the sorted distinct values
    ``uniq`` in each bin of the edges ``e`` (a value's bin: the number of edges strictly below it)."""
    if uniq.size == 0:
        return
    starts = np.searchsorted(uniq, e, side="right")  # where bins 1 .. e.size begin in uniq
    first = np.concatenate(([0], starts))
    last = np.append(starts, uniq.size) - 1
    held = np.flatnonzero(last >= first)
    bounds_row[held, 0] = uniq[first[held]]
    bounds_row[held, 1] = uniq[last[held]]


#: Stored values of a sparse matrix whose columns' edges are found at once (:func:`_sparse_block_edges`
#: holds about ten arrays of a block's size): 80 MB for the block, where the columns of a 80000 x 10000
#: matrix of 1 % density at once took 800 MB.  The edges do not depend on it.
SPARSE_BLOCK_VALUES = 1 << 20


def _stored_blocks(indptr, f_lo, f_hi, max_values):
    """Consecutive blocks ``(a, b)`` of the columns ``f_lo .. f_hi - 1`` of a CSC matrix (``indptr``), each of
    at most ``max_values`` stored values or of one column."""
    a = f_lo
    while a < f_hi:
        b = int(np.searchsorted(indptr, int(indptr[a]) + max_values, side="right")) - 1
        b = min(max(b, a + 1), f_hi)
        yield a, b
        a = b


def _sparse_block_edges(X, max_bins, edges, n_bins, bounds, f_lo, f_hi):
    """:func:`_feature_edges` of the columns ``f_lo .. f_hi - 1`` of the CSC matrix ``X``, implicit zeros included.

    A column's distinct values and their counts are those of its sorted
    stored values with its implicit zeros added to the count of 0: the
    edges of the dense column, for a cost in the stored values instead of
    the rows.  The distinct values of every column of the block are found
    at once; a column with at most ``max_bins`` of them gets its midpoints
    at once too, the others go through :func:`_edges_of_counts` one by one.
    """
    lo, hi = X.indptr[f_lo], X.indptr[f_hi]
    n_stored = np.diff(X.indptr[f_lo:f_hi + 1])
    vals = X.data[lo:hi].astype(np.float64)
    ptr = X.indptr[f_lo:f_hi + 1] - lo
    for j in range(f_hi - f_lo):
        vals[ptr[j]:ptr[j + 1]].sort()  # NaN last
    col = np.repeat(np.arange(f_hi - f_lo), n_stored)
    nan = np.isnan(vals)
    n_zeros = X.shape[0] - n_stored
    n_neg = np.bincount(col[vals < 0.0], minlength=f_hi - f_lo)
    # the implicit zeros: one value 0 of weight n_zeros where 0 belongs in each column that has some
    zcols = np.flatnonzero(n_zeros > 0)
    at = ptr[zcols] + n_neg[zcols]
    vals = np.insert(vals, at, 0.0)
    col = np.insert(col, at, zcols)
    weight = np.insert(np.ones(nan.size, np.int64), at, n_zeros[zcols])
    keep = ~np.insert(nan, at, False)
    vals, col, weight = vals[keep], col[keep], weight[keep]
    if vals.size == 0:
        n_bins[f_lo:f_hi] = 1
        return
    starts = np.flatnonzero(np.concatenate(([True], (vals[1:] != vals[:-1]) | (col[1:] != col[:-1]))))
    uniq, ucol, counts = vals[starts], col[starts], np.add.reduceat(weight, starts)
    n_distinct = np.bincount(ucol, minlength=f_hi - f_lo)
    first = np.concatenate(([0], np.cumsum(n_distinct)))
    n_bins[f_lo:f_hi] = np.maximum(n_distinct, 1)
    # columns with few distinct values: an edge between each two consecutive ones, a bin per value
    pair = np.flatnonzero((ucol[1:] == ucol[:-1]) & (n_distinct[ucol[:-1]] <= max_bins))
    edges[f_lo + ucol[pair], pair - first[ucol[pair]]] = _midpoints(uniq[pair], uniq[pair + 1])
    if bounds is not None:
        few = np.flatnonzero(n_distinct[ucol] <= max_bins)
        code = few - first[ucol[few]]
        bounds[f_lo + ucol[few], code, 0] = uniq[few]
        bounds[f_lo + ucol[few], code, 1] = uniq[few]
    many = np.flatnonzero(n_distinct > max_bins)
    if many.size:
        # a column whose one heavy value is its least (the zeros of a non-negative sparse column) at once
        rows = np.concatenate(([0], np.cumsum(counts)))
        heavy = counts * max_bins > (rows[first[1:]] - rows[first[:-1]])[ucol]
        n_heavy = np.bincount(ucol[heavy], minlength=f_hi - f_lo)
        low = (n_heavy[many] == 1) & heavy[first[many]]
        _heavy_least_edges(uniq, rows, first, many[low], max_bins, edges, n_bins, bounds, f_lo)
        many = many[~low]
    for j in many:
        e = _edges_of_counts(uniq[first[j]:first[j + 1]], counts[first[j]:first[j + 1]], max_bins)
        edges[f_lo + j, :e.size] = e
        n_bins[f_lo + j] = e.size + 1
        if bounds is not None:
            _set_bounds(bounds[f_lo + j], e, uniq[first[j]:first[j + 1]])


def _heavy_least_edges(uniq, rows, first, cols, max_bins, edges, n_bins, bounds, f_lo):
    """:func:`_edges_of_counts` (and :func:`_set_bounds`) of the block's columns ``cols`` at once.

    Each of them has more than ``max_bins`` distinct values (column ``j``'s:
    ``uniq[first[j]:first[j + 1]]``) of which only the least is heavy (holds
    more than ``1 / max_bins`` of the rows; ``rows``: the cumulative row
    counts of ``uniq``).  Its edges are the midpoint between that value and
    the next, then the quantile edges of the run of the others in
    ``max_bins - 1`` bins (:func:`_quantile_edges`): the same ranks and
    positions, found for all columns by one ``searchsorted`` in ``rows``.
    """
    if cols.size == 0:
        return
    k = max_bins - 1
    start = first[cols]
    n = first[cols + 1] - start
    base = rows[start + 1]  # rows up to the heavy value: the run's counts start after it
    run_rows = rows[start + n] - base
    ranks = np.round(np.arange(1, k) * ((run_rows - 1) / k)[:, None]).astype(np.int64)
    pos = np.searchsorted(rows, ranks + base[:, None], side="right") - (start + 2)[:, None]
    np.minimum(np.maximum(pos, 1, out=pos), (n - 2)[:, None], out=pos)
    # the value just above each edge, as an index into the column's values: 1 for the heavy value's edge
    above = np.concatenate((np.ones((cols.size, 1), np.int64), pos + 1), axis=1)
    keep = np.ones(above.shape, bool)
    keep[:, 2:] = pos[:, 1:] != pos[:, :-1]
    r, c = np.nonzero(keep)
    slot = np.cumsum(keep, axis=1)[r, c] - 1
    q = start[r] + above[r, c]
    f = f_lo + cols[r]
    edges[f, slot] = _midpoints(uniq[q - 1], uniq[q])
    n_edges = keep.sum(axis=1)
    n_bins[f_lo + cols] = n_edges + 1
    if bounds is not None:  # bin b: from the value above edge b - 1 to the value below edge b
        bounds[f, slot, 1] = uniq[q - 1]
        bounds[f, slot + 1, 0] = uniq[q]
        bounds[f_lo + cols, 0, 0] = uniq[start]
        bounds[f_lo + cols, n_edges, 1] = uniq[start + n - 1]


def _midpoints(lo, hi):
    """Thresholds between the values ``lo`` and the next values ``hi``."""
    mid = 0.5 * (lo + hi)
    # a midpoint that rounds up onto the upper value would put it in the lower bin
    return np.where(mid >= hi, lo, mid)


def _quantile_edges(uniq, ends, k):
    """Edges of at most ``k`` bins of equal rows over the distinct values ``uniq`` (increasing);
    ``ends[j]``: the rows of the values up to ``uniq[j]``, counted from the run's first value's."""
    if uniq.size <= k:
        return _midpoints(uniq[:-1], uniq[1:])
    # quantile cut points (ranks round(i (size - 1) / k)), snapped between
    # observed values so that no two edges share a pair of distinct values
    ranks = np.round(np.arange(1, k) * ((ends[-1] - 1) / k)).astype(np.int64)  # np.linspace's values
    pos = np.searchsorted(ends, ranks, side="right")
    np.minimum(np.maximum(pos, 1, out=pos), uniq.size - 1, out=pos)
    if pos.size > 1:  # increasing: drop repeats
        pos = pos[np.concatenate(([True], pos[1:] != pos[:-1]))]
    return _midpoints(uniq[pos - 1], uniq[pos])


def _share_bins(mass, n_values, n_bins):
    """Bins of each run of values: one each, the rest in proportion to the runs' rows (largest
    remainders first, the first run of equal remainders first), a run never more than ``n_values``."""
    if mass.size == 1:
        return np.minimum(n_values, n_bins)
    bins = np.ones(mass.size, np.int64)
    while True:
        room = bins < n_values
        extra = min(n_bins - int(bins.sum()), int((n_values - bins)[room].sum()))
        if extra <= 0 or not room.any():
            return bins
        quota = np.zeros(mass.size)
        quota[room] = extra * mass[room] / mass[room].sum()
        add = np.minimum(np.floor(quota).astype(np.int64), n_values - bins)
        left = extra - int(add.sum())
        if left > 0:
            frac = np.where(room & (bins + add < n_values), quota - np.floor(quota), -1.0)
            top = np.argsort(-frac, kind="stable")[:left]
            add[top[frac[top] >= 0.0]] += 1
        bins += add


def _edges_of_counts(uniq, counts, max_bins):
    """Edges between at most ``max_bins`` bins of a column given by its distinct values ``uniq``
    (increasing) and their row counts.

    A column with at most ``max_bins`` distinct values has a bin per value.
    Otherwise the bins hold equal numbers of rows (quantiles), except that a
    value holding more than ``1 / max_bins`` of the rows (the zeros of a
    sparse column, the common level of a zero-inflated feature) gets a bin
    of its own and the runs of values between such values share the other
    bins in proportion to their rows (:func:`_share_bins`; quantile edges
    within a run).  Heavy values are given up, the smallest first, while the
    runs would be left without a bin.  Plain quantiles would spend their cut
    points inside such a value: with 99 % zeros and 800 other distinct
    values, 250 of 254 cut points fall on 0 and the other values share 3
    bins.  Without such values the edges are the plain quantile edges.
    """
    if uniq.size <= max_bins:
        return _midpoints(uniq[:-1], uniq[1:])
    ends = np.cumsum(counts)
    heavy = counts * max_bins > ends[-1]

    def n_runs():
        return np.count_nonzero(~heavy & np.concatenate(([True], heavy[:-1])))

    while heavy.any() and np.count_nonzero(heavy) + n_runs() > max_bins:
        idx = np.flatnonzero(heavy)
        heavy[idx[idx.size - 1 - np.argmin(counts[idx][::-1])]] = False  # the last of the smallest
    if not heavy.any():
        return _quantile_edges(uniq, ends, max_bins)
    light = np.flatnonzero(~heavy)
    first = np.flatnonzero(np.concatenate(([True], light[1:] > light[:-1] + 1)))
    lo = light[first]
    hi = np.append(light[first[1:] - 1], light[-1]) + 1
    before = np.concatenate(([0], ends))
    bins = _share_bins((before[hi] - before[lo]).astype(np.float64), hi - lo, max_bins - np.count_nonzero(heavy))
    # the pieces in value order: a heavy value (one bin) or a run (its bins), with an edge between pieces
    at = np.flatnonzero(heavy[:-1] | heavy[1:])
    parts = [_midpoints(uniq[at], uniq[at + 1])]
    for a, b, k in zip(lo, hi, bins):
        parts.append(_quantile_edges(uniq[a:b], ends[a:b] - before[a], k))
    return np.sort(np.concatenate(parts))


def compute_bin_edges(X, max_bins=MAX_BINS, subsample=BINNING_SUBSAMPLE, seed=0, n_threads=1, bounds=False):
    """Bin edges of every feature.

    Parameters
    ----------
    X : ndarray (n_samples, n_features), float32 or float64, NaN allowed; or a
        scipy sparse matrix or array (read as CSC; absent entries are 0).
    max_bins : int in [2, 255], number of value bins per feature.
    subsample : int, quantiles are computed on at most this many rows.
    n_threads : int, threads over blocks of features of a dense ``X``
        (numpy's sort releases the GIL); the edges do not depend on it.
    bounds : bool, also return the bins' bounds.

    Returns
    -------
    edges : float64 (n_features, max_bins - 1), padded with +inf.
    n_bins : int32 (n_features,), number of value bins of each feature.
    bin_bounds : float64 (n_features, max_bins, 2), with ``bounds=True`` only:
        the least and greatest value of each bin among the rows read (NaN
        for an empty bin); see :func:`split_threshold`.
    """
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}.")
    n_samples, n_features = X.shape
    if n_samples > subsample:
        rows = np.sort(np.random.RandomState(seed).choice(n_samples, subsample, replace=False))
        X = X[rows]
    edges = np.full((n_features, max_bins - 1), np.inf, dtype=np.float64)
    n_bins = np.empty(n_features, dtype=np.int32)
    bin_bounds = np.full((n_features, max_bins, 2), np.nan) if bounds else None
    if sp.issparse(X):
        X = X.tocsc()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()

    def edges_of(f_lo, f_hi):
        if sp.issparse(X):
            for a, b in _stored_blocks(X.indptr, f_lo, f_hi, SPARSE_BLOCK_VALUES):
                _sparse_block_edges(X, max_bins, edges, n_bins, bin_bounds, a, b)
            return
        for f in range(f_lo, f_hi):
            e, uniq = _feature_edges(X[:, f], max_bins)
            edges[f, : e.size] = e
            n_bins[f] = e.size + 1
            if bounds:
                _set_bounds(bin_bounds[f], e, uniq)

    # a sparse matrix's blocks are worked through by numpy calls that hold the GIL for much of their time:
    # with a call per column, two threads took 1.7-2.1 times as long as one on 80000 x 10000 at 1 % density
    run_blocks(edges_of, n_features, 1 if sp.issparse(X) else n_threads)
    return (edges, n_bins, bin_bounds) if bounds else (edges, n_bins)


@njit(inline="always")
def split_threshold(bin_bounds, edges, f, b, m, threshold):
    """The threshold of a split of feature ``f`` whose left child holds codes up to ``b`` and whose right
    child's least code is ``m`` (``MISSING_BIN``: none; ``threshold``, the edge, is then kept).

    Halfway between the greatest value of bin ``b`` and the least of bin
    ``m`` (:func:`.splitters.exact.midpoint`'s rule), as the exact search
    cuts between the node's two values; kept between ``edges[f, b]`` and
    ``edges[f, m - 1]``, so that every training row stays on its side (a
    bin's bounds come from the rows the edges were computed on, which may be
    a subsample).  With one bin per distinct value this is the exact
    search's threshold.
    """
    if m >= MISSING_BIN or b >= MISSING_BIN - 1 or bin_bounds.shape[0] == 0:
        return threshold
    lo = bin_bounds[f, b, 1]
    hi = bin_bounds[f, m, 0]
    if not (lo < hi):  # an empty bin's NaN, or bounds that do not order
        return threshold
    t = 0.5 * (lo + hi)
    if t >= hi:
        t = lo
    low_edge = edges[f, b]
    high_edge = edges[f, m - 1]
    if t < low_edge:
        t = low_edge
    if t > high_edge:
        t = high_edge
    return t


@njit
def _bin_columns(X, edges, n_bins, out, f_lo, f_hi):
    # codes of the features f_lo .. f_hi - 1; row blocks keep both the read of
    # X (row-major) and the write of out (feature-major) inside the cache
    block = 512
    for r0 in range(0, X.shape[0], block):
        r1 = min(r0 + block, X.shape[0])
        for f in range(f_lo, f_hi):
            n_edges = n_bins[f] - 1
            for i in range(r0, r1):
                v = X[i, f]
                if np.isnan(v):
                    out[f, i] = MISSING_BIN
                    continue
                # binary search: number of edges strictly below v
                lo = 0
                hi = n_edges
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if edges[f, mid] < v:
                        lo = mid + 1
                    else:
                        hi = mid
                out[f, i] = lo


@njit
def _code(edges, f, n_edges, v):
    """Code of the value ``v`` of feature ``f``: the number of its edges strictly below ``v``."""
    if np.isnan(v):
        return MISSING_BIN
    lo = 0
    hi = n_edges
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[f, mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit
def _bin_csc_columns(data, indices, indptr, edges, n_bins, out, f_lo, f_hi):
    # codes of the features f_lo .. f_hi - 1 of a CSC matrix: the code of 0, then the stored entries
    for f in range(f_lo, f_hi):
        n_edges = n_bins[f] - 1
        out[f, :] = _code(edges, f, n_edges, np.float32(0.0))
        for k in range(indptr[f], indptr[f + 1]):
            out[f, indices[k]] = _code(edges, f, n_edges, data[k])


def dominant_codes(Xb, n_bins, edges=None, X=None):
    """Per feature, the value code that more than half of the rows hold, or -1.

    ``Xb`` is the ``(n_features, n_samples)`` code matrix of :func:`bin_data`.
    Such a bin (the zeros of a sparse column, the common level of a binary
    or one-hot feature) is the one the histogram builder may leave out and
    compute from the node's totals (:func:`.splitters.hist.build_node_histogram_cls`).
    numpy's ``bincount`` per feature: nothing to compile on first use.  With
    the CSC matrix ``X`` that ``Xb`` codes and its ``edges``, a column with
    fewer stored entries than half its rows is not read: more than half of
    its rows hold the code of 0.
    """
    n_features, n_samples = Xb.shape
    out = np.full(n_features, -1, np.int32)
    zero_bin_known = np.zeros(n_features, bool)
    if X is not None:
        zero_bin_known = 2 * np.diff(X.indptr) < n_samples
        zero_code = np.count_nonzero(edges < 0.0, axis=1)  # the code of 0: edges strictly below it (padding is +inf)
        out[zero_bin_known] = zero_code[zero_bin_known]
    for f in np.flatnonzero(~zero_bin_known):
        counts = np.bincount(Xb[f], minlength=256)[:n_bins[f]]
        if counts.size:
            b = int(np.argmax(counts))
            if 2 * counts[b] > n_samples:
                out[f] = b
    return out


def other_code_rows(Xb, dominant, max_entries, X=None):
    """Row-wise index of the codes that differ from their feature's dominant code.

    Returns ``(row_ptr, row_feat)``: row ``i`` holds, in
    ``row_feat[row_ptr[i]:row_ptr[i + 1]]``, the features ``f`` with
    ``dominant[f] >= 0`` whose code in that row is not ``dominant[f]``, in
    increasing order (for a sparse matrix: the row's stored values, roughly).
    A feature of a node that none of its rows lists holds its dominant code
    in every row: it is constant there, and the split search skips it
    without reading its codes.  Both arrays are empty when there would be
    more than ``max_entries`` entries (the data are not sparse enough for the
    index to pay) or when no feature has a dominant code.  With the CSC
    matrix ``X`` that ``Xb`` codes, a feature whose dominant code is the
    code of 0 (all of its rows but the stored ones hold it) is read at its
    stored rows only, and the index is built by one compiled pass
    (:func:`_csc_other_code_rows`); a dense matrix is indexed with numpy
    calls, so that dense data compile nothing for it.
    """
    n_features, n_samples = Xb.shape
    empty = np.zeros(0, np.int64), np.zeros(0, np.int32)
    if X is not None:
        row_ptr, row_feat = _csc_other_code_rows(Xb, dominant, X.indptr, X.indices, max_entries)
        return (row_ptr, row_feat) if row_feat.size else empty
    rows, feats, total = [], [], 0
    for f in np.flatnonzero(dominant >= 0):
        r = np.flatnonzero(Xb[f] != dominant[f])
        total += r.size
        if total > max_entries:
            return empty
        rows.append(r)
        feats.append(np.full(r.size, f, np.int32))
    if total == 0:
        return empty
    # scipy turns the (row, feature) pairs row-wise in compiled code; the features of a row in increasing order
    index = sp.coo_matrix((np.ones(total, bool), (np.concatenate(rows), np.concatenate(feats))),
                          shape=(n_samples, n_features)).tocsr()
    index.sort_indices()
    return index.indptr.astype(np.int64), index.indices.astype(np.int32)


@njit
def _csc_other_code_rows(Xb, dominant, indptr, indices, max_entries):
    """:func:`other_code_rows` of the codes ``Xb`` of the CSC matrix ``(indptr, indices)``.

    A column stored in fewer than half its rows has the code of 0 as its
    dominant code (more than half its rows are implicit zeros), so only its
    stored rows can differ; another column with a dominant code is read in
    every row.  Two passes over the features in increasing order (count per
    row, then fill), so each row lists its features in increasing order.
    An empty ``row_feat`` when the index would hold more than
    ``max_entries`` entries, or none.
    """
    n_features, n_samples = Xb.shape
    row_ptr = np.zeros(n_samples + 1, np.int64)
    row_feat = np.zeros(0, np.int32)
    fill = row_ptr[:n_samples]
    total = 0
    for stage in range(2):  # count each row's entries, then fill them in
        counting = stage == 0
        if not counting:
            for i in range(n_samples):
                row_ptr[i + 1] += row_ptr[i]
            row_feat = np.empty(total, np.int32)
            fill = row_ptr[:n_samples].copy()
        for f in range(n_features):
            d = dominant[f]
            if d < 0:
                continue
            codes = Xb[f]
            stored = 2 * (indptr[f + 1] - indptr[f]) < n_samples
            lo = np.int64(indptr[f]) if stored else np.int64(0)
            hi = np.int64(indptr[f + 1]) if stored else np.int64(n_samples)
            for q in range(lo, hi):
                i = np.int64(indices[q]) if stored else q
                if codes[i] != d:
                    if counting:
                        row_ptr[i + 1] += 1
                        total += 1
                    else:
                        row_feat[fill[i]] = f
                        fill[i] += 1
            if counting and total > max_entries:
                return row_ptr, np.zeros(0, np.int32)
    return row_ptr, row_feat


def bin_data(X, edges, n_bins, n_threads=1):
    """Codes of ``X`` as ``uint8`` in feature-major layout ``(n_features, n_samples)``.

    Feature-major storage makes the histogram loop read one contiguous row of
    codes per feature while it walks the node's (sorted) sample indices.
    ``n_threads`` threads code blocks of features (the codes do not depend on it).
    ``X`` may be a scipy sparse CSC matrix with sorted, unique row indices per
    column; its codes are written column by column.
    """
    out = np.empty((X.shape[1], X.shape[0]), dtype=np.uint8)
    if sp.issparse(X):
        run_blocks(_bin_csc_columns, X.shape[1], n_threads, X.data, X.indices, X.indptr, edges, n_bins, out)
    else:
        run_blocks(_bin_columns, X.shape[1], n_threads, X, edges, n_bins, out)
    return out


def sparse_code_index(X, edges, n_bins, max_entries):
    """The codes of a CSC matrix ``X`` kept as an index of the codes that differ from their feature's
    dominant code, without the ``(n_features, n_samples)`` code matrix.

    Returns ``None`` when the index would hold more than ``max_entries``
    entries (the matrix is not sparse enough), else ``(dominant, row_ptr,
    row_feat, columns)``: ``dominant`` as :func:`dominant_codes` gives it,
    ``(row_ptr, row_feat)`` as :func:`other_code_rows` gives it, and
    ``columns = (col_ptr, col_rows, col_codes, row_code, dense_row, Xd)``:
    the first four as :func:`.splitters.hist.column_index` builds them from
    the code matrix, ``Xd`` the code rows of the features without a dominant
    code (``(n_dense, n_samples)``) and ``dense_row[f]`` the row of feature
    ``f`` in ``Xd``, -1 for the others.  Every code of the matrix is then
    known: feature ``f``'s code in row ``i`` is ``Xd[dense_row[f], i]``, or
    the code the column index lists for ``(f, i)``, or ``dominant[f]``.

    A column stored in fewer than half its rows has the code of 0 as its
    dominant code, and only its stored entries are coded; the other columns
    are coded in full, one block of them at a time.
    """
    n_samples, n_features = X.shape
    stored = np.diff(X.indptr)
    dominant = np.count_nonzero(edges < 0.0, axis=1).astype(np.int32)  # the code of 0 (padding is +inf)
    heavy = np.flatnonzero(2 * stored >= n_samples)
    Xh = bin_data(X[:, heavy], edges[heavy], n_bins[heavy]) if heavy.size else np.zeros((0, n_samples), np.uint8)
    heavy_row = np.full(n_features, -1, np.int32)
    heavy_row[heavy] = np.arange(heavy.size, dtype=np.int32)
    for k, f in enumerate(heavy):
        counts = np.bincount(Xh[k], minlength=256)[:n_bins[f]]
        b = int(np.argmax(counts)) if counts.size else -1
        dominant[f] = b if b >= 0 and 2 * counts[b] > n_samples else -1
    ok, row_ptr, row_feat, col_ptr, col_rows, col_codes, row_code = _csc_code_index(
        X.data, X.indices, X.indptr, edges, n_bins, dominant, heavy_row, Xh, max_entries)
    if not ok or row_feat.size == 0:
        return None
    dense = heavy[dominant[heavy] < 0]
    dense_row = np.full(n_features, -1, np.int32)
    dense_row[dense] = np.arange(dense.size, dtype=np.int32)
    Xd = np.ascontiguousarray(Xh[heavy_row[dense]]) if dense.size else np.zeros((0, n_samples), np.uint8)
    return dominant, row_ptr, row_feat, (col_ptr, col_rows, col_codes, row_code, dense_row, Xd)


@njit
def _csc_code_index(data, indices, indptr, edges, n_bins, dominant, heavy_row, Xh, max_entries):
    """The index of :func:`sparse_code_index`: ``(ok, row_ptr, row_feat, col_ptr, col_rows, col_codes, row_code)``.

    A feature with ``heavy_row[f] >= 0`` is read from its codes
    ``Xh[heavy_row[f]]``, another from its stored entries (its other rows
    hold the code of 0, its dominant code).  ``ok`` is False, and the
    arrays empty, when the index would hold more than ``max_entries``
    entries.  The column index lists each feature's rows in increasing
    order, the row index each row's features in increasing order.
    """
    n_features = indptr.shape[0] - 1
    n_samples = Xh.shape[1]
    codes = np.empty(indptr[n_features], np.uint8)  # the stored entries' codes
    col_ptr = np.zeros(n_features + 1, np.int64)
    for f in range(n_features):
        d = dominant[f]
        m = 0
        if d >= 0:
            h = heavy_row[f]
            if h >= 0:
                for i in range(n_samples):
                    if Xh[h, i] != d:
                        m += 1
            else:
                n_edges = n_bins[f] - 1
                for k in range(indptr[f], indptr[f + 1]):
                    c = _code(edges, f, n_edges, data[k])
                    codes[k] = c
                    if c != d:
                        m += 1
        col_ptr[f + 1] = col_ptr[f] + m
        if col_ptr[f + 1] > max_entries:
            empty64 = np.zeros(0, np.int64)
            empty32 = np.zeros(0, np.int32)
            empty8 = np.zeros(0, np.uint8)
            return False, empty64, empty32, empty64, empty32, empty8, empty8
    total = col_ptr[n_features]
    col_rows = np.empty(total, np.int32)
    col_codes = np.empty(total, np.uint8)
    row_ptr = np.zeros(n_samples + 1, np.int64)
    q = 0
    for f in range(n_features):
        d = dominant[f]
        if d < 0:
            continue
        h = heavy_row[f]
        if h >= 0:
            for i in range(n_samples):
                c = Xh[h, i]
                if c != d:
                    col_rows[q] = i
                    col_codes[q] = c
                    q += 1
        else:
            for k in range(indptr[f], indptr[f + 1]):
                c = codes[k]
                if c != d:
                    col_rows[q] = indices[k]
                    col_codes[q] = c
                    q += 1
    # the row index: the column index turned row-wise, each row's features in increasing order
    for q in range(total):
        row_ptr[col_rows[q] + 1] += 1
    for i in range(n_samples):
        row_ptr[i + 1] += row_ptr[i]
    fill = row_ptr[:n_samples].copy()
    row_feat = np.empty(total, np.int32)
    row_code = np.empty(total, np.uint8)
    for f in range(n_features):
        for q in range(col_ptr[f], col_ptr[f + 1]):
            i = col_rows[q]
            row_feat[fill[i]] = f
            row_code[fill[i]] = col_codes[q]
            fill[i] += 1
    return True, row_ptr, row_feat, col_ptr, col_rows, col_codes, row_code
