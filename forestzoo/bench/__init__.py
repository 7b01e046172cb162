"""Benchmarks: cross-validate registered models on registered datasets.

The ``forestzoo bench`` command (``forestzoo.bench.cli``) is a thin layer over
:func:`run_benchmark` and :func:`format_report`, which can be called from Python::

    from forestzoo.bench import run_benchmark, format_report
    results = run_benchmark(["iris", "wine"], ["rf", "sk-rf"], n_estimators=50, cv=3)
    print(format_report(results))
"""

from .registry import MODELS, SUITES, ModelSpec, Suite, get_model, get_suite, list_models, list_suites, make_model, register_model, register_suite
from .report import average_ranks, format_report
from .runner import DEFAULT_DATASETS, DEFAULT_MODELS, FoldResult, load_suite, run_benchmark

__all__ = [
    "DEFAULT_DATASETS",
    "DEFAULT_MODELS",
    "MODELS",
    "SUITES",
    "Suite",
    "get_model",
    "get_suite",
    "list_models",
    "list_suites",
    "register_suite",
    "FoldResult",
    "ModelSpec",
    "average_ranks",
    "format_report",
    "load_suite",
    "make_model",
    "register_model",
    "run_benchmark",
]
