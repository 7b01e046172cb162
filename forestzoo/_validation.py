"""Input checks shared by every forestzoo estimator.

Messages follow scikit-learn's style: say what was wrong and what is
accepted.  Bad input is rejected here, before any fitted state is touched,
so a failed ``fit`` never corrupts a previously fitted model.

What is accepted (README.md's "Guarantees" states it for users):

* ``X``: a 2-D array-like of numbers -- numpy arrays of any int, uint,
  float (float16 converts to float32 exactly) or bool dtype, lists of
  numbers, object arrays whose entries are numbers or ``None``, pandas
  DataFrames whose columns are numeric, boolean (nullable ones included) or
  categorical with numeric categories.  NaN, ``None`` and ``pd.NA`` mark
  missing values.  Rejected with a ValueError naming the problem: strings
  (also numeric-looking ones), bytes, datetimes, complex numbers, other
  objects, infinity and finite values too large for float32.
* sparse ``X`` (scipy sparse matrices and arrays, any format): only where the
  estimator passes ``accept_sparse=True`` (the axis-aligned trees and forests:
  ``DecisionTree*``, ``RandomForest*``, ``ExtraTrees*``).  Absent entries are
  zeros, stored NaN are missing values, infinity is rejected.  Other
  estimators reject sparse ``X`` with a TypeError naming the estimator.
* ``y``: classification labels of one type (ints, bools, strings; not a mix
  of strings and numbers; no NaN); regression targets that are finite and
  small enough that squared-error sums cannot overflow float64.
* ``sample_weight``: finite, non-negative, summing to a value in [1e-150, 1e150]
  (split criteria square sums of weights; outside this range they overflow or
  lose all precision).
"""

import numbers
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

# Split criteria square sums of weights (Gini's sum of squared class weights, (sum w*y)**2 / sum w):
# beyond ~1.3e154 the squares overflow and below ~1e-154 they lose all precision, and either way the
# tree silently stops splitting (measured: a tree fitted with every weight 1e160 is a stump).
_MAX_TOTAL_WEIGHT = 1e150
_MIN_TOTAL_WEIGHT = 1e-150

_ACCEPTED_X = (
    "forestzoo estimators accept numeric features only (ints, floats, bools; NaN, None or pd.NA for a "
    "missing value); encode string, categorical or datetime features as numbers first."
)


def interrupted(exc):
    """True for a ``SystemError`` that stands for a Ctrl-C.

    A signal that arrives while a compiled kernel runs in the calling thread
    is raised when the kernel returns, inside Numba's dispatcher, which then
    reports a ``SystemError`` ("returned a result with an exception set")
    with the ``KeyboardInterrupt`` in its chain of causes.
    """
    seen = 0
    while isinstance(exc, SystemError) and seen < 16:
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return seen > 0 and isinstance(exc, KeyboardInterrupt)


@contextmanager
def keep_state_on_error(estimator):
    """Restore the estimator's attributes if the block raises.

    ``validate_data`` records ``n_features_in_`` / ``feature_names_in_``
    before the rest of ``fit`` has checked the data; a failing ``fit`` must
    leave a previously fitted model exactly as it was.  ``BaseException``
    is caught, so a ``KeyboardInterrupt`` restores the attributes too (and
    surfaces as one, also where Numba reports it as a ``SystemError``).  The
    restore is shallow: code inside the block must build new objects and
    assign them at the end rather than edit fitted arrays in place.
    """
    saved = dict(estimator.__dict__)
    try:
        yield
    except BaseException as exc:
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        if interrupted(exc):
            raise KeyboardInterrupt from exc
        raise


def _check_ndim(X):
    ndim = X.ndim if hasattr(X, "ndim") else np.asarray(X, dtype=object).ndim
    if ndim > 2:
        raise ValueError(
            f"X must be a 2D array of shape (n_samples, n_features); got an array with {ndim} dimensions."
        )


def _is_number_type(kind):
    return kind is type(None) or (issubclass(kind, (numbers.Real, np.bool_)) and not issubclass(kind, (str, bytes)))


def _check_object_entries(values, where):
    """Raise a ValueError naming the first entry of an object array that is not a real number or None."""
    flat = values.ravel(order="C")
    if not all(_is_number_type(k) for k in {type(v) for v in flat}):
        for i, v in enumerate(flat):
            if not _is_number_type(type(v)):
                pos = np.unravel_index(i, values.shape)
                at = f"row {pos[0]}, column {pos[1]}" if len(pos) == 2 else f"position {pos[0]}"
                # numpy's own conversion raises ValueError for text and TypeError for other objects; keep that
                error = ValueError if isinstance(v, (str, bytes)) else TypeError
                raise error(
                    f"{where} has a non-numeric entry {v!r} of type {type(v).__name__} at {at}: each entry's "
                    f"argument must be a real number or None, not a string or another object; {_ACCEPTED_X}"
                )
    try:
        flat.astype(np.float64)
    except (OverflowError, TypeError, ValueError) as exc:  # e.g. a Python int beyond float64
        raise ValueError(f"{where} has an entry that cannot be converted to a float ({exc}).") from None


def _numeric_kind(dtype):
    """True for dtypes whose values are numbers: ints, uints, floats, bools (numpy or pandas nullable)."""
    categories = getattr(dtype, "categories", None)
    if categories is not None:  # pandas categorical: numeric categories only
        return getattr(categories.dtype, "kind", "O") in "biuf"
    return getattr(dtype, "kind", "O") in "biuf"


def _check_frame(X):
    if len(X.columns) == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    bad = []
    for col, dtype in zip(X.columns, X.dtypes):
        if _numeric_kind(dtype):
            continue
        if getattr(dtype, "kind", None) == "O" and isinstance(dtype, np.dtype):  # plain object column
            _check_object_entries(X[col].to_numpy(dtype=object), f"X column {col!r}")
            continue
        bad.append(f"{col!r} ({dtype})")
    if bad:
        raise ValueError(f"X has non-numeric column(s) {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''}; "
                         f"{_ACCEPTED_X}")


def _check_X_types(X):
    """Reject non-numeric X before numpy or scikit-learn converts it (or fails with an internal error).

    Returns ``X``, with lists converted to an array once.
    """
    if hasattr(X, "columns") and hasattr(X, "dtypes") and type(X).__module__.startswith("pandas"):
        _check_frame(X)
        return X
    if isinstance(X, (list, tuple)):
        try:
            X = np.asarray(X)
        except ValueError as exc:
            raise ValueError(f"X could not be read as a 2D array of numbers: {exc}") from None
        if X.size == 0 and X.ndim < 2:
            raise ValueError("Found array with 0 sample(s) (X is an empty list) while a minimum of 1 is required.")
    if isinstance(X, np.ndarray):
        kind = X.dtype.kind
        if kind in "USa":
            raise ValueError(f"X has dtype {X.dtype} (text); {_ACCEPTED_X}")
        if kind in "mM":
            raise ValueError(f"X has dtype {X.dtype} (dates or durations); {_ACCEPTED_X}")
        if kind == "c":
            raise ValueError(f"Complex data not supported: X has dtype {X.dtype}; {_ACCEPTED_X}")
        if kind == "V":
            raise ValueError(f"X has structured dtype {X.dtype}; pass a plain 2D array of numbers.")
        if kind == "O":
            _check_object_entries(X, "X")
    return X


_SPARSE_ESTIMATORS = ("DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier, RandomForestRegressor, "
                      "ExtraTreesClassifier, ExtraTreesRegressor")


def _reject_sparse(estimator, X):
    if sp.issparse(X):
        raise TypeError(
            f"Sparse data was passed for X, but {type(estimator).__name__} requires dense data: pass "
            f"X.toarray(). Sparse X is accepted by {_SPARSE_ESTIMATORS}."
        )


def _canonical_csc(X):
    """A sparse ``X`` (float32, validated) as CSC with sorted, unique row indices per column.

    ``X``'s own arrays are not modified: a copy is sorted when its indices are not.
    """
    X = X.tocsc()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _check_labels(y):
    """Classification labels must be of one type: a mix of strings and numbers has no order."""
    # lists go through an object array: np.asarray(["a", 1]) would silently make both strings
    y_arr = np.asarray(y, dtype=object) if isinstance(y, (list, tuple)) else y
    if getattr(y_arr, "dtype", None) is not None and y_arr.dtype.kind == "O":
        flat = np.asarray(y_arr, dtype=object).ravel()
        has_str = any(isinstance(v, str) for v in flat)
        if has_str and not all(isinstance(v, str) for v in flat):
            other = next(v for v in flat if not isinstance(v, str))
            raise ValueError(
                f"y mixes string and non-string labels (e.g. {other!r} of type {type(other).__name__}); "
                "class labels must all be strings or all be numbers."
            )
        if any(v is None for v in flat):
            raise ValueError("y contains None; class labels must be given for every sample.")


def check_fit_data(estimator, X, y, sample_weight, classification, accept_sparse=False, multi_output=False):
    """Validate ``(X, y, sample_weight)`` for ``fit``.

    Returns ``X`` as C-ordered float32 (NaN kept, inf rejected), ``y`` as a
    1-D array and ``sample_weight`` as float64 with a positive, finite sum.
    With ``multi_output`` (the estimators whose trees take a 2-D target), a
    ``y`` of shape ``(n_samples, n_outputs)`` with ``n_outputs > 1`` is
    returned 2-D; a single column is returned 1-D, as scikit-learn does
    (its trees silently, its forests with a ``DataConversionWarning``, which
    ``multi_output="warn"`` selects).
    With ``accept_sparse``, a scipy sparse ``X`` (any format) is returned as
    float32 CSC with sorted, unique row indices per column (the engine's
    layout, :func:`forestzoo._engine.data.csc_layout`, takes int32 indices and
    int64 pointers from it); without it, sparse ``X`` raises a TypeError.
    """
    if not accept_sparse:
        _reject_sparse(estimator, X)
    y_shape = np.asarray(y).shape if y is not None else ()
    two_d = multi_output and len(y_shape) == 2 and y_shape[1] > 1
    if multi_output is True and len(y_shape) == 2 and y_shape[1] == 1:
        y = np.asarray(y).ravel()  # a tree takes a column vector as one output without a warning
    if not multi_output and len(y_shape) == 2 and y_shape[1] > 1:
        raise ValueError(
            f"y has shape {y_shape}: multi-output y is not supported by {type(estimator).__name__}; "
            "fit one estimator per output (e.g. sklearn.multioutput.MultiOutputClassifier)."
        )
    _check_ndim(X)
    X = _check_X_types(X)
    if classification and y is not None:
        _check_labels(y)
    if not classification and y is not None and getattr(estimator, "criterion", None) == "poisson":
        # scikit-learn checks a Poisson target before it compares the lengths of X and y
        y_float = _as_float_or_none(y)
        if y_float is not None:
            check_poisson_target(y_float, forest=hasattr(estimator, "n_estimators"))
    X, y = validate_data(
        estimator, X, y, dtype=np.float32, order="C", ensure_all_finite="allow-nan",
        y_numeric=not classification, multi_output=two_d, accept_sparse=["csc", "csr"] if accept_sparse else False,
    )
    if sp.issparse(X):
        X = _canonical_csc(X)
    if classification:
        check_classification_targets(y)
    else:
        if y.dtype.kind not in "biuf":  # text: numeric-looking strings are not parsed silently
            raise ValueError(f"y has dtype {y.dtype}; regression targets must be numbers, not strings.")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity; regression targets must be finite.")
    if sample_weight is not None and not isinstance(sample_weight, (int, float)):
        sw = np.asarray(sample_weight)
        if sw.ndim >= 1 and sw.size > 0 and sw.dtype.kind in "biuf" and not np.any(sw != 0):
            raise ValueError("sample_weight is all zero: at least one sample must have a positive weight.")
    sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    with np.errstate(over="ignore", invalid="ignore"):
        total = sample_weight.sum()
        if not total > 0:
            raise ValueError("sample_weight sums to zero: at least one sample must have a positive weight.")
        if not _MIN_TOTAL_WEIGHT <= total <= _MAX_TOTAL_WEIGHT:
            problem = "overflow" if total > 1 else "underflow"
            raise ValueError(
                f"sample_weight sums to {total:.3g} (largest weight {sample_weight.max():.3g}): split criteria "
                f"square sums of weights, which {problem} float64 outside [{_MIN_TOTAL_WEIGHT:g}, "
                f"{_MAX_TOTAL_WEIGHT:g}]; rescale the weights, e.g. divide them by their maximum."
            )
        if not classification:
            y64 = np.asarray(y, dtype=np.float64)
            # squared-error statistics sum w * y**2 over nodes, and the split scan multiplies such sums
            if not np.all(np.isfinite(total * np.dot(sample_weight, y64 * y64))):
                y_max = np.abs(y64).max()
                what = (f"y has values too large in magnitude (max |y| = {y_max:.3g})" if y_max > 1e100 else
                        f"sample_weight has values too large (max {sample_weight.max():.3g}) for y (max |y| = "
                        f"{y_max:.3g})")
                raise ValueError(f"{what}: squared-error statistics would overflow float64; rescale them "
                                 "(e.g. divide by their maximum).")
    return X, y, sample_weight


def regression_criterion(criterion):
    """A regressor's ``criterion`` as scikit-learn's constructors take it.

    ``"friedman_mse"`` is deprecated there (it always chose the same splits
    as ``"squared_error"``) and maps to ``"squared_error"`` with a
    ``FutureWarning``; any other value is returned unchanged (checked at fit).
    """
    if isinstance(criterion, str) and criterion == "friedman_mse":
        import warnings

        warnings.warn('Value `"friedman_mse"` for `criterion` is deprecated (scikit-learn 1.9) and maps to '
                      '`"squared_error"`, which always chose the same splits. Use `criterion="squared_error"` to '
                      "remove this warning.", FutureWarning, stacklevel=3)
        return "squared_error"
    return criterion


def _as_float_or_none(y):
    """``y`` as a float64 array, or None when it holds something else (left to the full validation)."""
    try:
        return np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def check_poisson_target(y, forest=False):
    """Raise unless ``y`` suits the Poisson deviance: no negative value and a positive sum.

    The messages are scikit-learn's, whose trees and forests word the second one differently.
    """
    if np.any(y < 0):
        raise ValueError("Some value(s) of y are negative which is not allowed for Poisson regression.")
    if not np.sum(y) > 0:
        raise ValueError(f"Sum of y is not {'strictly ' if forest else ''}positive which is necessary for "
                         "Poisson regression.")


def check_predict_data(estimator, X, accept_sparse=False):
    """Validate ``X`` for prediction against the fitted feature count and names.

    Returns C-ordered float32; with ``accept_sparse``, a scipy sparse ``X`` is
    returned as float32 CSR (without it, sparse ``X`` raises a TypeError).
    """
    check_is_fitted(estimator)
    if not accept_sparse:
        _reject_sparse(estimator, X)
    _check_ndim(X)
    X = _check_X_types(X)
    return validate_data(
        estimator, X, dtype=np.float32, order="C", ensure_all_finite="allow-nan", reset=False,
        accept_sparse="csr" if accept_sparse else False,
    )


def apply_class_weight(sample_weight, class_weight, y):
    """``sample_weight`` times the per-sample weights of ``class_weight``, refused like ``sample_weight`` itself.

    A class weight that is negative, NaN or infinite, or that brings the total
    weight outside the range the split criteria can square without overflow,
    raises a ``ValueError`` naming ``class_weight``.
    """
    from sklearn.utils.class_weight import compute_sample_weight

    per_sample = compute_sample_weight(class_weight, y)
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.all(np.isfinite(per_sample)):
            raise ValueError(f"class_weight contains NaN or infinity: {class_weight!r}; class weights must be finite.")
        if np.any(per_sample < 0):
            raise ValueError(f"class_weight contains negative values: {class_weight!r}; class weights must be "
                             "non-negative.")
        out = sample_weight * per_sample
        total = out.sum()
        if not total > 0:
            raise ValueError("class_weight gives every sample a zero weight: at least one sample must have a "
                             "positive weight.")
        if not _MIN_TOTAL_WEIGHT <= total <= _MAX_TOTAL_WEIGHT:
            raise ValueError(
                f"class_weight and sample_weight give a total weight of {total:.3g}: split criteria square sums "
                f"of weights, which overflow or underflow float64 outside [{_MIN_TOTAL_WEIGHT:g}, "
                f"{_MAX_TOTAL_WEIGHT:g}]; rescale the class weights."
            )
    return out


def check_warm_start_features(estimator, n_previous, X, previous_names=None):
    """Refuse a ``warm_start`` continuation on other features than the previous fit's.

    Another number of features gets scikit-learn's message.  ``previous_names``
    (the previous fit's ``feature_names_in_``, read before ``X`` was
    validated): when both fits had feature names, they must be the same in
    the same order, because the trees already grown read the features by
    position (a reordered data frame would otherwise be read silently
    wrong).  A continuation on an array without names is accepted, as
    scikit-learn accepts it at ``predict``.
    """
    if X.shape[1] != n_previous:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting {n_previous} "
                         "features as input.")
    names = getattr(estimator, "feature_names_in_", None)
    if previous_names is not None and names is not None and not np.array_equal(previous_names, names):
        raise ValueError(f"warm_start=True continues {type(estimator).__name__}'s trees, which read the features by "
                         f"position: X's feature names must be the previous fit's, in the same order "
                         f"({list(previous_names)}); got {list(names)}.")
