"""Node models: the engine's seam for splits that a kernel cannot express.

An oblique forest (MPSVM, LDA, ridge, SVM, LS-SVM, logistic), a Haar tree or
any family that computes its split from the node's rows with Python-level
tools (LAPACK through scipy, scikit-learn solvers, its own Numba kernels)
hands the grower a :class:`NodeModel`.  The one grower of
:mod:`.grower` calls it, through ``numba.objmode``, for every node it is
about to split, and the model answers with a status:

* :data:`NODE_AXIS` -- no proposal; the grower runs its own split kernel;
* :data:`NODE_OBLIQUE` -- the split in ``out`` and the mask in ``go_left``;
* :data:`NODE_AXIS_SUBTREE` -- axis-aligned splits from this node down (the
  "-P" regularisation of MPSVM forests);
* :data:`NODE_LEAF` -- make the node a leaf (a family's stopping rule).

A proposal is a projection ``x -> sum_q weight_q * x[feature_q]`` compared
with a threshold: the model registers it with :meth:`NodeModel.add_projection`
and the fitted tree stores it in its oblique side arrays, so the one
predictor of :mod:`.tree` serves it.  The grower never sees ``X`` for such a
split: it partitions the node by ``go_left``, which the model fills.  Use
:func:`project` to compute the projection exactly as the predictor does
(float32 inputs, float64 weights, summed in feature order), so training rows
are routed at prediction time where the grower sent them.

A node model is called from the grower's thread with the GIL held (objmode);
its NumPy/LAPACK work releases the GIL as usual.  One model instance serves
one tree.
"""

import itertools
import threading
from contextlib import contextmanager

import numpy as np

from .._jit import njit
from .criteria import CRITERIA
from .splitters._common import add_sample, scan_sorted
from .splitters.exact import midpoint

NODE_AXIS = 0
NODE_OBLIQUE = 1
NODE_AXIS_SUBTREE = 2
NODE_LEAF = 3

# Fields of the ``out`` vector a model fills with an oblique proposal.
OUT_COST = 0  # W_left * imp_left + W_right * imp_right (the criterion of the tree)
OUT_THRESHOLD = 1  # go left when the projection <= threshold
OUT_MISSING_LEFT = 2  # 1.0 when a row with NaN in a projected feature goes left
OUT_OBLIQUE = 3  # id returned by add_projection
OUT_SIZE = 4

_REGISTRY = {}
_HANDLES = itertools.count()
_LOCK = threading.Lock()


@contextmanager
def registered(model):
    """Register ``model`` for one call of the grower; yields its integer handle."""
    with _LOCK:
        handle = next(_HANDLES) & 0x3FFFFFFF
        _REGISTRY[handle] = model
    try:
        yield handle
    finally:
        with _LOCK:
            _REGISTRY.pop(handle, None)


def dispatch(handle, rows, w, yk, yr, depth, total, go_left, out):
    """Called by the grower (object mode): forward to the registered model."""
    return int(_REGISTRY[handle].split_node(rows, w, yk, yr, depth, total, go_left, out))


class NodeModel:
    """Base class of node models; subclasses implement :meth:`split_node`.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "squared_error"}
        The tree's criterion; :meth:`best_threshold` scores with it.
    min_samples_leaf : int
    min_weight_leaf : float
        The tree's leaf-size limits; :meth:`best_threshold` honours them.
    """

    def __init__(self, criterion="gini", min_samples_leaf=1, min_weight_leaf=0.0):
        self.criterion = criterion
        self.criterion_code = CRITERIA[criterion]
        self.min_samples_leaf = int(min_samples_leaf)
        self.min_weight_leaf = float(min_weight_leaf)
        self._features = []
        self._weights = []

    def split_node(self, rows, w, yk, yr, depth, total, go_left, out):
        """Propose a split for one node; return a ``NODE_*`` status.

        Parameters
        ----------
        rows : uint32 array, the training rows of the node (node order).
        w, yk, yr : the node's weights, class codes and targets, same order.
        depth : int, depth of the node.
        total : float64 statistics of the node (layout of :mod:`.criteria`).
        go_left : uint8 array to fill (1 = left) when returning an oblique split.
        out : float64 array of size :data:`OUT_SIZE` to fill (``OUT_*``).
        """
        return NODE_AXIS

    # -- oblique side arrays ----------------------------------------------
    def add_projection(self, features, weights):
        """Record a projection; returns its id for ``out[OUT_OBLIQUE]``."""
        self._features.append(np.asarray(features, dtype=np.int32))
        self._weights.append(np.asarray(weights, dtype=np.float64))
        return len(self._features) - 1

    def side_arrays(self):
        """``(obl_ptr, obl_feature, obl_weight)`` of the recorded projections (CSR)."""
        ptr = np.zeros(len(self._features) + 1, dtype=np.int64)
        np.cumsum([f.size for f in self._features], out=ptr[1:])
        feat = np.concatenate(self._features) if self._features else np.zeros(0, np.int32)
        wts = np.concatenate(self._weights) if self._weights else np.zeros(0, np.float64)
        return ptr, feat, wts

    # -- helpers for subclasses ---------------------------------------------
    def best_threshold(self, proj, w, yk, yr, total):
        """Best threshold on a projection of the node's rows under the tree's criterion.

        Returns ``(cost, threshold, missing_left)``; ``cost`` is ``inf`` when no
        threshold gives two children that respect the leaf-size limits.  NaN
        projections are tried on both sides.
        """
        return best_threshold(np.ascontiguousarray(proj, dtype=np.float64), w, yk, yr, total,
                              self.criterion_code, self.min_samples_leaf, self.min_weight_leaf)

    def propose(self, features, weights, X, rows, w, yk, yr, total, go_left, out):
        """Project the node on ``weights``, find its best threshold and fill ``out``/``go_left``.

        Returns the cost (``inf`` when the projection cannot split the node; then
        nothing is recorded).  The projection is recorded only when it is used.
        """
        features = np.ascontiguousarray(features, dtype=np.int64)
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        proj = np.empty(rows.shape[0])
        project(X, rows, features, weights, proj)
        cost, thr, ml = self.best_threshold(proj, w, yk, yr, total)
        if cost == np.inf:
            return cost
        out[OUT_COST] = cost
        out[OUT_THRESHOLD] = thr
        out[OUT_MISSING_LEFT] = ml
        out[OUT_OBLIQUE] = self.add_projection(features, weights)
        fill_go_left(proj, thr, ml, go_left)
        return cost


@njit
def project(X, rows, features, weights, out):
    """``out[i] = sum_q weights[q] * X[rows[i], features[q]]``, as the predictor computes it.

    A NaN in a projected feature gives NaN.
    """
    for i in range(rows.shape[0]):
        r = rows[i]
        s = 0.0
        for q in range(features.shape[0]):
            s += weights[q] * X[r, features[q]]
        out[i] = s


@njit
def fill_go_left(proj, threshold, missing_left, go_left):
    for i in range(proj.shape[0]):
        v = proj[i]
        if v != v:
            go_left[i] = 1 if missing_left > 0.5 else 0
        else:
            go_left[i] = 1 if v <= threshold else 0


@njit
def best_threshold(proj, w, yk, yr, total, criterion, min_samples_leaf, min_weight_leaf):
    n = proj.shape[0]
    keys = np.empty(n)
    pos = np.empty(n, np.int64)
    miss = np.zeros(total.shape[0])
    m = np.int64(0)  # not a literal: scan_sorted is then compiled for int64 alone (see splitters.exact)
    for i in range(n):
        v = proj[i]
        if v != v:
            add_sample(miss, 1.0, w[i], yk[i], yr[i], criterion)
        else:
            keys[m] = v
            pos[m] = i
            m += 1
    if m == 0:
        return np.inf, 0.0, 0.0
    order = np.argsort(keys[:m], kind="mergesort")
    sk = keys[:m][order]
    sp = pos[:m][order]
    if not (sk[m - 1] > sk[0] or miss[0] > 0.0):
        return np.inf, 0.0, 0.0
    cum = np.empty(total.shape[0])
    tmp = np.empty(total.shape[0])
    cost, p, ml = scan_sorted(sk, sp, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp)
    if cost == np.inf:
        return np.inf, 0.0, 0.0
    thr = np.inf if p == m - 1 else midpoint(sk[p], sk[p + 1])
    return cost, thr, ml
