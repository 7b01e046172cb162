"""Selective classification: coverage, accuracy on the covered objects, risk-coverage curves.

A selective classifier answers some objects and rejects the others
(El-Yaniv & Wiener, "On the foundations of noise-free selective
classification", JMLR 2010): its coverage is the share of objects it
answers and its selective risk the error rate on them.  A competence
forest rejects the objects outside every tree's competence area; a
classifier with class probabilities becomes one by answering only the
objects whose highest probability reaches a threshold, and sweeping the
threshold gives its risk-coverage curve (Geifman & El-Yaniv, "Selective
classification for deep neural networks", NeurIPS 2017).
"""

import math

import numpy as np


def selective_scores(correct, covered, sample_weight=None):
    """Coverage and accuracies of a selective classifier from per-object outcomes.

    Parameters
    ----------
    correct : array-like of bool, shape (n_samples,)
        Whether the answer (the fallback's for a rejected object) is right.
    covered : array-like of bool, shape (n_samples,)
        Whether the classifier answers the object (False: rejected).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each object; None weighs them equally.

    Returns
    -------
    dict
        ``coverage``, ``selective_accuracy``, ``selective_risk``,
        ``fallback_accuracy``, ``accuracy_with_fallback``,
        ``fallback_share`` and ``n_covered`` (see
        :meth:`CompetenceForestClassifier.selective_report`).

    Examples
    --------
    >>> from forestzoo import selective_scores
    >>> scores = selective_scores([True, True, False, True], [True, True, True, False])
    >>> scores["coverage"], round(scores["selective_accuracy"], 3), scores["fallback_accuracy"]
    (0.75, 0.667, 1.0)
    """
    correct = np.asarray(correct, dtype=bool)
    covered = np.asarray(covered, dtype=bool)
    w = np.ones(correct.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    total = w.sum()
    wc, wr = w[covered].sum(), w[~covered].sum()
    acc = float(np.dot(w[covered], correct[covered]) / wc) if wc > 0 else math.nan
    return {
        "coverage": float(wc / total),
        "selective_accuracy": acc,
        "selective_risk": 1.0 - acc,
        "fallback_accuracy": float(np.dot(w[~covered], correct[~covered]) / wr) if wr > 0 else math.nan,
        "accuracy_with_fallback": float(np.dot(w, correct) / total),
        "fallback_share": float(wr / total),
        "n_covered": int(covered.sum()),
    }


def risk_coverage_curve(confidence, correct):
    """Coverage and accuracy of answering only the most confident objects, for every threshold.

    Objects are answered in order of decreasing ``confidence`` (ties in
    their given order); point ``k`` answers the ``k + 1`` most confident.

    Parameters
    ----------
    confidence : array-like of shape (n_samples,)
        E.g. the highest class probability of each object.
    correct : array-like of bool, shape (n_samples,)
        Whether the answer to the object is right.

    Returns
    -------
    coverage, accuracy : ndarray of shape (n_samples,)
        ``coverage[k] = (k + 1) / n`` and the accuracy on those objects.

    Examples
    --------
    >>> from forestzoo import risk_coverage_curve
    >>> coverage, accuracy = risk_coverage_curve([0.9, 0.6, 0.8, 0.7], [True, False, True, True])
    >>> coverage.tolist(), accuracy.tolist()
    ([0.25, 0.5, 0.75, 1.0], [1.0, 1.0, 1.0, 0.75])
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    if confidence.shape != correct.shape or confidence.ndim != 1 or confidence.shape[0] == 0:
        raise ValueError("confidence and correct must be 1-D arrays of the same, non-zero length.")
    order = np.argsort(-confidence, kind="stable")
    k = np.arange(1, confidence.shape[0] + 1)
    return k / confidence.shape[0], np.cumsum(correct[order]) / k


def accuracy_at_coverage(confidence, correct, coverage):
    """Accuracy on the ``ceil(coverage * n)`` most confident objects (at least one).

    Parameters
    ----------
    confidence : array-like of shape (n_samples,)
        E.g. the highest class probability of each object.
    correct : array-like of bool, shape (n_samples,)
        Whether the answer to the object is right.
    coverage : float in (0, 1]
        Share of the objects answered, the most confident first.

    Returns
    -------
    float
        The accuracy on the answered objects.

    Examples
    --------
    >>> from forestzoo import accuracy_at_coverage
    >>> accuracy_at_coverage([0.9, 0.6, 0.8, 0.7], [True, False, True, True], 0.5)
    1.0
    >>> accuracy_at_coverage([0.9, 0.6, 0.8, 0.7], [True, False, True, True], 1.0)
    0.75
    """
    cov, acc = risk_coverage_curve(confidence, correct)
    k = min(max(int(math.ceil(coverage * cov.shape[0] - 1e-9)), 1), cov.shape[0])
    return float(acc[k - 1])
