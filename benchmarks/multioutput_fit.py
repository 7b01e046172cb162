"""Fit time of a multi-output RandomForestRegressor: forestzoo against scikit-learn on the same data.

    PYTHONPATH=. python benchmarks/multioutput_fit.py [--n-samples 100000] [--n-features 50] [--n-outputs 5]
        [--n-estimators 100] [--n-jobs 2] [--splitter hist]

``sklearn.datasets.make_regression`` (``n_informative=10``, ``noise=1.0``,
``random_state=0``) with ``--n-outputs`` targets; 80 % of the rows train,
20 % test.  Both forests have the same ``n_estimators``, ``n_jobs`` and
``random_state=0`` and their defaults otherwise (scikit-learn: the exact
search; forestzoo: ``--splitter``, default its own default "hist"), every
feature a candidate at every node (``max_features=1.0`` in both).  forestzoo
is fitted once untimed first on a small slice, so that its compile time
(Numba, cached on disk) is not counted.  Prints each forest's fit seconds,
the ratio scikit-learn / forestzoo and the test R^2 (uniform average over the
outputs) of both.
"""

import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--n-features", type=int, default=50)
    ap.add_argument("--n-outputs", type=int, default=5)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--splitter", default="hist")
    args = ap.parse_args()

    from sklearn.datasets import make_regression
    from sklearn.ensemble import RandomForestRegressor as SkForest
    from sklearn.metrics import r2_score

    from forestzoo import RandomForestRegressor

    X, Y = make_regression(n_samples=args.n_samples, n_features=args.n_features, n_informative=10,
                           n_targets=args.n_outputs, noise=1.0, random_state=0)
    n_train = int(0.8 * args.n_samples)
    X_train, X_test, Y_train, Y_test = X[:n_train], X[n_train:], Y[:n_train], Y[n_train:]
    kw = dict(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=0, max_features=1.0)

    RandomForestRegressor(n_estimators=2, splitter=args.splitter, random_state=0).fit(X_train[:2000],
                                                                                      Y_train[:2000])  # compile

    rows = []
    for name, model in (("forestzoo", RandomForestRegressor(splitter=args.splitter, **kw)),
                        ("scikit-learn", SkForest(**kw))):
        t0 = time.perf_counter()
        model.fit(X_train, Y_train)
        seconds = time.perf_counter() - t0
        rows.append((name, seconds, r2_score(Y_test, model.predict(X_test))))

    print(f"make_regression {args.n_samples} x {args.n_features}, {args.n_outputs} outputs, "
          f"{args.n_estimators} trees, n_jobs={args.n_jobs}, forestzoo splitter={args.splitter!r}")
    print("| forest | fit (s) | test R^2 |")
    print("|---|---:|---:|")
    for name, seconds, r2 in rows:
        print(f"| {name} | {seconds:.1f} | {r2:.4f} |")
    (_, fz_s, fz_r2), (_, sk_s, sk_r2) = rows
    print(f"scikit-learn / forestzoo fit time: {sk_s / fz_s:.2f}x; R^2 difference {fz_r2 - sk_r2:+.4f}")


if __name__ == "__main__":
    main()
