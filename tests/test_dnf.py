"""Disjunctive normal trees and forests (forestzoo.dnf): conversion, gradient, estimators."""

import time
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import InvalidParameterError

from forestzoo import DecisionTreeClassifier, RandomForestClassifier
from forestzoo.datasets import load_dataset
from forestzoo.dnf import DNDTClassifier, DNRFClassifier, dnf_scores, leaf_paths, tree_to_dnf
from forestzoo.dnf._base import augment
from forestzoo.dnf._kernels import dnf_delta

EXACT_SLOPE = 2.0**40  # a power of two: slope * x and slope * t are exact in float64


# -- naive twins ---------------------------------------------------------------------------------
def naive_scores(dnf, nodes, Xa):
    """Eq. (5) term by term from the explicit literal lists of Eq. (2), in plain Python."""
    leaves, ptr, path_node, path_right = leaf_paths(nodes)
    leaf_pos = {int(leaf): i for i, leaf in enumerate(leaves)}
    out = np.empty((Xa.shape[0], dnf.n_funcs))
    for j in range(dnf.n_funcs):
        units = range(dnf.unit_ptr[j], dnf.unit_ptr[j + 1])
        row_of = {int(dnf.unit_node[u]): u for u in units}
        for b in range(Xa.shape[0]):
            prod_not = 1.0
            for leaf in dnf.term_leaf[dnf.term_ptr[j]:dnf.term_ptr[j + 1]]:
                i = leaf_pos[int(leaf)]
                g = 1.0
                for node, right in zip(path_node[ptr[i]:ptr[i + 1]], path_right[ptr[i]:ptr[i + 1]]):
                    f = 1.0 / (1.0 + np.exp(-Xa[b] @ dnf.weights[row_of[int(node)]]))
                    g *= f if right else 1.0 - f
                prod_not *= 1.0 - g
            out[b, j] = 1.0 - prod_not
    return out


def squared_error(dnf, Xa, y, sw):
    h = dnf_scores(dnf, Xa)
    target = (y[:, None] == dnf.func_class[None, :]).astype(float)
    return float(np.sum(sw[:, None] * (target - h) ** 2))


def analytic_gradient(dnf, Xa, y, sw):
    Z = Xa @ dnf.weights.T
    delta = np.zeros_like(Z)
    loss = np.zeros(dnf.n_funcs)
    dnf_delta(Z, y.astype(np.int64), sw, *dnf.structure(), delta, loss)
    return delta.T @ Xa, loss.sum()


def _small_tree(n_classes, splitter="exact", seed=0, n=300):
    X, y = make_classification(n, 5, n_informative=4, n_redundant=0, n_classes=n_classes, random_state=seed)
    X = X.astype(np.float32)
    tree = DecisionTreeClassifier(splitter=splitter, max_depth=5, random_state=seed).fit(X, y)
    return X, y, tree


def _funcs(n_classes):
    return [1] if n_classes == 2 else list(range(n_classes))


# -- conversion ----------------------------------------------------------------------------------
def test_leaf_paths_follow_the_tree():
    X, _, tree = _small_tree(3)
    nodes = tree.tree_.nodes
    leaves, ptr, path_node, path_right = leaf_paths(nodes)
    assert_array_equal(leaves, np.flatnonzero(nodes["left"] == -1))
    paths = tree.decision_path(X)
    reached = tree.apply(X)
    for row in range(0, X.shape[0], 7):
        i = np.searchsorted(leaves, reached[row])
        visited = paths.indices[paths.indptr[row]:paths.indptr[row + 1]]
        assert_array_equal(np.r_[path_node[ptr[i]:ptr[i + 1]], leaves[i]], visited)
        # went_right: the next node on the path is the right child
        nxt = np.r_[path_node[ptr[i] + 1:ptr[i + 1]], leaves[i]]
        assert_array_equal(path_right[ptr[i]:ptr[i + 1]], nodes["right"][path_node[ptr[i]:ptr[i + 1]]] == nxt)


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_conversion_is_exact_before_any_gradient_step(n_classes, splitter):
    # integer-valued features put training values exactly on hist thresholds: ties must go left
    rng = np.random.RandomState(0)
    X = rng.randint(0, 6, size=(400, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] + rng.randint(0, 3, 400)) % n_classes
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    forest = RandomForestClassifier(5, splitter=splitter, random_state=0).fit(Xtr, ytr)
    for est in forest.estimators_ + [DecisionTreeClassifier(splitter=splitter, random_state=0).fit(Xtr, ytr)]:
        leaf_class = np.argmax(est.tree_.values, axis=1)
        dnf = tree_to_dnf(est.tree_.nodes, leaf_class, 4, _funcs(n_classes), slope=EXACT_SLOPE)
        for part in (Xtr, Xte):
            expected = est.predict(part)
            for hard in (False, True):
                h = dnf_scores(dnf, augment(part), hard=hard)
                got = (h[:, 0] > 0.5).astype(int) if n_classes == 2 else np.argmax(h, axis=1)
                assert_array_equal(got, expected)
                # exactly one term is on: h is the indicator of the predicted class
                if n_classes > 2:
                    assert_allclose(h.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("source", ["forestzoo", "sklearn"])
def test_init_forest_conversion_is_exact_before_any_gradient_step(source):
    """A forest fitted elsewhere, on raw (not z-scored) X, converts exactly: rows on its thresholds included."""
    from sklearn.ensemble import RandomForestClassifier as SkRF

    rng = np.random.RandomState(0)
    X = (rng.randint(0, 6, size=(300, 4)) * 7.3 + 100.0).astype(np.float32)
    y = ((X[:, 0] + X[:, 1]) // 7 + rng.randint(0, 3, 300)) % 3
    cls = RandomForestClassifier if source == "forestzoo" else SkRF
    forest = cls(n_estimators=4, max_depth=6, random_state=0).fit(X, y)
    model = DNRFClassifier(validation_fraction=0.0)
    mean, scale = X.mean(axis=0).astype(np.float64), X.std(axis=0).astype(np.float64) * 3.0
    trees = model._given_trees(forest, np.unique(y), 4, mean, scale, np.arange(300), np.ones(300), 300)
    for (tree, _, _), est in zip(trees, forest.estimators_):
        nodes = est.tree_.nodes if source == "forestzoo" else None
        # rows exactly on every threshold of the tree, and one float32 step above
        split = np.flatnonzero(tree.nodes["left"] >= 0)
        feats = tree.nodes["feature"][split]
        raw = np.asarray(est.tree_.threshold)[split]
        on = np.repeat(X[:1], split.size, axis=0)
        on[np.arange(split.size), feats] = raw.astype(np.float32)
        above = on.copy()
        above[np.arange(split.size), feats] = np.nextafter(on[np.arange(split.size), feats], np.float32(np.inf))
        for part in (X, on, above):
            Xa = augment((part.astype(np.float64) - mean) / scale)
            dnf = tree_to_dnf(tree.nodes, np.argmax(tree.values, axis=1), 4, [0, 1, 2], slope=EXACT_SLOPE,
                              thresholds=tree.nodes["threshold"])
            got = np.argmax(dnf_scores(dnf, Xa, hard=True), axis=1)
            assert_array_equal(got, np.argmax(est.predict_proba(part), axis=1))
        assert nodes is None or nodes["threshold"] is not tree.nodes["threshold"]


def test_dnrf_fine_tunes_a_scikit_learn_forest():
    from sklearn.ensemble import ExtraTreesClassifier as SkET, RandomForestClassifier as SkRF, RandomForestRegressor
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, y = make_moons(300, noise=0.3, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0)
    rf = SkRF(n_estimators=6, random_state=0).fit(Xtr, ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = DNRFClassifier(n_epochs=10, random_state=0).fit(Xtr, ytr, init_forest=rf)
    assert model.n_estimators_ == 6 and model.input_dtype_ == np.float64
    assert type(model.forest_).__module__.startswith("forestzoo.")
    assert model.score(Xte, yte) > 0.85  # the forest: 0.92
    assert_array_equal(model.predict(Xte), model.predict(Xte.astype(np.float32)))
    # an extra-trees forest and a forestzoo forest are accepted too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        DNRFClassifier(n_epochs=2, random_state=0).fit(Xtr, ytr, init_forest=SkET(n_estimators=2).fit(Xtr, ytr))
    with pytest.raises(ValueError, match="the X the forest was fitted on"):
        DNRFClassifier(finetune_samples="tree").fit(Xtr[:-5], ytr[:-5], init_forest=rf)
    with pytest.raises(ValueError, match="estimators_samples_"):
        DNRFClassifier(finetune_samples="tree").fit(Xtr, ytr, init_forest=SkTree(random_state=0).fit(Xtr, ytr))
    with pytest.raises(ValueError, match="features"):
        DNRFClassifier().fit(np.c_[Xtr, Xtr], ytr, init_forest=rf)
    with pytest.raises(ValueError, match="classes"):
        DNRFClassifier().fit(Xtr, ytr, init_forest=SkRF(n_estimators=2).fit(Xtr, ytr + 1))
    with pytest.raises(ValueError, match="classifier"):
        DNRFClassifier().fit(Xtr, ytr, init_forest=RandomForestRegressor(n_estimators=2).fit(Xtr, ytr))
    assert not hasattr(model, "_init_forest")


@pytest.mark.parametrize("source", ["forestzoo", "sklearn"])
def test_init_forest_fine_tunes_each_tree_on_its_own_bootstrap_rows(source):
    """finetune_samples="tree": a given forest's tree is fine-tuned on the training rows of its bootstrap sample,
    each weighted by its multiplicity times its sample weight; the held-out rows stay out."""
    from sklearn.ensemble import RandomForestClassifier as SkRF

    X, y = make_moons(200, noise=0.3, random_state=0)
    cls = RandomForestClassifier if source == "forestzoo" else SkRF
    forest = cls(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    train = np.sort(np.random.RandomState(1).permutation(200)[:150])
    sw = np.random.RandomState(2).uniform(0.5, 2.0, 200)
    model = DNRFClassifier(finetune_samples="tree")
    trees = model._given_trees(forest, np.unique(y), 2, np.zeros(2), np.ones(2), train, sw, 200)
    for (_, rows, weights), drawn in zip(trees, forest.estimators_samples_):
        counts = np.bincount(drawn, minlength=200)
        expected = np.zeros(200)
        expected[train] = counts[train] * sw[train]
        assert_array_equal(rows, train[counts[train] > 0])
        assert_allclose(weights, expected)
        assert rows.size < train.size  # a bootstrap sample leaves rows out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = DNRFClassifier(finetune_samples="tree", n_epochs=3, random_state=0).fit(X, y, init_forest=forest)
    assert fitted.n_estimators_ == 3 and fitted.score(X, y) > 0.8


def test_kernel_matches_the_naive_formula_with_oblique_weights():
    X, y, tree = _small_tree(3)
    dnf = tree_to_dnf(tree.tree_.nodes, np.argmax(tree.tree_.values, axis=1), 5, [0, 1, 2], slope=1.0)
    dnf.weights += 0.3 * np.random.RandomState(1).normal(size=dnf.weights.shape)
    Xa = augment(X[:25])
    assert_allclose(dnf_scores(dnf, Xa), naive_scores(dnf, tree.tree_.nodes, Xa), rtol=1e-12, atol=1e-14)


def test_single_leaf_tree_scores_its_class():
    X = np.zeros((5, 2), np.float32)
    tree = DecisionTreeClassifier().fit(X, [1, 1, 1, 1, 1])
    dnf = tree_to_dnf(tree.tree_.nodes, np.zeros(1, int), 2, [0], slope=1.0)
    assert dnf.n_units == 0
    assert_array_equal(dnf_scores(dnf, augment(X)), 1.0)


# -- gradient ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3])
def test_gradient_matches_finite_differences(n_classes):
    X, y, tree = _small_tree(n_classes, n=200)
    dnf = tree_to_dnf(tree.tree_.nodes, np.argmax(tree.tree_.values, axis=1), 5, _funcs(n_classes), slope=1.0)
    rng = np.random.RandomState(2)
    dnf.weights += 0.2 * rng.normal(size=dnf.weights.shape)  # oblique, as after some training
    Xa = augment(X[:60])
    yy, sw = y[:60], rng.uniform(0.5, 2.0, 60)
    grad, loss = analytic_gradient(dnf, Xa, yy, sw)
    assert loss == pytest.approx(squared_error(dnf, Xa, yy, sw), rel=1e-12)
    eps = 1e-6
    numeric = np.zeros_like(dnf.weights)
    for u in range(dnf.n_units):
        for c in range(dnf.weights.shape[1]):
            w0 = dnf.weights[u, c]
            dnf.weights[u, c] = w0 + eps
            up = squared_error(dnf, Xa, yy, sw)
            dnf.weights[u, c] = w0 - eps
            down = squared_error(dnf, Xa, yy, sw)
            dnf.weights[u, c] = w0
            numeric[u, c] = (up - down) / (2 * eps)
    assert np.abs(grad).max() > 1e-3  # a real gradient, not zeros
    assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


# -- estimators ----------------------------------------------------------------------------------
def _moons(n_train=600, seed=0):
    X, y = make_moons(n_train + 3000, noise=0.3, random_state=seed)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def test_dndt_beats_its_initial_tree_on_moons():
    Xtr, ytr, Xte, yte = _moons()
    dndt = DNDTClassifier(random_state=0).fit(Xtr, ytr)
    cart = dndt.initial_tree_.score((Xte - dndt.mean_) / dndt.scale_, yte)
    assert dndt.score(Xte, yte) > cart + 0.02
    assert dndt.score(Xte, yte) > 0.88
    info = dndt.finetune_info_[0]
    assert info["loss_curve"][-1] < info["loss_curve"][0]  # gradient descent descended


def test_dnrf_accuracy_on_a_real_dataset():
    X, y = load_dataset("breast_cancer_wisconsin_diag")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    clf = DNRFClassifier(n_estimators=20, n_epochs=30, random_state=0, n_jobs=2).fit(Xtr, ytr)
    assert clf.score(Xte, yte) > 0.93  # chance: 0.63


def test_multiclass_prediction_is_the_vote_of_eq_13():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
    clf = DNRFClassifier(n_estimators=7, n_epochs=5, random_state=0).fit(X, y)
    scores = clf.decision_scores(X)
    votes = np.zeros((X.shape[0], 3))
    for s in scores:
        votes[np.arange(X.shape[0]), np.argmax(s, axis=1)] += 1
    assert_array_equal(clf.predict(X), clf.classes_[np.argmax(votes, axis=1)])
    assert_allclose(clf.predict_proba(X), votes / 7)
    soft = clf.set_params(voting="soft").predict_proba(X)
    assert_allclose(soft.sum(axis=1), 1.0)


def test_binary_prediction_is_the_majority_of_thresholded_trees_eq_9():
    Xtr, ytr, Xte, _ = _moons(300)
    clf = DNRFClassifier(n_estimators=6, n_epochs=5, random_state=0).fit(Xtr, ytr)
    positive = (clf.decision_scores(Xte)[:, :, 1] > 0.5).sum(axis=0)
    assert_array_equal(clf.predict(Xte), (positive > 6 / 2).astype(int))


def test_results_do_not_depend_on_n_jobs():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=1)
    a = DNRFClassifier(n_estimators=4, n_epochs=5, random_state=3, n_jobs=1).fit(X, y)
    b = DNRFClassifier(n_estimators=4, n_epochs=5, random_state=3, n_jobs=2).fit(X, y)
    for da, db in zip(a.dnfs_, b.dnfs_):
        assert_array_equal(da.weights, db.weights)
    assert_array_equal(a.set_params(voting="soft").predict_proba(X), b.set_params(voting="soft").predict_proba(X))


def test_sample_weight_is_repetition_for_full_batch_descent():
    X, y = make_classification(120, 4, random_state=0)
    w = np.where(np.arange(120) % 3 == 0, 2.0, 1.0)
    rep = np.repeat(np.arange(120), w.astype(int))
    params = dict(validation_fraction=0.0, batch_size=None, n_epochs=15, random_state=0)
    a = DNDTClassifier(**params).fit(X, y, sample_weight=w)
    b = DNDTClassifier(**params).fit(X[rep], y[rep])
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-6, atol=1e-9)


def test_learning_rate_grid_and_tree_count_use_the_validation_rows():
    Xtr, ytr, _, _ = _moons(400)
    clf = DNRFClassifier(n_estimators=8, n_epochs=8, learning_rate=[0.1, 1.0], init_slope=[1.0, 4.0],
                         select_n_estimators=True, random_state=0).fit(Xtr, ytr)
    assert 1 <= clf.n_estimators_ <= 8 and len(clf.dnfs_) == clf.n_estimators_
    chosen = np.concatenate([info["learning_rate"] for info in clf.finetune_info_])
    assert set(chosen) <= {0.1, 1.0}
    slopes = np.concatenate([info["init_slope"] for info in clf.finetune_info_])
    assert set(slopes) <= {1.0, 4.0}
    # four grid points were tried per tree: more epochs than one point could run
    assert all(info["epochs"] > 8 for info in clf.finetune_info_)


def test_the_kept_validation_loss_is_the_best_over_the_grid():
    Xtr, ytr, _, _ = _moons(400)
    kw = dict(n_epochs=6, random_state=0)
    one = DNDTClassifier(learning_rate=0.1, **kw).fit(Xtr, ytr).finetune_info_[0]
    grid = DNDTClassifier(learning_rate=[0.1, 1.0], **kw).fit(Xtr, ytr).finetune_info_[0]
    # the grid's first point is the single run; a function keeps the second point only if it is better
    assert np.all(np.isfinite(one["validation_loss"]))
    assert np.all(grid["validation_loss"] <= one["validation_loss"])
    assert_array_equal(grid["learning_rate"] == 1.0, grid["validation_loss"] < one["validation_loss"])
    none = DNDTClassifier(validation_fraction=0.0, **kw).fit(Xtr, ytr).finetune_info_[0]
    assert np.all(np.isnan(none["validation_loss"]))


def test_a_fit_cut_off_by_n_epochs_warns_and_one_that_converged_does_not():
    Xtr, ytr, _, _ = _moons(400)
    with pytest.warns(ConvergenceWarning, match="1 of 1 trees stopped at n_epochs=2"):
        short = DNDTClassifier(n_epochs=2, random_state=0).fit(Xtr, ytr)
    assert short.finetune_info_[0]["stopped_at_cap"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        long = DNDTClassifier(n_epochs=500, n_iter_no_change=3, random_state=0).fit(Xtr, ytr)
    info = long.finetune_info_[0]
    assert not info["stopped_at_cap"] and info["epochs"] < 500
    # every function's best epoch is at least n_iter_no_change epochs before the stop
    assert info["best_epoch"].max() <= info["epochs"] - 3
    # no validation rows, or no early stopping: nothing to judge convergence by, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        DNDTClassifier(n_epochs=2, validation_fraction=0.0, random_state=0).fit(Xtr, ytr)
        DNDTClassifier(n_epochs=2, n_iter_no_change=None, random_state=0).fit(Xtr, ytr)


def test_class_only_in_validation_split_does_not_crash():
    X, y = make_classification(60, 4, random_state=0)
    y = np.array(["a", "b", "rare"])[y]
    y[7] = "rare"  # one row: the split keeps it for training, the model still knows the class
    for cls in (DNDTClassifier, DNRFClassifier):
        clf = cls(n_epochs=3, validation_fraction=0.5, random_state=0).fit(X, y)
        assert "rare" in list(clf.classes_)
        assert clf.predict_proba(X).shape == (60, 3)


@pytest.mark.parametrize("cls", [DNDTClassifier, DNRFClassifier])
@pytest.mark.parametrize("param, value, match", [
    ("learning_rate", 0.0, "learning_rate"),
    ("learning_rate", -1.0, "learning_rate"),
    ("learning_rate", [0.1, -0.5], "learning_rate must be a positive"),
    ("n_epochs", 0, "n_epochs"),
    ("init_slope", 0.0, "init_slope"),
    ("init_slope", [1.0, np.inf], "init_slope must be a positive"),
    ("validation_fraction", 1.0, "validation_fraction"),
])
def test_bad_parameters_raise(cls, param, value, match):
    X, y = make_classification(40, 4, random_state=0)
    with pytest.raises((ValueError, InvalidParameterError), match=match):
        cls(**{param: value}).fit(X, y)


@pytest.mark.parametrize("cls", [DNDTClassifier, DNRFClassifier])
def test_nan_is_rejected_and_a_failed_fit_keeps_the_model(cls):
    X, y = make_classification(60, 4, random_state=0)
    clf = cls(n_epochs=3, random_state=0).fit(X, y)
    before = clf.predict_proba(X)
    weights = [d.weights.copy() for d in clf.dnfs_]
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN.*no missing-value path"):
        clf.fit(Xnan, y)
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(Xnan)
    assert_array_equal(clf.predict_proba(X), before)
    for d, w in zip(clf.dnfs_, weights):
        assert_array_equal(d.weights, w)


def test_select_n_estimators_needs_validation():
    X, y = make_classification(40, 4, random_state=0)
    with pytest.raises(ValueError, match="validation_fraction > 0"):
        DNRFClassifier(select_n_estimators=True, validation_fraction=0.0, n_epochs=2).fit(X, y)


def test_dndt_mini_batches_shared_by_threads_give_the_same_weights(monkeypatch):
    # every mini-batch's gradient is the ordered sum of BATCH_PARTS parts, whatever thread computes them
    import forestzoo.dnf._base as base
    import forestzoo.dnf._kernels as kernels
    from forestzoo._threads import n_cores

    syncs = []
    original = base.start_helper

    def start_and_wait(fn, sync, *args):  # the fit starts once the helper is running, so it gets batches
        future = original(fn, sync, *args)
        while sync[kernels._READY] == 0 and not future.done():
            pass
        syncs.append(sync)
        return future

    monkeypatch.setattr(base, "start_helper", start_and_wait)
    X, y = make_classification(600, 6, n_informative=4, n_classes=3, random_state=0)
    fits = [DNDTClassifier(n_epochs=4, max_depth=4, n_jobs=n, random_state=0).fit(X, y) for n in (1, 2)]
    if n_cores() > 1:  # the helper needs a core of its own; on one core both fits run alone
        # only the n_jobs=2 fit has a helper, and it was stopped; whether it won any part 1 is up to the
        # scheduler (test_batch_helper_computes_the_part_it_claims checks that what it computes is right)
        assert len(syncs) == 1
        assert syncs[0][kernels._STOP] == 1
    else:
        assert not syncs
    np.testing.assert_array_equal(fits[0].dnfs_[0].weights, fits[1].dnfs_[0].weights)
    np.testing.assert_array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))
    assert fits[0].finetune_info_[0]["epochs"] == fits[1].finetune_info_[0]["epochs"] > 0


def test_batch_helper_computes_the_part_it_claims():
    # the fit's side of the hand-over, played by hand: post a batch, never claim part 1, wait for the helper
    import forestzoo.dnf._kernels as kernels
    from forestzoo._atomics import store
    from forestzoo._threads import start_helper

    X, y = make_classification(300, 5, n_informative=3, random_state=0)
    dnf = DNDTClassifier(n_epochs=1, max_depth=4, random_state=0).fit(X, y).dnfs_[0]
    Xa = augment(np.asarray(X, np.float64))
    targets = y.astype(np.int64)
    sw = np.linspace(0.5, 1.5, y.size)
    order, grads, losses, sws = kernels.train_scratch(y.size, dnf.weights, dnf.n_funcs)
    order[:] = np.random.RandomState(0).permutation(y.size)
    expected = [a.copy() for a in (grads, losses, sws)]
    kernels.batch_parts(Xa, targets, sw, order, 10, 110, dnf.weights, *dnf.structure(), 32, *expected, 0, 2)
    sync = np.zeros(kernels.SYNC_SIZE, np.int64)
    sync[kernels._B0], sync[kernels._B1] = 10, 110
    helper = start_helper(kernels.batch_helper, sync, Xa, targets, sw, order, dnf.weights, *dnf.structure(), 32,
                          grads, losses, sws)
    try:
        while sync[kernels._READY] == 0 and not helper.done():
            pass
        store(sync, kernels._GEN, 1)
        deadline = time.monotonic() + 60
        while sync[kernels._DONE] != 1 and not helper.done() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert sync[kernels._CLAIM] == 1 and sync[kernels._DONE] == 1
    finally:
        store(sync, kernels.STOP, 1)
        helper.result(timeout=60)
    assert_array_equal(grads[1], expected[0][1])
    assert_array_equal(losses[1], expected[1][1])
    assert_array_equal(sws[1], expected[2][1])
