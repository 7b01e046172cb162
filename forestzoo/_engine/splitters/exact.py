"""Exact split search over sorted raw values (``splitter="exact"``), as in CART."""

import numpy as np

from ..._jit import njit
from ..data import value
from ._common import (
    REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, add_sample_for, same_value, scan_sorted_cls,
    scan_sorted_reg,
)


@njit(inline="always")
def midpoint(a, b):
    """Threshold between two consecutive distinct values; never rounds onto ``b``."""
    t = 0.5 * (a + b)
    if t >= b:
        t = a
    return t


@njit(inline="always")
def _split_exact(f, X, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, keys, samples,
                 miss, cum, tmp, rec, cst, lo, hi, reg):
    """Best midpoint threshold of feature ``f`` of the layout ``X`` (:mod:`..data`) over the node; updates ``rec``.

    ``cst, lo, hi``: the feature's monotonic constraint (0 for none) and the
    node's value bounds (:func:`._common.monotone_ok`).  ``reg``: whether
    ``criterion`` is a regression one; :func:`split_exact_cls` and
    :func:`split_exact_reg` pass it as a constant, so each compiles one
    task's code (see :func:`..criteria.weighted_impurity_for`).
    """
    # np.int64, not the literal 0: Numba compiles a callee once per argument type, and it types the call
    # below with m's first type (Literal[int](0)) before the loop widens it to int64
    m = np.int64(0)
    miss[:] = 0.0
    for p in range(start, end):
        i = idx[p]
        v = value(X, f, i)
        if np.isnan(v):
            add_sample_for(miss, 1.0, w[p], yk[p], yr[p], criterion, reg)
        else:
            keys[m] = v
            samples[m] = p
            m += 1
    if m == 0:
        return False
    order = np.argsort(keys[:m], kind="mergesort")
    sorted_keys = keys[:m][order]
    sorted_samples = samples[:m][order]
    if same_value(sorted_keys[0], sorted_keys[m - 1]) and miss[0] == 0.0:
        return False
    # scikit-learn's rule: a value within FEATURE_THRESHOLD of the one before it (see same_value)
    # belongs to its group, so no threshold falls between them; giving it the group's key lets
    # scan_sorted cut only between distinct keys (the thresholds below use the values themselves)
    prev = sorted_keys[0]
    for p in range(1, m):
        v = sorted_keys[p]
        if same_value(prev, v):  # equal values included: the group's key may be below them
            sorted_keys[p] = sorted_keys[p - 1]
        prev = v
    if reg:
        cost, pos, ml = scan_sorted_reg(sorted_keys, sorted_samples, m, miss, total, w, yk, yr, min_samples_leaf,
                                        min_weight_leaf, criterion, cum, tmp, cst, lo, hi)
    else:
        cost, pos, ml = scan_sorted_cls(sorted_keys, sorted_samples, m, miss, total, w, yk, yr, min_samples_leaf,
                                        min_weight_leaf, criterion, cum, tmp, cst, lo, hi)
    if cost < rec[REC_COST]:
        rec[REC_COST] = cost
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        rec[REC_BIN] = -1.0
        rec[REC_THRESHOLD] = np.inf if pos == m - 1 else midpoint(keys[order[pos]], keys[order[pos + 1]])
    return True


@njit
def split_exact_cls(f, X, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, keys,
                    samples, miss, cum, tmp, rec, cst, lo, hi):
    """:func:`_split_exact` for a classification criterion."""
    return _split_exact(f, X, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, keys,
                        samples, miss, cum, tmp, rec, cst, lo, hi, False)


@njit
def split_exact_reg(f, X, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, keys,
                    samples, miss, cum, tmp, rec, cst, lo, hi):
    """:func:`_split_exact` for a regression criterion."""
    return _split_exact(f, X, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, keys,
                        samples, miss, cum, tmp, rec, cst, lo, hi, True)

