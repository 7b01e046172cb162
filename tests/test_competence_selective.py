"""Competence forests as selective classifiers: reject="label", selective_report, risk-coverage curves."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from forestzoo import CompetenceForestClassifier
from forestzoo.competence import accuracy_at_coverage, risk_coverage_curve, selective_scores


def test_reject_label_is_the_papers_rejection_and_the_report_counts_it():
    X, y = load_iris(return_X_y=True)
    label = CompetenceForestClassifier(strategy="first_competent", reject="label", gamma=1.0, random_state=0)
    fallback = CompetenceForestClassifier(strategy="first_competent", reject="fallback", gamma=1.0, random_state=0)
    label.fit(X[::2], y[::2])
    fallback.fit(X[::2], y[::2])
    pred, pred_fb = label.predict(X[1::2]), fallback.predict(X[1::2])
    covered = pred != -1
    assert 0.3 < covered.mean() < 1.0  # some objects rejected, some answered
    np.testing.assert_array_equal(covered, label.competence(X[1::2]).any(axis=1))
    assert np.isnan(label.predict_proba(X[1::2])[~covered]).all()
    np.testing.assert_array_equal(pred[covered], pred_fb[covered])  # covered objects: the same answers
    report = label.selective_report(X[1::2], y[1::2])
    assert report == fallback.selective_report(X[1::2], y[1::2])  # the report does not depend on reject
    assert report["coverage"] == pytest.approx(covered.mean())
    assert report["selective_accuracy"] == pytest.approx((pred[covered] == y[1::2][covered]).mean())
    assert report["accuracy_with_fallback"] == pytest.approx((pred_fb == y[1::2]).mean())
    assert report["fallback_share"] == pytest.approx(1 - report["coverage"])
    assert report["n_covered"] == covered.sum()
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        label.selective_report(X[1::2], y[1::2][:-1])


def test_selective_scores_by_hand():
    correct = np.array([1, 0, 1, 1, 0, 1], bool)
    covered = np.array([1, 1, 1, 0, 0, 0], bool)
    r = selective_scores(correct, covered)
    assert r["coverage"] == 0.5 and r["selective_accuracy"] == pytest.approx(2 / 3)
    assert r["fallback_accuracy"] == pytest.approx(2 / 3) and r["accuracy_with_fallback"] == pytest.approx(4 / 6)
    w = np.array([1, 1, 2, 0, 0, 4.0])
    r = selective_scores(correct, covered, w)
    assert r["coverage"] == pytest.approx(0.5) and r["selective_accuracy"] == pytest.approx(3 / 4)
    none = selective_scores(correct, np.zeros(6, bool))
    assert none["coverage"] == 0.0 and np.isnan(none["selective_accuracy"])


def test_risk_coverage_curve_answers_the_most_confident_first():
    conf = np.array([0.9, 0.5, 0.99, 0.6, 0.7])
    correct = np.array([1, 0, 1, 0, 1], bool)
    cov, acc = risk_coverage_curve(conf, correct)
    np.testing.assert_allclose(cov, [0.2, 0.4, 0.6, 0.8, 1.0])
    np.testing.assert_allclose(acc, [1, 1, 1, 0.75, 0.6])  # order 0.99, 0.9, 0.7, 0.6, 0.5
    assert accuracy_at_coverage(conf, correct, 0.5) == pytest.approx(1.0)  # ceil(2.5) = 3 objects
    assert accuracy_at_coverage(conf, correct, 0.0) == 1.0  # at least one object
    with pytest.raises(ValueError, match="same, non-zero length"):
        risk_coverage_curve(conf, correct[:-1])
