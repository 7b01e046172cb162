"""Gradient-boosted trees between forestzoo and scikit-learn.

Both libraries predict the raw score ``F(x) = f_0 + sum_m nu * t_m(x)``
(Friedman, "Greedy function approximation: a gradient boosting machine",
2001; ESL Algorithm 10.3), one tree per round for regression and two
classes, one per class and round for K classes, with ``p = expit(F)`` or
``softmax(F)``.  They store it differently:

* scikit-learn keeps the trees' unscaled leaf values ``g`` and multiplies by
  ``learning_rate`` at prediction time; forestzoo stores ``fl(nu * g)``.
  Towards forestzoo the product is taken once, with the same rounding;
  towards scikit-learn every leaf gets a ``g`` with ``fl(nu * g)`` equal to
  forestzoo's stored value (a few candidates around ``v / nu`` are tried), so
  every term of the sum is the same float in both;
* scikit-learn computes ``f_0`` at prediction time from its ``init_``
  estimator, through the link function (``logit`` of a class prior,
  ``log p_k - mean log p`` for K classes); forestzoo keeps ``f_0``.
  Towards forestzoo, ``f_0`` is scikit-learn's own initial score, so raw
  scores are bit for bit equal; towards scikit-learn, a regressor's
  ``DummyRegressor`` holds ``f_0`` unchanged (bit for bit), while a
  classifier's ``DummyClassifier(strategy="prior")`` holds the prior whose
  link is closest to ``f_0``: not every float is the logit of a float, so the
  raw scores can differ by the few units in the last place of that step.
"""

from numbers import Integral

import numpy as np

from .._engine.api import Tree
from ._trees import _int_or_none, forestzoo_tree, sklearn_tree

_GB_PARAMS = ("learning_rate", "n_estimators", "subsample", "max_depth", "min_samples_split", "min_samples_leaf",
              "min_weight_fraction_leaf", "min_impurity_decrease", "max_features", "max_leaf_nodes",
              "validation_fraction", "n_iter_no_change", "tol")
_TREE_PARAMS = ("max_depth", "min_samples_split", "min_samples_leaf", "min_weight_fraction_leaf",
                "min_impurity_decrease", "max_features", "max_leaf_nodes")
#: forestzoo's regression losses; scikit-learn has all three under the same names.
_REGRESSION_LOSSES = ("squared_error", "absolute_error", "huber")
#: scikit-learn's ``train_score_`` is twice forestzoo's for these losses (it reports the
#: squared error and the binomial deviance, forestzoo half the squared error and the log-loss).
_SCORE_FACTOR = {"squared_error": 2.0, "binomial": 2.0}
#: ulps tried on either side of a candidate value.
_ULPS = 8


def boosting_kinds():
    """``[(forestzoo class, scikit-learn class)]`` of the gradient-boosting estimators."""
    from sklearn import ensemble as ske

    from ..boosting import GradientBoostingClassifier, GradientBoostingRegressor

    return [(GradientBoostingClassifier, ske.GradientBoostingClassifier),
            (GradientBoostingRegressor, ske.GradientBoostingRegressor)]


def _neighbours(x, ulps=_ULPS):
    """``x`` and the floats up to ``ulps`` steps either side, nearest first: shape ``(2 * ulps + 1,) + x.shape``."""
    x = np.asarray(x, dtype=np.float64)
    out = [x]
    up = down = x
    for _ in range(ulps):
        up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
        out += [up, down]
    return np.stack(out)


def _unscaled(values, learning_rate):
    """Values ``g`` with ``learning_rate * g == values`` in float64 (``values / learning_rate`` where none is found)."""
    lr = float(learning_rate)
    cand = _neighbours(values / lr)
    hit = lr * cand == values
    first = np.argmax(hit, axis=0)
    g = np.take_along_axis(cand, first[None], axis=0)[0]
    return np.where(hit.any(axis=0), g, values / lr)


def _score_factor(classifier, n_trees, loss):
    if classifier:
        return _SCORE_FACTOR["binomial"] if n_trees == 1 else 1.0
    return _SCORE_FACTOR.get(loss, 1.0)


def _closest_prior(raw0, sk_loss):
    """The class prior whose initial score under scikit-learn's link is closest to ``raw0`` (equal where one is).

    scikit-learn clips the prior to ``[eps, 1 - eps]`` and applies its link
    (``logit`` of the positive class for two classes, ``log(p / gmean(p))``
    for K); starting from the inverse link of ``raw0``, each class's
    probability is moved by up to ``_ULPS`` units in the last place while the
    largest difference to ``raw0`` shrinks.
    """
    eps = np.finfo(np.float64).eps
    binary = raw0.shape[0] == 1

    def raw(P):  # rows of candidate priors -> rows of initial scores, as scikit-learn computes them
        P = np.clip(P, eps, 1 - eps)
        return sk_loss.link.link(P[:, 1]).reshape(-1, 1) if binary else sk_loss.link.link(P)

    def cost(R):
        d = np.abs(R - raw0)
        return d.max(axis=1) + 1e-3 * d.sum(axis=1)  # the largest difference first, then the total

    if binary:
        p1 = float(sk_loss.link.inverse(raw0)[0])
        P = np.column_stack([1.0 - _neighbours(p1), _neighbours(p1)])
        return P[int(np.argmin(cost(raw(P))))]
    p = sk_loss.link.inverse(raw0[None, :])[0]
    best = cost(raw(p[None]))[0]
    for _ in range(4 * raw0.shape[0]):
        if best == 0:
            break
        improved = False
        for k in range(p.shape[0]):
            P = np.repeat(p[None], 2 * _ULPS + 1, axis=0)
            P[:, k] = _neighbours(p[k])
            c = cost(raw(P))
            j = int(np.argmin(c))
            if c[j] < best:
                best, p, improved = c[j], P[j], True
        if not improved:
            break
    return p


def _init_estimator(model, sk, classifier):
    """scikit-learn's fitted ``init_``: a constant that gives forestzoo's ``init_raw_prediction_``."""
    from sklearn.dummy import DummyClassifier, DummyRegressor

    raw0 = np.asarray(model.init_raw_prediction_, dtype=np.float64)
    if classifier:
        init = DummyClassifier(strategy="prior")
        init._strategy = "prior"
        # scikit-learn's init is fitted on the encoded labels 0 .. K-1
        init.classes_ = np.arange(model.n_classes_, dtype=np.float64)
        init.n_classes_ = int(model.n_classes_)
        init.class_prior_ = _closest_prior(raw0, sk._loss)
        init.sparse_output_ = False
    else:
        init = DummyRegressor(strategy="mean" if model.loss == "squared_error" else "quantile",
                              quantile=None if model.loss == "squared_error" else 0.5)
        init.constant_ = raw0.reshape(1, 1).copy()
    init.n_outputs_ = 1
    init.n_features_in_ = int(model.n_features_in_)
    return init


def boosting_to_sklearn(model):
    """scikit-learn's ``GradientBoosting*`` equal to a fitted forestzoo one (see :func:`forestzoo.interop.to_sklearn`)."""
    from sklearn import ensemble as ske
    from sklearn.tree import DecisionTreeRegressor

    classifier = hasattr(model, "classes_")
    params = {p: getattr(model, p) for p in _GB_PARAMS}
    params["random_state"] = _int_or_none(model.random_state)
    if classifier:
        sk = ske.GradientBoostingClassifier(loss="log_loss", **params)
        sk.classes_ = model.classes_
        sk.n_classes_ = int(model.n_classes_)
    else:
        sk = ske.GradientBoostingRegressor(loss=model.loss, alpha=model.alpha, **params)
    sk.n_features_in_ = int(model.n_features_in_)
    if hasattr(model, "feature_names_in_"):
        sk.feature_names_in_ = model.feature_names_in_
    n_trees = int(model.n_trees_per_iteration_)
    sk.n_trees_per_iteration_ = n_trees
    sk._loss = sk._get_loss(sample_weight=None)
    sk.init_ = _init_estimator(model, sk, classifier)
    lr = float(model.learning_rate)
    estimators = np.empty(model.estimators_.shape, dtype=object)
    for (m, k), est in np.ndenumerate(model.estimators_):
        t = est.tree_
        tree = DecisionTreeRegressor(criterion="squared_error", random_state=_int_or_none(est.random_state),
                                     **{p: getattr(model, p) for p in _TREE_PARAMS})
        tree.tree_ = sklearn_tree(Tree(t.nodes, _unscaled(np.asarray(t.values, dtype=np.float64), lr), t.n_features))
        tree.n_features_in_ = sk.n_features_in_
        tree.n_outputs_ = 1
        tree.max_features_ = int(est.max_features_)
        estimators[m, k] = tree
    sk.estimators_ = estimators
    sk.n_estimators_ = int(model.n_estimators_)
    sk.max_features_ = int(model.estimators_[0, 0].max_features_)
    sk.train_score_ = np.asarray(model.train_score_) * _score_factor(classifier, n_trees, getattr(model, "loss", None))
    return sk


def _constant_init(sk):
    """scikit-learn's initial raw score, refused when it depends on ``x``."""
    from sklearn.dummy import DummyClassifier, DummyRegressor

    init = sk.init_
    n_trees = int(sk.n_trees_per_iteration_)
    if isinstance(init, str) and init == "zero":
        return np.zeros(n_trees)
    constant = (type(init) is DummyRegressor
                or (type(init) is DummyClassifier and init._strategy in ("prior", "most_frequent", "uniform",
                                                                        "constant")))
    if not constant:
        raise ValueError(
            f"{type(sk).__name__}'s init_ is {type(init).__name__}"
            f"{'(strategy=' + repr(init._strategy) + ')' if type(init) is DummyClassifier else ''}, whose initial "
            "score depends on x (or is drawn at random); forestzoo's gradient boosting starts from one constant. "
            "Refit with init=None (a constant prior), a DummyClassifier / DummyRegressor of a fixed strategy, "
            "or init='zero'."
        )
    # the initial score of any row: scikit-learn's own computation, so the constant is bit for bit its own
    return np.asarray(sk._raw_predict_init(np.zeros((1, sk.n_features_in_), dtype=np.float32))[0], dtype=np.float64)


def boosting_from_sklearn(sk):
    """forestzoo's ``GradientBoosting*`` equal to a fitted scikit-learn one (see :func:`forestzoo.interop.from_sklearn`)."""
    from ..boosting import GradientBoostingClassifier, GradientBoostingRegressor
    from ..tree import DecisionTreeRegressor
    from ._trees import _children_after_parents

    classifier = hasattr(sk, "classes_")
    if classifier and sk.loss != "log_loss":
        raise ValueError(f"forestzoo's GradientBoostingClassifier minimises the log-loss; this model's loss is "
                         f"{sk.loss!r}, which forestzoo does not have. Refit it with loss='log_loss'.")
    if not classifier and sk.loss not in _REGRESSION_LOSSES:
        raise ValueError(f"forestzoo's GradientBoostingRegressor has the losses {list(_REGRESSION_LOSSES)}; this "
                         f"model's loss is {sk.loss!r}, which forestzoo does not have. Refit it with one of those.")
    raw0 = _constant_init(sk)
    params = {p: getattr(sk, p) for p in _GB_PARAMS}
    params["random_state"] = _int_or_none(sk.random_state)
    if classifier:
        model = GradientBoostingClassifier(**params)
        model.classes_ = sk.classes_
        model.n_classes_ = int(sk.n_classes_)
    else:
        model = GradientBoostingRegressor(loss=sk.loss, alpha=sk.alpha, **params)
    lr = float(sk.learning_rate)
    n_features = int(sk.n_features_in_)
    estimators = np.empty(sk.estimators_.shape, dtype=object)
    for (m, k), e in np.ndenumerate(sk.estimators_):
        if not _children_after_parents(e.tree_):
            raise ValueError("A tree stores a child before its parent, which forestzoo's predictor does not read; "
                             "scikit-learn's own builders never do.")
        t = forestzoo_tree(e.tree_)
        seed = e.random_state if isinstance(e.random_state, Integral) else None
        tree = DecisionTreeRegressor(splitter="exact", random_state=seed, **{p: getattr(sk, p) for p in _TREE_PARAMS})
        tree.tree_ = Tree(t.nodes, lr * t.values, t.n_features)  # the product scikit-learn takes at prediction time
        tree.n_features_in_ = n_features
        tree.n_outputs_ = 1
        tree.max_features_ = int(e.max_features_)
        estimators[m, k] = tree
    n_trees = int(sk.n_trees_per_iteration_)
    model.estimators_ = estimators
    model.n_estimators_ = int(estimators.shape[0])
    model.n_trees_per_iteration_ = n_trees
    model.init_raw_prediction_ = raw0
    model.n_features_in_ = n_features
    if hasattr(sk, "feature_names_in_"):
        model.feature_names_in_ = sk.feature_names_in_
    model.n_outputs_ = 1
    model.train_score_ = np.asarray(sk.train_score_) / _score_factor(classifier, n_trees, getattr(sk, "loss", None))
    return model
