"""SDT and Haar trees against the exact CART tree, side by side in one run (the stochastic decision-tree induction paper).

Two parts, each printing a markdown table:

``sdt``
    For every dataset and depth: the exact CART tree (``splitter="exact"``) and the SDT tree
    (``splitter="stochastic"``, the paper's C=10, alpha=8, 0.5 % of the features, N_0=20),
    fitted on the same split. Columns: test accuracy of both and their difference (pp), the
    (sample, feature) evaluations of the split searches (``tree_.n_split_evaluations``,
    deterministic) and their ratio, fit CPU seconds and their ratio. ``--alt C,alpha,frac,n0``
    adds a second SDT setting; ``--sdt-seeds K`` fits K SDT trees per setting (mean ± std).
``haar``
    The Haar tree (SDT over the 123,008 Haar features of a 28 x 28 image) against CART on raw
    pixels at the same depth: accuracy, fit CPU seconds, peak RSS of the process, evaluations,
    and inference cost (mean operations per image: integral image + entries read on the path).

Datasets: satimage_landsat (official split), isolet_subset (no official split: stratified 80/20,
seed 0), fashion_mnist (official 60,000 / 10,000), mnist8k (mnist_test_only, the only MNIST
images offline: the first 8,000 images train, the last 2,000 test), synthetic (covtype-like:
make_classification, 54 features, 7 classes, 10 informative + 10 redundant, 400,000 training and
100,000 test rows). ``--max-train N`` subsamples the training rows (stratified, seed 0) to fit a
loaded machine; the table says so.

Run (with ``FORESTZOO_DATA`` naming the data directory)::

    python benchmarks/bench_sdt.py sdt --depths 5 8 12
    python benchmarks/bench_sdt.py haar --datasets mnist8k fashion_mnist --depths 12

CPU seconds (``time.process_time``) are reported rather than wall seconds: CART and SDT fits
are single-threaded and their CPU time is less disturbed by other processes on a shared
machine. The Haar tree's search can use ``--n-jobs`` threads; its wall seconds are reported too.
"""

import argparse
import datetime
import platform
import resource
import sys
import time

import numpy as np

from forestzoo import DecisionTreeClassifier, HaarTreeClassifier
from forestzoo.datasets import load_dataset

SDT_DATASETS = ("satimage_landsat", "isolet_subset", "fashion_mnist", "synthetic")
HAAR_DATASETS = ("mnist8k", "fashion_mnist")


def load(name, max_train=None, synthetic_rows=400_000):
    """``(X_train, y_train, X_test, y_test, note)`` of a benchmark dataset."""
    from sklearn.model_selection import train_test_split

    note = ""
    if name in ("satimage_landsat", "fashion_mnist"):
        Xtr, ytr = load_dataset(name, split="train")
        Xte, yte = load_dataset(name, split="test")
    elif name == "isolet_subset":
        X, y = load_dataset(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        note = "stratified 80/20"
    elif name == "mnist8k":
        X, y = load_dataset("mnist_test_only")
        Xtr, ytr, Xte, yte = X[:8000], y[:8000], X[8000:], y[8000:]
        note = "MNIST test images 0-7999 / 8000-9999"
    elif name == "synthetic":
        from sklearn.datasets import make_classification

        n_test = synthetic_rows // 4
        X, y = make_classification(synthetic_rows + n_test, 54, n_informative=10, n_redundant=10, n_classes=7,
                                   random_state=0)
        Xtr, ytr, Xte, yte = X[:synthetic_rows], y[:synthetic_rows], X[synthetic_rows:], y[synthetic_rows:]
    else:
        raise ValueError(f"unknown dataset {name!r}")
    if max_train is not None and Xtr.shape[0] > max_train:
        Xtr, _, ytr, _ = train_test_split(Xtr, ytr, train_size=max_train, stratify=ytr, random_state=0)
        note = (note + "; " if note else "") + f"train subsampled to {max_train}"
    f32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731  (both models fit on float32)
    return f32(Xtr), ytr, f32(Xte), yte, note


def fit_timed(model, X, y):
    """CPU seconds of the fit (all threads of the process)."""
    t0 = time.process_time()
    model.fit(X, y)
    return time.process_time() - t0


def run_sdt(args):
    rows = []
    alt = None if args.alt is None else sdt_setting(args.alt)
    for name in args.datasets:
        Xtr, ytr, Xte, yte, note = load(name, args.max_train, args.synthetic_rows)
        # warm-up: compile the kernels outside the timings
        for sp in ("exact", "stochastic"):
            DecisionTreeClassifier(splitter=sp, max_depth=2, random_state=0).fit(Xtr[:500], ytr[:500])
        for depth in args.depths:
            cart = DecisionTreeClassifier(max_depth=depth, random_state=args.seed)
            t_cart = fit_timed(cart, Xtr, ytr)
            a_cart = cart.score(Xte, yte)
            settings = [("SDT", {})]
            if alt is not None:
                settings.append((f"SDT{tuple(float(v) for v in alt.values())}", alt))  # as earlier tables label it
            for label, kw in settings:
                # SDT is stochastic: --sdt-seeds trees (seeds seed, seed + 1, ...) against the one CART tree
                acc, evals, secs = [], [], []
                for s in range(args.seed, args.seed + args.sdt_seeds):
                    sdt = DecisionTreeClassifier(splitter="stochastic", max_depth=depth, random_state=s, **kw)
                    secs.append(fit_timed(sdt, Xtr, ytr))
                    acc.append(100 * sdt.score(Xte, yte))
                    evals.append(sdt.tree_.n_split_evaluations)
                a_sdt, t_sdt, e_sdt = np.mean(acc), np.mean(secs), np.mean(evals)
                shown = f"{a_sdt:.2f}" if len(acc) == 1 else f"{a_sdt:.2f} ± {np.std(acc, ddof=1):.2f}"
                e_cart = cart.tree_.n_split_evaluations
                rows.append((name, f"{Xtr.shape[0]}x{Xtr.shape[1]}", depth, label, 100 * a_cart, shown,
                             a_sdt - 100 * a_cart, e_cart, e_sdt, e_cart / e_sdt, t_cart, t_sdt, t_cart / t_sdt,
                             note))
                print(_fmt_sdt(rows[-1]), flush=True)
    return rows


def _fmt_sdt(r):
    return ("| {} | {} | {} | {} | {:.2f} | {} | {:+.2f} | {:.3g} | {:.3g} | {:.1f}x | {:.2f} | {:.2f} | "
            "{:.1f}x | {} |").format(*r)


SDT_HEADER = ("| dataset | train | depth | model | CART acc % | SDT acc % | diff pp | CART evals | SDT evals | "
              "evals ratio | CART fit s | SDT fit s | fit ratio | note |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def sdt_setting(text):
    """``"C,alpha,min_features_fraction,n0"`` -> the estimators' ``sdt_*`` keyword arguments."""
    c, alpha, frac, n0 = (float(v) for v in text.split(","))
    return dict(sdt_C=int(c), sdt_alpha=int(alpha), sdt_min_features_fraction=frac, sdt_n0=int(n0))


def run_haar(args):
    rows = []
    haar_sdt = {} if args.haar_sdt is None else sdt_setting(args.haar_sdt)
    for name in args.datasets:
        Xtr, ytr, Xte, yte, note = load(name, args.max_train)
        HaarTreeClassifier(max_depth=2, random_state=0).fit(Xtr[:300], ytr[:300])  # warm-up (compilation)
        for depth in args.depths:
            cart = DecisionTreeClassifier(max_depth=depth, criterion=args.criterion, random_state=args.seed)
            t_cart = fit_timed(cart, Xtr, ytr)
            haar = HaarTreeClassifier(max_depth=depth, criterion=args.criterion, random_state=args.seed,
                                      n_jobs=args.n_jobs, **haar_sdt)
            w0 = time.perf_counter()
            t_haar = fit_timed(haar, Xtr, ytr)
            w_haar = time.perf_counter() - w0
            a_cart, a_haar = cart.score(Xte, yte), haar.score(Xte, yte)
            cart_ops = float(np.asarray(cart.decision_path(Xte).sum(axis=1)).mean() - 1)  # one comparison per node
            rows.append((name, f"{Xtr.shape[0]}x{Xtr.shape[1]}", depth, 100 * a_cart, 100 * a_haar,
                         100 * (a_haar - a_cart), t_cart, t_haar, w_haar, args.n_jobs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
                         haar.n_split_evaluations_, cart_ops, haar.inference_cost(Xte), haar.get_depth(), note))
            print(_fmt_haar(rows[-1]), flush=True)
    return rows


def _fmt_haar(r):
    return ("| {} | {} | {} | {:.2f} | {:.2f} | {:+.2f} | {:.1f} | {:.1f} | {:.1f} ({} threads) | {:.2f} | {:.3g} | "
            "{:.1f} | {:.1f} | {} | {} |").format(*r)


HAAR_HEADER = ("| dataset | train | max depth | CART acc % | Haar acc % | diff pp | CART fit CPU s | Haar fit CPU s | "
               "Haar fit wall s | peak RSS GB | Haar evals | CART ops/image | Haar ops/image | Haar depth | note |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("part", choices=("sdt", "haar"))
    p.add_argument("--datasets", nargs="+")
    p.add_argument("--depths", nargs="+", type=int)
    p.add_argument("--max-train", type=int, default=None)
    p.add_argument("--synthetic-rows", type=int, default=400_000)
    p.add_argument("--alt", default=None, help="a second SDT setting: C,alpha,min_features_fraction,n0")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sdt-seeds", type=int, default=1,
                   help="SDT trees per setting (random_state seed, seed + 1, ...); accuracy as mean ± std, "
                        "evaluations and fit time as means")
    p.add_argument("--n-jobs", type=int, default=1, help="threads of the Haar tree's split search")
    p.add_argument("--criterion", default="gini", choices=("gini", "entropy"),
                   help="haar: the criterion of both the Haar tree and the CART tree")
    p.add_argument("--haar-sdt", default=None,
                   help="haar: the Haar tree's SDT setting C,alpha,min_features_fraction,n0 instead of the "
                        "defaults; min_features_fraction 1 searches every Haar feature on every row (exact)")
    args = p.parse_args(argv)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(f"# bench_sdt.py {' '.join(sys.argv[1:])}  ({stamp}, {platform.node()}, python {platform.python_version()})")
    if args.part == "sdt":
        args.datasets = args.datasets or list(SDT_DATASETS)
        args.depths = args.depths or [5, 8, 12]
        print(SDT_HEADER)
        run_sdt(args)
    else:
        args.datasets = args.datasets or list(HAAR_DATASETS)
        args.depths = args.depths or [12]
        print(HAAR_HEADER)
        run_haar(args)


if __name__ == "__main__":
    main()
