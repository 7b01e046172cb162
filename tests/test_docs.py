"""The documentation site builds, offline and with warnings as errors, with every example executed.

The build is the documented command, ``python -m sphinx -W --keep-going -b html docs <out>``, run in a
subprocess into a temporary directory. It needs the ``docs`` packages (also in the ``test`` extra) and is
skipped without them.
"""

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"


def test_api_reference_lists_every_public_object():
    """docs/api.rst names every object of forestzoo.__all__ and of the public subpackages' __all__."""
    import forestzoo

    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   ([A-Za-z_][A-Za-z0-9_]*)$", text, flags=re.M))
    expected = {"all_estimators", "show_versions"}
    for family in forestzoo.FAMILIES:
        expected.update(importlib.import_module(f"forestzoo.{family}").__all__)
    for module in ("io", "stats", "datasets"):
        expected.update(importlib.import_module(f"forestzoo.{module}").__all__)
    # forestzoo.dask imports dask, an optional extra: its __all__ is read from the source
    source = (DOCS.parent / "forestzoo" / "dask.py").read_text(encoding="utf-8")
    expected.update(next(ast.literal_eval(node.value) for node in ast.parse(source).body
                         if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "__all__"))
    expected.update({"to_sklearn", "from_sklearn"})
    assert expected - listed == set()


def test_every_family_has_a_page_and_an_example():
    import forestzoo

    index = (DOCS / "families" / "index.rst").read_text(encoding="utf-8")
    examples = "\n".join(p.read_text(encoding="utf-8") for p in EXAMPLES.glob("plot_*.py"))
    for family in forestzoo.FAMILIES:
        assert (DOCS / "families" / f"{family}.rst").is_file(), family
        assert re.search(rf"^   {family}$", index, flags=re.M), family
        module = importlib.import_module(f"forestzoo.{family}")
        assert any(re.search(rf"\b{name}\b", examples) for name in module.__all__), (
            f"no example uses an estimator of forestzoo.{family}")


@pytest.mark.xdist_group("docs")
def test_docs_build(tmp_path):
    for package in ("sphinx", "numpydoc", "sphinx_gallery", "myst_parser", "pydata_sphinx_theme", "matplotlib",
                    "sphinx-mathjax-offline"):
        pytest.importorskip(package)
    out = tmp_path / "html"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        # run_stale_examples: execute every example, also those that an earlier build left unchanged
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-d", str(tmp_path / "doctrees"),
         "-D", "sphinx_gallery_conf.run_stale_examples=1", str(DOCS), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-10000:]
    assert (out / "index.html").is_file()
    assert (out / "api.html").is_file()
    # formulas render offline: the pages load MathJax from the site itself, never from a CDN
    assert (out / "_static" / "mathjax" / "tex-chtml.js").is_file()
    page = (out / "architecture.html").read_text(encoding="utf-8")
    assert "_static/mathjax/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    for name in ("RandomForestClassifier", "OneVsAllObliqueForestClassifier", "DNRFClassifier"):
        assert list((out / "generated").glob(f"forestzoo.*.{name}.html")), name
    # every example ran and drew its figure
    for script in sorted(EXAMPLES.glob("plot_*.py")):
        page = out / "auto_examples" / f"{script.stem}.html"
        assert page.is_file(), script.name
        assert list((out / "_images").glob(f"sphx_glr_{script.stem}_*.png")), f"{script.name} drew no figure"
