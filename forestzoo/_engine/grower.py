"""The one tree grower of forestzoo.

:func:`grower_for` gives the grower compiled for one split kernel (the
``grow_tree`` of :func:`_make_grower`); it grows a single tree from shared,
read-only data arrays and a per-tree sample weight vector.  It is
depth-first (a LIFO frontier) unless ``max_leaf_nodes`` is set, in which
case the frontier node whose split decreases impurity most is expanded
first (best-first, as scikit-learn does).  A node's best split is searched
when the node is created, so both policies share one loop.  The split kernel
is fixed when the grower is compiled; families plug in new kernels here,
they never copy the loop.  A family whose splits no kernel can express
(oblique node models, Haar features, stopping rules) passes a
*node model* (:mod:`.node_model`): the grower asks it first, through
``numba.objmode``, and partitions by the mask it returns.

Node samples are kept as a slice ``idx[start:end]`` of one index array that
is partitioned in place, stably, so each node's rows stay sorted and the
kernels walk the feature-major code matrix forward.

Output: a ``float64`` table with one row per node (columns ``COL_*``) and a
value table; :mod:`forestzoo._engine.builder` turns them into ``NODE_DTYPE``.
"""

import warnings

import numba
import numpy as np

from .._jit import borrow, keep_alive, njit
from .binning import MISSING_BIN, split_threshold
from .criteria import SQUARED_ERROR, node_value_for, q_of, weighted_impurity_for
from .data import borrow_data, can_copy_local, copy_local
from .data import n_features as data_n_features
from .data import value as data_value
from .hist_threads import MIN_PARALLEL_WORK, build_in_threads
from .node_model import (
    NODE_AXIS, NODE_AXIS_SUBTREE, NODE_LEAF, NODE_OBLIQUE, OUT_COST, OUT_MISSING_LEFT, OUT_OBLIQUE,
    OUT_SIZE, OUT_THRESHOLD, dispatch,
)
from .splitters import EXACT, HIST, RANDOM, STOCHASTIC
from .splitters.absolute import rank_node, split_absolute
from .splitters._common import (
    REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_OBLIQUE, REC_SIZE, REC_THRESHOLD, add_sample_for,
    draw_feature, draw_features, is_perfect_split_for, mono_of, mono_stat_for, reset_record, undraw_features,
)
from .splitters.exact import split_exact_cls, split_exact_reg
from .splitters.hist import (
    ENTRY_NODE, SMALL_NODE, build_histogram_cls, build_histogram_reg, build_node_histogram_cls, clear_node_entries,
    column_setup, entry_codes, gather_drawn_entries, gather_node_entries, indexed_histogram_cls, integral_weights,
    node_codes, split_column_cls, split_histogram_cls, split_histogram_reg, split_small_cls, split_small_reg,
    split_sparse_small_cls, subtract_histogram,
)
from .splitters.random import split_random
from .splitters.stochastic import split_stochastic_cls, split_stochastic_reg

# Columns of the node table returned by grow_tree.
COL_LEFT, COL_RIGHT, COL_FEATURE, COL_THRESHOLD, COL_MISSING_LEFT = 0, 1, 2, 3, 4
COL_DEPTH, COL_N_SAMPLES, COL_WEIGHTED_N, COL_IMPURITY, COL_IMPROVEMENT = 5, 6, 7, 8, 9
COL_OBLIQUE = 10  # id of the node model's projection; -1 for axis-aligned nodes and leaves
N_COLS = 11

# Columns of the integer part of a frontier entry.
_F_NODE, _F_START, _F_END, _F_SLOT, _F_AXIS_ONLY = 0, 1, 2, 3, 4
_F_SIZE = 5

_DBL_EPS = np.finfo(np.float64).eps

# The node-model call re-acquires the GIL on purpose (it runs Python code); the rest of
# the grower still releases it, so numba's warning about object mode and nogil is noise.
warnings.filterwarnings("ignore", message=".*Code running in object mode won't allow parallel execution",
                        category=numba.NumbaWarning)


# Rows are copied element by element below, never as ``dst[i] = src[j]`` of arrays: Numba
# compiles an array-to-array slice assignment with a shape check whose error message is
# formatted in compiled code, and that formatting (str, join, repr) cost ~6 s of compile time
# on a cold cache for nothing the grower can hit.


@njit
def _double_rows(a):
    """A copy of the 2-D ``a`` with twice the rows; the new rows are uninitialised."""
    out = np.empty((2 * a.shape[0], a.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j]
    return out


@njit
def _double_1d(a):
    """A copy of the 1-D ``a`` twice as long; the new entries are uninitialised."""
    out = np.empty(2 * a.shape[0], dtype=a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit(inline="always")
def _copy_into(dst, src):
    """``dst[:] = src`` for two 1-D arrays of the same length."""
    for k in range(dst.shape[0]):
        dst[k] = src[k]


@njit(inline="always")
def _node_totals(idx, start, end, w, yk, yr, criterion, tot, reg):
    tot[:] = 0.0
    for p in range(start, end):
        add_sample_for(tot, 1.0, w[p], yk[p], yr[p], criterion, reg)


@njit(inline="always")
def _is_pure(tot, reg):
    if reg:
        return False  # decided by the impurity test
    n_pos = 0
    for k in range(2, tot.shape[0]):
        if tot[k] > 0.0:
            n_pos += 1
    return n_pos <= 1


@njit
def _ask_node_model(node_model, idx, w, yk, yr, go_left, start, end, depth, tot, out):
    """The node model's verdict on the node ``idx[start:end]`` (Python, through ``objmode``).

    Kept out of :func:`grow_tree` so that the grower itself has no ``with``
    context, which Numba's inliner does not support.
    """
    node_rows = idx[start:end]
    node_w = w[start:end]
    node_yk = yk[start:end]
    node_yr = yr[start:end]
    node_go = go_left[start:end]
    with numba.objmode(status="int64"):
        status = dispatch(node_model, node_rows, node_w, node_yk, node_yr, depth, tot, node_go, out)
    return status


@njit
def _build_in_threads(Xb, n_bins, idx, start, end, w, yk, wy, criterion, target, n_threads):
    """Every feature's histogram of the node into ``target``, on ``n_threads`` threads.

    Python (:mod:`.hist_threads`) through ``objmode``, kept out of
    :func:`grow_tree` for the same reason as :func:`_ask_node_model`.
    """
    with numba.objmode():
        build_in_threads(Xb, n_bins, idx, start, end, w, yk, wy, criterion, target, n_threads)


@njit
def _mark_features(idx, start, end, row_ptr, row_feat, marks, value):
    """Set ``marks[f] = value`` for every feature ``f`` the row-wise index lists for a row of ``idx[start:end]``.

    A compiled function of its own, called twice per small node, so that the
    growers that inline :func:`find_split` do not carry its loops.
    """
    for p in range(start, end):
        i = idx[p]
        for k in range(row_ptr[i], row_ptr[i + 1]):
            marks[row_feat[k]] = value


@njit(inline="always")
def search_small_reg(Xb, edges, idx, start, end, w, yk, yr, tot, criterion, max_features, min_samples_leaf,
                     min_weight_leaf, feats, rng, bufs, rec, n_evals, mono, cols):
    """:func:`find_split` for a regression criterion and a small node (fewer than ``SMALL_NODE`` rows, no histograms).

    The same feature draws, splits and ``n_evals`` counts as :func:`find_split`,
    each feature searched by :func:`.splitters.hist.split_small_reg`.  The
    regression ``hist`` grower inlines this directly, under its closure
    constants, so that Numba prunes it from the other growers before
    inlining anything: inlined through :func:`find_split` it lengthened the
    classification grower's first compilation by 2-4 s.  Inlined, a fully
    grown regression forest fits in 0.58 of the time it took with a compiled
    call per node and feature; one compiled call per node, with the feature
    loop inside, still took 1.46 times as long as the inlined search
    (docs/benchmarks/engine.md, "Regression: small nodes").

    ``cols == 2`` (the grower's constant for codes kept in the column index
    alone, ``Xb`` without columns): the node's entries of the row index are
    collected per feature (:func:`.splitters.hist.gather_node_entries`) and a
    feature's codes are laid out from them (:func:`.splitters.hist.entry_codes`)
    for the same search.
    """
    keys, samples, miss, counts, cum, tmp, _, dominant, skip_bin, marks, row_ptr, row_feat, colbufs = bufs
    reset_record(rec)
    n_features = feats.shape[0]
    n = end - start
    # sparse data: the features no row of the node holds a non-dominant code of are constant here
    use_marks = marks.shape[0] > 0
    n_touched = 0
    if cols == 2:  # (colbufs: see splitters.hist.column_setup)
        n_touched = gather_node_entries(idx, start, end, row_ptr, row_feat, colbufs[4], marks, colbufs[5],
                                        colbufs[6], colbufs[7], colbufs[8], np.bool_(True))
    elif use_marks:
        _mark_features(idx, start, end, row_ptr, row_feat, marks, np.int32(1))
    n_valid = 0
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        f = draw_feature(feats, j, rng)
        if use_marks and marks[f] == 0 and dominant[f] >= 0:
            continue
        cst, lo, hi = mono_of(mono, f)
        codes = Xb[f]
        if cols == 2:
            codes = entry_codes(f, idx, start, end, dominant[f], colbufs[7], colbufs[8], colbufs[6][f] - marks[f],
                                colbufs[6][f], colbufs[14], colbufs[15], colbufs[16])
        if split_small_reg(f, codes, idx, start, end, w, yk, yr, edges, tot, min_samples_leaf, min_weight_leaf,
                           criterion, keys, samples, miss, counts, cum, tmp, rec, cst, lo, hi):
            n_valid += 1
        n_evals[0] += n
    if cols == 2:
        clear_node_entries(marks, colbufs[5], n_touched)
    elif use_marks:
        _mark_features(idx, start, end, row_ptr, row_feat, marks, np.int32(0))


@njit(inline="always")
def _node_histogram_cls(Xb, f, idx, start, end, w, yk, wy, n_bins, h, dominant, skip_bin, tot, cols, virt, colbufs):
    """Feature ``f``'s classification histogram of the node ``idx[start:end]`` into ``h``: from its row of
    ``Xb`` (:func:`.splitters.hist.build_node_histogram_cls`, the dominant bin from ``tot`` when
    ``skip_bin``), or, with ``cols == 1`` and ``virt`` (see :func:`find_split`), from the column index."""
    if cols == 1:
        if virt:
            indexed_histogram_cls(f, colbufs[0], colbufs[1], colbufs[2], colbufs[3], idx, start, end, w, yk, wy,
                                  n_bins[f], h, dominant[f], tot, colbufs[14], colbufs[15], colbufs[16])
            return
    build_node_histogram_cls(Xb[f], idx, start, end, w, yk, wy, n_bins[f], h, dominant[f] if skip_bin else -1, tot)


@njit(inline="always")
def _reg_codes(Xb, f, idx, start, end, dominant, colbufs, cols):
    """Feature ``f``'s codes for a regression histogram of the node ``idx[start:end]``: its row of ``Xb``, or,
    with ``cols == 2`` (codes kept in the column index alone), :func:`.splitters.hist.node_codes`."""
    codes = Xb[f]
    if cols == 2:
        codes = node_codes(f, colbufs[0], colbufs[1], colbufs[2], colbufs[3], idx, start, end, dominant[f],
                           colbufs[14], colbufs[15], colbufs[16])
    return codes


@njit(inline="always")
def find_split(
    Xb, Xf, n_bins, edges, yk, yr, wy, w, idx, start, end, tot, criterion, splitter, only, max_features,
    min_samples_leaf, min_weight_leaf, feats, rng, pool, slot, ready, scratch, bufs, rec, n_evals, mono, reg, cols,
):
    """Search the node ``idx[start:end]`` with the hist or exact kernel and leave its best split in ``rec``.

    (The random and stochastic kernels search the whole node in one call;
    the grower calls them itself.)  Features are drawn in a random order, ``max_features`` of them,
    then more while every feature drawn was constant in the node (scikit-learn's rule: a constant
    feature counts as drawn), or, for classification, until a split leaves both children pure
    (``is_perfect_split``; not when the node's histograms are kept for its
    children).  With the hist splitter and a pool slot, the node's histograms live in
    ``pool[slot]`` (built here unless ``ready``) so that its children can use
    the subtraction trick.  ``n_evals[0]`` counts the codes read: a node's
    (row, feature) pairs, or a feature's index entries where the search reads
    those instead.  ``splitter`` is the
    kernel's code and ``only`` the grower's constant (see :func:`_make_grower`).
    ``bufs`` holds the kernels' scratch arrays (one tuple: Numba inlines
    functions of at most 30 arguments).  ``mono`` holds the monotonic
    constraints and the node's value bounds (:func:`._common.mono_of`).
    ``reg`` is the grower's constant ``REG``: each kernel is called in its
    variant for that task (``*_cls`` or ``*_reg``), the other is pruned.
    ``cols`` is a constant of the grower: 1 (a classification grower with
    ``COLS = 1``) when a large node may search a feature from its column
    index and a small node from its entries of the row index, 2 (a
    regression grower with ``COLS = 1``) when the codes are kept in the
    column index alone and read through :func:`.splitters.hist.node_codes`,
    0 otherwise (the tests on it are pruned); ``bufs[-1]`` then holds the
    arrays of :func:`.splitters.hist.column_setup`.
    """
    keys, samples, miss, counts, cum, tmp, _, dominant, skip_bin, marks, row_ptr, row_feat, colbufs = bufs
    reset_record(rec)
    n_features = feats.shape[0]
    n = end - start
    n_valid = 0
    # a small node of sparse data: mark the features some row holds a non-dominant code of
    # (binning.other_code_rows); the others are constant in the node and are skipped unread
    use_marks = only == HIST and slot < 0 and n < SMALL_NODE and marks.shape[0] > 0
    n_touched = 0
    gathered = False
    use_entries = False
    # With the column scratch (integer weights, no node model), marks[f] counts the node's entries of f,
    # collected per feature, and a feature's search reads those alone: exact while the node's weight keeps
    # sums of squared class weights below 2**53.  A node below ENTRY_NODE rows draws its first
    # max_features candidates before the search and collects their entries alone (n_drawn of them);
    # should every one be constant, the other features' entries are collected as a small node's are.
    n_drawn = 0
    drawn_marks = False  # marks of the drawn features still to be cleared
    # the codes kept in the column index alone (Xb has no columns): read through node_codes and
    # indexed_histogram_cls (every weight is an integer then: the grower's condition)
    virt = False
    if cols == 1:
        virt = colbufs[14].shape[0] > 0
    if cols == 1:  # (a test of its own: the grower's constant, pruned before the rest is typed)
        if only == HIST and slot < 0 and n < ENTRY_NODE and marks.shape[0] > 0 and tot[1] < 2.0 ** 26:
            col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, \
                sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
            if col_ptr.shape[0] > 0:
                use_marks = True
                gathered = True
                use_entries = True
                n_drawn = min(max_features, n_features)
                draw_features(feats, n_drawn, rng, touched)  # touched keeps the draws' partners
                gather_drawn_entries(idx, start, end, row_ptr, row_feat, row_code, feats, n_drawn, marks, ent_off,
                                     ent_pos, ent_code, sort_pos, hits)
                drawn_marks = True
    if use_marks and not gathered:
        if cols == 1:
            col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, \
                sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
            gathered = col_ptr.shape[0] > 0
            if gathered:
                use_entries = tot[1] < 2.0 ** 26
                n_touched = gather_node_entries(idx, start, end, row_ptr, row_feat, row_code, marks, touched, ent_off,
                                                ent_pos, ent_code, use_entries)
        if not gathered:
            _mark_features(idx, start, end, row_ptr, row_feat, marks, np.int32(1))
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        if j < n_drawn:
            f = feats[j]
        else:
            if cols == 1:
                if drawn_marks:  # every drawn feature was constant (or infeasible): collect every entry
                    col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, \
                        sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
                    for jj in range(n_drawn):
                        marks[feats[jj]] = 0
                    drawn_marks = False
                    n_touched = gather_node_entries(idx, start, end, row_ptr, row_feat, row_code, marks, touched,
                                                    ent_off, ent_pos, ent_code, np.bool_(True))
            f = draw_feature(feats, j, rng)
        cst, lo, hi = mono_of(mono, f)
        if only == HIST:
            if slot >= 0:
                h = pool[slot, f]
                if not ready:
                    if reg:
                        build_histogram_reg(_reg_codes(Xb, f, idx, start, end, dominant, colbufs, cols), idx, start,
                                            end, w, yk, wy, n_bins[f], h)
                    else:
                        _node_histogram_cls(Xb, f, idx, start, end, w, yk, wy, n_bins, h, dominant, skip_bin, tot,
                                            cols, virt, colbufs)
                    n_evals[0] += n
                if reg:
                    ok = split_histogram_reg(f, h, n_bins[f], edges, tot, min_samples_leaf, min_weight_leaf, criterion,
                                             cum, tmp, rec, cst, lo, hi)
                else:
                    ok = split_histogram_cls(f, h, n_bins[f], edges, tot, min_samples_leaf, min_weight_leaf, criterion,
                                             cum, tmp, rec, cst, lo, hi)
            elif use_marks and marks[f] == 0 and dominant[f] >= 0:
                ok = False  # every row of the node holds the dominant code: constant here
            elif cols == 1 and use_entries and dominant[f] >= 0:
                col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, \
                    sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
                ok = split_sparse_small_cls(f, ent_pos, ent_code, ent_off[f] - marks[f], ent_off[f], dominant[f], w,
                                            yk, edges, tot, min_samples_leaf, min_weight_leaf, criterion, sort_code,
                                            sort_pos, counts, groups, group_code, cum, tmp, miss, rec, cst, lo, hi)
                n_evals[0] += marks[f]
            elif n < SMALL_NODE:
                if reg:
                    # not reached (the grower searches such a node with search_small_reg): the branch
                    # keeps the classification search below out of a regression grower
                    ok = False
                else:
                    codes = Xb[f]
                    if cols == 1:
                        if virt:
                            col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, \
                                sort_code, sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
                            codes = node_codes(f, col_ptr, col_rows, col_codes, row_pos, idx, start, end, dominant[f],
                                               dense_row, Xd, row_codes)
                    ok = split_small_cls(f, codes, idx, start, end, w, yk, yr, edges, tot, min_samples_leaf,
                                         min_weight_leaf, criterion, keys, samples, miss, counts, cum, tmp, rec, cst, lo,
                                         hi)
                    n_evals[0] += n
            else:
                h = scratch[0]
                if reg:
                    build_histogram_reg(_reg_codes(Xb, f, idx, start, end, dominant, colbufs, cols), idx, start, end,
                                        w, yk, wy, n_bins[f], h)
                    n_evals[0] += n
                    ok = split_histogram_reg(f, h, n_bins[f], edges, tot, min_samples_leaf, min_weight_leaf, criterion,
                                             cum, tmp, rec, cst, lo, hi)
                else:
                    by_column = False
                    if cols == 1:
                        col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, \
                            sort_code, sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
                        # a few stored codes: search from those
                        by_column = col_ptr.shape[0] > 0 and dominant[f] >= 0 and 4 * (col_ptr[f + 1] - col_ptr[f]) < n
                        if by_column:
                            ok = split_column_cls(f, col_ptr, col_rows, col_codes, row_pos, start, end, dominant[f], w,
                                                  yk, edges, tot, min_samples_leaf, min_weight_leaf, criterion, ent_pos,
                                                  ent_code, sort_code, sort_pos, counts, groups, group_code, cum, tmp,
                                                  miss, rec, cst, lo, hi)
                            n_evals[0] += col_ptr[f + 1] - col_ptr[f]
                    if not by_column:
                        _node_histogram_cls(Xb, f, idx, start, end, w, yk, wy, n_bins, h, dominant, skip_bin, tot,
                                            cols, virt, colbufs)
                        n_evals[0] += n
                        ok = split_histogram_cls(f, h, n_bins[f], edges, tot, min_samples_leaf, min_weight_leaf,
                                                 criterion, cum, tmp, rec, cst, lo, hi)
        else:
            if reg:
                ok = split_exact_reg(f, Xf, idx, start, end, w, yk, yr, tot, min_samples_leaf, min_weight_leaf,
                                     criterion, keys, samples, miss, cum, tmp, rec, cst, lo, hi)
            else:
                ok = split_exact_cls(f, Xf, idx, start, end, w, yk, yr, tot, min_samples_leaf, min_weight_leaf,
                                     criterion, keys, samples, miss, cum, tmp, rec, cst, lo, hi)
            n_evals[0] += n
        if ok:
            n_valid += 1
            if slot < 0 and is_perfect_split_for(rec[REC_COST], reg):
                # both children pure: nothing can beat it (a pool slot still needs every histogram).
                # The candidates drawn ahead and not searched are given back, and with every feature a
                # candidate, a full search would shuffle all of them: do the remaining draws and swaps,
                # so the tree and the random stream stay the full search's.
                if cols == 1:
                    if j + 1 < n_drawn:
                        if drawn_marks:
                            for jj in range(n_drawn):
                                marks[feats[jj]] = 0
                            drawn_marks = False
                        undraw_features(feats, j + 1, n_drawn, rng, colbufs[5])
                if max_features >= n_features:
                    for jj in range(j + 1, n_features):
                        draw_feature(feats, jj, rng)
                break
    if drawn_marks:
        for jj in range(n_drawn):
            marks[feats[jj]] = 0
    if use_marks:
        if cols == 1:
            col_ptr, col_rows, col_codes, row_pos, row_code, touched, ent_off, ent_pos, ent_code, sort_code, \
                sort_pos, groups, group_code, hits, dense_row, Xd, row_codes = colbufs
            if gathered:
                clear_node_entries(marks, touched, n_touched)
        if not gathered:
            _mark_features(idx, start, end, row_ptr, row_feat, marks, np.int32(0))


@njit(inline="always")
def _partition(codes, Xf, splitter, only, idx, w, yk, yr, wy, start, end, feature, bin_, threshold, missing_left, buf, wbuf, ykbuf,
               yrbuf, wybuf, go_left, criterion, tot_left, tot_right, reg):
    """Stable in-place partition of ``idx[start:end]`` and of the node-ordered
    ``w``, ``yk``, ``yr``, ``wy`` that travel with it; returns the left size.

    ``feature < 0`` marks a node model's split: row ``p`` goes left when
    ``go_left[p]`` (filled by the model, indexed by node position).  The hist
    kernel reads the split feature's codes ``codes[idx[p]]`` (its row of
    ``Xb``, or :func:`.splitters.hist.node_codes`); the others read ``Xf``.

    Branch-free: every row is written to both its left slot (in place, at or
    before the row being read) and its right slot (in ``buf``), and only the
    matching counter advances.  Only the target the criterion reads moves
    (``yr`` and ``wy = w * yr`` for regression, ``yk`` otherwise).

    The children's statistics (as :func:`_node_totals` would sum them) are
    accumulated on the way into ``tot_left`` and ``tot_right``: every row is
    added to both with a 0/1 factor, in node order, so the sums are
    bit-identical to a separate pass over each child, which this saves.
    ``reg``: the grower's constant ``REG`` (regression), pruned before typing.
    """
    tot_left[:] = 0.0
    tot_right[:] = 0.0
    n_left = 0
    n_right = 0
    least_right = MISSING_BIN  # hist: the least code of a row of value going right (MISSING_BIN: none)
    w_left = 0.0
    w_right = 0.0
    s1_left = 0.0
    s1_right = 0.0
    s2_left = 0.0
    s2_right = 0.0
    for p in range(start, end):
        i = idx[p]
        if feature < 0:
            left = go_left[p] != 0
        elif only == HIST:
            c = codes[i]
            left = (c <= bin_) if c != MISSING_BIN else missing_left
            least_right = min(least_right, c if c > bin_ else MISSING_BIN)  # branch-free, as the rest
        else:
            v = data_value(Xf, feature, i)
            left = (v <= threshold) or (missing_left and v != v)
        wp = w[p]
        q = start + n_left
        idx[q] = i
        w[q] = wp
        buf[n_right] = i
        wbuf[n_right] = wp
        fl = 1.0 if left else 0.0
        fr = 1.0 - fl
        w_left += fl * wp
        w_right += fr * wp
        if reg:
            yrp = yr[p]
            yr[q] = yrp
            yrbuf[n_right] = yrp
            wyp = wy[p]
            wy[q] = wyp
            wybuf[n_right] = wyp
            s1_left += fl * wp * yrp
            s1_right += fr * wp * yrp
            s2_left += fl * wp * yrp * yrp
            s2_right += fr * wp * yrp * yrp
        else:
            ykp = yk[p]
            yk[q] = ykp
            ykbuf[n_right] = ykp
            tot_left[2 + ykp] += fl * wp
            tot_right[2 + ykp] += fr * wp
        n_left += left
        n_right += 1 - left
    for q in range(n_right):
        idx[start + n_left + q] = buf[q]
        w[start + n_left + q] = wbuf[q]
    if reg:
        for q in range(n_right):
            yr[start + n_left + q] = yrbuf[q]
            wy[start + n_left + q] = wybuf[q]
        tot_left[2] = s1_left
        tot_left[3] = s2_left
        tot_right[2] = s1_right
        tot_right[3] = s2_right
        if criterion > SQUARED_ERROR:
            # Poisson's fourth statistic, sum w y log y, in a pass of its own (a log per row), so that
            # the squared-error loop above stays as it is; summed in node order, as add_sample does
            tot_left[3] = _sum_wq(w, yr, start, start + n_left, criterion)
            tot_right[3] = _sum_wq(w, yr, start + n_left, end, criterion)
    else:
        for q in range(n_right):
            yk[start + n_left + q] = ykbuf[q]
    tot_left[0] = n_left
    tot_left[1] = w_left
    tot_right[0] = n_right
    tot_right[1] = w_right
    return n_left, least_right


@njit
def _sum_wq(w, yr, start, end, criterion):
    """``sum w * q(y)`` over node positions ``start:end`` (see :func:`.criteria.q_of`)."""
    acc = 0.0
    for p in range(start, end):
        acc += w[p] * q_of(yr[p], criterion)
    return acc


@njit(inline="always")
def _clip_value(v, lo, hi, reg):
    """Clip a node's value into its monotonic bounds (two classes: class 1's proportion, class 0 the rest)."""
    if reg:
        v[0] = min(max(v[0], lo), hi)
    elif v.shape[0] == 2:
        p1 = min(max(v[1], lo), hi)
        v[1] = p1
        v[0] = 1.0 - p1


#: Node-local copies: smallest subtree worth a copy (rows).
LOCAL_MIN_ROWS = 64


@njit(inline="always")
def _worth_copying(n, local_rows, max_features, n_features):
    """Whether a subtree of ``n`` rows should gather from a node-local copy.

    The copy reads each row's ``n_features`` values once; the subtree then
    reads about ``max_features`` values per row on each of its ~log2(n)
    levels.  Copy when those reads outnumber the copied ones.
    """
    return LOCAL_MIN_ROWS <= n <= local_rows and max_features * np.log2(n) >= n_features


@njit
def _global_ids(idx, start, end, gmap):
    """Undo :func:`.data.copy_local`'s renumbering for the (permuted) subtree rows."""
    for p in range(start, end):
        idx[p] = gmap[idx[p]]


_GROWERS = {}

#: The name of each kernel's grower.  Each (kernel, task) grower compiles the node loop (~12 s), so a
#: program that runs all four kernels for both tasks compiles it eight times; in exchange a fit compiles
#: only its own kernel and task (the stochastic kernel alone is ~23 s, the exact one ~10 s, when both
#: tasks are compiled).  docs/benchmarks/startup.md has the cold first-fit times of each estimator.
_GROWER_NAMES = {HIST: "hist", EXACT: "exact", RANDOM: "random", STOCHASTIC: "stochastic"}


def grower_for(splitter, absolute_error=False, regression=False, columns=False):
    """The compiled tree grower that runs the split kernel ``splitter`` (a code of :mod:`.splitters`).

    The grower is compiled by :func:`_make_grower` for the constants ``ONLY =
    splitter``, ``AE = absolute_error`` and ``REG = regression`` (a
    regression criterion), on first use, and cached on disk: Numba keys a
    closure's cache entry on the values it captures, here three integers.
    ``absolute_error`` gives the grower of the absolute-error criterion
    (:mod:`.splitters.absolute`), a specialisation of its own so that the
    growers of the other criteria compile none of it; it implies
    ``regression``.  ``regression`` selects the task: a classification grower
    compiles no regression statistics and the reverse.  ``columns`` (data
    with a row index of its non-dominant codes, :func:`.binning.other_code_rows`)
    gives the classification ``hist`` grower that may build a large node's
    histograms from the column index (``COLS = 1``); with ``regression``, the
    grower for codes kept in the column index alone
    (:func:`.binning.sparse_code_index`), which reads a node's codes from
    it.  Other data compile none of that code.
    """
    absolute_error = bool(absolute_error)
    regression = absolute_error or bool(regression)
    cols = bool(columns) and int(splitter) == HIST and not absolute_error
    key = (int(splitter), int(absolute_error), int(regression), int(cols))
    grower = _GROWERS.get(key)
    if grower is None:
        if key[0] not in _GROWER_NAMES:
            raise ValueError(f"Unknown split kernel code {key[0]}.")
        grower = _GROWERS[key] = _make_grower(*key)
    return grower


def _make_grower(ONLY, AE=0, REG=0, COLS=0):
    """The tree grower for the closure constant ``ONLY`` (the code of the one kernel it runs).

    Every choice of a kernel is written as a test on ``ONLY`` (``ONLY ==
    HIST`` for the hist kernel, its histogram pool and the sibling
    subtraction).  Numba's dead-branch pruning evaluates these tests before
    typing, in the grower and in the helpers inlined into it
    (:func:`find_split`, :func:`_partition`), so each grower types and
    compiles its own kernel alone.  The split
    kernels that are compiled functions of their own (not inlined) receive the
    criterion as a run-time argument: a constant would make Numba compile
    each kernel once per criterion.

    ``AE == 1`` gives the absolute-error grower: every node is ranked by
    target (:func:`.splitters.absolute.rank_node`), its value is the
    weighted median and its impurity the mean absolute deviation from it,
    and the split search is :func:`.splitters.absolute.split_absolute` for
    the hist, exact and random kernels.  Its nodes carry squared-error
    statistics.  The tests on ``AE`` are pruned like those on ``ONLY``.

    ``REG == 1`` for the regression criteria, 0 for the classification ones:
    the grower passes it to the helpers it inlines and calls each compiled
    kernel in its variant for that task (``*_cls`` / ``*_reg`` of
    :mod:`.splitters.hist` and :mod:`.splitters.exact`), so a fit compiles
    one task's statistics (see :func:`.criteria.weighted_impurity_for`).
    """

    # what find_split and search_small_reg read of the column index: 1 the classification searches of
    # sparse columns, 2 the regression codes kept in the index alone, 0 nothing
    FIND_COLS = COLS * (1 + REG)

    def grow_tree(
        Xb, Xf, n_bins, edges, bin_bounds, yk, yr, w, idx, n_values, criterion, splitter, max_features, max_depth,
        min_samples_split, min_samples_leaf, min_weight_leaf, min_impurity_decrease, max_leaf_nodes, rng, pool_slots,
        node_model, sdt, n_evals, pool_buf, row_leaf, hist_threads, local_rows, mono, dominant, row_ptr, row_feat,
        columns,
    ):
        """Grow one tree; returns ``(node_table, values)``.

        ``node_table`` is a view of the first rows of a larger buffer (convert or copy it);
        ``values`` is its own array.

        Parameters
        ----------
        Xb : uint8 (n_features, n_samples) codes (hist splitter), else unused; ``(n_features, 0)`` when
            the codes are kept in ``columns`` alone (:func:`.binning.sparse_code_index`: a grower
            with ``COLS = 1`` reads them there, through :func:`.splitters.hist.node_codes`,
            :func:`.splitters.hist.entry_codes` and, for a classification criterion and integer
            weights, :func:`.splitters.hist.indexed_histogram_cls`).
        Xf : the raw values in a layout of :mod:`.data` (exact, random, stochastic), else an empty
            float32 ``(0, 0)`` array.
        n_bins, edges : from :mod:`.binning`.
        bin_bounds : float64 (n_features, max_bins, 2) bins' bounds (:func:`.binning.split_threshold`),
            or an empty ``(0, 0, 2)`` array: a hist split's threshold is then its bin edge.
        yk, yr : int32 class index / float64 target of every row (one is unused).
        w : float64 per-row weight (bootstrap count x sample_weight x class weight).
        idx : int rows with positive weight, sorted; permuted in place.

        The kernels read weights and targets in node order (``w[idx]`` moved
        along with ``idx`` at every partition), so only the feature codes are
        gathered through ``idx``: deep nodes then touch a few cache lines
        instead of one per row.
        n_values : number of classes, or 1 for regression.
        criterion : a code of :mod:`.criteria`.
        splitter : a code of :mod:`.splitters`: ``ONLY``, the kernel this grower runs.
        max_features : features drawn per node (more while all drawn are constant in it).
        max_depth, max_leaf_nodes : -1 for unlimited.
        min_weight_leaf : least sum of weights in a leaf (``min_weight_fraction_leaf`` x total).
        rng : uint64[1] state of :mod:`.rng`.
        pool_slots : number of per-node histogram buffers kept for the
            subtraction trick (hist splitter, all features evaluated); 0 disables.
        node_model : handle of a registered :class:`.node_model.NodeModel`, or -1.
        sdt : float64 parameters of the stochastic splitter (see splitters/stochastic.py).
        n_evals : int64[1], increased by the (row, feature) pairs the split searches read.
        pool_buf : float64 (slots, n_features, 256, n_stats) histogram pool to reuse
            across trees (boosting grows hundreds on the same data); allocated
            here when it is too small.
        row_leaf : int32, one entry per row of the data (or empty): filled with the
            leaf each training row ends in (rows of weight 0 are left untouched),
            so that boosting can set leaf values without a separate ``apply``.
        hist_threads : threads that build a node's histograms (hist splitter with
            the pool, i.e. every feature evaluated), for nodes of at least
            :data:`.hist_threads.MIN_PARALLEL_WORK` (rows x features); 1 builds
            them all on this thread.  The tree does not depend on it.
        local_rows : largest subtree (rows) whose values are copied into a
            node-local block (exact and random splitters, depth-first
            growth, no node model, a layout that can copy); 0 disables.  A node of at most this many rows whose subtree
            will read its rows more often than there are features (see
            :func:`_worth_copying`) gets ``Xf[:, idx[start:end]]`` copied into a
            contiguous ``(n_features, n)`` block and its ``idx`` renumbered
            0..n-1; its whole subtree then gathers from that block, which stays
            in cache, instead of from rows scattered over all of ``Xf`` (an
            ad-hoc measurement here: 18 vs 4.7 ns per value for 2,000 rows of
            80,000; ExtraTrees fit 1.3x faster at 100k x 50, 1.6x at 1M x 50).
            The global row ids come back when the subtree is done.  The tree
            does not depend on it.
        mono : float64 ``[lo, hi, cst_0, ..., cst_{F-1}]`` (see
            :func:`._common.mono_of`), or empty: per-feature monotonic
            constraints, +1 / -1 / 0, on the mean target (regression) or the
            proportion of class 1 (two classes), enforced as scikit-learn does.
            A split on a constrained feature must leave its children's values
            ordered and inside the node's bounds; the children of such a split
            get the midpoint of their two values as the bound between them
            (other splits pass the node's bounds on); every node's value is
            clipped into its bounds.  ``mono[:2]`` is overwritten with the bounds
            of the node being searched.
        dominant : int32, per feature the code that most rows hold or -1
            (:func:`.binning.dominant_codes`), or empty.  A classification
            grower with the hist kernel builds a node's histogram of such a
            feature without that bin and derives it from the node's totals
            (:func:`.splitters.hist.build_node_histogram_cls`), when every
            weight is an integer: the histograms, and so the tree, are those
            of the plain build.
        row_ptr, row_feat : the row-wise index of the codes that differ from
            their feature's dominant code (:func:`.binning.other_code_rows`),
            or empty.  A node below ``SMALL_NODE`` rows marks the features its
            rows list; an unmarked feature with a dominant code is constant in
            the node and is skipped without reading its codes.
        columns : the column index of :func:`.splitters.hist.column_index`
            and the code rows kept apart (``dense_row``, ``Xd``, empty unless
            ``Xb`` has no columns; see :func:`.binning.sparse_code_index`),
            built once per training set and shared by its trees, or six
            empty arrays: a grower with ``COLS = 1`` reads it.
        """
        if AE == 1:
            criterion = SQUARED_ERROR  # the statistics vectors the nodes carry (rows and weights are read)
        # which kernel runs (run-time flags for the buffers; the kernel calls themselves are chosen by
        # tests on the constant ONLY, which Numba prunes, inside find_split and _partition)
        is_hist = splitter == HIST
        is_exact = splitter == EXACT
        is_random = splitter == RANDOM
        is_stochastic = splitter == STOCHASTIC
        n_features = Xb.shape[0] if is_hist else data_n_features(Xf)
        # node-ordered copies, permuted together with idx
        w = w[idx]
        yk = yk[idx]
        yr = yr[idx]
        # w * y of every row (squared error): what the histograms sum, computed once per tree
        wy = w * yr if REG else np.empty(0)
        wbuf = np.empty_like(w)
        ykbuf = np.empty_like(yk)
        yrbuf = np.empty_like(yr)
        wybuf = np.empty_like(wy)
        n_stats = 4 if REG else 2 + n_values
        n_rows = idx.shape[0]
        if max_depth < 0:
            max_depth = 1 << 30
        best_first = max_leaf_nodes > 0

        # scratch memory, allocated once per tree
        feats = np.arange(n_features)
        # sort buffers: the exact splitter sorts whole nodes, hist only nodes
        # below SMALL_NODE rows, random never
        n_sort = n_rows if is_exact or is_stochastic else (min(n_rows, SMALL_NODE) if is_hist else 0)
        keys = np.empty(n_sort, np.float64)
        samples = np.empty(n_sort, idx.dtype)
        vals = np.empty(n_rows if is_random else 0, np.float32)  # the random splitter's gathered values
        unit_w = True  # every row's weight is 1: the random splitter counts in integers
        for p in range(n_rows):
            if w[p] != 1.0:
                unit_w = False
                break
        buf = np.empty(n_rows, idx.dtype)
        no_codes = np.empty(0, np.uint8)  # what _partition reads for a split of the other kernels
        tot = np.empty(n_stats)
        miss = np.empty(n_stats)
        cum = np.empty(n_stats)
        tmp = np.empty(n_stats)
        rec = np.empty(REC_SIZE)
        go_left = np.zeros(n_rows if node_model >= 0 else 0, np.uint8)
        out = np.empty(OUT_SIZE)
        counts = np.empty(MISSING_BIN + 1, np.int64)
        use_pool = is_hist and pool_slots > 0 and max_features >= n_features
        n_pool = pool_slots if use_pool else 0
        if (pool_buf.shape[0] >= n_pool and pool_buf.shape[1] == n_features and pool_buf.shape[3] == n_stats):
            pool = pool_buf
        else:
            pool = np.empty((n_pool, n_features, MISSING_BIN + 1, n_stats))
        scratch = np.empty((n_features if use_pool else 1, MISSING_BIN + 1, n_stats))
        free_slots = np.arange(n_pool)[::-1].copy()
        n_free = n_pool
        # node-local copies (see local_rows): the block, the local -> global row ids, and the subtree's range
        # Left out: hist (~5-10 % in noisy runs of RF at 100k x 50, not established) and stochastic
        # (its rounds read a few rows per feature: a copy of every feature would cost more than it saves).
        use_local = (local_rows > 0 and (is_random or is_exact) and not best_first and node_model < 0
                     and can_copy_local(Xf))
        local_buf = np.empty(n_features * local_rows if use_local else 0, np.float32)
        gmap = np.empty(local_rows if use_local else 0, idx.dtype)
        in_local = False
        local_start = np.int64(0)  # not literals: _global_ids is then compiled for int64 alone
        local_end = np.int64(0)

        # Node capacity: at most 2 L - 1 nodes for L leaves; every leaf holds a row, there are at most
        # max_leaf_nodes leaves when it is set and 2^max_depth with a depth limit.  np.empty: pages
        # never written are never faulted in, so the bound costs address space, not memory, and the
        # tables are never copied to grow (the doubling below only guards the bound; tables grown from
        # 64 rows would be copied ~11 times for a fully grown tree).  A tree's page faults follow the
        # bytes the fitted tree keeps (records, values and the prediction table, 160 bytes a node;
        # docs/benchmarks/engine.md, "Peak memory").
        max_leaves = n_rows if max_leaf_nodes <= 0 else min(n_rows, max_leaf_nodes)
        if max_depth < 40:
            max_leaves = min(max_leaves, 1 << max_depth)
        cap = max(2 * max_leaves - 1, 1)
        table_own = np.empty((cap, N_COLS))
        values_own = np.empty((cap, n_values))
        n_nodes = 0
        n_leaves = 0
        fcap = 32
        fr_int_own = np.empty((fcap, _F_SIZE), np.int64)
        fr_rec_own = np.empty((fcap, REC_SIZE))
        fr_gain_own = np.empty(fcap)
        fr_bounds_own = np.empty((fcap, 2))  # the frontier nodes' monotonic bounds
        n_front = 0
        constrained = mono.shape[0] > 0
        if AE == 1:  # the absolute-error search's buffers (node offsets, ranks, Fenwick trees, errors)
            ae_ranks = np.empty(n_rows, np.int64)
            ae_inv = np.empty(n_rows, np.int64)
            ae_sorted = np.empty(n_rows)
            ae_keys = np.empty(n_rows)
            ae_fw = np.empty(n_rows + 1)
            ae_fwy = np.empty(n_rows + 1)
            ae_pre = np.empty(n_rows)
            ae_suf = np.empty(n_rows)
            ae_left = np.empty(n_rows, np.bool_)

        # pending node creations: (start, end, depth, parent, is_left, slot, ready, axis_only)
        pend = np.empty((2, 8), np.int64)
        pend_tot = np.empty((2, n_stats))  # their statistics, summed by _partition
        pend_bounds = np.empty((2, 2))  # their monotonic bounds
        pend_bounds[0, 0] = -np.inf
        pend_bounds[0, 1] = np.inf
        n_pend = 1
        pend[0, 0] = 0
        pend[0, 1] = n_rows
        pend[0, 2] = 0
        pend[0, 3] = -1
        pend[0, 4] = 0
        pend[0, 5] = -1
        pend[0, 6] = 0
        pend[0, 7] = 0
        root_weight = 1.0

        # The node loop works on uncounted aliases (forestzoo._jit.borrow): Numba's atomic
        # reference counting of the arrays that inlined helpers bind was ~30 % of an Extra Trees
        # fit, and on two threads the shared data arrays' counters bounce between the cores.
        # The owners stay in use until keep_alive() at the end.  The objmode helpers
        # (_ask_node_model, _build_in_threads) hand arrays to Python and get the owners.
        Xb_own, n_bins_own, idx_own, w_own, yk_own, yr_own, wy_own = Xb, n_bins, idx, w, yk, yr, wy
        pool_own, scratch_own, go_left_own, tot_own, out_own = pool, scratch, go_left, tot, out
        owners = (keys, samples, vals, buf, miss, cum, tmp, rec, counts, wbuf, ykbuf, yrbuf, wybuf, feats, free_slots,
                  local_buf, gmap, pend, pend_tot, pend_bounds)
        Xb = borrow(Xb)
        Xf = borrow_data(Xf)
        Xc = Xf  # what the kernels read: Xf, or the current subtree's block
        n_bins = borrow(n_bins)
        edges = borrow(edges)
        bin_bounds = borrow(bin_bounds)
        idx = borrow(idx)
        w = borrow(w)
        yk = borrow(yk)
        yr = borrow(yr)
        wy = borrow(wy)
        rng = borrow(rng)
        sdt = borrow(sdt)
        n_evals = borrow(n_evals)
        row_leaf = borrow(row_leaf)
        mono = borrow(mono)
        pool = borrow(pool)
        scratch = borrow(scratch)
        go_left = borrow(go_left)
        tot = borrow(tot)
        out = borrow(out)
        keys = borrow(keys)
        samples = borrow(samples)
        vals = borrow(vals)
        buf = borrow(buf)
        miss = borrow(miss)
        cum = borrow(cum)
        tmp = borrow(tmp)
        rec = borrow(rec)
        counts = borrow(counts)
        wbuf = borrow(wbuf)
        ykbuf = borrow(ykbuf)
        yrbuf = borrow(yrbuf)
        wybuf = borrow(wybuf)
        feats = borrow(feats)
        free_slots = borrow(free_slots)
        local_buf = borrow(local_buf)
        gmap = borrow(gmap)
        pend = borrow(pend)
        pend_tot = borrow(pend_tot)
        pend_bounds = borrow(pend_bounds)
        skip_bin = dominant.shape[0] > 0 and integral_weights(w)
        marks_own = np.zeros(n_features if is_hist and row_ptr.shape[0] > 0 else 0, np.int32)
        # sparse data: a large node searches a feature with a dominant code from the feature's other
        # codes alone (splitters.hist.split_column_cls), which needs the column-wise index and each
        # row's position in idx (kept up to date by every partition); a small node, from its entries
        # of the row index (splitters.hist.split_sparse_small_cls)
        if COLS == 1:
            indexed = Xb.shape[1] == 0
            use_cols = is_hist and row_ptr.shape[0] > 0 and node_model < 0 and columns[0].shape[0] > 0
            if REG:  # the regression grower reads the codes from the index, whatever the weights
                use_cols = use_cols and indexed
            else:
                use_cols = use_cols and skip_bin
            if indexed and not use_cols:
                raise ValueError("codes kept in the column index alone need no node model (and, for a "
                                 "classification criterion, integer weights)")
            colbufs_own = column_setup(use_cols, columns, row_ptr, idx, n_stats, indexed)
            row_pos = borrow(colbufs_own[3])
            colbufs = (borrow(colbufs_own[0]), borrow(colbufs_own[1]), borrow(colbufs_own[2]), row_pos,
                       borrow(colbufs_own[4]), borrow(colbufs_own[5]), borrow(colbufs_own[6]), borrow(colbufs_own[7]),
                       borrow(colbufs_own[8]), borrow(colbufs_own[9]), borrow(colbufs_own[10]),
                       borrow(colbufs_own[11]), borrow(colbufs_own[12]), borrow(colbufs_own[13]),
                       borrow(colbufs_own[14]), borrow(colbufs_own[15]), borrow(colbufs_own[16]))
        else:
            use_cols = False
            colbufs_own = ()
            colbufs = ()
        dominant_own, row_ptr_own, row_feat_own = dominant, row_ptr, row_feat
        dominant = borrow(dominant)
        row_ptr = borrow(row_ptr)
        row_feat = borrow(row_feat)
        marks = borrow(marks_own)
        bufs = (keys, samples, miss, counts, cum, tmp, vals, dominant, skip_bin, marks, row_ptr, row_feat, colbufs)
        table = borrow(table_own)
        values = borrow(values_own)
        fr_int = borrow(fr_int_own)
        fr_rec = borrow(fr_rec_own)
        fr_gain = borrow(fr_gain_own)
        fr_bounds = borrow(fr_bounds_own)

        while True:
            for q in range(n_pend):
                start = pend[q, 0]
                end = pend[q, 1]
                depth = pend[q, 2]
                parent = pend[q, 3]
                is_left = pend[q, 4]
                slot = pend[q, 5]
                ready = pend[q, 6]
                axis_only = pend[q, 7]
                n = end - start
                if n_nodes == cap:
                    table_own = _double_rows(table_own)
                    values_own = _double_rows(values_own)
                    table = borrow(table_own)
                    values = borrow(values_own)
                    cap *= 2
                node = n_nodes
                n_nodes += 1
                n_leaves += 1
                if parent >= 0:
                    table[parent, COL_LEFT if is_left else COL_RIGHT] = node
                if parent >= 0:
                    _copy_into(tot, pend_tot[q])
                else:
                    _node_totals(idx, start, end, w, yk, yr, criterion, tot, REG)
                    root_weight = tot[1]
                if AE == 1:
                    wimp, ae_median = rank_node(yr, w, start, end, ae_ranks, ae_inv, ae_sorted)
                else:
                    wimp = weighted_impurity_for(tot, tot, 0.0, criterion, REG)
                table[node, COL_LEFT] = -1
                table[node, COL_RIGHT] = -1
                table[node, COL_FEATURE] = -1
                table[node, COL_THRESHOLD] = 0.0
                table[node, COL_MISSING_LEFT] = 0
                table[node, COL_DEPTH] = depth
                table[node, COL_N_SAMPLES] = n
                table[node, COL_WEIGHTED_N] = tot[1]
                table[node, COL_IMPURITY] = wimp / tot[1]
                table[node, COL_IMPROVEMENT] = 0.0
                table[node, COL_OBLIQUE] = -1
                if AE == 1:
                    values[node, 0] = ae_median
                else:
                    node_value_for(tot, REG, values[node])
                if constrained:
                    mono[0] = pend_bounds[q, 0]
                    mono[1] = pend_bounds[q, 1]
                    _clip_value(values[node], mono[0], mono[1], REG)

                leaf = (
                    depth >= max_depth
                    or n < min_samples_split
                    or n < 2 * min_samples_leaf
                    or tot[1] < 2.0 * min_weight_leaf
                    or _is_pure(tot, REG)
                    or wimp / tot[1] <= _DBL_EPS
                )
                status = NODE_AXIS
                if not leaf and node_model >= 0 and axis_only == 0:
                    out[:] = 0.0
                    out[OUT_COST] = np.inf
                    out[OUT_OBLIQUE] = -1.0
                    status = _ask_node_model(node_model, idx_own, w_own, yk_own, yr_own, go_left_own, start, end, depth,
                                             tot_own, out_own)
                    if status == NODE_LEAF:
                        leaf = True
                    elif status == NODE_AXIS_SUBTREE:
                        axis_only = 1
                if not leaf:
                    if status == NODE_OBLIQUE:
                        reset_record(rec)
                        if slot >= 0 and ready == 0:  # no histogram was built for this node
                            free_slots[n_free] = slot
                            n_free += 1
                            slot = -1
                    else:
                        if ONLY == HIST:
                            if use_pool and slot < 0 and n >= SMALL_NODE and n_free > 0:
                                n_free -= 1
                                slot = free_slots[n_free]
                                ready = 0
                            if slot >= 0 and ready == 0 and hist_threads > 1 and n * n_features >= MIN_PARALLEL_WORK:
                                _build_in_threads(Xb_own, n_bins_own, idx_own, start, end, w_own, yk_own, wy_own,
                                                  criterion, pool_own[slot], hist_threads)
                                n_evals[0] += n * n_features
                                ready = 1
                        # the kernels that search the whole node at once are called here, not in
                        # find_split: a call under a pruned test on ONLY is dropped before Numba
                        # inlines split_random, so only the grower that runs it pays its inlining
                        if AE == 1:
                            reset_record(rec)
                            split_absolute(ONLY, Xb, Xc, edges, idx, start, end, w, yr, tot, min_samples_leaf,
                                           min_weight_leaf, max_features, feats, rng, ae_ranks, ae_inv, ae_sorted,
                                           ae_keys, ae_fw, ae_fwy, ae_pre, ae_suf, ae_left, rec, n_evals)
                        elif ONLY == RANDOM:
                            reset_record(rec)
                            split_random(Xc, idx, start, end, w, yk, yr, tot, min_samples_leaf, min_weight_leaf,
                                         criterion, max_features, feats, rng, vals, unit_w, miss, cum, tmp, rec, n_evals,
                                         mono, REG)
                        elif ONLY == STOCHASTIC:
                            reset_record(rec)
                            if REG:
                                split_stochastic_reg(Xc, idx, start, end, w, yk, yr, tot, min_samples_leaf,
                                                     min_weight_leaf, criterion, max_features, feats, rng, sdt, keys,
                                                     samples, miss, cum, tmp, rec, n_evals)
                            else:
                                split_stochastic_cls(Xc, idx, start, end, w, yk, yr, tot, min_samples_leaf,
                                                     min_weight_leaf, criterion, max_features, feats, rng, sdt, keys,
                                                     samples, miss, cum, tmp, rec, n_evals)
                        else:
                            searched = False
                            # one constant per test, so that Numba prunes the call (and its inlining) from
                            # every grower but the regression hist one
                            if REG:
                                if ONLY == HIST:
                                    if slot < 0 and n < SMALL_NODE:
                                        search_small_reg(Xb, edges, idx, start, end, w, yk, yr, tot, criterion,
                                                         max_features, min_samples_leaf, min_weight_leaf, feats, rng,
                                                         bufs, rec, n_evals, mono, FIND_COLS)
                                        searched = True
                            if not searched:
                                find_split(
                                    Xb, Xc, n_bins, edges, yk, yr, wy, w, idx, start, end, tot, criterion, splitter,
                                    ONLY, max_features, min_samples_leaf, min_weight_leaf, feats, rng, pool, slot,
                                    ready, scratch, bufs, rec, n_evals, mono, REG, FIND_COLS,
                                )
                    if status == NODE_OBLIQUE and out[OUT_COST] < rec[REC_COST]:
                        rec[REC_COST] = out[OUT_COST]
                        rec[REC_FEATURE] = -1.0
                        rec[REC_BIN] = -1.0
                        rec[REC_THRESHOLD] = out[OUT_THRESHOLD]
                        rec[REC_MISSING_LEFT] = out[OUT_MISSING_LEFT]
                        rec[REC_OBLIQUE] = out[OUT_OBLIQUE]
                    gain = wimp - rec[REC_COST]
                    leaf = rec[REC_COST] == np.inf or gain / root_weight < min_impurity_decrease - 1e-12
                if leaf:
                    if slot >= 0:
                        free_slots[n_free] = slot
                        n_free += 1
                    if row_leaf.shape[0] > 0:
                        for p in range(start, end):
                            row_leaf[gmap[idx[p]] if in_local else idx[p]] = node
                    continue
                if n_front == fcap:
                    fr_int_own = _double_rows(fr_int_own)
                    fr_rec_own = _double_rows(fr_rec_own)
                    fr_gain_own = _double_1d(fr_gain_own)
                    fr_bounds_own = _double_rows(fr_bounds_own)
                    fr_int = borrow(fr_int_own)
                    fr_rec = borrow(fr_rec_own)
                    fr_gain = borrow(fr_gain_own)
                    fr_bounds = borrow(fr_bounds_own)
                    fcap *= 2
                fr_int[n_front, _F_NODE] = node
                fr_int[n_front, _F_START] = start
                fr_int[n_front, _F_END] = end
                fr_int[n_front, _F_SLOT] = slot
                fr_int[n_front, _F_AXIS_ONLY] = axis_only
                _copy_into(fr_rec[n_front], rec)
                fr_gain[n_front] = gain
                if constrained:
                    fr_bounds[n_front, 0] = mono[0]
                    fr_bounds[n_front, 1] = mono[1]
                n_front += 1
            n_pend = 0

            if n_front == 0 or (best_first and n_leaves >= max_leaf_nodes):
                break
            # pop: last entry (depth-first) or the largest gain (best-first)
            e = n_front - 1
            if best_first:
                for q in range(n_front - 1):
                    if fr_gain[q] > fr_gain[e]:
                        e = q
            node, start, end, slot = fr_int[e, _F_NODE], fr_int[e, _F_START], fr_int[e, _F_END], fr_int[e, _F_SLOT]
            axis_only = fr_int[e, _F_AXIS_ONLY]
            _copy_into(rec, fr_rec[e])
            gain = fr_gain[e]
            lo = -np.inf
            hi = np.inf
            if constrained:
                lo = fr_bounds[e, 0]
                hi = fr_bounds[e, 1]
                _copy_into(fr_bounds[e], fr_bounds[n_front - 1])
            if e != n_front - 1:
                _copy_into(fr_int[e], fr_int[n_front - 1])
                _copy_into(fr_rec[e], fr_rec[n_front - 1])
                fr_gain[e] = fr_gain[n_front - 1]
            n_front -= 1

            if (ONLY == EXACT or ONLY == RANDOM) and use_local:  # (see use_local)
                if in_local and (start < local_start or end > local_end):  # the subtree is done (depth-first)
                    _global_ids(idx, local_start, local_end, gmap)
                    in_local = False
                    Xc = Xf
                if not in_local and _worth_copying(end - start, local_rows, max_features, n_features):
                    Xc = copy_local(Xf, idx, start, end, local_buf, gmap)
                    in_local = True
                    local_start = start
                    local_end = end

            feature = int(rec[REC_FEATURE])
            ml = rec[REC_MISSING_LEFT] > 0.5
            codes = no_codes
            if ONLY == HIST and feature >= 0:
                codes = Xb[feature]
                if COLS == 1:
                    if use_cols and colbufs[14].shape[0] > 0:  # codes kept in the column index alone
                        codes = node_codes(feature, colbufs[0], colbufs[1], colbufs[2], row_pos, idx, start, end,
                                           dominant[feature], colbufs[14], colbufs[15], colbufs[16])
            n_left, least_right = _partition(
                codes, Xc, splitter, ONLY, idx, w, yk, yr, wy, start, end, feature, int(rec[REC_BIN]), rec[REC_THRESHOLD], ml,
                buf, wbuf, ykbuf, yrbuf, wybuf, go_left, criterion, pend_tot[0], pend_tot[1], REG,
            )
            threshold = rec[REC_THRESHOLD]
            if ONLY == HIST and feature >= 0:  # halfway between the values on the two sides, as the exact search
                threshold = split_threshold(bin_bounds, edges, feature, int(rec[REC_BIN]), least_right, threshold)
            mid = start + n_left
            if COLS == 1:
                if use_cols:
                    for p in range(start, end):
                        row_pos[idx[p]] = p
            if constrained:
                # children's bounds (scikit-learn's rule): a split on a constrained feature puts the
                # midpoint of the children's values between them; any other split passes lo, hi on
                cst = mono[2 + feature] if feature >= 0 else 0.0
                k = mono_stat_for(REG)
                middle = 0.5 * (pend_tot[0, k] / pend_tot[0, 1] + pend_tot[1, k] / pend_tot[1, 1])
                pend_bounds[0, 0] = lo
                pend_bounds[0, 1] = hi
                pend_bounds[1, 0] = lo
                pend_bounds[1, 1] = hi
                if cst > 0.0:
                    pend_bounds[0, 1] = middle
                    pend_bounds[1, 0] = middle
                elif cst < 0.0:
                    pend_bounds[0, 0] = middle
                    pend_bounds[1, 1] = middle
            table[node, COL_FEATURE] = feature
            table[node, COL_OBLIQUE] = rec[REC_OBLIQUE]
            table[node, COL_THRESHOLD] = threshold
            table[node, COL_MISSING_LEFT] = 1.0 if ml else 0.0
            table[node, COL_IMPROVEMENT] = gain
            n_leaves -= 1
            depth = int(table[node, COL_DEPTH]) + 1

            # sibling subtraction: build the smaller child's histograms, the
            # larger child's are parent - smaller (Ke et al. 2017, LightGBM)
            left_slot = -1
            right_slot = -1
            left_ready = 0
            right_ready = 0
            n_right = end - mid
            if ONLY == HIST and slot >= 0:  # (slot < 0 always in the other grower: no pool)
                small_left = n_left <= n_right
                s_start, s_end = (start, mid) if small_left else (mid, end)
                n_small = s_end - s_start
                n_large = (end - start) - n_small
                # children that cannot split need no histograms
                if n_large >= SMALL_NODE and depth < max_depth and n_large >= min_samples_split:
                    s_slot = -1
                    if n_small >= SMALL_NODE and n_free > 0:
                        n_free -= 1
                        s_slot = free_slots[n_free]
                    target = pool[s_slot] if s_slot >= 0 else scratch
                    if hist_threads > 1 and n_small * n_features >= MIN_PARALLEL_WORK:
                        target_own = pool_own[s_slot] if s_slot >= 0 else scratch_own
                        _build_in_threads(Xb_own, n_bins_own, idx_own, s_start, s_end, w_own, yk_own, wy_own, criterion,
                                          target_own, hist_threads)
                    else:
                        for f in range(n_features):
                            if REG:
                                codes = Xb[f]
                                if COLS == 1:
                                    if use_cols:  # codes kept in the column index alone
                                        codes = node_codes(f, colbufs[0], colbufs[1], colbufs[2], row_pos, idx,
                                                           s_start, s_end, dominant[f], colbufs[14], colbufs[15],
                                                           colbufs[16])
                                build_histogram_reg(codes, idx, s_start, s_end, w, yk, wy, n_bins[f], target[f])
                            elif COLS == 1 and use_cols and colbufs[14].shape[0] > 0:  # codes in the column index
                                indexed_histogram_cls(f, colbufs[0], colbufs[1], colbufs[2], row_pos, idx, s_start, s_end,
                                                      w, yk, wy, n_bins[f], target[f], dominant[f],
                                                      pend_tot[0] if small_left else pend_tot[1], colbufs[14],
                                                      colbufs[15], colbufs[16])
                            else:
                                build_histogram_cls(Xb[f], idx, s_start, s_end, w, yk, wy, n_bins[f], target[f])
                    n_evals[0] += n_small * n_features
                    subtract_histogram(pool[slot], target, n_bins)
                    if small_left:
                        left_slot, right_slot = s_slot, slot
                    else:
                        left_slot, right_slot = slot, s_slot
                    left_ready = 1 if left_slot >= 0 else 0
                    right_ready = 1 if right_slot >= 0 else 0
                else:
                    free_slots[n_free] = slot
                    n_free += 1

            pend[0, 0] = start
            pend[0, 1] = mid
            pend[0, 2] = depth
            pend[0, 3] = node
            pend[0, 4] = 1
            pend[0, 5] = left_slot
            pend[0, 6] = left_ready
            pend[0, 7] = axis_only
            pend[1, 0] = mid
            pend[1, 1] = end
            pend[1, 2] = depth
            pend[1, 3] = node
            pend[1, 4] = 0
            pend[1, 5] = right_slot
            pend[1, 6] = right_ready
            pend[1, 7] = axis_only
            n_pend = 2

        if in_local:
            _global_ids(idx, local_start, local_end, gmap)
        if row_leaf.shape[0] > 0:  # best-first growth stopped: the frontier nodes are leaves
            for e in range(n_front):
                for p in range(fr_int[e, _F_START], fr_int[e, _F_END]):
                    row_leaf[idx[p]] = fr_int[e, _F_NODE]
        keep_alive((owners, Xb_own, n_bins_own, idx_own, w_own, yk_own, yr_own, wy_own, pool_own, scratch_own, go_left_own,
                    tot_own, out_own, fr_int_own, fr_rec_own, fr_gain_own, fr_bounds_own, dominant_own,
                    row_ptr_own, row_feat_own, marks_own, colbufs_own))
        return table_own[:n_nodes], values_own[:n_nodes].copy()  # the caller converts the table, so no copy

    # Each grower gets its own qualified name: Numba names a compiled function's environment after
    # its qualified name and a per-process counter, so two closures of one name, compiled in other
    # processes and both loaded from the disk cache into one process, could share an environment.
    grow_tree.__qualname__ = (f"{grow_tree.__qualname__}_{_GROWER_NAMES[ONLY]}" + ("_absolute_error" if AE else "")
                              + ("_reg" if REG else "_cls") + ("_columns" if COLS else ""))
    return njit(grow_tree)
