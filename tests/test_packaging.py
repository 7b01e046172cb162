"""The distributions built from this checkout: metadata, licence and package data.

Builds the sdist and the wheel with ``python -m build`` (the PyPA build
frontend) into a temporary directory, runs ``twine check`` on both, and reads
the wheel's metadata and file list.  Needs the ``build`` and ``twine``
packages; the test is skipped without them, or when the build backend cannot
be fetched (an isolated build installs ``setuptools`` from the package index).
"""

import shutil
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

import forestzoo

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "forestzoo" / "datasets"

# what the build copies: the package and the files pyproject.toml names
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff", "forestzoo")

# pip's messages when the isolated build environment cannot be installed offline
_NO_INDEX = ("Could not find a version that satisfies", "No matching distribution found",
             "Failed to establish a new connection", "Network is unreachable",
             "Temporary failure in name resolution")


def _setuptools_supports_pep639():
    try:
        major = int(version("setuptools").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return False
    return major >= 77


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """Build sdist and wheel from a copy of the sources; return (sdist, wheel, build log)."""
    pytest.importorskip("build")
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not a source checkout")
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.nbi", "*.nbc", "*.egg-info")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        elif path.is_file():
            shutil.copy2(path, src / name)
    out = tmp / "dist"
    cmd = [sys.executable, "-W", "default", "-m", "build", "--outdir", str(out), str(src)]
    if _setuptools_supports_pep639():
        # the installed backend is recent enough: build without fetching one
        cmd.insert(cmd.index("--outdir"), "--no-isolation")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        if any(message in log for message in _NO_INDEX):
            pytest.skip("the isolated build could not install setuptools (no package index)")
        pytest.fail(f"python -m build failed:\n{log[-4000:]}")
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel, log


def _wheel_metadata(wheel):
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(zf.read(name).decode("utf-8"))


def test_twine_check(dists):
    pytest.importorskip("twine")
    sdist, wheel, _ = dists
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_wheel_metadata(dists):
    _, wheel, _ = dists
    meta = _wheel_metadata(wheel)
    assert meta["Name"] == "forestzoo"
    assert meta["Version"] == forestzoo.__version__
    assert float(meta["Metadata-Version"]) >= 2.4  # the version that has License-Expression
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert meta.get_all("License-File") == ["LICENSE"]
    # PEP 639: a licence expression replaces the licence classifiers and the free-text field
    assert meta["License"] is None
    classifiers = meta.get_all("Classifier")
    assert not [c for c in classifiers if c.startswith("License ::")]
    assert "Programming Language :: Python :: 3" in classifiers
    assert "Topic :: Scientific/Engineering :: Artificial Intelligence" in classifiers
    assert meta["Requires-Python"] == ">=3.10"
    assert meta["Keywords"] and "random forest" in meta["Keywords"]
    assert meta["Description-Content-Type"] == "text/markdown"
    assert "forestzoo" in meta.get_payload()  # the README is the long description


def test_wheel_files(dists):
    _, wheel, _ = dists
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        license_names = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert license_names, "LICENSE is not in the wheel"
        assert zf.read(license_names[0]) == (ROOT / "LICENSE").read_bytes()
    assert "forestzoo/datasets/ATTRIBUTION.md" in names
    bundled = sorted(p.name for p in (DATASETS / "data").iterdir() if p.is_file())
    assert bundled
    missing = [f for f in bundled if f"forestzoo/datasets/data/{f}" not in names]
    assert not missing, f"bundled datasets left out of the wheel: {missing}"
    assert "forestzoo/__init__.py" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc"))]


def test_sdist_files(dists):
    sdist, _, _ = dists
    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for name in ("LICENSE", "README.md", "pyproject.toml", "forestzoo/datasets/ATTRIBUTION.md"):
        assert name in names
    bundled = sorted(p.name for p in (DATASETS / "data").iterdir() if p.is_file())
    assert not [f for f in bundled if f"forestzoo/datasets/data/{f}" not in names]


def test_no_license_deprecation_warning(dists):
    *_, log = dists
    offending = [line for line in log.splitlines()
                 if "license" in line.lower() and ("deprecat" in line.lower() or "warning" in line.lower())]
    assert not offending, "\n".join(offending)


def test_citation_file():
    yaml = pytest.importorskip("yaml")
    path = ROOT / "CITATION.cff"
    if not path.is_file():
        pytest.skip("not a source checkout")
    cff = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["type"] == "software"
    for key in ("message", "title", "authors"):
        assert cff[key]
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert cff["version"] == forestzoo.__version__
    assert cff["license"] == "BSD-3-Clause"
