"""RVFL hyper-parameters chosen by cross-validation, as the lecture tunes them.

The lecture's RVFL configuration ("Ensemble of decision trees with RVFL",
Simulation) tunes, per dataset, the hidden units ``N = 3:203``, the ridge
exponent ``C = -5:14`` (``lambda = (1/2)^C``), the activation (radbas, sine,
tribas) and the range ``S = 2^t``, ``t = -1.5:0.5:1.5``.  That is thousands
of networks per dataset; this search makes them cheap:

* For one activation, scale and fold, the output layer's normal equations
  ``(D'QD + lambda I) beta = D'QY`` of every ``N`` are leading blocks of
  one Gram matrix: the columns are ordered ``[z, 1, h_1, ..., h_Nmax]``, and
  the network with ``N`` hidden units keeps the first ``d + 1 + N``.  The
  Gram matrix is formed once per (activation, scale, fold).
* One eigendecomposition ``D'QD = V diag(s) V'`` per ``N`` gives the ridge
  solution of every ``C`` at once, ``beta_C = V diag(1 / (s + lambda_C))
  V' D'QY``, so the ``C`` grid costs a few small matrix products.  A
  network with more columns than training rows uses the ``n x n`` kernel
  ``Q^(1/2) D D' Q^(1/2)`` instead, which grows with ``N`` by a sum of the
  new hidden units' outer products.
* Within a fold every candidate network draws its hidden weights from the
  same uniform numbers (``W = S U``, ``c = S u``, ``N`` taking the first
  ``N`` columns): common random numbers, so that the comparison between
  configurations is not swamped by the draw of the hidden layer.

The selected configuration is then refitted on all the data as an
:class:`RVFLClassifier` (a fresh hidden layer drawn from ``random_state``).
"""

from numbers import Integral

import numpy as np
import scipy.linalg
import scipy.stats
from joblib import delayed
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state

from .._engine.api import draw_seeds
from .._parallel import Parallel, single_threaded_blas
from .._validation import check_fit_data, check_predict_data, keep_state_on_error
from ._rvfl import ACTIVATIONS, RVFLClassifier, _reject_nan, standardizer

__all__ = ["RVFLClassifierCV", "LECTURE_GRID"]

#: The lecture's search space.  ``N = 3:203`` is searched in steps of 20
#: (the lecture's step is not stated; 201 values would add nothing a step of
#: 20 misses at this resolution of the other parameters).
LECTURE_GRID = {
    "n_hiddens": tuple(range(3, 204, 20)),
    "activations": ("radbas", "sine", "tribas"),
    "scales": tuple(float(2.0 ** t) for t in np.arange(-1.5, 1.51, 0.5)),
    "Cs": tuple(float(c) for c in range(-5, 15)),
}


def _weighted_accuracy(pred, truth, w):
    total = np.sum(w)
    if not total > 0:  # a validation fold of zero-weight rows: count them alike
        return float(np.mean(pred == truth))
    return float(np.sum(w * (pred == truth)) / total)


def _ridge_scores_all_C(A, rhs, cross, lams):
    """``cross @ (A + lambda I)^-1 rhs`` for every ``lambda``, shape (len(lams), n_test, K).

    One eigendecomposition ``A = V diag(s) V'`` serves every penalty.
    """
    evals, V = scipy.linalg.eigh(A, check_finite=False)
    evals = np.maximum(evals, 0.0)  # rounding can leave tiny negative eigenvalues of a PSD matrix
    B = V.T @ rhs  # (m, K)
    M = (B[None, :, :] / (evals[None, :] + lams[:, None])[:, :, None])  # (C, m, K)
    CV = cross @ V  # (n_test, m)
    return np.einsum("tm,cmk->ctk", CV, M, optimize=True)


def _fold_scores(X, codes, sample_weight, train, test, n_classes, n_hiddens, activations, scales, Cs,
                 direct_link, seed):
    """Validation accuracy of every configuration on one fold, shape (activations, scales, n_hiddens, Cs)."""
    out = np.zeros((len(activations), len(scales), len(n_hiddens), len(Cs)))
    truth, w_te = codes[test], sample_weight[test]
    for (a, s, j), scores in _fold_outputs(X, codes, sample_weight, train, test, n_classes, n_hiddens,
                                           activations, scales, Cs, direct_link, seed):
        for c in range(len(Cs)):
            out[a, s, j, c] = _weighted_accuracy(np.argmax(scores[c], axis=1), truth, w_te)
    return out


def _fold_outputs(X, codes, sample_weight, train, test, n_classes, n_hiddens, activations, scales, Cs,
                  direct_link, seed):
    """Yield ``((a, s, j), scores)``: the validation rows' output scores, shape (len(Cs), n_test, K), of
    the networks with activation ``a``, scale ``s`` and ``n_hiddens[j]`` hidden units.

    With ``D`` the training design, ``Q`` the weights and ``lambda`` the
    penalty, the validation scores are ``D_val (D'QD + lambda I)^-1 D'QY``
    (primal, a ``p x p`` system) or, when a network has more columns than
    training rows, the same scores as ``D_val D'Q^(1/2) (Q^(1/2) D D'
    Q^(1/2) + lambda I)^-1 Q^(1/2) Y`` (dual, ``n x n``).  Both matrices
    grow with ``N`` by blocks, so each is updated, not rebuilt.
    """
    w_tr = sample_weight[train]
    keep = w_tr > 0
    train, w_tr = train[keep], w_tr[keep]
    if train.size == 0:
        raise ValueError("A training fold of the cross-validation holds only rows of zero weight; "
                         "use fewer folds or give those rows a positive weight.")
    Xtr = X[train]
    mean, std = standardizer(Xtr, w_tr)  # as fit_rvfl does, so a configuration scores the network it refits
    Ztr, Zte = (Xtr - mean) / std, (X[test] - mean) / std
    sq = np.sqrt(w_tr)
    Y = np.eye(n_classes)[codes[train]]
    n_max = max(n_hiddens)
    rng = np.random.default_rng(seed)
    U = rng.uniform(-1.0, 1.0, (X.shape[1], n_max))  # common random numbers for every configuration
    u = rng.uniform(0.0, 1.0, n_max)
    lams = 0.5 ** np.asarray(Cs, dtype=np.float64)
    n_fixed = X.shape[1] * bool(direct_link) + 1
    n_tr = train.size
    order = np.argsort(n_hiddens, kind="stable")
    for a, act in enumerate(activations):
        g = ACTIVATIONS[act]
        for s, S in enumerate(scales):
            # columns [z, 1, h_1..h_Nmax]: the design of N hidden units is a leading block
            fixed = [Ztr] if direct_link else []
            Dtr = np.hstack(fixed + [np.ones((n_tr, 1)), g(Ztr @ (S * U) + S * u)])
            fixed = [Zte] if direct_link else []
            Dte = np.hstack(fixed + [np.ones((Zte.shape[0], 1)), g(Zte @ (S * U) + S * u)])
            Dq = Dtr * sq[:, None]
            gram = rhs_p = None
            K = Kx = None
            done = 0  # columns already in K and Kx
            for j in order:
                p = n_fixed + n_hiddens[j]
                if p <= n_tr:  # primal: leading block of the Gram matrix
                    if gram is None:
                        gram = Dq.T @ Dq
                        rhs_p = Dq.T @ (Y * sq[:, None])
                    scores = _ridge_scores_all_C(gram[:p, :p], rhs_p[:p], Dte[:, :p], lams)
                else:  # dual: kernels grown by the new hidden units' outer products
                    if K is None:
                        K = np.zeros((n_tr, n_tr))
                        Kx = np.zeros((Dte.shape[0], n_tr))
                    K += Dq[:, done:p] @ Dq[:, done:p].T
                    Kx += Dte[:, done:p] @ Dq[:, done:p].T
                    done = p
                    scores = _ridge_scores_all_C(K, Y * sq[:, None], Kx, lams)
                yield (a, s, j), scores


class RVFLClassifierCV(ClassifierMixin, BaseEstimator):
    """RVFL network whose ``n_hidden``, ``activation``, ``scale`` and ``C`` are chosen by cross-validation.

    Every combination of the four grids is scored by its (sample-weighted)
    validation accuracy, averaged over the folds of ``cv``; the best one is
    refitted on all the data.  The defaults are the lecture's search space
    (:data:`LECTURE_GRID`: 11 hidden-layer sizes x 3 activations x 7 scales
    x 20 penalties = 4,620 networks per fold).  All penalties of a network
    share one eigendecomposition and all hidden-layer sizes share one Gram
    matrix, so the search costs about as much as 21 networks of the largest
    size per fold.

    Parameters
    ----------
    n_hiddens : sequence of int, default=(3, 23, ..., 203)
        Hidden-layer sizes ``N`` to try.
    activations : sequence of str, default=("radbas", "sine", "tribas")
        Activations to try (see :class:`RVFLClassifier`).
    scales : sequence of float, default=2**(-1.5), 2**(-1), ..., 2**1.5
        Ranges ``S`` of the random weights ``[-S, S]`` and biases ``[0, S]``.
    Cs : sequence of float, default=(-5, -4, ..., 14)
        Ridge exponents: ``lambda = (1/2)**C``.
    direct_link : bool, default=True
        Connect the inputs to the outputs.
    cv : int, cross-validation generator or iterable, default=3
        As in :func:`sklearn.model_selection.check_cv`; an integer means
        stratified k-fold.
    n_jobs : int or None, default=None
        Threads over the (fold, activation) pairs; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Draws the hidden layers of the search and of the refitted network.

    Attributes
    ----------
    best_params_ : dict
        ``{"n_hidden", "activation", "scale", "C"}`` of the best mean validation accuracy
        (ties: the first in the order activations, scales, n_hiddens, Cs).
    best_score_ : float
        Its mean validation accuracy.
    best_estimator_ : RVFLClassifier
        The network refitted on all the data with ``best_params_``.
    cv_results_ : dict of ndarray
        ``param_n_hidden``, ``param_activation``, ``param_scale``, ``param_C``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score`` and
        ``rank_test_score``, one entry per configuration.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray, if X had string column names

    See Also
    --------
    RVFLClassifier : One network with given hyper-parameters.
    RVFLForestClassifier : The RFL / obRFL, whose ``tune_rvfl=True`` uses this search.

    References
    ----------
    R. Katuwal, P. N. Suganthan, L. Zhang, "An ensemble of decision trees with random
    vector functional link networks for multi-class classification", Applied Soft
    Computing 70, 2018 (the search space of its RVFLs).

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from forestzoo.rvfl import RVFLClassifierCV
    >>> X, y = load_wine(return_X_y=True)
    >>> search = RVFLClassifierCV(n_hiddens=(10, 50), random_state=0).fit(X, y)
    >>> sorted(search.best_params_)
    ['C', 'activation', 'n_hidden', 'scale']
    >>> len(search.cv_results_["mean_test_score"])  # 2 sizes x 3 activations x 7 scales x 20 penalties
    840
    >>> search.score(X, y) > 0.95
    True
    """

    _parameter_constraints = {
        "n_hiddens": ["array-like"],
        "activations": ["array-like"],
        "scales": ["array-like"],
        "Cs": ["array-like"],
        "direct_link": ["boolean"],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"n_hiddens": (5, 20), "activations": ("sine",), "scales": (1.0,), "Cs": (0.0, 4.0)}

    def __init__(self, n_hiddens=LECTURE_GRID["n_hiddens"], *, activations=LECTURE_GRID["activations"],
                 scales=LECTURE_GRID["scales"], Cs=LECTURE_GRID["Cs"], direct_link=True, cv=3, n_jobs=None,
                 random_state=None):
        self.n_hiddens = n_hiddens
        self.activations = activations
        self.scales = scales
        self.Cs = Cs
        self.direct_link = direct_link
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _grids(self):
        n_hiddens = [int(n) for n in np.ravel(self.n_hiddens)]
        activations = [str(a) for a in np.ravel(np.asarray(self.activations, dtype=object))]
        scales = [float(s) for s in np.ravel(self.scales)]
        Cs = [float(c) for c in np.ravel(self.Cs)]
        for name, grid in (("n_hiddens", n_hiddens), ("activations", activations), ("scales", scales),
                           ("Cs", Cs)):
            if not grid:
                raise ValueError(f"{name} is empty; give at least one value to try.")
        if any(n < 1 for n in n_hiddens):
            raise ValueError(f"n_hiddens must hold integers >= 1, got {list(self.n_hiddens)!r}.")
        unknown = sorted(set(activations) - set(ACTIVATIONS))
        if unknown:
            raise ValueError(f"Unknown activations {unknown}; accepted: {', '.join(sorted(ACTIVATIONS))}.")
        if not all(np.isfinite(s) and s > 0 for s in scales):
            raise ValueError(f"scales must be finite and > 0, got {list(self.scales)!r}.")
        if not all(np.isfinite(Cs)):
            raise ValueError(f"Cs must be finite, got {list(self.Cs)!r}.")
        return n_hiddens, activations, scales, Cs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Search the grids, then refit the best configuration on all the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training samples (no missing values).
        y : array-like of shape (n_samples,)
            The class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each sample.  Weights the ridge fits and the validation accuracies.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with keep_state_on_error(self):
            X, y, sample_weight = check_fit_data(self, X, y, sample_weight, True)
            _reject_nan(X, type(self).__name__)
            n_hiddens, activations, scales, Cs = self._grids()
            X = np.asarray(X, dtype=np.float64)
            classes, codes = np.unique(y, return_inverse=True)
            cv = check_cv(self.cv, y, classifier=True)
            folds = list(cv.split(X, y))
            rng = check_random_state(self.random_state)
            seeds = draw_seeds(rng, len(folds))
            refit_seed = int(draw_seeds(rng, 1)[0] & 0x7FFFFFFF)
            jobs = [(f, a) for f in range(len(folds)) for a in range(len(activations))]

            def score(f, a):
                # the data travel inside the task, not as joblib-scattered arguments: under a Dask backend a
                # scattered array is lost with a killed worker, and the retried task could not run
                return _fold_scores(X, codes, sample_weight, folds[f][0], folds[f][1], classes.size, n_hiddens,
                                    [activations[a]], scales, Cs, self.direct_link, int(seeds[f]))

            with single_threaded_blas():  # one BLAS thread per job thread
                parts = Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(score)(f, a) for f, a in jobs)
            split = np.zeros((len(folds), len(activations), len(scales), len(n_hiddens), len(Cs)))
            for (f, a), part in zip(jobs, parts):
                split[f, a] = part[0]
            split = split.reshape(len(folds), -1)
            mean, std = split.mean(axis=0), split.std(axis=0)
            best = int(np.argmax(mean))  # the first of equal means, in grid order
            grid = np.array(np.unravel_index(np.arange(mean.size),
                                             (len(activations), len(scales), len(n_hiddens), len(Cs))))
            a, s, j, c = grid[:, best]
            best_params = {"n_hidden": n_hiddens[j], "activation": activations[a], "scale": scales[s], "C": Cs[c]}
            estimator = RVFLClassifier(**best_params, direct_link=self.direct_link, random_state=refit_seed)
            estimator.fit(X, y, sample_weight)
            results = {
                "param_n_hidden": np.asarray(n_hiddens)[grid[2]],
                "param_activation": np.asarray(activations, dtype=object)[grid[0]],
                "param_scale": np.asarray(scales)[grid[1]],
                "param_C": np.asarray(Cs)[grid[3]],
            }
            for k in range(len(folds)):
                results[f"split{k}_test_score"] = split[k]
            rank = scipy.stats.rankdata(-mean, method="min").astype(np.int32)
            results.update(mean_test_score=mean, std_test_score=std, rank_test_score=rank)
            self.best_params_ = best_params
            self.best_score_ = float(mean[best])
            self.best_estimator_ = estimator
            self.cv_results_ = results
            self.classes_ = classes
        return self

    def _check(self, X):
        X = check_predict_data(self, X)
        _reject_nan(X, type(self).__name__)
        return X

    def decision_function(self, X):
        """The refitted network's output scores (see :meth:`RVFLClassifier.decision_function`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The output scores; their difference for two classes.
        """
        X = self._check(X)  # before best_estimator_ is read: an unfitted search raises NotFittedError
        return self.best_estimator_.decision_function(X)

    def predict_proba(self, X):
        """Softmax of the refitted network's output scores (not calibrated).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Softmax of the output scores, in :attr:`classes_` order.
        """
        X = self._check(X)
        return self.best_estimator_.predict_proba(X)

    def predict(self, X):
        """Class of the highest output score of the refitted network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        X = self._check(X)
        return self.best_estimator_.predict(X)
