"""Cross-validated accuracy of classifiers in two checkouts of forestzoo, side by side.

A change that alters a model's arithmetic without meaning to change the model (another order of
summation, another solver for the same system) moves its trees for a fixed ``random_state`` but
should leave its accuracy where it was, within the spread over seeds.  This script measures that:
each checkout runs in its own subprocess (``PYTHONPATH`` set to it), fits every estimator on every
dataset with stratified k-fold cross-validation for several ``random_state`` values (the folds and
the forest share the seed), and the table gives, per estimator and dataset, the mean accuracy over
seeds in each checkout (and A's standard deviation over seeds), the mean of the per-seed differences
and their spread.

    python benchmarks/compare_accuracy.py ../base . \\
        --estimators OneVsAllObliqueForestClassifier HeterogeneousObliqueForestClassifier \\
        --datasets glass vehicle sonar --seeds 5 --folds 5 --params n_estimators=50

``--datasets`` takes names of :func:`forestzoo.datasets.load_dataset` and ``synthetic``
(make_classification, 5,000 x 20, 4 classes).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np


def child(args):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    import forestzoo
    from forestzoo.datasets import load_dataset

    registry = dict(forestzoo.all_estimators())
    params = {}
    for item in args.params:
        key, _, value = item.partition("=")
        params[key] = json.loads(value)
    out = {"forestzoo": forestzoo.__file__, "scores": {}}
    for name in args.datasets:
        if name == "synthetic":
            X, y = make_classification(5000, 20, n_informative=15, n_classes=4, random_state=0)
        else:
            X, y = load_dataset(name)
        for est in args.estimators:
            scores = []
            for seed in range(args.seeds):
                cv = StratifiedKFold(args.folds, shuffle=True, random_state=seed)
                model = registry[est](random_state=seed, **params)
                scores.append(float(cross_val_score(model, X, y, cv=cv).mean()))
            out["scores"][f"{est}|{name}"] = scores
            print(f"{est} {name} {np.mean(scores):.4f}", file=sys.stderr, flush=True)
    print(json.dumps(out))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="checkout A (the reference), a directory holding forestzoo/")
    p.add_argument("b", help="checkout B")
    p.add_argument("--estimators", nargs="+", required=True)
    p.add_argument("--datasets", nargs="+", default=["glass"])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--params", nargs="*", default=[], help="key=value (JSON values) for every estimator")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args)
        return
    results = []
    for checkout in (args.a, args.b):
        env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
        cmd = [sys.executable, os.path.abspath(__file__), args.a, args.b, "--child", "--seeds", str(args.seeds),
               "--folds", str(args.folds), "--estimators", *args.estimators, "--datasets", *args.datasets,
               "--params", *args.params]
        proc = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True)
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"# {args.folds}-fold CV accuracy, random_state 0-{args.seeds - 1} (folds and forest); "
          f"A = {results[0]['forestzoo']}, B = {results[1]['forestzoo']}; params: {' '.join(args.params) or '-'}")
    print("| estimator | dataset | A mean | A sd over seeds | B mean | B - A: mean | B - A: sd over seeds "
          "| seeds B > A / = / < |")
    print("|---|---|---|---|---|---|---|---|")
    for key, a in results[0]["scores"].items():
        a, b = np.array(a), np.array(results[1]["scores"][key])
        d = b - a
        est, name = key.split("|")
        sd = (lambda v: v.std(ddof=1) if v.size > 1 else 0.0)
        print(f"| {est} | {name} | {a.mean():.4f} | {sd(a):.4f} | {b.mean():.4f} | {d.mean():+.4f} | {sd(d):.4f} | "
              f"{(d > 0).sum()} / {(d == 0).sum()} / {(d < 0).sum()} |")


if __name__ == "__main__":
    main()
