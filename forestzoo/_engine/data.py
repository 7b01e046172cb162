"""Data access: how the raw-value split kernels and the partition read the training matrix.

The grower and the split kernels that read raw values (exact, random,
stochastic) never index the training matrix themselves.  They read it through
the functions of this module, which Numba resolves by the *type* of the
matrix when it compiles the grower (each layout gets its own compiled grower,
the kernels unchanged):

* :func:`value` -- the value of feature ``f`` for row ``i``;
* :func:`n_features` -- the number of features;
* :func:`borrow_data` -- an uncounted alias for the node loop (see
  :func:`forestzoo._jit.borrow`);
* :func:`can_copy_local` and :func:`copy_local` -- the node-local copy of a
  subtree's rows (see ``local_rows`` in :func:`.grower._make_grower`), for
  layouts that support it.

Layouts:

* **dense**: a C-contiguous float32 array ``(n_features, n_samples)``,
  feature-major, so that a node's values of one feature are gathered from one
  row of the array;
* **CSC**: a tuple ``(data, indices, indptr, n_features)`` holding a
  compressed-sparse-column matrix (float32 values, int32 row indices sorted
  within each column, int64 column pointers).  A row absent from a column has
  the value 0; a stored NaN is a missing value, as in the dense layout.  A
  value is found by binary search in its column, so a node of ``n`` rows
  costs ``O(n log nnz_f)`` per feature.

:func:`csc_layout` builds the CSC tuple from a scipy sparse matrix.

A new layout is one overload of each function for its type, plus its
preparation where the training data is prepared; neither the grower nor the
split kernels change.  The hist kernel reads binned codes instead
(:mod:`.binning`): a dense uint8 array, or, for a sparse matrix, an index of
the codes that differ from their feature's dominant code
(:func:`.binning.sparse_code_index`).

The overloads are inlined (``inline="always"``) into the grower and the
kernels, which the library compiles with :func:`forestzoo._jit.njit`: for the
dense layout the compiled code is the direct array read it replaces.
"""

import numpy as np
from numba.core import types
from numba.extending import overload

from .._jit import borrow, njit


def csc_layout(X):
    """The CSC layout of a scipy sparse matrix or array ``X`` (any format).

    Converted to CSC with float32 values, int32 row indices sorted within each
    column (duplicates summed) and int64 column pointers; ``X`` itself is not
    modified, and its arrays are shared when they already have these types.
    """
    import scipy.sparse as sp

    m = sp.csc_matrix(X)
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()
    return (m.data.astype(np.float32, copy=False), m.indices.astype(np.int32, copy=False),
            m.indptr.astype(np.int64, copy=False), np.int64(m.shape[1]))


def value(X, f, i):
    """Value of feature ``f`` for row ``i`` of the layout ``X`` (float32).

    Called from Python, it reads the layout with NumPy; compiled code gets the overload below.
    """
    if isinstance(X, tuple):
        data, indices, indptr, _ = X
        lo, hi = int(indptr[f]), int(indptr[f + 1])
        k = lo + int(np.searchsorted(indices[lo:hi], i))
        return data[k] if k < hi and indices[k] == i else np.float32(0.0)
    return X[f, i]


def n_features(X):
    """Number of features of the layout ``X``."""
    return int(X[3]) if isinstance(X, tuple) else X.shape[0]


def borrow_data(X):
    """An alias of ``X`` that Numba does not reference-count (the arrays of a tuple are left counted);
    ``X`` itself when called from Python."""
    return X


def can_copy_local(X):
    """Whether :func:`copy_local` gathers a subtree's rows of ``X`` into a dense block."""
    return not isinstance(X, tuple)


def copy_local(X, idx, start, end, local_buf, gmap):
    """Copy the node ``idx[start:end]`` into a dense block and renumber its rows; returns the block
    (``X`` itself for a layout that cannot copy, see :func:`can_copy_local`)."""
    if isinstance(X, tuple):
        return X
    return _copy_dense(X, idx, start, end, local_buf, gmap)


def _is_dense(X):
    return isinstance(X, types.Array) and X.ndim == 2


def _is_csc(X):
    return isinstance(X, types.BaseTuple) and len(X) == 4


@njit
def _csc_value(data, indices, indptr, f, i):
    """Binary search of row ``i`` among the stored rows of column ``f``; 0 when it is absent.

    A compiled function of its own, not inlined: Numba's IR inliner cannot
    inline a loop into the random kernel's unrolled reads.
    """
    lo = indptr[f]
    hi = indptr[f + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        r = indices[mid]
        if r < i:
            lo = mid + 1
        elif r > i:
            hi = mid
        else:
            return data[mid]
    return np.float32(0.0)


@overload(value, inline="always")
def _value(X, f, i):
    if _is_dense(X):
        return lambda X, f, i: X[f, i]
    if _is_csc(X):
        return lambda X, f, i: _csc_value(X[0], X[1], X[2], f, i)
    return None


@overload(n_features, inline="always")
def _n_features(X):
    if _is_dense(X):
        return lambda X: X.shape[0]
    if _is_csc(X):
        return lambda X: X[3]
    return None


@overload(borrow_data, inline="always")
def _borrow_data(X):
    if _is_dense(X):
        return lambda X: borrow(X)
    if _is_csc(X):
        return lambda X: X
    return None


@overload(can_copy_local, inline="always")
def _can_copy_local(X):
    if _is_dense(X):
        return lambda X: True
    if _is_csc(X):
        return lambda X: False
    return None


@njit
def _copy_dense(X, idx, start, end, local_buf, gmap):
    """Copy the node ``idx[start:end]`` of the feature-major ``X`` into a ``(n_features, n)`` block and
    renumber its rows 0..n-1."""
    n = end - start
    n_feat = X.shape[0]
    block = local_buf[:n_feat * n].reshape((n_feat, n))
    for q in range(n):
        gmap[q] = idx[start + q]
    for f in range(n_feat):
        for q in range(n):
            block[f, q] = X[f, gmap[q]]
    for q in range(n):
        idx[start + q] = q
    return block


@overload(copy_local, inline="always")
def _copy_local(X, idx, start, end, local_buf, gmap):
    if _is_dense(X):
        return lambda X, idx, start, end, local_buf, gmap: _copy_dense(X, idx, start, end, local_buf, gmap)
    if _is_csc(X):
        # never called (can_copy_local is False); returns X so that the grower's variable keeps one type
        return lambda X, idx, start, end, local_buf, gmap: X
    return None
