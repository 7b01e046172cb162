"""Transfer forests: Segev et al. (2017) protocol, and forestzoo vs adapt side by side.

Part 1 (reproduction): for every task of forestzoo.transfer._protocols, a
random ``--target-fraction`` of the target domain is the target training set
and the rest the test set (``--repeats`` random splits).  SrcOnly is a
forestzoo RandomForestClassifier fitted on the source domain, TgtOnly one
fitted on the target training rows; SER, STRUT and MIX refine SrcOnly on the
target training rows.  Test error (%) is printed beside Table 4 of the paper.
landmine: every one of its 29 tasks is a target (the 28 others are the
source); the error there is the balanced error rate (1 - balanced accuracy),
since 94 % of its labels are negative (``--landmine-metric auc``: 1 - ROC AUC).  One split per task by default (seed =
the task's number); ``--landmine-repeats R`` averages each task's errors over
R splits (seeds t, t + 1000, ..., t + 1000 (R - 1)) before the per-task count
MIX <= TgtOnly, which then depends less on one split of ~50 target rows.

Part 2 (peer): with ``--adapt-python`` (the Python of an environment with the
`adapt` package, which needs TensorFlow), a scikit-learn RandomForest source
is fitted there, adapt's TransferForestClassifier runs SER and STRUT on it,
and forestzoo refines the very same source forest (converted exactly to
engine arrays) on the same rows; errors and fit times are printed side by side.

Usage::

    FORESTZOO_DATA=/path/to/datasets python benchmarks/bench_transfer.py \
        [--repeats 3] [--n-estimators 50] [--adapt-python /venv/bin/python]
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from forestzoo import RandomForestClassifier, TransferForestClassifier
from forestzoo.transfer._protocols import load_landmine, load_task

HERE = Path(__file__).resolve().parent
PAPER = {"mushroom": "mushroom", "letter": "letter", "wine": "wine", "digits": "digits", "usps": "USPS",
         "landmine": "landmines"}
METHODS = ("SrcOnly", "TgtOnly", "STRUT", "SER", "MIX")


def paper_table():
    import csv

    path = Path(os.environ.get("FORESTZOO_PAPER_TABLES", HERE.parent.parent / "shared" / "paper_tables"))
    path = path / "segev_transfer_table4_error.csv"
    if not path.exists():
        return {}
    with open(path) as fh:
        return {row["DATASET"]: row for row in csv.DictReader(fh)}


def split_target(n, fraction, seed):
    idx = np.random.RandomState(seed).permutation(n)
    k = max(20, int(round(fraction * n)))
    return idx[:k], idx[k:]


def error(model, X, y, metric):
    """Test error in %: ``"error"`` (misclassification), ``"balanced"`` (1 - balanced accuracy) or ``"auc"``
    (1 - ROC AUC of the positive class, label 1; a model that never saw it scores every row 0)."""
    if metric == "auc":
        classes = list(model.classes_)
        score = model.predict_proba(X)[:, classes.index(1)] if 1 in classes else np.zeros(len(y))
        return 100 * (1 - roc_auc_score(y, score))
    pred = model.predict(X)
    return 100 * (1 - balanced_accuracy_score(y, pred)) if metric == "balanced" else 100 * np.mean(pred != y)


def run_task(Xs, ys, Xt, yt, args, seed, metric="error"):
    tr, te = split_target(len(yt), args.target_fraction, seed)
    out, times = {}, {}
    t0 = time.perf_counter()
    src = RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=seed).fit(Xs, ys)
    times["SrcOnly"] = time.perf_counter() - t0
    out["SrcOnly"] = error(src, Xt[te], yt[te], metric)
    t0 = time.perf_counter()
    tgt = RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=args.n_jobs, random_state=seed)
    out["TgtOnly"] = error(tgt.fit(Xt[tr], yt[tr]), Xt[te], yt[te], metric)
    times["TgtOnly"] = time.perf_counter() - t0
    for algo in ("strut", "ser", "mix"):
        t0 = time.perf_counter()
        tf = TransferForestClassifier(src, algorithm=algo, n_jobs=args.n_jobs, random_state=seed).fit(Xt[tr], yt[tr])
        times[algo.upper()] = time.perf_counter() - t0
        out[algo.upper()] = error(tf, Xt[te], yt[te], metric)
    return out, times


def reproduction(args):
    table = paper_table()
    rows = []
    for task in args.tasks:
        if task == "landmine":
            try:
                _, _, groups = load_landmine()
            except (FileNotFoundError, ValueError) as exc:
                print(f"# landmine skipped: {exc}")
                continue
            per_task = []
            for t in np.unique(groups):
                data = load_task(f"landmine/{t}")
                runs = [run_task(*data, args, seed=t + 1000 * r, metric=args.landmine_metric)[0]
                        for r in range(args.landmine_repeats)]
                per_task.append({m: np.mean([run[m] for run in runs]) for m in METHODS})
            errs = {m: [r[m] for r in per_task] for m in METHODS}
            rows.append(("landmine", errs, None, len(per_task)))
            continue
        try:
            data = load_task(task)
        except FileNotFoundError as exc:
            print(f"# {task} skipped: {exc}")
            continue
        res = [run_task(*data, args, seed=r) for r in range(args.repeats)]
        errs = {m: [r[0][m] for r in res] for m in METHODS}
        times = {m: np.mean([r[1][m] for r in res]) for m in METHODS}
        rows.append((task, errs, times, args.repeats))
    head = "| task | runs | " + " | ".join(f"{m} (paper)" for m in METHODS) + " | MIX <= TgtOnly |"
    print(head)
    print("|" + "---|" * (len(METHODS) + 3))
    n_win = 0
    n_units = 0
    for task, errs, _, runs in rows:
        paper = table.get(PAPER[task], {})
        cells = [f"{np.mean(errs[m]):.1f} ± {np.std(errs[m]):.1f} ({paper.get(m, '-')})" for m in METHODS]
        wins = np.array(errs["MIX"]) <= np.array(errs["TgtOnly"]) + 1e-9
        if task == "landmine":
            n_win += wins.sum()
            n_units += wins.size
            ties = int(np.sum(np.abs(np.array(errs["MIX"]) - np.array(errs["TgtOnly"])) <= 1e-9))
            verdict = f"{wins.sum()}/{wins.size} tasks ({ties} ties)"
        else:
            win = np.mean(errs["MIX"]) <= np.mean(errs["TgtOnly"])
            n_win += win
            n_units += 1
            verdict = "yes" if win else "no"
        print(f"| {task} | {runs} | " + " | ".join(cells) + f" | {verdict} |")
    print(f"\nMIX error <= TgtOnly on {n_win}/{n_units} tasks ({100 * n_win / max(n_units, 1):.0f} %; "
          "landmine counts its 29 tasks, every other dataset once)")
    if "landmine" in args.tasks:
        print(f"landmine: {args.landmine_repeats} split(s) per task, each task's errors averaged over them; "
              f"error = 1 - {'balanced accuracy' if args.landmine_metric == 'balanced' else 'ROC AUC'}")
    print("\nMean fit seconds (n_jobs=%s):" % args.n_jobs)
    for task, _, times, _ in rows:
        if times:
            print(f"  {task}: " + ", ".join(f"{m} {times[m]:.2f}" for m in METHODS))


def peer(args):
    print(f"\n## forestzoo vs adapt on the same scikit-learn source forest ({args.adapt_trees} trees)\n")
    print("| task | rows src/tgt-train/test | adapt SER | ours SER | adapt STRUT | ours STRUT | ours MIX "
          "| adapt SER s | ours SER s | adapt STRUT s | ours STRUT s |")
    print("|" + "---|" * 11)
    for task in args.adapt_tasks:
        try:
            Xs, ys, Xt, yt = load_task(task)
        except FileNotFoundError as exc:
            print(f"# {task} skipped: {exc}")
            continue
        if args.adapt_max_source and len(ys) > args.adapt_max_source:
            keep = np.random.RandomState(0).choice(len(ys), args.adapt_max_source, replace=False)
            Xs, ys = Xs[keep], ys[keep]
        # adapt's STRUT looks each target label up among a source tree's classes_, which in a
        # scikit-learn forest are the codes 0..k-1, not the labels (wine's qualities 3-9 raise a
        # KeyError there). Both libraries get the same codes; an error rate does not depend on them.
        labels = np.unique(ys)
        if not np.isin(yt, labels).all():
            print(f"# {task} skipped: target labels {np.setdiff1d(yt, labels)} are not in the source sample")
            continue
        ys, yt = np.searchsorted(labels, ys), np.searchsorted(labels, yt)
        for r in range(args.adapt_repeats):
            tr, te = split_target(len(yt), args.target_fraction, r)
            with tempfile.TemporaryDirectory() as tmp:
                inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.pkl")
                np.savez(inp, Xs=Xs, ys=ys, Xt=Xt[tr], yt=yt[tr], Xte=Xt[te], n_estimators=args.adapt_trees, seed=r)
                try:
                    proc = subprocess.run([args.adapt_python, str(HERE / "_adapt_transfer_runner.py"), inp, outp],
                                          capture_output=True, text=True, timeout=args.adapt_timeout)
                except subprocess.TimeoutExpired:
                    print(f"| {task} | adapt did not finish in {args.adapt_timeout} s |")
                    continue
                if proc.returncode != 0:
                    print(f"# adapt failed on {task}: {proc.stderr[-500:]}")
                    continue
                with open(outp, "rb") as fh:
                    res = pickle.load(fh)
            src = pickle.loads(res["source"])
            ours, secs = {}, {}
            for algo in ("ser", "strut", "mix"):
                t0 = time.perf_counter()
                tf = TransferForestClassifier(src, algorithm=algo, n_jobs=1, random_state=r).fit(Xt[tr], yt[tr])
                secs[algo] = time.perf_counter() - t0
                ours[algo] = 100 * np.mean(tf.predict(Xt[te]) != yt[te])
            a_ser = 100 * np.mean(res["ser_pred"] != yt[te])
            a_strut = 100 * np.mean(res["strut_pred"] != yt[te])
            print(f"| {task} (split {r}) | {len(ys)}/{len(tr)}/{len(te)} | {a_ser:.1f} | {ours['ser']:.1f} | "
                  f"{a_strut:.1f} | {ours['strut']:.1f} | {ours['mix']:.1f} | {res['ser_fit_s']:.1f} | "
                  f"{secs['ser']:.2f} | {res['strut_fit_s']:.1f} | {secs['strut']:.2f} |")
            sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", default="mushroom,letter,wine,digits,usps,landmine")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--landmine-repeats", type=int, default=1,
                   help="splits per landmine task; the task's errors are their means (default 1)")
    p.add_argument("--landmine-metric", choices=("balanced", "auc"), default="balanced",
                   help="landmine's error: 1 - balanced accuracy (default) or 1 - ROC AUC")
    p.add_argument("--n-estimators", type=int, default=50)
    p.add_argument("--target-fraction", type=float, default=0.1)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--adapt-python", default=os.environ.get("FORESTZOO_ADAPT_PYTHON"))
    p.add_argument("--adapt-tasks", default="mushroom,wine,digits,usps,letter")
    p.add_argument("--adapt-trees", type=int, default=10)
    p.add_argument("--adapt-repeats", type=int, default=1)
    p.add_argument("--adapt-max-source", type=int, default=3000,
                   help="subsample the source domain for the peer run (adapt's tree surgery is pure Python)")
    p.add_argument("--adapt-timeout", type=int, default=900)
    p.add_argument("--skip-reproduction", action="store_true")
    args = p.parse_args()
    if args.landmine_repeats < 1:
        p.error("--landmine-repeats must be at least 1")
    args.tasks = [t for t in args.tasks.split(",") if t]
    args.adapt_tasks = [t for t in args.adapt_tasks.split(",") if t]
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    if not args.skip_reproduction:
        reproduction(args)
    if args.adapt_python:
        peer(args)


if __name__ == "__main__":
    main()
