"""Cost of the online forests' read-write lock on single-row ``predict`` and ``partial_fit`` calls.

A ``predict`` takes the model's lock as a reader and ``partial_fit`` as its
writer (``forestzoo.online._classes._ReadWriteLock``), so that a prediction
in another thread never sees half of a batch.  This script measures what that
costs where it costs most, on calls of one row: an
``OnlineRandomForestClassifier(n_estimators=10)`` is fitted on the first
3,000 rows of the ``stable`` stream of ``bench_online.py``; one copy keeps its
lock, the other gets a lock whose acquire and release do nothing (the same
code otherwise).  Both then make the same single-row ``predict`` and
``partial_fit`` calls on the next rows, timed ``--chunk`` calls at a time,
the two copies alternating chunk by chunk (in turn first), so that the
machine's drift falls on both alike.  Printed: the median time per call of
each and the median of the chunk-pair differences, the lock's cost::

    python benchmarks/online_lock_cost.py [--calls 4000] [--chunk 50]
"""

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_online import make_stream  # noqa: E402

from forestzoo import OnlineRandomForestClassifier  # noqa: E402


class _NoCondition:
    """A stand-in for the lock's condition variable: entering, leaving and notifying do nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def notify_all(self):
        pass


class _NoLock:
    """The attributes of ``_ReadWriteLock`` that the forests touch, with nothing to wait for."""

    def __init__(self):
        self._mutex = self._cond = _NoCondition()
        self._readers_waiting = 0
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    def acquire_read(self):
        pass

    def acquire_write(self):
        pass


def _time_chunk(model, X_rows, y_rows, start, stop, learn):
    """Microseconds per single-row call over rows ``start:stop``: ``partial_fit`` if ``learn``, else ``predict``."""
    t = time.perf_counter()
    if learn:
        for i in range(start, stop):
            model.partial_fit(X_rows[i:i + 1], y_rows[i:i + 1])
    else:
        for i in range(start, stop):
            model.predict(X_rows[i:i + 1])
    return (time.perf_counter() - t) / (stop - start) * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=4000, help="single-row calls of each kind per model")
    p.add_argument("--chunk", type=int, default=50, help="calls timed at a time, the two models alternating")
    args = p.parse_args()
    n_fit = 3000
    X, y, _ = make_stream("stable", n_fit + args.calls, seed=0)
    X = X.astype(np.float32)
    fitted = OnlineRandomForestClassifier(n_estimators=10, n_jobs=1, random_state=0).fit(X[:n_fit], y[:n_fit])
    rows, targets = X[n_fit:], y[n_fit:]
    models = {"lock": copy.deepcopy(fitted), "no lock": copy.deepcopy(fitted)}
    models["no lock"].__dict__["_lock"] = _NoLock()
    for model in models.values():  # compiled kernels loaded, caches warm
        _time_chunk(copy.deepcopy(model), rows, targets, 0, 50, False)
        _time_chunk(copy.deepcopy(model), rows, targets, 0, 50, True)
    times = {(mode, learn): [] for mode in models for learn in (False, True)}
    for k, start in enumerate(range(0, args.calls - args.chunk + 1, args.chunk)):
        for learn in (False, True):  # both models learn the same rows in the same order
            for mode in (("lock", "no lock") if k % 2 == 0 else ("no lock", "lock")):  # neither always first
                times[mode, learn].append(_time_chunk(models[mode], rows, targets, start, start + args.chunk, learn))
    print(f"OnlineRandomForestClassifier(n_estimators=10) fitted on {n_fit} rows, single-row calls: "
          f"{len(times['lock', False])} chunks of {args.chunk} per kind and model, the models alternating")
    print("| kind | lock, us per call (median) | no lock | lock - no lock, median over chunk pairs |")
    print("|---|---|---|---|")
    for learn, kind in ((False, "predict"), (True, "partial_fit")):
        with_lock, without = np.array(times["lock", learn]), np.array(times["no lock", learn])
        diff = np.median(with_lock - without)
        print(f"| {kind} | {np.median(with_lock):.1f} | {np.median(without):.1f} | {diff:+.1f} us "
              f"({diff / np.median(without):+.1%}) |")


if __name__ == "__main__":
    main()
