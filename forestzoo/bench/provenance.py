"""Where a benchmark's numbers come from: library versions, the commit of a
source checkout, the machine.  ``run.json`` and the report record them, and a
run resumes only into results made with the same versions."""

import os
import platform
import subprocess
import sys
from pathlib import Path

__all__ = ["CORE", "PEERS", "versions", "machine", "version_changes", "git_commit", "show_versions"]

#: Libraries every run depends on.
CORE = ("numpy", "scipy", "sklearn", "numba", "joblib")
#: Other libraries whose models the benchmark may run; recorded when a run imported them.
PEERS = ("xgboost", "lightgbm", "catboost", "torch", "pandas", "pyarrow")
#: Import name -> distribution name, where they differ.
_DIST = {"sklearn": "scikit-learn"}


def _module_version(name):
    module = sys.modules.get(name)
    if module is None:
        try:
            import importlib

            module = importlib.import_module(name)
        except Exception:  # an optional library that is not installed
            return None
    version = getattr(module, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as dist_version

            version = dist_version(_DIST.get(name, name))
        except Exception:
            return None
    return str(version)


def _forestzoo_version():
    try:
        from importlib.metadata import version

        return version("forestzoo")
    except Exception:  # run from a source tree that is not installed
        from .. import __version__

        return __version__


def git_commit(path=None):
    """``"<sha>"`` (``"<sha>+dirty"`` with uncommitted changes to tracked files) of the
    checkout forestzoo is imported from; None when it is not a git checkout or git
    is absent."""
    root = Path(path) if path is not None else Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):  # no git, or not a repository after all
        return None
    return (sha + ("+dirty" if dirty else "")) if sha else None


def versions(extra=()):
    """``{library: version}``: forestzoo (and ``forestzoo-commit`` from a checkout),
    Python, the core libraries, the peer libraries already imported and the
    top-level packages named in ``extra`` (the user's models)."""
    out = {"forestzoo": _forestzoo_version()}
    commit = git_commit()
    if commit is not None:
        out["forestzoo-commit"] = commit
    out["python"] = platform.python_version()
    for name in CORE:
        out[_DIST.get(name, name)] = _module_version(name)
    for name in sorted(set(PEERS) | set(extra)):
        if name in sys.modules and name not in CORE and name != "forestzoo":
            version = _module_version(name)
            if version is not None:
                out[_DIST.get(name, name)] = version
    return out


def machine():
    """``{"platform": ..., "cpu_count": ..., "machine": ...}`` of this machine."""
    return {"platform": platform.platform(), "machine": platform.machine(),
            "cpu_count": os.cpu_count()}


def version_changes(recorded, current):
    """``{library: (recorded, now)}`` for every library whose version differs.

    ``recorded`` and ``current`` are ``versions()`` dicts; a library recorded
    earlier but not imported by this run yet (a peer library, the user's
    package) is looked up now, so that a resume compares it too.
    """
    recorded = recorded or {}
    always = {"forestzoo", "forestzoo-commit", "python"} | {_DIST.get(n, n) for n in CORE}
    imports = {v: k for k, v in _DIST.items()}
    changes = {}
    for key in sorted(set(recorded) | set(current)):
        if key not in recorded and key not in always:
            continue  # a library this run uses and the earlier one did not
        if key in current or key in always:
            now = current.get(key)
        else:
            now = _module_version(imports.get(key, key))
        if recorded.get(key) != now:
            changes[key] = (recorded.get(key), now)
    return changes


def show_versions(file=None):
    """Print the versions forestzoo runs with and this machine's platform and CPU count.

    Parameters
    ----------
    file : file-like, optional
        Where to print (default ``sys.stdout``).
    """
    file = sys.stdout if file is None else file
    rows = list(versions().items()) + list(machine().items())
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:>{width}}: {value if value is not None else 'not installed'}", file=file)
