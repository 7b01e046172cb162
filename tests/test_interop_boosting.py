"""forestzoo.interop: gradient boosting to and from scikit-learn's GradientBoosting*.

What is bit for bit and what is within a bound (see forestzoo.interop's docstring):
towards forestzoo everything is exact; towards scikit-learn a regressor is exact and a
classifier's raw score differs by the rounding of its initial score (scikit-learn derives it
from a class prior through the logit at every prediction), carried through the rounds.
"""

import numpy as np
import pytest
from sklearn import ensemble as ske
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression

import forestzoo as fz
from forestzoo.datasets import load_dataset
from forestzoo.interop import from_sklearn, to_sklearn
from forestzoo.interop._boosting import _closest_prior, _unscaled

#: two-class, K-class and regression datasets of the bundled collection
BINARY = ["breast_cancer_wisconsin_diag", "pima_diabetes"]
MULTICLASS = ["iris", "wine_quality_red", "segment"]
REGRESSION = ["airfoil", "concrete"]


def _data(name):
    X, y = load_dataset(name)
    return np.asarray(X, dtype=np.float64), np.asarray(y)


def _assert_classifiers_equal(a, b, X):
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))


def _assert_raw_within_init_rounding(fz_model, sk_model, X):
    """Raw scores equal up to the initial score's rounding, carried through the rounds; probabilities within 1e-14."""
    F = np.asarray(fz_model.decision_function(X)).reshape(X.shape[0], -1)
    G = np.asarray(sk_model.decision_function(X)).reshape(X.shape[0], -1)
    d0 = np.abs(sk_model._raw_predict_init(X[:1])[0] - fz_model.init_raw_prediction_).max()
    assert d0 <= 4 * np.spacing(max(1.0, np.abs(fz_model.init_raw_prediction_).max()))
    n_rounds = fz_model.n_estimators_
    bound = d0 + (n_rounds + 1) * np.spacing(max(np.abs(F).max(), np.abs(G).max()))
    assert np.abs(F - G).max() <= bound
    np.testing.assert_allclose(sk_model.predict_proba(X), fz_model.predict_proba(X), rtol=0, atol=1e-14)
    np.testing.assert_array_equal(sk_model.predict(X), fz_model.predict(X))
    np.testing.assert_array_equal(sk_model.apply(X), fz_model.apply(X))


@pytest.mark.parametrize("name", BINARY + MULTICLASS)
def test_classifier_from_sklearn_is_bit_for_bit(name):
    X, y = _data(name)
    for lr in (0.1, 0.37):
        sk = ske.GradientBoostingClassifier(n_estimators=15, learning_rate=lr, random_state=0).fit(X, y)
        model = from_sklearn(sk)
        assert type(model) is fz.GradientBoostingClassifier
        assert model.estimators_.shape == sk.estimators_.shape
        _assert_classifiers_equal(model, sk, X)
        for a, b in zip(model.staged_decision_function(X), sk.staged_decision_function(X)):
            np.testing.assert_array_equal(a, np.asarray(b).reshape(a.shape))
        np.testing.assert_allclose(model.feature_importances_, sk.feature_importances_, rtol=0, atol=1e-12)
        # scikit-learn reports twice the binomial log-loss, the multinomial one as it is
        factor = 2.0 if sk.n_classes_ == 2 else 1.0
        np.testing.assert_allclose(model.train_score_ * factor, sk.train_score_, rtol=1e-15)
        # and back: the prior scikit-learn started from is found again, so the raw scores are its own
        _assert_classifiers_equal(to_sklearn(model), sk, X)


@pytest.mark.parametrize("name", BINARY + MULTICLASS)
def test_classifier_to_sklearn_within_the_init_rounding(name):
    X, y = _data(name)
    model = fz.GradientBoostingClassifier(n_estimators=15, learning_rate=0.37, random_state=0).fit(X, y)
    sk = to_sklearn(model)
    assert type(sk) is ske.GradientBoostingClassifier and sk.loss == "log_loss"
    assert type(sk.init_) is DummyClassifier and sk.init_.strategy == "prior"
    # the prior is the class distribution forestzoo's f_0 was computed from
    counts = np.unique(y, return_counts=True)[1]
    np.testing.assert_allclose(sk.init_.class_prior_, counts / counts.sum(), rtol=1e-12)
    _assert_raw_within_init_rounding(model, sk, X)
    # each tree's importances are differences of node impurities summed over its nodes, added and
    # normalised in another order by scikit-learn: a few 1e-13 where a decrease is small against its impurities
    np.testing.assert_allclose(sk.feature_importances_, model.feature_importances_, rtol=0, atol=1e-11)
    back = from_sklearn(sk)
    _assert_classifiers_equal(back, sk, X)  # back is scikit-learn's model exactly ...
    # ... and every tree term is forestzoo's own float
    for e, f in zip(model.estimators_.ravel(), back.estimators_.ravel()):
        np.testing.assert_array_equal(e.tree_.values[e.tree_.nodes["left"] < 0], f.tree_.values[f.tree_.nodes["left"] < 0])


@pytest.mark.parametrize("name", REGRESSION)
@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
def test_regressor_round_trips_are_bit_for_bit(name, loss):
    X, y = _data(name)
    model = fz.GradientBoostingRegressor(loss=loss, n_estimators=15, learning_rate=0.37, max_leaf_nodes=6,
                                         random_state=0).fit(X, y)
    sk = to_sklearn(model)
    assert type(sk) is ske.GradientBoostingRegressor and sk.loss == loss
    assert type(sk.init_) is DummyRegressor
    np.testing.assert_array_equal(sk.predict(X), model.predict(X))
    np.testing.assert_array_equal(sk.apply(X), model.apply(X)[:, :, 0])  # scikit-learn drops the tree-per-round axis
    for a, b in zip(model.staged_predict(X), sk.staged_predict(X)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(from_sklearn(sk).predict(X), model.predict(X))
    # scikit-learn reports the squared error, forestzoo half of it
    np.testing.assert_allclose(sk.train_score_, model.train_score_ * (2.0 if loss == "squared_error" else 1.0))

    ref = ske.GradientBoostingRegressor(loss=loss, n_estimators=15, learning_rate=0.1, subsample=0.7,
                                        random_state=0).fit(X, y)
    back = from_sklearn(ref)
    assert type(back) is fz.GradientBoostingRegressor and back.loss == loss
    np.testing.assert_array_equal(back.predict(X), ref.predict(X))
    np.testing.assert_array_equal(to_sklearn(back).predict(X), ref.predict(X))


def test_early_stopped_and_subsampled_models_convert():
    X, y = _data("vehicle")
    model = fz.GradientBoostingClassifier(n_estimators=200, n_iter_no_change=3, subsample=0.5,
                                          random_state=0).fit(X, y)
    assert model.n_estimators_ < 200
    sk = to_sklearn(model)
    assert sk.estimators_.shape == (model.n_estimators_, 4) and sk.n_estimators_ == model.n_estimators_
    _assert_raw_within_init_rounding(model, sk, X)
    ref = ske.GradientBoostingClassifier(n_estimators=200, n_iter_no_change=3, random_state=0).fit(X, y)
    assert ref.n_estimators_ < 200
    _assert_classifiers_equal(from_sklearn(ref), ref, X)


@pytest.mark.parametrize("init", ["zero", DummyClassifier(strategy="uniform"),
                                  DummyClassifier(strategy="most_frequent")])
def test_constant_init_estimators_are_carried(init):
    X, y = _data("wine")
    sk = ske.GradientBoostingClassifier(n_estimators=10, init=init, random_state=0).fit(X, y)
    model = from_sklearn(sk)
    _assert_classifiers_equal(model, sk, X)
    np.testing.assert_array_equal(model.init_raw_prediction_, sk._raw_predict_init(X[:1])[0])


def test_constant_init_regressor_and_string_labels_with_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _data("concrete")
    sk = ske.GradientBoostingRegressor(n_estimators=10, init=DummyRegressor(strategy="median"),
                                       random_state=0).fit(X, y)
    np.testing.assert_array_equal(from_sklearn(sk).predict(X), sk.predict(X))
    X, y = _data("breast_cancer_wisconsin_diag")
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.array(["benign", "malignant"])[(y == y.max()).astype(int)]
    sk = ske.GradientBoostingClassifier(n_estimators=10, random_state=0).fit(df, labels)
    model = from_sklearn(sk)
    np.testing.assert_array_equal(model.feature_names_in_, sk.feature_names_in_)
    np.testing.assert_array_equal(model.predict(df), sk.predict(df))
    np.testing.assert_array_equal(to_sklearn(model).predict(df), sk.predict(df))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(df.rename(columns={"f0": "g"}))


def test_refusals():
    X, y = _data("breast_cancer_wisconsin_diag")
    with pytest.raises(ValueError, match="loss='log_loss'"):
        from_sklearn(ske.GradientBoostingClassifier(loss="exponential", n_estimators=2).fit(X, y))
    with pytest.raises(ValueError, match="'quantile'"):
        from_sklearn(ske.GradientBoostingRegressor(loss="quantile", n_estimators=2).fit(X, y.astype(float)))
    with pytest.raises(ValueError, match="depends on x"):
        from_sklearn(ske.GradientBoostingClassifier(init=LogisticRegression(max_iter=5000), n_estimators=2).fit(X, y))
    with pytest.raises(ValueError, match="depends on x"):
        from_sklearn(ske.GradientBoostingRegressor(init=LinearRegression(), n_estimators=2).fit(X, y.astype(float)))
    with pytest.raises(ValueError, match="strategy='stratified'"):
        from_sklearn(ske.GradientBoostingClassifier(init=DummyClassifier(strategy="stratified"), n_estimators=2)
                     .fit(X, y))
    with pytest.raises(TypeError, match="got HistGradientBoostingClassifier"):
        from_sklearn(ske.HistGradientBoostingClassifier(max_iter=2).fit(X, y))


def test_leaf_values_are_unscaled_to_the_same_product():
    """Every ``nu * g`` forestzoo stores has a ``g`` that scikit-learn multiplies back to the same float."""
    rng = np.random.RandomState(0)
    g = np.concatenate([rng.standard_normal(20000) * 10.0 ** rng.randint(-8, 8, 20000), [0.0, -0.0, 1e-300]])
    for lr in (0.1, 0.37, 0.05, 1.0, 1.7):
        v = lr * g
        np.testing.assert_array_equal(lr * _unscaled(v, lr), v)


def test_closest_prior_reproduces_a_reachable_initial_score():
    """For a prior scikit-learn fitted, the search finds one with the same initial score, two classes or K."""
    eps = np.finfo(np.float64).eps
    for name in BINARY + MULTICLASS:
        X, y = _data(name)
        sk = ske.GradientBoostingClassifier(n_estimators=1, random_state=0).fit(X, y)
        raw0 = sk._raw_predict_init(X[:1])[0]
        p = np.clip(_closest_prior(raw0, sk._loss), eps, 1 - eps)
        found = sk._loss.link.link(p[1:]) if raw0.shape[0] == 1 else sk._loss.link.link(p[None])[0]
        np.testing.assert_array_equal(found, raw0, err_msg=name)


# The tools that read scikit-learn's gradient boosting, on a forestzoo model converted to it.

def test_shap_tree_explainer_is_additive_on_converted_boosting():
    shap = pytest.importorskip("shap")
    for name, cls in (("breast_cancer_wisconsin_diag", fz.GradientBoostingClassifier),
                      ("airfoil", fz.GradientBoostingRegressor)):
        X, y = _data(name)
        model = cls(n_estimators=20, learning_rate=0.37, random_state=0).fit(X, y)
        explainer = shap.TreeExplainer(to_sklearn(model))
        values = np.asarray(explainer.shap_values(X[:40]))  # (rows, features): the raw score's contributions
        raw = model.decision_function(X[:40]) if hasattr(model, "decision_function") else model.predict(X[:40])
        np.testing.assert_allclose(values.sum(axis=1) + explainer.expected_value, raw, rtol=1e-12, atol=1e-12)
    # SHAP itself explains scikit-learn's gradient boosting for two classes only; the conversion does not hide that
    X, y = _data("iris")
    sk = to_sklearn(fz.GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y))
    with pytest.raises(Exception, match="binary"):
        shap.TreeExplainer(sk)


@pytest.mark.parametrize("name", ["breast_cancer_wisconsin_diag", "iris", "airfoil"])
def test_onnx_reproduces_converted_boosting(name):
    pytest.importorskip("skl2onnx")
    rt = pytest.importorskip("onnxruntime")
    from skl2onnx import to_onnx

    X, y = _data(name)
    X32 = X.astype(np.float32)
    cls = fz.GradientBoostingRegressor if name == "airfoil" else fz.GradientBoostingClassifier
    model = cls(n_estimators=20, random_state=0).fit(X32, y)
    sk = to_sklearn(model)
    options = {id(sk): {"zipmap": False}} if cls is fz.GradientBoostingClassifier else None
    session = rt.InferenceSession(to_onnx(sk, X32[:1], options=options).SerializeToString(),
                                  providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: X32})
    if cls is fz.GradientBoostingClassifier:
        np.testing.assert_array_equal(outputs[0], model.predict(X32))
        np.testing.assert_allclose(outputs[1], model.predict_proba(X32), rtol=0, atol=1e-5)
    else:  # ONNX sums the trees in float32: within float32's relative precision of the target's scale
        np.testing.assert_allclose(np.ravel(outputs[0]), model.predict(X32), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", ["breast_cancer_wisconsin_diag", "iris", "airfoil"])
def test_treelite_predicts_converted_boosting(name):
    treelite = pytest.importorskip("treelite")
    X, y = _data(name)
    X32 = X.astype(np.float32)
    cls = fz.GradientBoostingRegressor if name == "airfoil" else fz.GradientBoostingClassifier
    model = cls(n_estimators=20, random_state=0).fit(X32, y)
    got = treelite.gtil.predict(treelite.sklearn.import_model(to_sklearn(model)), X32)  # (rows, 1, outputs)
    if cls is fz.GradientBoostingRegressor:
        np.testing.assert_allclose(np.ravel(got), model.predict(X32), rtol=1e-12, atol=1e-9)
    else:  # the probability of class 1 for two classes, every class's otherwise
        want = model.predict_proba(X32)
        want = want[:, 1:] if want.shape[1] == 2 else want
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=0, atol=1e-6)
