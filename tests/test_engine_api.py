"""The engine is reached through :mod:`forestzoo._engine.api` only, and the API names what it exports.

Every module of the package outside ``forestzoo/_engine/`` is parsed (not
imported) and each of its import statements resolved to absolute module
names, relative forms included; one that names an engine module other than
``forestzoo._engine.api`` fails the test.
"""

import ast
import inspect
from pathlib import Path

import pytest

import forestzoo
from forestzoo._engine import api

PACKAGE = Path(forestzoo.__file__).parent
ENGINE = "forestzoo._engine"


def _outside_engine():
    return sorted(p for p in PACKAGE.rglob("*.py") if (PACKAGE / "_engine") not in p.parents)


def _module_name(path):
    parts = ["forestzoo", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path):
    """``(line, absolute name, source)`` of every module or package attribute an import of ``path`` names.

    ``source`` is True for the module a ``from ... import`` statement reads
    from, False for the names it imports (``from forestzoo._engine import
    tree`` and ``from .. import _engine`` name modules too).
    """
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, False) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            found.append((node.lineno, source, True))
            found.extend((node.lineno, f"{source}.{alias.name}", False) for alias in node.names if alias.name != "*")
    return found


def _engine_violation(name, source=False):
    """True when an import of ``name`` reaches into the engine other than through its API.

    The engine package itself may only be the source of ``from
    forestzoo._engine import api``.
    """
    if name == ENGINE:
        return not source
    if not name.startswith(ENGINE + "."):
        return False
    return name.split(".")[2] != "api"


def test_the_scan_resolves_every_import_form(tmp_path):
    assert _engine_violation("forestzoo._engine.tree")
    assert _engine_violation("forestzoo._engine.splitters._common")
    assert not _engine_violation("forestzoo._engine.api")
    assert not _engine_violation("forestzoo._engine.api.Tree")
    assert not _engine_violation("forestzoo._engineering")
    assert not _engine_violation("forestzoo._engine", source=True)  # from forestzoo._engine import api
    assert _engine_violation("forestzoo._engine")  # from forestzoo import _engine; import forestzoo._engine
    family = PACKAGE / "ensemble" / "_forest.py"
    assert _module_name(family) == "forestzoo.ensemble._forest"
    names = {n for _, n, _ in _imported_modules(family)}
    assert "forestzoo._engine.api" in names and "forestzoo._validation" in names


def test_only_the_api_is_imported_from_the_engine():
    offending = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in _outside_engine()
        for line, name, source in _imported_modules(path)
        if _engine_violation(name, source)
    ]
    assert not offending, "import the engine through forestzoo._engine.api:\n" + "\n".join(offending)


def test_every_exported_name_exists():
    assert len(api.__all__) == len(set(api.__all__))
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert not missing


def test_every_public_name_of_the_api_is_exported():
    public = {name for name, obj in vars(api).items() if not name.startswith("_") and not inspect.ismodule(obj)}
    assert public == set(api.__all__)


@pytest.mark.parametrize("name", api.__all__)
def test_exports_are_the_engine_objects_themselves(name):
    """Re-exported, not wrapped: a compiled function is the engine's own dispatcher."""
    obj = getattr(api, name)
    home = getattr(obj, "__module__", None)
    if home is None or not home.startswith(ENGINE + ".") or isinstance(obj, (int, float, str, dict, tuple)):
        return  # a constant
    assert home != api.__name__
    defined = getattr(obj, "__name__", None) or obj.py_func.__name__
    assert getattr(__import__(home, fromlist=["_"]), defined) is obj
