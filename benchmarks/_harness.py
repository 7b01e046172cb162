"""The pieces of ``bench_forest.py``: datasets, peer models, the worker, the subprocess runner.

Every timed fit happens in a fresh worker process (``bench_forest.py --worker
SPEC``) so that one library's threads, allocator state or JIT cache never
leaks into another's numbers, and so that ``ru_maxrss`` is the peak of exactly
one model. The parent writes each dataset once (float32, already split) to a
``.npz`` file; the worker loads it, which keeps the generator's float64
temporaries out of the worker's peak RSS.
"""

import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

SEED = 0
TEST_SIZE = 0.2

# -- datasets ---------------------------------------------------------------
#: name -> (description, loader). make_classification keeps its defaults
#: (2 redundant features, 2 clusters per class, flip_y=0.01) apart from the
#: sizes and informative features of the speed targets.
DATASETS = {
    "clf100k": "make_classification 100k x 50, 20 informative, 2 classes",
    "clf1m": "make_classification 1M x 50, 20 informative, 2 classes",
    "clf100k-10c": "make_classification 100k x 50, 20 informative, 10 classes",
    "digits": "load_digits 1797 x 64, 10 classes",
    "breast_cancer": "load_breast_cancer 569 x 30, 2 classes",
}


def make_dataset(name):
    """``(X, y)`` of a named dataset, deterministic for :data:`SEED`."""
    from sklearn.datasets import load_breast_cancer, load_digits, make_classification

    if name == "clf100k":
        return make_classification(100_000, 50, n_informative=20, random_state=SEED)
    if name == "clf1m":
        return make_classification(1_000_000, 50, n_informative=20, random_state=SEED)
    if name == "clf100k-10c":
        return make_classification(100_000, 50, n_informative=20, n_classes=10, random_state=SEED)
    if name == "digits":
        return load_digits(return_X_y=True)
    if name == "breast_cancer":
        return load_breast_cancer(return_X_y=True)
    raise ValueError(f"Unknown dataset {name!r}; known: {', '.join(DATASETS)}.")


def write_dataset(name, directory):
    """Split a dataset 80/20 (stratified, fixed seed), store it as float32 ``.npz``; return the path."""
    from sklearn.model_selection import train_test_split

    path = os.path.join(directory, f"{name}.npz")
    if os.path.exists(path):
        return path
    X, y = make_dataset(name)
    # Both tree libraries of the comparison fit on float32; converting once here
    # means no model pays (in time or RSS) for a conversion the others skip.
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.asarray(y, dtype=np.int64)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=TEST_SIZE, random_state=SEED, stratify=y)
    tmp = path + ".part.npz"
    np.savez(tmp, X_train=X_tr, X_test=X_te, y_train=y_tr, y_test=y_te)
    os.replace(tmp, path)
    return path


# -- models -----------------------------------------------------------------
#: name -> (family, scikit-learn baseline the ratios are taken against, description, library).
#: RaF, ET, sk-RF and sk-ET carry the names and the parameters of the models ``forestzoo bench``
#: registers; they are built here directly, not through
#: ``forestzoo.bench.make_model``, because the registry imports forestzoo's families (Numba
#: included, about 60 MB) into every worker, which would inflate scikit-learn's peak RSS.
MODELS = {
    "RaF": ("rf", "sk-RF", "forestzoo RandomForestClassifier", "forestzoo"),
    "ET": ("et", "sk-ET", "forestzoo ExtraTreesClassifier", "forestzoo"),
    "sk-RF": ("rf", None, "sklearn RandomForestClassifier", "sklearn"),
    "sk-ET": ("et", None, "sklearn ExtraTreesClassifier", "sklearn"),
    "lgbm-rf": ("rf", "sk-RF", 'lightgbm LGBMClassifier(boosting_type="rf")', "lightgbm"),
    "xgb-rf": ("rf", "sk-RF", "xgboost XGBRFClassifier", "xgboost"),
}


def make_model(name, n_trees, n_jobs, n_features, n_train):
    """A fully grown forest of ``n_trees`` trees, ``n_jobs`` threads, sqrt(d) features per node."""
    if name in ("RaF", "ET"):
        import forestzoo

        cls = forestzoo.RandomForestClassifier if name == "RaF" else forestzoo.ExtraTreesClassifier
        return cls(n_estimators=n_trees, n_jobs=n_jobs, random_state=SEED)
    if name in ("sk-RF", "sk-ET"):
        from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

        cls = RandomForestClassifier if name == "sk-RF" else ExtraTreesClassifier
        return cls(n_estimators=n_trees, n_jobs=n_jobs, random_state=SEED)
    frac = math.sqrt(n_features) / n_features  # what max_features="sqrt" draws, as a fraction
    if name == "lgbm-rf":
        import lightgbm

        return lightgbm.LGBMClassifier(
            boosting_type="rf", n_estimators=n_trees, n_jobs=n_jobs, random_state=SEED, verbose=-1,
            # "fully grown": LightGBM caps num_leaves at 2**17 = 131072
            num_leaves=int(min(2**17 - 1, max(2, n_train))), max_depth=-1,
            min_child_samples=1, min_child_weight=0.0, min_split_gain=0.0,
            subsample=0.632, subsample_freq=1,  # bagging without replacement, 63.2% of rows per tree
            # per node, like RF's max_features; LightGBM's per-tree feature_fraction
            # would give each tree only ~7 of 50 features
            feature_fraction_bynode=frac,
            # LightGBM caches one histogram per leaf (features x bins x 16 bytes, ~200 KB here) and
            # by default never evicts: 131071 leaves at 1M rows asked for ~27 GB and were killed for
            # memory on a 24 GB machine (2026-11-25). A capped pool evicts and recomputes instead.
            histogram_pool_size=4096,
        )
    if name == "xgb-rf":
        import xgboost

        return xgboost.XGBRFClassifier(
            n_estimators=n_trees, n_jobs=n_jobs, random_state=SEED, tree_method="hist",
            max_depth=0, grow_policy="lossguide", max_leaves=0, min_child_weight=0.0,
            subsample=0.632, colsample_bynode=frac,
        )
    raise ValueError(f"Unknown model {name!r}; known: {', '.join(MODELS)}.")


def library_version(name):
    return __import__(MODELS[name][3]).__version__


# -- the worker (runs in the child process) ---------------------------------
def _peak_rss_mb():
    # Linux reports kB. Caveat: a new process starts with the ru_maxrss of the
    # process that spawned it, which is why the parent stays small and leaves
    # dataset generation to a child of its own (see write_dataset_in_child).
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cpu_s():
    """User + system CPU seconds of this process, all threads: less sensitive than wall time to
    other work on a shared machine (a fit that got 2 cores' worth has fit_cpu_s ~ 2 * fit_s)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _vmhwm_mb():
    """The address space's own high-water mark (not inherited across exec), as a cross-check."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def worker(spec):
    """Load, warm up, fit, predict, score one model; return the result dict (the child's JSON line)."""
    data = np.load(spec["data_path"])
    X_tr, X_te, y_tr, y_te = (data[k] for k in ("X_train", "X_test", "y_train", "y_test"))
    rss_data = _peak_rss_mb()
    n_train, n_features = X_tr.shape
    make = lambda n: make_model(spec["model"], n, spec["n_jobs"], n_features, n_train)  # noqa: E731

    # Untimed warm-up on a small slice: imports, thread pools, and forestzoo's
    # JIT compile or cache load (reported on its own by the JIT start-up probe).
    t0 = time.perf_counter()
    small = slice(0, min(n_train, 500))
    make(2).fit(X_tr[small], y_tr[small]).predict(X_te[:50])
    warmup = time.perf_counter() - t0

    model = make(spec["n_trees"])
    cpu0 = _cpu_s()
    t0 = time.perf_counter()
    model.fit(X_tr, y_tr)
    fit_s = time.perf_counter() - t0
    fit_cpu_s = _cpu_s() - cpu0
    cpu0 = _cpu_s()
    t0 = time.perf_counter()
    pred = model.predict(X_te)
    predict_s = time.perf_counter() - t0
    predict_cpu_s = _cpu_s() - cpu0
    return {
        "dataset": spec["dataset"], "model": spec["model"], "repeat": spec["repeat"],
        "fit_s": fit_s, "fit_cpu_s": fit_cpu_s, "predict_s": predict_s,
        "predict_cpu_s": predict_cpu_s, "accuracy": float(np.mean(pred == y_te)),
        "peak_rss_mb": _peak_rss_mb(), "vmhwm_mb": _vmhwm_mb(), "data_rss_mb": rss_data, "warmup_s": warmup,
        "n_train": int(n_train), "n_test": int(X_te.shape[0]), "n_features": int(n_features),
        "n_classes": int(np.unique(y_tr).size), "version": library_version(spec["model"]),
    }


# -- the parent's side -------------------------------------------------------
def write_dataset_in_child(script, name, directory):
    """:func:`write_dataset` in a child process, so the parent's peak RSS (the floor of every
    worker's ``ru_maxrss``) never holds a generated dataset."""
    proc = subprocess.run([sys.executable, script, "--write-data", json.dumps([name, directory])],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"generating {name!r} failed:\n{proc.stderr}")
    return proc.stdout.strip().splitlines()[-1]


def run_worker(script, spec, timeout):
    """Run one worker in a fresh process; return its result dict, with ``status`` ok / timeout / failed."""
    cmd = [sys.executable, script, "--worker", json.dumps(spec)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker's own group: it and nothing else
        proc.communicate()
        return dict(spec, status="timeout", wall_s=time.perf_counter() - t0, timeout_s=timeout)
    wall = time.perf_counter() - t0
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = [ln for ln in err.strip().splitlines() if ln.strip()]
        reason = tail[-1] if tail else f"exit code {proc.returncode}, no output"
        return dict(spec, status="failed", wall_s=wall, error=reason[:200])
    return dict(json.loads(lines[-1]), status="ok", wall_s=wall)


_JIT_PROBE = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import forestzoo
t1 = time.perf_counter()
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5)).astype(np.float32)
y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(np.int64)
rf = forestzoo.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
t2 = time.perf_counter()
rf.predict(X)
t3 = time.perf_counter()
forestzoo.ExtraTreesClassifier(n_estimators=2, random_state=0).fit(X, y).predict(X)
t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "rf_fit_s": t2 - t1, "rf_predict_s": t3 - t2, "et_fit_predict_s": t4 - t3}))
"""


def prewarm_forestzoo(timeout):
    """Fill forestzoo's own Numba cache (the default one) in a throw-away process.

    Run before every forestzoo worker: when a source file has changed since the
    cache was written, the recompile (tens of seconds, and ~1 GB of LLVM memory)
    then happens here rather than in the worker, where it would inflate peak RSS.
    """
    try:
        subprocess.run([sys.executable, "-c", _JIT_PROBE], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass  # the worker will compile, and report its warm-up time


def jit_startup(timeout, n_warm=1):
    """Cold, then ``n_warm`` warm, start-ups of forestzoo in new processes sharing one fresh
    NUMBA_CACHE_DIR."""
    rows = []
    labels = ["cold"] + (["warm"] if n_warm == 1 else [f"warm {i + 1}" for i in range(n_warm)])
    with tempfile.TemporaryDirectory(prefix="fz-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in labels:
            t0 = time.perf_counter()
            try:
                proc = subprocess.run([sys.executable, "-c", _JIT_PROBE], capture_output=True, text=True,
                                      env=env, timeout=timeout)
            except subprocess.TimeoutExpired:
                rows.append({"cache": label, "status": "timeout", "timeout_s": timeout})
                continue
            wall = time.perf_counter() - t0
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
                rows.append({"cache": label, "status": "failed", "error": (tail or ["no output"])[-1][:200]})
                continue
            rows.append(dict(json.loads(lines[-1]), cache=label, status="ok", process_wall_s=wall))
    return rows
