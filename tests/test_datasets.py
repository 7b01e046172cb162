"""forestzoo.datasets: bundled data, the data directory, checksums and errors."""

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets as skd

import forestzoo.datasets as fzd
from forestzoo.datasets import DataFile, DatasetInfo, list_datasets, load_dataset
from forestzoo.datasets._readers import (
    TableFormat,
    encode_target,
    read_table,
    write_canonical,
)
from forestzoo.datasets._registry import REGISTRY

BUNDLED = [d.name for d in list_datasets(bundled=True)]
EXTERNAL = [d.name for d in list_datasets(bundled=False)]
DATA_DIR = Path(fzd.__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


@pytest.fixture
def data_home():
    """The directory of non-bundled files: $FORESTZOO_DATA, else ../shared/datasets."""
    home = os.environ.get("FORESTZOO_DATA") or (SHARED if SHARED.is_dir() else None)
    if home is None:
        pytest.skip("no data directory: set FORESTZOO_DATA to run data-directory tests")
    return Path(home)


def _check_xy(info, X, y, n_samples=None):
    assert X.shape == (n_samples or info.n_samples, info.n_features)
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert np.isfinite(X).all()
    assert y.shape == (X.shape[0],)
    if info.task == "classification":
        assert y.dtype == np.int64
        if n_samples is None:
            assert len(np.unique(y)) == info.n_classes
    else:
        assert y.dtype == np.float64 and np.isfinite(y).all()


def test_registry_entries_are_complete():
    assert len(BUNDLED) >= 20 and len(EXTERNAL) >= 5
    for info in list_datasets():
        assert info.task in ("classification", "regression")
        assert (info.n_classes is None) == (info.task == "regression")
        assert info.source and info.licence and info.files
        assert all(len(f.sha256) == 64 for f in info.files)
        assert set(info.splits) <= {"train", "test"}


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_dataset_loads(name):
    info = fzd.get_dataset_info(name)
    X, y = load_dataset(name)
    _check_xy(info, X, y)


def test_bundled_files_match_registry_and_stay_small():
    files = {p.name: p.stat().st_size for p in DATA_DIR.iterdir()}
    assert set(files) == {f"{name}.csv.gz" for name in BUNDLED}
    assert max(files.values()) < 300_000
    assert sum(files.values()) < 3_000_000


def test_attribution_names_every_bundled_dataset():
    text = (DATA_DIR.parent / "ATTRIBUTION.md").read_text(encoding="utf-8")
    for name in BUNDLED:
        assert f"`{name}`" in text


@pytest.mark.parametrize("name, loader", [
    ("iris", skd.load_iris), ("wine", skd.load_wine),
    ("breast_cancer_wisconsin_diag", skd.load_breast_cancer),
    ("optdigits_test_sklearn", skd.load_digits),
])
def test_bundled_copies_equal_scikit_learn_loaders(name, loader):
    X, y = load_dataset(name)
    X_ref, y_ref = loader(return_X_y=True)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


def test_list_datasets_filters():
    regression = list_datasets(task="regression")
    assert regression and all(d.task == "regression" for d in regression)
    assert all(d.bundled for d in list_datasets(bundled=True))
    assert not any(d.bundled for d in list_datasets(bundled=False))
    with pytest.raises(ValueError, match="task must be one of"):
        list_datasets(task="clustering")


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="Unknown dataset 'irs'.*iris"):
        load_dataset("irs")


def test_split_is_refused_where_there_is_none():
    with pytest.raises(ValueError, match="no split 'train'"):
        load_dataset("iris", split="train")
    with pytest.raises(ValueError, match="'train', 'test'"):
        load_dataset("pendigits", split="validation")


@pytest.mark.parametrize("name", EXTERNAL)
def test_data_directory_dataset_loads(name, data_home):
    info = fzd.get_dataset_info(name)
    if not all((data_home / f.name).is_file() for f in info.files):
        pytest.skip(f"{name}: files not in {data_home}")
    X, y = load_dataset(name, data_home=data_home)
    _check_xy(info, X, y)


def test_official_split_parts_add_up(data_home):
    if not (data_home / "pendigits.tra").is_file():
        pytest.skip("pendigits not in the data directory")
    info = fzd.get_dataset_info("pendigits")
    X_train, y_train = load_dataset("pendigits", data_home=data_home, split="train")
    X_test, y_test = load_dataset("pendigits", data_home=data_home, split="test")
    _check_xy(info, X_train, y_train, n_samples=7494)
    _check_xy(info, X_test, y_test, n_samples=3498)
    X_all, _ = load_dataset("pendigits", data_home=data_home)
    np.testing.assert_array_equal(X_all, np.vstack([X_train, X_test]))


def test_missing_file_error_says_where_to_put_it(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        load_dataset("letter", data_home=tmp_path)
    message = str(err.value)
    assert "letter-recognition.data" in message
    assert str(tmp_path) in message and "FORESTZOO_DATA" in message


def test_missing_data_home_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv("FORESTZOO_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="a data directory.*FORESTZOO_DATA"):
        load_dataset("twonorm")
    monkeypatch.setenv("FORESTZOO_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="the data directory"):
        load_dataset("twonorm")


def test_checksum_mismatch_is_refused_with_the_path(tmp_path):
    bad = tmp_path / "letter-recognition.data"
    bad.write_text("Letter,1\nA,1\n")
    with pytest.raises(ValueError, match="does not match the recorded checksum") as err:
        load_dataset("letter", data_home=tmp_path)
    assert str(bad) in str(err.value)


def test_corrupt_bundled_file_is_refused(monkeypatch):
    info = REGISTRY["iris"]
    fake = DatasetInfo(**{**info.__dict__, "bundle_sha256": "0" * 64})
    monkeypatch.setitem(REGISTRY, "iris", fake)
    with pytest.raises(ValueError, match="iris.csv.gz does not match"):
        load_dataset("iris")


def test_data_directory_reader_on_a_made_up_dataset(monkeypatch, tmp_path):
    # row id first, whitespace-separated, text labels last, an official split
    (tmp_path / "toy.tra").write_text("r1  0.5 1\tb\nr2 -2 3e2 a\n")
    (tmp_path / "toy.tes").write_text("r3 7 8 c\n")
    sha = {n: hashlib.sha256((tmp_path / n).read_bytes()).hexdigest()
           for n in ("toy.tra", "toy.tes")}
    info = DatasetInfo("toy", "classification", 3, 2, 3, "made up", "none",
                       (DataFile("toy.tra", sha["toy.tra"], "train"),
                        DataFile("toy.tes", sha["toy.tes"], "test")),
                       TableFormat(sep=None, drop=(0,)))
    monkeypatch.setitem(REGISTRY, "toy", info)
    X, y = load_dataset("toy", data_home=tmp_path)
    np.testing.assert_array_equal(X, [[0.5, 1], [-2, 300], [7, 8]])
    np.testing.assert_array_equal(y, [1, 0, 2])
    X_test, y_test = load_dataset("toy", data_home=tmp_path, split="test")
    assert X_test.shape == (1, 2) and y_test.tolist() == [2]


def test_ragged_table_error_names_the_row(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("1,2,3\n4,5\n")
    with pytest.raises(ValueError, match="row 2 has 2 columns, expected 3"):
        read_table(path, TableFormat())


def test_canonical_files_round_trip_exactly(tmp_path):
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50) * 10.0 ** rng.integers(-8, 8, size=50),
                         rng.integers(0, 5, size=50)])
    y = rng.integers(1, 4, size=50)
    path = tmp_path / "t.csv.gz"
    write_canonical(path, X, y, ["a,b", "c"])
    X2, labels, names = read_table(path, fzd._readers.CANONICAL)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(encode_target(labels, "classification"), y)
    assert names == ["a;b", "c"]
    first = hashlib.sha256(path.read_bytes()).hexdigest()
    write_canonical(path, X, y, ["a,b", "c"])  # no time stamp: same bytes again
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first


def test_encode_target():
    assert encode_target(np.array(["2", "1", "7"]), "classification").tolist() == [2, 1, 7]
    assert encode_target(np.array(["b", "a", "b"]), "classification").tolist() == [1, 0, 1]
    assert encode_target(np.array(["0.5", "2"]), "regression").dtype == np.float64
    with pytest.raises(ValueError, match="not integers"):
        encode_target(np.array(["0.5", "1"]), "classification")
