"""Input and parameter validation at the boundary, for every public estimator.

Each bad input must raise a ValueError whose message says what was wrong, and a failed ``fit``
must leave a previously fitted model exactly as it was (README.md, "Guarantees").
"""

import functools

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import has_fit_parameter

import forestzoo

ESTIMATORS = forestzoo.all_estimators()
parametrize_estimators = pytest.mark.parametrize(
    "Estimator", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS]
)
PREDICT_METHODS = ("predict", "predict_proba", "predict_log_proba", "apply", "decision_path")


def _make(Estimator, **params):
    estimator = Estimator()
    fast = {k: v for k, v in {"n_estimators": 5, "random_state": 0}.items()
            if k in estimator.get_params()}
    return estimator.set_params(**{**fast, **params})


def _data(estimator, n_samples=40, n_features=4, seed=0, labels=(0, 1, 2)):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    if is_classifier(estimator):
        y = np.asarray(labels)[np.arange(n_samples) % len(labels)]
        X[:, 0] += y  # some signal, so the trees are not stumps
    else:
        y = X[:, 0] + 0.1 * rng.normal(size=n_samples)
    return X, y


def _fit(estimator, X, y, sample_weight=None):
    """``fit``, passing ``sample_weight`` only to estimators that take it.

    A case built around a bad weight does not apply to an estimator without one.
    """
    if has_fit_parameter(estimator, "sample_weight"):
        return estimator.fit(X, y, sample_weight=sample_weight)
    if sample_weight is not None:
        pytest.skip(f"{type(estimator).__name__}.fit takes no sample_weight")
    return estimator.fit(X, y)


def _allows_nan(estimator):
    return estimator.__sklearn_tags__().input_tags.allow_nan


def _set(a, index, value):
    a = np.array(a, copy=True)
    a[index] = value
    return a


def _strings(X):
    X = X.astype(object)
    X[0, 1] = "abc"
    return X


# case id -> (build (X, y, sample_weight) from a valid (X, y), regex the message must match)
BAD_FIT = {
    "inf_in_X": (lambda X, y: (_set(X, (0, 0), np.inf), y, None), "infinity"),
    "neg_inf_in_X": (lambda X, y: (_set(X, (1, 2), -np.inf), y, None), "infinity"),
    "1d_X": (lambda X, y: (X[:, 0], y, None), "2D"),
    "3d_X": (lambda X, y: (X[:, :, None], y, None), "2D"),
    "empty_X": (lambda X, y: (X[:0], y[:0], None), "0 sample"),
    "string_in_X": (lambda X, y: (_strings(X), y, None), "(?i)could not convert|numeric"),
    "negative_weight": (lambda X, y: (X, y, _set(np.ones(len(y)), 3, -1.0)), "Negative values"),
    "all_zero_weights": (lambda X, y: (X, y, np.zeros(len(y))), "positive"),
    "nan_weight": (lambda X, y: (X, y, _set(np.ones(len(y)), 3, np.nan)), "NaN"),
    "weight_length": (lambda X, y: (X, y, np.ones(len(y) - 1)), "sample_weight|shape"),
    "y_length": (lambda X, y: (X, y[:-1], None), "inconsistent|samples"),
    "multi_output_y": (lambda X, y: (X, np.column_stack([y, y]), None), "multi-output"),
    "nan_in_y": (lambda X, y: (X, _set(y.astype(float), 2, np.nan), None), "NaN"),
}

# case id -> (transform a valid X, regex)
BAD_PREDICT = {
    "n_features": (lambda X: X[:, :-1], "features"),
    "inf_in_X": (lambda X: _set(X, (0, 1), np.inf), "infinity"),
    "1d_X": (lambda X: X[0], "2D"),
    "empty_X": (lambda X: X[:0], "0 sample"),
    "string_in_X": (_strings, "(?i)could not convert|numeric"),
}

# (parameter, invalid value); each applies to the estimators that have the parameter.
BAD_PARAMS = [
    ("n_estimators", 0),
    ("n_estimators", 1.5),
    ("criterion", "foo"),
    ("splitter", "foo"),
    ("max_depth", -1),
    ("max_depth", 0),
    ("min_samples_split", 1),
    ("min_samples_split", 1.5),
    ("min_samples_leaf", 0),
    ("min_samples_leaf", 1.5),
    ("min_impurity_decrease", -1.0),
    ("max_leaf_nodes", 1),
    ("max_features", "foo"),
    ("max_features", 0),
    ("max_features", 1.5),
    ("max_samples", 0),
    ("max_samples", -0.5),
    ("max_bins", 0),
    ("max_bins", 256),
    ("class_weight", "foo"),
    ("bootstrap", "yes"),
    ("oob_score", "yes"),
    ("warm_start", "yes"),
    ("n_jobs", "foo"),
    ("random_state", "foo"),
]


@functools.lru_cache(maxsize=None)
def _fitted(Estimator):
    estimator = _make(Estimator)
    X, y = _data(estimator)
    return estimator.fit(X, y), X


def _snapshot(estimator, X):
    """Everything a user can observe of a fitted model, to compare before/after a failed fit."""
    state = {"n_features_in_": estimator.n_features_in_, "predict": estimator.predict(X)}
    if is_classifier(estimator):
        state["classes_"] = estimator.classes_
        state["predict_proba"] = estimator.predict_proba(X)
    if hasattr(estimator, "estimators_"):
        state["n_trees"] = len(estimator.estimators_)
    if hasattr(estimator, "feature_names_in_"):
        state["feature_names_in_"] = estimator.feature_names_in_
    return state


def _assert_same_snapshot(before, after):
    assert before.keys() == after.keys()
    for key in before:
        assert_array_equal(after[key], before[key], err_msg=key)


# ---------------------------------------------------------------------------------------------
# fit


def _skip_accepted(estimator, case):
    """A 2-D y is valid input for an estimator that fits several outputs (scikit-learn's multi_output tag)."""
    if case == "multi_output_y" and estimator.__sklearn_tags__().target_tags.multi_output:
        pytest.skip("fits multi-output y")


@parametrize_estimators
@pytest.mark.parametrize("case", list(BAD_FIT))
def test_bad_fit_input_raises(Estimator, case):
    estimator = _make(Estimator)
    _skip_accepted(estimator, case)
    build, match = BAD_FIT[case]
    X, y, sample_weight = build(*_data(estimator))
    with pytest.raises(ValueError, match=match):
        _fit(estimator, X, y, sample_weight)


@parametrize_estimators
def test_inf_in_regression_target_raises(Estimator):
    estimator = _make(Estimator)
    if is_classifier(estimator):
        pytest.skip("regressors only")
    X, y = _data(estimator)
    with pytest.raises(ValueError, match="infinity"):
        estimator.fit(X, _set(y, 0, np.inf))


# ---------------------------------------------------------------------------------------------
# predict, predict_proba, apply, decision_path


@parametrize_estimators
@pytest.mark.parametrize("method", PREDICT_METHODS)
@pytest.mark.parametrize("case", list(BAD_PREDICT))
def test_bad_predict_input_raises(Estimator, method, case):
    estimator, X = _fitted(Estimator)
    if not hasattr(estimator, method):
        pytest.skip(f"{Estimator.__name__} has no {method}")
    transform, match = BAD_PREDICT[case]
    with pytest.raises(ValueError, match=match):
        getattr(estimator, method)(transform(X))


@parametrize_estimators
def test_predict_before_fit_raises(Estimator):
    estimator = _make(Estimator)
    X, _ = _data(estimator)
    with pytest.raises(NotFittedError):
        estimator.predict(X)


# ---------------------------------------------------------------------------------------------
# parameters


def _bad_params(Estimator):
    estimator = _make(Estimator)
    params = estimator.get_params()
    cases = [(p, v) for p, v in BAD_PARAMS if p in params]
    if "criterion" in params:
        cases.append(("criterion", "gini" if not is_classifier(estimator) else "squared_error"))
    if "class_weight" in params and "n_estimators" not in params:
        cases.append(("class_weight", "balanced_subsample"))  # a forest-only option
    return cases


@pytest.mark.parametrize(
    "Estimator, param, value",
    [(cls, p, v) for _, cls in ESTIMATORS for p, v in _bad_params(cls)],
    ids=[f"{name}-{p}={v!r}" for name, cls in ESTIMATORS for p, v in _bad_params(cls)],
)
def test_invalid_parameter_raises_at_fit(Estimator, param, value):
    # Nothing is validated in __init__ or set_params (scikit-learn convention)...
    estimator = _make(Estimator, **{param: value})
    X, y = _data(estimator)
    # ... but fit refuses, naming the parameter.
    with pytest.raises(ValueError, match=param) as excinfo:
        estimator.fit(X, y)
    assert isinstance(excinfo.value, InvalidParameterError)


@parametrize_estimators
@pytest.mark.parametrize(
    "params", [{"oob_score": True, "bootstrap": False}, {"max_samples": 0.5, "bootstrap": False}],
    ids=["oob_without_bootstrap", "max_samples_without_bootstrap"],
)
def test_options_that_need_bootstrap_raise_without_it(Estimator, params):
    estimator = _make(Estimator)
    if not set(params) <= set(estimator.get_params()):
        pytest.skip("not a bagging estimator")
    estimator.set_params(**params)
    X, y = _data(estimator)
    with pytest.raises(ValueError, match="bootstrap"):
        estimator.fit(X, y)


@parametrize_estimators
def test_warm_start_with_fewer_trees_raises(Estimator):
    estimator = _make(Estimator)
    if "warm_start" not in estimator.get_params():
        pytest.skip("no warm_start")
    X, y = _data(estimator)
    estimator.set_params(warm_start=True, n_estimators=5).fit(X, y)
    before = _snapshot(estimator, X)
    estimator.set_params(n_estimators=3)
    with pytest.raises(ValueError, match="n_estimators"):
        estimator.fit(X, y)
    _assert_same_snapshot(before, _snapshot(estimator, X))


# ---------------------------------------------------------------------------------------------
# pandas


@parametrize_estimators
def test_dataframe_sets_feature_names_in(Estimator):
    pd = pytest.importorskip("pandas")
    estimator = _make(Estimator)
    X, y = _data(estimator)
    columns = [f"col_{i}" for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)

    estimator.fit(frame, y)
    assert_array_equal(estimator.feature_names_in_, columns)
    assert estimator.feature_names_in_.dtype == object
    assert estimator.n_features_in_ == X.shape[1]

    # A DataFrame is the same data as its values: same model, same predictions.
    reference = clone(estimator).fit(X, y)
    assert not hasattr(reference, "feature_names_in_")
    assert_array_equal(estimator.predict(frame), reference.predict(X))

    with pytest.raises(ValueError, match="feature names"):
        estimator.predict(frame[columns[::-1]])

    # Refitting on a plain array forgets the names.
    estimator.fit(X, y)
    assert not hasattr(estimator, "feature_names_in_")


# ---------------------------------------------------------------------------------------------
# a failed fit never corrupts the model


@parametrize_estimators
@pytest.mark.parametrize("case", list(BAD_FIT))
def test_failed_fit_leaves_fitted_model_intact(Estimator, case):
    estimator = _make(Estimator)
    _skip_accepted(estimator, case)
    X, y = _data(estimator)
    estimator.fit(X, y)
    before = _snapshot(estimator, X)

    # The bad data differs from the good in shape and labels, so a half-done fit would show.
    build, _ = BAD_FIT[case]
    X_bad, y_bad, weight_bad = build(*_data(estimator, n_samples=30, n_features=5, seed=1,
                                            labels=(7, 8)))
    with pytest.raises(ValueError):
        _fit(estimator, X_bad, y_bad, weight_bad)
    _assert_same_snapshot(before, _snapshot(estimator, X))


@parametrize_estimators
@pytest.mark.parametrize("case", ["inf_in_X", "negative_weight", "nan_in_y"])
def test_failed_fit_keeps_feature_names(Estimator, case):
    pd = pytest.importorskip("pandas")
    estimator = _make(Estimator)
    X, y = _data(estimator)
    frame = pd.DataFrame(X, columns=[f"col_{i}" for i in range(X.shape[1])])
    estimator.fit(frame, y)
    before = _snapshot(estimator, frame)
    build, _ = BAD_FIT[case]
    X_bad, y_bad, weight_bad = build(*_data(estimator, n_features=5, seed=1, labels=(7, 8)))
    with pytest.raises(ValueError):  # a plain array, without names
        _fit(estimator, X_bad, y_bad, weight_bad)
    _assert_same_snapshot(before, _snapshot(estimator, frame))


@parametrize_estimators
def test_failed_fit_with_bad_parameter_leaves_fitted_model_intact(Estimator):
    estimator = _make(Estimator)
    X, y = _data(estimator)
    estimator.fit(X, y)
    before = _snapshot(estimator, X)
    params = estimator.get_params()
    bad = next(((p, v) for p, v in BAD_PARAMS if p in params), None)
    if bad is None:
        pytest.skip("none of the tested parameters applies")
    estimator.set_params(**dict([bad]))
    with pytest.raises(ValueError):
        estimator.fit(*_data(estimator, n_features=5, seed=1, labels=(7, 8)))
    _assert_same_snapshot(before, _snapshot(estimator, X))


@parametrize_estimators
def test_failed_warm_start_fit_keeps_the_trees(Estimator):
    estimator = _make(Estimator)
    if "warm_start" not in estimator.get_params():
        pytest.skip("no warm_start")
    X, y = _data(estimator)
    estimator.set_params(warm_start=True, n_estimators=5).fit(X, y)
    before = _snapshot(estimator, X)
    estimator.set_params(n_estimators=10)
    with pytest.raises(ValueError, match="infinity"):
        estimator.fit(_set(X, (0, 0), np.inf), y)
    _assert_same_snapshot(before, _snapshot(estimator, X))
    estimator.fit(X, y)
    assert len(estimator.estimators_) == 10


@parametrize_estimators
def test_failed_first_fit_leaves_estimator_unfitted(Estimator):
    estimator = _make(Estimator)
    X, y = _data(estimator)
    with pytest.raises(ValueError):
        estimator.fit(_set(X, (0, 0), np.inf), y)
    with pytest.raises(NotFittedError):
        estimator.predict(X)


@parametrize_estimators
def test_fit_does_not_modify_its_inputs(Estimator):
    estimator = _make(Estimator)
    X, y = _data(estimator)
    # float32 C-order is the engine's own layout, so conversion may skip the copy: the
    # engine must still not write into the caller's array.
    if _allows_nan(estimator):
        X = _set(X, (slice(0, 5), 1), np.nan)
    X = np.ascontiguousarray(X, dtype=np.float32)
    sample_weight = np.linspace(0.5, 2.0, len(y)) if has_fit_parameter(estimator, "sample_weight") else None
    X_orig, y_orig = X.copy(), y.copy()
    w_orig = None if sample_weight is None else sample_weight.copy()
    _fit(estimator, X, y, sample_weight)
    estimator.predict(X)
    assert_array_equal(X, X_orig)
    assert_array_equal(y, y_orig)
    assert_array_equal(sample_weight, w_orig)
