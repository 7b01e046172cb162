"""Quantile binning: per-feature bin edges and ``X -> uint8`` codes.

Codes ``0 .. n_bins[f] - 1`` hold values, code :data:`MISSING_BIN` (255) holds
NaN.  A value ``v`` gets code ``b`` = number of edges strictly below ``v``, so
``code <= b`` is exactly ``v <= edges[f, b]``: a split found on codes is
stored with the real threshold ``edges[f, b]`` and the predictor, which works
on raw values, sends every training row where the grower sent it.

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
    """Sorted thresholds (at most ``max_bins - 1``) between the bins of ``col``."""
    return _sorted_edges(np.sort(col[~np.isnan(col)].astype(np.float64)), max_bins)


def _sparse_column_edges(X, f, max_bins):
    """:func:`_sorted_edges` of column ``f`` of the CSC matrix ``X``, implicit zeros included.

    The sorted column is its sorted stored values with the implicit zeros
    inserted where 0 belongs; it is not built.  Its distinct values are
    those of the stored values with one zero inserted (a run of equal values
    contributes its first), and its quantiles are read through their ranks:
    the same edges, for a cost in the stored values instead of the rows.
    """
    lo, hi = X.indptr[f], X.indptr[f + 1]
    stored = X.data[lo:hi]
    stored = np.sort(stored[~np.isnan(stored)].astype(np.float64))
    n_zeros = X.shape[0] - (hi - lo)
    if n_zeros == 0:
        return _sorted_edges(stored, max_bins)
    at = np.searchsorted(stored, 0.0)

    def values_at(i):
        out = np.zeros(i.size)
        below = i < at
        out[below] = stored[i[below]]
        above = i >= at + n_zeros
        out[above] = stored[i[above] - n_zeros]
        return out

    compressed = np.concatenate((stored[:at], np.zeros(1), stored[at:]))
    return _edges_of_sorted(_distinct(compressed), stored.size + n_zeros, values_at, max_bins)


def _distinct(col):
    """The first value of every run of equal values of the sorted ``col``."""
    return col[np.concatenate(([True], col[1:] != col[:-1]))]


def _sorted_edges(col, max_bins):
    """:func:`_feature_edges` of a column already sorted, NaN removed."""
    if col.size == 0:
        return np.zeros(0, dtype=np.float64)
    return _edges_of_sorted(_distinct(col), col.size, lambda i: col[i], max_bins)


def _edges_of_sorted(uniq, size, values_at, max_bins):
    """Edges of a sorted column of ``size`` values, given its distinct values and its values at given ranks."""
    if uniq.size <= max_bins:
        lo, hi = uniq[:-1], uniq[1:]
    else:
        # quantile cut points of the sorted column, then snapped between
        # observed values so that no two edges share a pair of distinct values
        ranks = np.linspace(0, size - 1, max_bins + 1)[1:-1]
        qs = values_at(np.round(ranks).astype(np.int64))
        pos = np.unique(np.clip(np.searchsorted(uniq, qs, side="left"), 1, uniq.size - 1))
        lo, hi = uniq[pos - 1], uniq[pos]
    mid = 0.5 * (lo + hi)
    # a midpoint that rounds up onto the upper value would put it in the lower bin
    return np.where(mid >= hi, lo, mid)


def compute_bin_edges(X, max_bins=MAX_BINS, subsample=BINNING_SUBSAMPLE, seed=0, n_threads=1):
    """Bin edges of every feature.

    Parameters
    ----------
    X : ndarray (n_samples, n_features), float32 or float64, NaN allowed; or a
        scipy sparse matrix or array (read as CSC; absent entries are 0).
    max_bins : int in [2, 255], number of value bins per feature.
    subsample : int, quantiles are computed on at most this many rows.
    n_threads : int, threads over blocks of features (numpy's sort releases
        the GIL); the edges do not depend on it.

    Returns
    -------
    edges : float64 (n_features, max_bins - 1), padded with +inf.
    n_bins : int32 (n_features,), number of value bins of each feature.
    """
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must be in [2, {MAX_BINS}], got {max_bins}.")
    n_samples, n_features = X.shape
    if n_samples > subsample:
        rows = np.sort(np.random.RandomState(seed).choice(n_samples, subsample, replace=False))
        X = X[rows]
    edges = np.full((n_features, max_bins - 1), np.inf, dtype=np.float64)
    n_bins = np.empty(n_features, dtype=np.int32)
    if sp.issparse(X):
        X = X.tocsc()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()

    def edges_of(f_lo, f_hi):
        for f in range(f_lo, f_hi):
            if sp.issparse(X):
                e = _sparse_column_edges(X, f, max_bins)
            else:
                e = _feature_edges(X[:, f], max_bins)
            edges[f, : e.size] = e
            n_bins[f] = e.size + 1

    run_blocks(edges_of, n_features, n_threads)
    return edges, n_bins


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
    stored rows only.
    """
    n_samples = Xb.shape[1]
    empty = np.zeros(0, np.int64), np.zeros(0, np.int32)
    features = np.flatnonzero(dominant >= 0)
    rows, total = [], 0
    for f in features:
        if X is not None and 2 * (X.indptr[f + 1] - X.indptr[f]) < n_samples:
            # the implicit zeros hold the dominant code (see dominant_codes)
            stored = X.indices[X.indptr[f]:X.indptr[f + 1]]
            r = stored[Xb[f, stored] != dominant[f]].astype(np.int64)
        else:
            r = np.flatnonzero(Xb[f] != dominant[f])
        total += r.size
        if total > max_entries:
            return empty
        rows.append(r)
    if not rows:
        return empty
    row_of = np.concatenate(rows)
    feat_of = np.repeat(features.astype(np.int32), [r.size for r in rows])
    order = np.argsort(row_of, kind="stable")  # by row; features stay in increasing order within a row
    row_ptr = np.zeros(n_samples + 1, np.int64)
    np.cumsum(np.bincount(row_of, minlength=n_samples), out=row_ptr[1:])
    return row_ptr, feat_of[order]


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
