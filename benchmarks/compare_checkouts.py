"""Fit time of one estimator in two checkouts of forestzoo, alternated in the same processes.

Timing two commits in separate processes on this 2-core machine mixes the
change with the process: a fit's time moves by up to ~10 % from one process
to the next (load addresses of the compiled kernels, memory placement), which
is as large as the engine regressions worth finding.  This script copies the
``forestzoo`` package of each checkout under its own name (``fz_a``, ``fz_b``)
into a temporary directory, imports both into one process, warms both up and
alternates their fits (a, b, b, a, ...), then reports the per-pair time ratio
b / a.  It does that in ``--processes`` fresh processes, so the spread between
processes is shown beside the ratio within each.

    python benchmarks/compare_checkouts.py ../base . --estimator DecisionTreeRegressor \\
        --params splitter=hist --data regression --rows 50000 --features 30 --pairs 8 --processes 5

With ``--measure predict`` each process fits one model per checkout (same
parameters and data) and alternates ``predict_proba`` (``predict`` for a
regressor) on ``--predict-rows`` further rows of the same generator.

``--dataset NAME`` fits a dataset of :func:`forestzoo.datasets.load_dataset`
instead of generated data (``--rows`` and ``--features`` are then ignored), and
``--classes K`` sets the number of classes of the generated classification data
(default: 2 for ``binary``, 10 for ``10-class``):

    python benchmarks/compare_checkouts.py ../base . --estimator OneVsAllObliqueForestClassifier \
        --params n_estimators=10 --dataset glass --pairs 6 --processes 3

Each copy compiles into its own Numba cache on first use (a minute or more per
checkout); the warm-up fit is not timed.  CPU time (``time.process_time``) is
measured, so use ``n_jobs=1`` estimators (the default here); the wall time of
the same fits is reported beside it.
"""

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

NAMES = ("fz_a", "fz_b")


def copy_package(checkout, name, dest):
    """Copy ``checkout/forestzoo`` to ``dest/name``, renaming its absolute imports."""
    src = os.path.join(checkout, "forestzoo")
    if not os.path.isdir(src):
        raise SystemExit(f"{checkout!r} has no forestzoo/ package")
    target = os.path.join(dest, name)
    shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__"))
    pattern = re.compile(r"\bforestzoo\b")
    for root, _, files in os.walk(target):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                with open(path) as fh:
                    text = fh.read()
                with open(path, "w") as fh:
                    fh.write(pattern.sub(name, text))


def make_data(kind, rows, features, seed, classes=None, density=0.01, outputs=1):
    from sklearn.datasets import make_classification, make_regression

    if kind in ("sparse-binary", "sparse-binary-dense"):
        # a CSR matrix with uniform values on its stored entries, labelled by the sign of a sparse linear score
        # (``sparse-binary-dense``: the same matrix as a dense array, mostly zeros)
        import scipy.sparse as sp

        rng = np.random.RandomState(seed)
        X = sp.random(rows, features, density=density, format="csr", dtype=np.float32, random_state=rng)
        coef = rng.normal(size=features) * (rng.uniform(size=features) < 0.1)
        y = (X @ coef > 0).astype(int)
        if outputs > 1:  # a 2-D y: one label per further score of its own
            more = [rng.normal(size=features) * (rng.uniform(size=features) < 0.1) for _ in range(outputs - 1)]
            y = np.column_stack([y] + [(X @ c > 0).astype(int) for c in more])
        return (X.toarray() if kind == "sparse-binary-dense" else X), y
    if kind == "regression":
        X, y = make_regression(n_samples=rows, n_features=features, n_targets=outputs, noise=1.0, random_state=seed)
    else:
        if classes is None:
            classes = 2 if kind == "binary" else 10
        # n_informative leaves room for make_classification's 2 redundant features
        X, y = make_classification(n_samples=rows, n_features=features, n_informative=min(features - 2, 20),
                                   n_classes=classes, random_state=seed)
    return X.astype(np.float32), y


def load_named(package, name, n_test, seed):
    """Dataset ``name`` of ``package.datasets`` as float32, shuffled when ``n_test`` rows are to be held out."""
    import importlib

    X, y = importlib.import_module(f"{package.__name__}.datasets").load_dataset(name)
    order = np.random.default_rng(seed).permutation(len(y)) if n_test else np.arange(len(y))
    return np.asarray(X, dtype=np.float32)[order], np.asarray(y)[order]


def parse_params(items):
    params = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def child(args):
    """One process: both packages, alternated fits; prints one JSON line."""
    sys.path.insert(0, args.tmp)
    mods = [__import__(n) for n in NAMES]
    classes = [getattr(m, args.estimator) for m in mods]
    params = dict(random_state=0, **parse_params(args.params))
    n_test = args.predict_rows if args.measure == "predict" else 0
    if args.dataset:
        X, y = load_named(mods[0], args.dataset, n_test, args.seed)
        n_fit = len(y) - min(n_test, len(y) // 2)
    else:
        X, y = make_data(args.data, args.rows + n_test, args.features, args.seed, args.classes, args.density,
                         args.outputs)
        n_fit = args.rows
    X, X_test, y = X[:n_fit], X[n_fit:], y[:n_fit]
    for cls in classes:
        cls(**params).fit(X[:500], y[:500])  # warm-up: Numba cache load or compilation
    times = [[], []]
    walls = [[], []]
    if args.measure == "predict":
        models = [cls(**params).fit(X, y) for cls in classes]
        calls = [getattr(m, "predict_proba", m.predict) for m in models]
        for c in calls:
            c(X_test[:100])  # warm-up of the prediction kernels
    for p in range(args.pairs):
        order = (0, 1) if p % 2 == 0 else (1, 0)
        for i in order:
            t = time.process_time()
            t_wall = time.perf_counter()
            if args.measure == "predict":
                calls[i](X_test)
            else:
                classes[i](**params).fit(X, y)
            times[i].append(time.process_time() - t)
            walls[i].append(time.perf_counter() - t_wall)
    print(json.dumps({"cpu": times, "wall": walls}))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="checkout A (the reference), a directory holding forestzoo/")
    p.add_argument("b", help="checkout B")
    p.add_argument("--estimator", default="DecisionTreeRegressor", help="a class exported by forestzoo")
    p.add_argument("--params", nargs="*", default=["splitter=hist"], help="key=value (JSON values)")
    p.add_argument("--data", choices=("regression", "binary", "10-class", "sparse-binary", "sparse-binary-dense"),
                   default="regression")
    p.add_argument("--density", type=float, default=0.01, help="stored fraction of --data sparse-binary[-dense]")
    p.add_argument("--rows", type=int, default=50_000)
    p.add_argument("--features", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--classes", type=int, help="classes of the generated classification data")
    p.add_argument("--outputs", type=int, default=1, help="targets of --data regression, labels of sparse-binary (a 2-D y when above 1)")
    p.add_argument("--dataset", help="a forestzoo.datasets name, fitted instead of generated data")
    p.add_argument("--pairs", type=int, default=8, help="alternated fit (or predict) pairs per process")
    p.add_argument("--measure", choices=("fit", "predict"), default="fit")
    p.add_argument("--predict-rows", type=int, default=20_000, help="test rows of --measure predict")
    p.add_argument("--processes", type=int, default=5)
    p.add_argument("--work-dir", help="keep the package copies (and their compiled kernels) here and reuse them "
                                      "in later runs with the same directory; they are not refreshed, so use a "
                                      "new directory after either checkout changes")
    p.add_argument("--tmp", help=argparse.SUPPRESS)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args)
        return
    with contextlib.ExitStack() as stack:
        if args.work_dir:  # reused: the copies and their Numba caches are kept for the next run
            tmp = os.path.abspath(args.work_dir)
            os.makedirs(tmp, exist_ok=True)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="fz_compare_"))
        for checkout, name in zip((args.a, args.b), NAMES):
            if not os.path.isdir(os.path.join(tmp, name)):
                copy_package(os.path.abspath(checkout), name, tmp)
        cmd = [sys.executable, os.path.abspath(__file__), args.a, args.b, "--child", "--tmp", tmp,
               "--estimator", args.estimator, "--data", args.data, "--rows", str(args.rows),
               "--features", str(args.features), "--seed", str(args.seed), "--pairs", str(args.pairs),
               "--density", str(args.density), "--outputs", str(args.outputs),
               *(["--classes", str(args.classes)] if args.classes else []),
               *(["--dataset", args.dataset] if args.dataset else []),
               "--measure", args.measure, "--predict-rows", str(args.predict_rows), "--params", *args.params]
        classes = f" ({args.classes} classes)" if args.classes else ""
        outputs = f" with {args.outputs} targets" if args.outputs > 1 else ""
        data = args.dataset or f"{args.data}{classes} {args.rows} x {args.features}{outputs}"
        print(f"# {args.estimator}({' '.join(args.params)}) on {data}; "
              f"A = {args.a}, B = {args.b}; CPU seconds per {args.measure}"
              f"{f' of {args.predict_rows} rows' if args.measure == 'predict' else ''}, {args.pairs} alternated pairs per process")
        print("| process | A best | A median | B best | B median | B / A per pair: median | range "
              "| wall: A median | B median | B / A median |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        medians, wall_medians = [], []
        for i in range(args.processes):
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            result = json.loads(out.strip().splitlines()[-1])
            a, b = (np.array(t) for t in result["cpu"])
            wa, wb = (np.array(t) for t in result["wall"])
            r = b / a
            medians.append(np.median(r))
            wall_medians.append(np.median(wb / wa))
            print(f"| {i + 1} | {a.min():.4f} | {np.median(a):.4f} | {b.min():.4f} | {np.median(b):.4f} | "
                  f"{np.median(r):.4f} | {r.min():.4f}-{r.max():.4f} | {np.median(wa):.4f} | {np.median(wb):.4f} | "
                  f"{wall_medians[-1]:.4f} |", flush=True)
        print(f"\nB / A, median over processes of the per-process medians: CPU {np.median(medians):.4f} "
              f"(processes: {', '.join(f'{m:.3f}' for m in medians)}), wall {np.median(wall_medians):.4f} "
              f"(processes: {', '.join(f'{m:.3f}' for m in wall_medians)})")


if __name__ == "__main__":
    main()
