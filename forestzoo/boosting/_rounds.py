"""One boosting round of each AdaBoost-family classifier, as plain functions.

Every function grows the round's tree(s) on the engine with the current
boosting weights as sample weights, routes the training rows to the leaves
(:meth:`Tree.apply`) and returns the updated weights.  They are kept apart
from the estimator so that each algorithm reads as its paper writes it.

Notation: ``yk`` holds class codes ``0..K-1``, ``w`` the boosting weights
(summing to one), ``lr`` the learning rate (shrinkage).
"""

import numpy as np

from .. import _libm as libm

#: Probabilities are clipped here before taking logs (SAMME.R).
PROBA_EPS = np.finfo(np.float64).eps
#: LogitBoost working responses are clipped to [-Z_MAX, Z_MAX] and its weights floored at
#: 2 x machine epsilon, as Friedman, Hastie & Tibshirani (2000, Sec. 4.4) advise.
Z_MAX = 4.0
W_FLOOR = 2.0 * np.finfo(np.float64).eps


def leaf_classes(tree):
    """Class predicted at every node: the argmax of its (weighted) class proportions."""
    return np.argmax(tree.values, axis=1)


def discrete_round(tree, X, yk, w, K, lr, algorithm, previous_weight_sum):
    """AdaBoost.M1 / SAMME after the tree is grown.

    Returns ``(alpha, err, new_w, stop)``; ``alpha`` is None when the tree
    must be discarded (its error is not better than chance).

    * ``err = sum_i w_i I(y_i != T(x_i)) / sum_i w_i`` (lecture slide, step 2b;
      ESL Algorithm 10.1);
    * M1: ``alpha = log((1 - err) / err)`` (Freund & Schapire 1997), usable
      while ``err < 1/2``;
    * SAMME: ``alpha = log((1 - err) / err) + log(K - 1)`` (Zhu, Zou, Rosset &
      Hastie 2009, Algorithm 2, Eq. (c)), usable while ``err < 1 - 1/K``;
    * ``w_i <- w_i exp(alpha I(y_i != T(x_i)))``, renormalised (step 2d).

    A tree with zero training error would get an infinite ``alpha``: it is
    kept with ``alpha = 1 + sum of the previous alphas`` -- more than all the
    other trees together, so it alone decides every vote, which is what an
    infinite weight means -- and boosting stops (``stop=True``).
    """
    miss = leaf_classes(tree)[tree.apply(X)] != yk
    total = w.sum()
    err = float(w[miss].sum() / total)
    if err <= 0.0:
        return 1.0 + previous_weight_sum, 0.0, w, True
    limit = 0.5 if algorithm == "M1" else 1.0 - 1.0 / K
    if err >= limit:
        return None, err, w, True
    alpha = libm.log((1.0 - err) / err)
    if algorithm != "M1":
        alpha += libm.log(K - 1.0)
    alpha *= lr
    new_w = w * libm.exp(alpha * miss)
    return float(alpha), err, new_w / new_w.sum(), False


def m2_round(tree, X, yk, Wm, lr, previous_weight_sum):
    """AdaBoost.M2 after the tree is grown: pseudo-loss, weight, mislabel-weight update.

    Freund & Schapire (1997), Sec. 4.2, as RUSBoost uses it (Seiffert et al.
    2010, Algorithm 1, steps 2d-2g).  ``Wm[i, y]`` are the mislabel weights
    (``Wm[i, y_i] = 0``); ``h = `` the tree's leaf class proportions.

    * ``D_i = W_i / sum W`` with ``W_i = sum_y Wm[i, y]``, ``q = Wm / W_i``;
    * ``eps = 1/2 sum_i D_i (1 - h(x_i, y_i) + sum_y q(i, y) h(x_i, y))``;
    * ``beta = eps / (1 - eps)``, tree weight ``log(1 / beta)``;
    * ``Wm[i, y] <- Wm[i, y] beta^((1 + h(x_i, y_i) - h(x_i, y)) / 2)``.

    Returns ``(alpha, eps, new_Wm, stop)``; ``alpha`` is None when
    ``eps >= 1/2`` (the tree is discarded).  A zero pseudo-loss is handled as
    in :func:`discrete_round`.
    """
    n = yk.shape[0]
    h = tree.values[tree.apply(X)]
    W = Wm.sum(axis=1)
    D = W / W.sum()
    q = Wm / np.where(W > 0, W, 1.0)[:, None]
    h_true = h[np.arange(n), yk]
    eps = float(0.5 * np.sum(D * (1.0 - h_true + (q * h).sum(axis=1))))
    if eps <= 0.0:
        return 1.0 + previous_weight_sum, 0.0, Wm, True
    if eps >= 0.5:
        return None, eps, Wm, True
    beta = eps / (1.0 - eps)
    new = Wm * beta ** (lr * 0.5 * (1.0 + h_true[:, None] - h))
    new[np.arange(n), yk] = 0.0
    return float(lr * libm.log(1.0 / beta)), eps, new / new.sum(), False


def real_leaf_scores(tree, K):
    """SAMME.R's ``h_k(x) / (K - 1) = log p_k(x) - mean_l log p_l(x)`` at every node.

    Zhu et al. (2009), Algorithm 4, step (b); ``p`` are the tree's weighted
    leaf class proportions, clipped at machine epsilon.
    """
    logp = libm.log(np.clip(tree.values, PROBA_EPS, None))
    return logp - logp.mean(axis=1, keepdims=True)


def real_round(tree, X, yk, w, lr):
    """SAMME.R weight update (Zhu et al. 2009, Algorithm 4, step (c)).

    ``w_i <- w_i exp(-lr (K-1)/K y_i^T log p(x_i))`` with the symmetric coding
    ``y_ik = 1`` for the true class and ``-1/(K-1)`` otherwise; this equals
    ``exp(-lr (log p_{y_i}(x_i) - mean_k log p_k(x_i)))``.  Returns
    ``(err, new_w)`` where ``err`` is the weighted error of the tree's argmax.
    """
    leaf = tree.apply(X)
    scores = real_leaf_scores(tree, tree.values.shape[1])
    new_w = w * libm.exp(-lr * scores[leaf, yk])
    miss = leaf_classes(tree)[leaf] != yk
    err = float(w[miss].sum() / w.sum())
    return err, new_w / new_w.sum()


def softmax(F, exp=libm.exp):
    """Row-wise ``exp(F) / sum exp(F)``, shifted by the row maximum for stability.

    ``exp`` is the C library's (:mod:`forestzoo._libm`), the same on every
    CPU; ``np.exp`` gives scikit-learn's arithmetic (its softmax calls numpy's).
    """
    Z = exp(F - F.max(axis=1, keepdims=True))
    return Z / Z.sum(axis=1, keepdims=True)


def logit_targets(P, yk, j):
    """LogitBoost working response and weights of class ``j``.

    Friedman, Hastie & Tibshirani (2000), Algorithm 3 (binary) and Algorithm 6
    (J classes), step 2(a)i: ``z = (y*_j - p_j) / (p_j (1 - p_j))`` and
    ``w = p_j (1 - p_j)``, with ``P = softmax(F)``; ``z`` clipped at
    :data:`Z_MAX` and ``w`` floored at :data:`W_FLOOR` (Sec. 4.4).
    """
    p = P[:, j]
    w = np.maximum(p * (1.0 - p), W_FLOOR)
    z = np.clip(((yk == j) - p) / w, -Z_MAX, Z_MAX)
    return z, w


def logit_update(F, f, lr):
    """``F <- F + lr * step`` for LogitBoost, in place.

    Binary (``f`` has one column, the trees of class 1): Algorithm 3 adds
    ``f / 2`` to ``F`` with ``p = e^F / (e^F + e^-F)``; stored here as the two
    scores ``(-F, F)`` so that ``p = softmax``.  J classes: Algorithm 6, step
    2(b): ``f_j <- (J-1)/J (f_j - mean_k f_k)``.
    """
    K = F.shape[1]
    if f.shape[1] == 1:
        F[:, 1] += lr * 0.5 * f[:, 0]
        F[:, 0] = -F[:, 1]
    else:
        F += lr * (K - 1.0) / K * (f - f.mean(axis=1, keepdims=True))
    return F


def gentle_targets(yk, j):
    """GentleBoost's +-1 response for class ``j`` against the rest."""
    return np.where(yk == j, 1.0, -1.0)
