"""Bagged forests fitted where the data lives: Dask arrays and data frames on a ``distributed`` cluster.

:class:`DaskRandomForestClassifier`, :class:`DaskRandomForestRegressor`,
:class:`DaskExtraTreesClassifier` and :class:`DaskExtraTreesRegressor` take
the parameters of their in-memory forestzoo counterpart plus ``bagging`` and
``client``, and ``fit`` them on a ``dask.array`` or ``dask.dataframe`` ``X``
(and ``y``) whose partitions stay on the workers that hold them.

Statistical design
------------------
Breiman's bagging (Breiman, "Random Forests", 2001) grows each tree on a
bootstrap sample of the whole training set.  Two designs bring that to
partitions that stay on their workers, chosen by the ``bagging`` parameter.

``bagging="local"`` (the default): per-worker bagging
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each tree is grown on a bootstrap sample of the rows of **one worker**:

1. Every partition is converted once, where it is computed, to the engine's
   float32 rows (with its ``y`` and ``sample_weight`` moved next to it);
   only its row count and its class labels with their counts travel to the
   client.  The class labels are merged there, so every tree's value table
   has a column for every class of the whole data set, also on a worker that
   holds only some of them.
2. The partitions are grouped by the worker that holds them (groups ordered
   by their first partition).  The forest's ``n_estimators`` is split over
   the groups in proportion to their rows (largest remainders, ties to the
   earlier group), and each group gets its own ``random_state``, drawn from
   the forest's ``random_state``.  With one group it is the forest's own, so
   a fit on one worker is tree for tree the in-memory forest's fit on the
   concatenated partitions.
3. Each group's trees are grown by the ordinary in-memory forest, in one task
   pinned to the worker that holds the group's partitions, on the
   concatenation of those partitions; only the fitted trees come back.

Consequences, measured in ``benchmarks/bench_dask.py`` (``docs/benchmarks/dask.md``):

* A tree sees a bootstrap of ``n / n_workers`` rows (about that many rows
  when the partitions are spread evenly), like a forest fitted with
  ``max_samples=1 / n_workers``; its bins (``splitter="hist"``) are the
  quantiles of its worker's rows, not of the whole data set.
* The same ``random_state`` (an int) and the same placement of partitions on
  workers give the same forest.  The placement is the scheduler's: persist
  the data once and fit repeatedly, or place it yourself, when the forest
  must be reproducible.
* Class weights (a dict, or ``"balanced"`` from the global class counts) are
  applied as per-row weights before the groups fit, so they are the
  in-memory forest's; ``"balanced_subsample"`` is per tree, as in memory.
  An int ``max_samples`` is the in-memory forest's bootstrap size scaled to
  each group's share of the rows; a float one is a fraction of each group's
  rows.
* ``oob_score`` and ``warm_start`` are not supported (a tree's out-of-bag
  rows would span workers); they raise before any work is scheduled.  The
  fitted forest has no ``estimators_samples_`` (each tree's bootstrap indices
  are local to its worker's rows).

Peak memory of a worker is about twice its share of the float32 rows (the
partitions and their concatenation) plus the ``uint8`` bins: give each worker
a ``memory_limit`` above that.

``bagging="global"``: one bootstrap of all rows per tree, splits on summed histograms
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Random forests with ``splitter="hist"`` and criterion gini, entropy or
squared error can instead grow every tree as the in-memory forest does, on a
bootstrap of **all** rows with bins from the quantiles of all rows, without
moving the rows: the design of PLANET (Panda et al., "PLANET: massively
parallel learning of tree ensembles with MapReduce", 2009) and of Spark
MLlib's random forests (Meng et al., "MLlib: machine learning in Apache
Spark", 2016), implemented in ``forestzoo._dask_hist``:

1. each partition sends per feature a summary of its sorted values (at most
   2048 order statistics); the client merges them into one set of bin edges
   (at most ``max_bins`` bins, NaN a bin of its own); every partition codes
   its rows once (``uint8``) and keeps them;
2. a tree's bootstrap is drawn without moving rows: ``Multinomial(n, n_i /
   n)`` draws per partition on the client, then ``Multinomial(share_i, 1 /
   n_i)`` counts for the rows of partition ``i`` from a seed of the tree and
   ``i``;
3. per level of a batch of trees, each partition adds its rows (weighted by
   their counts) into histograms of every open node's candidate features
   (``max_features`` of them, drawn per node on the client); Dask sums the
   partitions' histograms in a fixed binary tree; the client chooses every
   node's split with the engine's rules (``min_samples_leaf``,
   ``min_samples_split``, ``min_weight_fraction_leaf``,
   ``min_impurity_decrease``, ``max_depth``, NaN rows tried on both sides);
   the partitions route their rows to the children;
4. a node with fewer than 100000 distinct rows, or than 8 MiB of codes hold
   (419430 rows of 20 features), is gathered to one worker and
   grown to its end by the in-memory engine (hist splitter) on its rows'
   codes and the global bin edges, with the bootstrap counts as weights,
   then grafted in;
5. the trees are ordinary forestzoo trees whose thresholds are bin edges: the
   fitted model is the in-memory forest's class (:meth:`to_local`).

Consequences:

* Every tree sees a bootstrap of all ``n`` rows and the bins of all rows, as
  in memory.  Measured on 300000 x 20 rows, 20 trees
  (``docs/benchmarks/dask.md``): test accuracy 0.11 pp below the in-memory
  forest's on average over 8 data seeds (0.37 pp below on the seed of the
  main table, at 2 and at 4 workers), where per-worker bagging was 0.93 pp
  (2 workers) and 1.26 pp (4 workers) below it.
* The forest depends on ``random_state`` and on the partitioning (the
  bootstrap counts are drawn per partition), not on which worker holds which
  partition: the histograms are summed in the same order wherever they are.
* The fit makes a round trip to the client per level above the small nodes
  (a few levels), moves each small node's rows (its ``uint8`` codes, counts,
  weights and targets) once, and calls the engine once per small node.  In
  the same measurement it took 3.7 s on 2 workers and 3.8 s on 4 (worker
  processes on 2 cores), against 2.3 s in memory and 1.8 s and 1.1 s for
  per-worker bagging, whose trees are grown on fewer rows; on 3,000,000
  rows 42.6 s on 2 workers against 38.3 s in memory.
* A worker holds its partitions, their codes, an ``int32`` bootstrap count
  and node per row and tree of a batch of 32 trees, and the small nodes it
  grows; the client holds the sketches, histograms, splits and subtrees.
* Not supported (``ValueError`` before any work is scheduled): other
  splitters (Extra Trees included), absolute error and Poisson,
  ``max_leaf_nodes``, ``monotonic_cst``, ``ccp_alpha`` and
  ``class_weight="balanced_subsample"``; ``oob_score`` and ``warm_start`` as
  with per-worker bagging.

Faults: a group's task is restricted to the worker holding its partitions;
when that worker leaves the cluster, the task is submitted again without the
restriction, its lost partitions are recomputed from their graph by
``distributed``, and the group's trees are the same (same rows, same seeds).
When the data cannot be recomputed (e.g. scattered numpy arrays) or a task
fails, ``fit`` raises and a previously fitted model is left as it was.
With ``bagging="global"`` the tasks of the levels prefer the worker holding
their partition without being restricted to it: after a worker's loss,
``distributed`` recomputes its partitions, their codes and their rows' nodes
from the graph elsewhere, and the forest is the one fitted without the fault
(the bootstrap counts are seeded per partition, the histograms summed in a
fixed order).  Partitions that have no graph (scattered data) cannot be
recomputed: ``fit`` then raises a ``RuntimeError`` that says so, leaving a
previously fitted model as it was.  Not being restricted, a level's task may
also be moved by ``distributed``'s work stealing to an idle worker, which
then fetches that partition's codes and rows' state (a cost in transfers;
the forest is the same).  A cluster started with the configuration
``distributed.scheduler.work-stealing: False`` keeps every such task on the
worker holding its partition.

Compilation: :func:`warm_up` compiles the estimator's Numba kernels on one
worker first and then loads them on the others from the on-disk cache;
``fit`` calls it.  On a cluster of several machines, point ``NUMBA_CACHE_DIR``
of every worker to one shared directory (or install forestzoo where its
``__pycache__`` is writable on a shared file system), so that one compilation
serves every machine.
"""

import inspect
from concurrent.futures import CancelledError

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from ._dask_hist import GlobalGrower, check_global, warm_kernels
from ._validation import keep_state_on_error
from .ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor

try:
    import dask
    import dask.array as da
    from dask.core import get_dependencies
    from distributed import TimeoutError as _DistributedTimeout
    from distributed import default_client, futures_of, wait
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("forestzoo.dask needs dask and distributed: pip install 'forestzoo[dask]'") from error

__all__ = ["DaskRandomForestClassifier", "DaskRandomForestRegressor", "DaskExtraTreesClassifier",
           "DaskExtraTreesRegressor", "warm_up"]

_POLL_S = 0.5  # how often fit checks that the workers running its groups are still in the cluster


# -- worker side -----------------------------------------------------------------------------------------------------
def _to_numpy(part):
    """A partition (numpy block, pandas frame or series) as an ndarray."""
    return part.to_numpy() if hasattr(part, "to_numpy") else np.asarray(part)


def _pack(X, y, sample_weight, classification):
    """One partition as ``(X float32 C-order, y, sample_weight or None)``, checked as the in-memory fit checks it."""
    X = _to_numpy(X)
    y = _to_numpy(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"A partition of X has {X.shape[0]} rows and the matching partition of y has {y.shape[0]}: "
                         "X and y must be partitioned alike.")
    if X.shape[0]:
        X = check_array(X, dtype=np.float32, order="C", ensure_all_finite="allow-nan", ensure_min_samples=0)
    else:
        X = np.empty(X.shape, dtype=np.float32)
    if not classification:
        y = check_array(y, ensure_2d=False, dtype=np.float64, ensure_min_samples=0, input_name="y")
    if sample_weight is not None:
        sample_weight = np.asarray(_to_numpy(sample_weight), dtype=np.float64).ravel()
        if sample_weight.shape[0] != X.shape[0]:
            raise ValueError("sample_weight must be partitioned like X.")
    return X, y, sample_weight


def _summary(part, classification):
    """``(n_rows, n_features, labels, counts)`` of a packed partition: all the client learns of it."""
    X, y, _ = part
    if classification and y.shape[0]:
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("Input y contains NaN.")
        labels, counts = np.unique(y, return_counts=True)
    else:
        labels, counts = None, None
    return X.shape[0], X.shape[1], labels, counts


def _encode_with(classes, y):
    """``_encode_target`` of a classifier whose classes are ``classes`` (a superset of ``y``'s labels)."""
    yk = np.searchsorted(classes, y).astype(np.int32)
    return yk, np.zeros(y.shape[0]), classes.shape[0], classes


def _fit_group(forest, classes, class_weights, *parts):
    """Fit ``forest`` (an unfitted in-memory forest) on the concatenated ``parts``; return its trees and seeds."""
    Xs, ys, ws = zip(*parts)
    X = Xs[0] if len(Xs) == 1 else np.concatenate(Xs)
    y = ys[0] if len(ys) == 1 else np.concatenate(ys)
    w = None if all(w is None for w in ws) else np.concatenate(
        [np.ones(x.shape[0]) if w is None else w for x, w in zip(Xs, ws)])
    if class_weights is not None:
        row_weights = class_weights[np.searchsorted(classes, y)]
        w = row_weights if w is None else w * row_weights
    if classes is not None:  # value tables over every class of the data set, not only this worker's
        forest._encode_target = lambda target: _encode_with(classes, target)
    forest.fit(X, y, w)
    return forest.estimators_, forest._seeds


_warm = set()  # per worker process: the estimator configurations already compiled


def _warm_worker(forest, n_features, classification, global_bagging=False):
    """Fit ``forest`` on a few random rows of ``n_features`` columns, once per process and configuration;
    with ``global_bagging``, also run global bagging's partition kernels on them."""
    key = (type(forest).__name__, repr(sorted(forest.get_params().items())), n_features, global_bagging)
    if key in _warm:
        return False
    if global_bagging:
        warm_kernels(n_features, classification)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, n_features)).astype(np.float32)
    X[0, 0] = np.nan
    y = (X[:, -1] > 0).astype(np.int64) if classification else rng.standard_normal(64)
    if getattr(forest, "criterion", None) == "poisson":
        y = np.abs(y) + 1.0
    forest.set_params(n_estimators=1, n_jobs=1, random_state=0, warm_start=False, oob_score=False)
    forest.fit(X, y)
    _warm.add(key)
    return True


def _predict_block(block, forest, method):
    """``forest.method`` on one block of rows."""
    return getattr(forest, method)(_to_numpy(block))


# -- client side -----------------------------------------------------------------------------------------------------
def warm_up(client, estimator, n_features, bagging=None):
    """Compile ``estimator``'s Numba kernels in every worker of ``client``, one worker first.

    The first worker compiles and writes Numba's on-disk cache; the others
    then load it (in parallel), so a fresh cluster pays one compilation,
    not one per worker competing for the same cores.  A worker that has
    already fitted this configuration returns at once.

    Parameters
    ----------
    client : distributed.Client
        The cluster whose workers compile.
    estimator : forestzoo forest
        Its class and parameters select the kernels (splitter, criterion).
    n_features : int
        Columns of the small random data set fitted on each worker.
    bagging : {"local", "global"} or None, default=None
        The design to compile for: "global" adds the kernels that global
        bagging runs on the partitions.  None: the estimator's ``bagging``
        ("local" for an in-memory forest).

    Returns
    -------
    compiled : dict
        ``{worker address: True when it fitted the warm-up forest now}``.

    Examples
    --------
    On a cluster without workers there is nothing to compile:

    >>> from distributed import Client, LocalCluster
    >>> from forestzoo.dask import DaskRandomForestClassifier, warm_up
    >>> with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
    ...     with Client(cluster) as client:
    ...         warm_up(client, DaskRandomForestClassifier(), n_features=4)
    {}
    """
    workers = sorted(client.nthreads())
    if not workers:
        return {}
    if bagging is None:
        bagging = getattr(estimator, "bagging", "local")
    if bagging not in ("local", "global"):
        raise ValueError(f'bagging must be "local" or "global"; got {bagging!r}.')
    forest = _in_memory(estimator)
    classification = estimator._is_classifier()
    args = (forest, n_features, classification, bagging == "global")
    done = client.run(_warm_worker, *args, workers=workers[:1])
    if len(workers) > 1:
        done.update(client.run(_warm_worker, *args, workers=workers[1:]))
    return done


def _in_memory(estimator):
    """An unfitted in-memory forest (the estimator's base class) with the estimator's parameters."""
    base = getattr(type(estimator), "_in_memory_class", None) or type(estimator)
    return base(**{k: v for k, v in estimator.get_params(deep=False).items() if k not in ("client", "bagging")})


def _is_dask_frame(obj):
    return dask.is_dask_collection(obj) and hasattr(obj, "npartitions") and not isinstance(obj, da.Array)


def _row_partitions(obj, name, chunks=None, numeric=True):
    """The row partitions of ``obj`` (dask array or data frame) as a list of Delayed, and its column count."""
    if isinstance(obj, da.Array):
        if obj.ndim == 1:
            obj = obj[:, None]
        if obj.ndim != 2:
            raise ValueError(f"{name} must be a 2D array of shape (n_samples, n_features); got an array with "
                             f"{obj.ndim} dimensions.")
        if numeric and obj.dtype.kind not in "biuf":
            raise ValueError(f"{name} has dtype {obj.dtype}; forestzoo fits numeric data only.")
        if chunks is not None and obj.chunks[0] != chunks:
            obj = obj.rechunk({0: chunks})  # y and weights follow X's rows (they are small)
        if obj.numblocks[1] > 1:
            obj = obj.rechunk({1: -1})
        return list(obj.to_delayed()[:, 0]), obj.shape[1]
    if _is_dask_frame(obj):
        n_cols = len(obj.columns) if hasattr(obj, "columns") else 1
        return list(obj.to_delayed()), n_cols
    raise TypeError(f"{name} must be a dask array or a dask data frame, got {type(obj).__name__}; fit an "
                    "in-memory forestzoo forest on in-memory data.")


def _source(part, by_key):
    """The future among ``by_key`` that ``part`` (a Delayed or a future) is, or is first computed from."""
    if part.key in by_key:
        return by_key[part.key]
    graph = dict(part.__dask_graph__())
    todo, seen = [part.key], set()
    while todo:
        key = todo.pop(0)
        if key in by_key:
            return by_key[key]
        if key in seen or key not in graph:
            continue
        seen.add(key)
        deps = getattr(graph[key], "dependencies", None)  # a task's references, also to keys outside the graph
        todo.extend(sorted(get_dependencies(graph, key) if deps is None else deps, key=str))
    return None


def _holders(client, parts, futures):
    """The worker holding each of ``parts`` (Delayed or futures) in memory, or None.

    A part is placed with its own future among ``futures``, else with the
    first future its graph is computed from; a result held by several
    workers with the first of them in sorted order.
    """
    by_key = {f.key: f for f in futures}
    chosen = [_source(p, by_key) if by_key else None for p in parts]
    held = [f for f in chosen if f is not None]
    who_has = client.who_has(held) if held else {}
    return [None if f is None else sorted(who_has.get(f.key, ()) or [None])[0] for f in chosen]


def _compute_at(client, delayeds, holders):
    """Futures of ``delayeds``, each on its holder's worker (anywhere when None), settled by :func:`_settle`."""
    futures = [None] * len(delayeds)
    by_worker = {}
    for i, holder in enumerate(holders):
        by_worker.setdefault(holder, []).append(i)
    for worker, idx in by_worker.items():
        done = client.compute([delayeds[i] for i in idx], workers=None if worker is None else [worker],
                              allow_other_workers=False)
        for i, fut in zip(idx, done):
            futures[i] = fut
    futures = _settle(client, futures, holders, lambda i: client.compute(delayeds[i]))
    keys = {f.key for f in futures}.union(*(d.__dask_graph__().keys() for d in delayeds))
    client.run_on_scheduler(_loosen, list(keys))
    return futures


def _loosen(keys, dask_scheduler=None):
    """On the scheduler: a result of ``keys`` lost with its worker may be recomputed on any worker."""
    for key in keys:
        task = dask_scheduler.tasks.get(key)
        if task is not None:
            task.loose_restrictions = True


def _settle(client, futures, workers, resubmit):
    """``futures`` once all have finished; one pinned to a worker that left the cluster is replaced by ``resubmit(i)``.

    A task restricted to a worker never runs elsewhere while that worker is in
    the cluster; once it is gone (killed, or restarted under a new address)
    the task is submitted again without a restriction, and ``distributed``
    recomputes the lost inputs from their graph.  A failed task raises its error.
    """
    futures, workers = list(futures), list(workers)
    while True:
        pending = [i for i, f in enumerate(futures) if f.status != "finished"]
        if not pending:
            return futures
        try:
            with client.as_current():
                wait([futures[i] for i in pending], timeout=_POLL_S, return_when="FIRST_COMPLETED")
        except (_DistributedTimeout, TimeoutError):
            pass
        try:
            # asked of the scheduler each time: ``scheduler_info()`` answers from a cache when the scheduler does
            # not reply, and that cache may list no workers, which would read as every worker lost
            alive = set(client.nthreads())
        except OSError:
            alive = None  # no answer now: no task is taken for lost until the scheduler answers
        for i in pending:
            if futures[i].status in ("error", "cancelled"):
                futures[i].result()  # raises the task's error
            elif (alive is not None and futures[i].status != "finished" and workers[i] is not None
                  and workers[i] not in alive):
                old, futures[i], workers[i] = futures[i], resubmit(i), None
                old.release()


def _allocate(n_estimators, rows):
    """Trees per group, in proportion to its rows: largest remainders, ties to the earlier group."""
    rows = np.asarray(rows, dtype=np.float64)
    quota = n_estimators * rows / rows.sum()
    trees = np.floor(quota).astype(int)
    order = sorted(range(len(rows)), key=lambda g: (-(quota[g] - trees[g]), g))
    for g in order[:n_estimators - trees.sum()]:
        trees[g] += 1
    return trees


class _DaskForestMixin:
    """``fit`` on Dask collections, data-local; predict-side methods that also take Dask collections."""

    _in_memory_class = None

    def fit(self, X, y, sample_weight=None):
        """Fit on Dask collections, each worker growing its share of the trees on the partitions it holds.

        Parameters
        ----------
        X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
            NaN marks a missing value.
        y : dask.array.Array, dask.dataframe.Series or ndarray of shape (n_samples,)
            Partitioned like ``X`` (a dask array is rechunked to ``X``'s rows;
            an ndarray needs ``X`` with known chunk sizes).
        sample_weight : dask.array.Array, dask.dataframe.Series or None
            Partitioned like ``X``.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with keep_state_on_error(self):
            try:
                return self._fit_dask(X, y, sample_weight)
            except CancelledError as error:
                raise RuntimeError(
                    f"{type(self).__name__}.fit: a task was cancelled ({error}). A worker that left the cluster "
                    "held partitions that distributed cannot recompute, having no graph to recompute them from "
                    "(e.g. data placed with client.scatter). Build the Dask collection from a graph "
                    "(dask.array.from_array, dask.dataframe.read_parquet, ...) so that lost partitions are "
                    "recomputed, or place the data again, and fit again; the estimator keeps its previous model."
                ) from error

    def _client(self):
        return self.client if self.client is not None else default_client()

    def _fit_dask(self, X, y, sample_weight):
        self._validate_params()
        global_bagging = self.bagging == "global"
        if global_bagging:
            check_global(self)
        if self.oob_score:
            raise ValueError(f"oob_score=True is not supported by {type(self).__name__}: each tree's out-of-bag "
                             "rows would span workers.")
        if self.warm_start:
            raise ValueError(f"warm_start=True is not supported by {type(self).__name__}.")
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch to `bootstrap=True` "
                             "or set `max_sample=None`.")
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        if isinstance(X, da.Array) and X.ndim == 2 and not any(np.isnan(X.chunks[0])):
            rows = X.chunks[0]
            if isinstance(y, np.ndarray) or isinstance(y, list):
                y = da.from_array(np.asarray(y), chunks=(rows,) + ((1,) if np.ndim(y) == 2 else ()))
            if isinstance(y, da.Array) and y.shape[0] != X.shape[0]:
                raise ValueError(f"Found input variables with inconsistent numbers of samples: {[X.shape[0], y.shape[0]]}")
        else:
            rows = None
        x_parts, n_features = _row_partitions(X, "X")
        classification = self._is_classifier()
        y_parts, n_y = _row_partitions(y, "y", rows, numeric=not classification)
        if n_y != 1:
            raise ValueError(f"y has {n_y} columns: multi-output y is not supported by {type(self).__name__}.")
        if sample_weight is not None:
            w_parts, _ = _row_partitions(sample_weight, "sample_weight", rows)
        else:
            w_parts = [None] * len(x_parts)
        if not len(x_parts) == len(y_parts) == len(w_parts):
            raise ValueError(f"X has {len(x_parts)} partitions and y {len(y_parts)}: they must be partitioned alike.")
        client = self._client()
        forest = _in_memory(self)

        # 1. pack every partition where it is computed (where X's partition is held, when it is in memory)
        pack = dask.delayed(_pack, pure=True)
        packs = [pack(xp, yp, wp, classification) for xp, yp, wp in zip(x_parts, y_parts, w_parts)]
        packed = _compute_at(client, packs, _holders(client, x_parts, futures_of(X)))
        holders = _holders(client, packed, packed)
        # 2. learn each partition's size and labels, where it is
        summaries = client.gather(_compute_at(client, [dask.delayed(_summary, pure=True)(p, classification)
                                                       for p in packed], holders))
        n_rows = np.array([s[0] for s in summaries])
        if n_rows.sum() == 0:
            raise ValueError("Found array with 0 sample(s) (shape=(0, %d)) while a minimum of 1 is required."
                             % n_features)
        classes = class_weights = None
        if classification:
            labels = [s[2] for s in summaries if s[2] is not None]
            classes = np.unique(np.concatenate(labels))
            class_weight = self.class_weight
            if class_weight is not None and class_weight != "balanced_subsample":
                counts = np.zeros(classes.shape[0])
                for s in summaries:
                    if s[2] is not None:
                        counts[np.searchsorted(classes, s[2])] += s[3]
                if class_weight == "balanced":
                    class_weights = n_rows.sum() / (classes.shape[0] * counts)
                else:
                    class_weights = np.array([class_weight.get(c, 1.0) for c in classes.tolist()], dtype=np.float64)
                forest.set_params(class_weight=None)

        if global_bagging:
            warm_up(client, forest, n_features, bagging="global")
            grower = GlobalGrower(forest, client, packed, holders, n_rows, classes, class_weights, n_features)
            trees, seeds, n_draws = grower.fit(self.random_state)
            if classes is not None:
                forest.classes_, forest.n_classes_ = classes, int(classes.shape[0])
            estimators = [forest._wrap_tree(tree, int(seed), n_draws, grower.params) for tree, seed in zip(trees, seeds)]
            self._set_fitted(X, n_features, classes, estimators, seeds)
            return self

        # 3. group the non-empty partitions by the worker holding them; trees in proportion to rows
        groups = {}
        for i, holder in enumerate(holders):
            if n_rows[i]:
                groups.setdefault(holder, []).append(i)
        group_list = sorted(groups.items(), key=lambda item: item[1][0])
        group_rows = [n_rows[idx].sum() for _, idx in group_list]
        trees = _allocate(self.n_estimators, group_rows)
        if len(group_list) == 1:
            states = [self.random_state]
        else:
            states = check_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=len(group_list))
        warm_up(client, forest, n_features)

        # 4. one task per group, pinned to its worker; only the trees come back
        jobs, workers = [], []
        for (worker, idx), n_trees, state, n_group in zip(group_list, trees, states, group_rows):
            if n_trees == 0:
                continue
            local = _in_memory(forest)
            local.set_params(n_estimators=int(n_trees), random_state=state)
            if self.bootstrap and isinstance(self.max_samples, (int, np.integer)):
                local.set_params(max_samples=max(1, int(round(self.max_samples * n_group / n_rows.sum()))))
            jobs.append((_fit_group, local, classes, class_weights, *[packed[i] for i in idx]))
            workers.append(worker)
        futures = [client.submit(*job, workers=None if w is None else [w], allow_other_workers=False, pure=False)
                   for job, w in zip(jobs, workers)]
        results = client.gather(_settle(client, futures, workers, lambda i: client.submit(*jobs[i], pure=False)))
        estimators = [tree for trees_of_group, _ in results for tree in trees_of_group]
        seeds = np.concatenate([group_seeds for _, group_seeds in results])
        # state is assigned only now: a failed fit leaves the previous model intact
        self._set_fitted(X, n_features, classes, estimators, seeds)
        return self

    def _set_fitted(self, X, n_features, classes, estimators, seeds):
        for name in ("feature_names_in_", "_n_samples_fit", "oob_score_", "oob_decision_function_",
                     "oob_prediction_"):
            self.__dict__.pop(name, None)
        self.n_features_in_ = n_features
        columns = getattr(X, "columns", None)
        if columns is not None and all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(list(columns), dtype=object)
        self.n_outputs_ = 1
        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = int(classes.shape[0])
        self._seeds = seeds
        self.estimators_ = estimators

    # -- the result -------------------------------------------------------------------------------------------------
    def to_local(self):
        """The fitted forest as an ordinary in-memory forestzoo estimator.

        The result has no client: it pickles and saves with ``forestzoo.io``.

        Returns
        -------
        forest : RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier or ExtraTreesRegressor
            The in-memory forest of the same class, parameters and trees.
        """
        check_is_fitted(self)
        local = _in_memory(self)
        params = set(local.get_params(deep=False))
        local.__dict__.update({k: v for k, v in self.__dict__.items() if k not in params and k not in ("client", "bagging")})
        return local

    def __getstate__(self):
        state = super().__getstate__() if hasattr(super(), "__getstate__") else dict(self.__dict__)
        state = dict(state)
        state["client"] = None  # a Client does not pickle; the unpickled estimator uses the default client
        return state

    @property
    def estimators_samples_(self):
        """Not available: each tree's bootstrap rows are indices into its worker's rows."""
        raise AttributeError(f"{type(self).__name__} has no estimators_samples_: each tree's bootstrap indices "
                             "are local to the rows of the worker that grew it.")

    def _lazy(self, X, method, n_values):
        """``method`` of the in-memory forest on every block of ``X``: a lazy dask array, one task per block."""
        local = self.to_local()
        if _is_dask_frame(X):
            X = X.to_dask_array()
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        if n_values is None:
            dtype = self.classes_.dtype if hasattr(self, "classes_") and method == "predict" else np.float64
            return X.map_blocks(_predict_block, local, method, dtype=dtype, drop_axis=1)
        return X.map_blocks(_predict_block, local, method, dtype=np.float64, chunks=(X.chunks[0], (n_values,)))

    def predict(self, X):
        """Predictions; lazy (a dask array, one task per block) when ``X`` is a Dask collection.

        Parameters
        ----------
        X : array-like, pandas or Dask collection of shape (n_samples, n_features)
            The samples; NaN marks a missing value.

        Returns
        -------
        y : ndarray or dask.array.Array of shape (n_samples,)
            The predictions, a lazy dask array for Dask input.
        """
        if dask.is_dask_collection(X):
            check_is_fitted(self)
            return self._lazy(X, "predict", None)
        return super().predict(X)


class _DaskClassifierMixin(_DaskForestMixin):
    def predict_proba(self, X):
        """Class probabilities; lazy (a dask array, one task per block) when ``X`` is a Dask collection.

        Parameters
        ----------
        X : array-like, pandas or Dask collection of shape (n_samples, n_features)
            The samples; NaN marks a missing value.

        Returns
        -------
        proba : ndarray or dask.array.Array of shape (n_samples, n_classes)
            The class probabilities, a lazy dask array for Dask input.
        """
        if dask.is_dask_collection(X):
            check_is_fitted(self)
            return self._lazy(X, "predict_proba", self.n_classes_)
        return super().predict_proba(X)


def _dask_class(name, base, mixin):
    """The Dask estimator of the in-memory forest ``base``: its parameters plus ``client``."""
    signature = inspect.signature(base.__init__)
    params = list(signature.parameters.values())
    params.append(inspect.Parameter("bagging", inspect.Parameter.KEYWORD_ONLY, default="local"))
    params.append(inspect.Parameter("client", inspect.Parameter.KEYWORD_ONLY, default=None))

    def __init__(self, *args, bagging="local", client=None, **kwargs):
        base.__init__(self, *args, **kwargs)
        self.bagging = bagging
        self.client = client

    __init__.__signature__ = signature.replace(parameters=params)
    # the in-memory forest's Parameters section, then ``client``
    base_params = base.__doc__.split("\n    Parameters\n    ----------\n", 1)[1].split("\n    Attributes\n", 1)[0]
    doc = (f"{base.__name__} fitted data-local on a Dask cluster (see :mod:`forestzoo.dask`).\n\n"
           "    ``fit`` takes Dask arrays and data frames; ``predict`` (and ``predict_proba``) take\n"
           "    numpy, pandas or Dask input, lazily for Dask input.  :meth:`to_local` gives the\n"
           "    fitted in-memory forest.  A fit on a cluster reads, for example::\n\n"
           "        from distributed import Client\n"
           f"        model = {name}(n_estimators=100, client=Client(address)).fit(X_dask, y_dask)\n\n"
           f"    Parameters\n    ----------\n{base_params.rstrip()}\n"
           "    bagging : {\"local\", \"global\"}, default=\"local\"\n"
           "        ``\"local\"``: each tree is grown by the in-memory forest on a bootstrap of one\n"
           "        worker's rows.  ``\"global\"``: each tree is a bootstrap of all rows, its upper\n"
           "        levels chosen on histograms summed over every partition (``splitter=\"hist\"``,\n"
           "        criteria gini, entropy, squared error).  See :mod:`forestzoo.dask`.\n"
           "    client : distributed.Client or None, default=None\n"
           "        The cluster to fit on; None uses the current default client.\n\n"
           "    Examples\n    --------\n"
           f"    >>> from forestzoo.dask import {name}\n"
           f"    >>> model = {name}(n_estimators=10, max_depth=8)\n"
           "    >>> model.get_params()[\"client\"] is None, model.get_params()[\"max_depth\"]\n"
           "    (True, 8)\n")
    cls = type(name, (mixin, base), {
        "__init__": __init__, "__doc__": doc, "__module__": __name__, "_in_memory_class": base,
        "_parameter_constraints": {**base._parameter_constraints, "client": "no_validation",
                                   "bagging": [StrOptions({"local", "global"})]},
    })
    __init__.__qualname__ = f"{name}.__init__"
    return cls


DaskRandomForestClassifier = _dask_class("DaskRandomForestClassifier", RandomForestClassifier, _DaskClassifierMixin)
DaskExtraTreesClassifier = _dask_class("DaskExtraTreesClassifier", ExtraTreesClassifier, _DaskClassifierMixin)
DaskRandomForestRegressor = _dask_class("DaskRandomForestRegressor", RandomForestRegressor, _DaskForestMixin)
DaskExtraTreesRegressor = _dask_class("DaskExtraTreesRegressor", ExtraTreesRegressor, _DaskForestMixin)
