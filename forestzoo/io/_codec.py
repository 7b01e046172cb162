"""An object graph as JSON nodes plus a list of numpy arrays, and back.

Node kinds (every JSON object is a tagged node ``{"t": kind, ...}``; a JSON
array is a Python list; ``null``, booleans, integers, finite floats and
strings are themselves):

=============  =================================================================
``float``      non-finite float: ``{"t": "float", "v": "nan" | "inf" | "-inf"}``
``tuple``      ``{"t": "tuple", "v": [nodes]}``; ``set`` / ``frozenset`` alike
``list``       a list seen before: ``{"t": "ref", "id": n}`` (see below)
``dict``       ``{"t": "dict", "id": n, "k": [key nodes], "v": [value nodes]}``
``complex``    ``{"t": "complex", "v": [re, im]}``; ``bytes``: base64 in ``"v"``
``array``      ``{"t": "array", "id": n, "m": member}``, the ``.npy`` member
               holding it; structured arrays add ``"dtype"``: names, formats,
               offsets, itemsize, aligned (``np.load`` loses the alignment flag)
``objarray``   object-dtype array: ``{"t": "objarray", "id": n, "shape": [...],
               "v": [nodes, C order]}``
``scalar``     numpy scalar: ``{"t": "scalar", "dtype": str, "v": node}``
``dtype``      plain numpy dtype: ``{"t": "dtype", "v": str}``
``random``     ``RandomState``/``Generator``: its bit generator name and state
``type``       a numpy scalar type (an estimator's ``dtype=np.float64``) by name
``function``   an allow-listed function (``SelectKBest``'s score functions) by
               ``"module:name"``; any other function is refused
``slice``      ``{"t": "slice", "v": [start, stop, step]}`` (integers or null)
``object``     ``{"t": "object", "id": n, "class": "module:qualname",
               "state": node}``; the class must be allowed (:mod:`._allow`)
``ref``        ``{"t": "ref", "id": n}``: the same object again (shared arrays,
               shared ``classes_``, cycles), as pickle keeps identity
=============  =================================================================

Lists carry an id too: a list node is ``{"t": "list", "id": n, "v": [...]}``.

Decoding is bounded: the graph may nest at most :data:`MAX_DEPTH` levels, an
object array's shape must match its item count before it is allocated, an
array member may back one array node only, and a structured array must have
one of the library's own layouts (:data:`~forestzoo._engine.tree.NODE_DTYPE`
and the like), in either byte order (converted to the machine's).
"""

import base64
import math

import numpy as np

from ._allow import UntrustedTypeError, class_key, function_key, is_allowed, resolve, resolve_function

_FLOAT_NAMES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_BIT_GENERATORS = ("MT19937", "PCG64", "PCG64DXSM", "Philox", "SFC64")
_SCALAR_KINDS = "biufcUS"
#: Deepest nesting of the object graph a file may hold (a fitted model nests about 20 levels).
MAX_DEPTH = 200


def _known_structured(dt):
    """The library's own structured dtype equal to ``dt`` in names, formats (either byte order), offsets and
    size; None for any other layout, which is refused rather than handed to compiled code."""
    from .._engine.api import COMPACT_DTYPE, NODE_DTYPE
    from ..tree._haar import FILTER_DTYPE

    for known in (NODE_DTYPE, COMPACT_DTYPE, FILTER_DTYPE):
        if dt.names == known.names and dt.itemsize == known.itemsize and all(
                dt.fields[n][1] == known.fields[n][1] and dt.fields[n][0].newbyteorder("=") == known.fields[n][0]
                for n in known.names):
            return known
    return None


def _numpy_type(name):
    """A numpy scalar type named by the file (``"float64"``): estimators keep them as ``dtype`` parameters."""
    cls = getattr(np, name, None) if isinstance(name, str) and name.isidentifier() else None
    if not (isinstance(cls, type) and issubclass(cls, np.generic) and cls.__module__ == "numpy"):
        raise UntrustedTypeError(f"The model file names {name!r}, which is not a numpy scalar type.")
    _plain_dtype(np.dtype(cls), "type node")
    return cls


def _float_node(x):
    if math.isfinite(x):
        return x
    return {"t": "float", "v": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def _plain_dtype(dtype, where):
    """``dtype.str`` of a dtype the codec stores by name (no fields, no objects)."""
    if dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in _SCALAR_KINDS + "mM":
        raise UntrustedTypeError(f"{where}: numpy dtype {dtype!r} cannot be saved.")
    return dtype.str


def _structured_spec(dtype, where):
    fields = []
    for name in dtype.names:
        sub, offset = dtype.fields[name][:2]
        fields.append((name, _plain_dtype(sub, f"{where} (field {name!r})"), int(offset)))
    return {
        "names": [f[0] for f in fields], "formats": [f[1] for f in fields], "offsets": [f[2] for f in fields],
        "itemsize": int(dtype.itemsize), "aligned": bool(dtype.isalignedstruct),
    }


def structured_dtype(spec):
    """Rebuild a structured dtype from its JSON spec (plain field formats only)."""
    try:
        formats = [np.dtype(f) for f in spec["formats"]]
        if any(f.kind not in _SCALAR_KINDS + "mM" or f.fields is not None for f in formats):
            raise ValueError("a field has an unsupported dtype")
        return np.dtype({"names": list(spec["names"]), "formats": formats, "offsets": [int(o) for o in spec["offsets"]],
                         "itemsize": int(spec["itemsize"])}, align=bool(spec["aligned"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"invalid structured dtype in the model file: {exc}") from None


class Encoder:
    """Walks a model once; ``arrays`` collects ``(member name, array)`` to write."""

    def __init__(self):
        self.arrays = []
        self._ids = {}  # id(obj) -> node id
        self._keep = []  # keeps temporaries alive so their id() is not reused

    def _memo(self, obj):
        n = len(self._ids)
        self._ids[id(obj)] = n
        self._keep.append(obj)
        return n

    def encode(self, obj, where="model"):
        t = type(obj)
        if obj is None or t is bool or t is str or t is int:
            return obj
        if t is float:
            return _float_node(obj)
        seen = self._ids.get(id(obj))
        if seen is not None:
            return {"t": "ref", "id": seen}
        if t is list:
            n = self._memo(obj)
            return {"t": "list", "id": n, "v": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if t is dict:
            n = self._memo(obj)
            items = list(obj.items())
            return {"t": "dict", "id": n, "k": [self.encode(k, f"{where} key {k!r}") for k, _ in items],
                    "v": [self.encode(v, f"{where}[{k!r}]") for k, v in items]}
        if t is tuple:
            return {"t": "tuple", "v": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if t is set or t is frozenset:
            items = sorted(obj, key=repr)
            return {"t": t.__name__, "v": [self.encode(v, f"{where}{{}}") for v in items]}
        if t is complex:
            return {"t": "complex", "v": [_float_node(obj.real), _float_node(obj.imag)]}
        if t is bytes:
            return {"t": "bytes", "v": base64.b64encode(obj).decode("ascii")}
        if t is np.ndarray:
            return self._array(obj, where)
        if t is slice:
            return {"t": "slice", "v": [self.encode(v, where) for v in (obj.start, obj.stop, obj.step)]}
        if isinstance(obj, type) and issubclass(obj, np.generic) and obj.__module__ == "numpy":
            _plain_dtype(np.dtype(obj), where)
            return {"t": "type", "v": obj.__name__}
        key = function_key(obj)
        if key is not None:
            return {"t": "function", "v": key}
        if isinstance(obj, np.generic) and t.__module__ == "numpy":
            return self._scalar(obj, where)
        if isinstance(obj, np.dtype):
            return {"t": "dtype", "v": _plain_dtype(obj, where)}
        if t is np.random.RandomState:
            n = self._memo(obj)
            return {"t": "random", "id": n, "kind": "RandomState", "state": self.encode(obj.get_state(legacy=False), where)}
        if t is np.random.Generator:
            bg = type(obj.bit_generator).__name__
            if bg not in _BIT_GENERATORS:
                raise UntrustedTypeError(f"{where}: numpy bit generator {bg} cannot be saved.")
            n = self._memo(obj)
            return {"t": "random", "id": n, "kind": "Generator", "state": self.encode(obj.bit_generator.state, where)}
        return self._object(obj, where)

    def _array(self, a, where):
        n = self._memo(a)
        if a.dtype.kind == "O":
            flat = a.ravel(order="C")
            return {"t": "objarray", "id": n, "shape": list(a.shape),
                    "v": [self.encode(v, f"{where}.flat[{i}]") for i, v in enumerate(flat)]}
        node = {"t": "array", "id": n, "m": f"arrays/{len(self.arrays)}.npy"}
        if a.dtype.fields is not None:
            node["dtype"] = _structured_spec(a.dtype, where)
            clean = np.zeros(a.shape, a.dtype)  # zeroed padding: the same model writes the same bytes
            for name in a.dtype.names:
                clean[name] = a[name]
            a = clean
        else:
            _plain_dtype(a.dtype, where)
        self.arrays.append((node["m"], a))
        return node

    def _scalar(self, x, where):
        dt = _plain_dtype(x.dtype, where)
        kind = x.dtype.kind
        if kind == "b":
            v = bool(x)
        elif kind in "iu":
            v = int(x)
        elif kind == "f":
            if x.dtype.itemsize > 8:
                raise UntrustedTypeError(f"{where}: numpy {x.dtype} scalars cannot be saved exactly.")
            v = _float_node(float(x))
        elif kind == "c":
            if x.dtype.itemsize > 16:
                raise UntrustedTypeError(f"{where}: numpy {x.dtype} scalars cannot be saved exactly.")
            v = [_float_node(float(x.real)), _float_node(float(x.imag))]
        elif kind == "U":
            v = str(x)
        elif kind == "S":
            v = base64.b64encode(bytes(x)).decode("ascii")
        else:  # datetime64 / timedelta64: the integer count in the dtype's unit
            v = int(x.view(np.int64))
        return {"t": "scalar", "dtype": dt, "v": v}

    def _object(self, obj, where):
        cls = type(obj)
        if not is_allowed(cls):
            kind = "function" if callable(obj) and not hasattr(obj, "__dict__") else "object"
            raise UntrustedTypeError(
                f"Cannot save {where}: it is a {kind} of type {cls.__module__}.{cls.__qualname__}, which is not "
                "in forestzoo.io's allow-list (forestzoo's estimators and engine classes, numpy arrays and "
                "scalars, plain Python containers and a few scikit-learn types). Use pickle or joblib for "
                "models holding other objects."
            )
        state = obj.__getstate__()
        if type(state) is not dict:
            raise UntrustedTypeError(
                f"Cannot save {where}: {cls.__qualname__}.__getstate__() returned {type(state).__name__}, not a dict."
            )
        if any(type(k) is not str for k in state):
            raise UntrustedTypeError(f"Cannot save {where}: its state has non-string attribute names.")
        n = self._memo(obj)
        enc = {"t": "dict", "id": self._memo(state), "k": list(state),
               "v": [self.encode(v, f"{where}.{k}") for k, v in state.items()]}
        return {"t": "object", "id": n, "class": class_key(cls), "state": enc}


class Decoder:
    """Rebuilds the graph; ``arrays`` maps member names to loaded arrays."""

    def __init__(self, arrays):
        self.arrays = arrays
        self._objs = {}
        self._used = set()

    def _register(self, node, obj):
        n = node["id"]
        if not isinstance(n, int) or n in self._objs:
            raise ValueError(f"invalid or repeated object id {n!r}")
        self._objs[n] = obj
        return obj

    def decode(self, node, depth=0):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if depth > MAX_DEPTH:
            raise ValueError(f"the object graph is nested more than {MAX_DEPTH} levels deep")
        depth += 1
        if isinstance(node, list):  # plain JSON arrays only appear inside tagged nodes
            raise ValueError("untagged JSON array")
        if not isinstance(node, dict):
            raise ValueError(f"unexpected JSON value of type {type(node).__name__}")
        t = node.get("t")
        if t == "ref":
            try:
                return self._objs[node["id"]]
            except (KeyError, TypeError):
                raise ValueError(f"reference to an unknown object id {node.get('id')!r}") from None
        if t == "float":
            return _FLOAT_NAMES[node["v"]]
        if t == "list":
            out = self._register(node, [])
            out.extend(self.decode(v, depth) for v in node["v"])
            return out
        if t == "dict":
            out = self._register(node, {})
            keys, values = node["k"], node["v"]
            if len(keys) != len(values):
                raise ValueError("dict node with unequal key and value counts")
            for k, v in zip(keys, values):
                out[self.decode(k, depth)] = self.decode(v, depth)
            return out
        if t == "tuple":
            return tuple(self.decode(v, depth) for v in node["v"])
        if t == "set":
            return {self.decode(v, depth) for v in node["v"]}
        if t == "frozenset":
            return frozenset(self.decode(v, depth) for v in node["v"])
        if t == "complex":
            re_, im = (self.decode(v, depth) for v in node["v"])
            return complex(re_, im)
        if t == "bytes":
            return base64.b64decode(node["v"], validate=True)
        if t == "array":
            return self._register(node, self._array(node))
        if t == "objarray":
            shape, items = node["shape"], node["v"]
            if not isinstance(items, list) or not isinstance(shape, list) or len(shape) > 32 or any(
                    type(d) is not int or d < 0 for d in shape) or math.prod(shape) != len(items):
                raise ValueError("object array node whose shape does not match its number of items")
            out = self._register(node, np.empty(tuple(shape), dtype=object))  # no larger than the JSON list
            flat = [self.decode(v, depth) for v in items]
            for i, v in enumerate(flat):  # item by item: sequences stay single elements
                out.flat[i] = v
            return out
        if t == "scalar":
            return self._scalar(node, depth)
        if t == "dtype":
            dt = np.dtype(node["v"])
            _plain_dtype(dt, "dtype node")
            return dt
        if t == "function":
            return resolve_function(node["v"])
        if t == "type":
            return _numpy_type(node["v"])
        if t == "slice":
            start_, stop, step = (self.decode(v, depth) for v in node["v"])
            if not all(v is None or type(v) is int for v in (start_, stop, step)):
                raise ValueError("a slice node holds integers or null only")
            return slice(start_, stop, step)
        if t == "random":
            return self._random(node, depth)
        if t == "object":
            return self._object(node, depth)
        raise ValueError(f"unknown node kind {t!r}")

    def _array(self, node):
        try:
            a = self.arrays[node["m"]]
        except (KeyError, TypeError):
            raise ValueError(f"array member {node.get('m')!r} is missing") from None
        if node["m"] in self._used:  # save writes each array once; a second use would alias two attributes
            raise ValueError(f"array member {node['m']!r} is used twice")
        self._used.add(node["m"])
        if "dtype" in node:
            dt = structured_dtype(node["dtype"])
            if a.dtype.fields is None or a.dtype.itemsize != dt.itemsize or a.dtype.names != dt.names:
                raise ValueError(f"array member {node['m']!r} does not match its recorded dtype")
            known = _known_structured(dt)
            if known is None:
                raise ValueError(f"array member {node['m']!r} has a structured dtype forestzoo never writes: {dt}")
            if not a.dtype.isnative or any(not a.dtype.fields[n][0].isnative for n in a.dtype.names):
                a = a.astype(a.dtype.newbyteorder("="))  # written on a machine of the other byte order
            a = a.view(known)  # np.load drops the aligned flag; the engine's compiled code keys on it
        elif a.dtype.fields is not None:
            raise ValueError(f"array member {node['m']!r} is structured but the graph records no dtype for it")
        return a

    def _scalar(self, node, depth):
        dt = np.dtype(node["dtype"])
        _plain_dtype(dt, "scalar node")
        v = node["v"]
        if dt.kind == "c":
            v = complex(*(self.decode(p, depth) for p in v))
        elif dt.kind == "S":
            v = base64.b64decode(v, validate=True)
        elif dt.kind in "mM":
            return np.array(int(v), dtype=np.int64).view(dt)[()]
        else:
            v = self.decode(v, depth)
        return dt.type(v)

    def _random(self, node, depth):
        state = self.decode(node["state"], depth)
        if node["kind"] == "RandomState":
            rs = self._register(node, np.random.RandomState())
            rs.set_state(state)
            return rs
        if node["kind"] == "Generator":
            name = state.get("bit_generator") if isinstance(state, dict) else None
            if name not in _BIT_GENERATORS:
                raise UntrustedTypeError(f"The model file names an unknown bit generator {name!r}.")
            bg = getattr(np.random, name)()
            bg.state = state
            return self._register(node, np.random.Generator(bg))
        raise ValueError(f"unknown random state kind {node['kind']!r}")

    def _object(self, node, depth):
        cls = resolve(node["class"])
        obj = self._register(node, cls.__new__(cls))
        state = self.decode(node["state"], depth)
        if not isinstance(state, dict) or any(type(k) is not str for k in state):
            raise ValueError(f"the state of a {cls.__qualname__} is not a dict of attribute names")
        setstate = getattr(obj, "__setstate__", None)
        if setstate is not None:
            setstate(state)
        else:
            obj.__dict__.update(state)
        return obj
