"""The zip container: members, checksums, version header.

Layout of a model file (a zip archive)::

    arrays/0.npy, arrays/1.npy, ...   numpy arrays (.npy, never pickled)
    model.json                        the object graph (see _codec)
    header.json                       format name and version, library versions,
                                      the root class, and the SHA-256 and size
                                      of every other member

``header.json`` is read first.  Every member named in it must be present with
its recorded size and SHA-256, and nothing else may be in the archive.
Members are written with a fixed timestamp and padding bytes zeroed, so the
same model always gives the same file.
"""

import hashlib
import io
import json
import os
import platform
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

FORMAT_NAME = "forestzoo-model"
#: (major, minor).  A reader accepts any minor version of its major version:
#: a minor version only adds optional header fields or node kinds no older
#: model uses.  A new major version is refused with an explicit message.
FORMAT_VERSION = (1, 0)
HEADER = "header.json"
GRAPH = "model.json"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


#: What :mod:`zipfile` and :mod:`zlib` raise on a damaged or hostile container, each reported as a
#: ``ModelFormatError``: ``NotImplementedError`` is zipfile's answer to an unsupported compression
#: method and ``RuntimeError`` to an encrypted member (caught exception types, not placeholders).
_ZIP_ERRORS = (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError, zlib.error)


class ModelFormatError(ValueError):
    """The file is not a readable forestzoo model: not a model, truncated, tampered, or too new.

    Examples
    --------
    >>> import io
    >>> from forestzoo.io import ModelFormatError, load
    >>> try:
    ...     load(io.BytesIO(b"not a model"))
    ... except ModelFormatError as exc:
    ...     print(type(exc).__name__, isinstance(exc, ValueError))
    ModelFormatError True
    """


class _HashingWriter(io.RawIOBase):
    """Write-through file object that hashes and counts what passes."""

    def __init__(self, raw):
        self.raw, self.sha, self.size = raw, hashlib.sha256(), 0

    def writable(self):
        return True

    def write(self, b):
        b = memoryview(b).cast("B")
        self.sha.update(b)
        self.size += len(b)
        self.raw.write(b)
        return len(b)


def _zinfo(name, compress):
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    return info


def write_archive(target, graph, arrays, root_class, compress):
    """Write members, then the header with their checksums, into ``target`` (path or binary file)."""
    from .. import __version__
    import sklearn

    members = {}
    with zipfile.ZipFile(target, "w", allowZip64=True) as zf:
        for name, a in arrays:
            with zf.open(_zinfo(name, compress), "w", force_zip64=a.nbytes > 2**30) as raw:
                w = _HashingWriter(raw)
                np.lib.format.write_array(w, a, allow_pickle=False)
                members[name] = {"sha256": w.sha.hexdigest(), "size": w.size}
        body = json.dumps(graph, allow_nan=False, separators=(",", ":")).encode("utf-8")
        zf.writestr(_zinfo(GRAPH, compress), body)
        members[GRAPH] = {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
        header = {
            "format": FORMAT_NAME,
            "format_version": list(FORMAT_VERSION),
            "root_class": root_class,
            "written_by": {"forestzoo": __version__, "numpy": np.__version__, "scikit-learn": sklearn.__version__,
                           "python": platform.python_version()},
            "members": members,
        }
        zf.writestr(_zinfo(HEADER, compress), json.dumps(header, indent=1, allow_nan=False))


def save_to(path_or_file, graph, arrays, root_class, compress):
    """Write atomically to a path (temporary file, then rename), or straight into a binary file."""
    if not isinstance(path_or_file, (str, os.PathLike)):
        write_archive(path_or_file, graph, arrays, root_class, compress)
        return
    path = Path(path_or_file)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write_archive(tmp, graph, arrays, root_class, compress)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _fail(source, why):
    raise ModelFormatError(f"{source}: {why}")


def read_header(zf, source):
    try:
        header = json.loads(zf.read(HEADER))
    except KeyError:
        _fail(source, f"no {HEADER}: this is not a forestzoo model file.")
    except RecursionError:
        _fail(source, f"{HEADER} is nested too deeply; the file is corrupted.")
    except (UnicodeDecodeError, *_ZIP_ERRORS) as exc:
        _fail(source, f"{HEADER} is unreadable ({exc}); the file is corrupted or truncated.")
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        _fail(source, f"not a forestzoo model file (format {header.get('format') if isinstance(header, dict) else None!r}, "
                      f"expected {FORMAT_NAME!r}).")
    version = header.get("format_version")
    if not (isinstance(version, list) and len(version) == 2 and all(type(v) is int for v in version)):
        _fail(source, f"malformed format_version {version!r}.")
    if version[0] > FORMAT_VERSION[0]:
        by = header.get("written_by", {}).get("forestzoo", "a newer forestzoo") if isinstance(
            header.get("written_by"), dict) else "a newer forestzoo"
        _fail(source, f"written in model format {version[0]}.{version[1]} (by forestzoo {by}); this forestzoo reads "
                      f"format {FORMAT_VERSION[0]}.x only. Upgrade forestzoo to load it.")
    if version[0] < 1:
        _fail(source, f"unknown model format version {version[0]}.{version[1]}.")
    if not isinstance(header.get("members"), dict) or GRAPH not in header["members"]:
        _fail(source, f"the header lists no {GRAPH}; the file is corrupted.")
    return header


#: Default absolute cap, in bytes, on the uncompressed members of a file (:func:`forestzoo.io.load`'s
#: ``max_bytes``).
DEFAULT_MAX_BYTES = 4 * 2**30
#: A deflated member may not declare more than this many bytes per compressed byte (deflate itself
#: cannot exceed about 1032); a stored member must declare exactly its stored size.
MAX_DEFLATE_RATIO = 1100
#: ``model.json`` and ``header.json`` caps, in bytes, below ``max_bytes``.
MAX_JSON_BYTES = 256 * 2**20
MAX_HEADER_BYTES = 2**20
#: Longest ``.npy`` header read (the header is a short Python dict literal).
MAX_NPY_HEADER = 65536
_CHUNK = 2**20


def _member_cap(info, limit, source):
    """Refuse a member whose declared size is impossible for its stored size, or above ``limit``."""
    if info.flag_bits & 0x1:
        _fail(source, f"member {info.filename} is encrypted; a model file never is.")
    if info.compress_type == zipfile.ZIP_STORED:
        if info.file_size != info.compress_size:
            _fail(source, f"member {info.filename} is stored uncompressed with {info.compress_size} bytes but declares "
                          f"{info.file_size}; the file is corrupted.")
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        if info.file_size > MAX_DEFLATE_RATIO * info.compress_size + 1024:
            _fail(source, f"member {info.filename} declares {info.file_size} bytes from {info.compress_size} "
                          "compressed bytes, more than deflate can produce; the file is corrupted.")
    else:
        _fail(source, f"member {info.filename} uses compression method {info.compress_type}; model files are "
                      "stored or deflated only.")
    if info.file_size > limit:
        _fail(source, f"member {info.filename} declares {info.file_size} bytes, above the cap of {limit} bytes "
                      "(raise load's max_bytes for a larger model you trust to be one).")


def _read_member(zf, info, meta, source):
    """The member's bytes in one ``bytearray`` of its declared size, hashed while read; never more."""
    size = meta["size"]
    buf = bytearray(size)
    view = memoryview(buf)
    sha = hashlib.sha256()
    got = 0
    with zf.open(info) as f:
        while got < size:
            n = f.readinto(view[got:got + _CHUNK])
            if not n:
                break
            sha.update(view[got:got + n])
            got += n
        if got != size or f.read(1):
            _fail(source, f"member {info.filename} does not hold the {size} bytes the header records; the file was "
                          "modified or is corrupted.")
    if sha.hexdigest() != meta["sha256"]:
        _fail(source, f"checksum mismatch in member {info.filename}: the file was modified or is corrupted.")
    return buf


def npy_array(buf, name, source):
    """The array of a ``.npy`` member, a view of ``buf`` (no copy): shape checked against the bytes first.

    Object dtypes are refused; a non-native byte order or Fortran order is
    converted (a copy) so compiled code sees one layout.
    """
    fast = _plain_npy_header(buf)
    if fast is not None:
        shape, fortran, dtype, offset = fast
        return _npy_view(buf, name, source, shape, fortran, dtype, offset)
    fp = io.BytesIO(memoryview(buf)[:MAX_NPY_HEADER + 16])
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp, max_header_size=MAX_NPY_HEADER)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp, max_header_size=MAX_NPY_HEADER)
        else:
            raise ValueError(f"unknown .npy version {version}")
    except Exception as exc:  # noqa: BLE001 - numpy parses the header text with its own tokenizer
        _fail(source, f"member {name} is not a plain .npy array ({type(exc).__name__}: {exc}).")
    return _npy_view(buf, name, source, shape, fortran, dtype, fp.tell())


#: The header numpy writes, e.g. ``{'descr': '<f8', 'fortran_order': False, 'shape': (13, 3), }``
_HEADER = re.compile(rb"\{'descr': (.{1,4096}), 'fortran_order': (True|False), 'shape': \(((?:[0-9]{1,19}, ?)*"
                     rb"[0-9]{0,19})\), \} *\n", re.DOTALL)
_DESCR_CACHE = {}


def _descr_dtype(text):
    """The dtype of a header's ``descr`` text, parsed by numpy once per distinct text (a model's node
    tables all share one), as numpy's reader does: ``ast.literal_eval``, then ``descr_to_dtype``."""
    dtype = _DESCR_CACHE.get(text)
    if dtype is None:
        import ast

        dtype = np.lib.format.descr_to_dtype(ast.literal_eval(text.decode("latin1")))
        if len(_DESCR_CACHE) < 256:
            _DESCR_CACHE[text] = dtype
    return dtype


def _plain_npy_header(buf):
    """``(shape, fortran, dtype, data offset)`` of a version 1.0 header in numpy's own layout, read with one
    regular expression and a cache of descr texts (numpy's reader compiles the header text, ~0.5 ms an
    array); None otherwise (numpy's reader then decides)."""
    if len(buf) < 10 or bytes(buf[:8]) != b"\x93NUMPY\x01\x00":
        return None
    n = int.from_bytes(buf[8:10], "little")
    m = _HEADER.fullmatch(bytes(buf[10:10 + n]))
    if m is None:
        return None
    try:
        dtype = _descr_dtype(m.group(1))
    except Exception:  # noqa: BLE001 - numpy's reader gives the error message
        return None
    shape = tuple(int(d) for d in m.group(3).split(b",") if d.strip())
    return shape, m.group(2) == b"True", dtype, 10 + n


def _npy_view(buf, name, source, shape, fortran, dtype, offset):
    if dtype.hasobject or dtype.subdtype is not None or (dtype.kind == "V" and dtype.fields is None):
        _fail(source, f"member {name} has dtype {dtype}, which a model file never stores.")
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        _fail(source, f"member {name} has an invalid shape {shape}.")
    count = 1
    for d in shape:
        count *= d
    if count * dtype.itemsize != len(buf) - offset:
        _fail(source, f"member {name} declares shape {shape} of {dtype} ({count * dtype.itemsize} bytes) but holds "
                      f"{len(buf) - offset} bytes of data.")
    a = np.ndarray(shape, dtype=dtype, buffer=buf, offset=offset, order="F" if fortran else "C")
    if not dtype.isnative and dtype.fields is None:
        a = a.astype(dtype.newbyteorder("="))
    return np.ascontiguousarray(a)


def read_archive(path_or_file, header_only=False, max_bytes=None):
    """``(header, graph, {member: array})`` of a model file, every member verified.

    Every member's size is checked against its stored size, against
    ``max_bytes`` (:data:`DEFAULT_MAX_BYTES` when None; the total of all
    members too) and against the header before anything of it is read; a
    member is read once, into a buffer of its recorded size, which its array
    then views.
    """
    limit = DEFAULT_MAX_BYTES if max_bytes is None else int(max_bytes)
    source = os.fspath(path_or_file) if isinstance(path_or_file, (str, os.PathLike)) else "model file"
    try:
        zf = zipfile.ZipFile(path_or_file, "r")
    except FileNotFoundError:
        raise
    except _ZIP_ERRORS as exc:
        raise ModelFormatError(
            f"{source}: not a forestzoo model file, or it is truncated or corrupted ({exc})."
        ) from None
    with zf:
        infos = {}
        for info in zf.infolist():
            if info.filename in infos:
                _fail(source, f"member {info.filename} appears twice; the file was modified.")
            infos[info.filename] = info
        if HEADER not in infos:
            _fail(source, f"no {HEADER}: this is not a forestzoo model file.")
        _member_cap(infos[HEADER], min(limit, MAX_HEADER_BYTES), source)
        header = read_header(zf, source)
        if header_only:
            return header, None, None
        members = header["members"]
        names = set(infos) - {HEADER}
        missing, extra = sorted(set(members) - names), sorted(names - set(members))
        if missing:
            _fail(source, f"member(s) {', '.join(missing[:5])} listed in the header are missing; the file is truncated "
                          "or was modified.")
        if extra:
            _fail(source, f"unexpected member(s) {', '.join(extra[:5])} not listed in the header; the file was modified.")
        total = 0
        for name, meta in members.items():
            if not isinstance(meta, dict) or type(meta.get("size")) is not int or not isinstance(meta.get("sha256"), str):
                _fail(source, f"malformed header entry for {name}.")
            info = infos[name]
            _member_cap(info, min(limit, MAX_JSON_BYTES) if name == GRAPH else limit, source)
            if info.file_size != meta["size"]:
                _fail(source, f"member {name} has {info.file_size} bytes, the header records "
                              f"{meta['size']}; the file was modified or is corrupted.")
            total += info.file_size
        if total > limit:
            _fail(source, f"the members declare {total} bytes in all, above the cap of {limit} bytes (raise load's "
                          "max_bytes for a larger model you trust to be one).")
        data = {}
        for name, meta in members.items():
            try:
                data[name] = _read_member(zf, infos[name], meta, source)
            except ModelFormatError:
                raise
            except _ZIP_ERRORS as exc:
                _fail(source, f"member {name} is unreadable ({type(exc).__name__}: {exc}); the file is truncated "
                              "or corrupted.")
    try:
        graph = json.loads(bytes(data.pop(GRAPH)))
    except (ValueError, UnicodeDecodeError) as exc:
        _fail(source, f"{GRAPH} is not valid JSON ({exc}).")
    except RecursionError:
        _fail(source, f"{GRAPH} is nested too deeply.")
    arrays = {name: npy_array(buf, name, source) for name, buf in data.items()}
    return header, graph, arrays
