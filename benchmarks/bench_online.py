"""Online forests: forestzoo ORF vs river's ARF and AMF, prequential, side by side.

Three streams (same rows for every model, generated with scikit-learn):

* ``stable``: make_classification, 20 features, 2 classes, concept stable;
* ``covtype-like``: 7 imbalanced classes over 10 numeric features plus 4
  one-hot "wilderness" and 40 one-hot "soil" columns whose categories depend
  on the class (the shape of UCI covertype; the real file is not available offline);
* ``friedman1``: regression, make_friedman1 with noise.

Prequential protocol: every sample is first predicted, then learned.  river
learns one sample at a time (predict_one / learn_one); forestzoo is run with
batch size 1 (the same protocol) and with mini-batches of 100 (predict the
batch, then partial_fit it).  Scores: accuracy (%) or MAE; throughput:
samples per second of the whole loop.  river runs in the environment given by
``--river-python`` (a separate venv), one process per model.

Usage::

    python benchmarks/bench_online.py --river-python /venv/bin/python [--n-samples 10000]
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
from sklearn.datasets import make_classification, make_friedman1

from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor

HERE = Path(__file__).resolve().parent


def make_stream(name, n, seed=0):
    if name == "stable":
        X, y = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=seed)
        return X, y, "classification"
    if name == "covtype-like":
        weights = [0.36, 0.49, 0.06, 0.005, 0.016, 0.03, 0.039]
        X, y = make_classification(n_samples=n, n_features=10, n_informative=8, n_classes=7, n_clusters_per_class=2,
                                   weights=weights, class_sep=1.5, random_state=seed)
        rng = np.random.RandomState(seed)
        wild = np.argmax(X @ rng.normal(size=(10, 4)), axis=1)
        soil_p = rng.dirichlet(np.full(40, 0.3), size=7)  # class-dependent soil types
        soil = np.array([rng.choice(40, p=soil_p[c]) for c in y])
        X = np.hstack((X, np.eye(4)[wild], np.eye(40)[soil]))
        return X, y, "classification"
    if name == "friedman1":
        X, y = make_friedman1(n_samples=n, n_features=10, noise=1.0, random_state=seed)
        return X, y, "regression"
    raise ValueError(name)


def run_ours(X, y, task, batch, n_estimators, seed, outcomes=False, **params):
    """ORF's prequential ``(score, samples/s)`` with mini-batches of ``batch`` rows, or with
    ``outcomes=True`` its per-row hits / absolute errors (every row after the first batch)."""
    if task == "classification":
        model = OnlineRandomForestClassifier(n_estimators=n_estimators, random_state=seed, **params)
        kw = {"classes": np.unique(y)}
    else:
        model = OnlineRandomForestRegressor(n_estimators=n_estimators, random_state=seed, **params)
        kw = {}
    scored = np.empty(X.shape[0] - batch)
    t0 = time.perf_counter()
    model.partial_fit(X[:batch], y[:batch], **kw)  # the first batch is only learned (no model yet)
    for s in range(batch, X.shape[0], batch):
        xb, yb = X[s:s + batch], y[s:s + batch]
        p = model.predict(xb)
        scored[s - batch:s - batch + len(yb)] = (p == yb) if task == "classification" else np.abs(p - yb)
        model.partial_fit(xb, yb)
    secs = time.perf_counter() - t0
    if outcomes:
        return scored
    # river scores its first sample too (with an untrained model); the difference is one sample
    return scored.mean(), X.shape[0] / secs


def run_river(python, model, X, y, task, n_estimators, seed, timeout, outcomes=False):
    """river's prequential ``(score, samples/s)``, or with ``outcomes=True`` its per-sample hits / errors."""
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.pkl")
        np.savez(inp, X=X, y=y, task=task, n_models=n_estimators, seed=seed)
        try:
            proc = subprocess.run([python, str(HERE / "_river_online_runner.py"), inp, out, model],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode != 0:
            print(f"# river {model} failed: {proc.stderr[-400:]}")
            return None
        with open(out, "rb") as fh:
            res = pickle.load(fh)
    return (res["score"], res["sps"]) if not outcomes else np.asarray(res["outcomes"])


def fmt(task, score):
    return f"{100 * score:.2f} %" if task == "classification" else f"{score:.3f}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-samples", type=int, default=10000)
    p.add_argument("--n-estimators", type=int, default=10)
    p.add_argument("--streams", default="stable,covtype-like,friedman1")
    p.add_argument("--river-python", default=os.environ.get("FORESTZOO_RIVER_PYTHON"))
    p.add_argument("--timeout", type=int, default=1800)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    # load ORF's compiled kernels (Numba cache) before any timing, as river's are imported before its loop
    rng = np.random.RandomState(0)
    Xw = rng.normal(size=(200, 4))
    run_ours(Xw, (Xw[:, 0] > 0).astype(int), "classification", 1, 2, 0)
    run_ours(Xw, Xw[:, 0], "regression", 1, 2, 0)
    print("| stream | model | prequential score | samples/s | ORF(b=1) speed-up |")
    print("|---|---|---|---|---|")
    for name in args.streams.split(","):
        X, y, task = make_stream(name, args.n_samples, args.seed)
        results = {}
        for batch in (1, 100):
            results[f"ORF (batch {batch})"] = run_ours(X, y, task, batch, args.n_estimators, args.seed)
        if args.river_python:
            kinds = ("ARF", "AMF")
            suffix = "Classifier" if task == "classification" else "Regressor"
            for kind in kinds:
                res = run_river(args.river_python, kind + suffix, X, y, task, args.n_estimators, args.seed, args.timeout)
                if res is not None:
                    results[f"river {kind}{suffix}"] = res
        ours_sps = results["ORF (batch 1)"][1]
        for model, (score, sps) in results.items():
            print(f"| {name} | {model} | {fmt(task, score)} | {sps:,.0f} | {ours_sps / sps:.1f}x |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
