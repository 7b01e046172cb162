"""The two dense walks of axis-aligned trees side by side: eight rows together, and lanes that take the next row.

    PYTHONPATH=. python benchmarks/predict_lanes.py [--n-predict 100000] [--n-trees 8] [--repeat 5]
        [--cases rf-bin,et-reg,...]

For each case a forestzoo forest (or a scikit-learn forest brought in with
``forestzoo.interop.from_sklearn``) is fitted on generated rows
(``make_classification`` / ``make_regression``, 30 features, or 20 for the
scikit-learn case), and every tree walks ``--n-predict`` further rows with
``apply_compact`` (eight rows go down together until the deepest has reached
its leaf) and with ``apply_lanes`` (a lane whose row has reached its leaf
takes the next row at once).  Both walks are checked to reach the same
leaves; the script prints, per case, the trees' mean path spread
(``path_spread``: the expected deepest of eight paths over the mean path,
for rows distributed as the training rows), the compact table's size, the
best of ``--repeat`` CPU times of each walk over all trees (one thread), and
lanes / eight, with the choice that ``walk_in_lanes`` makes.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predict_walks import best_cpu  # noqa: E402

CASES = {
    # name: (estimator, parameters, task, training rows)
    "rf-bin": ("RandomForestClassifier", {}, "binary", 50000),
    "rf-bin-5k": ("RandomForestClassifier", {}, "binary", 5000),
    "rf-bin-200k": ("RandomForestClassifier", {}, "binary", 200000),
    "et-bin": ("ExtraTreesClassifier", {}, "binary", 50000),
    "rf-10c": ("RandomForestClassifier", {}, "10-class", 50000),
    "rf-10c-depth6": ("RandomForestClassifier", {"max_depth": 6}, "10-class", 50000),
    "rf-reg": ("RandomForestRegressor", {}, "regression", 50000),
    "rf-reg-leaf5": ("RandomForestRegressor", {"min_samples_leaf": 5}, "regression", 50000),
    "et-reg": ("ExtraTreesRegressor", {}, "regression", 50000),
    "et-reg-5k": ("ExtraTreesRegressor", {}, "regression", 5000),
    "sklearn-rf-bin": ("sklearn", {}, "binary", 20000),
}


def fitted_trees(name, n_predict, n_trees):
    from sklearn.datasets import make_classification, make_regression

    import forestzoo
    from forestzoo.interop import from_sklearn

    cls, params, task, n_train = CASES[name]
    d = 20 if cls == "sklearn" else 30
    n = n_train + n_predict
    if task == "regression":
        X, y = make_regression(n, d, n_informative=15, random_state=0)
    else:
        X, y = make_classification(n, d, n_informative=min(15, d // 2), n_classes=2 if task == "binary" else 10,
                                   random_state=0)
    X = X.astype(np.float32)
    if cls == "sklearn":
        from sklearn.ensemble import RandomForestClassifier

        forest = from_sklearn(RandomForestClassifier(n_trees, random_state=0).fit(X[:n_train], y[:n_train]))
    else:
        forest = getattr(forestzoo, cls)(n_estimators=n_trees, random_state=0, **params).fit(X[:n_train], y[:n_train])
    return [e.tree_ for e in forest.estimators_], np.ascontiguousarray(X[n_train:])


def main(argv=None):
    from forestzoo._engine.api import apply_compact, apply_lanes, path_spread, walk_in_lanes

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-predict", type=int, default=100000)
    p.add_argument("--n-trees", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--cases", default=",".join(CASES))
    args = p.parse_args(argv)
    print("| case | path spread | table KB | eight together (s) | lanes (s) | lanes / eight | lanes chosen |")
    print("|---|---|---|---|---|---|---|")
    for name in args.cases.split(","):
        trees, X = fitted_trees(name, args.n_predict, args.n_trees)
        a = np.empty(X.shape[0], np.intp)
        b = np.empty(X.shape[0], np.intp)
        for t in trees:  # compiles both walks, and checks that they agree
            apply_compact(X, t.compact, t.walk_nodes, t.obl_ptr, t.obl_feature, t.obl_weight, a)
            apply_lanes(X, t.compact, b)
            if not np.array_equal(a, b):
                raise AssertionError(f"{name}: the two walks reached different leaves")

        def eight():
            for t in trees:
                apply_compact(X, t.compact, t.walk_nodes, t.obl_ptr, t.obl_feature, t.obl_weight, a)

        def lanes():
            for t in trees:
                apply_lanes(X, t.compact, b)

        te, tl = [], []
        for _ in range(args.repeat):  # alternated, so that a change of the machine's speed hits both
            te.append(best_cpu(eight, 1))
            tl.append(best_cpu(lanes, 1))
        spread = float(np.mean([path_spread(t) for t in trees]))
        kb = float(np.mean([t.compact.nbytes for t in trees])) / 1024
        chosen = sum(walk_in_lanes(t) for t in trees)
        print(f"| {name} | {spread:.3f} | {kb:.0f} | {min(te):.4f} | {min(tl):.4f} | {min(tl) / min(te):.2f} | "
              f"{chosen} of {len(trees)} |", flush=True)


if __name__ == "__main__":
    main()
