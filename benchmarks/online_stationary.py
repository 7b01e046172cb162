"""Drift handling on streams without drift: prequential scores of ORF with ``drift=None``, ``"adwin"``, ``"oob"``.

The stationary streams of ``bench_online.py`` (stable, covtype-like,
friedman1), batch sizes 1 and 100, seeds 0..SEEDS-1: the mean prequential
score (accuracy % or MAE, every row after the first batch) and the drifts
(tree replacements) and warnings (background trees started) the forest
counted, summed over its trees.  ``--long N`` also runs the stable stream
of N rows (batch 100) and reports the drifts found at the default settings,
the false-alarm measure of a detector on a stream without change.

Usage::

    python benchmarks/online_stationary.py [--n-samples 10000] [--seeds 3] [--long 100000]
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_online import make_stream, run_ours  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-samples", type=int, default=10000)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--streams", default="stable,covtype-like,friedman1")
    p.add_argument("--long", type=int, default=0)
    args = p.parse_args()
    print("| stream | batch | drift=None | adwin | adwin drifts / warnings | oob | oob replacements |")
    print("|---|---|---|---|---|---|---|")
    for name in args.streams.split(","):
        for batch in (1, 100):
            res = {}
            for drift in (None, "adwin", "oob"):
                scores, drifts, warns = [], [], []
                for seed in range(args.seeds):
                    X, y, task = make_stream(name, args.n_samples, seed)
                    models = []
                    scored = run_ours(X, y, task, batch, 10, seed, outcomes=True, model_out=models, drift=drift)
                    scores.append(scored.mean())
                    drifts.append(models[0].n_drifts_.sum())
                    warns.append(models[0].n_warnings_.sum())
                res[drift] = (np.mean(scores), np.mean(drifts), np.mean(warns), task)
            fmt = (lambda v: f"{100 * v:.2f} %") if res[None][3] == "classification" else (lambda v: f"{v:.3f}")
            print(f"| {name} | {batch} | {fmt(res[None][0])} | {fmt(res['adwin'][0])} | "
                  f"{res['adwin'][1]:.1f} / {res['adwin'][2]:.1f} | {fmt(res['oob'][0])} | {res['oob'][1]:.1f} |",
                  flush=True)
    if args.long:
        X, y, task = make_stream("stable", args.long, 0)
        models = []
        scored = run_ours(X, y, task, 100, 10, 0, outcomes=True, model_out=models)
        m = models[0]
        print(f"\nstable, {args.long} rows, batch 100, default settings: accuracy {100 * scored.mean():.2f} %, "
              f"drifts {m.n_drifts_.sum()} (per tree {m.n_drifts_.tolist()}), warnings {m.n_warnings_.sum()}")


if __name__ == "__main__":
    main()
