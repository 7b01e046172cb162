"""Short batches of calls on threads of this process.

Boosting fits the K trees of one round in parallel: each takes milliseconds,
and a round cannot start before the previous one ends.  joblib's ``Parallel``
waits for a batch by polling with a 10 ms sleep, which on small data cost more
than the trees (GentleBoost on iris: 0.5 s per fit, mostly asleep).  A
:class:`concurrent.futures.ThreadPoolExecutor` kept for the whole fit wakes as
soon as a batch is done.  These calls share the estimator's arrays, so they
always run on threads (what ``require="sharedmem"`` asked of joblib), also
under a Dask joblib backend; ``n_jobs`` is read with joblib's rules
(``-1``: all cores, ``None``: the active ``parallel_config``).
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

from joblib import effective_n_jobs


class ThreadBatches:
    """Context manager: ``runner.map(fn, *iterables)`` returns ``[fn(*args), ...]`` in order.

    With one effective job the calls run in the caller's thread.  An
    exception in a call is raised by ``map``.
    """

    def __init__(self, n_jobs):
        self.n_jobs = effective_n_jobs(n_jobs)
        self._pool = None

    def __enter__(self):
        if self.n_jobs > 1:
            self._pool = ThreadPoolExecutor(max_workers=self.n_jobs, thread_name_prefix="forestzoo")
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        return False

    def map(self, fn, *iterables):
        calls = list(zip(*iterables))
        if self._pool is None or len(calls) < 2:
            return [fn(*args) for args in calls]
        return list(self._pool.map(lambda args: fn(*args), calls))


# -- one process-wide pool for work split into blocks ------------------------------------------
#
# Some single steps of a fit are worth two cores on their own: binning the training
# matrix, the histograms of a large node when a round grows one tree (boosting), a
# pass of binomial gradients.  They cut their work into contiguous
# blocks; the calling thread runs the first block and threads of this pool (created
# on first use, one per core) the others.  The blocks run compiled, GIL-free kernels
# (bin edges: numpy, whose sort releases the GIL), and each output element is written
# by exactly one block, so results do not depend on the number of threads.

_pool_lock = threading.Lock()
_shared_pool = None


def _forget_pool_after_fork():
    global _shared_pool, _pool_lock
    _shared_pool = None  # the pool's threads do not exist in a forked child
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def n_cores():
    """Cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _executor():
    global _shared_pool
    with _pool_lock:
        if _shared_pool is None:
            _shared_pool = ThreadPoolExecutor(max_workers=n_cores(), thread_name_prefix="forestzoo-blocks")
        return _shared_pool


def run_blocks(kernel, n_items, n_threads, *args):
    """``kernel(*args, lo, hi)`` over ``[0, n_items)`` cut into ``n_threads`` contiguous blocks.

    ``n_threads`` is capped by the cores and the items; with one block the
    call runs in the caller's thread.  Exceptions of any block are raised.
    """
    n_threads = max(1, min(int(n_threads), n_cores(), n_items))
    bounds = [n_items * t // n_threads for t in range(n_threads + 1)]
    futures = []
    if n_threads > 1:
        pool = _executor()
        futures = [pool.submit(kernel, *args, bounds[t], bounds[t + 1]) for t in range(1, n_threads)]
    try:
        kernel(*args, bounds[0], bounds[1])
    finally:
        wait(futures)  # no block is left writing into the arguments once this returns or raises
        for future in futures:
            future.result()


def start_helper(fn, *args):
    """Run ``fn(*args)`` on a thread of the block pool; returns its ``concurrent.futures.Future``.

    For compiled loops that wait for the caller's word on shared atomic
    counters (DNDT's mini-batch helper, the online forests' blocks of
    trees).  The pool may start them late, so the caller never waits for
    work that only a helper could do, or waits only after telling every
    helper what to do.
    """
    return _executor().submit(fn, *args)
