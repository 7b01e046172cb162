"""Deep forest (gcForest, cascade forest) beside forestzoo RF of the same total number of trees.

Every (experiment, model, seed) is fitted in its own fresh process (``--worker``), so that peak
RSS is one model's; the deep model runs first and its ``n_trees_`` (every fold forest it keeps
for prediction, scanning included) sizes the RF run beside it.  Experiments:

* ``letter``: UCI letter, official split (first 16,000 rows train, last 4,000 test);
  CascadeForest vs RF.
* ``digits``: UCI optdigits (8x8), official split (3,823 / 1,797; the test part is sklearn's
  ``load_digits``); gcForest (windows 3, 4, 6) and CascadeForest vs RF.
* ``orl5`` / ``orl7`` / ``orl9``: ORL faces 32x32, 5 / 7 / 9 random images per person for training,
  the rest for testing (Zhou & Feng 2017, Table 3), one split per seed; gcForest (100 + 100 trees,
  scanning leaves of >= 10 windows) and gcForest-leaf1 (30 fully grown scanning trees, see
  ``ORL_LEAF1``) vs RF.
* ``yale5`` / ``yale7`` / ``yale9``: Yale faces 32x32 (15 people, 11 images each), the same protocol
  and models as ORL; the lecture lists Yale among its face sets, Zhou & Feng (2017) publish no Yale figure.
* ``fashion-memory``: multi-grained scanning alone, with the full-run settings, on the first
  5,000 and 10,000 fashion-MNIST training images (test: the first 1,000 test images); from 5,000
  images on, every scanning forest trains on its capped 200,000 windows, so what grows with the
  images is the features and the windows cut per chunk: peak RSS and time are extrapolated
  linearly to 60,000 + 10,000 images.
* ``fashion-slice``: gcForest with the full-run settings and RF on the first ``--fashion-slice``
  training images (test: the first 1,000 test images), a basis for extrapolating the full run.
* ``fashion``: the full fashion-MNIST run (official 60,000 / 10,000 split): gcForest with the
  settings in ``FASHION`` vs RF with ``--fashion-rf-trees`` trees.

DF21 (the ``deep-forest`` package) could not be installed here (not on the package index this
machine reaches), so its published figures are printed instead (letter 95.92 %, MNIST 98.11 %).

    python benchmarks/bench_deep.py --experiments letter,digits,orl5,orl7,orl9 --seeds 0
    python benchmarks/bench_deep.py --experiments fashion-memory,fashion-slice
    python benchmarks/bench_deep.py --experiments fashion --timeout 9000
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as H  # noqa: E402

SCRIPT = os.path.abspath(__file__)
EXPERIMENTS = ("letter", "digits", "orl5", "orl7", "orl9", "yale5", "yale7", "yale9", "fashion-memory",
               "fashion-slice", "fashion")
#: face experiments: name prefix -> registry dataset
FACES = {"orl": "orl_faces", "yale": "yale_faces"}

#: gcForest settings of the fashion-MNIST run: windows of about d/16, d/9, d/4 pixels (7x7, 9x9,
#: 14x14) moved 2 pixels at a time; each scanning forest trains on at most 200,000 windows (Zhou &
#: Feng 2017, Sec. 3.2, allow subsampling the window instances).  Far fewer trees than the paper's
#: 500, for memory first: a fully grown completely-random tree on 40,000 fashion images has ~46,000
#: nodes (6.4 MB with its 10-class value array), so one level of 3 grades x 3 folds x (2 RF + 2 CRF)
#: x 20 trees holds ~2.6 GB of trees, and up to max_levels=4 levels are kept while growing.
#: Those sizes date from before the fold forests kept prediction tables only (~20 bytes a node, see
#: docs/benchmarks/deep.md); they stay the defaults so that the earlier runs' commands still mean what
#: they meant.  The larger runs of docs/results/gcforest.md pass --fashion-scan-trees and
#: --fashion-cascade-trees.
FASHION = dict(window_sizes=[1 / 16, 1 / 9, 1 / 4], image_shape=(28, 28), stride=2, scan_n_estimators=30,
               max_window_samples=200_000, n_estimators=20, max_levels=4, n_tolerant_rounds=1)
DIGITS = dict(window_sizes=[3, 4, 6], image_shape=(8, 8), stride=1, scan_n_estimators=100, n_estimators=100)
ORL = dict(window_sizes=[1 / 16, 1 / 9, 1 / 4], image_shape=(32, 32), stride=2, scan_n_estimators=100,
           n_estimators=100)
#: ORL with fully grown scanning trees (fewer of them: their 40-class value arrays take ~19 GB at 100
#: trees).  Chosen on the training part only: on orl5 (seed 0) with 20 + 20 trees and one level, the
#: out-of-fold accuracy was 0.645 with scan_min_samples_leaf=1 against 0.395 with the default 10.
ORL_LEAF1 = dict(ORL, scan_n_estimators=30, scan_min_samples_leaf=1)
#: published figures printed beside ours
PUBLISHED = {
    "letter": "DF21 (deep-forest) 95.92 %, its RF 95.39 % (DF21 docs)",
    "digits": "none published for optdigits",
    "orl5": "gcForest 91.00 %, RF 91.00 % (Zhou & Feng 2017, Table 3)",
    "orl7": "gcForest 96.67 %, RF 93.33 %",
    "orl9": "gcForest 97.50 %, RF 95.00 %",
    "yale5": "none published (Zhou & Feng 2017 have no Yale table)",
    "yale7": "none published",
    "yale9": "none published",
    "fashion": "MNIST (not fashion): gcForest 99.26 %, RF 96.80 % (Zhou & Feng 2017); DF21 98.11 %",
}


# -- data (in the worker) ----------------------------------------------------
def _face(experiment):
    """The face-set prefix of a face experiment ("orl", "yale"), else None."""
    return next((k for k in FACES if experiment.startswith(k)), None)


def load(experiment, seed, n_slice=None):
    from forestzoo.datasets import load_dataset

    if experiment == "letter":
        X, y = load_dataset("letter")
        return X[:16000], y[:16000], X[16000:], y[16000:]
    if experiment == "digits":
        return (*load_dataset("optdigits", split="train"), *load_dataset("optdigits", split="test"))
    face = _face(experiment)
    if face:
        X, y = load_dataset(FACES[face])
        per_person = int(experiment[len(face):])
        rng = np.random.RandomState(seed)
        train = np.zeros(len(y), dtype=bool)
        for person in np.unique(y):
            rows = np.flatnonzero(y == person)
            train[rng.choice(rows, per_person, replace=False)] = True
        return X[train], y[train], X[~train], y[~train]
    X_tr, y_tr = load_dataset("fashion_mnist", split="train")
    X_te, y_te = load_dataset("fashion_mnist", split="test")
    if n_slice is not None:
        X_tr, y_tr, X_te, y_te = X_tr[:n_slice], y_tr[:n_slice], X_te[:1000], y_te[:1000]
    return X_tr, y_tr, X_te, y_te


#: the gcForest settings a run may override: spec key (as in the JSON lines, and ``--fashion-<key>``)
#: -> GCForestClassifier parameter
OVERRIDES = {"max_levels": "max_levels", "cascade_trees": "n_estimators", "scan_trees": "scan_n_estimators",
             "max_windows": "max_window_samples", "scan_leaf": "scan_min_samples_leaf", "folds": "n_folds"}


def make(model, experiment, n_jobs, seed, n_trees, **overrides):
    """The estimator of one worker; ``overrides`` are :data:`OVERRIDES` keys (None: the preset's value)."""
    from forestzoo import CascadeForestClassifier, GCForestClassifier, RandomForestClassifier
    from forestzoo.deep import MultiGrainedScanner

    if model == "RF":
        return RandomForestClassifier(n_estimators=n_trees, n_jobs=n_jobs, random_state=seed)
    if model == "CascadeForest":
        return CascadeForestClassifier(n_estimators=100, n_jobs=n_jobs, random_state=seed)
    if model == "scanning":
        keys = ("window_sizes", "image_shape", "stride", "max_window_samples")
        return MultiGrainedScanner(**{k: FASHION[k] for k in keys}, n_estimators=FASHION["scan_n_estimators"],
                                   n_jobs=n_jobs, random_state=seed)
    params = ORL_LEAF1 if model == "gcForest-leaf1" else DIGITS if experiment == "digits" \
        else ORL if _face(experiment) else FASHION
    params = dict(params, **{OVERRIDES[k]: v for k, v in overrides.items() if v is not None})
    return GCForestClassifier(**params, n_jobs=n_jobs, random_state=seed)


def worker(spec):
    X_tr, y_tr, X_te, y_te = load(spec["experiment"], spec["seed"], spec.get("n_slice"))
    X_tr, X_te = np.ascontiguousarray(X_tr, np.float32), np.ascontiguousarray(X_te, np.float32)
    rss_data = H._peak_rss_mb()
    # untimed warm-up: imports and the Numba cache load
    from forestzoo import RandomForestClassifier

    RandomForestClassifier(n_estimators=2).fit(X_tr[:200], y_tr[:200]).predict(X_te[:10])
    model = make(spec["model"], spec["experiment"], spec["n_jobs"], spec["seed"], spec.get("n_trees"),
                 **{k: spec.get(k) for k in OVERRIDES})
    cpu0, t0 = H._cpu_s(), time.perf_counter()
    if spec["model"] == "scanning":
        model.fit_transform(X_tr, y_tr)
    else:
        model.fit(X_tr, y_tr)
    fit_s, fit_cpu_s = time.perf_counter() - t0, H._cpu_s() - cpu0
    t0 = time.perf_counter()
    if spec["model"] == "scanning":
        model.transform(X_te)
        accuracy, n_trees = float("nan"), sum(g.n_trees for g in model.grains_)
    else:
        accuracy = float(np.mean(model.predict(X_te) == y_te))
        n_trees = getattr(model, "n_trees_", None) or len(model.estimators_)
    predict_s = time.perf_counter() - t0
    out = dict(spec, fit_s=fit_s, fit_cpu_s=fit_cpu_s, predict_s=predict_s, accuracy=accuracy, n_trees=n_trees,
               peak_rss_mb=H._peak_rss_mb(), data_rss_mb=rss_data, n_train=int(len(y_tr)), n_test=int(len(y_te)))
    if hasattr(model, "level_scores_"):
        out.update(n_levels=model.n_levels_, level_scores=[round(s, 5) for s in model.level_scores_])
    return out


# -- the parent ------------------------------------------------------------------
def run(spec, timeout, log, json_path=None):
    H.prewarm_forestzoo(timeout)
    result = H.run_worker(SCRIPT, spec, timeout)
    log.append(result)
    if json_path:
        with open(json_path, "a") as f:
            f.write(json.dumps(result) + "\n")
    brief = {k: result.get(k) for k in ("experiment", "model", "seed", "status", "accuracy", "fit_s", "n_trees",
                                        "peak_rss_mb", "level_scores")}
    print(json.dumps(brief), flush=True)
    return result


def _fmt(result, key, fmt):
    value = result.get(key)
    return "-" if value is None or result.get("status") != "ok" else fmt.format(value)


def table(rows):
    head = ("| experiment | model | seed | test acc % | fit s | fit CPU s | predict s | peak RSS MB | trees | "
            "levels (OOF acc per level) |")
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        levels = "-"
        if "level_scores" in r:
            levels = f"{r['n_levels']} ({', '.join(f'{s:.4f}' for s in r['level_scores'])})"
        status = "" if r.get("status") == "ok" else f" **{r.get('status')}**"
        lines.append(f"| {r['experiment']} | {r['model']}{status} | {r['seed']} | {_fmt(r, 'accuracy', '{:.2%}')[:-1]} "
                     f"| {_fmt(r, 'fit_s', '{:.1f}')} | {_fmt(r, 'fit_cpu_s', '{:.1f}')} | "
                     f"{_fmt(r, 'predict_s', '{:.1f}')} | {_fmt(r, 'peak_rss_mb', '{:.0f}')} | "
                     f"{_fmt(r, 'n_trees', '{}')} | {levels} |")
    return "\n".join(lines)


def summary(rows):
    """Same-run differences: deep model minus RF, per experiment, averaged over seeds."""
    lines = ["| experiment | deep model | mean acc % | RF mean acc % | diff pp | fit-time ratio deep/RF "
             "| published |", "|" + "---|" * 7]
    for exp in dict.fromkeys(r["experiment"] for r in rows):
        rf = [r for r in rows if r["experiment"] == exp and r["model"] == "RF" and r.get("status") == "ok"]
        for model in dict.fromkeys(r["model"] for r in rows if r["experiment"] == exp):
            deep = [r for r in rows if r["experiment"] == exp and r["model"] == model and r.get("status") == "ok"]
            if model in ("RF", "scanning") or not deep or not rf:
                continue
            paired = []
            for d in deep:  # the RF of the same seed, of the same size where there is one
                same = [r for r in rf if r["seed"] == d["seed"]]
                same.sort(key=lambda r: r["n_trees"] != d["n_trees"])
                if same:
                    paired.append((d, same[0]))
            if not paired:
                continue
            rf_trees = "/".join(sorted({str(r["n_trees"]) for _, r in paired}))
            a = np.mean([d["accuracy"] for d, _ in paired]) * 100
            b = np.mean([r["accuracy"] for _, r in paired]) * 100
            ratio = np.mean([d["fit_s"] / r["fit_s"] for d, r in paired])
            lines.append(f"| {exp} | {model} | {a:.2f} | {b:.2f} ({rf_trees} trees) | {a - b:+.2f} | {ratio:.1f} | "
                         f"{PUBLISHED.get(exp, '')} |")
    return "\n".join(lines)


def memory_extrapolation(rows):
    ok = sorted((r for r in rows if r["model"] == "scanning" and r.get("status") == "ok"), key=lambda r: r["n_slice"])
    if len(ok) < 2:
        return ""
    (a, b) = ok[0], ok[-1]
    lines = [f"| quantity | at {a['n_slice']} | at {b['n_slice']} | per 1,000 images | "
             "extrapolated to 60,000 + 10,000 |",
             "|---|---|---|---|---|"]
    for key, label in (("peak_rss_mb", "peak RSS MB"), ("fit_s", "scanning fit_transform s"),
                       ("predict_s", "scanning transform s (1,000 test images; full: x10)")):
        slope = (b[key] - a[key]) / (b["n_slice"] - a["n_slice"])
        if key == "predict_s":
            full = b[key] * 10  # 10,000 test images, linear in images
        else:
            full = b[key] + slope * (60000 - b["n_slice"])
        lines.append(f"| {label} | {a[key]:.1f} | {b[key]:.1f} | {slope * 1000:.1f} | {full:.0f} |")
    return "\n".join(lines)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--experiments", default="letter,digits,orl5,orl7,orl9",
                   help="comma-separated, from: " + ", ".join(EXPERIMENTS))
    p.add_argument("--seeds", default="0", help="comma-separated random seeds (ORL: also the split)")
    p.add_argument("--orl-models", default="gcForest,gcForest-leaf1",
                   help="deep models of the face experiments (ORL, Yale)")
    p.add_argument("--leaf1-scan-trees", type=int, default=None,
                   help="scanning trees per forest of gcForest-leaf1 (default: ORL_LEAF1's 30)")
    p.add_argument("--leaf1-folds", type=int, default=None,
                   help="out-of-fold folds of gcForest-leaf1 (default: GCForestClassifier's 3)")
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--fashion-rf-trees", type=int, default=500)
    p.add_argument("--fashion-max-levels", type=int, default=None,
                   help="cascade levels of the fashion run's gcForest (default: FASHION's max_levels)")
    p.add_argument("--fashion-cascade-trees", type=int, default=None,
                   help="trees per cascade forest and fold of the fashion run's gcForest (default: FASHION's "
                        "n_estimators)")
    p.add_argument("--fashion-scan-trees", type=int, default=None,
                   help="trees per scanning forest and fold of the fashion run's gcForest (default: FASHION's "
                        "scan_n_estimators)")
    p.add_argument("--fashion-max-windows", type=int, default=None,
                   help="windows each scanning forest of the fashion run's gcForest trains on (default: FASHION's "
                        "max_window_samples)")
    p.add_argument("--fashion-scan-leaf", type=int, default=None,
                   help="scan_min_samples_leaf of the fashion run's gcForest (default: GCForestClassifier's)")
    p.add_argument("--fashion-folds", type=int, default=None,
                   help="out-of-fold folds of the fashion run's gcForest (default: GCForestClassifier's 3)")
    p.add_argument("--fashion-slice", type=int, default=5000, help="training images of fashion-slice")
    p.add_argument("--timeout", type=float, default=7200.0, help="seconds per worker")
    p.add_argument("--json", metavar="PATH", help="append every worker's result as a JSON line, as it comes")
    p.add_argument("--report", metavar="PATH", help="only print the tables of the results in this JSON-lines file")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.experiments = [e.strip() for e in args.experiments.split(",") if e.strip()]
    bad = [e for e in args.experiments if e not in EXPERIMENTS]
    if bad:
        p.error(f"unknown experiments {bad}; choose from {EXPERIMENTS}")
    args.seeds = [int(s) for s in args.seeds.split(",")]
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    if args.report:
        with open(args.report) as f:
            print_tables([json.loads(line) for line in f if line.strip()])
        return
    started = datetime.datetime.now()
    print(f"# bench_deep {started:%Y-%m-%d %H:%M}, {platform.node()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; n_jobs={args.n_jobs}", flush=True)
    log = []
    # gcForest-leaf1's overrides, the same for every experiment and seed
    leaf1 = {k: v for k, v in (("scan_trees", args.leaf1_scan_trees), ("folds", args.leaf1_folds)) if v is not None}
    for exp in args.experiments:
        for seed in args.seeds:
            base = dict(experiment=exp, seed=seed, n_jobs=args.n_jobs)
            if exp == "fashion-memory":
                for n in (5000, 10000):
                    run(dict(base, model="scanning", n_slice=n), args.timeout, log, args.json)
                continue
            if exp == "fashion":
                chosen = {k: getattr(args, "fashion_" + k) for k in OVERRIDES}
                run(dict(base, model="gcForest", **{k: v for k, v in chosen.items() if v is not None}), args.timeout,
                    log, args.json)
                run(dict(base, model="RF", n_trees=args.fashion_rf_trees), args.timeout, log, args.json)
                continue
            if exp == "fashion-slice":
                base["n_slice"] = args.fashion_slice
            deep_models = ["CascadeForest"] if exp == "letter" else ["gcForest", "CascadeForest"] \
                if exp == "digits" else args.orl_models.split(",") if _face(exp) else ["gcForest"]
            for model in deep_models:
                deep = run(dict(base, model=model, **(leaf1 if model == "gcForest-leaf1" else {})), args.timeout,
                           log, args.json)
                if deep.get("status") == "ok" and not any(
                        r["experiment"] == exp and r["model"] == "RF" and r["seed"] == seed
                        and r.get("n_trees") == deep["n_trees"] for r in log):
                    run(dict(base, model="RF", n_trees=deep["n_trees"]), args.timeout, log, args.json)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; {datetime.datetime.now() - started} wall\n")
    print_tables(log)


def print_tables(log):
    print(table(log))
    print()
    print(summary(log))
    mem = memory_extrapolation(log)
    if mem:
        print("\nScanning memory and time, fashion-MNIST slices (FASHION settings), linear extrapolation:\n")
        print(mem)


if __name__ == "__main__":
    main()
