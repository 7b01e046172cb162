"""A tiny RNG for kernels: SplitMix64 over a one-element ``uint64`` state.

Each tree receives its own seed drawn from the estimator's ``random_state``
(see :func:`draw_seeds`), so results do not depend on which thread grows
which tree, nor on numba's thread-local global generator.
"""

import numpy as np

from .._jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(inline="always")
def rng_next(state):
    """Advance ``state`` (uint64[1]) and return 64 random bits (SplitMix64)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(inline="always")
def mix_next(s):
    """SplitMix64 on a scalar state: ``(new_state, 64 random bits)``.

    The same sequence as :func:`rng_next`; for kernels that keep the state in
    a register (a helper taking the state array costs an atomic
    reference-count update per call when Numba inlines it).
    """
    s = s + _GOLDEN
    z = (s ^ (s >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return s, z ^ (z >> _S31)


@njit(inline="always")
def mix_uniform(s):
    """``(new_state, float64 uniform on [0, 1))``, as :func:`rng_uniform`."""
    s, z = mix_next(s)
    return s, float(z >> _S11) * _INV53


@njit(inline="always")
def mix_randint(s, high):
    """``(new_state, integer uniform on [0, high))``, as :func:`rng_randint`."""
    s, u = mix_uniform(s)
    r = int(u * high)
    return s, (r if r < high else high - 1)


@njit(inline="always")
def rng_uniform(state):
    """A float64 uniform on [0, 1)."""
    return float(rng_next(state) >> _S11) * _INV53


@njit(inline="always")
def rng_randint(state, high):
    """An integer uniform on [0, high); ``high`` must be positive."""
    r = int(rng_uniform(state) * high)
    return r if r < high else high - 1


@njit(inline="always")
def rng_rewind(state, n):
    """Step ``state`` back by ``n`` draws: each draw of this generator adds one constant to the state."""
    state[0] -= np.uint64(n) * _GOLDEN


def make_state(seed):
    """A fresh kernel RNG state from an integer seed."""
    return np.array([np.uint64(seed) & np.uint64(0xFFFFFFFFFFFFFFFF)], dtype=np.uint64)


def draw_seeds(random_state, n):
    """``n`` independent 63-bit seeds from a ``numpy.random.RandomState``."""
    return random_state.randint(0, np.iinfo(np.int64).max, size=n, dtype=np.int64)
