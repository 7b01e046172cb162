"""Start-up cost of forestzoo: import, first fit and first predict in a fresh process.

Numba compiles forestzoo's kernels on their first use and caches them on
disk, so a new environment (a CI job, a notebook on a new machine, a Dask
worker) pays the compilation once.  Each case here runs in a new process:

* ``cold``: an empty ``NUMBA_CACHE_DIR``, as after a fresh install;
* ``warm``: the same cache directory again.

It prints import, first fit and first predict seconds per estimator and the
process's CPU seconds, which other load on the machine disturbs less than
wall time (the median over ``--repeats`` cold runs, each with its own empty
cache), and,
with ``--quick-suite``, the wall time of ``forestzoo bench`` (quick suite) on
a cold cache and the seconds it spent in its untimed warm-up fits (mostly
compilation).  Give ``--base DIR`` (a checkout of another commit, e.g. made
with ``git worktree add ../base COMMIT``) to run the same cases on it, side
by side, the two checkouts alternating case by case::

    python benchmarks/bench_startup.py --base ../base --repeats 3 --quick-suite

Each checkout's ``forestzoo`` is imported through ``PYTHONPATH`` from a
temporary working directory, so both run with the same installed packages.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: name -> (import line, constructor expression, task); small settings: the compile is what is measured
CASES = {
    "RandomForestClassifier": ("RandomForestClassifier", "RandomForestClassifier(n_estimators=10, random_state=0)", "clf"),
    "RandomForestRegressor": ("RandomForestRegressor", "RandomForestRegressor(n_estimators=10, random_state=0)", "reg"),
    "ExtraTreesRegressor": ("ExtraTreesRegressor", "ExtraTreesRegressor(n_estimators=10, random_state=0)", "reg"),
    "GradientBoostingClassifier": ("GradientBoostingClassifier",
                                   "GradientBoostingClassifier(n_estimators=10, random_state=0)", "clf"),
    "DecisionTreeClassifier(exact)": ("DecisionTreeClassifier",
                                      "DecisionTreeClassifier(splitter='exact', random_state=0)", "clf"),
    "MPSVMForestClassifier": ("MPSVMForestClassifier", "MPSVMForestClassifier(n_estimators=5, random_state=0)",
                              "clf"),
    "HeterogeneousObliqueForestClassifier": (
        "HeterogeneousObliqueForestClassifier",
        "HeterogeneousObliqueForestClassifier(n_estimators=5, random_state=0)", "clf"),
    "GCForestClassifier": ("GCForestClassifier",
                           "GCForestClassifier(scan_n_estimators=3, n_estimators=3, n_folds=2, max_levels=2, "
                           "random_state=0)", "clf"),
    "DNRFClassifier": ("DNRFClassifier", "DNRFClassifier(n_estimators=5, n_epochs=3, random_state=0)", "clf"),
    "HaarTreeClassifier": ("HaarTreeClassifier", "HaarTreeClassifier(random_state=0)", "clf"),
    # a 2-D y: the multi-output grower
    "RandomForestRegressor(2 outputs)": ("RandomForestRegressor",
                                         "RandomForestRegressor(n_estimators=10, random_state=0)", "reg2"),
    "OnlineRandomForestClassifier": ("OnlineRandomForestClassifier",
                                     "OnlineRandomForestClassifier(n_estimators=10, random_state=0)", "clf"),
    # every split kernel in one process: hist, random, exact and stochastic, as the quick suite runs them
    "four kernels: RF + ET + exact + stochastic trees": (
        "RandomForestClassifier, ExtraTreesClassifier, DecisionTreeClassifier",
        "__import__('sklearn.ensemble', fromlist=['VotingClassifier']).VotingClassifier(["
        "('rf', RandomForestClassifier(n_estimators=10, random_state=0)), "
        "('et', ExtraTreesClassifier(n_estimators=10, random_state=0)), "
        "('exact', DecisionTreeClassifier(splitter='exact', random_state=0)), "
        "('sdt', DecisionTreeClassifier(splitter='stochastic', random_state=0))])", "clf"),
}

_PROBE = """
import json, time
t0 = time.perf_counter()
c0 = time.process_time()
import numpy as np
from forestzoo import {name}
t1 = time.perf_counter()
rng = np.random.RandomState(0)
X = rng.normal(size=(500, 5))
y = (X[:, 0] + X[:, 1] > 0).astype(int) if {clf} else X[:, 0] + 0.1 * rng.normal(size=500)
if {two}:
    y = np.c_[y, X[:, 1] - y]
model = {expr}.fit(X, y)
t2 = time.perf_counter()
model.predict(X)
t3 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "fit_s": t2 - t1, "predict_s": t3 - t2, "total_s": t3 - t0,
                  "cpu_s": time.process_time() - c0}}))
"""


def _env(checkout, cache):
    env = dict(os.environ, PYTHONPATH=checkout, NUMBA_CACHE_DIR=cache)
    env.pop("FORESTZOO_DATA", None)
    return env


def run_case(checkout, case, cache, timeout):
    name, expr, task = CASES[case]
    code = _PROBE.format(name=name, expr=expr, clf=task == "clf", two=task == "reg2")
    with tempfile.TemporaryDirectory() as cwd:
        try:
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                                  env=_env(checkout, cache), timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"status": f"timeout {timeout} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        return {"status": "failed: " + (tail or ["no output"])[-1][:160]}
    return dict(json.loads(lines[-1]), status="ok")


def run_help(checkout, cache):
    with tempfile.TemporaryDirectory() as cwd:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "forestzoo", "--help"], capture_output=True, cwd=cwd,
                       env=_env(checkout, cache))
        return time.perf_counter() - t0


def run_quick_suite(checkout, timeout):
    """Wall seconds of a cold ``forestzoo bench`` and the seconds of its warm-up fits (as it prints them)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as cwd:
        out = os.path.join(cwd, "out")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-m", "forestzoo", "bench", "--no-progress", "--out", out],
                                  capture_output=True, text=True, cwd=cwd, env=_env(checkout, cache),
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"status": f"timeout {timeout} s"}
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            return {"status": f"failed (exit {proc.returncode})"}
        # the command's last line: "... (N new rows, S s, of which W s warm-up fits)"
        found = re.search(r"of which (\d+) s warm-up", proc.stdout)
        warm_up = float(found.group(1)) if found else None
        return {"status": "ok", "wall_s": wall, "warm_up_s": warm_up}


def measure(checkout, cases, repeats, timeout):
    rows = {}
    for case in cases:
        cold = []
        warm = None
        for r in range(repeats):
            with tempfile.TemporaryDirectory(prefix="fz-startup-") as cache:
                res = run_case(checkout, case, cache, timeout)
                cold.append(res)
                if r == 0 and res["status"] == "ok":
                    warm = run_case(checkout, case, cache, timeout)
            print(f"  {os.path.basename(checkout.rstrip('/')) or checkout} {case} cold run {r + 1}: "
                  f"{res.get('total_s', float('nan')):.1f} s ({res['status']})", file=sys.stderr, flush=True)
        ok = [c for c in cold if c["status"] == "ok"]
        row = {"status": cold[-1]["status"] if not ok else "ok", "runs": len(ok)}
        if ok:
            for key in ("import_s", "fit_s", "predict_s", "total_s", "cpu_s"):
                row["cold_" + key] = statistics.median(c[key] for c in ok)
        if warm is not None and warm["status"] == "ok":
            row["warm_total_s"] = warm["total_s"]
        rows[case] = row
    return rows


def _fmt(row, key):
    v = row.get(key)
    return "-" if v is None else f"{v:.1f}"


def render(results, labels):
    head = ["case"]
    for label in labels:
        head += [f"{label} cold import+fit+predict s", f"{label} cold CPU s", f"{label} cold fit s", f"{label} warm s"]
    if len(labels) == 2:
        head.append("cold ratio")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in results[labels[0]]:
        cells = [case]
        for label in labels:
            row = results[label][case]
            if row["status"] != "ok":
                cells += [row["status"], "-", "-", "-"]
            else:
                cells += [_fmt(row, "cold_total_s"), _fmt(row, "cold_cpu_s"), _fmt(row, "cold_fit_s"),
                          _fmt(row, "warm_total_s")]
        if len(labels) == 2:
            a, b = (results[label][case].get("cold_total_s") for label in labels)
            cells.append(f"{b / a:.2f}" if a and b else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", help="another checkout (a directory holding forestzoo/) to measure side by side")
    p.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    p.add_argument("--repeats", type=int, default=3, help="cold runs per case; the median is reported")
    p.add_argument("--quick-suite", action="store_true", help="also time a cold `forestzoo bench` (quick suite)")
    p.add_argument("--timeout", type=int, default=900, help="seconds per process")
    p.add_argument("--json", help="write the measurements here")
    args = p.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        p.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    checkouts = {"before": os.path.abspath(args.base)} if args.base else {}
    checkouts["after" if args.base else "this"] = ROOT
    labels = list(checkouts)
    print("Command: python benchmarks/bench_startup.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])))
    print(f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; 500 x 5 rows; median of {args.repeats} cold "
          "runs, each in a new process with an empty NUMBA_CACHE_DIR; warm: the same cache again")
    results, extra = {label: {} for label in labels}, {}
    # the checkouts alternate case by case, so that a change in the machine's load falls on both
    for case in cases:
        for label, checkout in checkouts.items():
            results[label].update(measure(checkout, [case], args.repeats, args.timeout))
    for label, checkout in checkouts.items():
        with tempfile.TemporaryDirectory() as cache:
            run_case(checkout, cases[0], cache, args.timeout)  # fill the cache, then time --help on it
            extra[label] = {"help_s": run_help(checkout, cache)}
        if args.quick_suite:
            extra[label]["quick_suite"] = run_quick_suite(checkout, args.timeout * 2)
    print(render(results, labels))
    for label in labels:
        e = extra[label]
        line = f"{label}: `forestzoo --help` {e['help_s']:.2f} s (warm cache)"
        q = e.get("quick_suite")
        if q:
            if q["status"] == "ok":
                warm = "-" if q["warm_up_s"] is None else f"{q['warm_up_s']:.0f}"
                line += f"; cold `forestzoo bench`: {q['wall_s']:.0f} s wall, {warm} s of it warm-up (compilation)"
            else:
                line += f"; cold `forestzoo bench`: {q['status']}"
        print(line)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"results": results, "extra": extra, "checkouts": checkouts}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
