"""Prediction speed of a scikit-learn forest brought into forestzoo (``forestzoo.interop.from_sklearn``).

A scikit-learn ``RandomForestClassifier`` / ``RandomForestRegressor`` is
fitted, converted with :func:`forestzoo.interop.from_sklearn`, and both
predict the same rows with the same number of threads; the predictions are
checked equal (bit for bit) before any time is reported.  Each timing is the
best of ``--repeats`` runs after one warm-up call (which also compiles
forestzoo's walker).

``dnrf``: DNRF fine-tuned from a fitted scikit-learn random forest
(``DNRFClassifier().fit(X, y, init_forest=rf)``) against that forest's own
test error, on the multi-class datasets of Table 6 of Seyedhosseini &
Tasdizen, "Disjunctive normal random forests" (2015), with the protocol of
``benchmarks/bench_dnf.py`` (official train/test splits, features z-scored
with the training part's moments, DNRF's 10 % stratified validation rows).

Usage::

    python benchmarks/bench_interop.py [predict] [--n-train 20000] [--n-predict 100000] [--n-features 20]
                                        [--n-estimators 100] [--n-jobs 2] [--repeats 3]
    FORESTZOO_DATA=../shared/datasets python benchmarks/bench_interop.py dnrf \
        [--datasets pendigits,optdigits,satimage_landsat,letter] [--n-estimators 100] [--n-epochs 100] \
        [--finetune-samples all|tree] [--init-slope 1.0]
"""

import argparse
import os
import time

import numpy as np


def best_time(fn, repeats):
    fn()  # warm-up
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(task, args):
    from sklearn.datasets import make_classification, make_regression
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    from forestzoo.interop import from_sklearn

    n = args.n_train + args.n_predict
    if task == "classification":
        X, y = make_classification(n, args.n_features, n_informative=args.n_features // 2, n_classes=2,
                                   random_state=0)
        sk = RandomForestClassifier(args.n_estimators, n_jobs=args.n_jobs, random_state=0)
    else:
        X, y = make_regression(n, args.n_features, n_informative=args.n_features // 2, noise=1.0, random_state=0)
        sk = RandomForestRegressor(args.n_estimators, max_features=1 / 3, n_jobs=args.n_jobs, random_state=0)
    X = X.astype(np.float32)
    sk.fit(X[: args.n_train], y[: args.n_train])
    Xp = np.ascontiguousarray(X[args.n_train:])
    t0 = time.perf_counter()
    fz = from_sklearn(sk)
    convert = time.perf_counter() - t0
    method = "predict_proba" if task == "classification" else "predict"
    # equality with the sums in tree order (scikit-learn's single-thread order)
    ref = getattr(sk.set_params(n_jobs=1), method)(Xp)
    sk.set_params(n_jobs=args.n_jobs)
    got = getattr(fz, method)(Xp)
    if not np.array_equal(ref, got):
        raise AssertionError(f"{task}: forestzoo's predictions differ from scikit-learn's")
    t_sk = best_time(lambda: getattr(sk, method)(Xp), args.repeats)
    t_fz = best_time(lambda: getattr(fz, method)(Xp), args.repeats)
    nodes = sum(e.tree_.node_count for e in sk.estimators_)
    print(f"| {task} | {args.n_estimators} | {nodes / args.n_estimators:.0f} | {Xp.shape[0]} | {t_sk:.3f} | "
          f"{t_fz:.3f} | {t_sk / t_fz:.2f}x | {convert:.2f} |", flush=True)


def dnrf(args):
    import sys
    import warnings

    from sklearn.ensemble import RandomForestClassifier

    from forestzoo.dnf import DNRFClassifier

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_dnf import split, zscore

    print(f"load average {os.getloadavg()[0]:.2f}; n_jobs={args.n_jobs}; {args.n_estimators} trees; "
          f"at most {args.n_epochs} epochs; finetune_samples={args.finetune_samples!r}, "
          f"init_slope={args.init_slope}; random_state 0")
    print("| dataset | n_train | scikit-learn RF error % | DNRF from it, error % | DNRF < RF? | RF fit (s) | "
          "DNRF fit (s) |")
    print("|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        Xtr, ytr, Xte, yte = split(name, 0)
        Xtr, Xte = zscore(np.asarray(Xtr, dtype=np.float64), np.asarray(Xte, dtype=np.float64))
        t0 = time.perf_counter()
        rf = RandomForestClassifier(args.n_estimators, n_jobs=args.n_jobs, random_state=0).fit(Xtr, ytr)
        t_rf = time.perf_counter() - t0
        rf_err = 100 * np.mean(rf.predict(Xte) != yte)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the ConvergenceWarning of runs cut off by n_epochs
            model = DNRFClassifier(n_epochs=args.n_epochs, finetune_samples=args.finetune_samples,
                                   init_slope=args.init_slope, n_jobs=args.n_jobs, random_state=0)
            model.fit(Xtr, ytr, init_forest=rf)
        t_dnrf = time.perf_counter() - t0
        err = 100 * np.mean(model.predict(Xte) != yte)
        print(f"| {name} | {len(ytr)} | {rf_err:.2f} | {err:.2f} | {'yes' if err < rf_err else 'no'} | "
              f"{t_rf:.1f} | {t_dnrf:.1f} |", flush=True)


def main():
    import sys

    if len(sys.argv) > 1 and sys.argv[1] == "dnrf":
        p = argparse.ArgumentParser(description="DNRF fine-tuned from a scikit-learn random forest")
        p.add_argument("what")
        p.add_argument("--datasets", default="pendigits,optdigits,satimage_landsat,letter")
        p.add_argument("--n-estimators", type=int, default=100)
        p.add_argument("--n-epochs", type=int, default=100)
        p.add_argument("--n-jobs", type=int, default=2)
        # "tree" fine-tunes each tree on its own bootstrap rows (the forest's estimators_samples_)
        p.add_argument("--finetune-samples", choices=["all", "tree"], default="all")
        p.add_argument("--init-slope", type=float, default=1.0)
        dnrf(p.parse_args())
        return
    if len(sys.argv) > 1 and sys.argv[1] == "predict":
        del sys.argv[1]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-train", type=int, default=20000)
    p.add_argument("--n-predict", type=int, default=100000)
    p.add_argument("--n-features", type=int, default=20)
    p.add_argument("--n-estimators", type=int, default=100)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--task", choices=["classification", "regression", "both"], default="both")
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; n_jobs={args.n_jobs}; best of {args.repeats}")
    print("| task | trees | nodes/tree | rows predicted | scikit-learn predict (s) | from_sklearn predict (s) "
          "| speed-up | conversion (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for task in ("classification", "regression") if args.task == "both" else (args.task,):
        run(task, args)


if __name__ == "__main__":
    main()
