"""forestzoo.interop: trees and forests to and from scikit-learn, and the tools that read scikit-learn's trees."""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import ensemble as ske, tree as skt
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import forestzoo as fz
from forestzoo.datasets import list_datasets, load_dataset
from forestzoo.interop import forest_trees, from_sklearn, to_sklearn

FZ_CLASSES = ["DecisionTreeClassifier", "RandomForestClassifier", "ExtraTreesClassifier",
              "DecisionTreeRegressor", "RandomForestRegressor", "ExtraTreesRegressor"]


def _with_nan(X, seed=1):
    X = X.copy()
    X[np.random.RandomState(seed).rand(*X.shape) < 0.1] = np.nan
    return X


@pytest.fixture(scope="module")
def clf_data():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    return _with_nan(X), y


@pytest.fixture(scope="module")
def reg_data():
    X, y = make_regression(300, 5, random_state=0)
    return _with_nan(X), y


def _on_thresholds(model, X):
    """``X`` with row ``i`` set exactly on the threshold of the ``i``-th split of every tree (at most len(X) per tree)."""
    X = X.copy()
    ests = model.estimators_ if hasattr(model, "estimators_") else [model]
    row = 0
    for e in ests:
        nodes = e.tree_.nodes
        split = nodes[(nodes["left"] >= 0) & np.isfinite(nodes["threshold"])]
        for nd in split[: max(0, X.shape[0] - row) // len(ests)]:
            X[row, nd["feature"]] = nd["threshold"]
            row += 1
    return X


def _outputs(model, X):
    out = [model.predict(X), model.apply(X)]
    if hasattr(model, "predict_proba"):
        out.append(model.predict_proba(X))
    return out


def _assert_same(a, b, X):
    for u, v in zip(_outputs(a, X), _outputs(b, X)):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name", FZ_CLASSES)
def test_to_sklearn_predicts_bit_for_bit_nan_and_thresholds_included(name, clf_data, reg_data):
    X, y = clf_data if name.endswith("Classifier") else reg_data
    cls = getattr(fz, name)
    model = cls(random_state=0, **({} if name.startswith("Decision") else {"n_estimators": 4})).fit(X, y)
    sk = to_sklearn(model)
    assert type(sk).__module__.startswith("sklearn.") and type(sk).__name__ == name
    Xt = _on_thresholds(model, X)
    _assert_same(model, sk, Xt)
    assert np.isnan(Xt).any()
    if hasattr(model, "estimators_"):
        trees = sk.estimators_
        kind = "Classifier" if name.endswith("Classifier") else "Regressor"
        assert type(trees[0]).__name__ == ("ExtraTree" if name.startswith("Extra") else "DecisionTree") + kind
        for p, q in zip(model.estimators_samples_, sk.estimators_samples_):
            np.testing.assert_array_equal(p, q)
    else:
        trees = [sk]
    assert type(trees[0].tree_) is skt._tree.Tree
    np.testing.assert_allclose(sk.feature_importances_, model.feature_importances_, rtol=1e-12, atol=1e-15)
    # and back again
    _assert_same(model, from_sklearn(sk), Xt)


@pytest.mark.parametrize("sk_cls", [ske.RandomForestClassifier, ske.ExtraTreesClassifier, skt.DecisionTreeClassifier,
                                    skt.ExtraTreeClassifier, ske.RandomForestRegressor, ske.ExtraTreesRegressor,
                                    skt.DecisionTreeRegressor, skt.ExtraTreeRegressor])
def test_from_sklearn_predicts_bit_for_bit(sk_cls, clf_data, reg_data):
    classifier = sk_cls.__name__.endswith("Classifier")
    X, y = clf_data if classifier else reg_data
    forest = issubclass(sk_cls, ske.BaseEnsemble)
    sk = sk_cls(random_state=0, **({"n_estimators": 4} if forest else {})).fit(X, y)
    model = from_sklearn(sk)
    assert type(model).__module__.startswith("forestzoo.")
    expected = sk_cls.__name__.replace("ExtraTreeC", "DecisionTreeC").replace("ExtraTreeR", "DecisionTreeR")
    assert type(model).__name__ == expected
    Xt = _on_thresholds(model, X)
    _assert_same(sk, model, Xt)
    # parallel prediction sums trees in the same order
    if forest:
        np.testing.assert_array_equal(model.set_params(n_jobs=2).predict(Xt), sk.predict(Xt))


@pytest.fixture(scope="module")
def multi_clf_data(clf_data):
    """Three outputs: 3 classes, 2 classes, 3 classes labelled 5-7 (value rows zero-padded differently)."""
    X, y = clf_data
    Xf = np.nan_to_num(X)
    Y = np.column_stack([y, (Xf[:, 0] > 0).astype(int), np.digitize(Xf[:, 1], [-0.5, 0.5]) + 5])
    return X, Y


@pytest.fixture(scope="module")
def multi_reg_data():
    X, Y = make_regression(300, 5, n_targets=3, random_state=0)
    return _with_nan(X), Y


def _assert_same_multi(a, b, X):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))
    if hasattr(a, "predict_proba"):
        pa, pb = a.predict_proba(X), b.predict_proba(X)
        assert isinstance(pa, list) and isinstance(pb, list) and len(pa) == len(pb) == a.n_outputs_
        for u, v in zip(pa, pb):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name", FZ_CLASSES)
def test_multi_output_both_ways_bit_for_bit(name, multi_clf_data, multi_reg_data):
    classifier = name.endswith("Classifier")
    X, Y = multi_clf_data if classifier else multi_reg_data
    forest = not name.startswith("Decision")
    kw = {"n_estimators": 4} if forest else {}
    model = getattr(fz, name)(random_state=0, **kw).fit(X, Y)
    assert model.n_outputs_ == 3
    sk = to_sklearn(model)
    assert type(sk).__module__.startswith("sklearn.") and sk.n_outputs_ == 3
    Xt = _on_thresholds(model, X)
    _assert_same_multi(model, sk, Xt)
    _assert_same_multi(model, from_sklearn(sk), Xt)
    np.testing.assert_allclose(sk.feature_importances_, model.feature_importances_, rtol=1e-12, atol=1e-15)

    sk_cls = getattr(ske if forest else skt, name)
    ref = sk_cls(random_state=0, **kw).fit(X, Y)
    back = from_sklearn(ref)
    assert type(back) is getattr(fz, name) and back.n_outputs_ == 3
    _assert_same_multi(ref, back, Xt)
    _assert_same_multi(ref, to_sklearn(back), Xt)
    if classifier:
        assert [c.tolist() for c in back.classes_] == [[0, 1, 2], [0, 1], [5, 6, 7]]
        np.testing.assert_array_equal(back.n_classes_, [3, 2, 3])
        assert isinstance(back.n_classes_, list) == forest  # a forest's is a list, a tree's an array, in both
        assert isinstance(to_sklearn(back).n_classes_, list) == forest
        tree = (back.estimators_[0] if forest else back).tree_
        np.testing.assert_array_equal(tree.output_classes, [3, 2, 3])
        assert tree.values.shape[1] == 9


def test_multi_output_out_of_bag_results_are_carried(multi_clf_data, multi_reg_data):
    X, Y = multi_clf_data
    Xc = np.nan_to_num(X)
    labels = np.column_stack([Y[:, 1], Y[:, 0] == 0]).astype(int)  # scikit-learn's out-of-bag score needs two classes
    rf = ske.RandomForestClassifier(n_estimators=20, oob_score=True, random_state=0).fit(Xc, labels)
    back = from_sklearn(rf)
    np.testing.assert_array_equal(back.oob_decision_function_, rf.oob_decision_function_)
    assert back.oob_score_ == rf.oob_score_
    X, Y = multi_reg_data
    model = fz.ExtraTreesRegressor(n_estimators=20, bootstrap=True, oob_score=True, random_state=0).fit(X, Y)
    sk = to_sklearn(model)
    np.testing.assert_array_equal(sk.oob_prediction_, model.oob_prediction_)
    for p, q in zip(model.estimators_samples_, sk.estimators_samples_):
        np.testing.assert_array_equal(p, q)


def test_from_sklearn_keeps_string_classes_and_feature_names(clf_data):
    pd = pytest.importorskip("pandas")
    X, y = clf_data
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.array(["a", "b", "c"])[y]
    sk = ske.RandomForestClassifier(n_estimators=3, random_state=0).fit(df, labels)
    model = from_sklearn(sk)
    np.testing.assert_array_equal(model.feature_names_in_, sk.feature_names_in_)
    np.testing.assert_array_equal(model.predict(df), sk.predict(df))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(df.rename(columns={"f0": "g"}))


def test_refusals(clf_data):
    X, y = clf_data
    Xc = np.nan_to_num(X)
    for model in (fz.RotationForestClassifier(n_estimators=2, random_state=0).fit(Xc, y),
                  fz.AdaBoostClassifier(n_estimators=2).fit(Xc, y)):
        with pytest.raises(TypeError, match="axis-aligned"):
            to_sklearn(model)
    with pytest.raises(TypeError, match="got AdaBoostClassifier"):
        from_sklearn(ske.AdaBoostClassifier(n_estimators=2).fit(Xc, y))
    with pytest.raises(NotFittedError):
        to_sklearn(fz.RandomForestClassifier())
    with pytest.raises(NotFittedError):
        from_sklearn(ske.RandomForestClassifier())
    # a method started from a forest needs one output
    with pytest.raises(ValueError, match="3 outputs"):
        forest_trees(ske.RandomForestClassifier(n_estimators=2, random_state=0).fit(Xc, np.column_stack([y, y, y])))
    # a forest stored for prediction only has no node statistics left
    rf = fz.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)._keep_prediction_only()
    with pytest.raises(ValueError, match="PredictionTree"):
        to_sklearn(rf)
    with pytest.raises(TypeError, match="oblique or rotated"):
        forest_trees(fz.RotationForestClassifier(n_estimators=2, random_state=0).fit(Xc, y))


def test_round_trip_on_every_bundled_dataset():
    """forestzoo -> scikit-learn -> forestzoo gives identical predictions on every bundled dataset."""
    names = [d.name for d in list_datasets() if d.bundled and d.task in ("classification", "regression")]
    assert len(names) >= 20
    for name in names:
        X, y = load_dataset(name)
        regression = np.issubdtype(np.asarray(y).dtype, np.floating) and len(np.unique(y)) > 20
        cls = fz.RandomForestRegressor if regression else fz.RandomForestClassifier
        model = cls(n_estimators=2, max_depth=8, random_state=0).fit(X, y)
        back = from_sklearn(to_sklearn(model))
        f = "predict" if regression else "predict_proba"
        np.testing.assert_array_equal(getattr(back, f)(X), getattr(model, f)(X), err_msg=name)
        np.testing.assert_array_equal(getattr(to_sklearn(model), f)(X), getattr(model, f)(X), err_msg=name)


def test_export_text_and_plot_tree_without_validation_bypass(clf_data):
    X, y = clf_data
    sk = to_sklearn(fz.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y))
    text = skt.export_text(sk, feature_names=[f"x{i}" for i in range(X.shape[1])])
    assert text.count("class:") == sk.get_n_leaves()
    assert "x" in skt.export_graphviz(sk)
    plt = pytest.importorskip("matplotlib.pyplot")
    annotations = skt.plot_tree(sk)
    assert len(annotations) >= sk.tree_.node_count
    plt.close("all")


def test_shap_tree_explainer_is_additive(clf_data):
    shap = pytest.importorskip("shap")
    X, y = clf_data
    Xc = np.nan_to_num(X)
    model = fz.RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0).fit(Xc, y)
    explainer = shap.TreeExplainer(to_sklearn(model))
    values = np.asarray(explainer.shap_values(Xc[:20]))  # (rows, features, classes)
    np.testing.assert_allclose(values.sum(axis=1) + explainer.expected_value, model.predict_proba(Xc[:20]),
                               atol=1e-10)


def test_onnx_reproduces_predict_proba(clf_data):
    pytest.importorskip("skl2onnx")
    rt = pytest.importorskip("onnxruntime")
    from skl2onnx import to_onnx

    X, y = clf_data
    X32 = np.nan_to_num(X).astype(np.float32)
    model = fz.ExtraTreesClassifier(n_estimators=3, random_state=0).fit(X32, y)
    sk = to_sklearn(model)
    onx = to_onnx(sk, X32[:1], options={id(sk): {"zipmap": False}})
    session = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {session.get_inputs()[0].name: X32})
    np.testing.assert_allclose(proba, model.predict_proba(X32), atol=1e-5)


def test_treelite_predicts_the_same(reg_data):
    treelite = pytest.importorskip("treelite")
    X, y = reg_data
    X32 = np.nan_to_num(X).astype(np.float32)
    model = fz.RandomForestRegressor(n_estimators=3, random_state=0).fit(X32, y)
    tl = treelite.sklearn.import_model(to_sklearn(model))
    np.testing.assert_allclose(np.ravel(treelite.gtil.predict(tl, X32)), model.predict(X32), rtol=1e-12, atol=1e-9)


INTEROP_PAGE = Path(__file__).resolve().parents[1] / "docs" / "interop.md"
#: the optional tools the page's examples import (the ``interop`` extra); an example needing an absent one is skipped
OPTIONAL_TOOLS = {"shap", "skl2onnx", "onnxruntime", "treelite"}


def _page_examples():
    return re.findall(r"```python\n(.*?)```", INTEROP_PAGE.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("index", range(len(_page_examples())))
def test_the_interoperability_page_examples_run(index):
    """Each example of docs/interop.md runs as printed (its own asserts included)."""
    code = _page_examples()[index]
    for tool in OPTIONAL_TOOLS & set(re.findall(r"^(?:import|from) (\w+)", code, re.M)):
        pytest.importorskip(tool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the fine-tuning example stops at n_epochs on purpose
        exec(compile(code, f"{INTEROP_PAGE.name} example {index}", "exec"), {"__name__": "__interop_example__"})
