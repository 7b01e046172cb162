"""``joblib.Parallel`` for forestzoo's fits, with Dask task failures raised.

Every family dispatches its trees with :class:`Parallel`, a ``joblib.Parallel``
that differs in one case: under ``joblib.parallel_config(backend="dask")``, a
task that fails in Dask itself (not in forestzoo's code) makes the call raise
instead of waiting forever.

Why: joblib's Dask backend, from joblib 1.4 to 1.6.0 (the newest release on
2026-11-23; 1.3.2 raises), completes the ``concurrent.futures`` future of an
errored Dask task with the error, but never calls the completion callback that
``Parallel`` waits on; ``Parallel`` then polls that task's status forever.
An exception raised inside a task is not affected (joblib wraps the task and
returns the exception as its result); what hangs is a failure outside the
task, above all ``distributed.KilledWorker``: the task ran on workers that died
more than ``distributed.scheduler.allowed-failures`` times (a task that
exhausts a worker's memory, or ``allowed-failures=0``).  A plain
``joblib.Parallel`` over a trivial function hangs the same way.

The correction: when the active backend is exactly joblib's
``DaskDistributedBackend`` of joblib >= 1.4 (whose ``Parallel`` waits on that
callback), this ``Parallel`` runs on a fresh instance of a
subclass (same client, submit options, scattered data and timeout) whose
``submit`` also passes a failed future's exception to that callback, where
joblib records it as the task's error and raises it in the caller.  A second
report of the same error is ignored by joblib (the call is already aborting),
so a joblib that fixes this upstream is not disturbed.  Other backends, and a
Dask backend configured in ways this module does not know, are used as they
are.  ``tests/test_faults.py`` kills a worker with ``allowed-failures=0``.
"""

import sys
import threading
from contextlib import contextmanager
from functools import cache, partial

import joblib
from joblib.parallel import get_active_backend
from threadpoolctl import ThreadpoolController


def _report_failure(callback, future):
    """Done-callback of a task's future: a failed task reaches ``Parallel`` as its error."""
    if future.cancelled():
        return
    error = future.exception()
    if error is not None:
        callback(error)


@cache
def _forwarding_class(base):
    """The subclass of joblib's Dask backend ``base`` whose failed tasks reach their callback."""
    dispatch = base.submit

    def submit(self, func, callback=None):
        future = dispatch(self, func, callback=callback)
        if callback is not None:
            future.add_done_callback(partial(_report_failure, callback))
        return future

    return type("DaskBackendRaisingFailures", (base,), {"submit": submit})


def _forwarding_copy(backend, base):
    """A fresh forwarding backend configured like ``backend``, or None when that cannot be done."""
    try:
        copy = _forwarding_class(base)(client=backend.client, wait_for_workers_timeout=backend.wait_for_workers_timeout,
                                       **backend.submit_kwargs)
        copy._scatter = backend._scatter  # the data the user scattered once, with its futures
        copy.data_futures = backend.data_futures
        copy.nesting_level = backend.nesting_level
    except (AttributeError, TypeError, ValueError):  # a joblib whose backend no longer looks like this
        return None
    return copy


@contextmanager
def _failures_raise():
    """Within: an active joblib Dask backend is replaced by its forwarding copy."""
    dask_module = sys.modules.get("joblib._dask")  # imported by joblib once the "dask" backend is chosen
    base = getattr(dask_module, "DaskDistributedBackend", None)
    backend = get_active_backend()[0] if base is not None else None
    # joblib < 1.4 has no retrieval callback (and raises such failures itself): its backend is left alone
    needed = base is not None and type(backend) is base and getattr(base, "supports_retrieve_callback", False)
    copy = _forwarding_copy(backend, base) if needed else None
    if copy is None:
        yield
        return
    with joblib.parallel_config(backend=copy):
        yield


class Parallel(joblib.Parallel):
    """``joblib.Parallel`` whose Dask task failures raise (see the module's docstring).

    The backend is chosen when the object is made, as joblib does, so the
    correction applies from construction on.
    """

    def __init__(self, *args, **kwargs):
        with _failures_raise():
            super().__init__(*args, **kwargs)


# -- one BLAS thread per worker thread -------------------------------------------------------------------------
# A rotation, or a node model's eigenproblem above order 8 (MPSVM, ridge GCV), calls LAPACK at every node.  With n_jobs
# worker threads each such call would also start OpenBLAS's own threads (one per core by default): on 2 cores an
# MPRoF-T fit with n_jobs=2 took 41 s, 1.7x its n_jobs=1 time, and 12 s with one BLAS thread per worker.
# threadpoolctl's limit is process-wide and restores on exit whatever it found on entry, so two fits entering and
# leaving in different threads could leave BLAS limited for good; the first fit in applies the limit and the last
# one out restores the user's setting.
_blas_lock = threading.Lock()
_blas_users = 0
_blas_limiter = None


@cache
def _controller():
    """threadpoolctl's view of the loaded BLAS libraries (scanning them costs ~1 ms, so it is done once)."""
    return ThreadpoolController()


@contextmanager
def single_threaded_blas():
    """Within: BLAS runs one thread per calling thread; the user's setting comes back when the last one leaves.

    For forestzoo's parallel fits whose tasks call BLAS / LAPACK: the parallelism is over trees (or
    functions, bags, ...), and each task's BLAS stays on its own core.  Applied for any ``n_jobs``, so
    that a task's floating-point sums do not depend on ``n_jobs``.
    """
    global _blas_users, _blas_limiter
    with _blas_lock:
        if _blas_users == 0:
            _blas_limiter = _controller().limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limiter.restore_original_limits()
                _blas_limiter = None
