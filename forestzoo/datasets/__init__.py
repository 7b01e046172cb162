"""Datasets for benchmarking forests: a registry with one loader.

Small datasets whose source states a licence that allows it ship with the
package (see ``ATTRIBUTION.md``) and load offline. Larger ones are read from a
data directory, given as ``data_home=`` or the ``FORESTZOO_DATA`` environment
variable, and checked against a recorded sha256; with ``FORESTZOO_DOWNLOAD=1``
a missing one whose registry entry records an OpenML id is fetched with
``sklearn.datasets.fetch_openml`` instead. Synthetic problems of the
papers' figures (spirals, banana, twonorm, ringnorm, waveform) have generators
(``make_*``); ``two_spirals``, ``four_spirals`` and ``ringnorm`` are also
registered as datasets drawn with ``random_state=0``.

``load_dataset(name, as_frame=True)`` returns a pandas DataFrame whose
columns are named after the features (``x0, x1, ...`` where the data carry
no names) and a Series named after the target, as scikit-learn's loaders do.

The user's own data: :func:`register_dataset` adds a dataset loaded by any
callable, and :func:`load_file` reads a CSV, Parquet or ``.npz`` file (or an
OpenML dataset by its id) with a chosen target column.

>>> from forestzoo.datasets import list_datasets, load_dataset
>>> info = {d.name: d for d in list_datasets()}["wine"]
>>> info.task, info.n_samples, info.n_features, info.bundled
('classification', 178, 13, True)
>>> X, y = load_dataset("wine")
>>> X.dtype, y.dtype
(dtype('float64'), dtype('int64'))
"""

from ._base import (
    DATA_ENV_VAR,
    DOWNLOAD_ENV_VAR,
    get_data_home,
    get_dataset_info,
    list_datasets,
    load_dataset,
)
from ._registry import DataFile, DatasetInfo
from ._user import load_file, register_dataset
from ._synthetic import (
    make_banana,
    make_four_spirals,
    make_ring,
    make_spirals,
    make_twonorm,
    make_two_spirals,
    make_waveform,
)

__all__ = [
    "DATA_ENV_VAR",
    "DOWNLOAD_ENV_VAR",
    "DataFile",
    "DatasetInfo",
    "get_data_home",
    "get_dataset_info",
    "list_datasets",
    "load_dataset",
    "load_file",
    "make_banana",
    "make_four_spirals",
    "make_ring",
    "make_spirals",
    "make_twonorm",
    "make_two_spirals",
    "make_waveform",
    "register_dataset",
]
