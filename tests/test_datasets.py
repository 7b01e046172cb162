"""forestzoo.datasets: bundled data, the data directory, checksums and errors."""

import gzip
import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets as skd

import forestzoo.datasets as fzd
from forestzoo.datasets import DataFile, DatasetInfo, list_datasets, load_dataset
from forestzoo.datasets._base import _sha256
from forestzoo.datasets._readers import (
    IdxFormat,
    LibSVMFormat,
    TableFormat,
    encode_target,
    read_idx,
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
    assert np.isfinite(X).all() != info.missing_values  # NaN exactly where declared
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
        assert info.source and info.licence and (info.files or info.synthetic)
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


#: Loading these whole takes seconds; their test checks every file's checksum
#: but parses only the (smaller) test part.
BIG = {"fashion_mnist": 10000, "ijcnn1": 91701}


@pytest.mark.parametrize("name", EXTERNAL)
def test_data_directory_dataset_loads(name, data_home):
    info = fzd.get_dataset_info(name)
    if not all((data_home / f.name).is_file() for f in info.files):
        pytest.skip(f"{name}: files not in {data_home}")
    if name in BIG:
        for f in info.files:
            assert _sha256(data_home / f.name) == f.sha256
        X, y = load_dataset(name, data_home=data_home, split="test")
        _check_xy(info, X, y, n_samples=BIG[name])
        assert len(np.unique(y)) == info.n_classes
        return
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


def test_every_manifest_dataset_is_registered():
    manifest = SHARED / "MANIFEST.tsv"
    if not manifest.is_file():
        pytest.skip("no shared/datasets/MANIFEST.tsv")
    rows = manifest.read_text(encoding="utf-8").splitlines()[1:]
    names = {row.split("\t")[0] for row in rows if row.strip()}
    assert names - set(REGISTRY) == set()


def test_metadata_of_new_entries():
    info = fzd.get_dataset_info
    assert info("orl_faces").image_shape == (32, 32)
    assert info("fashion_mnist").image_shape == (28, 28)
    assert info("fashion_mnist").splits == ("train", "test")
    assert info("landmine").group_name == "task"
    assert info("mammographic_masses").missing_values
    assert [t for t, _ in info("energy_efficiency").targets] == ["heating", "cooling"]
    assert "lecture_mpsvm_raf.csv" in info("seeds").tables
    assert "IJCNN" in info("ijcnn1").paper_names
    assert info("seeds").bundled  # MIT-licensed source, 4 KB


def test_landmine_groups_and_multi_targets(data_home):
    if not (data_home / "landmine.csv.gz").is_file():
        pytest.skip("landmine not in the data directory")
    X, y, groups = load_dataset("landmine", data_home=data_home, return_groups=True)
    assert X.shape == (14820, 9) and groups.shape == y.shape
    assert sorted(np.unique(groups)) == list(range(29))
    with pytest.raises(ValueError, match="no group column.*landmine"):
        load_dataset("iris", return_groups=True)
    if not (data_home / "energy_efficiency.csv.gz").is_file():
        return
    _, heat = load_dataset("energy_efficiency", data_home=data_home)
    _, cool = load_dataset("energy_efficiency", data_home=data_home, target="cooling")
    _, cool2 = load_dataset("energy_efficiency_cooling", data_home=data_home)
    assert heat[0] == 15.55 and cool[0] == 21.33
    np.testing.assert_array_equal(cool, cool2)
    with pytest.raises(ValueError, match="no target 'y3'.*'heating', 'cooling'"):
        load_dataset("energy_efficiency", data_home=data_home, target="y3")


def test_missing_value_token_becomes_nan(monkeypatch, tmp_path):
    (tmp_path / "m.csv").write_text("a,b,label\n1,?,0\n?,2,1\n3,4,1\n")
    sha = _sha256(tmp_path / "m.csv")
    info = DatasetInfo("m", "classification", 3, 2, 2, "made up", "none",
                       (DataFile("m.csv", sha),),
                       TableFormat(header=True, na_values=("?",)), missing_values=True)
    monkeypatch.setitem(REGISTRY, "m", info)
    X, y = load_dataset("m", data_home=tmp_path)
    np.testing.assert_array_equal(np.isnan(X), [[False, True], [True, False], [False, False]])
    assert y.tolist() == [0, 1, 1]


def _write_idx(path, array, code):
    header = bytes([0, 0, code, array.ndim]) + b"".join(
        int(n).to_bytes(4, "big") for n in array.shape)
    with gzip.open(path, "wb") as fh:
        fh.write(header + array.tobytes())


def test_idx_and_libsvm_readers_on_made_up_files(monkeypatch, tmp_path):
    images = np.arange(3 * 2 * 4, dtype=np.uint8).reshape(3, 2, 4)
    _write_idx(tmp_path / "img.gz", images, 0x08)
    _write_idx(tmp_path / "lab.gz", np.array([7, 1, 7], dtype=np.uint8), 0x08)
    np.testing.assert_array_equal(read_idx(tmp_path / "img.gz"), images)
    files = tuple(DataFile(n, _sha256(tmp_path / n)) for n in ("img.gz", "lab.gz"))
    monkeypatch.setitem(REGISTRY, "idx", DatasetInfo(
        "idx", "classification", 3, 8, 2, "made up", "none", files, IdxFormat(),
        image_shape=(2, 4)))
    X, y = load_dataset("idx", data_home=tmp_path)
    np.testing.assert_array_equal(X, images.reshape(3, 8))
    assert y.tolist() == [7, 1, 7]
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"\x01\x02\x03\x04"))
    with pytest.raises(ValueError, match="bad.gz: not an IDX file"):
        read_idx(tmp_path / "bad.gz")
    _write_idx(tmp_path / "short.gz", images, 0x08)
    raw = gzip.decompress((tmp_path / "short.gz").read_bytes())[:-1]
    (tmp_path / "short.gz").write_bytes(gzip.compress(raw))
    with pytest.raises(ValueError, match="header says shape"):
        read_idx(tmp_path / "short.gz")

    (tmp_path / "a.svm").write_text("+1 1:0.5 3:2\n-1 2:1\n")
    (tmp_path / "b.svm").write_text("-1 3:-4\n")
    files = (DataFile("a.svm", _sha256(tmp_path / "a.svm"), "train"),
             DataFile("b.svm", _sha256(tmp_path / "b.svm"), "test"))
    monkeypatch.setitem(REGISTRY, "svm", DatasetInfo(
        "svm", "classification", 3, 3, 2, "made up", "none", files, LibSVMFormat(3)))
    X, y = load_dataset("svm", data_home=tmp_path)
    np.testing.assert_array_equal(X, [[0.5, 0, 2], [0, 1, 0], [0, 0, -4]])
    assert y.tolist() == [1, -1, -1]
    X_test, y_test = load_dataset("svm", data_home=tmp_path, split="test")
    assert X_test.tolist() == [[0, 0, -4]] and y_test.tolist() == [-1]


# --- synthetic generators -------------------------------------------------------------
GENERATORS = [fzd.make_two_spirals, fzd.make_four_spirals, fzd.make_banana,
              fzd.make_twonorm, fzd.make_ring, fzd.make_waveform]


@pytest.mark.parametrize("make", GENERATORS)
def test_generators_are_seeded_balanced_and_validated(make):
    X, y = make(200, random_state=3)
    X2, y2 = make(200, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(X, make(200, random_state=4)[0])
    assert X.dtype == np.float64 and y.dtype == np.int64 and len(X) == len(y) == 200
    counts = np.bincount(y)
    assert counts.max() - counts.min() <= 1
    with pytest.raises(ValueError, match="n_samples must be an integer"):
        make(0)


@pytest.mark.parametrize("n_arms, turns", [(2, 1.5), (4, 1.0), (3, 2.25)])
def test_spiral_points_lie_on_their_arm(n_arms, turns):
    X, y = fzd.make_spirals(400, n_arms=n_arms, turns=turns, noise=0.0, random_state=0)
    r = np.hypot(X[:, 0], X[:, 1])
    assert r.max() <= 1.0
    # on arm k the polar angle is 2 pi turns r + 2 pi k / K, modulo 2 pi
    expected = 2 * np.pi * turns * r + 2 * np.pi * y / n_arms
    gap = np.angle(np.exp(1j * (np.arctan2(X[:, 1], X[:, 0]) - expected)))
    np.testing.assert_allclose(gap, 0.0, atol=1e-9)
    with pytest.raises(ValueError, match="n_arms must be an integer >= 2"):
        fzd.make_spirals(10, n_arms=1)


def test_banana_arcs_without_noise():
    X, y = fzd.make_banana(300, radius=2.0, noise=0.0, random_state=0)
    np.testing.assert_allclose(np.hypot(*X[y == 0].T), 2.0)
    np.testing.assert_allclose(np.hypot(*(X[y == 1] - [2.0, 1.0]).T), 2.0)
    assert (X[y == 0, 1] >= 0).all() and (X[y == 1, 1] <= 1.0).all()  # upper / lower arcs
    # the classes are separable without noise, but not by a line
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier
    assert DecisionTreeClassifier(random_state=0).fit(X, y).score(X, y) == 1.0
    assert LogisticRegression().fit(X, y).score(X, y) < 0.95
    with pytest.raises(ValueError, match="noise must be a finite number >= 0"):
        fzd.make_banana(10, noise=-1)


def test_twonorm_and_ringnorm_moments():
    X, y = fzd.make_twonorm(20000, random_state=0)
    a = 2 / np.sqrt(20)
    np.testing.assert_allclose(X[y == 0].mean(0), a, atol=0.05)
    np.testing.assert_allclose(X[y == 1].mean(0), -a, atol=0.05)
    # the Bayes rule sign(sum x) errs with probability Phi(-a sqrt(20)) = Phi(-2) = 2.3 %
    error = np.mean((X.sum(1) < 0) != (y == 1))
    assert 0.018 < error < 0.028
    X, y = fzd.make_ring(20000, random_state=0)
    np.testing.assert_allclose(X[y == 0].var(0), 4.0, rtol=0.08)
    np.testing.assert_allclose(X[y == 1].var(0), 1.0, rtol=0.08)
    np.testing.assert_allclose(X[y == 1].mean(0), 1 / np.sqrt(20), atol=0.05)


def test_waveform_matches_the_pmlb_sample():
    # PMLB's waveform_21 (Breiman's own sample) numbers the classes in reverse order
    X, y = load_dataset("waveform_21")
    G, g = fzd.make_waveform(30000, random_state=0)
    ours = np.array([G[g == c].mean(0) for c in (2, 1, 0)])
    theirs = np.array([X[y == c].mean(0) for c in range(3)])
    np.testing.assert_allclose(ours, theirs, atol=0.2)
    assert fzd.make_waveform(10, n_noise_features=19, random_state=0)[0].shape == (10, 40)


def test_synthetic_registry_entries_draw_with_seed_zero():
    X, y = load_dataset("two_spirals")
    X2, y2 = fzd.make_two_spirals(1000, random_state=0)
    np.testing.assert_array_equal(X, X2)
    info = fzd.get_dataset_info("four_spirals")
    assert info.synthetic and not info.bundled and info.n_classes == 4


# --- OpenML fallback (FORESTZOO_DOWNLOAD=1): fetch_openml is always replaced, never called ---

def _openml_adult_frame(n=48842):
    """A stand-in for fetch_openml(data_id=1590): adult's 14 columns, numbers and categories,
    unknown categories missing, a text target."""
    import pandas as pd
    from sklearn.utils import Bunch

    rng = np.random.default_rng(0)
    numeric = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    nominal = ["workclass", "education", "marital-status", "occupation", "relationship", "race",
               "sex", "native-country"]
    data = {c: rng.integers(0, 100, n) for c in numeric}
    data["age"] = pd.array(data["age"], dtype="Int64")  # the pandas parser's integer dtype
    for c in nominal:
        values = rng.choice(["a", "b", "c"], n).astype(object)
        values[:3] = None if c in ("workclass", "occupation") else values[:3]
        data[c] = pd.Categorical(values, categories=["c", "b", "a"])  # OpenML's own order
    frame = pd.DataFrame(data)
    target = pd.Series(pd.Categorical(rng.choice(["<=50K", ">50K"], n)), name="class")
    return Bunch(data=frame, target=target, frame=None)


@pytest.fixture
def fake_fetch(monkeypatch):
    """Replace sklearn.datasets.fetch_openml; returns the list of its calls' kwargs."""
    import sklearn.datasets

    calls = []

    def fetch(**kwargs):
        calls.append(kwargs)
        return _openml_adult_frame()

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", fetch)
    return calls


def test_openml_ids_are_recorded_only_where_verified():
    assert {n: i.openml_id for n, i in REGISTRY.items() if i.openml_id} == {"iris": 61, "adult": 1590}


def test_openml_opt_in_off_keeps_the_missing_file_error(monkeypatch, tmp_path, fake_fetch):
    from forestzoo.datasets._base import check_files

    monkeypatch.delenv("FORESTZOO_DOWNLOAD", raising=False)
    for call in (lambda: load_dataset("adult", data_home=tmp_path),
                 lambda: check_files("adult", tmp_path)):
        with pytest.raises(FileNotFoundError) as err:
            call()
        message = str(err.value)
        assert "'adult.tsv.gz'" in message and str(tmp_path) in message  # where to put it
        assert "FORESTZOO_DOWNLOAD=1" in message and "data_id 1590" in message  # the opt-in
    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "0")
    with pytest.raises(FileNotFoundError, match="FORESTZOO_DOWNLOAD=1"):
        load_dataset("adult", data_home=tmp_path)
    assert fake_fetch == []


def test_openml_opt_in_converts_the_frame_to_the_file_contract(monkeypatch, tmp_path, fake_fetch):
    from forestzoo.datasets._base import check_files, load_with_parts

    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "1")
    info = fzd.get_dataset_info("adult")
    check_files("adult", tmp_path)  # no error: the loader will fetch it
    X, y = load_dataset("adult", data_home=tmp_path)
    assert fake_fetch == [{"data_id": 1590, "as_frame": True, "parser": "auto"}]
    assert X.shape == (info.n_samples, info.n_features) and y.shape == (info.n_samples,)
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert y.dtype == np.int64 and set(np.unique(y)) == {0, 1}  # "<=50K", ">50K" in sorted order
    frame = _openml_adult_frame().data
    col = list(frame.columns).index
    np.testing.assert_array_equal(X[:, col("age")], frame["age"].to_numpy(dtype=np.float64))
    codes = frame["workclass"].cat.codes.to_numpy(dtype=np.float64)  # OpenML's order: c, b, a
    np.testing.assert_array_equal(X[3:, col("workclass")], codes[3:])
    assert np.isnan(X[:3, col("workclass")]).all()  # unknown category: NaN
    assert np.isfinite(X[:, col("education")]).all()
    X2, y2, part = load_with_parts("adult", tmp_path)
    np.testing.assert_array_equal(X2, X)
    assert (part == "all").all()
    # a file that is there is still read, and checked
    bad = tmp_path / "adult.tsv.gz"
    bad.write_bytes(b"not adult")
    with pytest.raises(ValueError, match="does not match the recorded checksum"):
        load_dataset("adult", data_home=tmp_path)
    assert len(fake_fetch) == 2  # load_with_parts fetched again (sklearn caches it)


def test_openml_opt_in_without_an_id_is_a_clear_error(monkeypatch, tmp_path, fake_fetch):
    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "1")
    with pytest.raises(FileNotFoundError, match="no OpenML id is recorded for 'letter'") as err:
        load_dataset("letter", data_home=tmp_path)
    assert "letter-recognition.data" in str(err.value)
    assert fake_fetch == []


def test_openml_copy_of_other_shape_or_with_a_split_is_refused(monkeypatch, tmp_path, fake_fetch):
    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "1")
    info = DatasetInfo("toy", "classification", 48842, 3, 2, "made up", "none",
                       (DataFile("toy.tra", "0" * 64, "train"), DataFile("toy.tes", "0" * 64, "test")),
                       TableFormat(), openml_id=99)
    monkeypatch.setitem(REGISTRY, "toy", info)
    with pytest.raises(ValueError, match="OpenML data_id 99 .* 48842 rows x 14 features; the "
                                         "registry records 48842 x 3"):
        load_dataset("toy", data_home=tmp_path)
    with pytest.raises(ValueError, match="OpenML copy has no official split"):
        load_dataset("toy", data_home=tmp_path, split="train")


# --- as_frame=True: pandas frames named after the features and the target ---------------

def _check_frame(X_df, y_s, X, y):
    import pandas as pd

    assert isinstance(X_df, pd.DataFrame) and isinstance(y_s, pd.Series)
    assert all(isinstance(c, str) and c for c in X_df.columns)
    assert X_df.columns.is_unique and X_df.shape == X.shape
    np.testing.assert_array_equal(X_df.to_numpy(), X)
    assert (X_df.dtypes == np.float64).all()
    np.testing.assert_array_equal(y_s.to_numpy(), y)
    assert y_s.dtype == y.dtype


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_dataset_as_frame_equals_the_arrays(name):
    X_df, y_s = load_dataset(name, as_frame=True)
    X, y = load_dataset(name)
    _check_frame(X_df, y_s, X, y)
    assert y_s.name == "target"


@pytest.mark.parametrize("name, loader", [
    ("iris", skd.load_iris), ("wine", skd.load_wine),
    ("breast_cancer_wisconsin_diag", skd.load_breast_cancer),
    ("optdigits_test_sklearn", skd.load_digits),
])
def test_as_frame_names_the_columns_as_scikit_learn_does(name, loader):
    X_df, y_s = load_dataset(name, as_frame=True)
    ref = loader(as_frame=True)
    assert list(X_df.columns) == list(ref.data.columns)
    assert y_s.name == ref.target.name == "target"


def test_as_frame_uses_the_header_of_bundled_files():
    X_df, _ = load_dataset("concrete", as_frame=True)
    assert list(X_df.columns[:3]) == ["Cement", "Blast Furnace Slag", "Fly Ash"]
    X_df, _ = load_dataset("glass", as_frame=True)  # a header of generated names
    assert list(X_df.columns) == [f"x{j}" for j in range(9)]


def test_synthetic_dataset_as_frame_has_generated_names():
    X_df, y_s = load_dataset("ringnorm", as_frame=True)
    X, y = load_dataset("ringnorm")
    _check_frame(X_df, y_s, X, y)
    assert list(X_df.columns) == [f"x{j}" for j in range(20)] and y_s.name == "target"


def test_data_directory_as_frame_reads_names_from_the_header(monkeypatch, tmp_path):
    (tmp_path / "toy.csv").write_text("id,width,height,task,kind\n"
                                      "r1,0.5,1,0,b\nr2,-2,3e2,1,a\nr3,7,8,1,c\n")
    sha = hashlib.sha256((tmp_path / "toy.csv").read_bytes()).hexdigest()
    info = DatasetInfo("toy", "classification", 3, 2, 3, "made up", "none",
                       (DataFile("toy.csv", sha),), TableFormat(sep=",", header=True, drop=(0,),
                                                             group=3), group_name="task")
    monkeypatch.setitem(REGISTRY, "toy", info)
    X_df, y_s, groups = load_dataset("toy", data_home=tmp_path, return_groups=True, as_frame=True)
    X, y, g = load_dataset("toy", data_home=tmp_path, return_groups=True)
    _check_frame(X_df, y_s, X, y)
    assert list(X_df.columns) == ["width", "height"] and y_s.name == "kind"
    assert groups.name == "task" and groups.tolist() == g.tolist() == [0, 1, 1]
    # without a header: generated names, "target"
    (tmp_path / "bare.csv").write_text("0.5,1,b\n-2,3,a\n")
    sha = hashlib.sha256((tmp_path / "bare.csv").read_bytes()).hexdigest()
    monkeypatch.setitem(REGISTRY, "bare", DatasetInfo(
        "bare", "classification", 2, 2, 2, "made up", "none", (DataFile("bare.csv", sha),),
        TableFormat(sep=",")))
    X_df, y_s = load_dataset("bare", data_home=tmp_path, as_frame=True)
    assert list(X_df.columns) == ["x0", "x1"] and y_s.name == "target"
    assert y_s.tolist() == [1, 0]


def test_as_frame_split_keeps_the_names(monkeypatch, tmp_path):
    for part, text in (("tra", "a,b,y\n1,2,0\n3,4,1\n"), ("tes", "a,b,y\n5,6,1\n")):
        (tmp_path / f"s.{part}").write_text(text)
    sha = {n: hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in ("s.tra", "s.tes")}
    monkeypatch.setitem(REGISTRY, "s", DatasetInfo(
        "s", "classification", 3, 2, 2, "made up", "none",
        (DataFile("s.tra", sha["s.tra"], "train"), DataFile("s.tes", sha["s.tes"], "test")),
        TableFormat(sep=",", header=True)))
    X_df, y_s = load_dataset("s", data_home=tmp_path, split="test", as_frame=True)
    assert list(X_df.columns) == ["a", "b"] and y_s.name == "y"
    assert X_df.to_numpy().tolist() == [[5.0, 6.0]] and list(X_df.index) == [0]


def test_multi_target_as_frame_names_y_after_the_target(data_home):
    if not (data_home / "energy_efficiency.csv.gz").is_file():
        pytest.skip("energy_efficiency not in the data directory")
    X_df, heat = load_dataset("energy_efficiency", data_home=data_home, as_frame=True)
    _, cool = load_dataset("energy_efficiency", data_home=data_home, target="cooling",
                           as_frame=True)
    _, cool2 = load_dataset("energy_efficiency_cooling", data_home=data_home, as_frame=True)
    assert list(X_df.columns) == [f"X{j}" for j in range(1, 9)]  # the file's header
    assert (heat.name, cool.name, cool2.name) == ("heating", "cooling", "cooling")
    assert heat[0] == 15.55 and cool[0] == 21.33


def test_user_dataset_as_frame(tmp_path):
    import pandas as pd

    from forestzoo.datasets._user import dataset_from_spec

    frame = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [1.0, 0.0, 1.0, 0.0]})
    fzd.register_dataset("frame_loader", lambda: (frame, [0, 1, 0, 1]), replace_existing=True)
    fzd.register_dataset("array_loader", lambda: (frame.to_numpy(), [0, 1, 0, 1]),
                         replace_existing=True)
    fzd.register_dataset("named_loader", lambda: (frame.to_numpy(), [0, 1, 0, 1]),
                         feature_names=["p", "q"], replace_existing=True)
    fzd.register_dataset("wrong_names", lambda: (frame.to_numpy(), [0, 1, 0, 1]),
                         feature_names=["p"], replace_existing=True)
    try:
        assert list(load_dataset("frame_loader", as_frame=True)[0].columns) == ["u", "v"]
        assert list(load_dataset("array_loader", as_frame=True)[0].columns) == ["x0", "x1"]
        X_df, y_s = load_dataset("named_loader", as_frame=True)
        assert list(X_df.columns) == ["p", "q"] and y_s.name == "target"
        with pytest.raises(ValueError, match="2 features, but 1 feature_names"):
            load_dataset("wrong_names")
        with pytest.raises(ValueError, match="feature_names must be a sequence"):
            fzd.register_dataset("bad", lambda: None, feature_names="pq")
        path = tmp_path / "cars.csv"
        path.write_text("speed,weight,kind\n1,2,a\n3,4,b\n5,6,a\n")
        name = dataset_from_spec(str(path))
        X_df, y_s = load_dataset(name, as_frame=True)
        assert list(X_df.columns) == ["speed", "weight"] and y_s.tolist() == [0, 1, 0]
    finally:
        for n in ("frame_loader", "array_loader", "named_loader", "wrong_names", "cars"):
            REGISTRY.pop(n, None)


def test_openml_copy_as_frame_keeps_openml_names(monkeypatch, tmp_path, fake_fetch):
    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "1")
    X_df, y_s = load_dataset("adult", data_home=tmp_path, as_frame=True)
    assert list(X_df.columns) == list(_openml_adult_frame(10).data.columns)
    assert y_s.name == "class" and y_s.dtype == np.int64


def test_as_frame_without_pandas_is_a_clear_import_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(ImportError, match="as_frame=True.*needs pandas.*pip install pandas"):
        load_dataset("iris", as_frame=True)
    X, y = load_dataset("iris")  # the arrays need no pandas
    assert X.shape == (150, 4)
