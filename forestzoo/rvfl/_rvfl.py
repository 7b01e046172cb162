"""Random vector functional link network (Pao, Park & Sobajic 1994) as a scikit-learn classifier.

An RVFL maps the (standardised) input ``x`` through ``N`` hidden units
with random, fixed weights and biases, ``h = g(x W + c)``, concatenates
``[x, h, 1]`` (the *direct links* from the input to the output, and an
output bias) into ``d``, and fits only the output weights ``beta`` by ridge
regression on one-hot targets, in closed form (lecture, "Ensemble of
decision trees with RVFL", RVFL configuration):

* ``W`` uniform in ``[-S, S]``, ``c`` uniform in ``[0, S]``;
* ``beta = (D' Q D + lambda I)^-1 D' Q Y`` (primal) or ``beta = D' (D D' +
  lambda Q^-1)^-1 Y`` (dual), ``Q`` the diagonal of sample weights and
  ``lambda = (1/2)^C``; the smaller of the two systems is solved, so a
  network with more hidden units than samples solves an ``n x n`` system.

The functions :func:`fit_rvfl` / :func:`rvfl_scores` work on arrays and
serve :class:`RVFLClassifier` and the RVFL + forest hybrids.
"""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._validation import check_fit_data, check_predict_data, keep_state_on_error

__all__ = ["RVFLClassifier", "fit_rvfl", "rvfl_scores", "ACTIVATIONS"]


def _radbas(z):
    return np.exp(-z * z)


def _tribas(z):
    return np.maximum(1.0 - np.abs(z), 0.0)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # 1 / (1 + exp(-z)) without overflow


def _relu(z):
    return np.maximum(z, 0.0)


#: The hidden units' activation functions, by the MATLAB names the lecture uses.
ACTIVATIONS = {"radbas": _radbas, "sine": np.sin, "tribas": _tribas, "sigmoid": _sigmoid, "relu": _relu}


def _design(model, X):
    """``D = [z, g(z W + c), 1]`` for the standardised input ``z``."""
    mean, scale, W, c, activation, direct, _ = model
    Z = (np.asarray(X, dtype=np.float64) - mean) / scale
    H = ACTIVATIONS[activation](Z @ W + c)
    parts = ([Z] if direct else []) + [H, np.ones((Z.shape[0], 1))]
    return np.hstack(parts)


def standardizer(X, w):
    """Weighted column means and standard deviations of ``X`` (a constant column gets scale 1)."""
    mean = np.average(X, axis=0, weights=w)
    std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
    std[std <= 0] = 1.0
    return mean, std


def fit_rvfl(X, Y, sample_weight, n_hidden, activation, scale, C, direct_link, rng):
    """Fit an RVFL on the rows of ``X`` with positive weight; returns the model tuple.

    ``Y`` is the (n, K) target matrix (one-hot for classification).  The
    model is ``(mean, scale, W, c, activation, direct_link, beta)``.
    """
    keep = sample_weight > 0
    X, Y, q = np.asarray(X, dtype=np.float64)[keep], Y[keep], sample_weight[keep]
    mean, std = standardizer(X, q)
    d = X.shape[1]
    W = rng.uniform(-scale, scale, (d, n_hidden))
    c = rng.uniform(0.0, scale, n_hidden)
    model = (mean, std, W, c, activation, bool(direct_link), None)
    D = _design(model, X)
    lam = 0.5 ** C
    n, p = D.shape
    if n >= p:  # primal: (D'QD + lambda I) beta = D'QY, a p x p system
        DQ = D * q[:, None]
        A = DQ.T @ D
        A[np.diag_indices_from(A)] += lam
        beta = scipy.linalg.solve(A, DQ.T @ Y, assume_a="pos")
    else:  # dual: beta = D' alpha with (DD' + lambda Q^-1) alpha = Y, an n x n system
        A = D @ D.T
        A[np.diag_indices_from(A)] += lam / q
        beta = D.T @ scipy.linalg.solve(A, Y, assume_a="pos")
    return model[:-1] + (beta,)


def rvfl_scores(model, X):
    """Output scores ``D beta``, shape (n_samples, n_outputs)."""
    return _design(model, X) @ model[-1]


def _reject_nan(X, name):
    if np.isnan(X).any():
        raise ValueError(f"Input X contains NaN; {name} does not accept missing values "
                         "(impute them first, e.g. with sklearn.impute.SimpleImputer).")


class RVFLClassifier(ClassifierMixin, BaseEstimator):
    """Random vector functional link (RVFL) network classifier.

    The inputs are standardised, passed through ``n_hidden`` random
    hidden units (weights uniform in ``[-scale, scale]``, biases in ``[0,
    scale]``), and the output weights over ``[inputs, hidden units, 1]`` are
    fitted by ridge regression on one-hot targets in closed form, with
    ``lambda = (1/2)**C`` (primal or dual form, whichever system is
    smaller).

    Parameters
    ----------
    n_hidden : int, default=100
        Hidden units ``N`` (the lecture tunes ``N`` in 3..203).
    activation : {"radbas", "sine", "tribas", "sigmoid", "relu"}, default="relu"
        ``exp(-z^2)``, ``sin z``, ``max(1 - |z|, 0)``, ``1 / (1 + exp(-z))``, ``max(z, 0)``.
        The default was chosen by 3-fold CV of the untuned network on data
        outside the lecture's benchmark (sklearn digits, a synthetic 5-class
        problem), where relu beat sigmoid and radbas by 1-8 points.
    scale : float, default=1.0
        ``S``: range of the random weights ``[-S, S]`` and biases ``[0, S]``
        (the lecture tunes ``S = 2^t``, ``t`` in -1.5..1.5).
    C : float, default=0.0
        Ridge penalty exponent: ``lambda = (1/2)**C`` (the squared errors
        are weighted by the sample weights; the lecture tunes ``C`` in
        -5..14).
    direct_link : bool, default=True
        Connect the inputs to the outputs (the "functional link").
    random_state : int, RandomState or None, default=None
        Draws the hidden layer.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray, if X had string column names
    model_ : tuple
        ``(mean, scale, W, biases, activation, direct_link, beta)``.

    See Also
    --------
    RVFLForestClassifier : RVFL + decision-tree ensembles (RFL, obRFL).

    References
    ----------
    Y.-H. Pao, G.-H. Park, D. J. Sobajic, "Learning and generalization characteristics of
    the random vector functional-link net", Neurocomputing 6(2), 1994.
    L. Zhang, P. N. Suganthan, "A comprehensive evaluation of random vector functional link
    networks", Information Sciences 367, 2016.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo.rvfl import RVFLClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> rvfl = RVFLClassifier(n_hidden=50, random_state=0).fit(X, y)
    >>> rvfl.score(X, y) > 0.95
    True
    >>> rvfl.decision_function(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "activation": [StrOptions(set(ACTIVATIONS))],
        "scale": [Interval(Real, 0.0, None, closed="neither")],
        "C": [Interval(Real, None, None, closed="neither")],
        "direct_link": ["boolean"],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"n_hidden": 20}

    def __init__(self, n_hidden=100, *, activation="relu", scale=1.0, C=0.0, direct_link=True,
                 random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.scale = scale
        self.C = C
        self.direct_link = direct_link
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the output weights; a failed fit leaves a previous model intact.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training samples (no missing values).
        y : array-like of shape (n_samples,)
            The class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each sample; None weighs them equally.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with keep_state_on_error(self):
            X, y, sample_weight = check_fit_data(self, X, y, sample_weight, True)
            _reject_nan(X, type(self).__name__)
            classes, codes = np.unique(y, return_inverse=True)
            Y = np.eye(classes.size)[codes]
            model = fit_rvfl(X, Y, sample_weight, self.n_hidden, self.activation, self.scale, self.C,
                             self.direct_link, check_random_state(self.random_state))
            self.classes_ = classes
            self.model_ = model
        return self

    def _scores(self, X):
        X = check_predict_data(self, X)
        _reject_nan(X, type(self).__name__)
        return rvfl_scores(self.model_, X)

    def decision_function(self, X):
        """Output scores (the ridge fit of the one-hot targets).

        With two classes, the difference of the two scores (positive for
        ``classes_[1]``), as scikit-learn expects.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The output scores.
        """
        s = self._scores(X)
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s

    def predict_proba(self, X):
        """Softmax of the output scores: a monotone map, not a calibrated probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Softmax of the output scores, in :attr:`classes_` order.
        """
        s = self._scores(X)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Class of the highest output score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        scores = self._scores(X)  # checks the fit before classes_ is read
        return self.classes_[np.argmax(scores, axis=1)]
