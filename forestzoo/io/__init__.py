"""Safe persistence of fitted forestzoo models: numpy arrays and JSON, never pickle.

:func:`save` writes a fitted estimator to one zip file; :func:`load` reads it
back.  Loading never unpickles and never runs code that the file chooses:

* arrays are ``.npy`` members read with ``allow_pickle=False``;
* everything else is one JSON document (``model.json``) describing the
  object graph -- lists, dicts, tuples, numbers, strings, numpy scalars and
  dtypes, random generator states, and objects of allow-listed classes only
  (forestzoo's estimators and engine classes such as
  ``forestzoo._engine.tree.Tree``, plus a few scikit-learn types families
  store, see :mod:`forestzoo.io._allow`);
* an object is rebuilt from its saved attributes with ``cls.__new__`` (and
  the class's own ``__setstate__`` where it has one); no ``__init__``, no
  ``__reduce__``;
* a model holding any other type is refused **at save time**, with an error
  naming the attribute path and the type.

The format is versioned: ``header.json`` records the format name, the format
version ``(major, minor)`` (:data:`FORMAT_VERSION`), the library versions that
wrote it, and the size and SHA-256 of every other member.  A file written by a
newer major version, a truncated file, a file with a member modified, missing
or added, each raise :class:`ModelFormatError` (a ``ValueError``) with a
message saying which.  The checksums detect corruption and edits that do not
recompute them; they are not a signature -- the protection against a
malicious file is that nothing in it is executed.

Why not skops?  skops also avoids pickle, but it is an extra dependency,
it records no per-member checksums, and it handles types outside its
defaults by asking the user to trust them at load time; here such types are
refused when saving, so a file either loads without a trust decision or was
never written.  Numpy's structured node arrays (with their alignment, which
the compiled predictor depends on) are also stored exactly here.

Pickle (and joblib) keep working for forestzoo estimators as before; use them
only for files you trust.

Examples
--------
>>> import io
>>> from sklearn.datasets import load_iris
>>> from forestzoo import RandomForestClassifier
>>> from forestzoo.io import load, save
>>> X, y = load_iris(return_X_y=True)
>>> clf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
>>> buffer = io.BytesIO()
>>> save(clf, buffer)
>>> clone = load(io.BytesIO(buffer.getvalue()))
>>> bool((clone.predict_proba(X) == clf.predict_proba(X)).all())
True
"""

import struct
import zipfile
import zlib

from sklearn.base import BaseEstimator

from ._allow import SKLEARN_TYPES, UntrustedTypeError, class_key, is_allowed
from ._codec import Decoder, Encoder
from ._container import DEFAULT_MAX_BYTES, FORMAT_NAME, FORMAT_VERSION, ModelFormatError, read_archive, save_to
from ._validate import validate_model

__all__ = ["save", "load", "read_header", "FORMAT_NAME", "FORMAT_VERSION", "ModelFormatError",
           "UntrustedTypeError", "UntrustedModelError", "SKLEARN_TYPES", "DEFAULT_MAX_BYTES"]


def save(model, path, *, compress=False):
    """Write a forestzoo estimator (fitted or not) to ``path`` without pickle.

    Parameters
    ----------
    model : estimator
        A forestzoo estimator, or an allow-listed scikit-learn container of
        them (e.g. ``Pipeline``).
    path : str, path-like or writable binary file
        A path is written atomically (a temporary file renamed into place):
        a refused model leaves no file and never replaces an existing one.
    compress : bool, default=False
        Deflate the members (smaller, slower).

    Raises
    ------
    UntrustedTypeError
        The model holds an object whose type is not allow-listed; the message
        names the attribute path and the type.

    Examples
    --------
    >>> import io
    >>> from forestzoo import DecisionTreeClassifier
    >>> from forestzoo.io import load, save
    >>> buffer = io.BytesIO()
    >>> save(DecisionTreeClassifier(max_depth=2), buffer)
    >>> load(io.BytesIO(buffer.getvalue())).max_depth
    2
    """
    if not isinstance(model, BaseEstimator) or not is_allowed(type(model)):
        raise UntrustedTypeError(
            f"forestzoo.io.save expects a forestzoo estimator; got {type(model).__module__}.{type(model).__qualname__}."
        )
    encoder = Encoder()
    graph = encoder.encode(model, type(model).__name__)
    save_to(path, graph, encoder.arrays, class_key(type(model)), compress)


class UntrustedModelError(ModelFormatError, UntrustedTypeError):
    """A file names a class or function outside the allow-list.

    It is both a :class:`ModelFormatError` and an :class:`UntrustedTypeError`,
    so either ``except`` clause catches it.

    Examples
    --------
    >>> from forestzoo.io import ModelFormatError, UntrustedModelError, UntrustedTypeError
    >>> issubclass(UntrustedModelError, ModelFormatError), issubclass(UntrustedModelError, UntrustedTypeError)
    (True, True)
    """


#: Exceptions of the container, the JSON parser, numpy or an allow-listed ``__setstate__`` that a damaged or
#: hostile file can provoke; :func:`load` reports each as a :class:`ModelFormatError`.  ``NotImplementedError``
#: and ``RuntimeError`` are zipfile's answers to an unsupported compression method and an encrypted member.
_LOAD_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, MemoryError,
                RecursionError, RuntimeError, NotImplementedError, EOFError, OSError, UnicodeError, zlib.error,
                struct.error, zipfile.BadZipFile)


def load(path, *, max_bytes=None):
    """Read a model written by :func:`save`, checked before any compiled code sees it.

    Besides the container's checks (sizes, SHA-256 checksums, the
    allow-list), every array that compiled code indexes is checked against
    the model's structure (:mod:`forestzoo.io._validate`): node tables
    (exact dtype, child links in range and acyclic, every node reachable
    from the root exactly once, features in range, finite thresholds), value
    tables, oblique side arrays, online forests' slots and counters, and
    each family's own arrays against the estimator's attributes (DNF
    functions, Haar filters, competence flags, denoising layouts, RVFL
    networks, boosting rounds, deep-forest levels); compact prediction
    tables are rebuilt, not read.  A fitted estimator must hold every
    attribute its prediction reads.  Parameters that would
    let the file choose side effects are reset: ``n_jobs`` to None,
    ``verbose`` to 0 and ``memory`` (e.g. ``Pipeline``'s cache directory) to
    None, on every estimator in the file; set them again after loading if
    wanted.

    Parameters
    ----------
    path : str, path-like or readable binary file
        The model file.
    max_bytes : int, optional
        Cap on the uncompressed bytes of the file's members, each and in
        all (default :data:`~forestzoo.io._container.DEFAULT_MAX_BYTES`,
        4 GiB).  A member is also refused when it declares more bytes than
        its stored size allows.  Loading holds each member once (arrays are
        views of the bytes read), so its memory stays near the members'
        total.

    Returns
    -------
    model : estimator
        The estimator the file holds.

    Raises
    ------
    ModelFormatError
        Not a forestzoo model file; truncated or corrupted; a member modified,
        missing or added (checksum or size mismatch); above ``max_bytes``;
        written by a newer major format version; an array that breaks its
        rule (the message names the attribute and the rule); a fitted
        model without an attribute its prediction reads (named); any other
        failure to parse the file.
    UntrustedModelError
        The file names a class or function outside the allow-list (a
        :class:`ModelFormatError` and an :class:`UntrustedTypeError`).

    Examples
    --------
    >>> import io
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import DecisionTreeClassifier
    >>> from forestzoo.io import load, save
    >>> X, y = load_iris(return_X_y=True)
    >>> buffer = io.BytesIO()
    >>> save(DecisionTreeClassifier(random_state=0).fit(X, y), buffer)
    >>> load(io.BytesIO(buffer.getvalue())).get_depth() > 0
    True
    """
    try:
        header, graph, arrays = read_archive(path, max_bytes=max_bytes)
        if not isinstance(graph, dict) or graph.get("t") != "object" or graph.get("class") != header.get("root_class"):
            raise ModelFormatError("model.json does not describe the estimator the header announces.")
        try:
            model = Decoder(arrays).decode(graph)
        except UntrustedTypeError as exc:
            raise UntrustedModelError(str(exc)) from None
        if not isinstance(model, BaseEstimator):
            raise ModelFormatError(f"the file holds a {type(model).__qualname__}, not an estimator.")
        return validate_model(model, type(model).__name__)
    except (ModelFormatError, FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except RecursionError:
        raise ModelFormatError("model.json is nested too deeply.") from None
    except MemoryError:
        raise ModelFormatError("the model file needs more memory than is available to load it.") from None
    except _LOAD_ERRORS as exc:
        raise ModelFormatError(f"model.json is malformed: {type(exc).__name__}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - load's contract: a file that cannot be read is a ModelFormatError
        raise ModelFormatError(f"the model file cannot be read: {type(exc).__name__}: {exc}") from None


def read_header(path):
    """The header of a model file (format version, writer versions, member checksums), without loading it.

    Members are not verified.

    Parameters
    ----------
    path : str, path-like or readable binary file
        The model file.

    Returns
    -------
    dict
        ``format``, ``format_version``, ``root_class`` (the saved estimator's
        class), ``written_by`` (library versions) and ``members`` (size and
        SHA-256 of every member).

    Raises
    ------
    ModelFormatError
        For a file that is not a model or is written by a newer major format version.

    Examples
    --------
    >>> import io
    >>> from forestzoo import DecisionTreeClassifier
    >>> from forestzoo.io import read_header, save
    >>> buffer = io.BytesIO()
    >>> save(DecisionTreeClassifier(), buffer)
    >>> read_header(io.BytesIO(buffer.getvalue()))["root_class"]
    'forestzoo.tree._classes:DecisionTreeClassifier'
    """
    return read_archive(path, header_only=True)[0]
