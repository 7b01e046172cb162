"""scikit-learn's estimator checks, run on every public forestzoo estimator.

New estimators are picked up from ``forestzoo.all_estimators()``; nothing here needs editing
when a family is added.  A class may declare

* ``_fast_check_params``: a dict of init parameters that keep the checks fast (a few trees,
  few epochs), applied on top of :data:`FAST_PARAMS`;
* ``_xfail_checks``: ``{check name: reason}`` for checks that fail for a documented reason
  inherent to the method (keep it as short as possible).
"""

from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import forestzoo

# Small ensembles keep the ~50 checks per estimator fast; the checks themselves do not depend
# on the number of trees.
FAST_PARAMS = {"n_estimators": 5, "random_state": 0}

# {estimator class name: {check name: reason}}. Keep this as short as possible: an entry is
# either inherent to the method (and then scikit-learn marks the same check on its own estimator)
# or a known gap to close.
_BOOTSTRAP_IS_NOT_WEIGHTING = (
    "a bootstrap draw over n weighted rows is not the draw over the rows repeated, so the "
    "fitted forests differ; scikit-learn marks the same check on its own RandomForest*"
)
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "RandomForestClassifier": {
        "check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP_IS_NOT_WEIGHTING,
        "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP_IS_NOT_WEIGHTING,
    },
    "RandomForestRegressor": {
        "check_sample_weight_equivalence_on_dense_data": _BOOTSTRAP_IS_NOT_WEIGHTING,
        "check_sample_weight_equivalence_on_sparse_data": _BOOTSTRAP_IS_NOT_WEIGHTING,
    },
}


def _fast_instance(cls):
    estimator = cls()
    params = estimator.get_params()
    fast = {k: v for k, v in FAST_PARAMS.items() if k in params}
    fast.update(getattr(cls, "_fast_check_params", {}))
    return estimator.set_params(**fast)


def _expected_failed_checks(estimator):
    return {**EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}),
            **getattr(type(estimator), "_xfail_checks", {})}


def test_all_estimators_lists_the_core_estimators():
    estimators = forestzoo.all_estimators()
    names = [name for name, _ in estimators]
    assert len(names) == len(set(names)), "all_estimators() lists a name twice"
    for name, cls in estimators:
        assert getattr(forestzoo, name) is cls, f"{name} is not exported as forestzoo.{name}"
        assert issubclass(cls, BaseEstimator)
    core = {
        "DecisionTreeClassifier",
        "DecisionTreeRegressor",
        "RandomForestClassifier",
        "RandomForestRegressor",
        "ExtraTreesClassifier",
        "ExtraTreesRegressor",
    }
    assert core <= set(names)


@parametrize_with_checks(
    [_fast_instance(cls) for _, cls in forestzoo.all_estimators()],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
