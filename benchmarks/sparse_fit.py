"""Fit time, accuracy and memory on a sparse matrix: forestzoo's forests against scikit-learn's RandomForest*.

    PYTHONPATH=. python benchmarks/sparse_fit.py [--n-samples 20000] [--n-features 2000] [--density 0.01]
        [--n-estimators 100] [--models sklearn,hist,exact,extra] [--repeat 1] [--task classification]
        [--n-outputs 1]

A random CSR matrix (float32; the stored cells drawn uniformly, their values
uniform on (0, 1]) and a label from the sign of a sparse linear score
(``--task regression``: the score plus Gaussian noise of standard deviation
0.1 as the target, scored by R^2 instead of accuracy, with the regressors;
``--n-outputs k``: a 2-D ``y`` of ``k`` such labels or targets, each from a
score of its own, scored by the mean over the outputs); 80 % of the rows
train, 20 % test.  Every forest has ``--n-estimators`` trees,
``max_features="sqrt"``, ``n_jobs=-1``, ``random_state=0``.  Each model runs
in its own process, which makes the same matrix, so that its peak resident
memory is its own: the script prints the fit time (best of ``--repeat``), the
predict time on the test rows, the test accuracy, the peak RSS of the process
and, beside it, its RSS just before the timed fits (the data and the loaded
libraries).  Each model is fitted once on 500 rows first, so that imports and
forestzoo's kernels (compiled by Numba, cached on disk) are not timed (a
forestzoo regressor, or a forest of several outputs, twice: the second fit
reads the codes from the index of the stored values, as a large matrix does);
the peak includes that warm-up.

The matrix is generated without a dense sample of its cells (``scipy.sparse.random``
draws from all ``n_samples x n_features`` of them), so a 100000 x 10000 matrix
takes a few seconds to make.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

MODELS = {
    "sklearn": "scikit-learn RandomForest{}",
    "hist": "forestzoo RandomForest{} splitter=hist",
    "exact": "forestzoo RandomForest{} splitter=exact",
    "extra": "forestzoo ExtraTrees{} splitter=random",
}


def make_sparse(n_samples, n_features, density, seed=0, task="classification", n_outputs=1):
    """CSR float32 matrix with ``round(density * n_samples * n_features)`` cells drawn uniformly
    (with replacement; a cell drawn twice is stored once) and a label from a sparse linear score
    (for ``task="regression"``, the score plus Gaussian noise); ``n_outputs`` columns of them, each from
    a score of its own, when above 1."""
    rng = np.random.default_rng(seed)
    n_cells = n_samples * n_features
    cells = np.unique(rng.integers(0, n_cells, size=int(round(density * n_cells)), dtype=np.int64))
    rows, cols = np.divmod(cells, n_features)
    indptr = np.zeros(n_samples + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_samples), out=indptr[1:])
    values = (1.0 - rng.random(cells.size)).astype(np.float32)
    X = sp.csr_matrix((values, cols.astype(np.int32), indptr), shape=(n_samples, n_features))
    w = rng.normal(size=n_features) * (rng.random(n_features) < 0.1)
    score = X @ w
    y = score + 0.1 * rng.normal(size=n_samples) if task == "regression" else (score > 0).astype(int)
    if n_outputs > 1:
        columns = [y]
        for _ in range(n_outputs - 1):
            score = X @ (rng.normal(size=n_features) * (rng.random(n_features) < 0.1))
            columns.append(score + 0.1 * rng.normal(size=n_samples) if task == "regression" else (score > 0).astype(int))
        y = np.column_stack(columns)
    return X, y


def make_model(key, n_estimators, task="classification"):
    kw = dict(n_estimators=n_estimators, max_features="sqrt", n_jobs=-1, random_state=0)
    kind = "Regressor" if task == "regression" else "Classifier"
    if key == "sklearn":
        import sklearn.ensemble
        return getattr(sklearn.ensemble, "RandomForest" + kind)(**kw)
    import forestzoo
    if key == "extra":
        return getattr(forestzoo, "ExtraTrees" + kind)(**kw)
    return getattr(forestzoo, "RandomForest" + kind)(splitter=key, **kw)


def _score(model, X, y, task):
    """Accuracy or R^2, the mean over the outputs of a 2-D ``y``."""
    p = model.predict(X)
    if task == "regression":
        return float(np.mean(1.0 - ((p - y) ** 2).sum(axis=0) / ((y - y.mean(axis=0)) ** 2).sum(axis=0)))
    return float((p == y).mean())


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_one(args):
    """Time one model in this process; print one JSON line."""
    X, y = make_sparse(args.n_samples, args.n_features, args.density, task=args.task, n_outputs=args.n_outputs)
    n_train = int(0.8 * X.shape[0])
    X_train, X_test, y_train, y_test = X[:n_train], X[n_train:], y[:n_train], y[n_train:]
    make_model(args.child, 2, args.task).fit(X_train[:500], y_train[:500]).predict(X_test[:10])  # imports, compile
    if args.child != "sklearn" and (args.task == "regression" or args.n_outputs > 1):
        # 500 rows read the code matrix (below builder.INDEXED_READ_MIN_CELLS): compile the grower that
        # reads the index too, which a large matrix uses
        from forestzoo._engine import builder
        least = builder.INDEXED_READ_MIN_CELLS
        builder.INDEXED_READ_MIN_CELLS = 0
        try:
            make_model(args.child, 2, args.task).fit(X_train[:500], y_train[:500])
        finally:
            builder.INDEXED_READ_MIN_CELLS = least
    base_mb = _rss_mb()
    best = np.inf
    for _ in range(args.repeat):
        t = time.perf_counter()
        model = make_model(args.child, args.n_estimators, args.task).fit(X_train, y_train)
        best = min(best, time.perf_counter() - t)
    t = time.perf_counter()
    acc = _score(model, X_test, y_test, args.task)
    pred = time.perf_counter() - t
    print(json.dumps(dict(fit=best, predict=pred, acc=acc, peak_mb=_peak_rss_mb(), base_mb=base_mb,
                          nnz=int(X.nnz))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=20_000)
    ap.add_argument("--n-features", type=int, default=2_000)
    ap.add_argument("--density", type=float, default=0.01)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--models", default="sklearn,hist,exact,extra",
                    help="comma-separated subset of: " + ", ".join(MODELS))
    ap.add_argument("--task", choices=["classification", "regression"], default="classification")
    ap.add_argument("--n-outputs", type=int, default=1)
    ap.add_argument("--child", choices=list(MODELS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return run_one(args)
    chosen = args.models.split(",")
    unknown = sorted(set(chosen) - set(MODELS))
    if unknown:
        ap.error(f"unknown --models {unknown}; choose from {', '.join(MODELS)}")
    kind = "Regressor" if args.task == "regression" else "Classifier"
    print(f"X: {args.n_samples} x {args.n_features} CSR float32, density {args.density}; "
          f"{args.n_estimators} trees; 80 % train, 20 % test; {args.task}, {args.n_outputs} output(s)")
    metric = "test R^2" if args.task == "regression" else "test accuracy"
    print(f"| model | fit s | predict s | {metric} | peak RSS MB (before the fit) |")
    print("|---|---:|---:|---:|---:|")
    fits = {}
    for key in chosen:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", key, "--n-samples", str(args.n_samples),
               "--n-features", str(args.n_features), "--density", str(args.density),
               "--n-estimators", str(args.n_estimators), "--repeat", str(args.repeat), "--task", args.task,
               "--n-outputs", str(args.n_outputs)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        r = json.loads(out)
        fits[key] = r["fit"]
        print(f"| {MODELS[key].format(kind)} | {r['fit']:.2f} | {r['predict']:.2f} | {r['acc']:.4f} | "
              f"{r['peak_mb']:.0f} ({r['base_mb']:.0f}) |", flush=True)
    if "sklearn" in fits:
        for key, s in fits.items():
            if key != "sklearn":
                print(f"scikit-learn / {MODELS[key].format(kind)} fit time: {fits['sklearn'] / s:.2f}x")


if __name__ == "__main__":
    main()
