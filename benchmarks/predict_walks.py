"""Prediction time of forestzoo's and scikit-learn's Random Forest, side by side, on dense and sparse rows.

    PYTHONPATH=. python benchmarks/predict_walks.py [--n-samples 20000] [--n-features 2000] [--density 0.01]
        [--n-estimators 20] [--repeat 5] [--data sparse-like|numeric]

``sparse-like``: the matrix of ``benchmarks/sparse_fit.py`` (stored cells
drawn uniformly, a label from a sparse linear score), predicted as a CSR
matrix and as the same matrix made dense.  Fully grown trees on such data
are long chains of splits (paths of about 130 nodes at 1 % density), where
forestzoo walks a row by branches (see ``forestzoo._engine.tree.walk_by_branch``).
``numeric``: ``make_classification`` with as many features, dense only.
Both forests have ``max_features="sqrt"``, ``n_jobs=1``, ``random_state=0``,
and are fitted on all rows; every row is then predicted.  The script prints
the best CPU time of ``--repeat`` ``predict_proba`` calls per model and input,
and scikit-learn's time over forestzoo's.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def best_cpu(f, repeat):
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-samples", type=int, default=20000)
    p.add_argument("--n-features", type=int, default=2000)
    p.add_argument("--density", type=float, default=0.01)
    p.add_argument("--n-estimators", type=int, default=20)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--data", choices=("sparse-like", "numeric"), default="sparse-like")
    args = p.parse_args(argv)

    from sklearn.ensemble import RandomForestClassifier as SkForest

    from forestzoo import RandomForestClassifier

    if args.data == "sparse-like":
        from sparse_fit import make_sparse

        X, y = make_sparse(args.n_samples, args.n_features, args.density)
        inputs = {"dense": X.toarray(), "CSR": X}
    else:
        from sklearn.datasets import make_classification

        X, y = make_classification(args.n_samples, args.n_features, n_informative=min(50, args.n_features // 2),
                                   random_state=0)
        X = X.astype(np.float32)
        inputs = {"dense": X}
    kw = dict(n_estimators=args.n_estimators, max_features="sqrt", n_jobs=1, random_state=0)
    models = {"forestzoo": RandomForestClassifier(**kw).fit(X, y), "scikit-learn": SkForest(**kw).fit(X, y)}
    depth = np.mean([e.tree_.max_depth for e in models["forestzoo"].estimators_])
    print(f"# {args.data} {args.n_samples} x {args.n_features}"
          f"{f', density {args.density}' if args.data == 'sparse-like' else ''}, {args.n_estimators} trees "
          f"(mean max depth {depth:.0f}); best CPU seconds of {args.repeat} predict_proba of every row")
    print("| input | forestzoo s | scikit-learn s | scikit-learn / forestzoo |")
    print("|---|---:|---:|---:|")
    for name, data in inputs.items():
        for m in models.values():
            m.predict_proba(data[:10])  # compiled kernels loaded, not timed
        t = {k: best_cpu(lambda m=m: m.predict_proba(data), args.repeat) for k, m in models.items()}
        print(f"| {name} | {t['forestzoo']:.3f} | {t['scikit-learn']:.3f} | {t['scikit-learn'] / t['forestzoo']:.2f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
