"""Fitted trees, forests and gradient boosting in and out of scikit-learn.

:func:`to_sklearn` turns a fitted forestzoo ``DecisionTree*``,
``RandomForest*``, ``ExtraTrees*`` or ``GradientBoosting*`` into the
scikit-learn estimator of the same kind, with genuine
``sklearn.tree._tree.Tree`` objects built through their pickle state
(``__setstate__``): everything written for scikit-learn's trees then reads
it -- ``export_text``, ``plot_tree``, SHAP's ``TreeExplainer``,
``skl2onnx``, Treelite.  :func:`from_sklearn` is the way back: a fitted
scikit-learn estimator of those classes becomes a forestzoo estimator, which
predicts with forestzoo's compiled walker.

Trees and forests keep predictions bit for bit in both directions:

* both libraries read ``X`` as float32 and send ``x`` left when ``x <=
  threshold``; the float64 threshold is copied unchanged, so every float32
  input, a row lying exactly on a threshold included, goes the same way
  (forestzoo's walker compares with the threshold rounded down to float32,
  which is the same test for float32 ``x``);
* a missing value (NaN) goes to the child named by the node's missing flag
  in both (forestzoo's ``missing_left``, scikit-learn's
  ``missing_go_to_left``);
* leaves hold class proportions (scikit-learn >= 1.4 stores fractions too)
  or the mean target, copied unchanged;
* a multi-output tree (a 2-D ``y``) holds every output's class
  proportions (or means) side by side, each output zero-padded to the
  largest class count, in both: scikit-learn's ``(n_nodes, n_outputs,
  max_n_classes)`` values are forestzoo's ``(n_nodes, n_outputs *
  max_n_classes)`` reshaped, and ``predict_proba`` is a list of one array
  per output in both;
* a forest adds its trees' leaf rows in tree order and divides by the
  number of trees in both.  scikit-learn does so in tree order only with
  ``n_jobs=1`` (its threads add under a lock in whichever order they
  finish), so with ``n_jobs > 1`` its sums may differ from forestzoo's in the
  last bits (relative 1e-15).

Gradient boosting (Friedman, "Greedy function approximation: a gradient
boosting machine", 2001) converts where the two models are the same
function: the raw score ``F(x) = f_0 + sum_m nu * t_m(x)`` with a constant
``f_0``, one regression tree per round (per class and round for K classes,
the same ``(n_estimators_, K)`` layout in both), the log-loss with
``expit`` / ``softmax`` for classification, the squared error, absolute
error or Huber loss for regression.  scikit-learn multiplies the unscaled
leaf values by ``learning_rate`` when it predicts, forestzoo stores the
products; every converted leaf makes the same float64 product, and the trees
are added in the same order, so:

* towards forestzoo, ``f_0`` is scikit-learn's own initial score:
  ``decision_function``, ``predict`` and ``apply`` are bit for bit
  scikit-learn's.  ``predict_proba`` is each library's own ``expit`` /
  ``softmax`` of those scores; they gave the same floats on every row
  tested, but the two implementations are not the same code;
* towards scikit-learn, a regressor's ``init_`` (``DummyRegressor``) holds
  ``f_0`` unchanged: ``predict`` is bit for bit forestzoo's.  A classifier's
  ``init_`` is ``DummyClassifier(strategy="prior")``, from whose prior
  scikit-learn computes ``f_0`` through the link function (``logit``, or
  ``log p_k - mean log p`` for K classes) at every prediction; not every
  float is the logit of a float, so the prior whose link is closest to
  forestzoo's ``f_0`` is stored and the raw scores can differ by the units
  in the last place of that ``f_0`` (about 1e-16), carried through the sum
  of the trees (``(n_rounds + 1)`` units in the last place of the largest
  raw score at most), and ``predict_proba`` by less (about 1e-15 at most).

scikit-learn's ``GradientBoosting*`` reject NaN in ``X``: forestzoo's
missing-value directions are kept in the converted trees, but scikit-learn
predicts finite inputs only.  ``train_score_`` is rescaled to the other
library's convention (scikit-learn reports twice forestzoo's figure for the
squared error and for two-class log-loss); with ``subsample < 1``
scikit-learn's is the in-bag loss and forestzoo's the loss on all rows.

Refused, with a ``TypeError``: oblique and rotated forests (no single
feature per split: scikit-learn's trees have none to hold them) and every
other family; with a ``ValueError``: scikit-learn's losses forestzoo lacks
(``"exponential"``, ``"quantile"``) and an ``init`` estimator whose initial
score depends on ``x`` (forestzoo's gradient boosting starts from a
constant).

Hyperparameters are carried over where the other library has them, so that
``clone(model).fit`` grows a comparable model; they play no part in the
converted model's predictions.
"""

from ._boosting import boosting_from_sklearn, boosting_kinds, boosting_to_sklearn
from ._trees import (_check_fitted, fit_with_forest, forest_from_sklearn, forest_to_sklearn, forest_trees,
                     forestzoo_tree, given_forest, sklearn_tree)


def to_sklearn(model):
    """The scikit-learn estimator equal to a fitted forestzoo tree, forest or gradient boosting.

    Parameters
    ----------
    model : forestzoo estimator
        A fitted ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
        ``RandomForestClassifier``, ``RandomForestRegressor``,
        ``ExtraTreesClassifier``, ``ExtraTreesRegressor``,
        ``GradientBoostingClassifier`` or ``GradientBoostingRegressor``
        (subclasses that grow oblique or rotated trees are refused); trees and
        forests of one output or several.

    Returns
    -------
    estimator : scikit-learn estimator
        ``sklearn.tree.DecisionTree*`` or ``sklearn.ensemble.RandomForest*``
        / ``ExtraTrees*`` (whose trees are ``ExtraTree*``) /
        ``GradientBoosting*``, fitted: every tree's ``tree_`` is a
        ``sklearn.tree._tree.Tree`` with forestzoo's thresholds, NaN
        directions, node statistics and leaf values; the fitted attributes
        scikit-learn's ``fit`` sets are filled (``classes_``,
        ``n_features_in_``, ``feature_names_in_``, ``estimators_``,
        ``estimator_``, ``estimators_samples_`` from the trees' seeds, the
        out-of-bag results when computed; ``init_``, ``n_estimators_`` and
        ``train_score_`` for gradient boosting).  ``predict``,
        ``predict_proba`` and ``apply`` equal forestzoo's bit for bit (for a
        forest with the converted model's ``n_jobs`` at 1; a gradient-boosting
        classifier's raw scores within the rounding of its initial score: see
        the module docstring).

    Raises
    ------
    TypeError
        For any other model: oblique and rotated trees (a split combines
        features), the other families.
    ValueError
        For a forest stored for prediction only (``PredictionTree``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import export_text
    >>> from forestzoo import DecisionTreeClassifier
    >>> from forestzoo.interop import to_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> sk = to_sklearn(DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y))
    >>> print(export_text(sk))
    |--- feature_2 <= 2.45
    |   |--- class: 0
    |--- feature_2 >  2.45
    |   |--- class: 1
    <BLANKLINE>

    A gradient-boosted regressor predicts the same floats in scikit-learn:

    >>> import numpy as np
    >>> from sklearn.datasets import load_diabetes
    >>> from forestzoo import GradientBoostingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> gb = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(np.array_equal(to_sklearn(gb).predict(X), gb.predict(X)))
    True
    """
    for fz_cls, _ in boosting_kinds():
        if type(model) is fz_cls:
            _check_fitted(model)
            return boosting_to_sklearn(model)
    return forest_to_sklearn(model)


def from_sklearn(sk_model):
    """The forestzoo estimator equal to a fitted scikit-learn tree, forest or gradient boosting.

    Parameters
    ----------
    sk_model : scikit-learn estimator
        A fitted ``sklearn.tree.DecisionTreeClassifier``,
        ``DecisionTreeRegressor``, ``ExtraTreeClassifier``,
        ``ExtraTreeRegressor`` or ``sklearn.ensemble.RandomForestClassifier``,
        ``RandomForestRegressor``, ``ExtraTreesClassifier``,
        ``ExtraTreesRegressor`` (one output or several), or a
        ``GradientBoostingClassifier`` (``loss="log_loss"``) or
        ``GradientBoostingRegressor`` (``loss`` "squared_error",
        "absolute_error" or "huber") whose ``init`` is a constant.

    Returns
    -------
    estimator : forestzoo estimator
        The forestzoo class of the same name (an ``ExtraTree*`` becomes a
        ``DecisionTree*`` with ``splitter="random"``), fitted: its trees hold
        scikit-learn's thresholds, NaN directions, node statistics and leaf
        values (a gradient boosting's multiplied by ``learning_rate`` as
        scikit-learn multiplies them when it predicts), and its predictions
        equal scikit-learn's bit for bit (a scikit-learn forest with
        ``n_jobs=1``, see the module docstring).  Prediction runs on
        forestzoo's compiled walker.

    Raises
    ------
    TypeError
        For any other estimator.
    ValueError
        For a gradient boosting whose loss
        forestzoo lacks (``"exponential"``, ``"quantile"``) or whose ``init``
        estimator's score depends on ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    >>> from forestzoo.interop import from_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> rf = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> bool(np.array_equal(from_sklearn(rf).predict_proba(X), rf.predict_proba(X)))
    True
    >>> gb = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> bool(np.array_equal(from_sklearn(gb).decision_function(X), gb.decision_function(X)))
    True
    """
    for _, sk_cls in boosting_kinds():
        if type(sk_model) is sk_cls:
            _check_fitted(sk_model)
            return boosting_from_sklearn(sk_model)
    return forest_from_sklearn(sk_model)

