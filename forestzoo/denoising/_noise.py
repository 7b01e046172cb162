"""Test-time noise of Hibino et al. (2017), and their error measure."""

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

NOISE_KINDS = ("mean", "gaussian")


def corrupt(X, fraction, kind="mean", mean=None, scale=None, random_state=None):
    """Corrupt a fraction of every row's features.

    Each row gets ``floor(fraction * n_features + 1/2)`` distinct features,
    drawn at random, corrupted (S/N of the paper: with 8 features, 12.5 %
    is one feature per row).

    Parameters
    ----------
    X : ndarray (n_samples, n_features)
    fraction : float in [0, 1] or ndarray (n_samples,)
        Fraction of features corrupted, for all rows or per row.
    kind : {"mean", "gaussian"}
        "mean": the value is replaced by ``mean`` of its feature (the
        training mean), as in Section 4 of the paper; "gaussian":
        ``N(0, scale**2)`` is added to it.
    mean, scale : ndarray (n_features,)
        Training mean (needed for "mean"), and noise standard deviation per
        feature (needed for "gaussian").
    random_state : int, RandomState or None

    Returns
    -------
    X_noisy : ndarray, a copy of ``X``
    mask : ndarray of bool, True where a value was corrupted
    """
    if kind not in NOISE_KINDS:
        raise ValueError(f"kind={kind!r} is not one of {NOISE_KINDS}.")
    rng = check_random_state(random_state)
    X = np.asarray(X)
    n, d = X.shape
    frac = np.broadcast_to(np.asarray(fraction, dtype=np.float64), (n,))
    if np.any((frac < 0) | (frac > 1)):
        raise ValueError("fraction must lie in [0, 1].")
    k = np.floor(frac * d + 0.5).astype(np.int64)
    # the k smallest of d uniform keys per row: k distinct features, uniformly
    order = np.argsort(rng.random_sample((n, d)), axis=1)
    mask = np.zeros((n, d), dtype=bool)
    np.put_along_axis(mask, order, np.arange(d)[None, :] < k[:, None], axis=1)
    out = np.array(X, dtype=np.float64, copy=True)
    if kind == "mean":
        if mean is None:
            raise ValueError('kind="mean" needs the training mean of every feature.')
        out[mask] = np.broadcast_to(np.asarray(mean, dtype=np.float64), (n, d))[mask]
    else:
        if scale is None:
            raise ValueError('kind="gaussian" needs the noise scale of every feature.')
        out[mask] += (rng.standard_normal((n, d)) * np.asarray(scale, dtype=np.float64))[mask]
    return out, mask


def normalized_l1_error(y_true, y_pred):
    """L1 distance normalised by the ground truth, ``sum|y - y_hat| / sum|y|`` (Section 4.2)."""
    y_true = np.asarray(y_true, dtype=np.float64)
    y_pred = np.asarray(y_pred, dtype=np.float64)
    return float(np.abs(y_pred - y_true).sum() / np.abs(y_true).sum())


@dataclass(frozen=True)
class MeanReplacementNoise:
    """The paper's test-time noise as a benchmark suite's ``test_transform``.

    Called as ``noise(X_train, X_test, random_state)``, it returns a copy of ``X_test`` in
    which every row has ``floor(fraction * n_features + 1/2)`` features, drawn at random,
    replaced by their mean over ``X_train`` (Section 4: "we replaced several elements of the
    samples with the average value across all the samples"); the training rows stay clean.
    The ``denoising`` suite of ``forestzoo bench`` uses ``fraction=0.375``.

    Parameters
    ----------
    fraction : float in [0, 1]
        The paper's S/N (0.125: one feature in eight).

    Examples
    --------
    >>> import numpy as np
    >>> from forestzoo.denoising import MeanReplacementNoise
    >>> X_train = np.array([[0.0, 10.0], [2.0, 30.0]])          # feature means 1 and 20
    >>> X_noisy = MeanReplacementNoise(0.5)(X_train, np.array([[5.0, 50.0]]), random_state=0)
    >>> int(np.sum(X_noisy == [1.0, 20.0]))                     # one feature of two replaced
    1
    """

    fraction: float = 0.375

    def __call__(self, X_train, X_test, random_state=None):
        mean = np.mean(np.asarray(X_train, dtype=np.float64), axis=0)
        return corrupt(X_test, self.fraction, "mean", mean, random_state=random_state)[0]
