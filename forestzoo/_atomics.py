"""Atomic operations on ``int64`` array elements, for compiled kernels that hand work between threads.

A mini-batch of DNDT fine-tuning takes about a millisecond; handing half of
it to a thread through Python (``objmode``, a pool future, the GIL) cost
0.2-1 ms a batch, as much as it saved.  Two compiled loops that meet on a
few shared counters hand work over in well under a microsecond.  Numba has
no atomics of its own, so these intrinsics emit LLVM's sequentially
consistent atomic load, store and compare-and-swap on one element of a
C-contiguous ``int64`` array.  Plain writes made before an
:func:`atomic_store` are visible to a thread that reads the stored value
with :func:`atomic_load` (both are full barriers for the compiler and the
CPU), which is all the hand-over protocol needs.
"""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import njit


def _check(a):
    if not (isinstance(a, types.Array) and a.dtype == types.int64 and a.ndim == 1):
        raise TypeError(f"atomics need a 1-d int64 array, got {a}")


def _element_pointer(context, builder, aryty, ary, index):
    array = context.make_array(aryty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aryty, array, [index], wraparound=False)


@intrinsic
def atomic_load(typingctx, a, i):
    """``a[i]``, read atomically."""
    _check(a)
    sig = types.int64(a, types.intp)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "seq_cst", 8)

    return sig, codegen


@intrinsic
def atomic_store(typingctx, a, i, value):
    """``a[i] = value``, written atomically."""
    _check(a)
    sig = types.void(a, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        builder.store_atomic(args[2], ptr, "seq_cst", 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def atomic_cas(typingctx, a, i, expected, new):
    """If ``a[i] == expected``, set it to ``new`` and return True; else return False (one atomic step)."""
    _check(a)
    sig = types.boolean(a, types.intp, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        pair = builder.cmpxchg(ptr, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return sig, codegen


@njit
def store(a, i, value):
    """:func:`atomic_store` as one compiled call from Python: it happens wholly or not at all."""
    atomic_store(a, i, value)


__all__ = ["atomic_cas", "atomic_load", "atomic_store", "store"]
