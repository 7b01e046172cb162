"""Fit time on a sparse matrix: forestzoo's forests against scikit-learn's RandomForestClassifier.

    PYTHONPATH=. python benchmarks/sparse_fit.py [--n-samples 20000] [--n-features 2000] [--density 0.01]
        [--models sklearn,hist,exact,extra]

A random CSR matrix (float32, uniform values on the stored entries) and a
label from the sign of a sparse linear score; every forest has 100 trees,
``max_features="sqrt"``, ``n_jobs=-1``, ``random_state=0``.  Prints the fit
time of each forest (best of ``--repeat``) and its training accuracy.
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=20_000)
    ap.add_argument("--n-features", type=int, default=2_000)
    ap.add_argument("--density", type=float, default=0.01)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--models", default="sklearn,hist,exact,extra",
                    help="comma-separated subset of: sklearn, hist, exact, extra")
    args = ap.parse_args()

    from sklearn.ensemble import RandomForestClassifier as SkRF

    from forestzoo import ExtraTreesClassifier, RandomForestClassifier

    rng = np.random.RandomState(0)
    X = sp.random(args.n_samples, args.n_features, density=args.density, format="csr", dtype=np.float32,
                  random_state=rng)
    w = rng.normal(size=args.n_features) * (rng.uniform(size=args.n_features) < 0.1)
    y = (X @ w > 0).astype(int)
    kw = dict(n_estimators=args.n_estimators, max_features="sqrt", n_jobs=-1, random_state=0)
    models = {
        "sklearn RandomForestClassifier": ("sklearn", lambda: SkRF(**kw)),
        "forestzoo RandomForestClassifier splitter=hist": ("hist", lambda: RandomForestClassifier(splitter="hist", **kw)),
        "forestzoo RandomForestClassifier splitter=exact": (
            "exact", lambda: RandomForestClassifier(splitter="exact", **kw)),
        "forestzoo ExtraTreesClassifier splitter=random": ("extra", lambda: ExtraTreesClassifier(**kw)),
    }
    chosen = set(args.models.split(","))
    unknown = chosen - {key for key, _ in models.values()}
    if unknown:
        ap.error(f"unknown --models {sorted(unknown)}; choose from sklearn, hist, exact, extra")
    models = {name: make for name, (key, make) in models.items() if key in chosen}
    print(f"X: {X.shape[0]} x {X.shape[1]} CSR, density {X.nnz / np.prod(X.shape):.4f}, {X.nnz} stored values")
    # compile forestzoo's kernels for the sparse layouts first (a one-off per install, cached on disk)
    for name, make in models.items():
        if name.startswith("forestzoo"):
            make().set_params(n_estimators=2).fit(X[:500], y[:500])
    for name, make in models.items():
        best = np.inf
        for _ in range(args.repeat):
            t = time.perf_counter()
            est = make().fit(X, y)
            best = min(best, time.perf_counter() - t)
        t = time.perf_counter()
        acc = (est.predict(X) == y).mean()
        pred = time.perf_counter() - t
        print(f"{name:50s} fit {best:7.2f} s   predict {pred:6.2f} s   train acc {acc:.3f}")


if __name__ == "__main__":
    main()
