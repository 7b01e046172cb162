"""The Numba flags of forestzoo, in one place.

Every compiled kernel is decorated with :func:`njit` from this module so that
caching, GIL release and floating-point strictness are decided once:

* ``cache=True``: compiled machine code is stored next to the module, so a new
  process pays the compile cost only the first time ever.
* ``nogil=True``: kernels release the GIL, which is what lets joblib's
  threading backend fit trees in parallel.
* ``fastmath=False``: split search compares sums of weights; reassociation
  would make results depend on the compiler and break reproducibility.
* ``boundscheck=False``: kernels are tested against naive references instead.

Small helpers called per row or per candidate split (statistics updates,
the split cost, the RNG, one tree step) are declared ``inline="always"``:
a non-inlined call that receives arrays pays reference-count updates on
every call, which measured here as ~40 ns, several times the work itself.
"""

import numba

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)


def njit(func=None, **overrides):
    """``numba.njit`` with the library's flags; usable bare or with overrides."""
    options = dict(JIT_OPTIONS, **overrides)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
