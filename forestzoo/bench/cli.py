"""The ``forestzoo`` command line: ``forestzoo bench``, ``datasets``, ``models``."""

import argparse
import os
import sys

from ..datasets import DATA_ENV_VAR, list_datasets
from .registry import list_models
from .runner import DEFAULT_DATASETS, DEFAULT_MODELS

__all__ = ["main"]


def _version():
    try:
        from importlib.metadata import version

        return version("forestzoo")
    except Exception:  # not installed (running from a source tree)
        return "unknown"


def _csv(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="forestzoo",
        description="Random-forest variants on one compiled tree engine. "
                    "Run 'forestzoo bench' to compare forests on bundled datasets.",
    )
    parser.add_argument("--version", action="version", version=f"forestzoo {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    bench = sub.add_parser(
        "bench", help="cross-validate forests on datasets and print a table",
        description="Cross-validate models with stratified k-fold CV (the same folds for "
                    "every model) and print mean accuracy, fit time and average ranks. "
                    "Each model is fitted once, untimed, before timing starts.",
    )
    bench.add_argument("--datasets", type=_csv, default=",".join(DEFAULT_DATASETS),
                       metavar="A,B,...",
                       help="comma-separated dataset names (default: %(default)s); "
                            "see 'forestzoo datasets'")
    bench.add_argument("--models", type=_csv, default=",".join(DEFAULT_MODELS),
                       metavar="A,B,...",
                       help="comma-separated model names (default: %(default)s); "
                            "see 'forestzoo models'")
    bench.add_argument("--n-estimators", type=int, default=100, metavar="N",
                       help="trees per forest (default: %(default)s)")
    bench.add_argument("--cv", type=int, default=5, metavar="K",
                       help="number of folds (default: %(default)s)")
    bench.add_argument("--n-jobs", type=int, default=2, metavar="N",
                       help="threads per model (default: %(default)s)")
    bench.add_argument("--random-state", type=int, default=0, metavar="SEED",
                       help="seed for folds and models (default: %(default)s)")
    bench.add_argument("--data-home", default=None, metavar="DIR",
                       help=f"directory of non-bundled dataset files (default: "
                            f"${DATA_ENV_VAR})")
    bench.add_argument("--no-progress", action="store_true",
                       help="print no progress on stderr")

    sub.add_parser("datasets", help="list the registered datasets")
    sub.add_parser("models", help="list the registered models")
    return parser


class _Progress:
    """Progress on stderr: a rich bar on a terminal when rich is installed, else
    one line per finished (dataset, model) pair."""

    def __init__(self, total, n_folds, enabled):
        self.n_folds, self.enabled, self._bar, self._scores = n_folds, enabled, None, []
        if not (enabled and sys.stderr.isatty()):
            return
        try:
            from rich.console import Console
            from rich.progress import Progress
        except ImportError:
            return
        self._bar = Progress(console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("bench", total=total)

    def __enter__(self):
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()

    def update(self, result):
        if self._bar is not None:
            self._bar.update(self._task, advance=1,
                             description=f"{result.dataset} / {result.model}")
            return
        self._scores.append(result.accuracy)
        if self.enabled and result.fold == self.n_folds - 1:
            print(f"  {result.dataset} / {result.model}: mean accuracy "
                  f"{sum(self._scores) / len(self._scores):.4f}", file=sys.stderr, flush=True)
            self._scores = []


def _bench(args):
    from .report import format_report
    from .runner import load_suite, run_benchmark

    try:
        data = load_suite(args.datasets, args.models, args.cv, args.data_home)
    except (ValueError, FileNotFoundError) as exc:  # bad input: a message, no traceback
        print(f"forestzoo: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, FileNotFoundError) else 2
    total = len(args.datasets) * len(args.models) * args.cv
    with _Progress(total, args.cv, enabled=not args.no_progress) as progress:
        results = run_benchmark(
            args.datasets, args.models, n_estimators=args.n_estimators, cv=args.cv,
            n_jobs=args.n_jobs, random_state=args.random_state, data_home=args.data_home,
            on_result=progress.update, data=data,
        )
    title = (f"forestzoo bench: {args.n_estimators} trees, {args.cv}-fold stratified CV, "
             f"n_jobs={args.n_jobs}, random_state={args.random_state}, "
             f"{os.cpu_count()} CPUs seen")
    print(format_report(results, title=title))
    return 0


def _list_datasets():
    for d in list_datasets():
        where = "bundled" if d.bundled else "data dir"
        kind = f"{d.n_classes} classes" if d.n_classes else "regression"
        print(f"{d.name:34s} {d.n_samples:6d} x {d.n_features:<4d} {kind:11s} {where:8s} "
              f"{d.licence}")
    return 0


def _list_models():
    for spec in list_models():
        print(f"{spec.name:16s} {spec.task:14s} {spec.description}")
    return 0


def main(argv=None):
    """Run the ``forestzoo`` command; return its exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "bench":
        return _bench(args)
    if args.command == "datasets":
        return _list_datasets()
    return _list_models()
