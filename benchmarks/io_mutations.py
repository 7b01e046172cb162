"""Mutation run against :func:`forestzoo.io.load`: every mutant must load cleanly or give ModelFormatError.

Valid model files of several kinds (an axis-aligned random forest, extra
trees, a rotation forest's oblique trees, a cascade forest's prediction
trees, an online forest after ``partial_fit``) are mutated the way an
attacker who recomputes checksums would, and each mutant is loaded -- and,
when it loads, predicted with (and ``partial_fit`` for the online forest) --
in a worker process bounded in address space (``resource.setrlimit``) and
time, so a crash or a hang is recorded instead of ending the run.

Mutation kinds:

* ``flip``: flip 1-4 random bits of a random member, checksum recomputed;
* ``raw``: flip random bits anywhere in the zip file (no reseal);
* ``index``: set one field of one node of a node table, or one element of
  an integer array (``leaf_row``, ``cnodes``, ``obl_ptr``, online ``counts``
  and ``slot``...), to an edge value (-2**31, -2, -1, 0, n - 1, n, n + 1,
  2**31 - 1, NaN or inf for floats), reseal;
* ``json``: change one number, shape or string of ``model.json`` (edge
  values again, or a member name, a class name), reseal;
* ``npy``: rewrite an array member's ``.npy`` header (shape, dtype, order,
  byte order), reseal.

Outcomes of a mutant: ``ok`` (loaded; outputs finite and of the right
shape), ``refused`` (ModelFormatError), ``escape`` (another exception from
``load``), ``post_load`` (loaded, then an exception from predict or
partial_fit), ``bad_output`` (loaded, but outputs of the wrong shape,
non-finite, or probabilities outside [0, 1]), ``crash`` (the worker died of
a signal), ``hang`` (no answer within the time limit).  ``load``'s peak
traced memory (tracemalloc, which numpy reports to) is compared with the
bytes of arrays the file declares.

Usage::

    PYTHONPATH=. python benchmarks/io_mutations.py --n 10000 --seed 0 --workers 2
"""

import argparse
import hashlib
import io
import json
import os
import random
import select
import struct
import subprocess
import sys
import time
import zipfile
from collections import Counter

import numpy as np

EDGE_INTS = (-2**31, -2**31 + 1, -3, -2, -1, 0, 1, 2**31 - 1, 2**30, 2**16)
KINDS = ("flip", "raw", "index", "json", "npy")


# ---------------------------------------------------------------------------------------------
# base models


def base_models():
    """``{name: file bytes}`` of small fitted models covering every node-table kind."""
    from forestzoo import (CascadeForestClassifier, ExtraTreesRegressor, OnlineRandomForestClassifier,
                           RandomForestClassifier, RotationForestClassifier)
    from forestzoo.io import save

    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    models = {
        "rf": RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0).fit(X, y),
        "et_reg": ExtraTreesRegressor(n_estimators=2, max_depth=3, random_state=0).fit(X, X[:, 0]),
        "rotation": RotationForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, y),
        "cascade": CascadeForestClassifier(n_estimators=3, n_random_forests=1, n_completely_random_forests=1, n_folds=2, max_levels=1, random_state=0).fit(X, y),
        "online": OnlineRandomForestClassifier(n_estimators=2, n_tests=4, min_samples_split=5,
                                               random_state=0).fit(X, y),
    }
    out = {}
    for name, model in models.items():
        buf = io.BytesIO()
        save(model, buf)
        out[name] = buf.getvalue()
    return out, X


# ---------------------------------------------------------------------------------------------
# zip helpers


def members_of(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def seal(members, touched):
    """A zip of ``members`` whose header records the new size and SHA-256 of each ``touched`` member."""
    header = json.loads(members["header.json"])
    for name in touched:
        header["members"][name] = {"sha256": hashlib.sha256(members[name]).hexdigest(), "size": len(members[name])}
    members = dict(members, **{"header.json": json.dumps(header).encode()})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def split_npy(raw):
    """``(header dict, header length, data offset)`` of a .npy member."""
    fp = io.BytesIO(raw)
    version = np.lib.format.read_magic(fp)
    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = reader(fp)
    return {"shape": shape, "fortran_order": fortran, "descr": np.lib.format.dtype_to_descr(dtype)}, fp.tell()


def npy_bytes(header, data):
    """A .npy member: the format's magic, version, padded header dict, then ``data`` as given."""
    text = repr({"descr": header["descr"], "fortran_order": header["fortran_order"],
                 "shape": tuple(header["shape"])}).encode("latin1")
    small = len(text) + 11 < 65536
    prefix = 10 if small else 12
    pad = -(prefix + len(text) + 1) % 64
    text = text + b" " * pad + b"\n"
    if small:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(text)) + text + data


# ---------------------------------------------------------------------------------------------
# mutations


def _edge(rng, n):
    return rng.choice(EDGE_INTS + (n - 1, n, n + 1, -n))


def mutate(data, kind, rng):
    """One mutant of the file ``data``: ``(bytes, description)``."""
    if kind == "raw":
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b), "raw bits"
    members = members_of(data)
    arrays = sorted(n for n in members if n.startswith("arrays/"))
    if kind == "flip":
        name = rng.choice(arrays + ["model.json"])
        b = bytearray(members[name])
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        members[name] = bytes(b)
        return seal(members, [name]), f"flip {name}"
    if kind == "json":
        graph = json.loads(members["model.json"])
        slots = []

        def collect(node, parent, key):
            if isinstance(node, dict):
                for k, v in node.items():
                    collect(v, node, k)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    collect(v, node, i)
            if parent is not None and not isinstance(node, (dict, list)):
                slots.append((parent, key, node))

        collect(graph, None, None)
        parent, key, old = rng.choice(slots)
        if isinstance(old, bool) or old is None:
            new = rng.choice([0, 1, -1, "x", None, [], {}])
        elif isinstance(old, int):
            new = rng.choice([_edge(rng, old), old + 1, old - 1, -old, 10**12, 2**63, "1", None, 1.5])
        elif isinstance(old, float):
            new = rng.choice([old * 1e300, -old, 0.0, 1e308, None, "nan", 2**40])
        else:
            new = rng.choice([old + "x", "", "arrays/0.npy", "arrays/1.npy", "forestzoo._engine.tree:Tree",
                              "builtins:eval", "os:system", "float", "tuple", 3])
        parent[key] = new
        members["model.json"] = json.dumps(graph).encode()
        return seal(members, ["model.json"]), f"json {key!r}: {old!r} -> {new!r}"[:120]
    name = rng.choice(arrays)
    header, offset = split_npy(members[name])
    raw = bytearray(members[name][offset:])
    dtype = np.dtype(np.lib.format.descr_to_dtype(header["descr"]))
    if kind == "npy":
        choice = rng.randrange(6)
        shape = list(header["shape"])
        if choice == 0 and shape:
            shape[rng.randrange(len(shape))] = rng.choice([0, 1, 2**31, 2**40, shape[0] + 1])
        elif choice == 1:
            shape = shape + [rng.choice([1, 2, 2**20])]
        elif choice == 2:
            shape = shape[1:] if shape else [rng.randrange(4)]
        elif choice == 3:
            header["fortran_order"] = not header["fortran_order"]
        elif choice == 4 and dtype.fields is None:
            header["descr"] = rng.choice(["<f4", ">f8", "<i8", ">i4", "<c16", "|b1", "<u4", "<f2", "|O"])
        else:
            header["descr"] = dtype.newbyteorder(">").descr if dtype.fields else dtype.newbyteorder(">").str
        header["shape"] = tuple(shape)
        try:
            members[name] = npy_bytes(header, bytes(raw))
        except (ValueError, TypeError):
            return mutate(data, "flip", rng)
        return seal(members, [name]), f"npy header of {name}: {header}"[:120]
    # index: one field or element set to an edge value
    a = np.frombuffer(raw, dtype=dtype)
    if a.size == 0:
        return mutate(data, "flip", rng)
    a = a.copy()
    i = rng.randrange(a.size)
    n = a.size
    if dtype.fields is not None:
        field = rng.choice([f for f in dtype.names if dtype.fields[f][0].kind in "iuf"])
        sub = dtype.fields[field][0]
        target = a[field]
    else:
        field, sub, target = None, dtype, a
    if sub.kind == "f":
        value = rng.choice([np.nan, np.inf, -np.inf, 1e308, -1.0, 0.0, 1e-300])
    else:
        info = np.iinfo(sub)
        value = int(np.clip(_edge(rng, n), info.min, info.max))
    target[i] = value
    members[name] = members[name][:offset] + a.tobytes()
    return seal(members, [name]), f"index {name}[{i}]{'.' + field if field else ''} = {value}"


# ---------------------------------------------------------------------------------------------
# worker: one process loading mutants from stdin, answering one line per mutant


def worker(mem_limit):
    import resource
    import tracemalloc
    import warnings

    warnings.simplefilter("ignore")
    if mem_limit:
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    from forestzoo.io import ModelFormatError, load

    rng = np.random.RandomState(1)
    X = rng.normal(size=(17, 4)).astype(np.float64)
    yb = (X[:, 0] > 0).astype(int)
    tracemalloc.start()
    out = sys.stdout
    for line in sys.stdin:
        path = line.strip()
        with open(path, "rb") as f:
            data = f.read()
        declared = 0
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                declared = sum(i.file_size for i in zf.infolist() if i.filename.startswith("arrays/"))
        except Exception:  # noqa: BLE001 - the count is only a reference for the memory figure
            pass
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            model = load(io.BytesIO(data))
        except ModelFormatError as exc:
            peak = tracemalloc.get_traced_memory()[1] - base
            out.write(json.dumps({"outcome": "refused", "peak": peak, "declared": declared,
                                  "why": str(exc)[:160]}) + "\n")
            out.flush()
            continue
        except BaseException as exc:  # noqa: BLE001 - this is what the run counts
            out.write(json.dumps({"outcome": "escape", "why": f"{type(exc).__name__}: {exc}"[:200]}) + "\n")
            out.flush()
            continue
        peak = tracemalloc.get_traced_memory()[1] - base
        outcome, why = "ok", ""
        try:
            if hasattr(model, "predict_proba"):
                p = np.asarray(model.predict_proba(X))
                n_classes = len(model.classes_)
                if p.shape != (X.shape[0], n_classes) or not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1:
                    outcome, why = "bad_output", f"predict_proba shape {p.shape}, range [{p.min()}, {p.max()}]"
            p = np.asarray(model.predict(X))
            if p.shape[0] != X.shape[0]:
                outcome, why = "bad_output", f"predict shape {p.shape}"
            elif p.dtype.kind == "f" and not np.all(np.isfinite(p)):
                outcome, why = "bad_output", "non-finite predictions"
            if hasattr(model, "apply"):
                model.apply(X)
            if hasattr(model, "partial_fit"):
                model.partial_fit(X, model.classes_[yb % len(model.classes_)] if hasattr(model, "classes_") else X[:, 0])
                model.predict(X)
        except BaseException as exc:  # noqa: BLE001
            outcome, why = "post_load", f"{type(exc).__name__}: {exc}"[:200]
        out.write(json.dumps({"outcome": outcome, "peak": peak, "declared": declared, "why": why}) + "\n")
        out.flush()


class Runner:
    """A worker process fed one mutant at a time; restarted after a crash or a hang."""

    def __init__(self, tmpdir, timeout, mem_limit):
        self.tmpdir, self.timeout, self.mem_limit = tmpdir, timeout, mem_limit
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", "--mem",
                                      str(self.mem_limit)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)

    def check(self, data, timeout=None):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        path = os.path.join(self.tmpdir, f"mutant-{os.getpid()}-{id(self)}.fzm")
        with open(path, "wb") as f:
            f.write(data)
        self.proc.stdin.write(path + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout or self.timeout)
        if not ready:
            self.close()
            return {"outcome": "hang"}
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            self.proc = None
            return {"outcome": "crash", "why": f"worker exit status {rc}"}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def run(n, seed, timeout, mem_limit, tmpdir, log=None, workers=1):
    """Mutate and check ``n`` files; returns ``(Counter of (kind, outcome), list of failures, memory ratios)``.

    Mutant ``i`` is drawn from ``random.Random((seed, i))``: the same mutants whatever ``workers`` is.
    """
    import threading

    files, _ = base_models()
    names = sorted(files)
    counts, failures, ratios = Counter(), [], []
    lock = threading.Lock()
    next_i = iter(range(n))

    def work(k):
        runner = Runner(tmpdir, timeout, mem_limit)
        try:
            for name, data in files.items():  # warm up: compiled kernels loaded, every original accepted
                r = runner.check(data, timeout=600)
                if r["outcome"] != "ok":
                    raise SystemExit(f"the valid {name} file did not load and predict cleanly: {r}")
            while True:
                with lock:
                    i = next(next_i, None)
                if i is None:
                    return
                name, kind = names[i % len(names)], KINDS[(i // len(names)) % len(KINDS)]
                data, what = mutate(files[name], kind, random.Random(f"{seed}-{i}"))
                r = runner.check(data)
                with lock:
                    counts[(kind, r["outcome"])] += 1
                    if r["outcome"] in ("ok", "refused") and r.get("declared"):
                        ratios.append(r["peak"] / r["declared"])
                    if r["outcome"] not in ("ok", "refused"):
                        failures.append((name, kind, what, r))
                        if log:
                            print(f"[{i}] {name} {kind}: {what} -> {r}", file=log, flush=True)
        finally:
            runner.close()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts, failures, ratios


def measure_load(repeats=9):
    """Median and minimum ``load`` time and peak traced memory over array bytes of a 100-tree forest."""
    import tracemalloc

    from forestzoo import RandomForestClassifier
    from forestzoo.io import load, save

    rng = np.random.RandomState(0)
    X = rng.normal(size=(5000, 20))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5)
    forest = RandomForestClassifier(n_estimators=100, random_state=0).fit(X, y)
    buf = io.BytesIO()
    save(forest, buf)
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        declared = sum(i.file_size for i in zf.infolist() if i.filename.startswith("arrays/"))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        load(io.BytesIO(data))
        times.append(time.perf_counter() - t)
    tracemalloc.start()
    load(io.BytesIO(data))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"100-tree forest: {sum(e.tree_.node_count for e in forest.estimators_)} nodes, file {len(data)} bytes, "
          f"arrays {declared} bytes; load median {1000 * float(np.median(times)):.0f} ms (min "
          f"{1000 * min(times):.0f}); peak traced {peak} bytes = {peak / declared:.2f} x arrays")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="mutants to check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant before it counts as a hang")
    parser.add_argument("--mem", type=int, default=4 * 2**30, help="address-space limit of the worker, bytes")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--measure-load", action="store_true", help="time load of a 100-tree forest and exit")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.mem)
        return
    if args.measure_load:
        measure_load()
        return
    import tempfile

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        counts, failures, ratios = run(args.n, args.seed, args.timeout, args.mem, tmp, log=sys.stderr,
                                       workers=args.workers)
    outcomes = Counter()
    for (kind, outcome), c in counts.items():
        outcomes[outcome] += c
    print(f"mutants: {args.n}  seed: {args.seed}  workers: {args.workers}  "
          f"seconds: {time.perf_counter() - t0:.0f}")
    print("outcomes:", dict(sorted(outcomes.items())))
    for kind in KINDS:
        print(f"  {kind:6s}", {o: c for (k, o), c in sorted(counts.items()) if k == kind})
    if ratios:
        print(f"load peak / declared array bytes: max {max(ratios):.2f}, median {float(np.median(ratios)):.2f}")
    for name, kind, what, r in failures[:50]:
        print(f"FAIL {name} {kind}: {what} -> {r}")


if __name__ == "__main__":
    main()
