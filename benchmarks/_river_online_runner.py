"""Prequential (test-then-train) run of river's ARF / AMF / Hoeffding Adaptive Tree on one stream.

Executed by bench_online.py with the Python of an environment that has
`river`.  Reads an .npz (X, y, task, n_models, seed), writes a pickle with
the prequential accuracy (classification) or MAE (regression), the
samples per second of the whole predict_one + learn_one loop, and the
per-sample outcomes (hit or absolute error) for windowed scores.
"""

import pickle
import sys
import time

import numpy as np


def main(inp, out, model_name):
    from river import forest, tree

    d = np.load(inp)
    X, y, task = d["X"], d["y"], str(d["task"])
    n_models, seed = int(d["n_models"]), int(d["seed"])
    ctor = {
        "ARFClassifier": lambda: forest.ARFClassifier(n_models=n_models, seed=seed),
        "AMFClassifier": lambda: forest.AMFClassifier(n_estimators=n_models, seed=seed),
        "ARFRegressor": lambda: forest.ARFRegressor(n_models=n_models, seed=seed),
        # ARF with the mean of the leaf's targets as its prediction, as the online forest's leaves predict
        # (river's default, "adaptive", picks per leaf between the mean and a linear model)
        "ARFRegressor-mean": lambda: forest.ARFRegressor(n_models=n_models, seed=seed, leaf_prediction="mean"),
        "AMFRegressor": lambda: forest.AMFRegressor(n_estimators=n_models, seed=seed),
        "HoeffdingAdaptiveTreeClassifier": lambda: tree.HoeffdingAdaptiveTreeClassifier(seed=seed),
    }[model_name]
    model = ctor()
    names = [f"x{j}" for j in range(X.shape[1])]
    rows = [dict(zip(names, map(float, r))) for r in X]
    targets = [int(v) for v in y] if task == "classification" else [float(v) for v in y]
    outcomes = []  # per sample: hit (classification) or absolute error
    t0 = time.perf_counter()
    for x, t in zip(rows, targets):
        p = model.predict_one(x)
        if task == "classification":
            outcomes.append(float(p == t))
        else:
            outcomes.append(abs((p if p is not None else 0.0) - t))
        model.learn_one(x, t)
    secs = time.perf_counter() - t0
    n = len(rows)
    with open(out, "wb") as fh:
        pickle.dump({"score": sum(outcomes) / n, "sps": n / secs, "seconds": secs, "outcomes": outcomes}, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
