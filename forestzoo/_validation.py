"""Input checks shared by every forestzoo estimator.

Messages follow scikit-learn's style: say what was wrong and what is
accepted.  Bad input is rejected here, before any fitted state is touched,
so a failed ``fit`` never corrupts a previously fitted model.
"""

from contextlib import contextmanager

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data


@contextmanager
def keep_state_on_error(estimator):
    """Restore the estimator's attributes if the block raises.

    ``validate_data`` records ``n_features_in_`` / ``feature_names_in_``
    before the rest of ``fit`` has checked the data; a failing ``fit`` must
    leave a previously fitted model exactly as it was.
    """
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise


def _check_ndim(X):
    ndim = X.ndim if hasattr(X, "ndim") else np.asarray(X).ndim
    if ndim > 2:
        raise ValueError(
            f"X must be a 2D array of shape (n_samples, n_features); got an array with {ndim} dimensions."
        )


def check_fit_data(estimator, X, y, sample_weight, classification):
    """Validate ``(X, y, sample_weight)`` for ``fit``.

    Returns ``X`` as C-ordered float32 (NaN kept, inf rejected), ``y`` as a
    1-D array and ``sample_weight`` as float64 with a positive sum.
    """
    y_shape = np.asarray(y).shape if y is not None else ()
    if len(y_shape) == 2 and y_shape[1] > 1:
        raise ValueError(
            f"y has shape {y_shape}: multi-output y is not supported by {type(estimator).__name__}; "
            "fit one estimator per output (e.g. sklearn.multioutput.MultiOutputClassifier)."
        )
    _check_ndim(X)
    X, y = validate_data(
        estimator, X, y, dtype=np.float32, order="C", ensure_all_finite="allow-nan",
        y_numeric=not classification, multi_output=False,
    )
    if classification:
        check_classification_targets(y)
    elif not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity; regression targets must be finite.")
    if sample_weight is not None and not isinstance(sample_weight, (int, float)):
        sw = np.asarray(sample_weight)
        if sw.size > 0 and sw.dtype.kind in "biuf" and not np.any(sw != 0):
            raise ValueError("sample_weight is all zero: at least one sample must have a positive weight.")
    sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if not sample_weight.sum() > 0:
        raise ValueError("sample_weight sums to zero: at least one sample must have a positive weight.")
    return X, y, sample_weight


def check_predict_data(estimator, X):
    """Validate ``X`` for prediction against the fitted feature count and names."""
    check_is_fitted(estimator)
    _check_ndim(X)
    return validate_data(
        estimator, X, dtype=np.float32, order="C", ensure_all_finite="allow-nan", reset=False
    )
