"""Histogram split search over binned codes (``splitter="hist"``)."""

import numpy as np

from ..._jit import njit
from ..binning import MISSING_BIN
from ..criteria import SQUARED_ERROR
from ._common import REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, add_sample, evaluate, scan_sorted

# Nodes with fewer rows than this skip the histogram: sorting a handful of
# codes is cheaper than clearing and scanning 256 bins (DESIGN.md, memory order).
SMALL_NODE = 256
_INSERTION_MAX = 16


@njit
def build_histogram(codes, idx, start, end, w, yk, yr, n_bins, criterion, hist):
    """Statistics of every bin of one feature over the node ``idx[start:end]``.

    ``hist`` is ``(256, n_stats)``; bins ``n_bins .. 254`` stay untouched
    (they are never read), row :data:`MISSING_BIN` holds the NaN rows.
    """
    hist[:n_bins, :] = 0.0
    hist[MISSING_BIN, :] = 0.0
    # the two loops differ only in the statistics they add (see criteria.py)
    if criterion == SQUARED_ERROR:
        for p in range(start, end):
            i = idx[p]
            b = codes[i]
            wi = w[p]
            wy = wi * yr[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2] += wy
            hist[b, 3] += wy * yr[p]
    else:
        for p in range(start, end):
            i = idx[p]
            b = codes[i]
            wi = w[p]
            hist[b, 0] += 1.0
            hist[b, 1] += wi
            hist[b, 2 + yk[p]] += wi


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


@njit
def split_histogram(f, hist, n_bins, edges, total, min_samples_leaf, min_weight_leaf, criterion, cum, tmp, rec):
    """Best split of feature ``f`` from its histogram; updates ``rec``.

    Returns True when the feature is not constant in the node.
    """
    miss = hist[MISSING_BIN]
    n_values = total[0] - miss[0]
    if n_values <= 0.0:
        return False
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
        c, ml = evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp)
        if c < rec[REC_COST]:
            rec[REC_COST] = c
            rec[REC_FEATURE] = f
            rec[REC_MISSING_LEFT] = ml
            if last:  # every value left, NaN right
                rec[REC_BIN] = MISSING_BIN - 1
                rec[REC_THRESHOLD] = np.inf
            else:
                rec[REC_BIN] = b
                rec[REC_THRESHOLD] = edges[f, b]
        if last:
            break
    return n_nonempty > 1 or (n_nonempty == 1 and miss[0] > 0.0)


@njit
def _sort_codes(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts):
    """Non-missing rows of the node sorted (stably) by code into ``keys``/``samples``.

    Insertion sort for tiny nodes, counting sort over the 255 value codes
    otherwise; NaN rows are summed into ``miss``.  Returns their number.
    """
    miss[:] = 0.0
    n = end - start
    m = 0
    if n <= _INSERTION_MAX:
        for p in range(start, end):
            i = idx[p]
            c = codes[i]
            if c == MISSING_BIN:
                add_sample(miss, 1.0, w[p], yk[p], yr[p], criterion)
                continue
            q = m
            while q > 0 and keys[q - 1] > c:
                keys[q] = keys[q - 1]
                samples[q] = samples[q - 1]
                q -= 1
            keys[q] = c
            samples[q] = p
            m += 1
        return m
    counts[:] = 0
    for p in range(start, end):
        counts[codes[idx[p]]] += 1
    # exclusive prefix sums give each code its first output position
    acc = 0
    for c in range(MISSING_BIN):
        k = counts[c]
        counts[c] = acc
        acc += k
    for p in range(start, end):
        i = idx[p]
        c = codes[i]
        if c == MISSING_BIN:
            add_sample(miss, 1.0, w[p], yk[p], yr[p], criterion)
            continue
        q = counts[c]
        counts[c] = q + 1
        keys[q] = c
        samples[q] = p
    return acc


@njit
def split_small(f, codes, idx, start, end, w, yk, yr, edges, total, min_samples_leaf, min_weight_leaf, criterion, keys, samples, miss, counts, cum, tmp, rec):
    """Same result as :func:`split_histogram` for a small node, by sorting codes."""
    m = _sort_codes(codes, idx, start, end, w, yk, yr, criterion, keys, samples, miss, counts)
    if m == 0:
        return False
    non_constant = keys[m - 1] > keys[0] or miss[0] > 0.0
    if not non_constant:
        return False
    cost, pos, ml = scan_sorted(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp)
    if cost < rec[REC_COST]:
        rec[REC_COST] = cost
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        if pos == m - 1:
            rec[REC_BIN] = MISSING_BIN - 1
            rec[REC_THRESHOLD] = np.inf
        else:
            b = int(keys[pos])
            rec[REC_BIN] = b
            rec[REC_THRESHOLD] = edges[f, b]
    return True
