"""Synthetic data sets of the papers' figures and of Breiman's benchmarks.

Every generator takes ``n_samples`` and ``random_state`` and returns ``(X, y)``
with float64 ``X`` and int64 ``y``; the same ``random_state`` gives the same
data. Classes are balanced (``n_samples`` split as evenly as possible).
"""

import numpy as np


def check_random_state(random_state):
    """scikit-learn's ``check_random_state``, imported on first use (``forestzoo --help`` never needs it)."""
    from sklearn.utils import check_random_state as check

    return check(random_state)


__all__ = ["make_spirals", "make_two_spirals", "make_four_spirals", "make_banana",
           "make_twonorm", "make_ring", "make_waveform"]


def _check_n(n_samples, n_classes):
    if not isinstance(n_samples, (int, np.integer)) or n_samples < n_classes:
        raise ValueError(f"n_samples must be an integer >= {n_classes}, got {n_samples!r}.")
    return np.arange(n_samples) % n_classes  # balanced labels, interleaved


def _check_nonneg(name, value):
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}.")


def make_spirals(n_samples=1000, *, n_arms=2, turns=1.5, noise=0.05, random_state=None):
    """Interleaved spirals in the plane, one class per arm.

    Arm ``k`` of ``K = n_arms`` is the Archimedean spiral

        theta = 2 pi turns s,  r = s,
        x = r cos(theta + 2 pi k / K),  y = r sin(theta + 2 pi k / K),

    for ``s`` in (0, 1]; ``s = sqrt(u)`` with ``u ~ U(0, 1)`` spreads the
    points evenly over the disc the arms sweep. Gaussian noise of standard
    deviation ``noise`` is added to both coordinates. Two arms give the
    two-spirals problem of Lang & Witbrock (1988); the DNRF paper
    (Seyedhosseini & Tasdizen 2015, Fig. 1 and 3) uses two and four arms.

    Parameters
    ----------
    n_samples : int, default=1000
        Points in all; arm ``k`` gets the points ``i`` with ``i % n_arms == k``.
    n_arms : int, default=2
        Number of arms, which is the number of classes (labels ``0 .. n_arms-1``).
    turns : float, default=1.5
        Number of turns each arm makes.
    noise : float, default=0.05
        Standard deviation of the Gaussian noise (the spirals have radius 1).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,), int64
        The arm of each point.

    Examples
    --------
    >>> from forestzoo.datasets import make_spirals
    >>> X, y = make_spirals(8, n_arms=4, random_state=0)
    >>> X.shape, y.tolist()
    ((8, 2), [0, 1, 2, 3, 0, 1, 2, 3])
    """
    if not isinstance(n_arms, (int, np.integer)) or n_arms < 2:
        raise ValueError(f"n_arms must be an integer >= 2, got {n_arms!r}.")
    if not np.isfinite(turns) or turns <= 0:
        raise ValueError(f"turns must be a finite number > 0, got {turns!r}.")
    _check_nonneg("noise", noise)
    y = _check_n(n_samples, n_arms)
    rng = check_random_state(random_state)
    s = np.sqrt(rng.uniform(0.0, 1.0, n_samples))
    theta = 2.0 * np.pi * turns * s + 2.0 * np.pi * y / n_arms
    X = np.column_stack([s * np.cos(theta), s * np.sin(theta)])
    X += noise * rng.standard_normal(X.shape)
    return X, y.astype(np.int64)


def make_two_spirals(n_samples=1000, *, turns=1.5, noise=0.05, random_state=None):
    """Two interleaved spirals: :func:`make_spirals` with ``n_arms=2``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points; the classes alternate (balanced).
    turns : float, default=1.5
        Number of turns each arm makes.
    noise : float, default=0.05
        Standard deviation of the Gaussian noise.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,), int64
        The arm of each point (0 or 1).

    Examples
    --------
    >>> from forestzoo.datasets import make_two_spirals
    >>> X, y = make_two_spirals(100, random_state=0)
    >>> X.shape, int(y.sum())
    ((100, 2), 50)
    """
    return make_spirals(n_samples, n_arms=2, turns=turns, noise=noise,
                        random_state=random_state)


def make_four_spirals(n_samples=1000, *, turns=1.0, noise=0.04, random_state=None):
    """Four interleaved spirals (four classes): :func:`make_spirals` with ``n_arms=4``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points; the classes alternate (balanced).
    turns : float, default=1.0
        Number of turns each arm makes.
    noise : float, default=0.04
        Standard deviation of the Gaussian noise.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,), int64
        The arm of each point (0 to 3).

    Examples
    --------
    >>> from forestzoo.datasets import make_four_spirals
    >>> X, y = make_four_spirals(100, random_state=0)
    >>> sorted(set(y.tolist()))
    [0, 1, 2, 3]
    """
    return make_spirals(n_samples, n_arms=4, turns=turns, noise=noise,
                        random_state=random_state)


def make_banana(n_samples=1000, *, radius=1.0, noise=0.2, random_state=None):
    """Two interleaved banana-shaped classes in the plane.

    The "banana" benchmark of Ratsch et al. (2001) was published as data, not
    as a generator (the registry's ``banana`` is KEEL's copy of it). This draws
    the same kind of problem, two curved classes each lying in the other's
    bend, as two half circles of radius ``r`` with Gaussian noise ``noise``:

        class 0: (r cos a, r sin a),              a ~ U(0, pi),
        class 1: (r + r cos b, r/2 + r sin b),    b ~ U(pi, 2 pi).

    Without noise the two arcs do not cross (the "two moons" layout).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of points; the classes alternate (balanced).
    radius : float, default=1.0
        Radius ``r`` of the half circles.
    noise : float, default=0.2
        Standard deviation of the Gaussian noise on each coordinate.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,), int64
        The class of each point, 0 or 1.

    Examples
    --------
    >>> from forestzoo.datasets import make_banana
    >>> X, y = make_banana(6, random_state=0)
    >>> y.tolist()
    [0, 1, 0, 1, 0, 1]
    """
    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a finite number > 0, got {radius!r}.")
    _check_nonneg("noise", noise)
    y = _check_n(n_samples, 2)
    rng = check_random_state(random_state)
    angle = rng.uniform(0.0, np.pi, n_samples) + np.pi * y
    X = radius * np.column_stack([np.cos(angle), np.sin(angle)])
    X[y == 1] += [radius, 0.5 * radius]
    X += noise * rng.standard_normal(X.shape)
    return X, y.astype(np.int64)


def make_twonorm(n_samples=7400, *, n_features=20, random_state=None):
    """Draw Breiman's twonorm: two Gaussians with identity covariance.

    Class 0 is N(a 1, I) and class 1 is N(-a 1, I) in ``n_features``
    dimensions, with ``a = 2 / sqrt(20)`` (Breiman 1996, "Bias, variance and
    arcing classifiers"). The optimal (linear) rule errs about 2.3 % of the time
    for 20 features.

    Parameters
    ----------
    n_samples : int, default=7400
        Number of points; the classes alternate (balanced).
    n_features : int, default=20
        Number of dimensions.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of shape (n_samples,), int64
        The class of each point, 0 or 1.

    Examples
    --------
    >>> from forestzoo.datasets import make_twonorm
    >>> X, y = make_twonorm(10, random_state=0)
    >>> X.shape
    (10, 20)
    """
    if not isinstance(n_features, (int, np.integer)) or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
    y = _check_n(n_samples, 2)
    rng = check_random_state(random_state)
    a = 2.0 / np.sqrt(20.0)
    X = rng.standard_normal((n_samples, n_features))
    X += np.where(y == 0, a, -a)[:, None]
    return X, y.astype(np.int64)


def make_ring(n_samples=7400, *, n_features=20, random_state=None):
    """Draw Breiman's ringnorm: a wide Gaussian inside a narrow shifted one.

    Class 0 is N(0, 4 I) and class 1 is N(a 1, I) with ``a = 1 / sqrt(20)``
    (Breiman 1996). The optimal rule is quadratic (a "ring"): axis-parallel
    trees need many splits.

    Parameters
    ----------
    n_samples : int, default=7400
        Number of points; the classes alternate (balanced).
    n_features : int, default=20
        Number of dimensions.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of shape (n_samples,), int64
        The class of each point, 0 or 1.

    Examples
    --------
    >>> from forestzoo.datasets import make_ring
    >>> X, y = make_ring(10, n_features=3, random_state=0)
    >>> X.shape
    (10, 3)
    """
    if not isinstance(n_features, (int, np.integer)) or n_features < 1:
        raise ValueError(f"n_features must be an integer >= 1, got {n_features!r}.")
    y = _check_n(n_samples, 2)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    X[y == 0] *= 2.0
    X[y == 1] += 1.0 / np.sqrt(20.0)
    return X, y.astype(np.int64)


def make_waveform(n_samples=5000, *, n_noise_features=0, random_state=None):
    """Draw Breiman's waveform: noisy convex mixtures of two of three triangles.

    With the triangular waves on ``i = 1 .. 21``::

        h1(i) = max(6 - |i - 11|, 0),  h2(i) = h1(i - 4),  h3(i) = h1(i + 4),

    class 0 is ``u h1 + (1-u) h2 + e``, class 1 ``u h1 + (1-u) h3 + e`` and class
    2 ``u h2 + (1-u) h3 + e``, with ``u ~ U(0, 1)`` per sample and ``e ~ N(0, I)``
    (Breiman et al. 1984, CART, Sec. 2.6.2). ``n_noise_features=19`` appends 19
    pure N(0, 1) features: the 40-feature version.

    Parameters
    ----------
    n_samples : int, default=5000
        Number of points; the classes alternate (balanced).
    n_noise_features : int, default=0
        Pure noise features appended to the 21 wave features.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 21 + n_noise_features)
        The points.
    y : ndarray of shape (n_samples,), int64
        The class of each point, 0 to 2.

    Examples
    --------
    >>> from forestzoo.datasets import make_waveform
    >>> X, y = make_waveform(9, n_noise_features=19, random_state=0)
    >>> X.shape, y.tolist()
    ((9, 40), [0, 1, 2, 0, 1, 2, 0, 1, 2])
    """
    if not isinstance(n_noise_features, (int, np.integer)) or n_noise_features < 0:
        raise ValueError(f"n_noise_features must be an integer >= 0, "
                         f"got {n_noise_features!r}.")
    y = _check_n(n_samples, 3)
    rng = check_random_state(random_state)
    i = np.arange(1, 22)
    h1 = np.maximum(6.0 - np.abs(i - 11), 0.0)
    h2 = np.maximum(6.0 - np.abs(i - 4 - 11), 0.0)
    h3 = np.maximum(6.0 - np.abs(i + 4 - 11), 0.0)
    first = np.array([h1, h1, h2])[y]
    second = np.array([h2, h3, h3])[y]
    u = rng.uniform(0.0, 1.0, (n_samples, 1))
    X = u * first + (1.0 - u) * second + rng.standard_normal((n_samples, 21))
    if n_noise_features:
        X = np.hstack([X, rng.standard_normal((n_samples, n_noise_features))])
    return X, y.astype(np.int64)
