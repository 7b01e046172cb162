"""Data streams with concept drift, generated (no download), for the online forests' tests and benchmark.

* SEA concepts (Street & Kim, "A streaming ensemble algorithm (SEA) for
  large-scale classification", KDD 2001): three features uniform on
  ``[0, 10]``, class 1 when ``x0 + x1 <= theta``; the four concepts use
  ``theta`` = 8, 9, 7, 9.5; 10 % of the labels flipped.
* Rotating hyperplane (Hulten, Spencer & Domingos, "Mining time-changing
  data streams", KDD 2001): ``d`` features uniform on ``[0, 1]``, class 1
  when ``sum w_i x_i >= sum w_i / 2``; every weight moves by ``magnitude``
  per sample in a direction that reverses with probability 10 % every
  1,000 samples (incremental drift); 5 % label noise.
* Agrawal (Agrawal, Imielinski & Swami, "Database mining: a performance
  perspective", IEEE TKDE 1993): nine attributes of a loan applicant and
  the first three of the paper's classification functions.
* The class-sorted order of a bundled dataset: a real dataset whose rows
  arrive sorted by class (abrupt drift at each class boundary).

* Friedman #1 with drift, for regression (Ikonomovska, Gama & Džeroski,
  "Learning model trees from evolving data streams", Data Mining and
  Knowledge Discovery 2011): ten features uniform on ``[0, 1]``, of which
  five are relevant, ``y = 10 sin(pi x_a x_b) + 20 (x_c - 0.5)^2 + 10 x_d
  + 5 x_e + N(0, 1)``; a drift changes which features play the roles
  ``(a, b, c, d, e)``: ``(0, 1, 2, 3, 4)``, then ``(3, 4, 1, 0, 2)`` (the
  paper's global abrupt change), then ``(1, 4, 3, 2, 0)`` (its second
  gradual change).  The streams here: one abrupt change at mid-stream, two
  gradual changes at 1/3 and 2/3, and the first change reverting at 2/3
  (recurring).

Drift between two concepts follows the sigmoid mixture of MOA's concept
drift stream (Bifet et al.): the probability that sample ``i`` comes from
the new concept is ``1 / (1 + exp(-4 (i - position) / width))``; a width
of 1 is an abrupt change.
"""

import numpy as np

#: stream name -> (kind of drift, positions of the changes as fractions of the stream)
STREAMS = {
    "sea-abrupt": ("abrupt", (0.25, 0.5, 0.75)),
    "sea-gradual": ("gradual", (0.25, 0.5, 0.75)),
    "hyperplane": ("gradual", ()),
    "agrawal-abrupt": ("abrupt", (0.5,)),
    "agrawal-recurring": ("recurring", (0.25, 0.5, 0.75)),
    "sorted-mushroom": ("abrupt", None),
}
_SEA_THETA = (8.0, 9.0, 7.0, 9.5)
#: regression stream name -> (kind of drift, positions of the changes as fractions of the stream)
REGRESSION_STREAMS = {
    "friedman-abrupt": ("abrupt", (0.5,)),
    "friedman-gradual": ("gradual", (1 / 3, 2 / 3)),
    "friedman-recurring": ("recurring", (1 / 3, 2 / 3)),
}
#: the features in the roles (a, b, c, d, e) of Friedman #1 under each concept
_FRIEDMAN_ROLES = ((0, 1, 2, 3, 4), (3, 4, 1, 0, 2), (1, 4, 3, 2, 0))


def _concept_of_rows(n, positions, width, rng):
    """Index of the concept each row is drawn from (a change at every position; sigmoid mixing of ``width``)."""
    i = np.arange(n)
    concept = np.zeros(n, np.int64)
    for pos in positions:
        p_new = 1.0 / (1.0 + np.exp(np.clip(-4.0 * (i - pos) / max(width, 1e-9), -50.0, 50.0)))
        concept += rng.random_sample(n) < p_new
    return concept


def make_sea(n, *, width=1, noise=0.1, random_state=0):
    """SEA concepts, four equal parts; returns ``X, y, drift positions``."""
    rng = np.random.RandomState(random_state)
    X = rng.uniform(0.0, 10.0, size=(n, 3))
    positions = [n // 4, n // 2, 3 * n // 4]
    concept = _concept_of_rows(n, positions, width, rng)
    y = (X[:, 0] + X[:, 1] <= np.take(_SEA_THETA, concept)).astype(np.int64)
    flip = rng.random_sample(n) < noise
    y[flip] = 1 - y[flip]
    return X, y, positions


def make_hyperplane(n, *, n_features=10, magnitude=0.001, noise=0.05, random_state=0):
    """Rotating hyperplane; returns ``X, y, []`` (the drift is continual)."""
    rng = np.random.RandomState(random_state)
    X = rng.random_sample((n, n_features))
    w = rng.random_sample(n_features)
    sign = np.where(rng.random_sample(n_features) < 0.5, -1.0, 1.0)
    y = np.empty(n, np.int64)
    for i in range(n):
        y[i] = X[i] @ w >= 0.5 * w.sum()
        w += sign * magnitude
        if (i + 1) % 1000 == 0:
            sign = np.where(rng.random_sample(n_features) < 0.1, -sign, sign)
    flip = rng.random_sample(n) < noise
    y[flip] = 1 - y[flip]
    return X, y, []


def _agrawal_features(n, rng):
    salary = rng.uniform(20e3, 150e3, n)
    commission = np.where(salary >= 75e3, 0.0, rng.uniform(10e3, 75e3, n))
    age = rng.randint(20, 81, n).astype(float)
    elevel = rng.randint(0, 5, n).astype(float)
    car = rng.randint(1, 21, n).astype(float)
    zipcode = rng.randint(0, 9, n).astype(float)
    hvalue = (9.0 - zipcode) * 100e3 * rng.uniform(0.5, 1.5, n)
    hyears = rng.randint(1, 31, n).astype(float)
    loan = rng.uniform(0.0, 500e3, n)
    return np.column_stack((salary, commission, age, elevel, car, zipcode, hvalue, hyears, loan))


def _agrawal_function(k, X):
    """Class (1 = group A) under the paper's function ``k`` (1, 2 or 3)."""
    salary, age, elevel = X[:, 0], X[:, 2], X[:, 3]
    young, middle, old = age < 40, (age >= 40) & (age < 60), age >= 60
    if k == 1:
        return young | old
    if k == 2:
        return ((young & (salary >= 50e3) & (salary <= 100e3)) | (middle & (salary >= 75e3) & (salary <= 125e3))
                | (old & (salary >= 25e3) & (salary <= 75e3)))
    if k == 3:
        return (young & (elevel <= 1)) | (middle & (elevel >= 1) & (elevel <= 3)) | (old & (elevel >= 2))
    raise ValueError(f"Agrawal function {k} is not implemented (1, 2 or 3).")


def make_agrawal(n, *, functions=(1, 2), width=1, noise=0.05, random_state=0):
    """Agrawal's generator switching between ``functions`` at equal intervals; returns ``X, y, positions``."""
    rng = np.random.RandomState(random_state)
    X = _agrawal_features(n, rng)
    positions = [n * k // len(functions) for k in range(1, len(functions))]
    concept = _concept_of_rows(n, positions, width, rng)
    y = np.zeros(n, np.int64)
    for c, k in enumerate(functions):
        rows = concept == c
        y[rows] = _agrawal_function(k, X[rows])
    flip = rng.random_sample(n) < noise
    y[flip] = 1 - y[flip]
    return X, y, positions


def make_friedman_drift(n, *, concepts=(0, 1), width=1, noise=1.0, random_state=0):
    """Friedman #1 switching between ``concepts`` (rows of the feature roles) at equal intervals.

    Returns ``X, y, positions``; ``width`` spreads each change (sigmoid
    mixing, 1: abrupt).
    """
    rng = np.random.RandomState(random_state)
    X = rng.random_sample((n, 10))
    positions = [n * k // len(concepts) for k in range(1, len(concepts))]
    concept = np.take(concepts, _concept_of_rows(n, positions, width, rng))
    y = np.empty(n)
    for c in set(concepts):
        rows = concept == c
        a, b, e3, d, e = (X[rows, f] for f in _FRIEDMAN_ROLES[c])
        y[rows] = 10.0 * np.sin(np.pi * a * b) + 20.0 * (e3 - 0.5) ** 2 + 10.0 * d + 5.0 * e
    y += noise * rng.standard_normal(n)
    return X, y, positions


def class_sorted(X, y, random_state=0):
    """The rows of ``(X, y)`` sorted by class (shuffled within a class); returns ``X, y, class boundaries``."""
    rng = np.random.RandomState(random_state)
    order = np.lexsort((rng.random_sample(len(y)), y))
    ys = y[order]
    return X[order], ys, list(np.flatnonzero(ys[1:] != ys[:-1]) + 1)


def make_stream(name, n, random_state=0):
    """One of :data:`STREAMS` or :data:`REGRESSION_STREAMS` with ``n`` rows (a sorted dataset keeps its own size).

    Returns ``X, y, drift positions``.
    """
    if name == "sea-abrupt":
        return make_sea(n, random_state=random_state)
    if name == "sea-gradual":
        return make_sea(n, width=n // 20, random_state=random_state)
    if name == "hyperplane":
        return make_hyperplane(n, random_state=random_state)
    if name == "agrawal-abrupt":
        return make_agrawal(n, functions=(1, 2), random_state=random_state)
    if name == "agrawal-recurring":
        return make_agrawal(n, functions=(1, 3, 1, 3), random_state=random_state)
    if name == "friedman-abrupt":
        return make_friedman_drift(n, concepts=(0, 1), random_state=random_state)
    if name == "friedman-gradual":
        return make_friedman_drift(n, concepts=(0, 1, 2), width=n // 20, random_state=random_state)
    if name == "friedman-recurring":
        return make_friedman_drift(n, concepts=(0, 1, 0), random_state=random_state)
    if name.startswith("sorted-"):
        from ..datasets import load_dataset

        X, y = load_dataset(name[len("sorted-"):])
        return class_sorted(np.asarray(X, float), np.asarray(y), random_state)
    raise ValueError(f"unknown stream {name!r}; choose from {sorted(STREAMS) + sorted(REGRESSION_STREAMS)}")
