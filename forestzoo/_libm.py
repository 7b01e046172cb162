"""``exp`` and ``log`` through the C library's functions: the same results on every x86 CPU.

numpy's ufuncs ``np.exp`` and ``np.log`` take SIMD paths chosen for the CPU;
on CPUs with AVX-512 they round some results differently from the C
library's ``exp`` and ``log`` (measured: predicted probabilities of a
gradient boosting classifier differing in the last bit).  The loops here call
the C library through Numba's ``math.exp`` / ``math.log``, so a model whose
values pass through them is the same wherever the same C library runs.  On
CPUs without AVX-512 numpy's results equal these, so models fitted there are
unchanged.
"""

import math

import numpy as np

from ._jit import njit


@njit
def _exp_into(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


@njit
def _log_into(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.0:
            out[i] = math.log(v)
        elif v == 0.0:
            out[i] = -np.inf
        else:
            out[i] = np.nan


def _apply(kernel, scalar, a):
    if np.ndim(a) == 0:
        return scalar(float(a))
    a = np.asarray(a, dtype=np.float64)
    out = np.empty(a.shape)
    kernel(np.ascontiguousarray(a).reshape(-1), out.reshape(-1))
    return out


def _log_scalar(v):
    return math.log(v) if v > 0.0 else (-math.inf if v == 0.0 else math.nan)


def exp(a):
    """Elementwise ``exp`` of a float array (a new float64 array), or of a scalar (a float)."""
    return _apply(_exp_into, math.exp, a)


def log(a):
    """Elementwise natural ``log`` (``-inf`` at 0, NaN below), as :func:`exp`."""
    return _apply(_log_into, _log_scalar, a)
