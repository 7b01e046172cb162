"""Competence-area forests (Donskoy 2016): MDL rule, chain, strategies, rejection."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier as SkTree

from forestzoo import CompetenceForestClassifier
from forestzoo.competence import GAMMA_GRID, mdl_threshold


def _blobs(n=300, d=5, seed=0, noise=0.15):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = ((X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.8)).astype(int)
    flip = rng.rand(n) < noise
    y[flip] = rng.randint(0, 3, flip.sum())
    return X, y


# -- the MDL rule against a naive grower that stops during growth -----------------------

def _naive_smart_tree(X, y, idx, gamma, n_features):
    """Grow with the rule of Section 4 while growing; best split from a scikit-learn stump."""
    counts = np.bincount(y[idx], minlength=y.max() + 1)
    q = idx.size - counts.max()
    if q == 0:
        return {"leaf": True, "competent": True, "cls": int(np.argmax(counts))}
    stump = SkTree(max_depth=1, random_state=0).fit(X[idx], y[idx])
    if stump.tree_.node_count == 1:
        return {"leaf": True, "competent": False}
    f, t = stump.tree_.feature[0], stump.tree_.threshold[0]
    go_left = X[idx, f] <= t
    li, ri = idx[go_left], idx[~go_left]
    q_after = sum(s.size - np.bincount(y[s]).max() for s in (li, ri))
    threshold = gamma * np.log2(n_features) / np.log2(idx.size)
    if q - q_after < threshold - 1e-9:
        return {"leaf": True, "competent": False}
    return {"leaf": False, "f": f, "t": t,
            "l": _naive_smart_tree(X, y, li, gamma, n_features),
            "r": _naive_smart_tree(X, y, ri, gamma, n_features)}


def _naive_answer(node, x):
    while not node["leaf"]:
        node = node["l"] if x[node["f"]] <= node["t"] else node["r"]
    return node["competent"], node.get("cls", -1)


def _count(node):
    return 1 if node["leaf"] else 1 + _count(node["l"]) + _count(node["r"])


@pytest.mark.parametrize("gamma", [0.3, 1.0, 3.0])
def test_pruned_engine_tree_equals_growing_with_the_rule(gamma):
    X, y = _blobs(seed=1)
    X = X.astype(np.float32)
    clf = CompetenceForestClassifier(gamma=gamma, max_estimators=1, random_state=0).fit(X, y)
    ref = _naive_smart_tree(X, y, np.arange(len(y)), gamma, X.shape[1])
    assert clf.trees_[0].node_count == _count(ref)
    n_incompetent = sum(1 for _ in _leaves(ref) if not _["competent"])
    assert clf.incompetent_[0].sum() == n_incompetent
    # the training rows: same competence and class (q_t and Delta q are computed on them)
    _assert_same_answers(clf, ref, X, exact=True)
    # unseen rows: the same up to equally good splits with other thresholds (ties in small nodes)
    _assert_same_answers(clf, ref, np.random.RandomState(5).normal(size=(400, X.shape[1])).astype(np.float32))


def _leaves(node):
    if node["leaf"]:
        yield node
    else:
        yield from _leaves(node["l"])
        yield from _leaves(node["r"])


def _assert_same_answers(clf, ref, X, exact=False):
    competent = clf.competence(X)[:, 0]
    answers = [_naive_answer(ref, x) for x in X]
    leaves = clf.trees_[0].apply(X)
    cls = np.where(competent, np.argmax(clf.trees_[0].values[leaves], axis=1), -1)
    expected = np.array([a[1] if a[0] else -1 for a in answers])
    agreement = np.mean(cls == expected)
    assert agreement == 1.0 if exact else agreement >= 0.97


def test_threshold_formula_and_class_leaves_are_pure():
    assert mdl_threshold(2.0, 8, [16.0])[0] == pytest.approx(2.0 * 3 / 4)
    assert np.isinf(mdl_threshold(1.0, 8, [1.0])[0])
    X, y = _blobs(seed=2)
    clf = CompetenceForestClassifier(gamma=1.0, random_state=0).fit(X, y)
    for tree, inc in zip(clf.trees_, clf.incompetent_):
        leaves = tree.nodes["left"] == -1
        assert not np.any(inc & ~leaves), "only leaves can be incompetence areas"
        class_leaves = leaves & ~inc
        assert np.allclose(tree.values[class_leaves].max(axis=1), 1.0), "class leaves must be pure"


def test_next_tree_is_grown_on_the_rows_of_the_incompetence_areas():
    X, y = _blobs(n=400, seed=3, noise=0.3)
    clf = CompetenceForestClassifier(gamma=0.5, max_features="sqrt", patience=20, random_state=0).fit(X, y)
    assert clf.n_estimators_ >= 2
    comp = clf.competence(X)
    for j in range(1, clf.n_estimators_):
        remaining = ~comp[:, :j].any(axis=1)
        assert clf.trees_[j].nodes["n_samples"][0] == remaining.sum()
    assert clf.coverage_ == pytest.approx(comp.any(axis=1).mean())
    assert clf.reject_rate_ == pytest.approx(1 - clf.coverage_)
    assert clf.n_nodes_ == sum(t.node_count for t in clf.trees_)


def test_strategies_against_naive_combination():
    X, y = _blobs(n=400, seed=4, noise=0.3)
    X_test, _ = _blobs(n=200, seed=9)
    kw = dict(gamma=0.5, max_features="sqrt", patience=20, random_state=0)
    first = CompetenceForestClassifier(strategy="first_competent", reject="nan", **kw).fit(X, y)
    vote = CompetenceForestClassifier(strategy="weighted_vote", reject="nan", **kw).fit(X, y)
    assert first.n_estimators_ == vote.n_estimators_ >= 2
    X32 = X_test.astype(np.float32)
    comp = first.competence(X_test)
    trees = first.trees_
    n_o = len(trees)
    expected_first, expected_vote = [], []
    for i in range(len(X_test)):
        if not comp[i].any():
            expected_first.append(-1)
            expected_vote.append(np.full(3, np.nan))
            continue
        j = int(np.argmax(comp[i]))
        leaf = trees[j].apply(X32[i:i + 1])[0]
        expected_first.append(first.classes_[np.argmax(trees[j].values[leaf])])
        votes = np.zeros(3)
        for j, tree in enumerate(trees):
            if comp[i, j]:
                leaf = tree.apply(X32[i:i + 1])[0]
                lam = max(tree.nodes["depth"][leaf], 1)
                votes[np.argmax(tree.values[leaf])] += n_o / ((j + 1) * lam)  # W_j = N_o / (N_j lambda_j)
        expected_vote.append(votes / votes.sum())
    np.testing.assert_array_equal(first.predict(X_test), expected_first)
    np.testing.assert_allclose(vote.predict_proba(X_test), np.array(expected_vote))


# -- rejection and degenerate forests ------------------------------------------------------

def test_all_reject_forest():
    X, y = _blobs(seed=5)
    with pytest.warns(UserWarning, match="No tree of the forest is competent anywhere: with gamma=1e"):
        clf = CompetenceForestClassifier(gamma=1e6, reject="nan", reject_label=-7).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.coverage_ == 0.0 and clf.reject_rate_ == 1.0
    assert np.all(clf.predict(X) == -7)
    assert np.isnan(clf.predict_proba(X)).all()
    with pytest.warns(UserWarning):
        fb = CompetenceForestClassifier(gamma=1e6, reject="fallback").fit(X, y)
    # the fallback of a one-leaf forest is the class frequencies of the training set
    np.testing.assert_allclose(fb.predict_proba(X[:3]), np.tile(np.bincount(y) / len(y), (3, 1)))


def test_reject_label_must_not_be_a_class():
    X, y = _blobs(seed=6)
    with pytest.raises(ValueError, match="reject_label=1 is one of the classes"):
        CompetenceForestClassifier(gamma=1.0, reject="nan", reject_label=1).fit(X, y)
    # string classes get an object array with the reject label
    clf = CompetenceForestClassifier(gamma=1e6, reject="nan", reject_label="?")
    with pytest.warns(UserWarning):
        clf.fit(X, np.array(["a", "b", "c"])[y])
    assert list(clf.predict(X[:2])) == ["?", "?"]


def test_forest_without_incompetence_leaves():
    # one feature: log2(n) = 0, every split passes and every leaf ends pure
    X = np.arange(12, dtype=float).reshape(-1, 1)
    y = np.array([0, 0, 1, 1, 1, 0, 0, 2, 2, 2, 1, 1])
    for strategy in ("first_competent", "weighted_vote"):
        clf = CompetenceForestClassifier(strategy=strategy, gamma=1.0, reject="nan").fit(X, y)
        assert clf.n_estimators_ == 1 and not clf.incompetent_[0].any()
        assert clf.coverage_ == 1.0
        np.testing.assert_array_equal(clf.predict(X), y)


@pytest.mark.parametrize("gamma", [0.0, -1.0])
def test_gamma_must_be_positive(gamma):
    X, y = _blobs(seed=7)
    with pytest.raises(ValueError, match="'gamma' parameter"):
        CompetenceForestClassifier(gamma=gamma).fit(X, y)


def test_failed_fit_keeps_previous_model():
    X, y = _blobs(seed=8)
    clf = CompetenceForestClassifier(gamma=1.0, random_state=0).fit(X, y)
    before = clf.predict_proba(X)
    trees = clf.trees_
    with pytest.raises(ValueError):
        clf.fit(X[:, :3], y[:-1])
    with pytest.raises(ValueError, match="reject_label"):
        clf.set_params(reject="nan", reject_label=0).fit(X, y)
    clf.set_params(reject="fallback")
    assert clf.trees_ is trees
    np.testing.assert_array_equal(clf.predict_proba(X), before)


# -- gamma="auto", determinism, accuracy ---------------------------------------------------

def test_auto_gamma_is_deterministic_across_n_jobs():
    X, y = load_iris(return_X_y=True)
    a = CompetenceForestClassifier(n_jobs=1, random_state=3).fit(X, y)
    b = CompetenceForestClassifier(n_jobs=2, random_state=3).fit(X, y)
    assert a.gamma_ in GAMMA_GRID and set(a.cv_scores_) == set(GAMMA_GRID)
    assert a.gamma_ == b.gamma_ and a.cv_scores_ == b.cv_scores_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_accuracy_floor_on_a_real_dataset():
    from forestzoo.datasets import load_dataset

    X, y = load_dataset("breast_cancer_wisconsin_diag")
    scores = []
    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
        clf = CompetenceForestClassifier(random_state=0).fit(X[train], y[train])
        scores.append(clf.score(X[test], y[test]))
    assert np.mean(scores) > 0.88  # chance is 0.63


def test_first_competent_covered_accuracy_is_high():
    X, y = load_iris(return_X_y=True)
    clf = CompetenceForestClassifier(strategy="first_competent", reject="nan", gamma=1.0, random_state=0)
    pred = clf.fit(X[::2], y[::2]).predict(X[1::2])
    covered = pred != -1
    assert covered.mean() > 0.5
    assert (pred[covered] == y[1::2][covered]).mean() > 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN rows must not trigger numpy warnings
        clf.predict_proba(X)
