"""Where a cold first use compiles: Numba's compile time per function, for one case of ``bench_startup.py``.

A new process with an empty ``NUMBA_CACHE_DIR`` imports forestzoo from the
checkout given (default: this one), fits the case's estimator on 500 x 5 rows
and predicts, while a listener of Numba's ``numba:compile`` events times every
compilation.  Each function's time is exclusive: the compilations it starts in
turn (the compiled functions it calls) are counted for them, not for it.  The
functions that Numba inlines are part of their caller's time.  Prints the
process's wall and CPU seconds and the functions that took longest::

    python benchmarks/compile_profile.py --case RandomForestClassifier
    python benchmarks/compile_profile.py --case ExtraTreesRegressor --checkout ../base --top 10

Compile times vary by 10-15 % from run to run; compare two checkouts over a
few runs each.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_startup import CASES, ROOT, _env  # noqa: E402

_CHILD = """
import json, time
t0 = time.perf_counter()
import numpy as np
from numba.core import event

stack, spent = [], {{}}


class Timer(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["dispatcher"].py_func.__qualname__, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, start, inner = stack.pop()
        took = time.perf_counter() - start
        spent[name] = spent.get(name, 0.0) + took - inner
        if stack:
            stack[-1][2] += took


event.register("numba:compile", Timer())
from forestzoo import {name}
rng = np.random.RandomState(0)
X = rng.normal(size=(500, 5))
y = (X[:, 0] + X[:, 1] > 0).astype(int) if {clf} else X[:, 0] + 0.1 * rng.normal(size=500)
model = {expr}.fit(X, y)
model.predict(X)
print(json.dumps(dict(wall=time.perf_counter() - t0, cpu=time.process_time(), spent=spent)))
"""


def profile(checkout, case, timeout):
    """``{"wall", "cpu", "spent": {function: seconds}}`` of one cold run of ``case``."""
    name, expr, task = CASES[case]
    code = _CHILD.format(name=name, expr=expr, clf=task == "clf")
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                              env=_env(os.path.abspath(checkout), cache), timeout=timeout)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{case} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--case", default="RandomForestClassifier", choices=sorted(CASES))
    p.add_argument("--checkout", default=ROOT, help="a directory holding forestzoo/")
    p.add_argument("--top", type=int, default=15, help="functions listed")
    p.add_argument("--timeout", type=int, default=1800)
    args = p.parse_args(argv)
    result = profile(args.checkout, args.case, args.timeout)
    spent = result["spent"]
    print(f"{args.case}, cold: {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU, "
          f"{sum(spent.values()):.1f} s compiling {len(spent)} functions")
    print("| function | compile s (exclusive) |")
    print("|---|---:|")
    for fn, sec in sorted(spent.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"| `{fn}` | {sec:.2f} |")


if __name__ == "__main__":
    main()
