"""The ``forestzoo`` command line: ``bench``, ``plot boundary``, ``compile``,
``datasets``, ``models``, ``suites``."""

import argparse
import os
import shlex
import sys
import time

from .registry import PERCENT_METRICS, get_suite, list_models, list_suites, resolve_models

__all__ = ["console", "main"]

DEFAULT_OUT = "forestzoo-results"
#: exit status of an interrupted run (128 + SIGINT)
INTERRUPTED = 130
#: exit status when stdout is closed early (``forestzoo suites | head -1``): 128 + SIGPIPE
BROKEN_PIPE = 141
#: exit status of a run in which some fold's model raised
FOLDS_FAILED = 3
# forestzoo.datasets.DATA_ENV_VAR / DOWNLOAD_ENV_VAR, spelled out: importing forestzoo.datasets
# loads numpy, which `forestzoo --help` need not wait for
_DATA_ENV_VAR, _DOWNLOAD_ENV_VAR = "FORESTZOO_DATA", "FORESTZOO_DOWNLOAD"


def _version():
    try:
        from importlib.metadata import version

        return version("forestzoo")
    except Exception:  # not installed (running from a source tree)
        return "unknown"


def _csv(text):
    return [item.strip() for item in text.split(",") if item.strip()]


def _budget(text):
    """``--time-budget``: seconds > 0, or ``none`` for no limit."""
    if text.strip().lower() == "none":
        return "none"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or 'none', got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected seconds > 0 or 'none', got {text!r}")
    return value


def _add_bench(sub):
    bench = sub.add_parser(
        "bench", help="run a benchmark suite and write its report",
        description="Run a suite (default: quick): every model on the same splits; each "
                    "fold's result is appended to OUT/results.csv as soon as it exists, "
                    "so the same command run again resumes an interrupted run. Prints and "
                    "writes OUT/report.md (versions, scores, ranks, Friedman / Nemenyi, CD "
                    "diagram, warnings). Exit status: 0 done; 1 missing file or no network; "
                    f"2 bad input; {FOLDS_FAILED} some folds failed (listed on stderr and "
                    f"marked FAILED in the report); {INTERRUPTED} interrupted.",
    )
    bench.add_argument("--suite", default="quick", metavar="NAME",
                       help="suite name (default: %(default)s); see 'forestzoo suites'")
    bench.add_argument("--models", type=_csv, default=None, metavar="A,B,...",
                       help="replace the suite's models: names from 'forestzoo models' "
                            "(any case), or module:callable, a factory returning a "
                            "scikit-learn estimator (e.g. mypkg.models:make_hgb)")
    bench.add_argument("--datasets", type=_csv, default=None, metavar="A,B,...",
                       help="replace the suite's datasets: names from 'forestzoo datasets' "
                            "(any case), paths of .csv / .tsv (header row), .parquet, .npz "
                            "(arrays X, y) files, or openml:ID (fetched; needs a network)")
    bench.add_argument("--target", default=None, metavar="COLUMN",
                       help="target column of the data files (default: the last column)")
    bench.add_argument("--categorical", choices=("refuse", "onehot"), default="refuse",
                       help="non-numeric feature columns of data files: an error naming "
                            "them, or one-hot encoded (default: %(default)s)")
    bench.add_argument("--time-budget", type=_budget, default=None, metavar="SECONDS|none",
                       help="seconds of timed fitting and predicting the models share "
                            "evenly; a model past its share skips the remaining datasets "
                            "(default: the suite's, 240 for quick, none for the others)")
    bench.add_argument("--repeats", type=int, default=None, metavar="R",
                       help="repetitions of the protocol (default: the suite's)")
    bench.add_argument("--folds", "--cv", dest="folds", type=int, default=None, metavar="K",
                       help="folds of the cross-validation (default: the suite's)")
    bench.add_argument("--n-estimators", type=int, default=None, metavar="N",
                       help="trees per ensemble (default: the suite's)")
    bench.add_argument("--n-jobs", type=int, default=2, metavar="N",
                       help="threads per model (default: %(default)s)")
    bench.add_argument("--random-state", type=int, default=0, metavar="SEED",
                       help="seed of the splits and models (default: %(default)s)")
    bench.add_argument("--data-home", default=None, metavar="DIR",
                       help=f"directory of non-bundled dataset files (default: "
                            f"${_DATA_ENV_VAR}); with {_DOWNLOAD_ENV_VAR}=1 a missing file "
                            f"whose dataset records an OpenML id is fetched from OpenML")
    bench.add_argument("--paper-tables", default=None, metavar="DIR",
                       help="directory of the papers' tables (default: "
                            "$FORESTZOO_PAPER_TABLES, else paper_tables beside --data-home)")
    bench.add_argument("--noise-fraction", type=float, default=None, metavar="F",
                       help="corrupt every test row: a fraction F of its features replaced by the training "
                            "mean (suites with a test-noise level: denoising; default: the suite's own level)")
    bench.add_argument("--out", default=None, metavar="DIR",
                       help=f"output directory (default: {DEFAULT_OUT}/SUITE)")
    bench.add_argument("--no-progress", action="store_true",
                       help="print no progress on stderr")
    bench.add_argument("--quiet", "-q", action="store_true",
                       help="print neither progress nor the report, only where it is and "
                            "what failed")
    bench.add_argument("--allow-version-change", action="store_true",
                       help="resume into OUT although its results were made with other "
                            "library versions (refused otherwise; the report lists each set)")


def _add_plot(sub):
    plot = sub.add_parser("plot", help="plots: 'forestzoo plot boundary'")
    kinds = plot.add_subparsers(dest="kind", metavar="KIND")
    boundary = kinds.add_parser(
        "boundary", help="decision regions of models on a 2-D dataset (PNG)",
        description="Fit each model on 2/3 of a two-feature dataset and draw its decision "
                    "regions with the training points, side by side.")
    boundary.add_argument("--model", "--models", dest="models", type=_csv, required=True,
                          metavar="A,B,...", help="one or more model names")
    boundary.add_argument("--dataset", default="two_spirals", metavar="NAME",
                          help="a 2-feature dataset (default: %(default)s)")
    boundary.add_argument("--out", default=None, metavar="FILE",
                          help="PNG to write (default: boundary_DATASET.png)")
    boundary.add_argument("--n-estimators", type=int, default=100, metavar="N")
    boundary.add_argument("--n-jobs", type=int, default=2, metavar="N")
    boundary.add_argument("--random-state", type=int, default=0, metavar="SEED")
    boundary.add_argument("--resolution", type=int, default=200, metavar="N",
                          help="grid points per axis (default: %(default)s)")
    boundary.add_argument("--data-home", default=None, metavar="DIR")


def _add_compile(sub):
    comp = sub.add_parser(
        "compile", help="compile the estimators' Numba kernels ahead of their first use",
        description="Fit and predict a small instance of each estimator in worker processes, so that "
                    "the kernels of its default configuration are compiled and written to Numba's "
                    "on-disk cache (NUMBA_CACHE_DIR, or beside the package); later processes load "
                    "them instead of compiling them. Run it where a first use should not wait: "
                    "a Docker image's build, a CI cache step, a cluster's set-up.")
    comp.add_argument("--estimators", type=_csv, default=None, metavar="NAMES",
                      help="comma-separated estimator names (default: every estimator)")
    comp.add_argument("--jobs", type=int, default=None, metavar="N",
                      help="worker processes (default: every core)")
    comp.add_argument("--quiet", action="store_true", help="print only the total")


def _compile(args):
    from .._compile import _environment_note, compile_kernels

    if not args.quiet:
        print(f"forestzoo: compiling kernels into {_environment_note()}", flush=True)
    try:
        seconds = compile_kernels(args.estimators, n_jobs=args.jobs, verbose=not args.quiet)
    except ValueError as exc:
        print(f"forestzoo compile: {exc}", file=sys.stderr)
        return 2
    print(f"forestzoo: kernels of {len(seconds) - 1} tasks ready in {seconds['total']:.1f} s", flush=True)
    return 0


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="forestzoo",
        description="Random-forest variants on one compiled tree engine. "
                    "Run 'forestzoo bench' to compare the registered models on bundled "
                    "datasets.",
    )
    parser.add_argument("--version", action="version", version=f"forestzoo {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_bench(sub)
    _add_plot(sub)
    _add_compile(sub)
    sub.add_parser("datasets", help="list the registered datasets")
    sub.add_parser("models", help="list the registered models")
    sub.add_parser("suites", help="list the benchmark suites")
    return parser


class _Progress:
    """Progress on stderr: a rich bar with ETA on a terminal, else one line per
    finished (dataset, model) pair with the elapsed time and an ETA."""

    def __init__(self, enabled, metric):
        self.enabled, self.metric, self._bar = enabled, metric, None
        self.total = self.done = self._new = 0
        self._start = time.perf_counter()
        self._scores = {}
        if enabled and sys.stderr.isatty():
            try:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress,
                                           TextColumn, TimeElapsedColumn,
                                           TimeRemainingColumn)
            except ImportError:
                return
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(),
                                 console=Console(stderr=True), transient=True)

    def __enter__(self):
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()

    def plan(self, total, done):
        self.total, self.done = total, done
        if self._bar is not None:
            self._task = self._bar.add_task("bench", total=total, completed=done)
        elif self.enabled and done:
            print(f"resuming: {done} of {total} results already in results.csv",
                  file=sys.stderr, flush=True)

    def _eta(self):
        if not self._new:
            return "?"
        left = (time.perf_counter() - self._start) / self._new * (self.total - self.done)
        return f"{left / 60:.1f} min" if left >= 60 else f"{left:.0f} s"

    def update(self, result):
        if self._new == 0:  # the ETA leaves out loading and the untimed warm-up fits
            self._start = time.perf_counter() - result.fit_seconds - result.predict_seconds
        self.done += 1
        self._new += 1
        if self._bar is not None:
            self._bar.update(self._task, advance=1,
                             description=f"{result.dataset} / {result.model}")
            return
        if not self.enabled:
            return
        key = (result.dataset, result.model)
        self._scores.setdefault(key, []).append(result)
        rows = self._scores[key]
        ok = [r.score(self.metric) for r in rows if r.ok]
        shown = (f"{self.metric} {100 * sum(ok) / len(ok):.2f} %" if ok and self.metric in
                 PERCENT_METRICS else f"{self.metric} {sum(ok) / len(ok):.4f}" if ok
                 else result.status)
        print(f"[{self.done}/{self.total}] {result.dataset} / {result.model} repeat "
              f"{result.repeat} fold {result.fold}: {shown} (fit {result.fit_seconds:.2f} s; "
              f"ETA {self._eta()})", file=sys.stderr, flush=True)


def _announce_compilation():
    print("forestzoo: compiling forestzoo's kernels, first run only (they are cached for later runs; "
          "'forestzoo compile' compiles them ahead, on every core)", file=sys.stderr, flush=True)


def _bench(args, argv):
    from dataclasses import replace
    from pathlib import Path

    from .._jit import on_first_compile

    out = None
    try:
        from .report import failure_summary, warning_summary, write_report
        from .runner import run_suite

        suite = get_suite(args.suite)
        name = suite.name
        if args.noise_fraction is not None:
            if suite.with_test_noise is None:
                with_noise = [s.name for s in list_suites() if s.with_test_noise is not None]
                raise ValueError(f"suite {suite.name!r} has no test-noise level; --noise-fraction applies to "
                                 f"{', '.join(with_noise)}.")
            suite = suite.with_test_noise(args.noise_fraction)
            name = f"{suite.name}-noise{args.noise_fraction:g}"  # its own results: a run resumes one transform
        if args.time_budget is not None:
            suite = replace(suite, time_budget_s=None if args.time_budget == "none"
                            else args.time_budget)
        out = Path(args.out) if args.out else Path(DEFAULT_OUT) / name
        progress = _Progress(enabled=not (args.no_progress or args.quiet), metric=suite.metric)
        announce = (lambda: None) if args.quiet else _announce_compilation
        with progress, on_first_compile(announce):
            run = run_suite(suite, models=args.models, datasets=args.datasets,
                            repeats=args.repeats, folds=args.folds,
                            n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                            random_state=args.random_state, data_home=args.data_home,
                            out=out, on_result=progress.update, on_plan=progress.plan,
                            target=args.target, categorical=args.categorical,
                            allow_version_change=args.allow_version_change)
        command = "forestzoo " + " ".join(shlex.quote(a) for a in argv)
        text = write_report(run, command=command, paper_dir=args.paper_tables,
                            data_home=args.data_home)
    except ValueError as exc:  # bad input: a message, no traceback
        print(f"forestzoo: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ImportError) as exc:  # a missing file, no network, no pyarrow
        print(f"forestzoo: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        where = f"every finished result is in {out / 'results.csv'}." if out is not None else \
            "nothing was run."
        print(f"\nforestzoo: interrupted; {where} Run the same command again to resume.",
              file=sys.stderr)
        return INTERRUPTED
    if not args.quiet:
        print(text)
    print(f"Report: {out / 'report.md'}; results: {out / 'results.csv'} "
          f"({run.new} new rows, {run.seconds:.0f} s, of which "
          f"{run.warm_up_seconds:.0f} s warm-up fits)")
    shown = [r for r in run.results if r.dataset in run.datasets]
    warned = warning_summary(shown)
    if warned:
        print(f"forestzoo: {sum(w[2] for w in warned)} warnings from {len(warned)} (model, dataset) "
              f"pairs; see 'Warnings' in {out / 'report.md'}", file=sys.stderr)
    failed = failure_summary(shown)
    if failed:
        print(f"forestzoo: {sum(f[2] for f in failed)} folds failed (marked FAILED in "
              f"{out / 'report.md'}):", file=sys.stderr)
        for model, dataset, count, first in failed:
            print(f"  {model} on {dataset}: {count} folds; {first}", file=sys.stderr)
        return FOLDS_FAILED
    return 0


def _plot(args):
    from .plot import plot_boundary

    if args.kind != "boundary":
        print("forestzoo: error: say which plot: 'forestzoo plot boundary --model M "
              "--dataset two_spirals'", file=sys.stderr)
        return 2
    import warnings

    out = args.out or f"boundary_{args.dataset}.png"
    try:
        with warnings.catch_warnings(record=True) as notes:
            warnings.simplefilter("always", UserWarning)
            _, acc = plot_boundary(args.models, args.dataset, out=out,
                                   n_estimators=args.n_estimators, n_jobs=args.n_jobs,
                                   random_state=args.random_state, resolution=args.resolution,
                                   data_home=args.data_home)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"forestzoo: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, (FileNotFoundError, ImportError)) else 2
    for note in dict.fromkeys(str(w.message) for w in notes if "forestzoo" in str(w.filename)):
        print(f"forestzoo: note: {note}", file=sys.stderr)
    shown = ", ".join(f"{m} {a:.3f}" for m, a in acc.items())
    print(f"Wrote {out} (test accuracy: {shown})")
    return 0


def _list_datasets():
    from ..datasets import list_datasets

    for d in list_datasets():
        where = ("bundled" if d.bundled else "synthetic" if d.synthetic else
                 "user" if d.loader is not None else "data dir")
        kind = (f"{d.n_classes} classes" if d.n_classes else "regression"
                if d.task == "regression" else "classes ?")
        size = f"{d.n_samples:6d} x {d.n_features:<4d}" if d.n_samples else f"{'?':>6s} x {'?':<4s}"
        print(f"{d.name:34s} {size} {kind:11s} {where:9s} {d.licence}")
    return 0


def _list_models():
    rows = [(m.name, m.task, m.family or "-", m.description + ("" if m.quick else
                                                               " [not in quick]"))
            for m in list_models()]
    width = max([len(r[0]) for r in rows] + [5])
    print(f"{'name':{width}s}  {'task':14s}  {'family':10s}  description")
    for name, task, family, desc in rows:
        print(f"{name:{width}s}  {task:14s}  {family:10s}  {desc}")
    return 0


def _list_suites():
    for s in list_suites():
        models = ",".join(resolve_models(s))
        budget = "none" if s.time_budget_s is None else f"{s.time_budget_s:g} s"
        print(f"{s.name:18s} {s.description}\n{'':18s} protocol={s.protocol} folds={s.folds} "
              f"repeats={s.repeats} n_estimators={s.describe_trees()} metric={s.metric} "
              f"preprocess={s.preprocess} time_budget={budget}"
              + (f" test_transform={s.test_transform!r}" if s.test_transform is not None else "")
              + f"\n{'':18s} models: {models}\n{'':18s} datasets: "
              f"{','.join(s.datasets)}")
    return 0


def main(argv=None):
    """Run the ``forestzoo`` command; return its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "bench":
        return _bench(args, argv)
    if args.command == "plot":
        return _plot(args)
    if args.command == "compile":
        return _compile(args)
    return {"datasets": _list_datasets, "models": _list_models,
            "suites": _list_suites}[args.command]()


def console(argv=None):
    """Entry point of the ``forestzoo`` console script and ``python -m forestzoo``.

    As :func:`main`, except that it never ends in a traceback for the two ways
    a user stops a command: Ctrl-C at any point prints one line and exits with
    status 130 at once (the worker threads of the fit in flight cannot be
    stopped, and Python's exit would wait for their current tasks to end; every
    finished result is already in ``results.csv``), and a reader that closes
    the output early (``forestzoo suites | head -1``) ends it quietly with
    status 141.
    """
    try:
        status = main(argv)
        sys.stdout.flush()  # a closed pipe shows here, while the handler below still runs
    except KeyboardInterrupt:
        print("\nforestzoo: interrupted.", file=sys.stderr)
        status = INTERRUPTED
    except BrokenPipeError:
        # the reader has gone: stop writing, and let the interpreter's last flush of stdout
        # write to /dev/null instead of raising again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os._exit(BROKEN_PIPE)
    if status == INTERRUPTED:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, KeyboardInterrupt):
            pass
        os._exit(INTERRUPTED)
    return status
