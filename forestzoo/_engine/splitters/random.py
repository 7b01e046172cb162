"""Random-threshold split (``splitter="random"``): Extra Trees, Geurts et al. 2006."""

import numpy as np

from ..._jit import njit
from ..rng import rng_uniform
from ._common import REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, add_sample, evaluate


@njit
def split_random(f, xcol, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, rng, miss, cum, tmp, rec):
    """One threshold drawn uniformly in [min, max) of feature ``f`` in the node.

    NaN rows are tried on both sides and go where the cost is lower.
    Returns True when the feature is not constant in the node.
    (Gathering the values into a contiguous buffer on the first pass was
    measured slower than reading ``xcol`` through ``idx`` twice.)
    """
    lo = np.inf
    hi = -np.inf
    for p in range(start, end):
        v = xcol[idx[p]]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    if hi < lo:  # every value is NaN
        return False
    if hi <= lo:
        # constant values; still splittable if some rows are NaN
        n_nan = 0
        for p in range(start, end):
            if np.isnan(xcol[idx[p]]):
                n_nan += 1
        if n_nan == 0:
            return False
        thr = np.inf
    else:
        thr = lo + rng_uniform(rng) * (hi - lo)
        if thr >= hi:
            thr = lo
    cum[:] = 0.0
    miss[:] = 0.0
    for p in range(start, end):
        v = xcol[idx[p]]
        if v <= thr:
            add_sample(cum, 1.0, w[p], yk[p], yr[p], criterion)
        elif np.isnan(v):
            add_sample(miss, 1.0, w[p], yk[p], yr[p], criterion)
    c, ml = evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp)
    if c < rec[REC_COST]:
        rec[REC_COST] = c
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        rec[REC_BIN] = -1.0
        rec[REC_THRESHOLD] = thr
    return True
