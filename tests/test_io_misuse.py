"""API misuse never corrupts a model: warm_start on other features, bad class weights, foreign byte order.

* A ``warm_start`` continuation on data with another number of features is refused with
  scikit-learn's message, and on a data frame whose feature names differ from the previous fit's
  (reordered columns), and the previous model is left as it was.
* ``class_weight`` values that are negative, NaN, infinite or so large that the weight sums
  overflow are refused like the same ``sample_weight`` values.
* A fitted tree pickled on a machine of the other byte order predicts as the native one.
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import forestzoo

RNG = np.random.RandomState(0)
X = RNG.normal(size=(40, 4))
Y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 1)

WARM = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor",
        "RotationForestClassifier", "RotationForestRegressor"]


@pytest.mark.parametrize("name", WARM)
def test_warm_start_refuses_other_feature_counts(name):
    Estimator = getattr(forestzoo, name)
    model = Estimator(n_estimators=2, max_depth=2, warm_start=True, random_state=0).fit(X, Y)
    before = model.predict(X)
    model.set_params(n_estimators=4)
    with pytest.raises(ValueError, match=f"X has 3 features, but {name} is expecting 4 features as input"):
        model.fit(X[:, :3], Y)
    assert len(model.estimators_) == 2 and model.n_features_in_ == 4
    assert_array_equal(model.predict(X), before)
    assert len(model.fit(X, Y).estimators_) == 4  # the same features continue


@pytest.mark.parametrize("name", WARM)
def test_warm_start_refuses_reordered_feature_names(name):
    pd = pytest.importorskip("pandas")
    Estimator = getattr(forestzoo, name)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    model = Estimator(n_estimators=2, max_depth=2, warm_start=True, random_state=0).fit(frame, Y)
    before = model.predict(frame)
    model.set_params(n_estimators=4)
    with pytest.raises(ValueError, match="feature names must be the previous fit's, in the same order"):
        model.fit(frame[["b", "a", "c", "d"]], Y)
    assert len(model.estimators_) == 2 and list(model.feature_names_in_) == ["a", "b", "c", "d"]
    assert_array_equal(model.predict(frame), before)
    assert len(model.fit(frame, Y).estimators_) == 4  # the same names continue
    model.set_params(n_estimators=5)
    assert len(model.fit(X, Y).estimators_) == 5  # an array without names is read by position, as at predict

@pytest.mark.parametrize("name", ["RandomForestClassifier", "ExtraTreesClassifier", "DecisionTreeClassifier",
                                  "RotationForestClassifier"])
@pytest.mark.parametrize("weight, message", [
    (-1.0, "negative"), (np.nan, "NaN or infinity"), (np.inf, "NaN or infinity"), (1e200, "total weight"),
])
def test_class_weight_values_are_refused_like_sample_weight(name, weight, message):
    Estimator = getattr(forestzoo, name)
    params = {} if name == "DecisionTreeClassifier" else {"n_estimators": 2}
    model = Estimator(class_weight={0: 1.0, 1: weight, 2: 1.0}, max_depth=2, random_state=0, **params)
    with pytest.raises(ValueError, match=message):
        model.fit(X, Y)
    with pytest.raises(ValueError):  # the same value as a sample weight is refused too
        Estimator(max_depth=2, random_state=0, **params).fit(X, Y, sample_weight=np.where(Y == 1, weight, 1.0))


def test_non_native_pickle_predicts_as_native():
    model = forestzoo.RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0).fit(X, Y)
    clone = pickle.loads(pickle.dumps(model))
    other = ">" if np.little_endian else "<"
    for est in clone.estimators_:
        state = est.tree_.__getstate__()
        swapped = {k: v.astype(v.dtype.newbyteorder(other)) if isinstance(v, np.ndarray) else v
                   for k, v in state.items()}
        est.tree_ = pickle.loads(pickle.dumps(type(est.tree_).__new__(type(est.tree_))))
        est.tree_.__setstate__(swapped)
        assert est.tree_.nodes.dtype.isnative and est.tree_.values.dtype.isnative
    assert_array_equal(clone.predict_proba(X), model.predict_proba(X))


def test_ctrl_c_reported_by_numba_as_system_error_surfaces_as_keyboard_interrupt():
    """Numba's dispatcher reports a Ctrl-C that arrives in a kernel as SystemError <- SystemError <-
    KeyboardInterrupt (seen in CompetenceForestClassifier.fit, whose trees grow in the calling thread)."""
    from forestzoo._validation import keep_state_on_error

    model = forestzoo.CompetenceForestClassifier(max_estimators=2, random_state=0).fit(X, Y)
    before = dict(model.__dict__)

    def dispatcher_error():
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as ki:
                raise SystemError("returned a result with an exception set") from ki
        except SystemError as inner:
            raise SystemError("CPUDispatcher(grow) returned a result with an exception set") from inner

    with pytest.raises(KeyboardInterrupt):
        with keep_state_on_error(model):
            model.trees_ = None
            dispatcher_error()
    assert model.__dict__.keys() == before.keys() and model.trees_ is before["trees_"]
    with pytest.raises(SystemError):  # a SystemError of another cause stays one
        with keep_state_on_error(model):
            raise SystemError("unrelated")
