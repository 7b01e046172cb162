"""forestzoo.io with the scikit-learn preprocessing users put in pipelines before a forest.

Each allow-listed transformer is fitted inside a pipeline with a small forest, saved, loaded,
and must give identical outputs; the README's quick-start pipeline must save and load; a
``SelectKBest`` with a score function outside the built-in ones is refused when saving.
"""

import io

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.feature_selection import SelectKBest, chi2, f_classif, mutual_info_classif
from sklearn.impute import SimpleImputer
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler

from forestzoo import RandomForestClassifier
from forestzoo.io import UntrustedTypeError, load, save

RNG = np.random.RandomState(0)
X = RNG.normal(size=(40, 4))
X[::7, 1] = np.nan
Y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
CATEGORIES = np.array(["a", "b", "c"], dtype=object)[RNG.randint(0, 3, 40)]


def forest():
    return RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0)


def roundtrip(model):
    buffer = io.BytesIO()
    save(model, buffer)
    return load(io.BytesIO(buffer.getvalue()))


STEPS = {
    "SimpleImputer": lambda: [SimpleImputer()],
    "StandardScaler": lambda: [SimpleImputer(strategy="median"), StandardScaler()],
    "MinMaxScaler": lambda: [SimpleImputer(), MinMaxScaler()],
    "PCA": lambda: [SimpleImputer(), PCA(n_components=2, random_state=0)],
    "SelectKBest-f_classif": lambda: [SimpleImputer(), SelectKBest(f_classif, k=2)],
    "SelectKBest-chi2": lambda: [SimpleImputer(), MinMaxScaler(), SelectKBest(chi2, k=3)],
    "SelectKBest-mutual_info": lambda: [SimpleImputer(), SelectKBest(mutual_info_classif, k=2)],
    "FeatureUnion": lambda: [SimpleImputer(), FeatureUnion([("pca", PCA(n_components=1)),
                                                            ("scale", StandardScaler())])],
}


@pytest.mark.parametrize("steps", STEPS, ids=list(STEPS))
def test_numeric_preprocessing_roundtrip(steps):
    pipe = make_pipeline(*STEPS[steps](), forest()).fit(X, Y)
    loaded = roundtrip(pipe)
    assert_array_equal(loaded.predict_proba(X), pipe.predict_proba(X))
    assert [type(s) for _, s in loaded.steps] == [type(s) for _, s in pipe.steps]


@pytest.mark.parametrize("encoder", [OneHotEncoder(handle_unknown="ignore"), OrdinalEncoder()])
def test_column_transformer_with_encoders_roundtrip(encoder):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "cat": CATEGORIES})
    pre = ColumnTransformer([("num", SimpleImputer(), ["x0", "x1"]), ("cat", encoder, ["cat"])])
    pipe = make_pipeline(pre, forest()).fit(frame, Y)
    loaded = roundtrip(pipe)
    assert_array_equal(loaded.predict_proba(frame), pipe.predict_proba(frame))
    assert_array_equal(loaded[0].transform(frame), pipe[0].transform(frame))


def test_readme_quick_start_pipeline_saves_and_loads(tmp_path):
    pipe = make_pipeline(SimpleImputer(), RandomForestClassifier(n_estimators=5, random_state=0)).fit(X, Y)
    save(pipe, tmp_path / "pipe.fzm")
    assert_array_equal(load(tmp_path / "pipe.fzm").predict_proba(X), pipe.predict_proba(X))


def test_other_score_functions_are_refused_when_saving():
    pipe = make_pipeline(SimpleImputer(), SelectKBest(lambda X, y: np.ones(X.shape[1]), k=2), forest()).fit(X, Y)
    with pytest.raises(UntrustedTypeError, match="score_func"):
        save(pipe, io.BytesIO())
