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

from concurrent.futures import ThreadPoolExecutor

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
