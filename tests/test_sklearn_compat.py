"""Behaviour that code written for scikit-learn's trees and forests relies on."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from forestzoo import DecisionTreeClassifier, RandomForestClassifier


def _swap_byte_order(tree):
    for name, value in list(vars(tree).items()):
        if isinstance(value, np.ndarray) and value.dtype.itemsize > 1:
            setattr(tree, name, value.astype(value.dtype.newbyteorder("S")))
    tree.invalidate()


@pytest.mark.parametrize("Estimator", [RandomForestClassifier, DecisionTreeClassifier])
def test_unpickled_arrays_of_the_other_byte_order_predict(Estimator):
    """A model pickled on a machine of the other endianness predicts as the original does."""
    X, y = make_classification(300, 6, random_state=0)
    est = Estimator(random_state=0).fit(X, y)
    expected = est.predict_proba(X)
    for member in getattr(est, "estimators_", [est]):
        _swap_byte_order(member.tree_)
        assert not member.tree_.nodes.dtype.isnative
    restored = pickle.loads(pickle.dumps(est))
    for member in getattr(restored, "estimators_", [restored]):
        assert member.tree_.nodes.dtype.isnative and member.tree_.values.dtype.isnative
    np.testing.assert_array_equal(restored.predict_proba(X), expected)
