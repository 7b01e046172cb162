"""Load test: fit a big forest, predict many rows in batches, report times and peak memory.

The target size (target: peak resident memory < 8 GB)::

    python benchmarks/bench_load.py --n-train 1000000 --n-features 50 --n-trees 500 \\
        --n-predict 10000000 --batch 500000 --n-jobs -1

Training data are generated in float32 (1M x 50 = 200 MB); prediction rows are generated batch
by batch from their own seeds, so the 10M x 50 matrix (2 GB) never exists at once -- that is the
point of predicting in batches.  Labels are a noisy nonlinear function of a few features, so
trees do not stop early.  Memory is dominated by the trees: each node takes 64 bytes (plus 16 for
the compact prediction copy and 8 per class for the leaf values), so ``--min-samples-leaf``
bounds the model size (default 20: about 2 x n_train / 20 x 0.632 nodes per tree).

Peak memory is the process's peak resident set size (``ru_maxrss``), also sampled per phase.
The printed table is what ``docs/benchmarks/load.md`` records.
"""

import argparse
import datetime
import json
import os
import resource
import sys
import threading
import time

import numpy as np

import forestzoo


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakSampler:
    """Samples the resident set size every ``interval`` seconds; ``peak`` since the last reset."""

    def __init__(self, interval=0.05):
        self.interval, self.peak, self._stop = interval, rss_bytes(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, rss_bytes())

    def reset(self):
        self.peak = rss_bytes()

    def stop(self):
        self._stop.set()


def make_rows(n, d, seed, noise=0.5):
    """float32 rows and labels: y = [x0 + x1 * x2 + sin(3 x3) + noise > 0]."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d), dtype=np.float32)
    score = X[:, 0] + X[:, 1] * X[:, 2] + np.sin(3 * X[:, 3]) + noise * rng.standard_normal(n, dtype=np.float32)
    return X, (score > 0).astype(np.int8)


def model_bytes(forest):
    total = 0
    for est in forest.estimators_:
        t = est.tree_
        total += t.nodes.nbytes + t.values.nbytes + t.compact.nbytes
        total += t.obl_ptr.nbytes + t.obl_feature.nbytes + t.obl_weight.nbytes
    return total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-train", type=int, default=100_000)
    p.add_argument("--n-features", type=int, default=50)
    p.add_argument("--n-trees", type=int, default=50)
    p.add_argument("--n-predict", type=int, default=1_000_000)
    p.add_argument("--batch", type=int, default=500_000)
    p.add_argument("--n-jobs", type=int, default=-1)
    p.add_argument("--min-samples-leaf", type=int, default=20)
    p.add_argument("--splitter", default="hist", choices=["hist", "exact", "random"])
    p.add_argument("--target-gb", type=float, default=8.0)
    p.add_argument("--save", default=None, help="also time forestzoo.io.save/load to this path")
    p.add_argument("--json", default=None, help="append the results as one JSON line to this file")
    args = p.parse_args(argv)

    sampler = PeakSampler()
    rows = []

    def phase(name, seconds, **extra):
        rows.append({"phase": name, "seconds": seconds, "peak_rss_gb": sampler.peak / 1e9, **extra})
        sampler.reset()

    t = time.perf_counter()
    X, y = make_rows(args.n_train, args.n_features, seed=0)
    phase("generate train", time.perf_counter() - t)

    forest = forestzoo.RandomForestClassifier(
        n_estimators=args.n_trees, splitter=args.splitter, min_samples_leaf=args.min_samples_leaf,
        max_features="sqrt", n_jobs=args.n_jobs, random_state=0,
    )
    t = time.perf_counter()
    forest.fit(X, y)
    fit_s = time.perf_counter() - t
    del X, y
    n_nodes = sum(e.tree_.node_count for e in forest.estimators_)
    phase("fit", fit_s, trees=args.n_trees, nodes=n_nodes, model_gb=model_bytes(forest) / 1e9)

    t = time.perf_counter()
    correct, seen, batch_no = 0, 0, 0
    while seen < args.n_predict:
        n = min(args.batch, args.n_predict - seen)
        Xb, yb = make_rows(n, args.n_features, seed=1_000 + batch_no)
        proba = forest.predict_proba(Xb)
        correct += int(np.count_nonzero(np.argmax(proba, axis=1) == yb))
        seen += n
        batch_no += 1
        del Xb, yb, proba
    predict_s = time.perf_counter() - t
    phase("predict", predict_s, rows=seen, rows_per_s=seen / predict_s, accuracy=correct / seen)

    if args.save:
        from forestzoo.io import load, save

        t = time.perf_counter()
        save(forest, args.save)
        save_s = time.perf_counter() - t
        phase("save", save_s, file_gb=os.path.getsize(args.save) / 1e9)
        del forest
        t = time.perf_counter()
        load(args.save)
        phase("load", time.perf_counter() - t)
    sampler.stop()

    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # Linux: KiB
    print(f"# bench_load {datetime.date.today()}  forestzoo {forestzoo.__version__}  cpus={os.cpu_count()}")
    print(f"# {' '.join(sys.argv)}")
    print("| phase | seconds | peak RSS (GB) | details |")
    print("|---|---:|---:|---|")
    for r in rows:
        details = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
                            if k not in ("phase", "seconds", "peak_rss_gb"))
        print(f"| {r['phase']} | {r['seconds']:.1f} | {r['peak_rss_gb']:.2f} | {details} |")
    verdict = "PASS" if peak_gb < args.target_gb else "FAIL"
    print(f"\npeak RSS of the whole run: {peak_gb:.2f} GB (target < {args.target_gb:g} GB: {verdict})")
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps({"args": vars(args), "phases": rows, "peak_rss_gb": peak_gb}) + "\n")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
