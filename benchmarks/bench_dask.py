"""Data-local Dask forests (forestzoo.dask) against the in-memory forest, scikit-learn and XGBoost's Dask RF.

The training set is generated block by block on the workers (a dask array:
the client never holds it).  For each worker count: a fresh LocalCluster of
worker processes (one thread each) with ``--memory-limit`` per worker; the
first fit (kernels loaded or compiled by the warm-up), a second fit (the
steady state) with the CPU seconds it used (the client process, which runs
the scheduler, plus every worker process) and the machine's load average
during it, the peak resident memory of each worker process, and the test
accuracy.  On shared cores the wall-clock time follows the other users' load;
the CPU seconds much less so.  The same rows, computed in this process, then fit the in-memory
forestzoo forest (``n_jobs`` = the number of cores) and scikit-learn's RF on
a subsample of ``--sklearn-rows``.

    PYTHONPATH=. python benchmarks/bench_dask.py --rows 400000 --features 20 --trees 20 --workers 2 4

``--bagging local global`` runs both designs of ``forestzoo.dask`` (per-worker
bagging, and global bagging on summed histograms), each on a fresh cluster.
"""

import argparse
import logging
import os
import pickle
import resource
import time

import numpy as np


def _block(block_id, rows, n_features, seed):
    """Rows of one block: Gaussian features, a label from a noisy non-linear rule."""
    rng = np.random.default_rng([seed, block_id])
    X = rng.standard_normal((rows, n_features)).astype(np.float32)
    score = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.5 * X[:, 3] - 0.3 * X[:, 4] ** 2
    y = (score + 0.5 * rng.standard_normal(rows) > 0).astype(np.int64)
    return X, y


def _dask_data(n_rows, n_features, n_blocks, seed):
    import dask
    import dask.array as da

    rows = np.diff(np.linspace(0, n_rows, n_blocks + 1).astype(int))
    blocks = [dask.delayed(_block, nout=2)(i, int(r), n_features, seed) for i, r in enumerate(rows)]
    X = da.concatenate([da.from_delayed(b[0], (int(r), n_features), np.float32) for b, r in zip(blocks, rows)])
    y = da.concatenate([da.from_delayed(b[1], (int(r),), np.int64) for b, r in zip(blocks, rows)])
    return X, y, rows


def _peak_rss_mb():
    """Peak resident memory of this process (MiB): its ``VmHWM``.

    ``ru_maxrss`` is not used: Linux keeps it across ``execve``, so a worker
    process started by a large parent would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s(client=None):
    """CPU seconds used so far by this process (the client, and a LocalCluster's scheduler) and ``client``'s workers."""
    return time.process_time() + (sum(client.run(time.process_time).values()) if client is not None else 0.0)


def _load():
    """The machine's 1-minute load average (other users' jobs share the cores)."""
    return os.getloadavg()[0]


def run_dask(args, n_workers, X_test, y_test, bagging="local"):
    import distributed

    from forestzoo.dask import DaskRandomForestClassifier

    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=":0", memory_limit=args.memory_limit,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        X, y, _ = _dask_data(args.rows, args.features, args.blocks, args.seed)
        t0 = time.perf_counter()
        X, y = client.persist([X, y])
        distributed.wait([X, y])
        t_data = time.perf_counter() - t0
        est = DaskRandomForestClassifier(n_estimators=args.trees, max_features="sqrt", random_state=0, client=client,
                                         bagging=bagging, min_samples_leaf=args.min_samples_leaf)
        t0 = time.perf_counter()
        est.fit(X, y)
        first = time.perf_counter() - t0
        t0, cpu0, load0 = time.perf_counter(), _cpu_s(client), _load()
        if args.task_stream:
            with distributed.get_task_stream(client) as stream:
                est.fit(X, y)
        else:
            est.fit(X, y)
        second = time.perf_counter() - t0
        cpu = _cpu_s(client) - cpu0
        load = (load0 + _load()) / 2
        peaks = client.run(_peak_rss_mb)
        acc = float((est.predict(X_test) == y_test).mean())
        # the fitted forest's size (its trees pickled one at a time): fully grown trees on millions of rows are
        # hundreds of MiB, and the client holds the forest, so this is what its memory is compared with
        model_mb = sum(len(pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)) for tree in est.estimators_) / 2**20
        if args.task_stream:
            _print_task_stream(stream.data, f"bagging={bagging}, {n_workers} workers", second, n_workers)
        row = dict(method=f"forestzoo.dask bagging={bagging}, {n_workers} workers", first_fit=first, fit=second,
                   cpu=cpu, load=load, data=t_data, peak_mb=max(peaks.values()), client_mb=_peak_rss_mb(),
                   model_mb=model_mb, acc=acc)
        if args.xgboost and bagging == args.bagging[0]:
            row_x = _run_xgb(client, X, y, X_test, y_test, args)
            return [row, row_x]
        return [row]


def _print_task_stream(records, label, fit_s, n_workers):
    """Time inside the tasks of one fit, by task function, from ``distributed``'s task stream."""
    by_name = {}
    start = min(ss["start"] for r in records for ss in r["startstops"])
    first = {}
    busy = 0.0
    for r in records:
        key = r["key"] if isinstance(r["key"], str) else r["key"][0]
        name = key.split("-")[0]
        for ss in r["startstops"]:
            if ss["action"] != "compute":
                continue
            count, seconds = by_name.get(name, (0, 0.0))
            by_name[name] = (count + 1, seconds + ss["stop"] - ss["start"])
            busy += ss["stop"] - ss["start"]
            first[name] = min(first.get(name, np.inf), ss["start"] - start)
    print(f"\n{label}: fit {fit_s:.2f} s; the workers computed {busy:.2f} s of tasks, "
          f"{100 * busy / (n_workers * fit_s):.0f} % of their time")
    print("| task | count | time in tasks (s) | first starts at (s) |")
    print("|---|---|---|---|")
    for name, (count, seconds) in sorted(by_name.items(), key=lambda kv: -kv[1][1]):
        print(f"| `{name}` | {count} | {seconds:.2f} | {first[name]:.2f} |")


def _run_xgb(client, X, y, X_test, y_test, args):
    try:
        from xgboost.dask import DaskXGBRFClassifier
    except ImportError as error:
        return dict(method=f"xgboost DaskXGBRFClassifier: not run ({error})")

    model = DaskXGBRFClassifier(n_estimators=args.trees, max_depth=args.xgb_depth, tree_method="hist",
                                colsample_bynode=np.sqrt(args.features) / args.features, subsample=0.632,
                                random_state=0)
    model.client = client
    t0 = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - t0
    peaks = client.run(_peak_rss_mb)
    pred = model.predict(X_test)
    acc = float((np.asarray(pred.compute() if hasattr(pred, "compute") else pred) == y_test).mean())
    workers = len(client.nthreads())
    return dict(method=f"xgboost DaskXGBRFClassifier (max_depth={args.xgb_depth}), {workers} workers",
                first_fit=fit, fit=fit, peak_mb=max(peaks.values()), acc=acc)


def first_fit(n_workers, cache_dir, warm, bagging="local"):
    """Seconds of the first fit on a fresh cluster whose Numba cache is ``cache_dir`` (empty: every kernel compiles)."""
    import distributed

    import forestzoo.dask as fzd

    X, y, _ = _dask_data(4000, 10, 2 * n_workers, 0)
    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=":0", env={"NUMBA_CACHE_DIR": cache_dir},
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        X, y = client.persist([X, y])
        distributed.wait([X, y])
        if not warm:  # every worker compiles on its own, all at once
            fzd.warm_up = lambda *a, **k: None
        t0 = time.perf_counter()
        fzd.DaskRandomForestClassifier(n_estimators=2 * n_workers, random_state=0, client=client,
                                       bagging=bagging).fit(X, y)
        return time.perf_counter() - t0


def run_local(args, X_test, y_test):
    import dask
    from sklearn.ensemble import RandomForestClassifier as SkRF

    from forestzoo import RandomForestClassifier

    X, y, _ = _dask_data(args.rows, args.features, args.blocks, args.seed)
    X, y = dask.compute(X, y, scheduler="synchronous")
    rows = []
    t0, cpu0, load0 = time.perf_counter(), _cpu_s(), _load()
    est = RandomForestClassifier(n_estimators=args.trees, random_state=0, n_jobs=args.cores,
                                 min_samples_leaf=args.min_samples_leaf).fit(X, y)
    rows.append(dict(method=f"forestzoo in memory, n_jobs={args.cores}", fit=time.perf_counter() - t0,
                     cpu=_cpu_s() - cpu0, load=(load0 + _load()) / 2,
                     acc=float((est.predict(X_test) == y_test).mean())))
    sub = np.random.default_rng(0).choice(X.shape[0], min(args.sklearn_rows, X.shape[0]), replace=False)
    t0 = time.perf_counter()
    sk = SkRF(n_estimators=args.trees, random_state=0, n_jobs=args.cores,
              min_samples_leaf=args.min_samples_leaf).fit(X[sub], y[sub])
    rows.append(dict(method=f"scikit-learn RF on {sub.size} rows, n_jobs={args.cores}",
                     fit=time.perf_counter() - t0, acc=float((sk.predict(X_test) == y_test).mean())))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--memory-limit", default="1.5GiB")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--sklearn-rows", type=int, default=100_000)
    parser.add_argument("--test-rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-samples-leaf", type=int, default=1,
                        help="of every forest; on millions of rows, fully grown trees make a forest of GiBs")
    parser.add_argument("--bagging", nargs="+", choices=["local", "global"], default=["local"],
                        help="forestzoo.dask designs to run (a fresh cluster for each)")
    parser.add_argument("--xgboost", action="store_true")
    parser.add_argument("--xgb-depth", type=int, default=12)
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument("--task-stream", action="store_true",
                        help="print the time inside each kind of task of the second fit (distributed's task stream)")
    parser.add_argument("--local-code-bytes", type=int,
                        help="global bagging: grow a node on one worker below max(100000, this / n_features) "
                             "distinct rows (default: forestzoo's 8 MiB; 0: 100000 rows)")
    parser.add_argument("--first-fit", action="store_true",
                        help="time the first fit on fresh clusters with an empty NUMBA_CACHE_DIR, then exit")
    args = parser.parse_args()
    if args.local_code_bytes is not None:  # read by the client, which chooses the nodes grown on one worker
        import forestzoo._dask_hist

        forestzoo._dask_hist.LOCAL_CODE_BYTES = args.local_code_bytes
    if args.first_fit:
        import tempfile

        for n in args.workers:
            for bagging in args.bagging:
                for warm in (True, False):
                    with tempfile.TemporaryDirectory() as cache:
                        print(f"{n} workers, bagging={bagging}, empty cache, warm-up "
                              f"{'one worker first' if warm else 'off'}: first fit "
                              f"{first_fit(n, cache, warm, bagging):.1f} s", flush=True)
        return

    X_test, y_test = _block(10**6, args.test_rows, args.features, args.seed)
    size_mb = args.rows * args.features * 4 / 2**20
    print(f"training set {args.rows} x {args.features} float32 = {size_mb:.0f} MiB in {args.blocks} blocks; "
          f"{args.trees} trees; worker memory_limit {args.memory_limit}", flush=True)
    rows = []
    for n in args.workers:
        for bagging in args.bagging:
            rows += run_dask(args, n, X_test, y_test, bagging)
            print(rows[-1], flush=True)
    reference = None
    if not args.skip_local:
        local_rows = run_local(args, X_test, y_test)
        reference = local_rows[0]["acc"]
        rows += local_rows
    print("\n| method | first fit (s) | fit (s) | fit CPU (s) | load | peak RSS per worker (MiB) "
          "| client peak RSS (MiB) | forest (MiB) | test accuracy | vs in memory (pp) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [r["method"]] + [f"{r[k]:.1f}" if isinstance(r.get(k), float) else "" for k in
                                 ("first_fit", "fit", "cpu", "load", "peak_mb", "client_mb", "model_mb")]
        cells.append(f"{r['acc']:.4f}" if "acc" in r else "")
        cells.append(f"{100 * (r['acc'] - reference):+.2f}" if reference is not None and "acc" in r else "")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
