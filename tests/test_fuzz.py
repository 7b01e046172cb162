"""Fuzzed inputs for every estimator (hypothesis): a clear error or a consistent model, nothing else.

Each generated input combines a container (numpy array of any dtype, list, object array,
Fortran-ordered or strided array, pandas DataFrame with mixed column dtypes), a shape (0, 1 and
many rows and columns), injected defects (NaN, inf, values too large for float32, strings,
None, complex numbers, datetimes), labels (ints, strings, bools, mixed, NaN, continuous, 2-D)
and sample weights (zero, negative, NaN, inf, overflowing, wrong shape).  Every defect carries
the words an error about it must use.  For each input the estimator must either

* raise ``ValueError``/``TypeError`` whose message matches one of the defects present -- never
  any other exception (a Numba typing error, an IndexError, ...) and never on clean input; or
* fit, and then predict consistently: right shapes, labels from ``classes_ == unique(y)``,
  finite probabilities summing to one that agree with ``predict``, finite regression outputs,
  the same answer twice, and a clear error for the wrong number of features.

A "fatal" defect (inf in X, negative weights, a mix of label types, ...) must make ``fit`` raise.

``FORESTZOO_FUZZ_EXAMPLES`` sets the number of inputs per estimator (default 100, which keeps
this file at about two minutes of CI for ~40 estimators; the target's 1,000 per estimator is
``FORESTZOO_FUZZ_EXAMPLES=1000``).  Inputs are derandomized (the same sequence every run) unless
``FORESTZOO_FUZZ_RANDOM=1``.  The count tried per estimator is printed at the end of the run.
"""

import inspect
import os
import re
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import is_classifier

import forestzoo

pd = pytest.importorskip("pandas")

N_EXAMPLES = int(os.environ.get("FORESTZOO_FUZZ_EXAMPLES", "100"))
DERANDOMIZE = os.environ.get("FORESTZOO_FUZZ_RANDOM", "0") != "1"
ESTIMATORS = forestzoo.all_estimators()

# defect -> (fatal?, regex an error message about it must match)
DEFECTS = {
    "no_rows": (True, r"0 sample|minimum of 1|empty"),
    "no_columns": (True, r"0 feature|minimum of 1"),
    "few_rows": (False, r"sample|class|member|fold|split|least|few|row"),
    "one_class": (False, r"class"),
    "nan": (False, r"NaN|missing"),
    "none": (False, r"None|NaN|missing|numeric"),
    "inf": (True, r"infinity|inf\b"),
    "too_large": (True, r"too large|infinity"),
    "huge": (False, r"too large|overflow|magnitude|infinity|finite"),
    "text": (True, r"text|string|numeric|convert"),
    "complex": (True, r"[Cc]omplex"),
    "datetime": (True, r"date|datetime|numeric"),
    "y_continuous": (True, r"[Uu]nknown label type|continuous"),
    "y_mixed": (True, r"mix|Mix"),
    "y_nan": (True, r"NaN|None"),
    "y_inf": (True, r"infinity|inf\b"),
    "y_text": (True, r"convert|numeric|string"),
    "y_huge": (True, r"too large|overflow|magnitude"),
    "y_multi": (True, r"multi|shape|1d|column"),
    "y_length": (True, r"inconsistent|samples|length|shape"),
    "y_none": (True, r"requires y|None"),
    "w_negative": (True, r"[Nn]egative"),
    "w_nan": (True, r"NaN"),
    "w_inf": (True, r"infinity|inf\b"),
    "w_zero": (True, r"zero|positive"),
    "w_overflow": (True, r"overflow|infinity|rescale"),
    "w_tiny": (True, r"underflow|rescale"),
    "w_shape": (True, r"sample_weight|[Ss]ample weights|shape|1D"),
}
X_DEFECTS = ("nan", "nan_column", "none", "inf", "too_large", "huge", "text", "complex", "constant")
FRAME_COLUMNS = ("float64", "float32", "int64", "uint8", "bool", "Int64", "Float64", "boolean", "category_num",
                 "str", "category_str", "datetime")


@dataclass
class Case:
    """One generated input, described by its parameters (hypothesis shrinks these)."""

    seed: int
    n_rows: int
    n_cols: int
    container: str
    dtype: str
    x_defects: tuple
    frame_columns: tuple
    y_kind: str
    n_classes: int
    w_kind: str
    defects: set = field(default_factory=set)

    def add(self, defect):
        self.defects.add(defect)


def cases(classifier, takes_weights):
    y_kinds = (["int", "int_neg", "str", "bool", "float_int", "series", "category", "column", "mixed", "continuous",
                "nan", "multi", "length", "none"] if classifier else
               ["float", "int", "constant", "bool", "series", "column", "large", "huge", "text", "nan", "inf",
                "multi", "length", "none"])
    w_kinds = (["none", "ones", "ints", "scalar", "some_zero", "tiny", "all_zero", "negative", "nan", "inf",
                "overflow", "length", "2d"] if takes_weights else ["none"])  # the first five are valid
    return st.builds(
        Case,
        seed=st.integers(0, 2**31 - 1),
        n_rows=st.sampled_from([0, 1, 2, 3, 7, 24, 24, 24, 40, 40, 120]),
        n_cols=st.sampled_from([0, 1, 2, 4, 4, 4, 9, 9, 30]),
        container=st.sampled_from(["ndarray", "ndarray", "ndarray", "list", "object", "fortran", "strided", "frame",
                                   "frame"]),
        dtype=st.sampled_from(["float64", "float32", "float16", "int8", "int64", "uint64", "bool"]),
        x_defects=st.one_of(st.just(()), st.lists(st.sampled_from(X_DEFECTS), max_size=2, unique=True).map(tuple)),
        frame_columns=st.lists(st.sampled_from(FRAME_COLUMNS), min_size=1, max_size=4).map(tuple),
        y_kind=st.one_of(st.sampled_from(y_kinds[:6]), st.sampled_from(y_kinds)),
        n_classes=st.sampled_from([1, 2, 3, 3, 5]),
        w_kind=st.one_of(st.sampled_from(w_kinds[:5]), st.sampled_from(w_kinds)),
    )


# ---------------------------------------------------------------------------------------------
# building an input from a Case


def _labels(case, rng, classifier):
    n = case.n_rows
    codes = rng.permutation(np.arange(n) % case.n_classes) if n else np.zeros(0, int)
    if classifier:
        present = np.unique(codes)
        if present.size < 2:
            case.add("one_class")
        if n and np.bincount(codes).min() < 3:
            case.add("few_rows")
    kind = case.y_kind
    y = {
        "int": codes, "int_neg": codes * 7 - 3, "str": np.array([f"c{c}" for c in codes]),
        "bool": codes % 2 == 0, "float_int": codes.astype(float), "float": rng.normal(size=n),
        "constant": np.full(n, 3.5), "large": rng.normal(size=n) * 1e30,
    }.get(kind)
    if classifier and kind == "bool" and n and np.unique(codes % 2).size < 2:
        case.add("one_class")
    if kind in ("series", "category", "column", "multi", "length"):
        y = codes if classifier else rng.normal(size=n)
        if kind == "series":
            y = pd.Series(y)
        elif kind == "category":
            y = pd.Series(pd.Categorical([f"k{c}" for c in codes]))
        elif kind == "column":
            y = y[:, None]
        elif kind == "multi":
            y, _ = np.column_stack([y, y]), case.add("y_multi")
        elif kind == "length":
            y, _ = y[:-1] if n else np.zeros(1), case.add("y_length")
    elif kind == "mixed":
        y = np.array([f"c{c}" if c % 2 else int(c) for c in codes], dtype=object)
        if n and len({type(v) for v in y}) > 1:
            case.add("y_mixed")
    elif kind == "continuous":
        y = rng.normal(size=n)
        if n:
            case.add("y_continuous")
    elif kind == "nan":
        y = codes.astype(float) if classifier else rng.normal(size=n)
        if n:
            y[rng.randint(n)] = np.nan
            case.add("y_nan")
    elif kind == "inf":
        y = rng.normal(size=n)
        if n:
            y[rng.randint(n)] = np.inf
            case.add("y_inf")
    elif kind == "huge":
        y = rng.normal(size=n) * 1e200
        if n:
            case.add("y_huge")
    elif kind == "text":
        y = np.array([f"v{v:.2f}x" for v in rng.normal(size=n)])
        if n:
            case.add("y_text")
    elif kind == "none":
        y = None
        case.add("y_none")
    return y, codes


def _inject(case, Xf, rng):
    """Defects on a float64 matrix; returns (matrix, object overrides {(i, j): value})."""
    n, d = Xf.shape
    objects = {}
    if not n or not d:
        return Xf, objects
    for defect in case.x_defects:
        i, j = rng.randint(n), rng.randint(d)
        if defect == "nan":
            Xf[i, j] = np.nan
        elif defect == "nan_column":
            Xf[:, j] = np.nan
        elif defect == "inf":
            Xf[i, j] = -np.inf if rng.rand() < 0.5 else np.inf
        elif defect == "too_large":
            Xf[i, j] = 1e300
        elif defect == "huge":
            Xf[:, j] *= 1e37  # finite in float32, but sums of squares overflow
        elif defect == "constant":
            Xf[:, j] = 1.0
        else:  # none / text / complex: entries only an object array can hold
            objects[(i, j)] = {"none": None, "text": "abc", "complex": 1 + 2j}[defect]
    return Xf, objects


def _record_float_defects(case, Xf):
    if Xf.size == 0:
        return
    if np.isnan(Xf).any():
        case.add("nan")
    if np.isinf(Xf).any():
        case.add("inf")
    finite = Xf[np.isfinite(Xf)]
    if finite.size and np.abs(finite).max() > np.finfo(np.float32).max:
        case.add("too_large")
    elif finite.size and np.abs(finite).max() > 1e18:
        case.add("huge")


def _frame(case, Xf, rng):
    """A DataFrame whose column dtypes cycle through ``case.frame_columns``; records what each column holds."""
    n, d = Xf.shape
    columns = {}
    for j in range(d):
        kind = case.frame_columns[j % len(case.frame_columns)]
        col = Xf[:, j]
        nan = np.isnan(col)
        finite = np.nan_to_num(col, nan=0.0, posinf=0.0, neginf=0.0)
        if kind in ("float64", "float32", "Float64"):
            values = col.astype(kind.lower())
            columns[f"f{j}"] = values if kind != "Float64" else pd.array(np.where(nan, 0.0, col), dtype="Float64")
            if kind == "Float64":
                columns[f"f{j}"][nan] = pd.NA
            _record_float_defects(case, col[:, None])
        elif kind in ("int64", "uint8", "Int64"):
            ints = np.clip(np.abs(finite) * 10, 0, 200).astype(np.int64)
            columns[f"f{j}"] = ints.astype(kind.lower()) if kind != "Int64" else pd.array(ints, dtype="Int64")
            if kind == "Int64" and nan.any():
                columns[f"f{j}"][nan] = pd.NA
                case.add("nan")
        elif kind in ("bool", "boolean"):
            columns[f"f{j}"] = finite > 0 if kind == "bool" else pd.array(finite > 0, dtype="boolean")
            if kind == "boolean" and nan.any():
                columns[f"f{j}"][nan] = pd.NA
                case.add("nan")
        elif kind == "category_num":
            columns[f"f{j}"] = pd.Categorical(np.round(finite))
            _record_float_defects(case, np.round(finite)[:, None])
        elif kind in ("str", "category_str"):
            words = np.array([f"w{int(v) % 3}" for v in np.clip(np.abs(finite) * 10, 0, 100)])
            columns[f"f{j}"] = words if kind == "str" else pd.Categorical(words)
            case.add("text")
        else:  # datetime
            columns[f"f{j}"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(n), unit="D")
            case.add("datetime")
    return pd.DataFrame(columns, index=pd.RangeIndex(n))


def build(case, classifier, takes_weights):
    """``(X, y, sample_weight, X_predict)`` for a Case; ``case.defects`` lists what is wrong with it."""
    rng = np.random.RandomState(case.seed)
    n, d = case.n_rows, case.n_cols
    if n == 0:
        case.add("no_rows")
    if d == 0:
        case.add("no_columns")
    if 0 < n < 10:
        case.add("few_rows")
    y, codes = _labels(case, rng, classifier)
    Xf = rng.normal(size=(n, d))
    if d and n:
        Xf[:, 0] += 2.0 * codes if classifier else 0.0  # some signal, so the trees are not stumps
    Xf, objects = _inject(case, Xf, rng)
    if case.container == "frame":
        X = _frame(case, Xf, rng)
    else:
        kind = np.dtype(case.dtype).kind
        if objects or case.container == "object":
            X = Xf.astype(object)
            for (i, j), v in objects.items():
                X[i, j] = v
                case.add({None: "none", "abc": "text"}.get(v, "complex") if not isinstance(v, complex) else "complex")
            _record_float_defects(case, np.array([[v] for v in X.ravel() if isinstance(v, float)] or [[0.0]]))
        elif kind in "iub":
            finite = np.nan_to_num(Xf, nan=0.0, posinf=0.0, neginf=0.0)
            X = (finite > 0) if kind == "b" else np.clip(finite * 10, np.iinfo(case.dtype).min, np.iinfo(case.dtype).max
                                                         ).astype(case.dtype)
        else:
            with np.errstate(over="ignore"):
                X = Xf.astype(case.dtype)
            _record_float_defects(case, X.astype(np.float64))
        if case.container == "list":
            X = X.tolist()
        elif case.container == "fortran":
            X = np.asfortranarray(X)
        elif case.container == "strided":
            X = np.repeat(X, 2, axis=1)[:, ::2] if d else X
    w = None
    if takes_weights and case.w_kind != "none":
        w = {"ones": np.ones(n), "ints": rng.randint(1, 4, n), "scalar": 2.0}.get(case.w_kind)
        if case.w_kind == "some_zero":
            w = rng.rand(n) * (rng.rand(n) < 0.7)
            if n and not w.any():
                case.add("w_zero")
        elif case.w_kind in ("all_zero", "negative", "nan", "inf", "overflow", "tiny"):
            w = {"all_zero": np.zeros(n), "overflow": np.full(n, 1e160), "tiny": np.full(n, 1e-300)}.get(
                case.w_kind, np.ones(n))
            if n:
                if case.w_kind in ("negative", "nan", "inf"):
                    w[rng.randint(n)] = {"negative": -1.0, "nan": np.nan, "inf": np.inf}[case.w_kind]
                case.add({"all_zero": "w_zero", "overflow": "w_overflow"}.get(case.w_kind, "w_" + case.w_kind))
        elif case.w_kind in ("length", "2d"):
            w = np.ones(n + 1) if case.w_kind == "length" else np.ones((n, 1))
            case.add("w_shape")
    return X, y, w


# ---------------------------------------------------------------------------------------------
# the oracle


def _fast(Estimator):
    estimator = Estimator()
    params = {k: v for k, v in {"n_estimators": 5, "random_state": 0}.items() if k in estimator.get_params()}
    params.update(getattr(Estimator, "_fast_check_params", {}))
    return estimator.set_params(**params)


def _expect_error(case, exc):
    fatal = [d for d in case.defects if DEFECTS[d][0]]
    message = str(exc)
    allowed = "|".join(f"(?:{DEFECTS[d][1]})" for d in case.defects)
    assert case.defects, f"clean input was refused: {type(exc).__name__}: {message}"
    assert re.search(allowed, message), (
        f"{type(exc).__name__} does not name the problem ({sorted(case.defects)}): {message!r}"
        + ("" if fatal else " [no fatal defect]")
    )


def _check_model(estimator, case, X, y, classifier):
    fatal = sorted(d for d in case.defects if DEFECTS[d][0])
    assert not fatal, f"fit accepted bad input {fatal}"
    n = len(X)
    pred = np.asarray(estimator.predict(X))
    assert pred.shape == (n,), f"predict returned shape {pred.shape} for {n} rows"
    assert np.array_equal(pred, np.asarray(estimator.predict(X))), "predict is not repeatable"
    n_features = len(X.columns) if hasattr(X, "columns") else np.asarray(X, dtype=object).shape[1]
    assert estimator.n_features_in_ == n_features
    if classifier:
        labels = np.unique(np.asarray(y).ravel()) if not hasattr(y, "cat") else np.unique(np.asarray(y))
        assert np.array_equal(np.asarray(estimator.classes_), labels), "classes_ differ from unique(y)"
        assert np.isin(pred, estimator.classes_).all(), "predict returned a label outside classes_"
        if hasattr(estimator, "predict_proba"):
            proba = estimator.predict_proba(X)
            assert proba.shape == (n, len(estimator.classes_))
            assert np.isfinite(proba).all(), "predict_proba is not finite"
            assert (proba >= -1e-12).all() and np.allclose(proba.sum(axis=1), 1.0, atol=1e-6), "rows are not distributions"
            best = proba.max(axis=1, keepdims=True)
            ok = proba[np.arange(n), np.searchsorted(estimator.classes_, pred)] >= best[:, 0] - 1e-9
            assert ok.all(), "predict disagrees with the most probable class"
    else:
        assert np.isfinite(pred.astype(np.float64)).all(), "regression predictions are not finite"
    wide = np.zeros((1, n_features + 1))
    with pytest.raises(ValueError, match="feature"):
        estimator.predict(wide)


# Known bugs outside this test's reach, each reported to the owner of the code at fault:
# (estimator name regex, exception type, message regex, reason).  A failure matching one is counted
# and the test ends as xfail naming it; anything else fails.  Remove an entry once it is fixed.
KNOWN_BUGS = [
]


# Refusals of clean input that are inherent to a method (the message must still say why):
# {estimator name: message regex}.
METHOD_LIMITS = {
    # SAMME stops when the first weak learner is no better than chance, as scikit-learn's AdaBoost does
    "AdaBoostClassifier": r"no better than chance",
}


def _known_bug(Estimator, exc):
    for name, kind, message, reason in KNOWN_BUGS:
        if re.fullmatch(name, Estimator.__name__) and isinstance(exc, kind) and re.search(message, str(exc)):
            return reason
    return None


def run_case(Estimator, case, stats, known=None):
    classifier = is_classifier(Estimator())
    takes_weights = "sample_weight" in inspect.signature(Estimator.fit).parameters
    case.defects = set()
    with np.errstate(all="ignore"):  # the generator overflows on purpose
        X, y, w = build(case, classifier, takes_weights)
    estimator = _fast(Estimator)
    # a 2-D y is no defect for an estimator that fits several outputs (scikit-learn's multi_output tag)
    multi = "y_multi" in case.defects and estimator.__sklearn_tags__().target_tags.multi_output
    if multi:
        case.defects.discard("y_multi")
    kwargs = {"sample_weight": w} if takes_weights else {}
    stats["tried"] += 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                estimator.fit(X, y, **kwargs)
            except (ValueError, TypeError) as exc:
                stats["rejected"] += 1
                limit = METHOD_LIMITS.get(Estimator.__name__)
                if limit and re.search(limit, str(exc)):
                    return
                _expect_error(case, exc)
                return
            stats["fitted"] += 1
            if multi:
                fatal = sorted(d for d in case.defects if DEFECTS[d][0])
                assert not fatal, f"fit accepted bad input {fatal}"
                pred = np.asarray(estimator.predict(X))
                assert pred.shape == np.shape(y), f"predict returned shape {pred.shape} for y of shape {np.shape(y)}"
                return
            _check_model(estimator, case, X, y, classifier)
    except Exception as exc:
        reason = _known_bug(Estimator, exc)
        if reason is None or known is None:
            raise
        stats["known bug"] += 1
        known.add(reason)


_REPORT = {}


@pytest.fixture(scope="module", autouse=True)
def _print_counts(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"{name}: {s['tried']} inputs tried ({s['fitted']} fitted, {s['rejected']} rejected"
             f"{', %d hit known bugs' % s['known bug'] if s['known bug'] else ''}) in {s['seconds']:.1f}s"
             for name, s in sorted(_REPORT.items())]
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None and lines:
        with capture.global_and_fixture_disabled():  # straight to the terminal, -s or not
            reporter.write_line("")
            reporter.write_sep("-", f"fuzz: inputs per estimator (FORESTZOO_FUZZ_EXAMPLES={N_EXAMPLES})")
            for line in lines:
                reporter.write_line(line)


@pytest.mark.parametrize("Estimator", [cls for _, cls in ESTIMATORS], ids=[name for name, _ in ESTIMATORS])
def test_fuzzed_inputs_fit_consistently_or_fail_clearly(Estimator):
    classifier = is_classifier(Estimator())
    takes_weights = "sample_weight" in inspect.signature(Estimator.fit).parameters
    stats = Counter()
    start = time.perf_counter()

    known = set()

    @settings(max_examples=N_EXAMPLES, deadline=None, database=None, derandomize=DERANDOMIZE,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @given(case=cases(classifier, takes_weights))
    def fuzz(case):
        run_case(Estimator, case, stats, known)

    try:
        fuzz()
    finally:
        _REPORT[Estimator.__name__] = {"tried": 0, "fitted": 0, "rejected": 0, "known bug": 0, **stats,
                                       "seconds": time.perf_counter() - start}
        print(f"{Estimator.__name__}: {stats['tried']} inputs tried")
    assert stats["tried"] >= N_EXAMPLES
    if known:
        pytest.xfail(f"{stats['known bug']} input(s) hit known bug(s): " + "; ".join(sorted(known)))
