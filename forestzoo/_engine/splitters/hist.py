"""Histogram split search over binned codes (``splitter="hist"``)."""

import numpy as np

from ..._jit import njit
from ..binning import MISSING_BIN
from ..criteria import GINI, SQUARED_ERROR
from ._common import (
    INF, REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, add_sample_for, evaluate_for, feasible,
    insert_sorted, monotone_ok, ratios_ok, scan_sorted_cls, scan_sorted_for,
)

# Nodes with fewer rows than this skip the histogram: sorting a handful of
# codes is cheaper than clearing and scanning 256 bins.
SMALL_NODE = 256
#: Nodes of sparse data with fewer rows than this gather the entries of the row index that their candidate
#: features hold (:func:`gather_drawn_entries`) and search those features from them.
ENTRY_NODE = 1024
_INSERTION_MAX = 16


# Every kernel of this module exists twice, ``*_cls`` for the classification criteria and ``*_reg``
# for the regression ones: each is its ``_*`` body (inlined) with the task flag ``reg`` a constant,
# so Numba drops the other task's code before typing and a fit compiles only its own task's kernels
# (see criteria.weighted_impurity_for).


@njit(inline="always")
def _build_histogram(codes, idx, start, end, w, yk, wy, n_bins, hist, reg):
    """Statistics of every bin of one feature over the node ``idx[start:end]``.

    ``hist`` is ``(256, n_stats)``; bins ``n_bins .. 254`` stay untouched
    (they are never read), row :data:`MISSING_BIN` holds the NaN rows.
    ``w``, ``yk`` and ``wy`` (``w * y`` for squared error) are node-ordered.

    For squared error only the first three statistics (rows, ``sum w``,
    ``sum w y``) are summed: the split search needs ``sum w y**2`` of the
    node alone (see :func:`_split_histogram_sq`), and the fourth
    read-modify-write per row was a sixth of the build's time.
    """
    hist[:n_bins, :] = 0.0
    hist[MISSING_BIN, :] = 0.0
    if end <= start:
        return
    # The node's rows are consecutive when the span of idx equals its length: every node's idx is
    # sorted and distinct (the root is np.flatnonzero(weights > 0) and partitions are stable), so this
    # holds at the root of a fit where every weight is positive.  Then the codes are read as a slice,
    # without the index stream (a fifth of the bytes).
    first = np.int64(idx[start])
    consecutive = np.int64(idx[end - 1]) - first == end - 1 - start
    # the loops differ only in the statistics they add (see criteria.py)
    if reg:
        if consecutive:
            node_codes = codes[first:first + (end - start)]
            for p in range(start, end):
                b = node_codes[p - start]
                hist[b, 0] += 1.0
                hist[b, 1] += w[p]
                hist[b, 2] += wy[p]
            return
        for p in range(start, end):
            b = codes[idx[p]]
            hist[b, 0] += 1.0
            hist[b, 1] += w[p]
            hist[b, 2] += wy[p]
    elif consecutive:
        node_codes = codes[first:first + (end - start)]
        for p in range(start, end):
            b = node_codes[p - start]
            wi = w[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2 + yk[p]] += wi
    else:
        for p in range(start, end):
            b = codes[idx[p]]
            wi = w[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2 + yk[p]] += wi


@njit
def build_histogram_cls(codes, idx, start, end, w, yk, wy, n_bins, hist):
    """:func:`_build_histogram` for a classification criterion (class weights per bin)."""
    _build_histogram(codes, idx, start, end, w, yk, wy, n_bins, hist, False)


@njit
def build_histogram_reg(codes, idx, start, end, w, yk, wy, n_bins, hist):
    """:func:`_build_histogram` for a regression criterion (``sum w y`` per bin)."""
    _build_histogram(codes, idx, start, end, w, yk, wy, n_bins, hist, True)


@njit
def integral_weights(w):
    """Whether every weight is an integer and their sum is below 2**53: sums of them are then exact."""
    total = 0.0
    for i in range(w.shape[0]):
        wi = w[i]
        if wi != np.floor(wi):
            return False
        total += wi
    return total < 2.0 ** 53


@njit
def build_node_histogram_cls(codes, idx, start, end, w, yk, wy, n_bins, hist, skip, total):
    """:func:`build_histogram_cls`, or, for ``skip >= 0``, the same histogram without adding a row to bin ``skip``.

    That bin is then ``total`` minus the others.  For a feature where one
    bin holds most rows (the zeros of a sparse column, the common level of a
    one-hot feature), adding row after row to the same bin makes each
    addition wait for the previous one to be stored; skipping them reads the
    codes alone.  ``total`` is the node's statistics vector (rows, ``sum
    w``, class weights).  The result equals the plain build exactly when
    every weight is an integer and their sum is below 2**53 (every partial
    sum is then exact in float64, whatever the order); the grower passes
    ``skip >= 0`` only then.
    """
    if skip < 0:
        _build_histogram(codes, idx, start, end, w, yk, wy, n_bins, hist, False)
        return
    hist[:n_bins, :] = 0.0
    hist[MISSING_BIN, :] = 0.0
    for p in range(start, end):
        b = codes[idx[p]]
        if b != skip:
            wi = w[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2 + yk[p]] += wi
    _fill_skipped_bin(hist, n_bins, skip, total)


@njit(inline="always")
def _fill_skipped_bin(hist, n_bins, skip, total):
    """Bin ``skip`` of ``hist``: the node's ``total`` minus every other bin and the NaN bin."""
    n_stats = hist.shape[1]
    for s in range(n_stats):
        hist[skip, s] = total[s]
    for b in range(n_bins):
        if b != skip:
            for s in range(n_stats):
                hist[skip, s] -= hist[b, s]
    for s in range(n_stats):
        hist[skip, s] -= hist[MISSING_BIN, s]


@njit(inline="always")
def _record_split(rec, cost, f, missing_left, b, edges):
    """Write a winning candidate into ``rec``: rows with code ``<= b`` go left (``MISSING_BIN - 1``: every value)."""
    rec[REC_COST] = cost
    rec[REC_FEATURE] = f
    rec[REC_MISSING_LEFT] = missing_left
    rec[REC_BIN] = b
    rec[REC_THRESHOLD] = np.inf if b == MISSING_BIN - 1 else edges[f, b]


@njit
def column_index(row_ptr, row_feat, Xb):
    """The column-wise twin of :func:`..binning.other_code_rows`: per feature, its rows and codes.

    Returns ``(col_ptr, col_rows, col_codes, row_code)``.  Feature ``f``'s
    rows whose code differs from its dominant code are
    ``col_rows[col_ptr[f]:col_ptr[f + 1]]``, in increasing order, and their
    codes ``col_codes`` at the same positions (for a sparse matrix: the
    column's stored values).  A feature without a dominant code has none.
    ``row_code[k]`` is the code of the row index's entry ``k`` (feature
    ``row_feat[k]``), so that a node's entries carry their codes without
    reading ``Xb``.  It depends on the training data alone: a forest builds
    it once for all its trees (:meth:`.builder.TrainingData.columns`).
    """
    n_features, n_samples = Xb.shape
    col_ptr = np.zeros(n_features + 1, np.int64)
    for k in range(row_feat.shape[0]):
        col_ptr[row_feat[k] + 1] += 1
    for f in range(n_features):
        col_ptr[f + 1] += col_ptr[f]
    fill = col_ptr[:n_features].copy()
    col_rows = np.empty(row_feat.shape[0], np.int32)
    for i in range(n_samples):
        for k in range(row_ptr[i], row_ptr[i + 1]):
            f = row_feat[k]
            col_rows[fill[f]] = i
            fill[f] += 1
    # the codes read feature by feature, each along its row of Xb in increasing order
    col_codes = np.empty(row_feat.shape[0], np.uint8)
    for f in range(n_features):
        codes = Xb[f]
        for q in range(col_ptr[f], col_ptr[f + 1]):
            col_codes[q] = codes[col_rows[q]]
    # each entry's code, from the column index (the codes matrix is read along its rows only)
    row_code = np.empty(row_feat.shape[0], np.uint8)
    fill[:] = col_ptr[:n_features]
    for i in range(n_samples):
        for k in range(row_ptr[i], row_ptr[i + 1]):
            f = row_feat[k]
            row_code[k] = col_codes[fill[f]]
            fill[f] += 1
    return col_ptr, col_rows, col_codes, row_code


@njit
def column_setup(use, columns, row_ptr, idx, n_stats, indexed):
    """The sparse-data scratch of a ``hist`` grower with ``COLS = 1``, or empty arrays when ``use`` is False.

    ``columns`` is the data's column index and code rows
    (:meth:`.builder.TrainingData.columns`).  Returns ``(col_ptr, col_rows,
    col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code,
    sort_code, sort_pos, groups, group_code, hits, dense_row, Xd,
    row_codes)``: the column index; each row's position in ``idx`` (-1 if
    absent); the buffers of :func:`gather_node_entries`,
    :func:`gather_drawn_entries`, :func:`split_sparse_small_cls` and
    :func:`split_column_cls`, sized for a node below ``ENTRY_NODE`` rows and
    for the longest column; and, when ``indexed`` (the codes are kept in the
    column index alone), the code rows kept apart and a row's worth of codes
    for :func:`node_codes` (else empty arrays).  One compiled call, so that
    the grower, whose compilation grows faster than its code, carries none of
    these allocations.
    """
    col_ptr, col_rows, col_codes, row_code, dense_row, Xd = columns
    if not use:
        return (np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint8), np.zeros(0, np.int64),
                np.zeros(0, np.uint8), np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int64),
                np.zeros(0, np.uint8), np.zeros(0, np.uint8), np.zeros(0, np.int64), np.zeros((0, n_stats)),
                np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros((0, 0), np.uint8),
                np.zeros(0, np.uint8))
    n_features = col_ptr.shape[0] - 1
    n_samples = row_ptr.shape[0] - 1
    row_pos = np.empty(n_samples, np.int64)
    for i in range(n_samples):
        row_pos[i] = -1
    for p in range(idx.shape[0]):
        row_pos[idx[p]] = p
    # a node searched from its entries holds at most the ENTRY_NODE - 1 longest rows of the sample
    lengths = np.empty(idx.shape[0], np.int64)
    for p in range(idx.shape[0]):
        lengths[p] = row_ptr[idx[p] + 1] - row_ptr[idx[p]]
    lengths.sort()
    most = 0
    for p in range(max(0, lengths.shape[0] - (ENTRY_NODE - 1)), lengths.shape[0]):
        most += lengths[p]
    for f in range(n_features):
        most = max(most, col_ptr[f + 1] - col_ptr[f])
    if not indexed:
        dense_row = np.zeros(0, np.int32)
        Xd = np.zeros((0, 0), np.uint8)
    return (col_ptr, col_rows, col_codes, row_pos, row_code, np.empty(n_features, np.int32),
            np.empty(n_features, np.int64), np.empty(most, np.int64), np.empty(most, np.uint8),
            np.empty(most, np.uint8), np.empty(most, np.int64), np.empty((MISSING_BIN + 1, n_stats)),
            np.empty(MISSING_BIN + 1, np.int64), np.empty(most, np.int64), dense_row, Xd,
            np.empty(n_samples if indexed else 0, np.uint8))


@njit
def node_codes(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, dom, dense_row, Xd, row_codes):
    """Feature ``f``'s codes of the node ``idx[start:end]``, for codes kept in the column index alone.

    Returns an array ``codes`` with ``codes[idx[p]]`` the code of row
    ``idx[p]`` for ``p`` in ``start .. end - 1``, as ``Xb[f]`` would give
    them: the feature's code row ``Xd[dense_row[f]]`` when it has no dominant
    code, else ``row_codes`` filled for the node's rows: ``dom`` where the
    column index lists no code, by one pass over the feature's listed rows
    (their positions ``row_pos`` tell the node's), or, when the feature
    lists more than 4 rows per row of the node, by a binary search of each
    row among them.
    """
    k = dense_row[f]
    if k >= 0:
        return Xd[k]
    lo = col_ptr[f]
    hi = col_ptr[f + 1]
    fill = np.uint8(dom)
    if hi - lo <= 4 * (end - start):
        for p in range(start, end):
            row_codes[idx[p]] = fill
        for q in range(lo, hi):
            r = col_rows[q]
            p = row_pos[r]
            if p >= start and p < end:
                row_codes[r] = col_codes[q]
        return row_codes
    for p in range(start, end):
        r = idx[p]
        a = lo
        b = hi
        while a < b:
            mid = (a + b) >> 1
            if col_rows[mid] < r:
                a = mid + 1
            else:
                b = mid
        row_codes[r] = col_codes[a] if a < hi and col_rows[a] == r else fill
    return row_codes


@njit
def entry_codes(f, idx, start, end, dom, ent_pos, ent_code, lo_e, hi_e, dense_row, Xd, row_codes):
    """:func:`node_codes` from the node's entries of the row index (:func:`gather_node_entries`).

    Feature ``f``'s rows off its dominant code ``dom`` in the node
    ``idx[start:end]`` are at node positions ``ent_pos[lo_e:hi_e]`` with codes
    ``ent_code[lo_e:hi_e]``; the node's other rows hold ``dom``.  Returns an
    array ``codes`` with ``codes[idx[p]]`` the code of row ``idx[p]``, as
    ``Xb[f]`` would give it: one pass over the node's rows and one over the
    feature's entries, where :func:`node_codes` searches the column index.
    """
    k = dense_row[f]
    if k >= 0:
        return Xd[k]
    fill = np.uint8(dom)
    for p in range(start, end):
        row_codes[idx[p]] = fill
    for q in range(lo_e, hi_e):
        row_codes[idx[ent_pos[q]]] = ent_code[q]
    return row_codes


@njit
def indexed_histogram_cls(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, w, yk, wy, n_bins, hist, dom,
                          total, dense_row, Xd, row_codes):
    """:func:`build_histogram_cls` of feature ``f`` over the node ``idx[start:end]`` with statistics
    ``total``, for codes kept in the column index alone and integer weights.

    A feature with a dominant code ``dom`` whose column index lists at most
    4 rows per row of the node adds those of its listed rows that lie in the
    node (``row_pos``) and derives bin ``dom`` from ``total``, as
    :func:`build_node_histogram_cls` with ``skip = dom``; another is built
    from :func:`node_codes`.  Every sum is exact (integer weights), so the
    histogram is the plain build's.
    """
    lo = col_ptr[f]
    hi = col_ptr[f + 1]
    if dense_row[f] >= 0 or hi - lo > 4 * (end - start):
        codes = node_codes(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, dom, dense_row, Xd, row_codes)
        build_node_histogram_cls(codes, idx, start, end, w, yk, wy, n_bins, hist, dom, total)
        return
    hist[:n_bins, :] = 0.0
    hist[MISSING_BIN, :] = 0.0
    for q in range(lo, hi):
        p = row_pos[col_rows[q]]
        if p >= start and p < end:
            b = col_codes[q]
            wi = w[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2 + yk[p]] += wi
    _fill_skipped_bin(hist, n_bins, dom, total)


@njit
def gather_node_entries(idx, start, end, row_ptr, row_feat, row_code, counts, touched, ent_off, ent_pos, ent_code,
                        fill):
    """Count, per feature, the node's rows the row index lists, and with ``fill`` collect them per feature.

    ``counts[f]`` (zero on entry for every feature) becomes the number of rows
    of ``idx[start:end]`` whose code of feature ``f`` is not its dominant one,
    and ``touched[:t]`` lists the ``t`` features (returned) with a nonzero
    count: :func:`clear_node_entries` resets them.  With ``fill``, those rows'
    node positions and codes are laid out feature after feature in
    ``ent_pos`` / ``ent_code``: feature ``f``'s are the ``counts[f]`` entries
    that end at ``ent_off[f]``, in node order.  Reads the node's index
    entries, not its codes: sparse data list a few features per row.
    """
    t = 0
    for p in range(start, end):
        i = idx[p]
        for k in range(row_ptr[i], row_ptr[i + 1]):
            f = row_feat[k]
            if counts[f] == 0:
                touched[t] = f
                t += 1
            counts[f] += 1
    if fill:
        acc = 0
        for j in range(t):
            f = touched[j]
            ent_off[f] = acc
            acc += counts[f]
        for p in range(start, end):
            i = idx[p]
            for k in range(row_ptr[i], row_ptr[i + 1]):
                f = row_feat[k]
                q = ent_off[f]
                ent_pos[q] = p
                ent_code[q] = row_code[k]
                ent_off[f] = q + 1
    return t


@njit
def gather_drawn_entries(idx, start, end, row_ptr, row_feat, row_code, feats, k, counts, ent_off, ent_pos, ent_code,
                         hit_pos, hit_entry):
    """:func:`gather_node_entries` for the features ``feats[:k]`` alone (a node's drawn candidates).

    ``counts[f]`` (zero on entry for every feature) becomes, for each ``f``
    of ``feats[:k]``, the number of rows of ``idx[start:end]`` whose code of
    ``f`` is not its dominant one, and those rows' node positions and codes
    are laid out as :func:`gather_node_entries` lays them out; the other
    features' counts stay 0.  A node's rows list many more features than it
    draws (100 of 10000 for ``max_features="sqrt"``): each entry then costs
    a read of its feature's count instead of a count and a copy, and the
    entries of drawn features, noted in ``hit_pos`` (node position) and
    ``hit_entry`` (index into the row index) on the one pass over the
    node's entries, are laid out from those notes.  Both buffers hold as
    many values as ``ent_pos``.
    """
    for j in range(k):
        counts[feats[j]] = 1  # a drawn feature: its count is 1 + its entries until the offsets below
    h = 0
    for p in range(start, end):
        i = idx[p]
        for q in range(row_ptr[i], row_ptr[i + 1]):
            f = row_feat[q]
            if counts[f] > 0:
                counts[f] += 1
                hit_pos[h] = p
                hit_entry[h] = q
                h += 1
    acc = 0
    for j in range(k):
        f = feats[j]
        counts[f] -= 1
        ent_off[f] = acc
        acc += counts[f]
    # in node order, as the pass noted them: each feature's entries in increasing node position
    for t in range(h):
        q = hit_entry[t]
        f = row_feat[q]
        e = ent_off[f]
        ent_pos[e] = hit_pos[t]
        ent_code[e] = row_code[q]
        ent_off[f] = e + 1


@njit
def clear_node_entries(counts, touched, t):
    """Reset ``counts`` of the ``t`` features :func:`gather_node_entries` listed in ``touched``."""
    for j in range(t):
        counts[touched[j]] = 0


@njit
def _group_entries(ent_pos, ent_code, lo_e, hi_e, dom, w, yk, total, sort_code, sort_pos, counts, groups, group_code,
                   cum, miss):
    """The node's rows of one feature as groups of equal codes, in code order; returns their number.

    The rows whose code is not the feature's dominant code ``dom`` are at
    node positions ``ent_pos[lo_e:hi_e]`` with codes ``ent_code[lo_e:hi_e]``;
    every other row of the node holds ``dom``.  Group ``g`` holds code
    ``group_code[g]`` and the statistics ``groups[g]`` (rows, weight, class
    weights); the ``dom`` group's are the node's ``total`` minus the other
    groups and the NaN rows, and it is left out when it holds no row.  The
    NaN rows' statistics go to ``miss``.  Exact when every weight is an
    integer (the callers' condition): each group's sums are then those of
    any order of its rows.
    """
    n_stats = total.shape[0]
    k = hi_e - lo_e
    # the entries sorted by code (stable), NaN codes last
    if k <= _INSERTION_MAX:
        for j in range(k):
            insert_sorted(sort_code, sort_pos, j, ent_code[lo_e + j], ent_pos[lo_e + j])
    else:
        counts[:] = 0
        for j in range(lo_e, hi_e):
            counts[ent_code[j]] += 1
        _first_positions(counts, MISSING_BIN + 1)
        for j in range(lo_e, hi_e):
            c = ent_code[j]
            q = counts[c]
            counts[c] = q + 1
            sort_code[q] = c
            sort_pos[q] = ent_pos[j]
    miss[:] = 0.0
    for s in range(n_stats):
        cum[s] = total[s]  # becomes the dominant group's statistics
    n_groups = 0
    d = -1
    j = 0
    while j < k:
        c = sort_code[j]
        if c == MISSING_BIN:
            for jj in range(j, k):
                p = sort_pos[jj]
                miss[0] += 1.0
                miss[1] += w[p]
                miss[2 + yk[p]] += w[p]
            break
        if d < 0 and c > dom:
            d = n_groups
            group_code[d] = dom
            n_groups += 1
        g = n_groups
        group_code[g] = c
        for s in range(n_stats):
            groups[g, s] = 0.0
        while j < k and sort_code[j] == c:
            p = sort_pos[j]
            groups[g, 0] += 1.0
            groups[g, 1] += w[p]
            groups[g, 2 + yk[p]] += w[p]
            j += 1
        for s in range(n_stats):
            cum[s] -= groups[g, s]
        n_groups += 1
    if d < 0:
        d = n_groups
        group_code[d] = dom
        n_groups += 1
    for s in range(n_stats):
        groups[d, s] = cum[s] - miss[s]
    if groups[d, 0] == 0.0:  # every row of the node holds another code
        for g in range(d, n_groups - 1):
            group_code[g] = group_code[g + 1]
            for s in range(n_stats):
                groups[g, s] = groups[g + 1, s]
        n_groups -= 1
    return n_groups


@njit
def split_sparse_small_cls(f, ent_pos, ent_code, lo_e, hi_e, dom, w, yk, edges, total, min_samples_leaf,
                           min_weight_leaf, criterion, sort_code, sort_pos, counts, groups, group_code, cum, tmp, miss,
                           rec, cst, lo, hi):
    """:func:`split_small_cls` of a feature with a dominant code, from its entries of :func:`gather_node_entries`.

    The node's rows of feature ``f`` whose code is not ``dom`` are at node
    positions ``ent_pos[lo_e:hi_e]`` with codes ``ent_code[lo_e:hi_e]``;
    every other row holds ``dom``.  The rows are grouped by code
    (:func:`_group_entries`) and the boundaries between groups are scanned
    as :func:`._common.scan_sorted_for` scans rows: the same candidates, the
    same boundary skipping, the same formulas, on sums of whole groups
    instead of running sums.  Every weight an integer and the node's weight
    below 2**26 (the caller's conditions) make every such sum, and every sum
    of squared class weights, exact: the result is :func:`split_small_cls`'s,
    bit for bit, for a cost in the node's entries of ``f`` instead of its
    rows.  Returns True when the feature is not constant in the node.
    """
    n_stats = total.shape[0]
    n_groups = _group_entries(ent_pos, ent_code, lo_e, hi_e, dom, w, yk, total, sort_code, sort_pos, counts, groups,
                              group_code, cum, miss)
    if n_groups == 0 or (n_groups == 1 and miss[0] == 0.0):
        return False
    # the scan of scan_sorted_for, one boundary per group
    incremental = criterion == GINI and miss[0] == 0.0
    prune = min_samples_leaf <= 1 and min_weight_leaf <= 0.0 and cst == 0.0
    cum[:] = 0.0
    best = INF
    best_g = -1
    best_ml = 0.0
    for g in range(n_groups):
        for s in range(n_stats):
            cum[s] += groups[g, s]
        if g + 1 == n_groups:
            if miss[0] == 0.0:
                break
        elif prune and _group_class(groups, g) >= 0 and _group_class(groups, g + 1) == _group_class(groups, g):
            continue  # both groups hold one and the same class: never the best boundary
        if incremental:
            c = INF
            ml = 0.0
            if feasible(cum[0], cum[1], total, min_samples_leaf, min_weight_leaf) and (
                    cst == 0.0 or monotone_ok(cum, total, cst, lo, hi, False)):
                sq_left = 0.0
                sq_right = 0.0
                for s in range(2, n_stats):
                    sq_left += cum[s] * cum[s]
                    sq_right += (total[s] - cum[s]) * (total[s] - cum[s])
                w_left = cum[1]
                w_right = total[1] - w_left
                c = (w_left - sq_left / w_left) + (w_right - sq_right / w_right)
                ml = 1.0 if cum[0] > total[0] - cum[0] else 0.0
        else:
            c, ml = evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi,
                                 False)
        if c < best:
            best = c
            best_g = g
            best_ml = ml
    if best < rec[REC_COST]:
        _record_split(rec, best, f, best_ml, MISSING_BIN - 1 if best_g == n_groups - 1 else group_code[best_g], edges)
    return True


@njit
def split_column_cls(f, col_ptr, col_rows, col_codes, row_pos, start, end, dom, w, yk, edges, total,
                     min_samples_leaf, min_weight_leaf, criterion, ent_pos, ent_code, sort_code, sort_pos, counts,
                     groups, group_code, cum, tmp, miss, rec, cst, lo, hi):
    """:func:`split_histogram_cls` of a feature with a dominant code ``dom``, from its column index.

    Collects the node's rows among the feature's stored codes (those of
    :func:`column_index` whose position ``row_pos[row]`` lies in ``start ..
    end - 1``), groups them by code (:func:`_group_entries`, the ``dom``
    group from the node's totals) and scans the groups as
    :func:`_split_histogram` scans the nonempty bins of the histogram
    :func:`build_node_histogram_cls` would build with ``skip = dom``: the
    same sums (exact, every weight an integer: the caller's condition), the
    same candidates and formulas, so the same record.  The cost is the
    feature's stored codes, not the histogram's bins.  Returns True when the
    feature is not constant in the node.
    """
    n_stats = total.shape[0]
    k = np.int64(0)  # not a literal (see forestzoo._jit): _group_entries is compiled once
    for q in range(col_ptr[f], col_ptr[f + 1]):
        p = row_pos[col_rows[q]]
        if p >= start and p < end:
            ent_pos[k] = p
            ent_code[k] = col_codes[q]
            k += 1
    n_groups = _group_entries(ent_pos, ent_code, np.int64(0), k, dom, w, yk, total, sort_code, sort_pos, counts, groups,
                              group_code, cum, miss)
    n_values = total[0] - miss[0]
    if n_values <= 0.0:
        return False
    cum[:] = 0.0
    for g in range(n_groups):
        for s in range(n_stats):
            cum[s] += groups[g, s]
        last = cum[0] >= n_values
        if last and miss[0] == 0.0:
            break
        c, ml = evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi, False)
        if c < rec[REC_COST]:  # last: every value left, NaN right
            _record_split(rec, c, f, ml, MISSING_BIN - 1 if last else group_code[g], edges)
        if last:
            break
    return n_groups > 1 or (n_groups == 1 and miss[0] > 0.0)


@njit(inline="always")
def _group_class(groups, g):
    """The class of every row of group ``g`` (weights are positive), or -2 when it holds several."""
    one = -1
    for s in range(2, groups.shape[1]):
        if groups[g, s] > 0.0:
            if one >= 0:
                return -2
            one = s - 2
    return one


@njit
def build_block_cls(Xb, n_bins, idx, start, end, w, yk, wy, target, f_lo, f_hi):
    """:func:`build_histogram_cls` of the features ``f_lo .. f_hi - 1`` into ``target[f]``."""
    for f in range(f_lo, f_hi):
        build_histogram_cls(Xb[f], idx, start, end, w, yk, wy, n_bins[f], target[f])


@njit
def build_block_reg(Xb, n_bins, idx, start, end, w, yk, wy, target, f_lo, f_hi):
    """:func:`build_histogram_reg` of the features ``f_lo .. f_hi - 1`` into ``target[f]``."""
    for f in range(f_lo, f_hi):
        build_histogram_reg(Xb[f], idx, start, end, w, yk, wy, n_bins[f], target[f])


@njit
def subtract_histogram(parent, child, n_bins):
    """``parent -= child`` on the used bins (the sibling-subtraction trick)."""
    for f in range(parent.shape[0]):
        nb = n_bins[f]
        for b in range(nb):
            for s in range(parent.shape[2]):
                parent[f, b, s] -= child[f, b, s]
        for s in range(parent.shape[2]):
            parent[f, MISSING_BIN, s] -= child[f, MISSING_BIN, s]


@njit(inline="always")
def _sq_cost(n_left, w_left, s_left, n_total, w_total, s_total, q_total, min_samples_leaf, min_weight_leaf):
    """``sum w y**2 - S_l**2 / W_l - S_r**2 / W_r`` of one candidate, +inf when a child is too small."""
    n_right = n_total - n_left
    w_right = w_total - w_left
    if not (n_left >= min_samples_leaf and n_right >= min_samples_leaf and w_left > 0.0 and w_right > 0.0
            and w_left >= min_weight_leaf and w_right >= min_weight_leaf):
        return INF
    s_right = s_total - s_left
    return q_total - (s_left * s_left / w_left + s_right * s_right / w_right)


@njit
def _split_histogram_sq(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, rec, cst, lo, hi):
    """:func:`split_histogram` for squared error (histograms of three statistics).

    The children's ``W_l imp_l + W_r imp_r`` is ``sum w y**2 - S_l**2 / W_l
    - S_r**2 / W_r`` with ``S = sum w y``: the node's ``sum w y**2``
    (``total[3]``) is common to every candidate, so the bins need not carry
    it.  Candidates are the same as :func:`._common.evaluate`'s: values up
    to a bin left with the NaN rows right, and, when the node has NaN rows,
    with them left too (``missing_left``); with no NaN, ``missing_left``
    records the larger side (the right one on a tie).  Written on scalars: the generic loop passes
    statistics vectors to inlined helpers, and Numba then updates their
    reference counts once per bin.  ``cst, lo, hi`` as in
    :func:`._common.ratios_ok`, on the children's means.
    """
    n_total = total[0]
    w_total = total[1]
    s_total = total[2]
    q_total = total[3]
    n_miss = hist[MISSING_BIN, 0]
    w_miss = hist[MISSING_BIN, 1]
    s_miss = hist[MISSING_BIN, 2]
    n_values = n_total - n_miss
    if n_values <= 0.0:
        return False
    n_left = 0.0
    w_left = 0.0
    s_left = 0.0
    n_nonempty = 0
    best = rec[REC_COST]
    best_bin = -2
    best_ml = 0.0
    for b in range(n_bins):
        c0 = hist[b, 0]
        if c0 == 0.0:
            continue
        n_nonempty += 1
        n_left += c0
        w_left += hist[b, 1]
        s_left += hist[b, 2]
        last = n_left >= n_values
        if last and n_miss == 0.0:
            break
        c = _sq_cost(n_left, w_left, s_left, n_total, w_total, s_total, q_total, min_samples_leaf, min_weight_leaf)
        # the constraint is checked only for a candidate that would win (the rare branch)
        if c < best and (cst == 0.0 or ratios_ok(w_left, s_left, w_total, s_total, cst, lo, hi)):  # NaN rows right
            best = c
            best_bin = MISSING_BIN - 1 if last else b
            best_ml = 1.0 if (n_miss == 0.0 and n_left > n_total - n_left) else 0.0
        if n_miss > 0.0:  # NaN rows left
            c = _sq_cost(n_left + n_miss, w_left + w_miss, s_left + s_miss, n_total, w_total, s_total, q_total,
                         min_samples_leaf, min_weight_leaf)
            if c < best and (cst == 0.0 or ratios_ok(w_left + w_miss, s_left + s_miss, w_total, s_total, cst, lo, hi)):
                best = c
                best_bin = MISSING_BIN - 1 if last else b
                best_ml = 1.0
        if last:
            break
    if best_bin > -2:
        _record_split(rec, best, f, best_ml, best_bin, edges)
    return n_nonempty > 1 or (n_nonempty == 1 and n_miss > 0.0)


@njit(inline="always")
def _split_histogram(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp, rec,
                     cst, lo, hi, reg):
    """Best split of feature ``f`` from its histogram; updates ``rec``.

    ``cst, lo, hi``: the feature's monotonic constraint (0 for none) and the
    node's value bounds (:func:`._common.monotone_ok`).  Returns True when
    the feature is not constant in the node.
    """
    miss = hist[MISSING_BIN]
    n_values = total[0] - miss[0]
    if n_values <= 0.0:
        return False
    if reg:
        if criterion == SQUARED_ERROR:
            return _split_histogram_sq(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, rec, cst, lo,
                                       hi)
    cum[:] = 0.0
    n_nonempty = 0
    for b in range(n_bins):
        if hist[b, 0] == 0.0:
            continue
        n_nonempty += 1
        for k in range(cum.shape[0]):
            cum[k] += hist[b, k]
        last = cum[0] >= n_values
        if last and miss[0] == 0.0:
            break
        c, ml = evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi, reg)
        if c < rec[REC_COST]:  # last: every value left, NaN right
            _record_split(rec, c, f, ml, MISSING_BIN - 1 if last else b, edges)
        if last:
            break
    return n_nonempty > 1 or (n_nonempty == 1 and miss[0] > 0.0)


@njit
def split_histogram_cls(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp, rec,
                        cst, lo, hi):
    """:func:`_split_histogram` for a classification criterion."""
    return _split_histogram(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                            rec, cst, lo, hi, False)


@njit
def split_histogram_reg(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp, rec,
                        cst, lo, hi):
    """:func:`_split_histogram` for a regression criterion."""
    return _split_histogram(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                            rec, cst, lo, hi, True)


@njit(inline="always")
def _sort_codes_for(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts, reg):
    """Non-missing rows of the node sorted (stably) by code into ``keys``/``samples``.

    Insertion sort for tiny nodes, counting sort over the 255 value codes
    otherwise; NaN rows are summed into ``miss``.  Returns their number, or
    0 when every row holds the same code: the feature is constant in the
    node (or all NaN) and offers no split.  That test reads the codes alone,
    which matters for sparse data, where most features of a small node are
    all zeros.
    """
    miss[:] = 0.0
    n = end - start
    m = 0
    if n > 0:
        first = codes[idx[start]]
        q = start + 1
        while q < end and codes[idx[q]] == first:
            q += 1
        if q == end:
            return 0
    if n <= _INSERTION_MAX:
        for p in range(start, end):
            i = idx[p]
            c = codes[i]
            if c == MISSING_BIN:
                add_sample_for(miss, 1.0, w[p], yk[p], yr[p], criterion, reg)
                continue
            insert_sorted(keys, samples, m, c, p)
            m += 1
        return m
    counts[:] = 0
    for p in range(start, end):
        counts[codes[idx[p]]] += 1
    acc = _first_positions(counts, MISSING_BIN)
    for p in range(start, end):
        i = idx[p]
        c = codes[i]
        if c == MISSING_BIN:
            add_sample_for(miss, 1.0, w[p], yk[p], yr[p], criterion, reg)
            continue
        q = counts[c]
        counts[c] = q + 1
        keys[q] = c
        samples[q] = p
    return acc


@njit(inline="always")
def _first_positions(counts, n):
    """Counting sort: ``counts[:n]`` (rows per code) becomes each code's first output position; returns the total."""
    acc = 0
    for c in range(n):
        k = counts[c]
        counts[c] = acc
        acc += k
    return acc


@njit
def _sort_codes_cls(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts):
    """:func:`_sort_codes_for` for a classification criterion.

    A compiled function of its own, not inlined: its result (the number of
    rows) would otherwise be typed as the literal 0 of its first assignment
    at the call that uses it, and Numba would compile that call's callee
    once more for the literal.
    """
    return _sort_codes_for(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts, False)


@njit(inline="always")
def _is_splittable(m, keys, miss):
    """Whether ``m`` sorted codes (and the NaN rows summed in ``miss``) hold more than one value."""
    return m > 0 and (keys[m - 1] > keys[0] or miss[0] > 0.0)


@njit(inline="always")
def _record_small(rec, cost, pos, m, keys, f, ml, edges):
    """Keep the split after sorted position ``pos`` of ``m`` (all values left when ``pos == m - 1``) if it is best."""
    if cost < rec[REC_COST]:
        _record_split(rec, cost, f, ml, MISSING_BIN - 1 if pos == m - 1 else int(keys[pos]), edges)


@njit
def split_small_cls(f, codes, idx, start, end, w, yk, yr, edges, total, min_samples_leaf, min_weight_leaf, criterion,
                    keys, samples, miss, counts, cum, tmp, rec, cst, lo, hi):
    """Same result as :func:`_split_histogram` for a small node, by sorting codes; a classification criterion.

    Returns False when the feature is constant in the node.
    """
    m = _sort_codes_cls(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts)
    if not _is_splittable(m, keys, miss):
        return False
    cost, pos, ml = scan_sorted_cls(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf,
                                    criterion, cum, tmp, cst, lo, hi)
    _record_small(rec, cost, pos, m, keys, f, ml, edges)
    return True


@njit(inline="always")
def split_small_reg(f, codes, idx, start, end, w, yk, yr, edges, total, min_samples_leaf, min_weight_leaf, criterion,
                    keys, samples, miss, counts, cum, tmp, rec, cst, lo, hi):
    """:func:`split_small_cls` for a regression criterion, inlined into its caller.

    The regression ``hist`` grower inlines it (through
    :func:`..grower.search_small_reg`): called once per node and feature as a
    function of its own, it left a fully grown regression forest's fit 1.7
    times as long.  It holds no classification code, and the classification
    search no regression code: a branch on the task inside an inlined
    function is inlined before Numba prunes it, so each task would pay for
    compiling the other's code.
    """
    m = _sort_codes_for(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts, True)
    if not _is_splittable(m, keys, miss):
        return False
    cost, pos, ml = scan_sorted_for(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf,
                                    criterion, cum, tmp, cst, lo, hi, True)
    _record_small(rec, cost, pos, m, keys, f, ml, edges)
    return True
