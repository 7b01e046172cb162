"""``forestzoo bench`` on the user's own data and models, with provenance, visible
failures and warnings, and a command line that ends without a traceback."""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from forestzoo.bench import get_model, run_suite, write_report
from forestzoo.bench.cli import main
from forestzoo.bench.provenance import git_commit, show_versions, version_changes, versions
from forestzoo.bench.registry import MODELS, model_from_spec
from forestzoo.datasets import get_dataset_info, list_datasets, load_dataset, load_file, register_dataset
from forestzoo.datasets._registry import REGISTRY
from test_bench_cli import TINY, temp_model  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[1]

_HGB_MODULE = '''
from sklearn.ensemble import HistGradientBoostingClassifier


def make_hgb(random_state=None):
    """A user's factory: only random_state is passed on."""
    return HistGradientBoostingClassifier(max_iter=10, random_state=random_state)


def not_a_model():
    return "nope"


def make_failing():
    """An estimator whose fit raises: scikit-learn refuses max_iter=0."""
    return HistGradientBoostingClassifier(max_iter=0)
'''


def _env(*paths):
    # one OpenMP thread: HistGradientBoosting's thread pool only waits on a busy 2-core machine
    return {**os.environ, "OMP_NUM_THREADS": "1",
            "PYTHONPATH": os.pathsep.join([str(p) for p in paths] + [str(ROOT)])}


def _forestzoo(args, *paths, **kw):
    return subprocess.run([sys.executable, "-m", "forestzoo", *args], capture_output=True,
                          text=True, timeout=600, env=_env(*paths), **kw)


def _write_csv(path, n=60, seed=0, colour=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    label = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    header = "a,b,c" + (",colour" if colour else "") + ",label\n"
    rows = [",".join(f"{v:.6f}" for v in x) + ("," + ("red", "blue")[i % 2] if colour else "")
            + f",{t}\n" for i, (x, t) in enumerate(zip(X, label))]
    path.write_text(header + "".join(rows))
    return X, label


@pytest.fixture
def user_datasets():
    """Datasets registered by a test are removed after it."""
    before = dict(REGISTRY)
    yield
    REGISTRY.clear()
    REGISTRY.update(before)


# --- own data --------------------------------------------------------------------------

def test_csv_target_missing_values_and_categorical_columns(tmp_path):
    path = tmp_path / "cars.csv"
    path.write_text("speed,colour,doors,kind\n1.5,red,4,van\n,blue,2,car\n3,red,?,van\n4,,2,car\n")
    with pytest.raises(ValueError, match=r"column\(s\) 'colour' are not numeric.*--categorical onehot"):
        load_file(path)
    X, y, names = load_file(path, categorical="onehot", return_names=True)
    assert names == ["speed", "colour=blue", "colour=red", "doors"]
    np.testing.assert_array_equal(y, [1, 0, 1, 0])  # labels in sorted order: car 0, van 1
    assert np.isnan(X[1, 0]) and np.isnan(X[2, 3]) and np.isnan(X[3, 1:3]).all()
    np.testing.assert_array_equal(X[0], [1.5, 0, 1, 4])
    with pytest.raises(ValueError, match="no value in the target column 'speed'"):
        load_file(path, target="speed", task="regression", categorical="onehot")
    with pytest.raises(ValueError, match="has no column 'price'; its columns: 'speed', 'colour'"):
        load_file(path, target="price")
    with pytest.raises(ValueError, match="target column 'kind' is not all numbers"):
        load_file(path, task="regression", categorical="onehot")
    with pytest.raises(FileNotFoundError, match="No data file"):
        load_file(tmp_path / "absent.csv")
    with pytest.raises(ValueError, match="unknown kind of file"):
        load_file(tmp_path / "data.xlsx")


def test_npz_and_parquet_files(tmp_path):
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(20, 3)), np.repeat([3, 5], 10)
    np.savez(tmp_path / "d.npz", X=X, y=y, other=y[::-1])
    X2, y2 = load_file(tmp_path / "d.npz")
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(load_file(tmp_path / "d.npz", target="other")[1], y[::-1])
    np.savez(tmp_path / "bad.npz", data=X)
    with pytest.raises(ValueError, match=r"holds arrays \['data'\]; expected 'X'"):
        load_file(tmp_path / "bad.npz")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"a": X[:, 0], "kind": ["u", "v"] * 10, "t": y})
    pq.write_table(table, tmp_path / "d.parquet")
    with pytest.raises(ValueError, match="'kind' are not numeric"):
        load_file(tmp_path / "d.parquet")
    X3, y3, names = load_file(tmp_path / "d.parquet", categorical="onehot", return_names=True)
    assert names == ["a", "kind=u", "kind=v"] and X3.shape == (20, 3)
    np.testing.assert_array_equal(y3, y)


def test_openml_is_fetched_only_when_asked_and_fails_clearly_offline(monkeypatch, tmp_path):
    import urllib.error

    import pandas as pd

    calls = []

    def offline(**kw):
        calls.append(kw)
        raise urllib.error.URLError("no network")

    monkeypatch.setattr("sklearn.datasets.fetch_openml", offline)
    _write_csv(tmp_path / "mine.csv")
    load_file(tmp_path / "mine.csv")
    assert calls == []  # a file never reaches for the network
    with pytest.raises(ConnectionError, match=r"openml:61: could not reach OpenML.*CSV file"):
        load_file("openml:61")
    assert calls and calls[0]["data_id"] == 61
    with pytest.raises(ValueError, match="expected openml:<data_id>"):
        load_file("openml:iris")

    class Bunch:
        frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0],
                              "c": pd.Categorical(["p", "q", "p", None]),
                              "class": ["a", "b", "a", "b"]})
        target_names = ["class"]

    monkeypatch.setattr("sklearn.datasets.fetch_openml", lambda **kw: Bunch)
    X, y, names = load_file("openml:99", categorical="onehot", return_names=True)
    assert names == ["x", "c=p", "c=q"] and y.tolist() == [0, 1, 0, 1]
    assert np.isnan(X[3, 1:]).all()


def test_register_dataset_is_seen_by_the_registry_and_run_suite(user_datasets, temp_model):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.repeat(["p", "q"], 20)
    info = register_dataset("My_Blobs", lambda: (X, y), source="a test")
    assert info.n_samples is None and get_dataset_info("my_blobs") is info
    X2, y2 = load_dataset("MY_BLOBS")
    assert y2.tolist() == [0] * 20 + [1] * 20
    assert get_dataset_info("My_Blobs").n_samples == 40  # filled in by the first load
    assert "My_Blobs" in [d.name for d in list_datasets()]
    with pytest.raises(ValueError, match="already registered; pass replace_existing=True"):
        register_dataset("my_blobs", lambda: (X, y))
    with pytest.raises(ValueError, match="'iris' ships with forestzoo"):
        register_dataset("IRIS", lambda: (X, y), replace_existing=True)
    register_dataset("broken", lambda: X)
    with pytest.raises(ValueError, match="must return a pair"):
        load_dataset("broken")
    temp_model("tree", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(
        max_depth=2, random_state=random_state))
    run = run_suite("quick", models=["tree"], datasets=["my_blobs", "IRIS"], folds=2,
                    n_estimators=1, n_jobs=1, warm_up=False)
    assert run.datasets == ("My_Blobs", "iris")  # registered spellings
    assert all(r.ok for r in run.results) and len(run.results) == 4


# --- own models ------------------------------------------------------------------------

def test_module_callable_models(tmp_path, monkeypatch):
    (tmp_path / "my_zoo.py").write_text(_HGB_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in MODELS if ":" in n]:
        monkeypatch.delitem(MODELS, name)
    spec = get_model("my_zoo:make_hgb")
    assert spec.task == "classification" and spec.package == "my_zoo"
    model = spec.factory(n_estimators=7, n_jobs=3, random_state=5)
    assert type(model).__name__ == "HistGradientBoostingClassifier" and model.random_state == 5
    forest = model_from_spec("sklearn.ensemble:RandomForestClassifier").factory(
        n_estimators=7, n_jobs=1, random_state=2)
    assert (forest.n_estimators, forest.random_state) == (7, 2)
    assert model_from_spec("sklearn.tree:DecisionTreeRegressor").task == "regression"
    for spec, message in [("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
                          ("my_zoo:make_xgb", "has no attribute 'make_xgb'"),
                          ("my_zoo:not_a_model", "returned str, not a scikit-learn estimator"),
                          ("my_zoo:", "expected module:callable")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            get_model(spec)


def test_a_factory_that_ignores_the_suites_seed_is_warned_about(tmp_path, monkeypatch):
    (tmp_path / "my_rf.py").write_text(
        "from forestzoo import RandomForestClassifier\n\n\n"
        "def rf_exact():\n    return RandomForestClassifier(splitter='exact')\n\n\n"
        "def rf_seeded(n_estimators, random_state):\n"
        "    return RandomForestClassifier(n_estimators=n_estimators, random_state=random_state)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in MODELS if ":" in n]:
        monkeypatch.delitem(MODELS, name)
    with pytest.warns(UserWarning, match=r"does not take n_estimators or random_state, so RandomForestClassifier "
                                         r"keeps its own \(n_estimators=100, random_state=None\)"):
        model_from_spec("my_rf:rf_exact")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model_from_spec("my_rf:rf_seeded")


def test_entry_point_models_are_listed_and_a_broken_one_is_left_out(tmp_path, monkeypatch,
                                                                     capsys):
    from forestzoo.bench import registry

    (tmp_path / "zoo_plugin.py").write_text(_HGB_MODULE)
    dist = tmp_path / "zoo_plugin-1.0.dist-info"  # what pip installs for a package
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zoo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[forestzoo.models]\nHGB-plugin = zoo_plugin:make_hgb\nbroken = zoo_plugin:missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "MODELS", dict(registry.MODELS))
    with pytest.warns(UserWarning, match=r"Model 'broken' of the 'forestzoo.models' entry point "
                                         r"of zoo-plugin is left out: AttributeError"):
        registry._load_entry_points()
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^HGB-plugin +classification +user +HistGradientBoostingClassifier from "
                     r"zoo_plugin:make_hgb \(entry point of zoo-plugin\)", out, re.M)
    assert "broken" not in out
    assert registry.get_model("hgb-plugin").factory(random_state=3).random_state == 3


def test_own_csv_and_own_model_through_the_command_line(tmp_path):
    (tmp_path / "my_zoo.py").write_text(_HGB_MODULE)
    _write_csv(tmp_path / "my.csv")
    out = tmp_path / "run"
    proc = _forestzoo(["bench", "--datasets", f"{tmp_path / 'my.csv'},IRIS", "--models",
                       "sk-RF,my_zoo:make_hgb,my_zoo:make_failing", "--target", "label",
                       "--time-budget", "none", "--quiet", "--out", str(out)] + TINY, tmp_path)
    # a model that raises: the run goes on, and the command says so and exits with status 3
    assert proc.returncode == 3, proc.stderr
    assert "## Test accuracy" not in proc.stdout and "Report:" in proc.stdout  # --quiet
    assert "forestzoo: 4 folds failed" in proc.stderr and "Traceback" not in proc.stderr
    assert re.search(r"^  my_zoo:make_failing on my: 2 folds; InvalidParameterError: The "
                     r"'max_iter' parameter", proc.stderr, re.M)
    report = (out / "report.md").read_text()
    assert "| my | 60 | 3 | 2 |" in report and "| iris | 150 | 4 | 3 |" in report
    assert re.search(r"^\| my \| .* \| FAILED \(2 folds\) \|$", report, re.M)
    assert re.search(r"^\| my_zoo:make_hgb \| 4 \|", report, re.M)  # all 4 folds scored
    config = json.loads((out / "run.json").read_text())
    assert re.fullmatch(rf"{re.escape(str(tmp_path / 'my.csv'))} \(sha256 [0-9a-f]{{16}}, target "
                        rf"label, categorical refuse\)", config["user_datasets"][0])



def test_bad_data_files_are_refused_by_the_command_line(tmp_path, capsys):
    _write_csv(tmp_path / "coloured.csv", colour=True)
    argv = ["bench", "--datasets", str(tmp_path / "coloured.csv"), "--models", "sk-RF", "--out",
            str(tmp_path / "run")] + TINY
    assert main(argv) == 2
    assert "column(s) 'colour' are not numeric" in capsys.readouterr().err
    assert main(argv + ["--target", "nope"]) == 2
    assert "has no column 'nope'; its columns: 'a', 'b', 'c', 'colour', 'label'" in capsys.readouterr().err
    assert main(["bench", "--datasets", str(tmp_path / "absent.csv")] + TINY) == 1
    assert "No data file" in capsys.readouterr().err
    assert main(["bench", "--datasets", "iris", "--target", "label"] + TINY) == 2
    assert "names a column of a data file" in capsys.readouterr().err


# --- provenance ------------------------------------------------------------------------

def test_versions_are_recorded_and_a_resume_refuses_other_versions(tmp_path, temp_model):
    temp_model("tree", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(
        max_depth=2, random_state=random_state))
    out = tmp_path / "run"
    kw = dict(models=["tree"], folds=2, n_estimators=1, n_jobs=1, warm_up=False, out=out)
    run = run_suite("quick", datasets=["iris"], **kw)
    config = json.loads((out / "run.json").read_text())
    for key in ("forestzoo", "python", "numpy", "scipy", "scikit-learn", "numba", "joblib"):
        assert config["versions"][key] == run.provenance["versions"][key] is not None
    assert config["machine"]["cpu_count"] == os.cpu_count() and config["machine"]["platform"]
    text = write_report(run)
    assert re.search(r"^Versions: forestzoo \S+.*, numpy \S+, .*scikit-learn \S+.*\. "
                     r"Machine: .+, \d+ CPUs\.$", text, re.M)
    config["versions"]["numpy"] = "0.0.1"
    config["version_history"] = [config["versions"]]
    (out / "run.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"other versions \(numpy 0\.0\.1 there, "
                                         r"\S+ now\).*--allow-version-change"):
        run_suite("quick", datasets=["iris", "wine"], **kw)
    run = run_suite("quick", datasets=["iris", "wine"], allow_version_change=True, **kw)
    assert run.new == 2 and len(run.provenance["version_history"]) == 2
    assert "rows made with 2 version sets" in write_report(run)
    assert len(json.loads((out / "run.json").read_text())["version_history"]) == 2


def test_show_versions_git_commit_and_version_changes(tmp_path, capsys, monkeypatch):
    show_versions()
    shown = capsys.readouterr().out
    for key in ("forestzoo", "numpy", "scikit-learn", "numba", "platform", "cpu_count"):
        assert re.search(rf"^ *{key}: \S", shown, re.M), key
    assert git_commit(tmp_path) is None  # not a checkout
    (tmp_path / ".git").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path))  # a checkout, but no git on PATH
    assert git_commit(tmp_path) is None
    now = versions()
    assert version_changes(now, now) == {}
    assert version_changes({**now, "scipy": "0.1"}, now) == {"scipy": ("0.1", now["scipy"])}


# --- failures and warnings -------------------------------------------------------------

def test_a_run_where_every_fit_fails_exits_non_zero(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["bench", "--models", "sk-RF,sk-ET", "--datasets", "iris,wine", "--out", str(out),
                 "--n-estimators", "3", "--folds", "2", "--n-jobs", "0", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "forestzoo: 8 folds failed" in err
    assert re.search(r"^  sk-RF on iris: 2 folds; ValueError: ", err, re.M)
    assert "FAILED (2 folds)" in (out / "report.md").read_text()


class _FlakyTree(DecisionTreeClassifier):
    """Warns twice on every fit; the fourth fit fails (warm-up, iris 0, iris 1, wine 0)."""

    fits = []

    def fit(self, X, y, sample_weight=None):
        import warnings

        warnings.warn(f"unhappy with {len(y)} rows", UserWarning)
        warnings.warn("and again", RuntimeWarning)
        self.fits.append(len(y))
        if len(self.fits) == 4:
            raise RuntimeError("no luck")
        return super().fit(X, y, sample_weight=sample_weight)


def test_warnings_are_summarised_and_partial_failures_marked(tmp_path, temp_model, capsys):
    temp_model("flaky", lambda n_estimators, n_jobs, random_state: _FlakyTree(
        max_depth=2, random_state=random_state))
    status = main(["bench", "--models", "flaky", "--datasets", "iris,wine", "--out",
                   str(tmp_path / "run")] + TINY)
    captured = capsys.readouterr()
    assert status == 3
    assert "forestzoo: 8 warnings from 2 (model, dataset) pairs; see 'Warnings'" in captured.err
    assert _FlakyTree.fits == [120, 75, 75, 89, 89]
    assert "  flaky on wine: 1 folds; RuntimeError: no luck" in captured.err
    assert "(1/2 folds; FAILED 1)" in captured.out
    assert "| flaky | iris | 4 | UserWarning: unhappy with 75 rows |" in captured.out


# --- the command line's edges ----------------------------------------------------------

def test_time_budget_option(temp_model, capsys, tmp_path):
    import time

    class Slow(DecisionTreeClassifier):
        def fit(self, X, y, sample_weight=None):
            time.sleep(0.05)
            return super().fit(X, y, sample_weight=sample_weight)

    temp_model("slowish", lambda n_estimators, n_jobs, random_state: Slow(max_depth=1))
    assert main(["bench", "--models", "slowish", "--datasets", "iris,wine", "--time-budget",
                 "0.01", "--out", str(tmp_path / "a")] + TINY) == 0
    assert "slowish: skipped: time budget (wine)" in (tmp_path / "a" / "report.md").read_text()
    assert main(["bench", "--models", "slowish", "--datasets", "iris,wine", "--time-budget",
                 "NONE", "--out", str(tmp_path / "b")] + TINY) == 0
    assert "## Failed or skipped" not in (tmp_path / "b" / "report.md").read_text()
    with pytest.raises(SystemExit):
        main(["bench", "--time-budget", "-3"])
    assert "expected seconds > 0 or 'none'" in capsys.readouterr().err


def test_the_warm_up_also_predicts(temp_model):
    calls = []

    class Counting(DecisionTreeClassifier):
        def predict(self, X):
            calls.append(len(X))
            return super().predict(X)

    temp_model("counting", lambda n_estimators, n_jobs, random_state: Counting(max_depth=1))
    run_suite("quick", models=["counting"], datasets=["wine"], folds=2, n_estimators=1, n_jobs=1)
    assert calls == [120, 89, 89]  # the warm-up's slice, then the two timed folds


def test_broken_pipe_and_ctrl_c_leave_no_traceback(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "forestzoo", "suites"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env())
    proc.stdout.close()  # the reader is gone before the first line: `forestzoo suites | head -0`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == ""
    script = textwrap.dedent("""
        import sys
        from forestzoo.bench import cli

        def interrupt(*args, **kw):
            raise KeyboardInterrupt
        cli._list_suites = interrupt  # Ctrl-C in the middle of a command
        cli.console(sys.argv[2:])
    """)
    proc = subprocess.run([sys.executable, "-c", script, "suites", "suites"], capture_output=True,
                          text=True, timeout=300, env=_env())
    assert proc.returncode == 128 + signal.SIGINT and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "forestzoo: interrupted."


def test_ctrl_c_while_the_report_is_written(tmp_path, temp_model, monkeypatch, capsys):
    from forestzoo.bench import report

    def interrupt(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_report", interrupt)
    temp_model("tree", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(max_depth=1))
    out = tmp_path / "run"
    assert main(["bench", "--models", "tree", "--datasets", "iris", "--out", str(out)] + TINY) == 130
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == [f"forestzoo: interrupted; every finished result is in {out / 'results.csv'}. "
                     f"Run the same command again to resume."]


def test_help_and_show_versions_stay_lazy():
    # `forestzoo --help` builds the parser without numpy; forestzoo.show_versions is there
    # after `import forestzoo` without importing what it reports on
    code = ("import sys, forestzoo; from forestzoo.bench.cli import _build_parser; "
            "_build_parser().format_help(); assert callable(forestzoo.show_versions); "
            "print(sorted(m for m in ('numpy', 'sklearn', 'forestzoo.bench.provenance') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=_env()).stdout
    assert out.strip() == "[]"


def test_plot_boundary_draws_banana_when_its_file_is_absent(tmp_path, temp_model, capsys):
    pytest.importorskip("matplotlib")
    temp_model("tree", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(
        max_depth=4, random_state=random_state))
    out = tmp_path / "banana.png"
    assert main(["plot", "boundary", "--model", "tree", "--dataset", "banana", "--out", str(out),
                 "--resolution", "20", "--data-home", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert "drawn by forestzoo.datasets.make_banana(random_state=0)" in captured.err
    assert float(re.search(r"tree (\d\.\d+)", captured.out).group(1)) > 0.8


def test_cd_diagram_numbers_at_most_a_dozen_ranks():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from forestzoo.stats import plot_critical_difference

    k = 27
    fig = plot_critical_difference(np.linspace(1.5, 25.5, k), [f"m{i}" for i in range(k)], 8)
    numbers = [t.get_text() for t in fig.axes[0].texts if t.get_text().isdigit()]
    plt.close(fig)
    assert numbers[0] == "1" and numbers[-1] == "27" and len(numbers) <= 14
    fig = plot_critical_difference(np.arange(1.0, 6.0), list("abcde"), 8)
    assert [t.get_text() for t in fig.axes[0].texts if t.get_text().isdigit()] == list("12345")
    plt.close(fig)


def test_a_changed_data_file_is_not_resumed_into(tmp_path, temp_model, user_datasets):
    temp_model("tree", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(max_depth=1))
    path, out = tmp_path / "mine.csv", tmp_path / "run"
    _write_csv(path, seed=0)
    kw = dict(models=["tree"], datasets=[str(path)], folds=2, n_jobs=1, warm_up=False, out=out)
    assert run_suite("quick", **kw).new == 2
    assert run_suite("quick", **kw).new == 0  # the same file: nothing to redo
    _write_csv(path, seed=1)
    with pytest.raises(ValueError, match=r"holds results of a different run \(user_datasets: "):
        run_suite("quick", **kw)
