"""Benchmarks: run registered models on registered datasets, suite by suite.

The ``forestzoo bench`` command (``forestzoo.bench.cli``) is a thin layer over
:func:`run_suite` and :func:`write_report`, which can be called from Python::

    from forestzoo.bench import run_suite, write_report
    run = run_suite("quick", models=["RaF", "ET"], out="results/quick")
    print(write_report(run))

Results are appended to ``out/results.csv`` one fold at a time; running the
same call again resumes. :func:`run_benchmark` is a shortcut for one
cross-validation without an output directory.
"""

from .registry import (
    METRICS,
    MODELS,
    SUITES,
    ModelSpec,
    Suite,
    get_model,
    get_suite,
    list_models,
    list_suites,
    make_model,
    register_model,
    register_suite,
    resolve_models,
)
from .report import average_ranks, format_report, summarize, write_report
from .runner import (
    DEFAULT_DATASETS,
    DEFAULT_MODELS,
    BenchRun,
    FoldResult,
    load_suite,
    read_results,
    run_benchmark,
    run_suite,
)

__all__ = [
    "DEFAULT_DATASETS",
    "DEFAULT_MODELS",
    "METRICS",
    "MODELS",
    "SUITES",
    "BenchRun",
    "FoldResult",
    "ModelSpec",
    "Suite",
    "average_ranks",
    "format_report",
    "get_model",
    "get_suite",
    "list_models",
    "list_suites",
    "load_suite",
    "make_model",
    "read_results",
    "register_model",
    "register_suite",
    "resolve_models",
    "run_benchmark",
    "run_suite",
    "summarize",
    "write_report",
]
