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
import zipfile
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


class ModelFormatError(ValueError):
    """The file is not a readable forestzoo model: not a model, truncated, tampered, or too new."""


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
    except (ValueError, UnicodeDecodeError, zipfile.BadZipFile, EOFError, OSError) as exc:
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


def read_archive(path_or_file, header_only=False):
    """``(header, graph, {member: array})`` of a model file, every member verified."""
    source = os.fspath(path_or_file) if isinstance(path_or_file, (str, os.PathLike)) else "model file"
    try:
        zf = zipfile.ZipFile(path_or_file, "r")
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise ModelFormatError(
            f"{source}: not a forestzoo model file, or it is truncated or corrupted ({exc})."
        ) from None
    with zf:
        header = read_header(zf, source)
        if header_only:
            return header, None, None
        members = header["members"]
        names = set(zf.namelist()) - {HEADER}
        missing, extra = sorted(set(members) - names), sorted(names - set(members))
        if missing:
            _fail(source, f"member(s) {', '.join(missing[:5])} listed in the header are missing; the file is truncated "
                          "or was modified.")
        if extra:
            _fail(source, f"unexpected member(s) {', '.join(extra[:5])} not listed in the header; the file was modified.")
        data = {}
        for name, meta in members.items():
            if not isinstance(meta, dict) or not isinstance(meta.get("size"), int) or not isinstance(meta.get("sha256"), str):
                _fail(source, f"malformed header entry for {name}.")
            if zf.getinfo(name).file_size != meta["size"]:
                _fail(source, f"member {name} has {zf.getinfo(name).file_size} bytes, the header records "
                              f"{meta['size']}; the file was modified or is corrupted.")
            try:
                raw = zf.read(name)
            except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
                _fail(source, f"member {name} is unreadable ({exc}); the file is truncated or corrupted.")
            if hashlib.sha256(raw).hexdigest() != meta["sha256"]:
                _fail(source, f"checksum mismatch in member {name}: the file was modified or is corrupted.")
            data[name] = raw
    try:
        graph = json.loads(data.pop(GRAPH))
    except (ValueError, UnicodeDecodeError) as exc:
        _fail(source, f"{GRAPH} is not valid JSON ({exc}).")
    arrays = {}
    for name, raw in data.items():
        try:
            arrays[name] = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            _fail(source, f"member {name} is not a plain .npy array ({exc}).")
    return header, graph, arrays
