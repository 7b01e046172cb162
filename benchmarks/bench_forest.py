"""forestzoo RF / ExtraTrees against scikit-learn, LightGBM (rf mode) and XGBoost (XGBRFClassifier).

Same data, same run; every (model, dataset, repeat) is fitted in its own fresh
process, 100 fully grown trees on ``n_jobs=2`` threads by default, and the
median over ``--repeats`` runs is reported. Ratios are against scikit-learn:
RF-like models (RaF, lgbm-rf, xgb-rf) against sklearn's RandomForest,
ET against sklearn's ExtraTrees.

    python benchmarks/bench_forest.py --datasets digits,breast_cancer --repeats 1
    python benchmarks/bench_forest.py --datasets clf100k --repeats 1 --timeout 600 --markdown out.md

On a machine shared with other work, run it as ``OMP_WAIT_POLICY=PASSIVE python
benchmarks/bench_forest.py ...``: with the default (spinning) OpenMP wait policy,
LightGBM and XGBoost fits on an oversubscribed 2-core machine were seen to take
40-100x longer on some runs (breast_cancer: 0.16 s, then 12-23 s). forestzoo
and scikit-learn fit on joblib threads and do not read it.

It also times forestzoo's start-up in brand-new processes (``import forestzoo``
plus a first fit of a tiny forest), once with an empty Numba cache and once
with that cache filled (``--no-jit`` skips this, ``--jit-only`` does only this).
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as H  # noqa: E402

SCRIPT = os.path.abspath(__file__)
#: an untimed warm-up longer than this compiled code (Numba) rather than loading it; such a
#: run's peak RSS includes the compiler's memory, and the table says so in its "runs" column
WARMUP_COMPILE_S = 20.0


def _csv(choices, kind):
    def parse(text):
        names = [t.strip() for t in text.split(",") if t.strip()]
        bad = [n for n in names if n not in choices]
        if bad or not names:
            raise argparse.ArgumentTypeError(f"unknown {kind} {', '.join(bad) or '(none)'}; "
                                             f"choose from {', '.join(choices)}")
        return names
    return parse


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=_csv(H.DATASETS, "dataset"), default=list(H.DATASETS),
                   help="comma-separated, from: " + ", ".join(H.DATASETS))
    p.add_argument("--models", type=_csv(H.MODELS, "model"), default=list(H.MODELS),
                   help="comma-separated, from: " + ", ".join(H.MODELS))
    p.add_argument("--repeats", type=int, default=3, help="fresh-process runs per model; the median is shown")
    p.add_argument("--n-trees", type=int, default=100)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds per worker process (load + warm-up + fit + predict); a worker past it is "
                        "killed and shown as timed out")
    p.add_argument("--markdown", metavar="PATH", help="also write the tables as Markdown (rewritten after "
                                                      "each dataset)")
    p.add_argument("--json", metavar="PATH", help="append every worker's raw result as a JSON line")
    p.add_argument("--data-dir", metavar="DIR", help="keep the generated .npz datasets here (default: a "
                                                     "temporary directory, removed at the end)")
    jit = p.add_mutually_exclusive_group()
    jit.add_argument("--no-jit", action="store_true", help="skip the forestzoo start-up measurement")
    jit.add_argument("--jit-only", action="store_true", help="only the forestzoo start-up measurement")
    args = p.parse_args(argv)
    if args.repeats < 1 or args.n_trees < 1 or args.n_jobs < 1 or args.timeout <= 0:
        p.error("--repeats, --n-trees, --n-jobs must be >= 1 and --timeout > 0")
    return args


# -- summarising -------------------------------------------------------------
def summarise(runs):
    """Median over a model's runs, or the reason there is none."""
    ok = [r for r in runs if r["status"] == "ok"]
    timed_out = [r for r in runs if r["status"] == "timeout"]
    failed = [r for r in runs if r["status"] == "failed"]
    s = {"n_ok": len(ok), "n_runs": len(runs)}
    if failed:
        s["failed"] = failed[0]["error"]
    if timed_out:
        s["timeout_s"] = timed_out[0]["timeout_s"]
    s["compiled"] = sum(r["warmup_s"] > WARMUP_COMPILE_S for r in ok)
    if ok and not failed and not timed_out:
        for key in ("fit_s", "fit_cpu_s", "predict_s", "peak_rss_mb", "accuracy"):
            s[key] = statistics.median(r[key] for r in ok)
    return s


def table_rows(summaries, models):
    """Header and one row of strings per model, ratios against the model's sklearn baseline."""
    header = ["model", "fit s", "fit CPU s", "predict s", "peak RSS MB", "accuracy", "vs", "fit speed-up",
              "fit CPU ratio", "predict speed-up", "RSS ratio", "acc diff pp", "runs"]
    rows = []
    for m in models:
        s = summaries.get(m)
        if s is None:
            continue
        base_name = H.MODELS[m][1]
        runs = f"{s['n_ok']}/{s['n_runs']}" + (f" ({s['compiled']} compiled)" if s["compiled"] else "")
        if "fit_s" not in s:
            if "failed" in s:
                cell = f"failed: {s['failed']}"
            else:
                cell = f"> {s['timeout_s']:.0f} s (timed out)"
            rows.append([m, cell] + [""] * 10 + [runs])
            continue
        b = summaries.get(base_name) if base_name else None
        if base_name is None:
            ratios = ["-", "", "", "", "", ""]
        elif b is None or "fit_s" not in b:
            why = ("not run" if b is None else f"timed out at {b['timeout_s']:.0f} s" if "timeout_s" in b
                   else "failed")
            ratios = [base_name, f"n/a ({base_name} {why})", "", "", "", ""]
        else:
            ratios = [base_name, f"{b['fit_s'] / s['fit_s']:.2f}x", f"{b['fit_cpu_s'] / s['fit_cpu_s']:.2f}x",
                      f"{b['predict_s'] / s['predict_s']:.2f}x",
                      f"{s['peak_rss_mb'] / b['peak_rss_mb']:.2f}", f"{100 * (s['accuracy'] - b['accuracy']):+.2f}"]
        rows.append([m, f"{s['fit_s']:.2f}", f"{s['fit_cpu_s']:.1f}", f"{s['predict_s']:.3f}", f"{s['peak_rss_mb']:.0f}",
                     f"{s['accuracy']:.4f}"] + ratios + [runs])
    return header, rows


def render_text(header, rows):
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render_markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in rows]
    return "\n".join(out)


def dataset_title(name, runs, args, load):
    ok = [r for r in runs if r["status"] == "ok"]
    title = f"{name}: {H.DATASETS[name]}"
    if ok:
        r = ok[0]
        title += (f"; train {r['n_train']}, test {r['n_test']}; worker RSS after loading the data "
                  f"{min(x['data_rss_mb'] for x in ok):.0f} MB")
    title += (f"; {args.n_trees} trees, n_jobs={args.n_jobs}, median of {args.repeats} (timeout "
              f"{args.timeout:.0f} s); load average before/after {load[0]:.2f}/{load[1]:.2f}")
    return title


def jit_table(rows):
    header = ["cache", "import s", "RF(2 trees) first fit s", "import + first fit s", "first predict s",
              "ET fit+predict s", "process wall s"]
    out = []
    for r in rows:
        if r["status"] != "ok":
            why = f"> {r['timeout_s']:.0f} s (timed out)" if r["status"] == "timeout" else f"failed: {r['error']}"
            out.append([r["cache"], why] + [""] * 5)
            continue
        out.append([r["cache"], f"{r['import_s']:.2f}", f"{r['rf_fit_s']:.2f}", f"{r['import_s'] + r['rf_fit_s']:.2f}",
                    f"{r['rf_predict_s']:.2f}", f"{r['et_fit_predict_s']:.2f}", f"{r['process_wall_s']:.2f}"])
    return header, out


# -- the run -------------------------------------------------------------------
def environment():
    try:
        commit = subprocess.run(["git", "-C", os.path.dirname(SCRIPT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    env = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                   if k.startswith(("OMP_", "NUMBA_", "MKL_", "OPENBLAS_")))
    return (f"{datetime.datetime.now().isoformat(timespec='seconds')}; {os.cpu_count()} CPUs ({cpu}); "
            f"Python {platform.python_version()}; forestzoo checkout {commit}; "
            f"environment: {env or '(no OMP_/NUMBA_/MKL_/OPENBLAS_ variables set)'}")


def main(argv=None):
    args = parse_args(argv)
    command = "python benchmarks/bench_forest.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    md = [f"Command: `{command}`", "", environment(), ""]

    def flush_markdown():
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write("\n".join(md) + "\n")

    if not args.no_jit:
        print("forestzoo start-up: new process, import + first fit of a 2-tree forest on 200 x 5 "
              "(cold: empty NUMBA_CACHE_DIR; warm: the same directory again, --repeats times)", flush=True)
        header, rows = jit_table(H.jit_startup(args.timeout, n_warm=args.repeats))
        print(render_text(header, rows) + "\n", flush=True)
        md += ["### forestzoo start-up (JIT)", "", render_markdown(header, rows), ""]
        flush_markdown()
    if args.jit_only:
        return 0

    data_dir = args.data_dir or tempfile.mkdtemp(prefix="fz-bench-data-")
    os.makedirs(data_dir, exist_ok=True)
    try:
        for name in args.datasets:
            path = H.write_dataset_in_child(SCRIPT, name, data_dir)
            load_before = os.getloadavg()[0]
            runs = {m: [] for m in args.models}
            for rep in range(args.repeats):
                for m in args.models:
                    if any(r["status"] != "ok" for r in runs[m]):
                        continue  # timed out or failed once: repeating only burns the budget
                    spec = {"dataset": name, "model": m, "repeat": rep, "data_path": path,
                            "n_trees": args.n_trees, "n_jobs": args.n_jobs}
                    if H.MODELS[m][3] == "forestzoo":
                        H.prewarm_forestzoo(args.timeout)
                    r = H.run_worker(SCRIPT, spec, args.timeout)
                    runs[m].append(r)
                    _progress(r, args.repeats)
                    if args.json:
                        with open(args.json, "a") as f:
                            f.write(json.dumps(r) + "\n")
            summaries = {m: summarise(rs) for m, rs in runs.items()}
            header, rows = table_rows(summaries, args.models)
            title = dataset_title(name, [r for rs in runs.values() for r in rs], args,
                                  (load_before, os.getloadavg()[0]))
            print(f"\n{title}\n{render_text(header, rows)}\n", flush=True)
            md += [f"### {name}", "", title, "", render_markdown(header, rows), ""]
            flush_markdown()
    finally:
        if not args.data_dir:
            for f in os.listdir(data_dir):
                os.remove(os.path.join(data_dir, f))
            os.rmdir(data_dir)
    return 0


def _progress(r, repeats):
    head = f"  [{r['dataset']}] {r['model']} run {r['repeat'] + 1}/{repeats}:"
    if r["status"] == "ok":
        print(f"{head} fit {r['fit_s']:.2f} s ({r['fit_cpu_s']:.1f} CPU s), predict {r['predict_s']:.3f} s "
              f"({r['predict_cpu_s']:.2f} CPU s), acc {r['accuracy']:.4f}, "
              f"peak RSS {r['peak_rss_mb']:.0f} MB (VmHWM {r['vmhwm_mb'] or 0:.0f} MB, warm-up {r['warmup_s']:.1f} s, wall {r['wall_s']:.1f} s)",
              file=sys.stderr, flush=True)
    elif r["status"] == "timeout":
        print(f"{head} timed out after {r['timeout_s']:.0f} s", file=sys.stderr, flush=True)
    else:
        print(f"{head} failed: {r['error']}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    # internal modes, run by the parent in child processes
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        print(json.dumps(H.worker(json.loads(sys.argv[2]))), flush=True)
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "--write-data":
        print(H.write_dataset(*json.loads(sys.argv[2])), flush=True)
        sys.exit(0)
    sys.exit(main())
