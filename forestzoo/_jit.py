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

A compiled function called from compiled code is compiled once per tuple of
argument types, and a constant argument (``0``, ``True``) has a literal type
of its own (``Literal[int](0)``), as has a variable on its first assignment
(``m = 0`` before a loop that counts it up: Numba types the call with the
literal before the loop widens it).  Where a callee is also called with a
variable, such an argument is written ``np.int64(0)`` or ``np.bool_(True)``,
which types as ``int64`` or ``bool``: each such literal would otherwise
compile the callee once more.
"""

import contextlib
import hashlib
import os
import threading
from pathlib import Path

import numba
from numba.core import cgutils, event, types
from numba.extending import intrinsic

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)


def _one_memo_compiler():
    """A Numba compiler class whose inliner copies a callee's IR in linear time.

    Numba inlines an ``inline="always"`` callee by deep-copying its IR block by
    block, each block with a memo of its own.  Every variable refers to the
    function's scope, which lists all of the function's variables, so every
    block copies the whole scope again: the copy costs blocks x variables.  The
    split kernels and statistics helpers inlined into forestzoo's growers have
    hundreds of each, and these copies were about a fifth of a random forest's
    first compilation.

    The returned class runs Numba's own pipeline unchanged except for the
    inlining pass, during which Numba's inlining worker is a subclass whose
    copies of one callee share one memo.  Within one copy each object is then
    copied once, and the copied IR is the same as with one memo per block: the
    blocks' scopes are equal copies, which Numba merges into one, and every
    variable is renamed by name.  Only forestzoo's kernels use this class
    (``pipeline_class`` below); other Numba code in the process is untouched.

    Returns ``None`` when this Numba lacks the internals the class relies on;
    the kernels then compile with Numba's default class, only slower.
    """
    try:
        import copy

        from numba.core import compiler, compiler_machinery
        from numba.core import inline_closurecall as icc
        from numba.core.untyped_passes import InlineInlinables

        if getattr(icc, "copy", None) is not copy or not hasattr(icc.InlineWorker, "inline_ir"):
            return None
    except ImportError:
        return None

    class _OneMemoCopy:
        """The ``copy`` module, with one memo for every ``deepcopy`` call."""

        def __init__(self):
            self._memo = {}

        def deepcopy(self, x, memo=None):
            return copy.deepcopy(x, self._memo if memo is None else memo)

        def __getattr__(self, name):
            return getattr(copy, name)

    class _OneMemoInlineWorker(icc.InlineWorker):
        def inline_ir(self, *args, **kwargs):
            # numba's compiler lock is held: no other compilation reads icc.copy
            saved = icc.copy
            icc.copy = _OneMemoCopy()
            try:
                return super().inline_ir(*args, **kwargs)
            finally:
                icc.copy = saved

    @compiler_machinery.register_pass(mutates_CFG=True, analysis_only=False)
    class _OneMemoInlineInlinables(InlineInlinables):
        _name = "forestzoo_inline_inlinables"

        def run_pass(self, state):
            # callees' own inlining runs nested in this pass and uses the worker too
            saved = icc.InlineWorker
            icc.InlineWorker = _OneMemoInlineWorker
            try:
                return super().run_pass(state)
            finally:
                icc.InlineWorker = saved

    class OneMemoCompiler(compiler.Compiler):
        def define_pipelines(self):
            managers = super().define_pipelines()
            for manager in managers:
                manager.passes = [
                    (_OneMemoInlineInlinables, desc) if pass_cls is InlineInlinables else (pass_cls, desc)
                    for pass_cls, desc in manager.passes
                ]
                manager.finalize()
            return managers

    return OneMemoCompiler


_COMPILER = _one_memo_compiler()
if _COMPILER is not None:
    JIT_OPTIONS["pipeline_class"] = _COMPILER

_PACKAGE = Path(__file__).resolve().parent
_STAMP = _PACKAGE / "__pycache__" / "forestzoo-kernels.sha256"


def _kernel_sources_digest():
    """sha256 over every module of the package that compiles kernels."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text:
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(text)
    return digest.hexdigest()


def _drop_stale_caches():
    """Delete numba's on-disk caches of the package when any kernel source changed.

    Numba keys a cached function on its own file only, so a kernel compiled
    into ``grower.py`` (the split kernels are inlined into the grower) would
    keep running old code after ``splitters/*.py`` changed.  A digest of all
    kernel sources, stored beside the caches, catches that: on a mismatch every
    cache file of the package is removed and recompiled on first use.  An
    installed release never changes its sources, so this costs one hash at
    import; a read-only install (caches elsewhere) is left alone.
    """
    try:
        digest = _kernel_sources_digest()
        if _STAMP.is_file() and _STAMP.read_text().strip() == digest:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for cached in _PACKAGE.rglob(pattern):
                try:
                    cached.unlink()
                except OSError:
                    pass
        _STAMP.parent.mkdir(exist_ok=True)
        tmp = _STAMP.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest)
        os.replace(tmp, _STAMP)
    except OSError:
        pass  # a read-only install: nothing to clean, nothing to record


_drop_stale_caches()


def njit(func=None, **overrides):
    """``numba.njit`` with the library's flags; usable bare or with overrides."""
    options = dict(JIT_OPTIONS, **overrides)
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)


@intrinsic
def borrow(typingctx, arr):
    """An alias of the array ``arr`` that Numba does not reference-count.

    Numba counts references to an array atomically (a ``lock``-prefixed
    increment and decrement of its memory-info block) whenever the array is
    bound to another name: every array argument of an inlined helper, every
    view.  In the grower's node loop those bindings were ~30 % of an Extra
    Trees fit (perf: ``NRT_incref`` / ``NRT_decref``), and with two threads
    the shared data arrays' counters also bounce between the cores.  The
    alias has the same type, data, shape and strides, and a null
    memory-info pointer, which the counting functions skip; views taken of
    it are uncounted too.

    The alias does not keep the memory alive: the caller must hold the
    original array (a function argument, or a local that stays in use,
    e.g. passed to :func:`keep_alive` after the last use of the alias).
    Never return an alias or store it where it outlives the original.
    """
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        src = context.make_array(aryty)(context, builder, value=args[0])
        dst = context.make_array(aryty)(context, builder)
        for name in ("data", "shape", "strides", "itemsize", "nitems"):
            setattr(dst, name, getattr(src, name))
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        return dst._getvalue()

    return arr(arr), codegen


@numba.njit(**JIT_OPTIONS)
def keep_alive(arrays):
    """No-op that keeps the owners of :func:`borrow` aliases in use until this call."""
    return len(arrays)


class _FirstCompile(event.Listener):
    """Calls ``callback()`` at the first start of a Numba compilation, once."""

    def __init__(self, callback):
        self._callback = callback
        self._lock = threading.Lock()
        self._fired = False

    def on_start(self, ev):
        with self._lock:
            if self._fired:
                return
            self._fired = True
        self._callback()

    def on_end(self, ev):
        pass


@contextlib.contextmanager
def on_first_compile(callback):
    """Call ``callback()`` once if a kernel is compiled inside the block.

    Numba raises its ``numba:compile`` event only on a cache miss, so a run
    on a warm cache calls nothing.  Compilations on other threads (trees
    fitted in parallel) count too.
    """
    with event.install_listener("numba:compile", _FirstCompile(callback)):
        yield
