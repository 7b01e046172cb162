"""Compiled evaluation and gradient descent of disjunctive normal forms.

Notation of Seyedhosseini & Tasdizen (2015): ``f_k = sigmoid(w_k . [x, 1])``
(Eq. 4), a term ``g_i = prod_{k in R_i} f_k prod_{k in L_i} (1 - f_k)`` and a
function ``h = 1 - prod_i (1 - g_i)`` (Eq. 5).  The linear part
``Z = [X, 1] W^T`` of a block of rows is one matrix product (BLAS).

The kernels walk each function as the tree it came from: the product of
the literals above a split is its parent's product times one factor, so all
terms cost ``O(n_units + n_terms)`` per row instead of ``O(sum of path
lengths)``.  The gradient of Eq. (8) takes the same route backwards: with
``a_l = dE/dh prod_{r != l} (1 - g_r) g_l``,

    dE/dz_k = (sum of a_l over the leaves right of k) (1 - f_k)
            - (sum of a_l over the leaves left of k) f_k,

and those subtree sums are accumulated child to parent.
``prod_{r != l} (1 - g_r)`` comes from prefix and suffix products, never
from a division by ``1 - g_l`` (0 when a term is saturated).
"""

import numba
import numpy as np

from .._engine.rng import rng_randint
from .._jit import njit
from .._threads import run_blocks

#: float64 entries of one (rows x units) scratch block; bounds the memory of a chunk
_BLOCK_ENTRIES = 1 << 21
#: A mini-batch's gradient is the sum of this many parts, each over a contiguous share of
#: the batch's rows, added in order: the parts can run on as many threads, and the sum is
#: the same whatever the number of threads.
BATCH_PARTS = 2


@njit(inline="always")
def _unit_probs(Z, b, hard, fpos, fneg):
    """``f_k`` (Eq. 4) and ``1 - f_k`` of every split unit for row ``b``.

    Both come from one ``exp(-|z|)``, so neither loses precision when the
    sigmoid saturates; every literal of the unit then reuses them.
    ``hard``: the indicator of Eq. (1) instead of the sigmoid.
    """
    for u in range(Z.shape[1]):
        z = Z[b, u]
        if hard:
            fpos[u] = 1.0 if z > 0.0 else 0.0
        else:
            e = np.exp(-abs(z))
            big = 1.0 / (1.0 + e)
            if z >= 0.0:
                fpos[u] = big
                fneg[u] = e * big
                continue
            fpos[u] = e * big
        fneg[u] = 1.0 - fpos[u]


@njit(inline="always")
def _reach(u0, u1, unit_parent, unit_right, fpos, fneg, reach):
    """Product of the literals from the root down to each unit ``u0 <= u < u1`` (its own split excluded)."""
    for u in range(u0, u1):
        p = unit_parent[u]
        if p < 0:
            reach[u] = 1.0
        else:
            reach[u] = reach[p] * (fpos[p] if unit_right[u] == 1 else fneg[p])


@njit(inline="always")
def _term(i, term_parent, term_right, fpos, fneg, reach):
    """``g_i`` of Eq. (5): the product of the literals on the path of leaf ``i``."""
    p = term_parent[i]
    if p < 0:
        return 1.0  # the tree is a single leaf: an empty conjunction
    return reach[p] * (fpos[p] if term_right[i] == 1 else fneg[p])


@njit
def dnf_scores(Z, unit_ptr, unit_parent, unit_right, term_ptr, term_parent, term_right, hard, out):
    """``h^j`` of every row of ``Z`` (rows x units) and function ``j``, Eq. (5) / (12)."""
    n_funcs = term_ptr.shape[0] - 1
    n_units = Z.shape[1]
    fpos = np.empty(n_units)
    fneg = np.empty(n_units)
    reach = np.empty(n_units)
    for b in range(Z.shape[0]):
        _unit_probs(Z, b, hard, fpos, fneg)
        for j in range(n_funcs):
            _reach(unit_ptr[j], unit_ptr[j + 1], unit_parent, unit_right, fpos, fneg, reach)
            prod_not = 1.0
            for i in range(term_ptr[j], term_ptr[j + 1]):
                prod_not *= 1.0 - _term(i, term_parent, term_right, fpos, fneg, reach)
            out[b, j] = 1.0 - prod_not


@njit
def dnf_delta(Z, targets, sw, unit_ptr, unit_parent, unit_right, term_ptr, term_parent, term_right, func_class,
              delta, loss):
    """Backward pass of the squared error, Eq. (7), for a block of rows.

    Writes ``delta[b, k] = dE_b / d(w_k . [x_b, 1])``, so that
    ``dE / dW = delta^T [X, 1]`` is Eq. (8) summed over the block; adds
    ``sum_b sw_b (y_b - h^j(x_b))^2`` to ``loss[j]``.  ``targets`` holds
    class indices: function ``j`` has target 1 on rows of class
    ``func_class[j]`` and 0 elsewhere.
    """
    n_funcs = term_ptr.shape[0] - 1
    n_units = Z.shape[1]
    max_terms = 0
    for j in range(n_funcs):
        max_terms = max(max_terms, term_ptr[j + 1] - term_ptr[j])
    g = np.empty(max_terms)
    prefix = np.empty(max_terms)
    fpos = np.empty(n_units)
    fneg = np.empty(n_units)
    reach = np.empty(n_units)
    s_right = np.empty(n_units)
    s_left = np.empty(n_units)
    for b in range(Z.shape[0]):
        _unit_probs(Z, b, False, fpos, fneg)
        for j in range(n_funcs):
            u0 = unit_ptr[j]
            u1 = unit_ptr[j + 1]
            t0 = term_ptr[j]
            t1 = term_ptr[j + 1]
            _reach(u0, u1, unit_parent, unit_right, fpos, fneg, reach)
            prod = 1.0
            for i in range(t0, t1):
                gi = _term(i, term_parent, term_right, fpos, fneg, reach)
                g[i - t0] = gi
                prefix[i - t0] = prod
                prod *= 1.0 - gi
            y = 1.0 if targets[b] == func_class[j] else 0.0
            r = y - (1.0 - prod)
            loss[j] += sw[b] * r * r
            dE_dh = -2.0 * sw[b] * r  # Appendix A
            for u in range(u0, u1):
                s_right[u] = 0.0
                s_left[u] = 0.0
                delta[b, u] = 0.0
            if dE_dh == 0.0:
                continue
            suffix = 1.0
            for i in range(t1 - 1, t0 - 1, -1):
                gi = g[i - t0]
                # a_l = dE/dh prod_{r != l} (1 - g_r) g_l, the common factor of Eq. (8)
                a = dE_dh * prefix[i - t0] * suffix * gi
                suffix *= 1.0 - gi
                p = term_parent[i]
                if p >= 0:
                    if term_right[i] == 1:
                        s_right[p] += a
                    else:
                        s_left[p] += a
            for u in range(u1 - 1, u0 - 1, -1):  # children before parents
                # Eq. (8): (1 - f_k) for k in R_l, -f_k for k in L_l
                delta[b, u] = s_right[u] * fneg[u] - s_left[u] * fpos[u]
                p = unit_parent[u]
                if p >= 0:
                    if unit_right[u] == 1:
                        s_right[p] += s_right[u] + s_left[u]
                    else:
                        s_left[p] += s_right[u] + s_left[u]


def block_rows(n_units):
    """Rows per scratch block so that a (rows x units) float64 block stays small."""
    return int(max(16, min(1024, _BLOCK_ENTRIES // max(n_units, 1))))


@njit
def _validation_loss(Xa, targets, sw, rows, weights, unit_ptr, unit_parent, unit_right, term_ptr, term_parent,
                     term_right, func_class, chunk, out):
    """Weighted mean squared error of every function on ``rows``."""
    n_funcs = term_ptr.shape[0] - 1
    out[:] = 0.0
    total = 0.0
    h = np.empty((chunk, n_funcs))
    for start in range(0, rows.shape[0], chunk):
        idx = rows[start:start + chunk]
        Z = np.dot(Xa[idx], weights.T)
        hb = h[: idx.shape[0]]
        dnf_scores(Z, unit_ptr, unit_parent, unit_right, term_ptr, term_parent, term_right, False, hb)
        for b in range(idx.shape[0]):
            w = sw[idx[b]]
            total += w
            for j in range(n_funcs):
                y = 1.0 if targets[idx[b]] == func_class[j] else 0.0
                out[j] += w * (y - hb[b, j]) ** 2
    if total > 0.0:
        out /= total


@njit
def batch_parts(Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr, term_parent,
                term_right, func_class, chunk, grads, losses, sws, k_lo, k_hi):
    """Gradient parts ``k_lo .. k_hi - 1`` of the mini-batch ``order[b0:b1]``.

    Part ``k`` covers the rows ``order[b0 + (b1 - b0) k / K : b0 + (b1 - b0) (k + 1) / K]``
    (``K = grads.shape[0]``) and receives Eq. (8) summed over them in ``grads[k]``,
    their squared errors per function in ``losses[k]`` and their weight in ``sws[k]``.
    """
    n_parts = grads.shape[0]
    for k in range(k_lo, k_hi):
        r0 = b0 + (b1 - b0) * k // n_parts
        r1 = b0 + (b1 - b0) * (k + 1) // n_parts
        grads[k] = 0.0
        losses[k] = 0.0
        sws[k] = 0.0
        for c0 in range(r0, r1, chunk):
            idx = order[c0:min(c0 + chunk, r1)]
            Xb = Xa[idx]
            Z = np.dot(Xb, weights.T)
            delta = np.empty_like(Z)
            dnf_delta(Z, targets[idx], sw[idx], unit_ptr, unit_parent, unit_right, term_ptr, term_parent,
                      term_right, func_class, delta, losses[k])
            grads[k] += np.dot(delta.T, Xb)
            for b in range(idx.shape[0]):
                sws[k] += sw[idx[b]]


def _batch_parts_in_threads(n_threads, *args):
    run_blocks(batch_parts, BATCH_PARTS, n_threads, *args)


@njit
def _threaded_batch(n_threads, Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                    term_parent, term_right, func_class, chunk, grads, losses, sws):
    """:func:`batch_parts` of every part on ``n_threads`` threads (Python's, through ``objmode``)."""
    with numba.objmode():
        _batch_parts_in_threads(n_threads, Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right,
                                term_ptr, term_parent, term_right, func_class, chunk, grads, losses, sws)


@njit
def train_dnf(Xa, targets, sw, val_sw, train_rows, val_rows, weights, unit_ptr, unit_parent, unit_right, term_ptr,
              term_parent, term_right, func_class, learning_rate, momentum, batch_size, n_epochs, n_iter_no_change,
              state, chunk, best_weights, best_loss, best_epoch, loss_curve, n_threads):
    """Mini-batch gradient descent on Eq. (7) for every function of one tree.

    The functions' losses are independent (each owns its weight rows), so
    one pass trains all of them, each as if alone (Algorithm 2).  ``sw``
    weights the training rows (bootstrap multiplicities included),
    ``val_sw`` the validation rows.  With
    validation rows, each function keeps the weights of its best epoch
    (validation loss) and training stops once every function has gone
    ``n_iter_no_change`` epochs without improving.

    ``state`` is the shuffling RNG (``forestzoo._engine.rng.make_state``).
    ``weights`` is updated in place (final iterate); ``best_weights``,
    ``best_loss``, ``best_epoch`` receive the selected iterate (epoch 0 = the
    converted tree); ``loss_curve[e]`` is the mean training loss of epoch ``e``.
    A mini-batch's gradient is summed from :data:`BATCH_PARTS` parts; with
    ``n_threads > 1`` the parts of batches of at least 32 rows run on threads
    (the weights do not depend on it).  Returns the number of epochs run.
    """
    n_funcs = term_ptr.shape[0] - 1
    n_units, n_cols = weights.shape
    order = train_rows.copy()
    velocity = np.zeros_like(weights)
    grad = np.empty_like(weights)
    grads = np.empty((BATCH_PARTS,) + weights.shape)
    losses = np.empty((BATCH_PARTS, n_funcs))
    sws = np.empty(BATCH_PARTS)
    batch_loss = np.zeros(n_funcs)
    val_loss = np.empty(n_funcs)
    stale = np.zeros(n_funcs, dtype=np.int64)
    has_val = val_rows.shape[0] > 0
    best_weights[:] = weights
    best_epoch[:] = 0
    if has_val:
        _validation_loss(Xa, targets, val_sw, val_rows, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                         term_parent, term_right, func_class, chunk, best_loss)
    n_train = order.shape[0]
    total_sw = 0.0
    for p in range(n_train):
        total_sw += sw[order[p]]
    epochs_run = 0
    for epoch in range(1, n_epochs + 1):
        for p in range(n_train - 1, 0, -1):  # Fisher-Yates shuffle
            q = rng_randint(state, p + 1)
            order[p], order[q] = order[q], order[p]
        epoch_loss = 0.0
        for b0 in range(0, n_train, batch_size):
            b1 = min(b0 + batch_size, n_train)
            if n_threads > 1 and b1 - b0 >= 32:
                _threaded_batch(n_threads, Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right,
                                term_ptr, term_parent, term_right, func_class, chunk, grads, losses, sws)
            else:
                batch_parts(Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                            term_parent, term_right, func_class, chunk, grads, losses, sws, 0, BATCH_PARTS)
            grad[:] = grads[0]
            batch_loss[:] = losses[0]
            batch_sw = sws[0]
            for k in range(1, BATCH_PARTS):
                grad += grads[k]
                batch_loss += losses[k]
                batch_sw += sws[k]
            epoch_loss += batch_loss.sum()
            if batch_sw <= 0.0:
                continue
            scale = learning_rate / batch_sw
            for u in range(n_units):
                for c in range(n_cols):
                    velocity[u, c] = momentum * velocity[u, c] - scale * grad[u, c]
                    weights[u, c] += velocity[u, c]
        loss_curve[epoch - 1] = epoch_loss / total_sw if total_sw > 0.0 else 0.0
        epochs_run = epoch
        if not has_val:
            continue
        _validation_loss(Xa, targets, val_sw, val_rows, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                         term_parent, term_right, func_class, chunk, val_loss)
        done = True
        for j in range(n_funcs):
            if val_loss[j] < best_loss[j]:
                best_loss[j] = val_loss[j]
                best_epoch[j] = epoch
                stale[j] = 0
                for u in range(unit_ptr[j], unit_ptr[j + 1]):
                    best_weights[u] = weights[u]
            else:
                stale[j] += 1
            if stale[j] < n_iter_no_change:
                done = False
        if done:
            break
    if not has_val:
        best_weights[:] = weights
        best_epoch[:] = epochs_run
    return epochs_run


def evaluate(dnf, Xa, hard=False):
    """``h^j(x)`` of every row of ``Xa`` (``[X, 1]``, float64) for every function of ``dnf``."""
    n = Xa.shape[0]
    out = np.empty((n, dnf.n_funcs))
    chunk = block_rows(dnf.n_units)
    for start in range(0, n, chunk):
        Z = Xa[start:start + chunk] @ dnf.weights.T
        dnf_scores(np.ascontiguousarray(Z), dnf.unit_ptr, dnf.unit_parent, dnf.unit_right, dnf.term_ptr,
                   dnf.term_parent, dnf.term_right, hard, out[start:start + chunk])
    return out
