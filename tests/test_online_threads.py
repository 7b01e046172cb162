"""Prediction while another thread runs ``partial_fit`` on the same online forest."""

import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor


@pytest.mark.parametrize("cls", [OnlineRandomForestClassifier, OnlineRandomForestRegressor])
def test_predict_during_partial_fit_sees_the_model_before_or_after_a_batch(cls):
    classifier = cls is OnlineRandomForestClassifier
    if classifier:
        X, y = make_classification(n_samples=8000, n_features=8, n_informative=6, random_state=0)
    else:
        X, y = make_friedman1(n_samples=8000, n_features=8, random_state=0)
    X_test, batches = X[6000:], [(X[s:s + 300], y[s:s + 300]) for s in range(0, 6000, 300)]

    def make():
        return cls(n_estimators=8, n_tests=30, min_samples_split=5, drift=None, random_state=0)

    def answer(model):
        return model.predict_proba(X_test) if classifier else model.predict(X_test)

    # the model after each batch, learned alone (the model is deterministic for a fixed random_state)
    ref, expected = make(), []
    for xb, yb in batches:
        ref.partial_fit(xb, yb, **({"classes": [0, 1]} if classifier else {}))
        expected.append(answer(ref))
    model = make().partial_fit(*batches[0], **({"classes": [0, 1]} if classifier else {}))
    seen, done = [], threading.Event()

    def read():
        while not done.is_set():
            seen.append(answer(model))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for xb, yb in batches[1:]:
            model.partial_fit(xb, yb)
    finally:
        done.set()
        reader.join()
    assert len(seen) > 0
    torn = [k for k, out in enumerate(seen) if not any(np.array_equal(out, e) for e in expected)]
    assert not torn, f"{len(torn)} of {len(seen)} predictions match no model between two batches"


def _release_read(lock):
    with lock._mutex:
        lock._readers -= 1
        if not lock._readers and lock._writers_waiting:
            lock._cond.notify_all()


def _release_write(lock):
    with lock._mutex:
        lock._writing = False
        if lock._readers_waiting or lock._writers_waiting:
            lock._cond.notify_all()


def _wait_for(predicate):
    deadline = time.monotonic() + 10
    while not predicate():
        assert time.monotonic() < deadline, "the lock's waiting thread did not reach its wait"
        time.sleep(0.001)


def test_read_write_lock_orders_a_writer_between_readers_and_never_strands_one():
    """Readers share the lock; a writer waits for them and holds back new readers until it is done;
    a writer whose wait ends in an exception lets the readers it held back go on."""
    from forestzoo.online._classes import _ReadWriteLock

    lock = _ReadWriteLock()
    lock.acquire_read()
    lock.acquire_read()  # two readers at once
    order = []
    writer = threading.Thread(target=lambda: (lock.acquire_write(), order.append("write"), _release_write(lock)),
                              daemon=True)
    writer.start()
    _wait_for(lambda: lock._writers_waiting == 1)
    reader = threading.Thread(target=lambda: (lock.acquire_read(), order.append("read"), _release_read(lock)),
                              daemon=True)
    reader.start()
    _wait_for(lambda: lock._readers_waiting == 1)  # held back by the waiting writer
    _release_read(lock)
    assert order == []  # one reader still holds the lock
    _release_read(lock)
    writer.join(10)
    reader.join(10)
    assert order == ["write", "read"]
    assert (lock._readers, lock._writing, lock._writers_waiting, lock._readers_waiting) == (0, False, 0, 0)

    # a waiting writer interrupted (here: its wait raises) must not leave a held-back reader waiting
    lock.acquire_read()
    failing = threading.Event()
    real_wait = lock._cond.wait

    def wait(*args):
        if threading.current_thread() is writer and failing.is_set():
            raise KeyboardInterrupt
        return real_wait(*args)

    lock._cond.wait = wait
    raised = []

    def write():
        try:
            lock.acquire_write()
        except KeyboardInterrupt:
            raised.append(True)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    _wait_for(lambda: lock._writers_waiting == 1)
    reader = threading.Thread(target=lambda: (lock.acquire_read(), order.append("read 2"), _release_read(lock)),
                              daemon=True)
    reader.start()
    _wait_for(lambda: lock._readers_waiting == 1)
    failing.set()
    with lock._mutex:
        lock._cond.notify_all()  # wakes the writer, whose next wait raises
    writer.join(10)
    reader.join(10)
    assert raised == [True] and order[-1] == "read 2"
    _release_read(lock)
    assert (lock._readers, lock._writing, lock._writers_waiting, lock._readers_waiting) == (0, False, 0, 0)
