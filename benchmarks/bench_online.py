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

With ``--drift`` the streams are those of :mod:`forestzoo.online._streams`
(abrupt, gradual and recurring concept drift: SEA concepts, rotating
hyperplane, Agrawal with a function switch, the class-sorted order of a
bundled dataset), three seeds by default; the table gives each model's mean
prequential accuracy per stream and over the streams, throughput, and the
number of drifts ORF found; ``--plot`` draws accuracy over each stream
(seed 0, windows of ``n / 40`` rows) with the drift points marked.  river's
ARFClassifier, AMFClassifier and HoeffdingAdaptiveTreeClassifier are run
when ``--river-python`` is given.  The regression streams (Friedman #1 with
abrupt, gradual and recurring changes of its relevant features) score
``OnlineRandomForestRegressor`` by prequential MAE, against river's
ARFRegressor (default and mean leaves) when ``--river-python`` is given; ``--plot`` draws them to a
second image (``_regression`` added to its name).

Usage::

    python benchmarks/bench_online.py --river-python /venv/bin/python [--n-samples 10000]
    python benchmarks/bench_online.py --drift --river-python /venv/bin/python [--plot docs/figures/online_drift.png]
"""

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
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


def run_ours(X, y, task, batch, n_estimators, seed, outcomes=False, model_out=None, with_speed=False, **params):
    """ORF's prequential ``(score, samples/s)`` with mini-batches of ``batch`` rows, or with
    ``outcomes=True`` its per-row hits / absolute errors (every row after the first batch);
    ``model_out`` (a list) receives the model; ``with_speed=True`` adds samples/s to the outcomes."""
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
    if model_out is not None:
        model_out.append(model)
    if outcomes:
        return (scored, X.shape[0] / secs) if with_speed else scored
    # river scores its first sample too (with an untrained model); the difference is one sample
    return scored.mean(), X.shape[0] / secs


def run_river(python, model, X, y, task, n_estimators, seed, timeout, outcomes=False, with_speed=False):
    """river's prequential ``(score, samples/s)``, or with ``outcomes=True`` its per-sample hits / errors
    (and its samples/s with ``with_speed=True``)."""
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
    if outcomes:
        return (np.asarray(res["outcomes"]), res["sps"]) if with_speed else np.asarray(res["outcomes"])
    return res["score"], res["sps"]


def fmt(task, score):
    return f"{100 * score:.2f} %" if task == "classification" else f"{score:.3f}"


def run_drift(args):
    """The ``--drift`` benchmark: the streams of ``forestzoo.online._streams`` over ``args.seeds`` seeds.

    Classification streams are scored by accuracy against river's ARF, AMF
    and Hoeffding Adaptive Tree, regression streams (``friedman-*``) by MAE
    against river's ARFRegressor, with its default leaves (a linear model or the
    mean, whichever has erred less) and with leaf means as the online forest's
    (river only with ``--river-python``).
    """
    from forestzoo.online._streams import REGRESSION_STREAMS, STREAMS

    names = list(STREAMS) + list(REGRESSION_STREAMS) if args.streams == "all" else args.streams.split(",")
    river = args.river_python
    groups = (
        ("classification", [n for n in names if n not in REGRESSION_STREAMS],
         ("ARFClassifier", "AMFClassifier", "HoeffdingAdaptiveTreeClassifier") if river else ()),
        ("regression", [n for n in names if n in REGRESSION_STREAMS], ("ARFRegressor", "ARFRegressor-mean") if river else ()),
    )
    for task, streams, river_models in groups:
        if streams:
            _run_drift_task(args, task, streams, river_models)


def _run_drift_task(args, task, streams, river_models):
    from forestzoo.online._streams import make_stream

    ours = {  # label -> (batch, ORF parameters)
        "ORF adwin (batch 1)": (1, {}),
        "ORF adwin (batch 100)": (100, {}),
        "ORF drift=None (batch 100)": (100, {"drift": None}),
        "ORF oob (batch 100)": (100, {"drift": "oob"}),
    }
    scores, speeds, drifts, curves = {}, {}, {}, {}
    for name in streams:
        for seed in range(args.seeds):
            X, y, positions = make_stream(name, args.n_samples, seed)
            for label, (batch, params) in ours.items():
                models = []
                hits, sps = run_ours(X, y, task, batch, args.n_estimators, seed, outcomes=True,
                                     model_out=models, with_speed=True, **params)
                # score every row after the first 100, for every model alike
                hits = np.concatenate((np.full(batch, np.nan), hits))
                scores.setdefault((name, label), []).append(np.nanmean(hits[100:]))
                speeds.setdefault((name, label), []).append(sps)
                drifts.setdefault((name, label), []).append(int(models[0].n_drifts_.sum()))
                if seed == 0:
                    curves[(name, label)] = (hits, positions)
            for kind in river_models:
                res = run_river(args.river_python, kind, X, y, task, args.n_estimators, seed,
                                args.timeout, outcomes=True, with_speed=True)
                if res is None:
                    continue
                hits, sps = res
                label = f"river {kind}"
                scores.setdefault((name, label), []).append(np.mean(hits[100:]))
                speeds.setdefault((name, label), []).append(sps)
                if seed == 0:
                    curves[(name, label)] = (hits, positions)
        print(f"# {name} done", file=sys.stderr, flush=True)
        if args.jsonl:  # one line per stream, so that a long run keeps what it finished
            with open(args.jsonl, "a") as fh:
                fh.write(json.dumps({"stream": name, "task": task, "n": args.n_samples, "seeds": args.seeds, "runs": [
                    {"label": lb, "score": scores[k], "sps": speeds[k], "drifts": drifts.get(k)}
                    for k in scores if k[0] == name for lb in [k[1]]]}) + "\n")
    labels = list(ours) + [f"river {k}" for k in river_models]
    print_tables(scores, speeds, drifts, streams, labels, args, task)
    if args.plot:
        path = Path(args.plot)
        if task == "regression":
            path = path.with_name(f"{path.stem}_regression{path.suffix}")
        plot_curves(curves, streams, labels, path, task)


def merge_jsonl(paths, args):
    """The tables of ``--drift`` from the per-stream lines of one or more ``--jsonl`` files."""
    by_task = {}
    for path in paths:
        with open(path) as fh:
            for line in fh:
                rec = json.loads(line)
                scores, speeds, drifts, streams, labels = by_task.setdefault(
                    rec.get("task", "classification"), ({}, {}, {}, [], []))
                streams.append(rec["stream"])
                args.n_samples, args.seeds = rec["n"], rec["seeds"]
                for run in rec["runs"]:
                    key = (rec["stream"], run["label"])
                    scores[key], speeds[key] = run["score"], run["sps"]
                    if run["drifts"] is not None:
                        drifts[key] = run["drifts"]
                    if run["label"] not in labels:
                        labels.append(run["label"])
    for task, (scores, speeds, drifts, streams, labels) in by_task.items():
        print_tables(scores, speeds, drifts, streams, labels, args, task)


def print_tables(scores, speeds, drifts, streams, labels, args, task="classification"):
    """Markdown tables: accuracy (or MAE) per stream and model (mean of seeds) with ORF's drifts, then throughput."""
    what = "accuracy (%)" if task == "classification" else "MAE"
    scale, digits = (100, 2) if task == "classification" else (1, 3)
    print(f"Prequential {what}, mean of {args.seeds} seeds, {args.n_samples} rows (sorted-* streams: the "
          "dataset's rows), every row after the first 100; in brackets the drifts ORF found (sum over trees, mean "
          "of seeds)\n")
    print("| stream | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for name in streams:
        cells = []
        for label in labels:
            v = scores.get((name, label))
            cell = "-" if v is None else f"{scale * np.mean(v):.{digits}f}"
            if v is not None and (name, label) in drifts and "None" not in label:
                cell += f" ({np.mean(drifts[(name, label)]):.0f})"
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")
    means = [np.mean([np.mean(scores[(n, lb)]) for n in streams]) if all((n, lb) in scores for n in streams)
             else float("nan") for lb in labels]
    print("| **mean** | " + " | ".join(f"**{scale * m:.{digits}f}**" for m in means) + " |")
    print("\nThroughput (samples/s, mean over streams and seeds)\n")
    print("| " + " | ".join(labels) + " |")
    print("|" + "---|" * len(labels))
    print("| " + " | ".join(f"{np.mean([s for (n, lb), v in speeds.items() if lb == label for s in v]):,.0f}"
                            if any(lb == label for (_, lb) in speeds) else "-" for label in labels) + " |")


def plot_curves(curves, streams, labels, path, task="classification"):
    """Accuracy (or MAE) over each stream (seed 0), windows of n / 40 rows, drift points as dashed lines."""
    scale = 100 if task == "classification" else 1
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [lb for lb in labels if "batch 1)" not in lb]
    fig, axes = plt.subplots(len(streams), 1, figsize=(9, 2.4 * len(streams)), squeeze=False)
    for ax, name in zip(axes[:, 0], streams):
        for label in shown:
            if (name, label) not in curves:
                continue
            hits, positions = curves[(name, label)]
            w = max(len(hits) // 40, 1)
            k = len(hits) // w
            with warnings.catch_warnings():  # a window inside the unscored first rows is all NaN: a gap
                warnings.simplefilter("ignore", RuntimeWarning)
                acc = np.nanmean(hits[: k * w].reshape(k, w), axis=1)
            ax.plot((np.arange(k) + 0.5) * w, scale * acc, label=label, lw=1.2)
        for pos in positions:
            ax.axvline(pos, color="k", ls="--", lw=0.8)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("accuracy %" if task == "classification" else "MAE")
    axes[0, 0].legend(fontsize=7, ncol=2)
    axes[-1, 0].set_xlabel("row of the stream")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-samples", type=int, default=10000)
    p.add_argument("--n-estimators", type=int, default=10)
    p.add_argument("--streams", default="stable,covtype-like,friedman1")
    p.add_argument("--river-python", default=os.environ.get("FORESTZOO_RIVER_PYTHON"))
    p.add_argument("--timeout", type=int, default=1800)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--drift", action="store_true", help="the concept-drift streams (--streams all by default)")
    p.add_argument("--seeds", type=int, default=3, help="--drift: seeds 0..SEEDS-1")
    p.add_argument("--plot", default=None, help="--drift: write accuracy over the streams to this image")
    p.add_argument("--jsonl", default=None, help="--drift: append each stream's results to this file")
    p.add_argument("--merge", nargs="+", default=None, help="print the --drift tables of these --jsonl files")
    args = p.parse_args()
    if args.merge:
        return merge_jsonl(args.merge, args)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    # load ORF's compiled kernels (Numba cache) before any timing, as river's are imported before its loop
    rng = np.random.RandomState(0)
    Xw = rng.normal(size=(200, 4))
    run_ours(Xw, (Xw[:, 0] > 0).astype(int), "classification", 1, 2, 0)
    run_ours(Xw, Xw[:, 0], "regression", 1, 2, 0)
    if args.drift:
        if args.streams == p.get_default("streams"):
            args.streams = "all"
        for drift in (None, "oob"):
            run_ours(Xw, (Xw[:, 0] > 0).astype(int), "classification", 1, 2, 0, drift=drift)
            run_ours(Xw, Xw[:, 0], "regression", 1, 2, 0, drift=drift)
        return run_drift(args)
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
