"""forestzoo._jit: the compiler class of the kernels and its inlining pass."""

import numba
import numpy as np
import pytest
from numba.core import inline_closurecall

from forestzoo import _jit

STEP = 3  # a global the inlined helpers read


@numba.njit(inline="always", cache=False)
def _leaf(a, i):
    # the caller has variables of the same names: the inliner must rename them
    total = 0.0
    for k in range(i):
        if a[k] > 0.5:
            total += a[k] * STEP
        else:
            total -= a[k]
    return total


@numba.njit(inline="always", cache=False)
def _middle(a, n):
    total = 0.0
    for i in range(n):
        if i % 2 == 0:
            total += _leaf(a, i)
        elif i % 3 == 0:
            total -= _leaf(a, i // 2)
        else:
            total += 1.0
    return total


def _outer(a):
    total = _middle(a, a.shape[0])
    k = 0
    while k < a.shape[0]:
        total += _leaf(a, k) + _middle(a, k)
        k += 2
    return total


def _reference(a):
    def leaf(i):
        return sum(a[k] * STEP if a[k] > 0.5 else -a[k] for k in range(i))

    def middle(n):
        t = 0.0
        for i in range(n):
            t += leaf(i) if i % 2 == 0 else (-leaf(i // 2) if i % 3 == 0 else 1.0)
        return t

    return middle(len(a)) + sum(leaf(k) + middle(k) for k in range(0, len(a), 2))


def test_kernels_use_the_one_memo_compiler():
    """On the Numba the package is tested with, the kernels compile with forestzoo's compiler class."""
    compiler = _jit.JIT_OPTIONS.get("pipeline_class")
    assert compiler is not None, "this Numba lacks the inliner internals _jit relies on"
    assert compiler is _jit._COMPILER
    from forestzoo._engine.grower import grower_for
    from forestzoo._engine.splitters import HIST

    assert grower_for(HIST)._compiler.pipeline_class is compiler


def test_nested_inlining_gives_numbas_result():
    """Helpers inlined two levels deep, at several sites, compile to what Numba's own pipeline gives."""
    a = np.random.RandomState(0).rand(23)
    ours = numba.njit(cache=False, pipeline_class=_jit.JIT_OPTIONS["pipeline_class"])(_outer)
    default = numba.njit(cache=False)(_outer)
    assert ours(a) == default(a)
    assert ours(a) == pytest.approx(_reference(a), rel=1e-12)


@numba.njit(inline="always", cache=False)
def _with_context(a):
    with numba.objmode():
        pass
    return a[0]


def test_inliner_state_is_restored_after_a_failed_inlining():
    """The inlining pass leaves Numba's worker and copy module as they were, even when it fails."""
    worker, copy_module = inline_closurecall.InlineWorker, inline_closurecall.copy

    def bad(a):
        return _with_context(a)  # Numba cannot inline a function with a ``with`` block

    broken = numba.njit(cache=False, pipeline_class=_jit.JIT_OPTIONS["pipeline_class"])(bad)
    with pytest.raises(numba.TypingError, match="inline inlinable functions"):
        broken(np.ones(3))
    assert inline_closurecall.InlineWorker is worker
    assert inline_closurecall.copy is copy_module
