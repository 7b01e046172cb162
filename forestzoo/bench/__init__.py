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

from importlib import import_module

#: public name -> submodule that defines it; imported on first access (PEP 562), so that
#: ``forestzoo --help`` and ``import forestzoo.bench.cli`` do not pay for scipy.stats and the runner
_LAZY = {
    **dict.fromkeys(("METRICS", "MODELS", "SUITES", "ModelSpec", "Suite", "get_model", "get_suite", "list_models",
                     "list_suites", "make_model", "register_model", "register_suite", "resolve_models"), "registry"),
    **dict.fromkeys(("average_ranks", "format_report", "summarize", "write_report"), "report"),
    **dict.fromkeys(("DEFAULT_DATASETS", "DEFAULT_MODELS", "BenchRun", "FoldResult", "load_suite", "read_results",
                     "run_benchmark", "run_suite"), "runner"),
}

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


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
