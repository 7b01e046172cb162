"""Losses of gradient tree boosting: start value, negative gradient and leaf values.

Each loss follows Friedman (2001) and ESL (Hastie, Tibshirani & Friedman
2009, Table 10.2 and Algorithms 10.3 / 10.4):

* ``init_raw``: ``f_0 = argmin_gamma sum_i w_i L(y_i, gamma)`` (Algorithm 10.3, step 1);
* ``gradients``: the negative gradient ``r_i`` (step 2a), a curvature
  ``h_i`` (the split weight of Newton-style trees) and the loss of the
  current ``F`` (what ``train_score_`` records);
* ``leaf_values``: ``gamma_j = argmin_gamma sum_{i in R_j} w_i L(y_i, F_i + gamma)``
  (step 2c), exactly or by the one Newton step ESL gives.

Raw scores ``F`` are ``(n_samples, n_trees_per_round)``: one column for
regression and binary classification (the log-odds), K for K classes.
Weights ``w`` are sample weights times the round's subsample mask, so leaf
values use the in-bag rows only (Friedman 2002).
"""

import math

import numpy as np

from .. import _libm as libm
from .._jit import njit
from .._threads import run_blocks
from ._base import grouped_weighted_median, weighted_quantile
from ._rounds import softmax

#: A leaf whose Newton denominator is below this gets the value 0.
_TINY = 1e-150


def _ratio(num, den):
    out = np.zeros_like(num)
    ok = np.abs(den) > _TINY
    out[ok] = num[ok] / den[ok]
    return out


class SquaredError:
    """``L = (y - F)^2 / 2``: ``r = y - F``, leaf value = weighted mean residual."""

    name = "squared_error"
    newton = False

    def init_raw(self, y, w):
        return np.array([np.average(y, weights=w)])

    def gradients(self, y, F, w):
        r = (y - F[:, 0])[:, None]
        return r, None, float(0.5 * np.sum(w * r[:, 0] ** 2) / w.sum())

    def leaf_values(self, k, leaf, n_nodes, y, F, r, w):
        return _ratio(np.bincount(leaf, w * r[:, 0], n_nodes), np.bincount(leaf, w, n_nodes))

    def loss(self, y, F, w):
        return float(0.5 * np.sum(w * (y - F[:, 0]) ** 2) / w.sum())


class AbsoluteError:
    """``L = |y - F|``: ``r = sign(y - F)``, leaf value = weighted median residual (ESL Table 10.2)."""

    name = "absolute_error"
    newton = False

    def init_raw(self, y, w):
        return np.array([weighted_quantile(y, w, 0.5)])

    def gradients(self, y, F, w):
        d = y - F[:, 0]
        return np.sign(d)[:, None], None, float(np.sum(w * np.abs(d)) / w.sum())

    def leaf_values(self, k, leaf, n_nodes, y, F, r, w):
        rows = w > 0
        return grouped_weighted_median(leaf[rows], (y - F[:, 0])[rows], w[rows], n_nodes)

    def loss(self, y, F, w):
        return float(np.sum(w * np.abs(y - F[:, 0])) / w.sum())


class HuberLoss:
    """Huber's loss with ``delta`` the ``alpha``-quantile of ``|y - F|`` (Friedman 2001, Sec. 4.4).

    ``r = y - F`` clipped to ``[-delta, delta]``; leaf value (Friedman 2001,
    Algorithm 4, M-TreeBoost): ``gamma = m + mean_i sign(d_i) min(delta, |d_i|)``
    with ``m`` the leaf's weighted median residual and ``d_i = y_i - F_i - m``.
    """

    name = "huber"
    newton = False

    def __init__(self, alpha):
        self.alpha = alpha
        self.delta = None

    def init_raw(self, y, w):
        return np.array([weighted_quantile(y, w, 0.5)])

    def gradients(self, y, F, w):
        d = y - F[:, 0]
        rows = w > 0
        self.delta = weighted_quantile(np.abs(d[rows]), w[rows], self.alpha)
        return np.clip(d, -self.delta, self.delta)[:, None], None, self._loss(d, w)

    def leaf_values(self, k, leaf, n_nodes, y, F, r, w):
        rows = w > 0
        leaf, d, w = leaf[rows], (y - F[:, 0])[rows], w[rows]
        med = grouped_weighted_median(leaf, d, w, n_nodes)
        dev = d - med[leaf]
        step = np.sign(dev) * np.minimum(self.delta, np.abs(dev))
        return med + _ratio(np.bincount(leaf, w * step, n_nodes), np.bincount(leaf, w, n_nodes))

    def _loss(self, d, w):
        delta = self.delta
        a = np.abs(d)
        per_row = np.where(a <= delta, 0.5 * d**2, delta * (a - 0.5 * delta))
        return float(np.sum(w * per_row) / w.sum())

    def loss(self, y, F, w):
        return self._loss(y - F[:, 0], w)


@njit
def _binomial_gradients(y, f, w, r, h, log_p, lo, hi):
    """Rows ``lo .. hi - 1``: ``p = expit(f)``, ``r = y - p``, ``h = p (1 - p)``, ``log_p = w log p(y)``.

    One pass instead of numpy's six temporaries; ``p(y)`` is clipped at 1e-300
    before the log.  ``expit`` is evaluated on the side where ``exp`` cannot
    overflow.
    """
    for i in range(lo, hi):
        fi = f[i]
        if fi >= 0.0:
            p = 1.0 / (1.0 + math.exp(-fi))
        else:
            e = math.exp(fi)
            p = e / (1.0 + e)
        q = 1.0 - p
        r[i] = y[i] - p
        h[i] = p * q
        log_p[i] = w[i] * math.log(max(p if y[i] == 1 else q, 1e-300))


class BinomialDeviance:
    """Binary log-loss on the log-odds ``F``: ``r = y - p``, Newton leaf ``sum r / sum p (1 - p)``.

    This is ESL Algorithm 10.4 with K = 2: its two symmetric trees move the
    log-odds ``f_1 - f_0`` by ``2 * (1/2) sum r / sum |r|(1 - |r|)`` and
    ``|r| (1 - |r|) = p (1 - p)``, so one tree on the log-odds suffices.
    """

    name = "log_loss"
    newton = True
    #: threads over blocks of rows in :meth:`gradients` (set by the estimator; results do not depend on it)
    n_threads = 1

    def init_raw(self, y, w):
        p = np.clip(np.average(y, weights=w), 1e-15, 1 - 1e-15)
        return np.array([libm.log(p / (1.0 - p))])

    def gradients(self, y, F, w):
        n = y.shape[0]
        r, h, log_p = np.empty((n, 1)), np.empty((n, 1)), np.empty(n)
        run_blocks(_binomial_gradients, n, self.n_threads if n >= 20_000 else 1,
                   y, np.ascontiguousarray(F[:, 0]), w, r[:, 0], h[:, 0], log_p)
        return r, h, float(-np.sum(log_p) / w.sum())

    def leaf_values(self, k, leaf, n_nodes, y, F, r, w):
        rk = r[:, 0]
        return _ratio(np.bincount(leaf, w * rk, n_nodes), np.bincount(leaf, w * np.abs(rk) * (1.0 - np.abs(rk)), n_nodes))

    def loss(self, y, F, w):
        f = F[:, 0]
        return float(np.sum(w * (np.logaddexp(0.0, f) - y * f)) / w.sum())


class MultinomialDeviance:
    """K-class deviance ``-sum_k I(y = k) log p_k`` with ``p = softmax(F)`` (ESL Algorithm 10.4).

    ``r_ik = I(y_i = k) - p_k(x_i)`` (step 2(b)i); leaf value (step 2(b)iii)
    ``gamma = (K-1)/K sum r / sum |r| (1 - |r|)``.  ``f_0`` is the log of the
    weighted class priors, centred -- the argmin of step 1 of Algorithm 10.3;
    it is ESL's ``f_k0 = 0`` when the classes are balanced.
    """

    name = "log_loss"
    newton = True

    def __init__(self, n_classes):
        self.K = n_classes

    def init_raw(self, y, w):
        prior = np.clip(np.bincount(y, weights=w, minlength=self.K) / w.sum(), 1e-15, None)
        logp = libm.log(prior)
        return logp - logp.mean()

    def gradients(self, y, F, w):
        P = softmax(F)
        n = y.shape[0]
        loss = float(-np.sum(w * libm.log(np.clip(P[np.arange(n), y], 1e-300, None))) / w.sum())
        r = -P
        r[np.arange(n), y] += 1.0
        return r, P * (1.0 - P), loss

    def leaf_values(self, k, leaf, n_nodes, y, F, r, w):
        rk = r[:, k]
        K = self.K
        num = np.bincount(leaf, w * rk, n_nodes)
        den = np.bincount(leaf, w * np.abs(rk) * (1.0 - np.abs(rk)), n_nodes)
        return (K - 1.0) / K * _ratio(num, den)

    def loss(self, y, F, w):
        P = softmax(F)
        return float(-np.sum(w * libm.log(np.clip(P[np.arange(y.shape[0]), y], 1e-300, None))) / w.sum())


def make_loss(name, n_classes=None, alpha=0.9):
    """The loss object for an estimator's ``loss`` parameter."""
    if name == "log_loss":
        return BinomialDeviance() if n_classes == 2 else MultinomialDeviance(n_classes)
    if name == "squared_error":
        return SquaredError()
    if name == "absolute_error":
        return AbsoluteError()
    if name == "huber":
        return HuberLoss(alpha)
    raise ValueError(f"Unknown loss {name!r}.")
