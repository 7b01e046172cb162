"""Compile forestzoo's Numba kernels ahead of their first use: :func:`compile_kernels`, ``forestzoo compile``.

Numba compiles a kernel on its first call and keeps the machine code in its
on-disk cache (beside the package, or in ``NUMBA_CACHE_DIR``), so the first
fit of each kind of model in a new environment waits for the compiler.
:func:`compile_kernels` pays that wait at a moment the user chooses -- a
Docker image's build, a CI job's cache step, a cluster's set-up -- and on
several cores at once: it fits and predicts a small instance of each chosen
estimator in worker processes, which write the cache that every later
process loads.
"""

import os
import time
import warnings

__all__ = ["compile_kernels"]

#: Estimators handed to the workers first, one task each: their growers and walkers serve most families, which
#: then mostly load them from the cache instead of compiling them again in another process.
ENGINE_FIRST = ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor",
                "DecisionTreeClassifier", "DecisionTreeRegressor")


def _small_fit(names):
    """Fit and predict a small instance of each estimator in ``names`` (in this process); its seconds.

    The instance has 5 trees (where the estimator has ``n_estimators``),
    ``random_state=0``, one thread and the estimator's
    ``_fast_check_params``; it is fitted on 60 Gaussian rows of 4 features:
    a classifier on two and on three classes, a regressor on a noisy linear
    target.  Every method a fitted model is used through afterwards
    (``predict``, ``predict_proba``, ``decision_function``) is called once.
    """
    import numpy as np
    from sklearn.base import is_classifier

    import forestzoo

    classes = dict(forestzoo.all_estimators())
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 4))
    regression = [(X, X[:, 0] + 0.1 * rng.normal(size=60))]
    classification = []
    for n_classes in (2, 3):
        y = np.arange(60) % n_classes
        Xy = X.copy()
        Xy[:, 0] += y  # the classes shifted along feature 0
        classification.append((Xy, y))
    start = time.perf_counter()
    for name in names:
        estimator = classes[name]()
        known = estimator.get_params()
        params = {k: v for k, v in {"n_estimators": 5, "random_state": 0, "n_jobs": 1}.items() if k in known}
        params.update(getattr(classes[name], "_fast_check_params", {}))
        estimator.set_params(**params)
        for Xy, y in classification if is_classifier(estimator) else regression:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # few trees, few epochs: convergence warnings
                estimator.fit(Xy, y)
                for method in ("predict", "predict_proba", "decision_function"):
                    if hasattr(estimator, method):
                        getattr(estimator, method)(Xy)
                if name in ENGINE_FIRST:
                    _both_walks(estimator, Xy)
    return time.perf_counter() - start


def _both_walks(forest, X):
    """Run both dense walks of axis-aligned trees on one of ``forest``'s trees.

    A forest's prediction walks its rows eight together or in lanes that
    take the next row, by the shape of its trees
    (:func:`forestzoo._engine.tree.walk_in_lanes`); the small fit's trees
    choose one, a later model's may choose the other.
    """
    import numpy as np

    from ._engine.api import Tree, apply_compact, apply_lanes

    trees = [getattr(e, "tree_", None) for e in getattr(forest, "estimators_", [forest])]
    tree = next((t for t in trees if isinstance(t, Tree) and t.obl_ptr.shape[0] <= 1), None)
    if tree is None:
        return
    rows = np.ascontiguousarray(X, dtype=np.float32)
    out = np.empty(rows.shape[0], dtype=np.intp)
    apply_compact(rows, tree.compact, tree.walk_nodes, tree.obl_ptr, tree.obl_feature, tree.obl_weight, out)
    apply_lanes(rows, tree.compact, out)


def _plan(estimators, known):
    """The tasks of :func:`compile_kernels`, in the order they are handed out: tuples of estimator names."""
    names = list(known) if estimators is None else list(estimators)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"Unknown estimators {unknown}; accepted: {', '.join(known)}.")
    first = [(n,) for n in ENGINE_FIRST if n in names]
    by_family = {}
    for n in names:
        if n not in ENGINE_FIRST:
            by_family.setdefault(known[n].__module__.split(".")[1], []).append(n)
    return first + [tuple(group) for group in by_family.values()]


def compile_kernels(estimators=None, *, n_jobs=None, verbose=False):
    """Compile (or load from Numba's on-disk cache) the kernels of forestzoo's estimators, in worker processes.

    Each chosen estimator is fitted and used for prediction once, small, so
    that the kernels its default configuration runs on dense ``X`` and a 1-D
    ``y`` are compiled and written to the cache; a later process that fits
    it loads them instead of compiling them.  Other configurations (another
    ``splitter``, sparse ``X``, several outputs) use kernels of their own,
    compiled on their first use as before.

    The estimators whose kernels most families share (the random forests,
    extra trees and decision trees) are handed to the workers first, one per
    task; then every other family, one family per task.

    Parameters
    ----------
    estimators : list of str or None, default=None
        Names of estimators of :func:`forestzoo.all_estimators`; None takes
        all of them.
    n_jobs : int or None, default=None
        Worker processes; None or -1 uses every core.  Numba compiles on one
        thread, so processes are what shortens the wait.
    verbose : bool, default=False
        Print each task's seconds as it ends.

    Returns
    -------
    seconds : dict
        ``{task: seconds}``: each task (an estimator's name, or a family's
        estimators joined by ``+``) and the wall seconds it took in its
        worker, and ``"total"``.

    Raises
    ------
    ValueError
        When a name is not one of :func:`forestzoo.all_estimators`.

    Notes
    -----
    Numba's cache is keyed by the source files and the CPU: a cache written
    on one machine serves processes on machines with the same CPU model
    (set ``NUMBA_CPU_NAME=generic`` for a cache that any x86-64 machine
    loads, at some cost in speed; see the portability page of the documentation).

    Examples
    --------
    >>> import forestzoo
    >>> seconds = forestzoo.compile_kernels(["DecisionTreeClassifier"], n_jobs=1)  # doctest: +SKIP
    """
    from joblib import Parallel, delayed, effective_n_jobs

    import forestzoo

    tasks = _plan(estimators, dict(forestzoo.all_estimators()))
    workers = max(1, min(effective_n_jobs(n_jobs), len(tasks)))
    seconds = {}
    start = time.perf_counter()
    parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator")
    for group, took in zip(tasks, parallel(delayed(_small_fit)(group) for group in tasks)):
        seconds["+".join(group)] = took
        if verbose:
            print(f"forestzoo: compiled {'+'.join(group)} in {took:.1f} s", flush=True)
    seconds["total"] = time.perf_counter() - start
    return seconds


def _environment_note():
    """Where the cache is written, for the command's first line."""
    where = os.environ.get("NUMBA_CACHE_DIR")
    return f"NUMBA_CACHE_DIR={where}" if where else "Numba's cache (the package's __pycache__ folders when writable)"
