"""ADWIN, the adaptive-window change detector, as a compiled kernel over one flat array.

Bifet & Gavaldà, "Learning from time-changing data with adaptive windowing"
(SDM 2007), ADWIN2: the window of recent values is kept as an exponential
histogram (at most ``M`` buckets of ``2**i`` values on each level ``i``,
the two oldest of a level merged into one of the next when it overflows),
and every ``CLOCK`` insertions each boundary between buckets splits the
window into an older part ``W0`` (``n0`` values) and a newer part ``W1``
(``n1`` values).  The oldest bucket is dropped while some split has
``|mean(W0) - mean(W1)| > eps_cut`` with

    eps_cut = sqrt(2 / m * var(W) * ln(2 / delta')) + 2 / (3 m) * ln(2 / delta'),
    m = 1 / (1 / n0 + 1 / n1),  delta' = delta / ln(n),

the paper's variance-based bound (n = n0 + n1).  Buckets keep the sum and
the sum of squared deviations of their values, merged exactly.

The window shrinks on a change in either direction, as the paper's ADWIN
does; :func:`adwin_update` also says in which direction the first cut
went, so that the forest raises an alarm only when a tree's error rises
(a falling error is a tree that learns, not a concept that changed).

One detector is a float64 array of :data:`ADWIN_SIZE` values:
``[width, total, sum of squared deviations, ticks, levels used,
buckets per level (LEVELS), bucket sums (LEVELS x (M + 1)), bucket
squared deviations (LEVELS x (M + 1))]``; zeros are an empty detector.
"""

import math

from .._jit import njit

#: most buckets per level (the paper's M); a level holding M + 1 merges its two oldest
M = 5
#: levels of the histogram: the window can hold M * (2**LEVELS - 1) values
LEVELS = 32
#: the detector looks for a cut every CLOCK insertions
CLOCK = 32
#: no cut leaves fewer than MIN_SUB values on either side, or is looked for below MIN_WIDTH values
MIN_SUB = 5
MIN_WIDTH = 10

_W, _T, _V, _TICKS, _NL, _CNT = 0, 1, 2, 3, 4, 5
_SUM = _CNT + LEVELS
_VAR = _SUM + LEVELS * (M + 1)
ADWIN_SIZE = _VAR + LEVELS * (M + 1)


@njit(inline="always")
def _push(s, level, total, var):
    """Append a bucket (newest) to ``level``."""
    c = int(s[_CNT + level])
    s[_SUM + level * (M + 1) + c] = total
    s[_VAR + level * (M + 1) + c] = var
    s[_CNT + level] = c + 1
    if level + 1 > s[_NL]:
        s[_NL] = level + 1


@njit(inline="always")
def _pop_oldest(s, level):
    """Remove the oldest bucket of ``level``; returns its sum and squared deviations."""
    base = level * (M + 1)
    c = int(s[_CNT + level])
    total = s[_SUM + base]
    var = s[_VAR + base]
    for j in range(c - 1):
        s[_SUM + base + j] = s[_SUM + base + j + 1]
        s[_VAR + base + j] = s[_VAR + base + j + 1]
    s[_CNT + level] = c - 1
    return total, var


@njit(inline="always")
def _drop_oldest(s):
    """Drop the window's oldest bucket (the first of the highest level), updating width, total and variance."""
    level = int(s[_NL]) - 1
    n_b = float(1 << level)
    sb, vb = _pop_oldest(s, level)
    w = s[_W]
    rest = w - n_b
    if rest > 0.0:
        d = sb / n_b - (s[_T] - sb) / rest
        s[_V] = max(0.0, s[_V] - vb - n_b * rest / w * d * d)
    else:
        s[_V] = 0.0
    s[_T] -= sb
    s[_W] = rest
    while s[_NL] > 0 and s[_CNT + int(s[_NL]) - 1] == 0:
        s[_NL] -= 1


@njit(inline="always")
def _cut(s, delta):
    """Drop old buckets while a split of the window shows a change; +1 / -1 if the first cut saw a rise / fall."""
    seen = 0
    while s[_W] >= MIN_WIDTH:
        w = s[_W]
        total = s[_T]
        var_w = s[_V] / w
        ln_term = math.log(2.0 * math.log(w) / delta)
        n0 = 0.0
        s0 = 0.0
        found = 0
        for level in range(int(s[_NL]) - 1, -1, -1):
            n_b = float(1 << level)
            base = _SUM + level * (M + 1)
            for j in range(int(s[_CNT + level])):
                n0 += n_b
                s0 += s[base + j]
                n1 = w - n0
                if n1 < MIN_SUB:
                    break
                if n0 < MIN_SUB:
                    continue
                m = 1.0 / (1.0 / n0 + 1.0 / n1)
                eps = math.sqrt(2.0 / m * var_w * ln_term) + 2.0 / (3.0 * m) * ln_term
                d = (total - s0) / n1 - s0 / n0
                if abs(d) > eps:
                    found = 1 if d > 0.0 else -1
                    break
            if found != 0 or w - n0 < MIN_SUB:
                break
        if found == 0:
            break
        if seen == 0:
            seen = found
        _drop_oldest(s)
    return seen


@njit
def adwin_update(s, x, delta):
    """Add ``x`` to detector ``s``; every :data:`CLOCK` values look for a change.

    Returns +1 when the window was cut and its newer part has the higher
    mean (a rise), -1 for a fall, 0 for no change.
    """
    w = s[_W]
    if w > 0.0:
        d = x - s[_T] / w
        s[_V] += d * d * w / (w + 1.0)
    s[_T] += x
    s[_W] = w + 1.0
    _push(s, 0, x, 0.0)
    level = 0
    while s[_CNT + level] > M:
        n = float(1 << level)
        s0, v0 = _pop_oldest(s, level)
        s1, v1 = _pop_oldest(s, level)
        d = s0 / n - s1 / n
        merged_var = v0 + v1 + n * n / (2.0 * n) * d * d
        if level + 1 < LEVELS:
            _push(s, level + 1, s0 + s1, merged_var)
            level += 1
        else:  # the top level is full: forget its oldest values (beyond any practical stream)
            s[_W] -= 2.0 * n
            s[_T] -= s0 + s1
            break
    s[_TICKS] += 1.0
    if s[_TICKS] % CLOCK != 0.0 or s[_W] < MIN_WIDTH:
        return 0
    return _cut(s, delta)


@njit
def adwin_feed(s, xs, delta, out):
    """Feed ``xs`` to detector ``s``; ``out[i]`` is :func:`adwin_update`'s answer for ``xs[i]``."""
    for i in range(xs.shape[0]):
        out[i] = adwin_update(s, xs[i], delta)


def detector_problem(s):
    """Why ``s`` is not a detector :func:`adwin_update` could have left (None when it is one).

    The compiled kernels index buckets by the stored level and bucket counts,
    so a detector read from a file is checked before it reaches them: every
    value finite, ``levels used`` in ``[0, LEVELS]``, each used level holding
    ``[0, M]`` buckets (the highest at least one) and unused levels none,
    the width equal to the values the buckets hold, ticks and squared
    deviations non-negative.
    """
    import numpy as np

    if s.shape != (ADWIN_SIZE,) or not np.all(np.isfinite(s)):
        return "must hold ADWIN_SIZE finite values"
    n_levels = s[_NL]
    counts = s[_CNT:_CNT + LEVELS]
    if n_levels != int(n_levels) or not 0 <= n_levels <= LEVELS:
        return f"levels used must be an integer in [0, {LEVELS}]"
    n_levels = int(n_levels)
    if np.any(counts != np.floor(counts)) or np.any(counts < 0) or np.any(counts > M) or np.any(counts[n_levels:]):
        return f"each used level holds an integer in [0, {M}] buckets, unused levels none"
    if n_levels and counts[n_levels - 1] == 0:
        return "the highest used level holds a bucket"
    if s[_W] != float(np.dot(counts, 2.0 ** np.arange(LEVELS))):
        return "the width must equal the values its buckets hold"
    if s[_TICKS] < 0 or s[_TICKS] != int(s[_TICKS]) or s[_V] < 0:
        return "ticks must be a non-negative integer and squared deviations non-negative"
    return None


def adwin_width(s):
    """Values in the detector's window."""
    return int(s[_W])


def adwin_mean(s):
    """Mean of the detector's window (nan when empty)."""
    return s[_T] / s[_W] if s[_W] > 0 else float("nan")
