"""The mutation run of ``io_mutations.py`` on the families whose state holds arrays of their own.

Base files: a DNDT and a 2-tree DNRF (disjunctive normal functions), a Haar tree (filters,
integral-image features), a competence forest (incompetence flags), a denoising forest (tree
layouts, autoencoders), an RVFL network and a 2-bag RVFL forest, gradient boosting, LogitBoost
and AdaBoost.R2 (rounds, weights, initial scores), a 2-level cascade regressor and a gcForest
(levels, grains).  The mutation kinds, the bounded worker and the outcomes are those of
``io_mutations.py`` (an ``index`` mutant that draws a boolean array is made a ``flip`` mutant).

Usage::

    PYTHONPATH=. python benchmarks/io_mutations_families.py --n 2000 --seed 0 --workers 2
"""

import io
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import io_mutations as mut  # noqa: E402

#: (name, estimator class, parameters): small fits, 4 features as the worker's rows have.
FAMILIES = (
    ("dndt", "DNDTClassifier", {"n_epochs": 3}),
    ("dnrf", "DNRFClassifier", {"n_estimators": 2, "n_epochs": 3}),
    ("haar", "HaarTreeClassifier", {"max_depth": 3}),
    ("competence", "CompetenceForestClassifier", {"gamma": 1.0, "max_estimators": 3}),
    ("denoising", "DenoisingRandomForestClassifier", {"n_estimators": 4, "max_depth": 2, "n_noisy_copies": 1,
                                                      "per_depth": False, "dae_max_iter": 100}),
    ("rvfl", "RVFLClassifier", {"n_hidden": 6}),
    ("rvfl_forest", "RVFLForestClassifier", {"n_estimators": 2, "n_hidden": 6}),
    ("gradient", "GradientBoostingClassifier", {"n_estimators": 3}),
    ("logitboost", "AdaBoostClassifier", {"n_estimators": 3, "algorithm": "LogitBoost"}),
    ("adaboost_r2", "AdaBoostRegressor", {"n_estimators": 3}),
    ("cascade", "CascadeForestRegressor", {"n_estimators": 3, "n_folds": 2, "max_levels": 2}),
    ("gcforest", "GCForestClassifier", {"scan_n_estimators": 2, "n_estimators": 2, "n_folds": 2, "max_levels": 1}),
)


def family_models():
    """``({name: file bytes}, X)`` of the fitted family models."""
    import forestzoo
    from forestzoo.io import save
    from sklearn.base import is_classifier

    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls, params in FAMILIES:
            est = getattr(forestzoo, cls)(random_state=0, **params)
            est.fit(X, y if is_classifier(est) else X[:, 0])
            buf = io.BytesIO()
            save(est, buf)
            out[name] = buf.getvalue()
    return out, X


_mutate = mut.mutate


def mutate(data, kind, rng):
    """``io_mutations.mutate``; an ``index`` mutant of a boolean array (which has no integer edge values)
    becomes a ``flip`` mutant of the same file."""
    try:
        return _mutate(data, kind, rng)
    except ValueError:
        if kind != "index":
            raise
        return _mutate(data, "flip", rng)


def main():
    """``io_mutations``' command line (same options and report) over :func:`family_models`' files."""
    mut.base_models = family_models  # run() mutates these files instead of io_mutations' own
    mut.mutate = mutate
    mut.main()


if __name__ == "__main__":
    main()
