"""Fitted attributes missing from a model file: refused on load, naming the attribute, never an error at predict.

A file written by a version of an estimator that stored its fitted state under other names holds
a fitted model without some attribute the current code reads.  ``PREDICT_READS`` lists, per
estimator, the fitted attributes prediction reads; these tests derive that list afresh (remove
each fitted attribute in turn and predict) so that the table cannot fall behind the code, then
rename each listed attribute in a saved file and require ``load`` to refuse it by name.
"""

import copy
import io
import json
import sys
from pathlib import Path

import pytest

import forestzoo
from forestzoo.deep import MultiGrainedScanner
from forestzoo.io import ModelFormatError, load, save
from forestzoo.io._validate import PREDICT_READS
from _estimators import fast_instance, toy_data
from test_io import OUTPUT_METHODS, fitted

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import io_mutations as mut  # noqa: E402

ESTIMATORS = forestzoo.all_estimators() + [("MultiGrainedScanner", MultiGrainedScanner)]
parametrize_estimators = pytest.mark.parametrize(
    "Estimator", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS]
)


@pytest.fixture(scope="module")
def models():
    cache = {}

    def get(Estimator):
        if Estimator is MultiGrainedScanner and Estimator not in cache:  # a transformer fitted on labels
            X, y = toy_data(forestzoo.RandomForestClassifier(), 60)
            cache[Estimator] = fast_instance(Estimator).fit(X, y), X
        if Estimator not in cache:
            cache[Estimator] = fitted(Estimator)
        return cache[Estimator]

    return get


def _predicts(model, X):
    for method in OUTPUT_METHODS:
        if hasattr(model, method):
            getattr(model, method)(X)


@parametrize_estimators
def test_table_lists_every_attribute_prediction_reads(Estimator, models):
    model, X = models(Estimator)
    listed = PREDICT_READS[Estimator.__name__]
    assert set(listed) <= set(vars(model)), "the table names attributes a fit no longer sets"
    params = model.get_params(deep=False)
    needed = []
    for name in sorted(vars(model)):
        if name in params:
            continue
        clone = copy.copy(model)
        clone.__dict__ = {k: v for k, v in model.__dict__.items() if k != name}
        try:
            _predicts(clone, X)
        except Exception:  # noqa: BLE001 - any failure means prediction reads the attribute
            needed.append(name)
    assert set(needed) <= set(listed), f"prediction reads {sorted(set(needed) - set(listed))}, not in PREDICT_READS"


def _renamed(data, old, new):
    """The file ``data`` with the root estimator's attribute ``old`` stored as ``new`` (checksums recomputed)."""
    members = mut.members_of(data)
    graph = json.loads(members["model.json"])
    keys = graph["state"]["k"]
    keys[keys.index(old)] = new
    members["model.json"] = json.dumps(graph).encode()
    return mut.seal(members, ["model.json"])


@parametrize_estimators
def test_renamed_or_missing_attribute_is_refused_by_name(Estimator, models):
    model, X = models(Estimator)
    buf = io.BytesIO()
    save(model, buf)
    data = buf.getvalue()
    _predicts(load(io.BytesIO(data)), X)  # the file itself is valid
    for name in PREDICT_READS[Estimator.__name__]:
        with pytest.raises(ModelFormatError, match=f"fitted attribute\\(s\\) {name} missing"):
            load(io.BytesIO(_renamed(data, name, name.rstrip("_") + "_v0_")))


def test_unfitted_estimator_needs_no_fitted_attribute():
    buf = io.BytesIO()
    save(forestzoo.RandomForestClassifier(n_estimators=3), buf)
    assert not hasattr(load(io.BytesIO(buf.getvalue())), "estimators_")
