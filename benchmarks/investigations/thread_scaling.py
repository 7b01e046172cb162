"""CPU per tree on one thread and on two, forestzoo beside scikit-learn, and a check of the machine.

    python benchmarks/investigations/thread_scaling.py [--rows 100000] [--features 50] [--informative 30]
        [--classes 10] [--trees 16] [--estimator ExtraTreesClassifier]

Part 1 times a register-bound integer loop and a 128 MB sweep alone and two at once: two vCPUs
that are SMT siblings of one core, or that share too little memory bandwidth, run each below its
solo speed.  Part 2 fits ``--trees`` trees per thread with ``n_jobs=1`` and ``n_jobs=2`` and
prints each library's user and system CPU time and minor page faults per tree (``getrusage``,
best of two fits), so that a ratio lost between one and two threads shows up as CPU that grows
with the second thread.
"""

import argparse
import resource
import threading
import time

import numba
import numpy as np


@numba.njit(nogil=True)
def _spin(n):
    a = np.uint64(1)
    b = np.uint64(2)
    c = np.uint64(3)
    d = np.uint64(4)
    for _ in range(n):
        a = a * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        b = b * np.uint64(2862933555777941757) + np.uint64(3037000493)
        c ^= a >> np.uint64(7)
        d += b << np.uint64(3)
    return a ^ b ^ c ^ d


@numba.njit(nogil=True)
def _sweep(x, reps):
    s = 0.0
    for _ in range(reps):
        for i in range(x.shape[0]):
            s += x[i]
    return s


def _timed(f, *args):
    t = time.perf_counter()
    f(*args)
    return time.perf_counter() - t


def machine_check():
    _spin(10)
    x = np.ones(16_000_000)
    _sweep(x, 1)
    for name, f, args in (("register-bound loop", _spin, (300_000_000,)), ("128 MB sweep x 8", _sweep, (x, 8))):
        solo = min(_timed(f, *args) for _ in range(3))
        pairs = []
        for _ in range(3):
            res = []
            threads = [threading.Thread(target=lambda: res.append(_timed(f, *args))) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            pairs.append(max(res))
        print(f"{name}: alone {solo:.3f} s, two at once {min(pairs):.3f} s each ({min(pairs) / solo:.2f}x)")


def per_tree(cls, X, y, trees, n_jobs):
    best = None
    for rep in range(2):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        cls(n_estimators=trees * n_jobs, n_jobs=n_jobs, random_state=rep).fit(X, y)
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        n = trees * n_jobs
        row = ((r1.ru_utime - r0.ru_utime) / n, (r1.ru_stime - r0.ru_stime) / n, (r1.ru_minflt - r0.ru_minflt) / n)
        best = row if best is None else tuple(min(a, b) for a, b in zip(best, row))
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--features", type=int, default=50)
    p.add_argument("--informative", type=int, default=30)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--trees", type=int, default=16, help="trees per thread")
    p.add_argument("--estimator", default="ExtraTreesClassifier",
                   choices=("ExtraTreesClassifier", "RandomForestClassifier"))
    args = p.parse_args(argv)
    machine_check()

    import sklearn.ensemble
    from sklearn.datasets import make_classification

    import forestzoo.ensemble

    X, y = make_classification(args.rows, args.features, n_informative=args.informative, n_classes=args.classes,
                               random_state=0)
    X = X.astype(np.float32)
    libs = (("forestzoo", getattr(forestzoo.ensemble, args.estimator)),
            ("scikit-learn", getattr(sklearn.ensemble, args.estimator)))
    libs[0][1](n_estimators=2, n_jobs=2, random_state=0).fit(X[:2000], y[:2000])  # Numba cache load
    print(f"\n{args.estimator}, make_classification {args.rows} x {args.features} ({args.informative} informative, "
          f"{args.classes} classes), {args.trees} trees per thread, best of 2 fits")
    print("| library | threads | user ms / tree | system ms / tree | minor faults / tree |")
    print("|---|---|---|---|---|")
    for name, cls in libs:
        for n_jobs in (1, 2):
            u, s, f = per_tree(cls, X, y, args.trees, n_jobs)
            print(f"| {name} | {n_jobs} | {1e3 * u:.1f} | {1e3 * s:.1f} | {f:.0f} |", flush=True)


if __name__ == "__main__":
    main()
