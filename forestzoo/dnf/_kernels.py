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

import numpy as np

from .._engine.api import rng_randint
from .._atomics import atomic_cas, atomic_load, atomic_store
from .._jit import njit

#: float64 entries of one (rows x units) scratch block; bounds the memory of a chunk
_BLOCK_ENTRIES = 1 << 21
#: A mini-batch's gradient is the sum of this many parts, each over a contiguous share of
#: the batch's rows, added in order: the parts can run on as many threads, and the sum is
#: the same whatever the number of threads.  (The hand-over to the helper thread, batch_helper,
#: is written for two parts.)
BATCH_PARTS = 2


@njit(inline="always")
def _unit_probs(Z, b, hard, lit):
    """The literals of every split unit for row ``b``: ``lit[n + k] = f_k`` (Eq. 4), ``lit[k] = 1 - f_k``.

    ``n`` is the number of units, so the literal a child takes from its
    parent ``p`` is ``lit[right * n + p]`` (``right`` = 1 on the ``f_p``
    side): no branch on the side in the tree walks.  Both literals come
    from one ``exp(-|z|)``, so neither loses precision when the sigmoid
    saturates.  The exponentials are taken in a loop of their own and the
    sign is applied by arithmetic, not branches (the sign of ``z`` is what a
    branch predictor cannot guess).
    ``hard``: the indicator of Eq. (1) instead of the sigmoid.
    """
    n = Z.shape[1]
    if hard:
        for u in range(n):
            f = 1.0 if Z[b, u] > 0.0 else 0.0
            lit[n + u] = f
            lit[u] = 1.0 - f
        return
    for u in range(n):
        lit[u] = np.exp(-abs(Z[b, u]))
    for u in range(n):
        e = lit[u]
        big = 1.0 / (1.0 + e)
        small = e * big
        # m * a + (1 - m) * b with m in {0, 1} is exactly a or b (a, b finite) and, unlike a
        # conditional, lets the loop be vectorised
        m = 1.0 if Z[b, u] >= 0.0 else 0.0
        lit[n + u] = m * big + (1.0 - m) * small
        lit[u] = m * small + (1.0 - m) * (1.0 - small)


@njit(inline="always")
def _reach(u0, u1, unit_parent, unit_right, lit, reach):
    """Product of the literals from the root down to each unit ``u0 <= u < u1`` (its own split excluded)."""
    n = reach.shape[0]
    for u in range(u0, u1):
        p = unit_parent[u]
        q = max(p, 0)
        below = reach[q] * lit[unit_right[u] * n + q]
        reach[u] = below if p >= 0 else 1.0


@njit(inline="always")
def _term(i, term_parent, term_right, lit, reach):
    """``g_i`` of Eq. (5): the product of the literals on the path of leaf ``i``."""
    p = term_parent[i]
    if p < 0:
        return 1.0  # the tree is a single leaf: an empty conjunction
    return reach[p] * lit[term_right[i] * reach.shape[0] + p]


@njit
def dnf_scores(Z, unit_ptr, unit_parent, unit_right, term_ptr, term_parent, term_right, hard, out):
    """``h^j`` of every row of ``Z`` (rows x units) and function ``j``, Eq. (5) / (12)."""
    n_funcs = term_ptr.shape[0] - 1
    n_units = Z.shape[1]
    lit = np.empty(2 * n_units)
    reach = np.empty(n_units)
    for b in range(Z.shape[0]):
        _unit_probs(Z, b, hard, lit)
        for j in range(n_funcs):
            _reach(unit_ptr[j], unit_ptr[j + 1], unit_parent, unit_right, lit, reach)
            prod_not = 1.0
            for i in range(term_ptr[j], term_ptr[j + 1]):
                prod_not *= 1.0 - _term(i, term_parent, term_right, lit, reach)
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
    lit = np.empty(2 * n_units)
    reach = np.empty(n_units)
    # subtree sums of a_l: sums[k] over the leaves left of unit k, sums[n_units + k] over those right of it
    sums = np.empty(2 * n_units)
    for b in range(Z.shape[0]):
        _unit_probs(Z, b, False, lit)
        for j in range(n_funcs):
            u0 = unit_ptr[j]
            u1 = unit_ptr[j + 1]
            t0 = term_ptr[j]
            t1 = term_ptr[j + 1]
            _reach(u0, u1, unit_parent, unit_right, lit, reach)
            prod = 1.0
            for i in range(t0, t1):
                gi = _term(i, term_parent, term_right, lit, reach)
                g[i - t0] = gi
                prefix[i - t0] = prod
                prod *= 1.0 - gi
            y = 1.0 if targets[b] == func_class[j] else 0.0
            r = y - (1.0 - prod)
            loss[j] += sw[b] * r * r
            dE_dh = -2.0 * sw[b] * r  # Appendix A
            if dE_dh == 0.0:
                delta[b, u0:u1] = 0.0
                continue
            sums[u0:u1] = 0.0
            sums[n_units + u0:n_units + u1] = 0.0
            suffix = 1.0
            for i in range(t1 - 1, t0 - 1, -1):
                gi = g[i - t0]
                # a_l = dE/dh prod_{r != l} (1 - g_r) g_l, the common factor of Eq. (8)
                a = dE_dh * prefix[i - t0] * suffix * gi
                suffix *= 1.0 - gi
                p = term_parent[i]
                if p >= 0:
                    sums[term_right[i] * n_units + p] += a
            for u in range(u1 - 1, u0 - 1, -1):  # children before parents
                left = sums[u]
                right = sums[n_units + u]
                # Eq. (8): (1 - f_k) for k in R_l, -f_k for k in L_l
                delta[b, u] = right * lit[u] - left * lit[n_units + u]
                p = unit_parent[u]
                if p >= 0:
                    sums[unit_right[u] * n_units + p] += right + left


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
        dnf_scores(Z, unit_ptr, unit_parent, unit_right, term_ptr, term_parent, term_right, np.bool_(False), hb)
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


# Counters a mini-batch is handed over with (``sync``, int64): train_dnf posts the batch's rows and a new
# generation number; part 1 goes to whichever of it and the helper thread first moves CLAIM from the
# previous generation to this one, so train_dnf never waits for a part nobody has taken.
_GEN, _B0, _B1, _CLAIM, _DONE, _STOP, _READY = range(7)
SYNC_SIZE = 7
STOP = _STOP  #: set ``sync[STOP]`` to 1 (atomically) to make a :func:`batch_helper` return


@njit
def batch_helper(sync, Xa, targets, sw, order, weights, unit_ptr, unit_parent, unit_right, term_ptr, term_parent,
                 term_right, func_class, chunk, grads, losses, sws):
    """The helper thread of :func:`train_dnf`: part 1 of every mini-batch it claims, until ``sync[STOP]``.

    It sets ``sync[READY]`` when it starts and ``sync[DONE]`` to the
    generation of each batch it completes.
    It spins between batches (a batch takes about a millisecond; waking a
    sleeping thread would cost a good share of that).
    """
    seen = atomic_load(sync, _GEN)
    atomic_store(sync, _READY, 1)
    while atomic_load(sync, _STOP) == 0:
        g = atomic_load(sync, _GEN)
        if g == seen:
            continue
        seen = g
        if atomic_cas(sync, _CLAIM, g - 1, g):
            # the parts as int64, not literals: Numba would compile batch_parts once per literal value
            batch_parts(Xa, targets, sw, order, sync[_B0], sync[_B1], weights, unit_ptr, unit_parent, unit_right,
                        term_ptr, term_parent, term_right, func_class, chunk, grads, losses, sws, np.int64(1),
                        np.int64(2))
            atomic_store(sync, _DONE, g)


def train_scratch(n_train, weights, n_funcs):
    """``(order, grads, losses, sws)``: the arrays :func:`train_dnf` and its helper share."""
    return (np.empty(n_train, np.int64), np.empty((BATCH_PARTS,) + weights.shape), np.empty((BATCH_PARTS, n_funcs)),
            np.empty(BATCH_PARTS))


@njit
def train_dnf(Xa, targets, sw, val_sw, train_rows, val_rows, weights, unit_ptr, unit_parent, unit_right, term_ptr,
              term_parent, term_right, func_class, learning_rate, momentum, batch_size, n_epochs, n_iter_no_change,
              state, chunk, best_weights, best_loss, best_epoch, loss_curve, sync, order, grads, losses, sws):
    """Mini-batch gradient descent on Eq. (7) for every function of one tree.

    The functions' losses are independent (each owns its weight rows), so
    one pass trains all of them, each as if alone (Algorithm 2).  ``sw``
    weights the training rows (bootstrap multiplicities included),
    ``val_sw`` the validation rows.  With
    validation rows, each function keeps the weights of its best epoch
    (validation loss) and training stops once every function has gone
    ``n_iter_no_change`` epochs without improving.

    ``state`` is the shuffling RNG (``forestzoo._engine.api.make_state``).
    ``weights`` is updated in place (final iterate); ``best_weights``,
    ``best_loss``, ``best_epoch`` receive the selected iterate (epoch 0 = the
    converted tree); ``loss_curve[e]`` is the mean training loss of epoch ``e``.
    A mini-batch's gradient is summed from :data:`BATCH_PARTS` parts.  With
    a :func:`batch_helper` running on ``sync`` (``sync`` of length
    :data:`SYNC_SIZE`; an empty ``sync`` means no helper), part 1 of every
    batch of at least 32 rows is offered to it; the weights do not depend on
    who computes it.  ``sync[STOP]`` is set before returning.  ``order``,
    ``grads``, ``losses`` and ``sws`` are the scratch arrays it shares with the
    helper (:func:`train_scratch`).  Returns the number of epochs run.
    """
    n_funcs = term_ptr.shape[0] - 1
    n_units, n_cols = weights.shape
    order[:] = train_rows
    velocity = np.zeros_like(weights)
    grad = np.empty_like(weights)
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
    helped = sync.shape[0] == SYNC_SIZE
    generation = sync[_GEN] if helped else 0
    for epoch in range(1, n_epochs + 1):
        for p in range(n_train - 1, 0, -1):  # Fisher-Yates shuffle
            q = rng_randint(state, p + 1)
            order[p], order[q] = order[q], order[p]
        epoch_loss = 0.0
        for b0 in range(0, n_train, batch_size):
            b1 = min(b0 + batch_size, n_train)
            if helped and b1 - b0 >= 32:
                generation += 1
                sync[_B0] = b0
                sync[_B1] = b1
                atomic_store(sync, _GEN, generation)  # publishes the rows and the current weights
                batch_parts(Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                            term_parent, term_right, func_class, chunk, grads, losses, sws, np.int64(0), np.int64(1))
                if atomic_cas(sync, _CLAIM, generation - 1, generation):  # the helper has not taken part 1
                    batch_parts(Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                                term_parent, term_right, func_class, chunk, grads, losses, sws, np.int64(1),
                                np.int64(2))
                else:
                    while atomic_load(sync, _DONE) != generation:
                        pass
            else:
                batch_parts(Xa, targets, sw, order, b0, b1, weights, unit_ptr, unit_parent, unit_right, term_ptr,
                            term_parent, term_right, func_class, chunk, grads, losses, sws, np.int64(0),
                            np.int64(BATCH_PARTS))
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
    if helped:
        atomic_store(sync, _STOP, 1)
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
