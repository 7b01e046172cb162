"""Behaviour that code written for scikit-learn's trees and forests relies on."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from sklearn.base import clone

from forestzoo import (
    DecisionTreeClassifier, DecisionTreeRegressor, GradientBoostingClassifier, RandomForestClassifier, RandomForestRegressor,
)


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


@pytest.mark.parametrize("make", [
    lambda: RandomForestClassifier(n_estimators=3, random_state=0),
    lambda: GradientBoostingClassifier(n_estimators=3, random_state=0),
])
def test_member_trees_refit_and_clone(make):
    """A fitted ensemble's trees carry a random_state their own validation accepts."""
    X, y = make_classification(200, 5, random_state=0)
    est = make().fit(X, y)
    members = np.ravel(est.estimators_)
    for tree in members:
        assert 0 <= tree.random_state < 2**32
        clone(tree).fit(X, y)
        tree.fit(X, y)


def test_forest_is_a_sequence_of_its_trees():
    X, y = make_classification(200, 5, random_state=0)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    assert len(forest) == 4
    assert forest[1] is forest.estimators_[1]
    assert forest[:2] == forest.estimators_[:2]
    assert list(forest) == forest.estimators_
    template = forest.estimator_
    assert isinstance(template, DecisionTreeClassifier) and not hasattr(template, "tree_")
    assert template.get_params()["max_features"] == forest.max_features
    assert isinstance(forest.estimator, DecisionTreeClassifier)


def test_callable_oob_score():
    from sklearn.metrics import explained_variance_score, r2_score

    X, y = make_regression(300, 5, noise=1.0, random_state=0)
    plain = RandomForestRegressor(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    custom = RandomForestRegressor(n_estimators=20, oob_score=explained_variance_score, random_state=0).fit(X, y)
    seen = ~np.isnan(plain.oob_prediction_)
    assert plain.oob_score_ == pytest.approx(r2_score(y[seen], plain.oob_prediction_[seen]))
    assert custom.oob_score_ == pytest.approx(explained_variance_score(y[seen], custom.oob_prediction_[seen]))


@pytest.mark.parametrize("max_samples, n_draws", [(250, 250), (1.5, 300), (0.5, 100), (0.333, 66)])
def test_max_samples_as_scikit_learn_reads_it(max_samples, n_draws):
    X, y = make_classification(200, 5, random_state=0)
    forest = RandomForestClassifier(n_estimators=2, max_samples=max_samples, random_state=0).fit(X, y)
    samples = forest.estimators_samples_
    assert all(s.shape == (n_draws,) and s.dtype == np.int32 for s in samples)


def test_bootstrap_messages_are_scikit_learns():
    X, y = make_classification(100, 5, random_state=0)
    with pytest.raises(ValueError, match="Out of bag estimation only available if bootstrap=True"):
        RandomForestClassifier(bootstrap=False, oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="`max_sample` cannot be set if `bootstrap=False`"):
        RandomForestClassifier(bootstrap=False, max_samples=0.5).fit(X, y)
    forest = RandomForestClassifier(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="Warm-start fitting without increasing n_estimators"):
        forest.fit(X, y)


@pytest.mark.parametrize("splitter", ["exact", "random", "hist", "stochastic"])
def test_poisson_criterion(splitter):
    """Poisson trees: scikit-learn's splits with the exact splitter, deviance impurities on every splitter."""
    from sklearn.tree import DecisionTreeRegressor as SkTree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 5))
    y = rng.poisson(np.exp(0.8 * X[:, 0] - 0.5 * X[:, 1])).astype(float)
    tree = DecisionTreeRegressor(criterion="poisson", splitter=splitter, max_depth=4, min_samples_leaf=5,
                                 random_state=0).fit(X, y)
    mean = y.mean()
    half_deviance = np.mean(np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mean), 0.0) - y + mean)
    assert tree.tree_.impurity[0] == pytest.approx(half_deviance, rel=1e-12)
    assert np.all(tree.predict(X) > 0)  # no leaf of zero mean: a split must leave both sides a positive sum
    if splitter == "exact":
        # the same root split and the same predictions but where two candidates of equal cost (an
        # outlier isolated by either of two features) are taken in another order
        sk = SkTree(criterion="poisson", max_depth=4, min_samples_leaf=5, random_state=0).fit(X, y)
        assert (tree.tree_.feature[0], tree.tree_.threshold[0]) == (sk.tree_.feature[0], sk.tree_.threshold[0])
        assert np.mean(np.isclose(tree.predict(X), sk.predict(X), rtol=1e-12)) > 0.99


@pytest.mark.parametrize("splitter", ["exact", "random", "hist"])
@pytest.mark.parametrize("seed", range(3))
def test_poisson_never_splits_off_a_zero_child(splitter, seed):
    """Fully grown Poisson trees on targets with many zeros: no leaf predicts 0.

    A child holding only zero targets gets its sum as the node's minus the
    other child's running sum, a rounding residue of ~1e-15 times the node's
    sum; it must still count as zero (scikit-learn's test_poisson_zero_nodes).
    """
    X, y = make_regression(n_samples=1000, n_features=10, n_informative=6, effective_rank=6,
                           tail_strength=0.6, random_state=seed)
    y[(-1 < y) & (y < 0)] = 0
    y = np.abs(y)
    tree = DecisionTreeRegressor(criterion="poisson", splitter=splitter, random_state=seed).fit(X, y)
    assert np.all(tree.predict(X) > 0)
    Y = np.c_[y, y[::-1]]  # multi-output: each output's children checked
    tree = DecisionTreeRegressor(criterion="poisson", splitter=splitter, random_state=seed).fit(X, Y)
    assert np.all(tree.predict(X) > 0)


def test_poisson_rejects_bad_targets():
    X = np.arange(10.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="negative which is not allowed for Poisson"):
        RandomForestRegressor(criterion="poisson", n_estimators=2).fit(X, np.linspace(-1, 1, 10))
    with pytest.raises(ValueError, match="Sum of y is not positive"):
        DecisionTreeRegressor(criterion="poisson").fit(X, np.zeros(10))
    # before the lengths of X and y are compared, as scikit-learn orders its checks
    with pytest.raises(ValueError, match="y is not positive.*Poisson"):
        DecisionTreeRegressor(criterion="poisson").fit([[0, 1, 2]], [0, 0, 0])
    with pytest.raises(ValueError, match="consistent numbers of samples"):
        DecisionTreeRegressor(criterion="poisson").fit([[0, 1, 2]], [1, 2, 3])


def test_scalar_sample_weight_gets_scikit_learns_type_error():
    X, y = make_classification(20, 5, random_state=0)
    with pytest.raises(TypeError, match="Input should have at least 1 dimension"):
        DecisionTreeClassifier().fit(X, y, sample_weight=np.array(0))


@pytest.mark.parametrize("max_samples, expected", [(None, 200), (50, 50), (1.5, 300)])
def test_n_samples_bootstrap_as_scikit_learn_names_it(max_samples, expected):
    X, y = make_classification(200, 5, random_state=0)
    forest = RandomForestClassifier(n_estimators=2, max_samples=max_samples, random_state=0).fit(X, y)
    assert forest._n_samples_bootstrap == expected
    assert RandomForestClassifier(n_estimators=2, bootstrap=False).fit(X, y)._n_samples_bootstrap is None


def test_friedman_mse_is_squared_error_with_a_deprecation_warning():
    X, y = make_regression(200, 4, random_state=0)
    with pytest.warns(FutureWarning, match="friedman_mse"):
        forest = RandomForestRegressor(n_estimators=3, criterion="friedman_mse", random_state=0)
    assert forest.get_params()["criterion"] == "squared_error"
    with pytest.warns(FutureWarning, match="friedman_mse"):
        tree = DecisionTreeRegressor(criterion="friedman_mse", random_state=0)
    plain = DecisionTreeRegressor(random_state=0).fit(X, y)
    np.testing.assert_array_equal(tree.fit(X, y).predict(X), plain.predict(X))


def test_best_is_the_exact_splitter():
    X, y = make_classification(300, 6, random_state=0)
    best = RandomForestClassifier(n_estimators=3, splitter="best", random_state=0).fit(X, y)
    exact = RandomForestClassifier(n_estimators=3, splitter="exact", random_state=0).fit(X, y)
    np.testing.assert_array_equal(best.predict_proba(X), exact.predict_proba(X))
    tree = DecisionTreeRegressor(splitter="best", random_state=0).fit(X, y)
    np.testing.assert_array_equal(tree.predict(X), DecisionTreeRegressor(random_state=0).fit(X, y).predict(X))


@pytest.mark.parametrize("splitter", ["exact", "hist", "random"])
def test_nan_unseen_in_training_goes_to_the_larger_child_right_on_a_tie(splitter):
    from sklearn.tree import DecisionTreeRegressor as SkTree

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    tree = DecisionTreeRegressor(splitter=splitter, max_depth=1, random_state=0).fit(X, y)
    assert tree.tree_.node_count == 3
    assert tree.predict([[np.nan]])[0] == tree.predict([[3.0]])[0]
    if splitter == "exact":
        assert tree.predict([[np.nan]])[0] == SkTree(max_depth=1, random_state=0).fit(X, y).predict([[np.nan]])[0]
    if splitter != "random":  # (a random threshold may put either row count on the left)
        unequal = DecisionTreeRegressor(splitter=splitter, max_depth=1, random_state=0).fit(X[:3], [0.0, 1.0, 1.0])
        assert unequal.predict([[np.nan]])[0] == 1.0  # two rows right, one left


@pytest.mark.parametrize("name", ["RandomForestClassifier", "ExtraTreesRegressor"])
@pytest.mark.parametrize("bootstrap", [True, False])
def test_trees_random_states_and_bootstrap_samples_are_scikit_learns(name, bootstrap):
    """Same random_state: scikit-learn's per-tree random states and bootstrap rows; a tree refitted on its rows
    (clone of the member tree, the rows repeated) is the forest's tree."""
    import sklearn.ensemble

    import forestzoo

    X, y = make_classification(200, 10, random_state=1)
    params = dict(n_estimators=6, max_features=0.5, bootstrap=bootstrap, max_samples=0.5 if bootstrap else None,
                  random_state=7)
    ours = getattr(forestzoo, name)(**params).fit(X, y)
    ref = getattr(sklearn.ensemble, name)(**params).fit(X, y)
    assert [e.random_state for e in ours.estimators_] == [e.random_state for e in ref.estimators_]
    for a, b in zip(ours.estimators_samples_, ref.estimators_samples_):
        np.testing.assert_array_equal(a, b)
    for tree, rows in zip(ours.estimators_, ours.estimators_samples_):
        refit = clone(tree).fit(X[rows], y[rows])
        np.testing.assert_array_equal(refit.tree_.feature, tree.tree_.feature)
        np.testing.assert_allclose(refit.tree_.value, tree.tree_.value)


def _is_preorder(tree_):
    left, right = tree_.children_left, tree_.children_right
    order, stack = [], [0]
    while stack:
        k = stack.pop()
        order.append(k)
        if left[k] != -1:
            stack += [right[k], left[k]]
    return order == list(range(tree_.node_count))


@pytest.mark.parametrize("splitter", ["exact", "hist", "random"])
def test_nodes_are_numbered_depth_first_as_scikit_learn_numbers_them(splitter):
    X, y = make_classification(400, 6, random_state=0)
    for Estimator, target in ((DecisionTreeClassifier, y), (DecisionTreeRegressor, X[:, 0] + y)):
        tree = Estimator(splitter=splitter, max_features=3, random_state=0).fit(X, target)
        assert _is_preorder(tree.tree_)
        leaves = tree.apply(X)
        np.testing.assert_array_equal(tree.tree_.children_left[leaves], -1)
        np.testing.assert_allclose(tree.tree_.value[leaves, 0, :].squeeze(), tree.predict_proba(X)[:, :]
                                   if Estimator is DecisionTreeClassifier else tree.predict(X))
    forest = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, np.c_[y, X[:, 1]])  # multi-output
    assert all(_is_preorder(e.tree_) for e in forest.estimators_)
    # every feature a candidate, depth 5 (no two splits of equal gain in these nodes): scikit-learn's tree,
    # array for array (deeper, nodes with tied gains break the tie by each library's own random order)
    import sklearn.tree

    ours = DecisionTreeClassifier(splitter="exact", max_depth=5, random_state=0).fit(X, y)
    ref = sklearn.tree.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    for name in ("children_left", "children_right", "feature"):
        np.testing.assert_array_equal(getattr(ours.tree_, name), getattr(ref.tree_, name))
    np.testing.assert_allclose(ours.tree_.threshold, ref.tree_.threshold)
