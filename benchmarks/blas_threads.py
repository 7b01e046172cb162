"""Fit time of the MPSVM forests with one BLAS thread per tree thread against BLAS's own threads.

Since commit 3c62367 the rotation / oblique forests fit their trees inside
``forestzoo._parallel.single_threaded_blas()``: each tree thread's LAPACK calls (the nodes'
eigenproblems, the rotations' PCA) run on one BLAS thread.  Before, every such call could also
start OpenBLAS's own threads (one per core by default), and with ``n_jobs`` tree threads the
cores were oversubscribed.  This script times both in one process, alternating the order
(A B, B A, ...), on a 2/3 split of each dataset; "unlimited" replaces the guard by a no-op, so
BLAS keeps the process's setting.  Prints the median fit seconds and their ratio.

    FORESTZOO_DATA=... python benchmarks/blas_threads.py [--datasets ozone_8hr,vehicle]
        [--forests MPRoF,MPRRoF,MPRaF] [--regularization tikhonov] [--n-jobs 2] [--repeats 6]
"""

import argparse
import contextlib
import time

import numpy as np
from mpsvm_node_cost import FORESTS  # the registered MPSVM forests' settings (beside this script)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="ozone_8hr,vehicle")
    parser.add_argument("--forests", default="MPRoF,MPRRoF,MPRaF")
    parser.add_argument("--regularization", default="tikhonov", choices=["tikhonov", "axis", "null_space"])
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=6, help="fits per mode (default: 6)")
    args = parser.parse_args()

    import forestzoo.ensemble._rotation as rotation
    from forestzoo.datasets import load_dataset
    from forestzoo.oblique import MPSVMForestClassifier
    from threadpoolctl import threadpool_info

    guard = rotation.single_threaded_blas
    modes = {"limited": guard, "unlimited": lambda *a: contextlib.nullcontext()}
    blas = sorted({(i["internal_api"], i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"})
    print(f"BLAS libraries (api, threads): {blas}; n_jobs={args.n_jobs}, {args.n_estimators} trees, "
          f"median of {args.repeats} fits per mode")
    print("| dataset | rows x features | forest | limited s | unlimited s | unlimited / limited |")
    print("|---|---|---|---:|---:|---:|")
    try:
        for name in args.datasets.split(","):
            X, y = load_dataset(name)
            X = np.asarray(X, dtype=np.float64)
            train = np.random.default_rng(0).permutation(y.shape[0])[: 2 * y.shape[0] // 3]
            for forest in args.forests.split(","):
                MPSVMForestClassifier(n_estimators=2, **FORESTS[forest]).fit(X[train[:100]], y[train[:100]])  # compile
                times = {mode: [] for mode in modes}
                for r in range(args.repeats):
                    for mode in (list(modes) if r % 2 == 0 else list(modes)[::-1]):
                        rotation.single_threaded_blas = modes[mode]
                        model = MPSVMForestClassifier(n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                                                      regularization=args.regularization, random_state=0,
                                                      **FORESTS[forest])
                        start = time.perf_counter()
                        model.fit(X[train], y[train])
                        times[mode].append(time.perf_counter() - start)
                lim, unl = np.median(times["limited"]), np.median(times["unlimited"])
                print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {forest}-{args.regularization} | {lim:.2f} | "
                      f"{unl:.2f} | {unl / lim:.2f} |", flush=True)
    finally:
        rotation.single_threaded_blas = guard


if __name__ == "__main__":
    main()
