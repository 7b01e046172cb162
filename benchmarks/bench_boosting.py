"""forestzoo boosting against scikit-learn, LightGBM and XGBoost: same data, same run.

Three suites (the boosting accuracy and speed targets):

* ``gbt``: forestzoo ``GradientBoostingClassifier`` (fz-gbt; fz-gbt-grad with
  ``split_gain="gradient"``, the lecture's least-squares fit of the residuals) beside scikit-learn's
  ``HistGradientBoostingClassifier`` (sk-hgb), LightGBM (lgbm), XGBoost (xgb) and, on
  request, scikit-learn's ``GradientBoostingClassifier`` (sk-gb); same depth, learning
  rate, rounds and bins.  Ratios are against sk-hgb.
* ``adaboost``: forestzoo ``AdaBoostClassifier(algorithm="SAMME")`` with the histogram
  (fz-samme) and the exact (fz-samme-exact) splitter beside scikit-learn's
  ``AdaBoostClassifier`` over its ``DecisionTreeClassifier`` (sk-ada); ``--depth`` 1 or 3.
  Ratios are against sk-ada.
* ``rus``: balanced accuracy of RUSBoost (fz-rus) against SAMME (fz-samme) and sk-ada on
  imbalanced data, over ``--repeats`` stratified hold-out splits.

Every model is timed in this process after an untimed warm-up fit of 2 rounds on the first training part (imports,
thread pools, forestzoo's JIT cache).  Timings on a shared machine are noisy: compare the
ratios of one run, and the CPU seconds (user + system, all threads).

    OMP_WAIT_POLICY=PASSIVE python benchmarks/bench_boosting.py --suite gbt
    OMP_WAIT_POLICY=PASSIVE python benchmarks/bench_boosting.py --suite adaboost --depth 1
    python benchmarks/bench_boosting.py --suite rus --repeats 5
    python benchmarks/bench_boosting.py --suite esl --repeats 5

``esl`` reproduces ESL's Fig. 10.2 example (Eq. (10.2) data): a stump, a 244-node tree and
AdaBoost.M1 over stumps, test error by round, beside the book's figures.
"""

import argparse
import datetime
import os
import platform
import resource
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before LightGBM / XGBoost load OpenMP

import numpy as np  # noqa: E402

SEED = 0
LECTURE_LARGEST = ("adult", "twonorm", "page_blocks", "waveform_21", "waveform_40")
SYNTHETIC = {
    "clf100k": "make_classification 100k x 50, 20 informative, 2 classes",
    "clf100k-10c": "make_classification 100k x 50, 20 informative, 10 classes (covtype-like: covtype is not available offline)",
    "clf20k": "make_classification 20k x 50, 20 informative, 2 classes",
    "clf20k-5c": "make_classification 20k x 50, 20 informative, 5 classes",
    "imb50": "make_classification 20k x 20, 10 informative, classes 1:50 (weights 0.98/0.02)",
}
SUITES = {
    "gbt": dict(datasets=("clf100k", "clf100k-10c") + LECTURE_LARGEST, models=("fz-gbt", "sk-hgb", "lgbm", "xgb"),
                reference="sk-hgb"),
    "adaboost": dict(datasets=("clf20k", "clf20k-5c", "page_blocks", "twonorm", "waveform_21"),
                     models=("fz-samme", "fz-samme-exact", "sk-ada"), reference="sk-ada"),
    "rus": dict(datasets=("page_blocks", "imb50"), models=("fz-samme", "fz-rus", "sk-ada"), reference="fz-samme"),
    "esl": dict(datasets=("esl-10.2",), models=(), reference=None),
}



def load(name, data_home):
    """``(X, y)`` as float32 / int64."""
    from sklearn.datasets import make_classification

    if name == "clf100k":
        X, y = make_classification(100_000, 50, n_informative=20, random_state=SEED)
    elif name == "clf100k-10c":
        X, y = make_classification(100_000, 50, n_informative=20, n_classes=10, random_state=SEED)
    elif name == "clf20k":
        X, y = make_classification(20_000, 50, n_informative=20, random_state=SEED)
    elif name == "clf20k-5c":
        X, y = make_classification(20_000, 50, n_informative=20, n_classes=5, random_state=SEED)
    elif name == "imb50":
        X, y = make_classification(20_000, 20, n_informative=10, weights=[0.98, 0.02], random_state=SEED)
    else:
        from forestzoo.datasets import load_dataset

        X, y = load_dataset(name, data_home=data_home)
    # labels 0..K-1 (XGBoost requires it)
    return np.ascontiguousarray(X, dtype=np.float32), np.unique(y, return_inverse=True)[1].astype(np.int64)


def splits(name, y, suite, repeats):
    """Train/test index pairs: one 80/20 split for the 100k sets, 3-fold CV for the lecture's,
    ``repeats`` stratified 2/3 - 1/3 hold-outs for the rus suite."""
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit, train_test_split

    rows = np.arange(y.shape[0])
    if suite == "rus":
        return list(StratifiedShuffleSplit(repeats, test_size=1 / 3, random_state=SEED).split(rows, y))
    if name in SYNTHETIC:
        return [train_test_split(rows, test_size=0.2, random_state=SEED, stratify=y)]
    return list(StratifiedKFold(3, shuffle=True, random_state=SEED).split(rows, y))


def make_model(name, args, n_classes):
    d, lr, rounds, jobs = args.depth, args.learning_rate, args.rounds, args.n_jobs
    if name in ("fz-gbt", "fz-gbt-grad"):
        from forestzoo import GradientBoostingClassifier

        return GradientBoostingClassifier(n_estimators=rounds, learning_rate=lr, max_depth=d, n_jobs=jobs,
                                          split_gain="gradient" if name == "fz-gbt-grad" else "newton",
                                          random_state=SEED)
    if name == "sk-hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=rounds, learning_rate=lr, max_depth=d, max_leaf_nodes=None,
                                              min_samples_leaf=1, l2_regularization=0.0, early_stopping=False,
                                              random_state=SEED)
    if name == "sk-gb":
        from sklearn.ensemble import GradientBoostingClassifier

        return GradientBoostingClassifier(n_estimators=rounds, learning_rate=lr, max_depth=d, random_state=SEED)
    if name == "lgbm":
        import lightgbm

        return lightgbm.LGBMClassifier(n_estimators=rounds, learning_rate=lr, max_depth=d, num_leaves=2**d,
                                       min_child_samples=1, reg_lambda=0.0, n_jobs=jobs, random_state=SEED,
                                       verbose=-1)
    if name == "xgb":
        import xgboost

        return xgboost.XGBClassifier(n_estimators=rounds, learning_rate=lr, max_depth=d, tree_method="hist",
                                     reg_lambda=0.0, min_child_weight=0.0, n_jobs=jobs, random_state=SEED)
    if name in ("fz-samme", "fz-samme-exact", "fz-rus"):
        from forestzoo import AdaBoostClassifier

        return AdaBoostClassifier(n_estimators=rounds, learning_rate=args.ada_learning_rate, max_depth=d,
                                  algorithm="RUSBoost" if name == "fz-rus" else "SAMME",
                                  splitter="exact" if name == "fz-samme-exact" else "hist", random_state=SEED)
    if name == "sk-ada":
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.tree import DecisionTreeClassifier

        return AdaBoostClassifier(DecisionTreeClassifier(max_depth=d), n_estimators=rounds,
                                  learning_rate=args.ada_learning_rate, random_state=SEED)
    raise ValueError(f"unknown model {name!r}")


def cpu_s():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def run_one(model_name, args, X, y, folds):
    from sklearn.metrics import balanced_accuracy_score

    n_classes = np.unique(y).size
    tr0 = folds[0][0]
    make_model(model_name, dict_args(args, rounds=2), n_classes).fit(X[tr0], y[tr0]).predict(X[tr0[:1000]])  # warm-up
    fit_s, fit_cpu, pred_s, acc, bacc, n_rounds = [], [], [], [], [], []
    for tr, te in folds:
        model = make_model(model_name, args, n_classes)
        c0, t0 = cpu_s(), time.perf_counter()
        model.fit(X[tr], y[tr])
        fit_s.append(time.perf_counter() - t0)
        fit_cpu.append(cpu_s() - c0)
        t0 = time.perf_counter()
        pred = model.predict(X[te])
        pred_s.append(time.perf_counter() - t0)
        acc.append(np.mean(pred == y[te]))
        bacc.append(balanced_accuracy_score(y[te], pred))
        n_rounds.append(len(getattr(model, "estimators_", [])) or args.rounds)
    return dict(model=model_name, fit_s=float(np.sum(fit_s)), fit_cpu_s=float(np.sum(fit_cpu)),
                predict_s=float(np.sum(pred_s)), accuracy=float(np.mean(acc)), balanced_accuracy=float(np.mean(bacc)),
                accuracy_std=float(np.std(acc)), rounds=float(np.mean(n_rounds)))


def dict_args(args, **changes):
    new = argparse.Namespace(**vars(args))
    for k, v in changes.items():
        setattr(new, k, v)
    return new


def table(dataset, desc, rows, reference, suite):
    ref = next((r for r in rows if r["model"] == reference), None)
    out = [f"\n### {dataset}\n", desc + "\n",
           "| model | fit s | fit CPU s | predict s | accuracy % | balanced acc. % | rounds | fit time / ref | acc. diff pp |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['fit_s'] / ref['fit_s']:.2f}" if ref else ""
        diff = f"{100 * (r['accuracy'] - ref['accuracy']):+.2f}" if ref else ""
        if suite == "rus" and ref:
            diff = f"{100 * (r['balanced_accuracy'] - ref['balanced_accuracy']):+.2f} (bal.)"
        out.append(f"| {r['model']} | {r['fit_s']:.2f} | {r['fit_cpu_s']:.2f} | {r['predict_s']:.3f} | "
                   f"{100 * r['accuracy']:.2f} | {100 * r['balanced_accuracy']:.2f} | {r['rounds']:.0f} | {ratio} | {diff} |")
    return "\n".join(out)


def esl_10_2(n, rng):
    """ESL Eq. (10.2): X ~ N(0, I_10), y = 1 if sum_j X_j^2 > chi2_10(0.5) = 9.34, else -1."""
    X = rng.normal(size=(n, 10))
    return X.astype(np.float32), np.where((X.astype(np.float32) ** 2).sum(axis=1) > 9.34, 1, -1)


def m1_error_stumps(X, y, Xt, n_rounds):
    """ESL Algorithm 10.1 with stumps that minimise the weighted error itself (exact thresholds).

    forestzoo's and scikit-learn's stumps choose the split by weighted Gini; this literal
    variant checks whether the weak learner's criterion explains the gap to the book.
    Returns the test-set margins ``F_m(Xt)`` after every round (rows: rounds).
    """
    n = y.shape[0]
    order = np.argsort(X, axis=0, kind="stable")
    Xs = np.take_along_axis(X, order, axis=0)
    between = Xs[:-1] < Xs[1:]  # a threshold fits between sorted rows k and k + 1
    w = np.full(n, 1.0 / n)
    F = np.zeros(Xt.shape[0])
    margins = np.empty((n_rounds, Xt.shape[0]))
    for m in range(n_rounds):
        pos = np.where(y == 1, w, 0.0)[order].cumsum(axis=0)  # weight of the positives up to sorted row k
        neg = np.where(y == 1, 0.0, w)[order].cumsum(axis=0)
        err_left_pos = (neg + (pos[-1] - pos))[:-1]  # the stump "+1 left of the cut, -1 right of it"
        err = np.where(between, np.minimum(err_left_pos, w.sum() - err_left_pos), np.inf)
        k, f = np.unravel_index(np.argmin(err), err.shape)
        t = 0.5 * (Xs[k, f] + Xs[k + 1, f])
        s = 1 if err_left_pos[k, f] <= w.sum() - err_left_pos[k, f] else -1
        miss = np.where(X[:, f] <= t, s, -s) != y
        e = w[miss].sum() / w.sum()
        alpha = np.log((1 - e) / e)
        w = w * np.exp(alpha * miss)
        F += alpha * np.where(Xt[:, f] <= t, s, -s)
        margins[m] = F
    return margins


def esl_reproduction(args):
    """ESL Fig. 10.2: test error of a stump, a 244-node tree and AdaBoost.M1 over stumps, by round."""
    from sklearn.ensemble import AdaBoostClassifier as SkAda
    from sklearn.tree import DecisionTreeClassifier as SkTree

    from forestzoo import AdaBoostClassifier, DecisionTreeClassifier

    n_rounds = max(400, args.rounds)
    checkpoints = [c for c in (1, 10, 50, 100, 200, 400, 800, 1200, 1600, 2000, 4000) if c <= n_rounds]
    rows = {"stump": [], "244-node tree": [], **{f"fz M1 round {c}": [] for c in checkpoints},
            "sk AdaBoost (SAMME) 400 stumps": [], "M1 over weighted-error stumps, round 400": []}
    times = {"fz": [], "sk": []}
    for seed in range(args.repeats):
        rng = np.random.RandomState(seed)
        X, y = esl_10_2(2000, rng)
        Xt, yt = esl_10_2(10000, rng)
        err = lambda pred: 100 * np.mean(pred != yt)  # noqa: E731
        rows["stump"].append(err(DecisionTreeClassifier(max_depth=1, random_state=seed).fit(X, y).predict(Xt)))
        tree = DecisionTreeClassifier(max_leaf_nodes=122, random_state=seed).fit(X, y)  # 243 nodes
        rows["244-node tree"].append(err(tree.predict(Xt)))
        t0 = time.perf_counter()
        m1 = AdaBoostClassifier(algorithm="M1", n_estimators=n_rounds, max_depth=1, random_state=seed).fit(X, y)
        times["fz"].append(time.perf_counter() - t0)
        for m, pred in enumerate(m1.staged_predict(Xt), start=1):
            if m in checkpoints:
                rows[f"fz M1 round {m}"].append(err(pred))
        t0 = time.perf_counter()
        sk = SkAda(SkTree(max_depth=1), n_estimators=400, random_state=seed).fit(X, y)
        times["sk"].append(time.perf_counter() - t0)
        rows["sk AdaBoost (SAMME) 400 stumps"].append(err(sk.predict(Xt)))
        margins = m1_error_stumps(X.astype(np.float64), y, Xt.astype(np.float64), 400)
        rows["M1 over weighted-error stumps, round 400"].append(err(np.where(margins[-1] > 0, 1, -1)))
    # ESL (Hastie, Tibshirani & Friedman 2009), Sec. 10.1 / Fig. 10.2, test error %: a stump 45.8,
    # a 244-node tree 24.7, AdaBoost.M1 with stumps after 400 rounds 5.8
    paper = {"stump": 45.8, "244-node tree": 24.7, "fz M1 round 400": 5.8, "sk AdaBoost (SAMME) 400 stumps": 5.8,
             "M1 over weighted-error stumps, round 400": 5.8}
    out = [f"\n### ESL Eq. (10.2), 2000 training / 10000 test rows, {args.repeats} data draws (mean +- std)\n",
           "| model | test error % | ESL Fig. 10.2 % |", "|---|---|---|"]
    for name, errs in rows.items():
        out.append(f"| {name} | {np.mean(errs):.1f} +- {np.std(errs):.1f} | {paper.get(name, '')} |")
    out.append(f"\nfit seconds per run: forestzoo M1 ({n_rounds} rounds) {np.mean(times['fz']):.2f}, "
               f"scikit-learn (400 rounds) {np.mean(times['sk']):.2f}")
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", choices=SUITES, default="gbt")
    p.add_argument("--datasets", help="comma-separated; default: the suite's")
    p.add_argument("--models", help="comma-separated; default: the suite's")
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--rounds", type=int, default=100, help="boosting rounds (esl suite: at least 400)")
    p.add_argument("--learning-rate", type=float, default=0.1, help="gbt suite")
    p.add_argument("--ada-learning-rate", type=float, default=1.0, help="adaboost / rus suites")
    p.add_argument("--repeats", type=int, default=5, help="rus suite: hold-out splits; esl suite: data draws")
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--data-home", default=None,
                   help="directory of the data-directory datasets (default: $FORESTZOO_DATA)")
    p.add_argument("--markdown", help="append the tables to this file")
    args = p.parse_args(argv)
    suite = SUITES[args.suite]
    datasets = args.datasets.split(",") if args.datasets else suite["datasets"]
    models = args.models.split(",") if args.models else suite["models"]

    import sklearn

    import forestzoo

    head = [f"# bench_boosting --suite {args.suite} ({datetime.date.today()})",
            f"command: `{' '.join(['python', 'benchmarks/bench_boosting.py'] + (argv or sys.argv[1:]))}`",
            f"machine: {platform.machine()}, {os.cpu_count()} CPUs visible, affinity {len(os.sched_getaffinity(0))} CPUs, "
            f"load average {os.getloadavg()[0]:.2f}; forestzoo {forestzoo.__version__}, scikit-learn "
            f"{sklearn.__version__}; depth {args.depth}, rounds {args.rounds}, n_jobs {args.n_jobs}"]
    print("\n".join(head), flush=True)
    chunks = ["\n".join(head)]
    if args.suite == "esl":
        chunk = esl_reproduction(args)
        print(chunk, flush=True)
        if args.markdown:
            with open(args.markdown, "a") as fh:
                fh.write("\n".join(head) + "\n" + chunk + "\n")
        return chunks + [chunk]
    for name in datasets:
        try:
            X, y = load(name, args.data_home)
        except FileNotFoundError as exc:
            print(f"skip {name}: {exc}")
            continue
        folds = splits(name, y, args.suite, args.repeats)
        rows = []
        for model in models:
            rows.append(run_one(model, args, X, y, folds))
            r = rows[-1]
            print(f"  {name:12s} {model:15s} fit {r['fit_s']:7.2f}s cpu {r['fit_cpu_s']:7.2f}s "
                  f"acc {100 * r['accuracy']:.2f} bacc {100 * r['balanced_accuracy']:.2f}", flush=True)
        n_cls = np.unique(y).size
        protocol = ("one stratified 80/20 split" if name in SYNTHETIC and args.suite != "rus" else
                    f"{len(folds)} stratified 2/3-1/3 hold-outs, mean" if args.suite == "rus" else
                    "3-fold stratified CV, fit/predict times summed over folds, accuracy averaged")
        desc = f"{SYNTHETIC.get(name, name)}: {X.shape[0]} x {X.shape[1]}, {n_cls} classes; {protocol}; load {os.getloadavg()[0]:.2f}"
        chunk = table(name, desc, rows, suite["reference"], args.suite)
        print(chunk, flush=True)
        chunks.append(chunk)
        if args.markdown:
            with open(args.markdown, "a") as fh:
                fh.write(("\n".join(head) + "\n" if len(chunks) == 2 else "") + chunk + "\n")
    return chunks


if __name__ == "__main__":
    main()
