"""ORF prequential score over a grid of min_samples_split (n_split) and n_tests on the bench_online streams.

Batch size 1, 10 trees, mean of the seeds: accuracy (%) for the
classification streams, MAE for friedman1.  Answers whether the gap to
river's AMF / ARF is a matter of how soon leaves split (the lecture's
n_split) or of how many candidate splits a leaf keeps (which the lecture
leaves open).  With ``--windows K`` each cell also prints the score in K
consecutive windows of the stream (early vs late learning).  With
``--river-python`` (the Python of an environment with river) river's ARF and
AMF are scored the same way, on the same stream and seeds.

    python benchmarks/investigations/orf_settings.py                                  # n_split 5..100, n_tests 20
    python benchmarks/investigations/orf_settings.py --min-samples-split 10 20 50 --n-tests 20 50 100 200 400 --windows 5
    python benchmarks/investigations/orf_settings.py --min-samples-split 20 --n-tests 100 --windows 5 --river-python <venv>/bin/python
"""
import argparse
import os
import sys

import numpy as np

# bench_online.py is in benchmarks/, the parent of this directory
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_online import make_stream, run_ours, run_river  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--streams", default="stable,covtype-like,friedman1")
    p.add_argument("--n-samples", type=int, default=10000)
    p.add_argument("--min-samples-split", type=int, nargs="+", default=[5, 10, 20, 50, 100])
    p.add_argument("--n-tests", type=int, nargs="+", default=[20])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--windows", type=int, default=0, help="also print the score in this many windows")
    p.add_argument("--river-python", default=os.environ.get("FORESTZOO_RIVER_PYTHON"),
                   help="Python of an environment with river: also score its ARF and AMF")
    args = p.parse_args(argv)

    def cell(runs, scale):
        text = f"{scale * runs.mean():.3f}"
        if args.windows:
            text += " [" + " ".join(f"{scale * w.mean():.2f}" for w in np.array_split(runs, args.windows)) + "]"
        return text

    for name in args.streams.split(","):
        X, y, task = make_stream(name, args.n_samples, 0)
        scale = 100.0 if task == "classification" else 1.0
        for nt in args.n_tests:
            row = []
            for mss in args.min_samples_split:
                # batch size 1: the first sample is learned alone, every later one predicted, then learned
                runs = np.mean([run_ours(X, y, task, 1, 10, seed, outcomes=True, min_samples_split=mss, n_tests=nt)
                                for seed in args.seeds], axis=0)
                row.append(f"n_split={mss}: " + cell(runs, scale))
            print(f"{name} n_tests={nt}", " | ".join(row), flush=True)
        if args.river_python:
            suffix = "Classifier" if task == "classification" else "Regressor"
            for kind in ("ARF", "AMF"):
                per_seed = [run_river(args.river_python, kind + suffix, X, y, task, 10, seed, 3600, outcomes=True)
                            for seed in args.seeds]
                if any(r is None for r in per_seed):
                    continue
                # the first sample is left out, as for ORF (which learns it before predicting)
                runs = np.mean([r[1:] for r in per_seed], axis=0)
                print(f"{name} river {kind}{suffix}: " + cell(runs, scale), flush=True)


if __name__ == "__main__":
    main()
