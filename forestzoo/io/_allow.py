"""The allow-list of classes a model file may name.

A file names classes as ``"module:qualname"``; loading never imports or
calls anything the file chooses beyond these rules:

* **forestzoo's own classes**: the public estimators of
  :func:`forestzoo.all_estimators` and every class *defined* in forestzoo's
  engine (``forestzoo._engine``) or estimator families (``forestzoo.<family>``
  for the families of :data:`forestzoo.FAMILIES`), e.g.
  ``forestzoo._engine.tree:Tree``.  Families added later are covered without
  an edit here.  The command-line, benchmark and dataset modules are not.
* **a short list of scikit-learn types** that families store inside fitted
  models (found by walking every estimator's fitted ``__dict__``): the
  denoising forests' ``MLPRegressor`` autoencoders and their Adam / SGD
  optimisers, ``FrozenEstimator`` (transfer sources), and a few plain
  containers users wrap models in (``Pipeline``, ``StandardScaler``,
  label encoders, ``KFold`` splitters), and the preprocessing users put in
  pipelines before a forest: ``SimpleImputer``, ``StandardScaler``,
  ``MinMaxScaler``, ``OneHotEncoder``, ``OrdinalEncoder``,
  ``ColumnTransformer``, ``FeatureUnion``, ``PCA`` and ``SelectKBest``
  (with the built-in score functions of :data:`SKLEARN_FUNCTIONS` only:
  a function is stored by name and looked up in that list on load).
* **numpy values** are not classes of the file: arrays, scalars, dtypes,
  ``RandomState`` and ``Generator`` states have their own node kinds in the
  codec (see :mod:`forestzoo.io._codec`).

An object is rebuilt with ``cls.__new__(cls)`` and its saved ``__dict__``
(through ``__setstate__`` where the class defines one); no ``__init__``, no
``__reduce__``, no other callable runs.
"""

import re
from importlib import import_module
from importlib.util import find_spec

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"

#: scikit-learn classes a fitted forestzoo model may hold, as (public module, name).
SKLEARN_TYPES = (
    ("sklearn.neural_network", "MLPRegressor"),
    ("sklearn.neural_network", "MLPClassifier"),
    ("sklearn.neural_network._stochastic_optimizers", "AdamOptimizer"),
    ("sklearn.neural_network._stochastic_optimizers", "SGDOptimizer"),
    ("sklearn.frozen", "FrozenEstimator"),
    ("sklearn.pipeline", "Pipeline"),
    ("sklearn.pipeline", "FeatureUnion"),
    ("sklearn.compose", "ColumnTransformer"),
    ("sklearn.impute", "SimpleImputer"),
    ("sklearn.preprocessing", "StandardScaler"),
    ("sklearn.preprocessing", "MinMaxScaler"),
    ("sklearn.preprocessing", "OneHotEncoder"),
    ("sklearn.preprocessing", "OrdinalEncoder"),
    ("sklearn.decomposition", "PCA"),
    ("sklearn.feature_selection", "SelectKBest"),
    ("sklearn.preprocessing", "LabelEncoder"),
    ("sklearn.preprocessing", "LabelBinarizer"),
    ("sklearn.model_selection", "KFold"),
    ("sklearn.model_selection", "StratifiedKFold"),
)


#: Functions a model file may name (``SelectKBest``'s built-in score functions), as (public module, name).
SKLEARN_FUNCTIONS = (
    ("sklearn.feature_selection", "f_classif"),
    ("sklearn.feature_selection", "f_regression"),
    ("sklearn.feature_selection", "r_regression"),
    ("sklearn.feature_selection", "chi2"),
    ("sklearn.feature_selection", "mutual_info_classif"),
    ("sklearn.feature_selection", "mutual_info_regression"),
)


class UntrustedTypeError(TypeError):
    """An object's type is not in :mod:`forestzoo.io`'s allow-list (on save or on load).

    Examples
    --------
    >>> import io
    >>> from sklearn.linear_model import LogisticRegression
    >>> from forestzoo.io import UntrustedTypeError, save
    >>> try:
    ...     save(LogisticRegression(), io.BytesIO())
    ... except UntrustedTypeError as exc:
    ...     print(type(exc).__name__, isinstance(exc, TypeError))
    UntrustedTypeError True
    """


def class_key(cls):
    """``"module:qualname"`` of a class, as written in a model file."""
    return f"{cls.__module__}:{cls.__qualname__}"


def _forestzoo_module_pattern():
    from .. import FAMILIES

    roots = "|".join(["_engine", *map(re.escape, FAMILIES)])
    return re.compile(rf"forestzoo\.(?:{roots})(?:\.{_IDENT})*")


_SKLEARN_ALLOWED = None


def _sklearn_allowed():
    global _SKLEARN_ALLOWED
    if _SKLEARN_ALLOWED is None:
        allowed = {}
        for module, name in SKLEARN_TYPES:
            try:
                cls = getattr(import_module(module), name)
            except (ImportError, AttributeError):  # an older scikit-learn without this class
                continue
            allowed[class_key(cls)] = cls
        _SKLEARN_ALLOWED = allowed
    return _SKLEARN_ALLOWED


def is_allowed(cls):
    """True when instances of ``cls`` may be saved (and therefore loaded)."""
    if not isinstance(cls, type):
        return False
    key = class_key(cls)
    if key in _sklearn_allowed():
        return _sklearn_allowed()[key] is cls
    module, qualname = cls.__module__, cls.__qualname__
    if not _forestzoo_module_pattern().fullmatch(module) or not re.fullmatch(_IDENT, qualname):
        return False
    # the class must be reachable under its own name, or load could not find it
    try:
        return getattr(import_module(module), qualname) is cls
    except ImportError:
        return False


def _functions():
    out = {}
    for module, name in SKLEARN_FUNCTIONS:
        try:
            out[f"{module}:{name}"] = getattr(import_module(module), name)
        except (ImportError, AttributeError):
            continue
    return out


def function_key(obj):
    """``"module:name"`` of an allow-listed function (:data:`SKLEARN_FUNCTIONS`), else None."""
    if not callable(obj) or isinstance(obj, type):
        return None
    for key, fn in _functions().items():
        if fn is obj:
            return key
    return None


def resolve_function(key):
    """The allow-listed function a model file names; :class:`UntrustedTypeError` for any other name."""
    fn = _functions().get(key) if isinstance(key, str) else None
    if fn is None:
        raise UntrustedTypeError(f"The model file names the function {key!r}, which is not in forestzoo.io's "
                                 "allow-list (SelectKBest's built-in score functions); refusing to load it.")
    return fn


def resolve(key):
    """The class a model file names by ``key``; :class:`UntrustedTypeError` if it is not allowed.

    A forestzoo module is imported only if its name is one of forestzoo's
    engine or family modules and it exists in the installed package; no
    other module is ever imported on behalf of a file.
    """
    if not isinstance(key, str) or key.count(":") != 1:
        raise UntrustedTypeError(f"Malformed class reference {key!r} in the model file.")
    sk = _sklearn_allowed().get(key)
    if sk is not None:
        return sk
    module, qualname = key.split(":")
    refusal = UntrustedTypeError(
        f"The model file names the class {key!r}, which is not in forestzoo.io's allow-list "
        "(forestzoo's estimators and engine classes, and a few scikit-learn types); refusing to load it."
    )
    if not _forestzoo_module_pattern().fullmatch(module) or not re.fullmatch(_IDENT, qualname):
        raise refusal
    try:
        if find_spec(module) is None:
            raise refusal
        cls = getattr(import_module(module), qualname, None)
    except ImportError:
        raise refusal from None
    if not isinstance(cls, type) or cls.__module__ != module or cls.__qualname__ != qualname:
        raise refusal
    return cls
