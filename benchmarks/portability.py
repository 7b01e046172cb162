"""Run the tests, or fit every estimator, under several BLAS kernels and Numba CPU targets.

OpenBLAS built with DYNAMIC_ARCH picks a kernel (Haswell, SkylakeX, Zen, ...) for the CPU it
finds; ``OPENBLAS_CORETYPE`` forces another one.  Kernels sum in different orders, so a BLAS or
LAPACK call (a matrix product, ``np.linalg.solve``, an SVD) can return values that differ in the
last bits, and a tree that thresholds those values may then grow differently.  Numba compiles
for the host CPU unless ``NUMBA_CPU_NAME`` says otherwise.

Each setting of the matrix runs in its own subprocess with its own environment: "no setting"
removes ``OPENBLAS_CORETYPE``, ``NUMBA_CPU_NAME`` and ``NPY_DISABLE_CPU_FEATURES`` (OpenBLAS, Numba
and numpy choose for the CPU), the others set one variable, and "avx2" sets all three so that an
AVX-512 host computes as a CPU without AVX-512 does (OpenBLAS's Haswell kernels, Numba's haswell
target, numpy's AVX2 loops, whose ``exp`` and ``log`` round differently from the AVX-512 ones).  The
kernel that actually ran is read back with ``threadpoolctl.threadpool_info()`` inside that
subprocess, after the work: OpenBLAS may refuse a kernel the CPU cannot run (SkylakeX needs
AVX-512) and fall back to another one.

    python benchmarks/portability.py                  # the test files of the BLAS-using families
    python benchmarks/portability.py --all            # the whole suite
    python benchmarks/portability.py tests/test_obraf.py -k glass
    python benchmarks/portability.py --reproducibility [--markdown docs/portability.md]
    python benchmarks/portability.py --settings none SkylakeX generic ...

``--reproducibility`` fits each estimator of ``forestzoo.all_estimators()`` (the small settings
of ``tests/_estimators.py``) with ``random_state=0`` on glass (classifiers) or concrete
(regressors), under every setting, and compares the outputs to those of the first setting:
bit-identical or not, and the largest absolute difference.  "no setting" runs twice, so the
table also shows that a second process reproduces the first.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: The test files of the families whose node models or networks call BLAS / LAPACK.
BLAS_TESTS = [
    "tests/test_obraf.py", "tests/test_mpsvm.py", "tests/test_rvfl.py", "tests/test_rotation.py",
    "tests/test_dnf.py", "tests/test_denoising.py", "tests/test_deep.py", "tests/test_linear_models.py",
    "tests/test_node_model.py", "tests/test_boosting.py", "tests/test_boosting_gbt.py",
    "tests/test_competence.py", "tests/test_transfer.py",
]

#: Variables a setting may set; "no setting" removes them all.
CONTROLLED = ("OPENBLAS_CORETYPE", "NUMBA_CPU_NAME", "NPY_DISABLE_CPU_FEATURES")

#: numpy's AVX-512 dispatch targets (numpy 2.x names; names a build does not know are ignored).  With them
#: disabled, numpy's ufuncs (``np.exp``, ``np.log``, ...) take the paths they take on an AVX2 CPU.
NUMPY_AVX512 = "X86_V4 AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"

#: name -> (label, variables to set).  NUMBA_CPU_NAME=generic gets its own Numba cache (below).
SETTINGS = {
    "none": ("no setting", {}),
    "Haswell": ("OPENBLAS_CORETYPE=Haswell", {"OPENBLAS_CORETYPE": "Haswell"}),
    "SkylakeX": ("OPENBLAS_CORETYPE=SkylakeX", {"OPENBLAS_CORETYPE": "SkylakeX"}),
    "Prescott": ("OPENBLAS_CORETYPE=Prescott", {"OPENBLAS_CORETYPE": "Prescott"}),
    "Sandybridge": ("OPENBLAS_CORETYPE=Sandybridge", {"OPENBLAS_CORETYPE": "Sandybridge"}),
    "Zen": ("OPENBLAS_CORETYPE=Zen", {"OPENBLAS_CORETYPE": "Zen"}),
    "generic": ("NUMBA_CPU_NAME=generic", {"NUMBA_CPU_NAME": "generic"}),
    # an AVX2 CPU (Intel Haswell and later without AVX-512, AMD Zen 1-3) emulated on an AVX-512 one: all three
    # libraries take the paths they take there
    "avx2": ("AVX2 emulated (OpenBLAS Haswell, Numba haswell, numpy without AVX-512)",
             {"OPENBLAS_CORETYPE": "Haswell", "NUMBA_CPU_NAME": "haswell", "NPY_DISABLE_CPU_FEATURES": NUMPY_AVX512}),
}

#: Estimator variants fitted besides the registry's defaults: the stochastic (SDT) splitter.
EXTRA_VARIANTS = {
    "DecisionTreeClassifier[stochastic]": ("DecisionTreeClassifier", {"splitter": "stochastic"}),
    "DecisionTreeRegressor[stochastic]": ("DecisionTreeRegressor", {"splitter": "stochastic"}),
}


def setting_env(name, base=None):
    """The environment of one setting: ``base`` without the controlled variables, plus the setting's."""
    env = dict(os.environ if base is None else base)
    for var in CONTROLLED:
        env.pop(var, None)
    env.update(SETTINGS[name][1])
    # the worktree first, for the subprocess and for any process it starts (joblib, Dask workers)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if "NUMBA_CPU_NAME" in SETTINGS[name][1]:
        # machine code compiled for another CPU target must not be read from, or written to, the usual cache
        cache = env.get("NUMBA_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "forestzoo-numba-cache")
        env["NUMBA_CACHE_DIR"] = cache.rstrip("/") + "-" + env["NUMBA_CPU_NAME"]
    return env


def runtime_info():
    """What ran in this process: BLAS libraries and their kernels, Numba's target CPU."""
    import forestzoo
    import numba
    import threadpoolctl
    from llvmlite import binding

    blas = [{k: lib.get(k) for k in ("internal_api", "prefix", "version", "architecture", "num_threads")}
            for lib in threadpoolctl.threadpool_info() if lib.get("user_api") == "blas"]
    return {
        "blas": blas,
        "numba_cpu_name": numba.config.CPU_NAME or binding.get_host_cpu_name(),
        "host_cpu": binding.get_host_cpu_name(),
        "numpy_simd": numpy_simd(),
        "forestzoo": forestzoo.__file__,
        "env": {var: os.environ.get(var) for var in CONTROLLED + ("NUMBA_CACHE_DIR",)},
    }


def numpy_simd():
    """numpy's highest x86-64 level whose dispatched loops run here (``X86_V4`` = AVX-512), or ``?``."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "?"
    levels = [lv for lv in ("X86_V4", "X86_V3", "X86_V2") if __cpu_features__.get(lv)
              and (lv in __cpu_dispatch__ or lv == "X86_V2")]
    return levels[0] if levels else "?"


def kernel_label(info):
    """The OpenBLAS kernels that ran, e.g. ``Haswell`` (numpy's and scipy's OpenBLAS pick the same one),
    other BLAS libraries by their API name."""
    names = sorted({lib["architecture"] or lib["internal_api"] for lib in info["blas"] if lib["internal_api"]})
    return "+".join(names) or "(no BLAS loaded)"


# ------------------------------------------------------------------------------------------------
# children: run in the subprocess of one setting


class _Recorder:
    """A pytest plugin that keeps one outcome per test id, also in a log that survives a crash."""

    def __init__(self, log):
        self.outcomes = {}
        self.log = open(log, "w", buffering=1)

    def pytest_runtest_logstart(self, nodeid, location):
        self.log.write(json.dumps({"started": nodeid}) + "\n")

    def pytest_runtest_logreport(self, report):
        previous = self.outcomes.get(report.nodeid)
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            outcome = "failed" if report.when == "call" else "error"
        elif report.skipped:
            outcome = "skipped"
        elif report.when == "call":
            outcome = "passed"
        else:
            return
        if previous in ("failed", "error"):  # a teardown after a failure does not hide it
            return
        self.outcomes[report.nodeid] = outcome
        self.log.write(json.dumps({"nodeid": report.nodeid, "outcome": outcome}) + "\n")

    def pytest_collectreport(self, report):
        if report.failed:
            self.outcomes[report.nodeid or "<collection>"] = "error"


def child_pytest(out, pytest_args):
    import pytest

    sys.path.insert(0, str(REPO))
    import numpy  # noqa: F401  (loads OpenBLAS, which picks its kernel now)

    # written before any test: a kernel the CPU cannot run kills the process at its first BLAS call
    Path(out + ".before").write_text(json.dumps(runtime_info()))
    recorder = _Recorder(out + ".partial")
    start = time.perf_counter()
    code = pytest.main(["-p", "no:cacheprovider", *pytest_args], plugins=[recorder])
    result = {"exit_code": int(code), "seconds": time.perf_counter() - start, "outcomes": recorder.outcomes,
              "runtime": runtime_info()}
    Path(out).write_text(json.dumps(result, indent=1))


def _datasets():
    import numpy as np
    from forestzoo.datasets import load_dataset

    Xc, yc = load_dataset("glass")
    Xr, yr = load_dataset("concrete")
    rows = np.random.RandomState(0).permutation(len(yr))[:300]  # 300 of the 1030 rows keep the fits short
    Xr, yr = Xr[rows], yr[rows]
    new_c = np.random.RandomState(1).normal(Xc.mean(0), 1.5 * Xc.std(0), size=(40, Xc.shape[1]))
    new_r = np.random.RandomState(1).normal(Xr.mean(0), 1.5 * Xr.std(0), size=(40, Xr.shape[1]))
    return {"classifier": (Xc, yc, np.vstack([Xc, new_c])), "regressor": (Xr, yr, np.vstack([Xr, new_r]))}


def child_reproducibility(out, only=None):
    """Fit every estimator (and the extra variants) and save its outputs on the training and 40 unseen rows."""
    import numpy as np
    from sklearn.base import is_classifier

    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "tests"))
    import forestzoo
    from _estimators import fast_instance

    registry = dict(forestzoo.all_estimators())
    jobs = [(name, name, {}) for name in registry] + [(k, v[0], v[1]) for k, v in EXTRA_VARIANTS.items()]
    if only:
        jobs = [job for job in jobs if any(word in job[0] for word in only)]
    data = _datasets()
    Path(str(out) + ".before").write_text(json.dumps(runtime_info()))
    arrays, meta = {}, {}
    for label, name, params in jobs:
        est = fast_instance(registry[name], **params)
        X, y, X_eval = data["classifier" if is_classifier(est) else "regressor"]
        start = time.perf_counter()
        try:
            est.fit(X, y)
            methods = [m for m in ("predict_proba", "decision_function", "predict") if hasattr(est, m)]
            for method in methods:
                try:
                    value = getattr(est, method)(X_eval)
                except (AttributeError, NotImplementedError):
                    continue
                arrays[f"{label}::{method}"] = np.asarray(value, dtype=float)
            meta[label] = {"seconds": time.perf_counter() - start, "error": None}
        except Exception as exc:  # recorded, the other estimators still run
            meta[label] = {"seconds": time.perf_counter() - start, "error": f"{type(exc).__name__}: {exc}"}
        print(f"  {label}: {meta[label]['seconds']:.1f} s {meta[label]['error'] or ''}", flush=True)
    np.savez(out, **arrays)
    Path(str(out) + ".json").write_text(json.dumps({"meta": meta, "runtime": runtime_info()}, indent=1))


# ------------------------------------------------------------------------------------------------
# parent: one subprocess per setting, then the table


def _run_child(args, env, log):
    with open(log, "w") as handle:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], cwd=REPO, env=env,
                              stdout=handle, stderr=subprocess.STDOUT)
    return proc.returncode


def _describe_unset(base):
    was_set = [f"{var}={base[var]}" for var in CONTROLLED if var in base]
    return f"(removed: {', '.join(was_set)})" if was_set else "(none of the variables set)"


def run_tests(settings, pytest_args, workdir):
    rows = []
    for name in settings:
        label = SETTINGS[name][0]
        out, log = workdir / f"tests-{name}.json", workdir / f"tests-{name}.log"
        print(f"== {label}: pytest {' '.join(pytest_args)}  (log: {log})", flush=True)
        code = _run_child(["--child-pytest", str(out), "--", *pytest_args], setting_env(name), log)
        if not out.exists():  # the process died (e.g. an illegal instruction): what it logged so far
            result = _partial_result(out, code)
        else:
            result = json.loads(out.read_text())
            result["died"] = None
        counts = {}
        for outcome in result["outcomes"].values():
            counts[outcome] = counts.get(outcome, 0) + 1
        failing = sorted(k for k, v in result["outcomes"].items() if v in ("failed", "error"))
        runtime = result["runtime"] or {"blas": [], "numba_cpu_name": "?"}
        rows.append({"setting": label, "kernel": kernel_label(runtime) if result["runtime"] else "?",
                     "numba_cpu": runtime["numba_cpu_name"], "numpy_simd": runtime.get("numpy_simd", "?"),
                     "seconds": result["seconds"],
                     "counts": counts, "failing": failing, "died": result["died"]})
        print(f"   kernel {rows[-1]['kernel']}, {counts}, {result['seconds']:.0f} s"
              + (f", {result['died']}" if result["died"] else ""), flush=True)
    return rows


def _exit_description(code):
    if code < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with {code}"


def _partial_result(out, code):
    """The outcomes a dead subprocess logged, and the test it was running."""
    before = Path(str(out) + ".before")
    partial = Path(str(out) + ".partial")
    outcomes, last = {}, None
    if partial.exists():
        for line in partial.read_text().splitlines():
            entry = json.loads(line)
            if "started" in entry:
                last = entry["started"]
            else:
                outcomes[entry["nodeid"]] = entry["outcome"]
    died = _exit_description(code) + (f" in {last}" if last and last not in outcomes else "")
    return {"outcomes": outcomes, "seconds": float("nan"), "died": died,
            "runtime": json.loads(before.read_text()) if before.exists() else None}


def print_test_table(rows, base):
    print()
    print("| setting | BLAS kernel that ran | Numba CPU | numpy SIMD | passed | failed | errors | skipped | xfailed "
          "| failing tests |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        c = row["counts"]
        setting = row["setting"] + (" " + _describe_unset(base) if row["setting"] == "no setting" else "")
        print(f"| {setting} | {row['kernel']} | {row['numba_cpu']} | {row['numpy_simd']} | {c.get('passed', 0)} | {c.get('failed', 0)} | "
              f"{c.get('error', 0)} | {c.get('skipped', 0)} | {c.get('xfailed', 0)} | "
              f"{'<br>'.join(row['failing'] + ([row['died']] if row['died'] else [])) or '-'} |")


def run_reproducibility(settings, workdir, only, reuse=False):
    import numpy as np

    runs = []
    order = list(settings)
    if order and order[0] == "none":
        order.insert(1, "none")  # a second process of the same setting: the control
    for i, name in enumerate(order):
        label = SETTINGS[name][0] + (" (2nd process)" if i > 0 and name == "none" and order[0] == "none" else "")
        out, log = workdir / f"repro-{i}-{name}.npz", workdir / f"repro-{i}-{name}.log"
        print(f"== {label}: fitting every estimator (log: {log})", flush=True)
        code = 0 if reuse and out.exists() else _run_child(["--child-reproducibility", str(out), *(["--only", *only] if only else [])],
                          setting_env(name), log)
        if not out.exists():
            before = Path(str(out) + ".before")
            runtime = json.loads(before.read_text()) if before.exists() else None
            print(f"   the subprocess {_exit_description(code)} before writing its outputs"
                  + (f" (BLAS kernel {kernel_label(runtime)})" if runtime else ""), flush=True)
            runs.append((label, None, {"died": _exit_description(code), "runtime": runtime}))
            continue
        meta = json.loads(Path(str(out) + ".json").read_text())
        runs.append((label, dict(np.load(out)), meta))
        print(f"   kernel {kernel_label(meta['runtime'])}, Numba CPU {meta['runtime']['numba_cpu_name']}", flush=True)
    return runs


def compare_runs(runs):
    """Per estimator and setting: identical to the first run or not, the largest absolute difference."""
    import numpy as np

    ref_label, ref, ref_meta = runs[0]
    estimators = list(ref_meta["meta"])
    table = {}
    for est in estimators:
        table[est] = {}
        keys = [k for k in ref if k.split("::")[0] == est]
        for label, arrays, meta in runs[1:]:
            if arrays is None or meta["meta"].get(est, {}).get("error") or ref_meta["meta"][est]["error"]:
                table[est][label] = None
                continue
            identical, diff, labels_differ = True, 0.0, 0
            classifier = f"{est}::predict_proba" in keys
            for key in keys:
                a, b = ref[key], arrays[key]
                if a.shape != b.shape:
                    identical, diff = False, float("inf")
                    continue
                if np.array_equal(a, b, equal_nan=True):
                    continue
                identical = False
                if classifier and key.endswith("::predict"):  # labels: counted, not subtracted
                    labels_differ = int(np.count_nonzero(a != b))
                else:
                    diff = max(diff, float(np.nanmax(np.abs(a - b))))
            table[est][label] = (identical, diff, labels_differ)
    return ref_label, estimators, table


def reproducibility_markdown(runs):
    ref_label, estimators, table = compare_runs(runs)
    others = [label for label, _, _ in runs[1:]]
    lines = ["| estimator | " + " | ".join(others) + " |", "|---|" + "---|" * len(others)]
    n_rows = {est: len(runs[0][1][f"{est}::predict"]) for est in estimators if f"{est}::predict" in runs[0][1]}
    for est in estimators:
        cells = []
        for label in others:
            cell = table[est][label]
            if cell is None:
                died = next(m.get("died") for l, _, m in runs if l == label)
                error = runs[0][2]["meta"][est]["error"]
                cells.append(f"process {died}" if died else f"error: {error}" if error else "not run")
            elif cell[0]:
                cells.append("identical")
            else:
                extra = f", {cell[2]} of {n_rows[est]} labels" if cell[2] else ""
                cells.append(f"differs ({cell[1]:.1e}{extra})")
        lines.append(f"| {est} | " + " | ".join(cells) + " |")
    kernels = [f"- {label}: BLAS kernel {kernel_label(meta['runtime'])}, Numba CPU "
               f"{meta['runtime']['numba_cpu_name']}, numpy SIMD {meta['runtime'].get('numpy_simd', '?')}" + (f"; the process was {meta['died']}" if meta.get("died") else "")
               for label, arrays, meta in runs if meta and meta.get("runtime")]
    header = (f"Reference: {ref_label} (BLAS kernel {kernel_label(runs[0][2]['runtime'])}, host CPU "
              f"{runs[0][2]['runtime']['host_cpu']}).  Cells: identical (every output bit for bit) or "
              f"differs (largest absolute difference of `predict_proba` / `decision_function`, of `predict` "
              f"for regressors; 'N of M labels': rows whose predicted class changed).")
    return "\n".join([header, "", *kernels, "", *lines])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child-pytest"]:
        rest = argv[2:]
        return child_pytest(argv[1], rest[1:] if rest[:1] == ["--"] else rest)
    if argv[:1] == ["--child-reproducibility"]:
        only = argv[argv.index("--only") + 1:] if "--only" in argv else None
        return child_reproducibility(argv[1], only)

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pytest_args", nargs="*", help="pytest selection (default: the BLAS families' test files)")
    parser.add_argument("--all", action="store_true", help="the whole suite")
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS),
                        help="which settings of the matrix (default: all, in this order)")
    parser.add_argument("--reproducibility", action="store_true",
                        help="fit every estimator under each setting and compare the outputs")
    parser.add_argument("--only", nargs="+", help="--reproducibility: estimators whose name contains a word")
    parser.add_argument("--markdown", help="--reproducibility: also write the table to this file")
    parser.add_argument("--reuse", action="store_true",
                        help="--reproducibility: keep the outputs already in --workdir, fit only the missing ones")
    parser.add_argument("--workdir", help="where the subprocesses' logs and results go (default: a temp dir)")
    args = parser.parse_args(argv)

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="forestzoo-portability-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.reproducibility:
        runs = run_reproducibility(args.settings, workdir, args.only, args.reuse)
        text = reproducibility_markdown(runs)
        print()
        print(text)
        if args.markdown:
            Path(args.markdown).write_text(text + "\n")
        return 0
    pytest_args = args.pytest_args or (["tests"] if args.all else BLAS_TESTS)
    if args.all and args.pytest_args:
        parser.error("--all takes no pytest selection")
    rows = run_tests(args.settings, ["-q", *pytest_args], workdir)
    print_test_table(rows, os.environ)
    (workdir / "tests-table.json").write_text(json.dumps(rows, indent=1))
    return int(any(row["died"] is not None or row["failing"] for row in rows))


if __name__ == "__main__":
    sys.exit(main())
