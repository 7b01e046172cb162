"""gcForest on the face protocols with every forest refitted on all training rows for new samples.

A diagnostic, not a model of the library: the shipped cascade and scanner
predict a new sample with the mean of the k fold forests, each trained on
(k - 1) / k of the rows, like the out-of-fold class vectors the next level was
trained on.  Stacking in scikit-learn's manner would instead refit each forest
on all training rows for prediction.  This script patches
``KFoldEstimator.fit`` and the scanner's ``Grain.fit`` to do that and prints
the test accuracy of ``gcForest-leaf1`` (the settings of
``bench_deep.py``), with and without the patch, on the same splits.

    FORESTZOO_DATA=DIR python benchmarks/gcforest_refit.py \\
        --experiments orl5,orl7,yale5,yale7,yale9 --seeds 0

Results: docs/results/gcforest.md, "Five splits per face protocol, and
refitting on all training rows".
"""

import argparse
import os
import sys
import time

import numpy as np
from sklearn.base import clone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_deep as B  # noqa: E402

from forestzoo._base import MAX_SEED  # noqa: E402
from forestzoo.deep import _level, _scanning  # noqa: E402
from forestzoo.deep._windows import sample_windows  # noqa: E402

_fold_fit, _grain_fit = _level.KFoldEstimator.fit, _scanning.Grain.fit


def _refit_estimator(template, rng, X, y, sample_weight):
    est = clone(template).set_params(random_state=int(rng.randint(MAX_SEED)))
    est.fit(X, y, sample_weight=sample_weight)
    est._keep_prediction_only()
    return est


def fold_fit_refit(self, X, y, sample_weight, folds, rng):
    """The shipped fit (out-of-fold vectors), then one forest on all rows that alone predicts."""
    oof = _fold_fit(self, X, y, sample_weight, folds, rng)
    self.estimators_ = [_refit_estimator(self.template, rng, X, y, sample_weight)]
    return oof


def grain_fit_refit(self, X, y, sample_weight, folds, rng, max_window_samples, working_memory, out=None):
    """The shipped scanning fit, then one forest per kind on the windows of all rows."""
    out = _grain_fit(self, X, y, sample_weight, folds, rng, max_window_samples, working_memory, out)
    wins, owner = sample_windows(X, self.image, self.window, self.stride, np.arange(X.shape[0]),
                                 max_window_samples, int(rng.randint(MAX_SEED)))
    for forest in self.forests:
        forest.estimators_ = [_refit_estimator(forest.template, rng, wins, y[owner], sample_weight[owner])]
    return out


def run(mode, experiment, seed, n_jobs):
    patched = mode == "refit"
    _level.KFoldEstimator.fit = fold_fit_refit if patched else _fold_fit
    _scanning.Grain.fit = grain_fit_refit if patched else _grain_fit
    X_tr, y_tr, X_te, y_te = B.load(experiment, seed)
    X_tr, X_te = np.ascontiguousarray(X_tr, np.float32), np.ascontiguousarray(X_te, np.float32)
    model = B.make("gcForest-leaf1", experiment, n_jobs, seed, None)
    t0 = time.perf_counter()
    model.fit(X_tr, y_tr)
    fit_s = time.perf_counter() - t0
    accuracy = 100 * np.mean(model.predict(X_te) == y_te)
    return accuracy, fit_s, model.n_levels_


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--experiments", default="orl5,orl7,yale5,yale7,yale9")
    p.add_argument("--seeds", default="0")
    p.add_argument("--n-jobs", type=int, default=2)
    args = p.parse_args(argv)
    print("| protocol | seed | fold mean (shipped) % | refit on all rows % | fit s shipped / refit | levels |")
    print("|---|---|---|---|---|---|")
    for experiment in args.experiments.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            a, ta, la = run("shipped", experiment, seed, args.n_jobs)
            b, tb, lb = run("refit", experiment, seed, args.n_jobs)
            print(f"| {experiment} | {seed} | {a:.2f} | {b:.2f} | {ta:.0f} / {tb:.0f} | {la} / {lb} |", flush=True)


if __name__ == "__main__":
    main()
