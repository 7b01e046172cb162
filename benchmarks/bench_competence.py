"""Competence-area forests (CAF-vote, CAF-first) against forestzoo's RaF on the lecture-uci datasets.

Same folds, same run: repeated stratified 3-fold CV (the lecture-uci protocol
is 10 x 3-fold, RaF with 50 trees).  For every fold it records accuracy,
total node count and fit seconds of

* RaF: forestzoo RandomForestClassifier, 50 trees;
* CAF-vote: CompetenceForestClassifier(strategy="weighted_vote"), gamma by
  internal 3-fold CV, objects no tree is competent for answered by the fallback;
* CAF-first: CompetenceForestClassifier(strategy="first_competent", reject="nan"),
  gamma by internal CV; coverage and accuracy on the covered objects, and
  RaF's accuracy on the same objects.

    python benchmarks/bench_competence.py --repeats 10 --max-cells 100000 --markdown out.md
"""

import argparse
import datetime
import os
import platform
import sys
import time
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=None, help="comma-separated names (default: the lecture-uci suite)")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--n-estimators", type=int, default=50, help="RaF trees")
    p.add_argument("--max-cells", type=int, default=100_000,
                   help="skip datasets with more than this many rows x features (0: no limit)")
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--markdown", default=None, help="also write the table to this file")
    return p.parse_args(argv)


def run_dataset(X, y, args):
    from forestzoo import CompetenceForestClassifier, RandomForestClassifier

    rows = []
    for rep in range(args.repeats):
        folds = StratifiedKFold(args.folds, shuffle=True, random_state=rep)
        for train, test in folds.split(X, y):
            rec = {}
            models = {
                "RaF": RandomForestClassifier(args.n_estimators, n_jobs=args.n_jobs, random_state=rep),
                "CAF-vote": CompetenceForestClassifier(strategy="weighted_vote", n_jobs=args.n_jobs, random_state=rep),
                "CAF-first": CompetenceForestClassifier(strategy="first_competent", reject="nan",
                                                        n_jobs=args.n_jobs, random_state=rep),
            }
            preds = {}
            for name, model in models.items():
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)  # all-reject forests are counted below
                    model.fit(X[train], y[train])
                rec[name + ":fit_s"] = time.perf_counter() - t0
                preds[name] = model.predict(X[test])
                rec[name + ":acc"] = float(np.mean(preds[name] == y[test]))
                if name == "RaF":
                    rec[name + ":nodes"] = sum(e.tree_.node_count for e in model.estimators_)
                else:
                    rec[name + ":nodes"] = model.n_nodes_
                    rec[name + ":trees"] = model.n_estimators_
            covered = preds["CAF-first"] != models["CAF-first"].reject_label
            rec["coverage"] = float(covered.mean())
            rec["first_acc_cov"] = float(np.mean(preds["CAF-first"][covered] == y[test][covered])) if covered.any() else np.nan
            rec["raf_acc_cov"] = float(np.mean(preds["RaF"][covered] == y[test][covered])) if covered.any() else np.nan
            rows.append(rec)
    return {k: float(np.nanmean([r[k] for r in rows])) for k in rows[0]}


def main(argv=None):
    args = parse_args(argv)
    from forestzoo.bench.suites import LECTURE_DATASETS
    from forestzoo.datasets import get_dataset_info, load_dataset

    names = args.datasets.split(",") if args.datasets else list(LECTURE_DATASETS)
    # untimed warm-up: Numba compilation must not count as fit time
    from forestzoo import CompetenceForestClassifier, RandomForestClassifier

    Xw, yw = load_dataset("iris")
    RandomForestClassifier(5, n_jobs=args.n_jobs).fit(Xw, yw)
    CompetenceForestClassifier(gamma=1.0).fit(Xw, yw)
    results, skipped = {}, []
    for name in names:
        info = get_dataset_info(name)
        if args.max_cells and info.n_samples * info.n_features > args.max_cells:
            skipped.append(f"{name} ({info.n_samples}x{info.n_features}: over --max-cells)")
            continue
        try:
            X, y = load_dataset(name)
        except FileNotFoundError:
            skipped.append(f"{name} (file not found)")
            continue
        t0 = time.perf_counter()
        results[name] = run_dataset(X, y, args)
        r = results[name]
        print(f"{name:34s} RaF {100 * r['RaF:acc']:5.1f}  vote {100 * r['CAF-vote:acc']:5.1f}  "
              f"first {100 * r['CAF-first:acc']:5.1f} cov {100 * r['coverage']:5.1f}  "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)

    header = ("| dataset | RaF acc | CAF-vote acc | diff (pp) | RaF nodes | CAF-vote nodes | node ratio | "
              "CAF trees | CAF-first coverage | CAF-first acc (covered) | RaF acc (same objects) | "
              "fit s RaF / CAF-vote |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for name, r in results.items():
        lines.append(
            f"| {name} | {100 * r['RaF:acc']:.1f} | {100 * r['CAF-vote:acc']:.1f} | "
            f"{100 * (r['CAF-vote:acc'] - r['RaF:acc']):+.1f} | {r['RaF:nodes']:.0f} | {r['CAF-vote:nodes']:.1f} | "
            f"{r['RaF:nodes'] / r['CAF-vote:nodes']:.0f}x | {r['CAF-vote:trees']:.1f} | {100 * r['coverage']:.1f} | "
            f"{100 * r['first_acc_cov']:.1f} | {100 * r['raf_acc_cov']:.1f} | "
            f"{r['RaF:fit_s'] / r['CAF-vote:fit_s']:.2f} |"
        )
    mean = {k: float(np.nanmean([r[k] for r in results.values()])) for k in next(iter(results.values()))}
    node_ratio = float(np.mean([r["RaF:nodes"] / r["CAF-vote:nodes"] for r in results.values()]))
    lines.append(
        f"| **mean ({len(results)} datasets)** | {100 * mean['RaF:acc']:.1f} | {100 * mean['CAF-vote:acc']:.1f} | "
        f"{100 * (mean['CAF-vote:acc'] - mean['RaF:acc']):+.1f} | {mean['RaF:nodes']:.0f} | "
        f"{mean['CAF-vote:nodes']:.1f} | {node_ratio:.0f}x | {mean['CAF-vote:trees']:.1f} | "
        f"{100 * mean['coverage']:.1f} | {100 * mean['first_acc_cov']:.1f} | {100 * mean['raf_acc_cov']:.1f} | "
        f"{mean['RaF:fit_s'] / mean['CAF-vote:fit_s']:.2f} |"
    )
    meta = (f"{datetime.date.today().isoformat()}, {platform.machine()} {os.cpu_count()} cores (shared with other "
            f"jobs: timings are noisy), python {platform.python_version()}; command: python benchmarks/"
            f"bench_competence.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    text = "\n".join([meta, "", *lines, "", "Skipped: " + ("; ".join(skipped) if skipped else "none")])
    print()
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
