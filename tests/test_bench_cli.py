"""The ``forestzoo`` command line and the benchmark runner behind it."""

import csv
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from forestzoo.bench import (
    MODELS,
    FoldResult,
    Suite,
    average_ranks,
    format_report,
    get_model,
    get_suite,
    read_results,
    register_model,
    resolve_models,
    run_benchmark,
    run_suite,
    write_report,
)
from forestzoo.bench.cli import main
from forestzoo.bench.registry import ModelSpec
from forestzoo.datasets import DataFile, DatasetInfo
from forestzoo.datasets._readers import TableFormat
from forestzoo.datasets._registry import REGISTRY

TINY = ["--n-estimators", "5", "--folds", "2", "--n-jobs", "1", "--no-progress"]


def _tree(n_estimators, n_jobs, random_state):
    return DecisionTreeClassifier(max_depth=3, random_state=random_state)


@pytest.fixture
def temp_model(monkeypatch):
    """Register models for one test only."""

    def add(name, factory, task="classification", quick=True):
        monkeypatch.setitem(MODELS, name, ModelSpec(name, factory, "test model", task,
                                                    "test", "", quick))
    return add


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_bench_writes_report_results_and_cd_diagram(capsys, tmp_path):
    out = tmp_path / "run"
    rc = main(["bench", "--datasets", "iris,wine,seeds,sonar,glass", "--models", "RaF,ET,sk-RF",
               "--out", str(out)] + TINY)
    text = capsys.readouterr().out
    assert rc == 0
    for word in ("iris", "wine", "RaF", "sk-RF", "average rank", "Friedman chi2_F",
                 "exact permutation test", "CD =", "Win / tie / loss against RaF",
                 "sign p (Holm)", "Wall time per model", "1 x 2-fold CV, 5 trees"):
        assert word in text
    iris = next(line for line in text.splitlines() if line.startswith("| iris "))
    accuracies = [float(a) for a in re.findall(r"(\d+\.\d\d) ±", iris)]
    assert len(accuracies) == 3 and all(80 < a <= 100 for a in accuracies)
    assert (out / "report.md").read_text() in text
    assert (out / "cd_diagram.png").read_bytes()[:4] == b"\x89PNG"
    rows = _rows(out / "results.csv")
    assert len(rows) == 5 * 3 * 2
    assert {r["status"] for r in rows} == {"ok"}
    assert all(float(r["fit_seconds"]) >= 0 and r["params"].startswith("{") for r in rows)


def test_folds_are_shared_and_results_reproducible():
    results = run_benchmark(["iris"], ["sk-RF", "sk-ET"], n_estimators=5, cv=3, n_jobs=1)
    assert len(results) == 6
    assert {(r.model, r.fold) for r in results} == {(m, f) for m in ("sk-RF", "sk-ET")
                                                      for f in range(3)}
    assert all(0 <= r.accuracy <= 1 and r.fit_seconds >= 0 for r in results)
    # the same folds for every model: test sizes agree fold by fold
    by_model = {m: [r.n_test for r in results if r.model == m] for m in ("sk-RF", "sk-ET")}
    assert by_model["sk-RF"] == by_model["sk-ET"] and sum(by_model["sk-RF"]) == 150
    again = run_benchmark(["iris"], ["sk-RF", "sk-ET"], n_estimators=5, cv=3, n_jobs=1)
    assert [r.accuracy for r in again] == [r.accuracy for r in results]
    assert "iris" in format_report(results)


def test_same_results_for_any_n_jobs():
    one = run_suite("quick", models=["RaF", "ET"], datasets=["wine"], n_estimators=8,
                    n_jobs=1, warm_up=False)
    two = run_suite("quick", models=["RaF", "ET"], datasets=["wine"], n_estimators=8,
                    n_jobs=2, warm_up=False)
    assert [r.accuracy for r in one.results] == [r.accuracy for r in two.results]


def test_interrupted_run_resumes_and_loses_nothing(tmp_path, temp_model):
    calls = {"n": 0}

    def flaky(n_estimators, n_jobs, random_state):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C during the 3rd fit
        return _tree(n_estimators, n_jobs, random_state)

    temp_model("flaky", flaky)
    temp_model("tree", _tree)
    kw = dict(models=["tree", "flaky"], datasets=["iris", "wine"], folds=2,
              n_estimators=3, n_jobs=1, warm_up=False)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_suite("quick", out=out, **kw)
    before = (out / "results.csv").read_bytes()
    first = read_results(out / "results.csv")
    # flaky's 3rd model is the one of wine fold 0, after that fold's tree
    assert [(r.dataset, r.model, r.fold) for r in first] == [
        ("iris", "tree", 0), ("iris", "flaky", 0), ("iris", "tree", 1),
        ("iris", "flaky", 1), ("wine", "tree", 0)]
    run = run_suite("quick", out=out, **kw)
    assert run.new == 8 - 5 and len(run.results) == 8
    after = (out / "results.csv").read_bytes()
    assert after.startswith(before)  # finished rows untouched
    assert len({r.key for r in read_results(out / "results.csv")}) == 8
    # resuming changes nothing: the same scores as one uninterrupted run
    clean = run_suite("quick", out=tmp_path / "clean", **kw)
    assert sorted((r.key, r.accuracy) for r in run.results) == sorted(
        (r.key, r.accuracy) for r in clean.results)
    # a third call has nothing left to do
    assert run_suite("quick", out=out, **kw).new == 0


def test_cli_interrupt_message_and_resume(tmp_path, temp_model, capsys):
    calls = {"n": 0}

    def flaky(n_estimators, n_jobs, random_state):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return _tree(n_estimators, n_jobs, random_state)

    temp_model("flaky", flaky)
    argv = ["bench", "--models", "flaky", "--datasets", "iris", "--out",
            str(tmp_path)] + TINY
    assert main(argv) == 130  # the warm-up fit is call 1
    assert "Run the same command again to resume" in capsys.readouterr().err
    assert len(_rows(tmp_path / "results.csv")) == 1
    assert main(argv) == 0
    assert len(_rows(tmp_path / "results.csv")) == 2


def test_resume_refuses_a_different_protocol(tmp_path):
    kw = dict(models=["ET"], datasets=["iris"], n_estimators=3, n_jobs=1, warm_up=False)
    run_suite("quick", out=tmp_path, folds=2, **kw)
    with pytest.raises(ValueError, match="different run \\(folds: 2 there, 3 now"):
        run_suite("quick", out=tmp_path, folds=3, **kw)
    run_suite("quick", out=tmp_path, folds=2, models=["RaF"], datasets=["iris"],
              n_estimators=3, n_jobs=1)  # other models may join the same directory
    assert {r.model for r in read_results(tmp_path / "results.csv")} == {"ET", "RaF"}


def test_per_dataset_forest_sizes(tmp_path, temp_model):
    sizes = []

    def spy(n_estimators, n_jobs, random_state):
        sizes.append(n_estimators)
        return _tree(n_estimators, n_jobs, random_state)

    temp_model("spy-size", spy)
    suite = Suite("sized", "", ("iris", "wine"), ("spy-size",), folds=2, n_estimators=7,
                  n_estimators_by_dataset={"wine": 3})
    assert (suite.trees("iris"), suite.trees("wine"), suite.describe_trees()) == (7, 3, "7 (wine 3)")
    run = run_suite(suite, n_jobs=1, out=tmp_path / "a", warm_up=False)
    assert sizes == [7, 7, 3, 3]  # the factory got each dataset's size
    assert {(r.dataset, r.n_estimators) for r in run.results} == {("iris", 7), ("wine", 3)}
    assert "7 (wine 3) trees per ensemble" in write_report(run)
    with pytest.raises(ValueError, match=r"n_estimators_by_dataset: \{'wine': 3\} there, None now"):
        run_suite(suite, n_jobs=1, out=tmp_path / "a", warm_up=False, n_estimators=7)
    # one size given by the caller (--n-estimators) holds for every dataset
    sizes.clear()
    run = run_suite(suite, n_jobs=1, out=tmp_path / "b", warm_up=False, n_estimators=4)
    assert sizes == [4, 4, 4, 4] and {r.n_estimators for r in run.results} == {4}
    with pytest.raises(ValueError, match=r"n_estimators_by_dataset\['wine'\] must be an integer >= 1"):
        Suite("bad", "", ("wine",), ("spy-size",), n_estimators_by_dataset={"wine": 0})


def test_failing_model_is_recorded_and_the_run_goes_on(tmp_path, temp_model):
    class Broken(DummyClassifier):
        def fit(self, X, y):
            raise ValueError("no\nmulticlass here")

    temp_model("broken", lambda n_estimators, n_jobs, random_state: Broken())
    run = run_suite("quick", models=["ET", "broken"], datasets=["iris", "wine"], folds=2,
                    n_estimators=3, n_jobs=1, out=tmp_path)
    status = {r.status for r in run.results if r.model == "broken"}
    assert status == {"failed: ValueError: no multiclass here"}
    assert all(r.ok for r in run.results if r.model == "ET")
    text = write_report(run)
    assert "| iris | 150 | 4 | 3 | " in text and "failed" in text
    assert "broken: failed: ValueError" in text


def test_time_budget_skips_a_slow_model(temp_model):
    def slow(n_estimators, n_jobs, random_state):
        return DecisionTreeClassifier(random_state=random_state)

    temp_model("slow", slow)
    suite = Suite("tiny-budget", "", ("iris", "wine"), ("slow",), folds=2,
                  time_budget_s=1e-9)
    run = run_suite(suite, n_jobs=1, warm_up=False)
    # the budget is checked when a dataset starts: all of iris, none of wine
    assert [(r.dataset, r.status) for r in run.results] == [
        ("iris", "ok"), ("iris", "ok"), ("wine", "skipped: time budget"),
        ("wine", "skipped: time budget")]
    assert "slow: skipped: time budget (wine)" in format_report(run.results, suite=suite)


def test_the_warm_up_does_not_count_against_the_budget(temp_model, monkeypatch):
    # a cold Numba cache: the untimed warm-up fit alone takes far more than the model's share
    from forestzoo.bench import runner

    def slow_warm_up(models, X, y, suite, n_jobs):
        return 1e6

    monkeypatch.setattr(runner, "_warm_up", slow_warm_up)
    temp_model("cold", lambda n_estimators, n_jobs, random_state: DecisionTreeClassifier(random_state=random_state))
    suite = Suite("cold-budget", "", ("iris", "wine"), ("cold",), folds=2, time_budget_s=60.0)
    run = run_suite(suite, n_jobs=1, warm_up=True)
    assert [(r.dataset, r.status) for r in run.results] == [
        ("iris", "ok"), ("iris", "ok"), ("wine", "ok"), ("wine", "ok")]
    assert run.warm_up_seconds == 1e6


def test_partial_cells_are_shown_but_not_ranked(temp_model):
    calls = {"n": 0}

    class Sometimes(DummyClassifier):
        def fit(self, X, y):
            calls["n"] += 1
            if calls["n"] == 2:
                raise RuntimeError("out of memory")
            return super().fit(X, y)

    temp_model("sometimes", lambda n_estimators, n_jobs, random_state: Sometimes())
    run = run_suite("quick", models=["ET", "sometimes"], datasets=["iris", "wine", "seeds"],
                    folds=2, n_estimators=3, n_jobs=1, warm_up=False)
    text = format_report(run.results)
    assert re.search(r"^\| iris \|.* \(1/2 folds; FAILED 1\) \|$", text, re.M)
    assert "N = 2 datasets" in text and "left out: iris" in text


def test_a_model_without_results_on_most_datasets_is_left_out_of_the_ranks(temp_model):
    # e.g. a model whose warm-up (a cold Numba cache) used its whole time budget: without the
    # rule, no dataset has a result for every model and the report would show no ranks at all
    class Fails(DummyClassifier):
        def fit(self, X, y):
            raise RuntimeError("never fits")

    temp_model("never", lambda n_estimators, n_jobs, random_state: Fails())
    run = run_suite("quick", models=["ET", "DT", "never"], datasets=["iris", "wine", "seeds"],
                    folds=2, n_estimators=3, n_jobs=1, warm_up=False)
    text = format_report(run.results)
    assert "Left out of the ranks, with results on at most half of the datasets: never (0 of 3)." in text
    assert "N = 3 datasets" in text
    ranks = text[text.index("| model | average rank |"):].split("\n\n")[0]
    assert "| ET |" in ranks and "| DT |" in ranks and "never" not in ranks


def test_protocols_holdout_official_and_zscore(monkeypatch, tmp_path, temp_model):
    seen = []

    class Spy(DummyClassifier):
        def fit(self, X, y):
            seen.append((X.shape[0], X.mean(axis=0), X.std(axis=0)))
            return super().fit(X, y)

    temp_model("spy", lambda n_estimators, n_jobs, random_state: Spy())
    rng = np.random.default_rng(0)
    for name, n in (("toy.tra", 40), ("toy.tes", 20)):
        X = rng.normal(5.0, 3.0, size=(n, 3))
        y = np.arange(n) % 2
        np.savetxt(tmp_path / name, np.column_stack([X, y]), delimiter=",")
    files = tuple(DataFile(n, hashlib.sha256((tmp_path / n).read_bytes()).hexdigest(), s)
                  for n, s in (("toy.tra", "train"), ("toy.tes", "test")))
    monkeypatch.setitem(REGISTRY, "toy", DatasetInfo("toy", "classification", 60, 3, 2,
                                                     "made up", "none", files, TableFormat()))
    official = Suite("o", "", ("toy", "iris"), ("spy",), protocol="official", repeats=2,
                     preprocess="zscore")
    run = run_suite(official, data_home=tmp_path, warm_up=False)
    toy = [r for r in run.results if r.dataset == "toy"]
    assert [(r.repeat, r.n_train, r.n_test) for r in toy] == [(0, 40, 20), (1, 40, 20)]
    iris = [r for r in run.results if r.dataset == "iris"]  # no official split: holdout
    assert [(r.n_train, r.n_test) for r in iris] == [(100, 50), (100, 50)]
    for _, mean, std in seen:  # standardised with the training part's statistics
        np.testing.assert_allclose(mean, 0, atol=1e-12)
        np.testing.assert_allclose(std, 1, atol=1e-12)
    holdout = Suite("h", "", ("wine",), ("spy",), protocol="holdout", test_size=0.25)
    (r,) = run_suite(holdout, warm_up=False).results
    assert (r.n_train, r.n_test) == (133, 45)


def test_regression_suite_reports_r2(temp_model):
    from sklearn.ensemble import RandomForestRegressor

    temp_model("sk-RFR", lambda n_estimators, n_jobs, random_state: RandomForestRegressor(
        n_estimators=n_estimators, random_state=random_state), task="regression")
    suite = Suite("reg", "", ("airfoil", "concrete"), ("sk-RFR",), folds=2,
                  n_estimators=5, metric="r2")
    run = run_suite(suite, n_jobs=1, warm_up=False)
    assert all(r.ok and 0.3 < r.r2 <= 1 and r.mae > 0 and r.rmse >= r.mae
               for r in run.results)
    text = format_report(run.results, suite=suite)
    assert "Test r2" in text and "One model" in text
    with pytest.raises(ValueError, match="Model 'RaF' is a classification model"):
        run_suite(suite, models=["RaF"])
    with pytest.raises(ValueError, match="Dataset 'airfoil' is a regression task"):
        run_suite("quick", datasets=["airfoil"])


def test_paper_column_beside_ours(tmp_path, capsys):
    (tmp_path / "lecture_mpsvm_raf.csv").write_text(
        "dataset,RaF,MPRaF-T\nIris,95.50,96.00\nWine,97.10,98.00\n")
    out = tmp_path / "out"
    argv = ["bench", "--suite", "lecture-uci", "--models", "RaF,ET", "--datasets",
            "iris,wine,seeds", "--repeats", "1", "--out", str(out)] + TINY
    assert main(argv + ["--paper-tables", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("| dataset"))
    assert header.split(" | ")[4:7] == ["RaF", "RaF (paper)", "ET |"]
    assert re.search(r"^\| iris \|.*\| 95\.50 \|", text, re.M)
    assert re.search(r"^\| seeds \|.*\| - \|", text, re.M)  # not in this table
    (out / "results.csv").unlink()
    assert main(argv + ["--paper-tables", str(tmp_path / "absent")]) == 0
    assert "(paper)" not in capsys.readouterr().out


def test_quick_suite_takes_every_quick_classification_model(temp_model):
    temp_model("fast-one", _tree)
    temp_model("slow-one", _tree, quick=False)
    temp_model("a-regressor", _tree, task="regression")
    from forestzoo.bench import get_suite

    names = resolve_models(get_suite("quick"))
    assert "fast-one" in names and "RaF" in names and "sk-ET" in names
    assert "slow-one" not in names and "a-regressor" not in names


def test_average_ranks_share_ties_and_skip_missing_rows():
    scores = [[0.9, 0.9, 0.8], [0.7, 0.8, 0.9], [np.nan, 0.5, 0.5]]
    np.testing.assert_allclose(average_ranks(scores), [(1.5 + 3) / 2, (1.5 + 2) / 2, 2.0])


def test_help_and_no_command(capsys):
    for argv in (["--help"], ["bench", "--help"], ["plot", "boundary", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 0
    assert "--n-estimators" in capsys.readouterr().out
    assert main([]) == 2
    assert "bench" in capsys.readouterr().out


@pytest.mark.parametrize("argv, expected", [
    (["--datasets", "nope"], "Unknown dataset 'nope'. Valid names:"),
    (["--models", "nope"], "Unknown model 'nope'. Valid names: "),
    (["--suite", "nope"], "Unknown suite 'nope'. Valid names: quick, lecture-uci"),
    (["--datasets", "concrete"], "regression task"),
    (["--folds", "1"], "folds must be an integer >= 2"),
    (["--repeats", "0"], "repeats must be an integer >= 1"),
    (["--models", ","], "at least one dataset and one model"),
])
def test_bad_names_are_refused_without_traceback(capsys, tmp_path, argv, expected):
    assert main(["bench", "--out", str(tmp_path)] + TINY + argv) == 2
    assert expected in capsys.readouterr().err


def test_missing_and_corrupt_data_files(capsys, tmp_path):
    argv = ["bench", "--datasets", "letter", "--data-home", str(tmp_path), "--out",
            str(tmp_path / "o")] + TINY
    assert main(argv) == 1
    assert "letter-recognition.data" in capsys.readouterr().err
    bad = tmp_path / "letter-recognition.data"
    bad.write_text("Letter,1\nA,1\n")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "does not match the recorded checksum" in err
    assert not (tmp_path / "o" / "results.csv").exists()  # refused before any fit


def test_list_commands(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^iris +150 x 4 +3 classes +bundled", out, re.M)
    assert re.search(r"^letter .* data dir", out, re.M)
    assert re.search(r"^two_spirals .* synthetic", out, re.M)
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^name +task +family +description", out, re.M)
    assert re.search(r"^RaF +classification +ensemble +forestzoo", out, re.M)
    assert main(["suites"]) == 0
    out = capsys.readouterr().out
    assert "lecture-uci" in out and "repeats=10" in out


def test_register_model_refuses_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        register_model("RaF", "again")(lambda **kw: None)
    assert get_model("RaF") is MODELS["RaF"] and get_model("raf") is MODELS["RaF"]


def test_plot_boundary(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "b.png"
    assert main(["plot", "boundary", "--model", "RaF,ET", "--dataset", "two_spirals",
                 "--out", str(out), "--n-estimators", "10", "--resolution", "40",
                 "--n-jobs", "1"]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    accs = [float(a) for a in re.findall(r"(?:RaF|ET) (\d\.\d+)", capsys.readouterr().out)]
    assert len(accs) == 2 and all(a > 0.8 for a in accs)  # spirals are learnable
    assert main(["plot", "boundary", "--model", "RaF", "--dataset", "iris",
                 "--out", str(out)]) == 2
    assert "2-feature classification dataset: banana" in capsys.readouterr().err


def test_python_dash_m_forestzoo():
    proc = subprocess.run([sys.executable, "-m", "forestzoo", "bench", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--suite" in proc.stdout and "--out" in proc.stdout


class _WarningTree(DecisionTreeClassifier):
    def fit(self, X, y, sample_weight=None):
        import warnings

        warnings.warn("the model is unhappy", UserWarning)
        return super().fit(X, y, sample_weight=sample_weight)


def test_model_warnings_go_to_the_log_not_the_terminal(tmp_path, temp_model, recwarn):
    temp_model("noisy", lambda n_estimators, n_jobs, random_state: _WarningTree(
        max_depth=2, random_state=random_state))
    out = tmp_path / "run"
    run_suite("quick", out=out, models=["noisy"], datasets=["iris", "wine"], folds=2,
              n_estimators=3, n_jobs=1, warm_up=False)
    lines = (out / "warnings.log").read_text().splitlines()
    assert lines == ["iris\tnoisy\tUserWarning: the model is unhappy",
                     "wine\tnoisy\tUserWarning: the model is unhappy"]  # once per dataset
    assert not [w for w in recwarn if "unhappy" in str(w.message)]



# --- the denoising suite: test-time noise and the normalised L1 error -----------------

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


class _SpyRegressor:
    """Predicts the training mean; records the training means and the rows it scores."""

    seen = []

    def __init__(self, tag):
        self.tag = tag

    def get_params(self, deep=False):
        return {"tag": self.tag}

    def fit(self, X, y):
        self.y_mean_, self.X_mean_ = float(np.mean(y)), X.mean(axis=0)
        return self

    def predict(self, X):
        _SpyRegressor.seen.append((self.tag, self.X_mean_, X.copy()))
        return np.full(len(X), self.y_mean_)


def test_denoising_suite_corrupts_test_rows_alike_for_every_model(temp_model):
    from forestzoo.datasets import load_dataset
    from forestzoo.denoising import MeanReplacementNoise

    for tag in ("a", "b"):
        temp_model(f"spy-{tag}", lambda n_estimators, n_jobs, random_state, tag=tag: _SpyRegressor(tag),
                   task="regression")
    suite = get_suite("denoising")
    assert suite.test_transform == MeanReplacementNoise(0.375) and suite.metric == "nl1_error"
    assert suite.models == ("RF-d4", "DRF") and all(get_model(m).task == "regression" for m in suite.models)
    _SpyRegressor.seen.clear()
    run = run_suite(suite, models=["spy-a", "spy-b"], datasets=["concrete"], repeats=2,
                    n_jobs=1, warm_up=False)
    assert [(r.model, r.repeat, r.n_train, r.n_test) for r in run.results] == [
        (m, rep, 772, 258) for rep in (0, 1) for m in ("spy-a", "spy-b")]
    assert all(r.ok and 0.1 < r.nl1_error < 1 for r in run.results)
    clean_rows = {tuple(row) for row in load_dataset("concrete")[0]}
    seen = _SpyRegressor.seen
    assert [t for t, _, _ in seen] == ["a", "b", "a", "b"]
    for (_, mean, X_a), (_, _, X_b) in (seen[:2], seen[2:]):
        np.testing.assert_array_equal(X_a, X_b)  # the same noisy rows for every model
        # in every row 3 of the 8 features (37.5 %) hold the training part's mean
        assert ((X_a == mean).sum(axis=1) == 3).all()
        assert not any(tuple(row) in clean_rows for row in X_a)
    assert not np.array_equal(seen[0][2], seen[2][2])  # each repeat its own split and noise


def test_normalised_l1_error_is_recorded_for_every_regression_fold():
    from forestzoo.bench.runner import _scores

    scores = _scores("regression", np.array([1.0, -1.0, 2.0]), np.array([1.5, -1.0, 1.0]))
    assert scores["nl1_error"] == pytest.approx(1.5 / 4)  # sum|y - y_hat| / sum|y|
    assert scores["mae"] == pytest.approx(0.5)


def test_denoising_suite_runs_on_tiny_data_and_ranks_lower_error_first(tmp_path, capsys):
    from dataclasses import replace

    (tmp_path / "denoising_table2_tree_selection.csv").write_text(
        "dataset,regression_error_with,regression_error_without\nConcrete,20.4,22.4\n")
    out = tmp_path / "run"
    assert main(["bench", "--suite", "denoising", "--datasets", "concrete", "--n-estimators", "2",
                 "--repeats", "1", "--n-jobs", "1", "--no-progress", "--out", str(out),
                 "--paper-tables", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    results = read_results(out / "results.csv")
    assert [(r.model, r.status) for r in results] == [("RF-d4", "ok"), ("DRF", "ok")]
    assert all(0.05 < r.nl1_error < 0.8 for r in results)
    assert "## Test nl1_error (%)" in text and "MeanReplacementNoise(fraction=0.375)" in text
    header = next(line for line in text.splitlines() if line.startswith("| dataset"))
    assert header.endswith("| RF-d4 | DRF | DRF (paper) |")
    assert re.search(r"^\| concrete \|.*\| 20\.40 \|$", text, re.M)
    suite = get_suite("denoising")
    clean = run_suite(replace(suite, test_transform=None), models=["RF-d4"], datasets=["concrete"],
                      n_estimators=2, repeats=1, n_jobs=1, warm_up=False)
    assert clean.results[0].nl1_error < results[0].nl1_error  # the noise costs RF accuracy
    # lower is better: rank 1 and bold go to the smaller error
    fake = [FoldResult(d, m, 0, float("nan"), 0.1, suite="denoising", nl1_error=e)
            for d, errs in (("concrete", (0.3, 0.2)), ("airfoil", (0.05, 0.04)))
            for m, e in zip(("RF-d4", "DRF"), errs)]
    text = format_report(fake, suite=suite)
    assert re.search(r"^\| DRF \| 1\.00 \|$", text, re.M)
    assert re.search(r"^\| concrete \|.*\| 30\.00 ± 0\.00 \| \*\*20\.00 ± 0\.00\*\* \|$", text, re.M)
    assert "2 / 0 / 0" in text  # DRF wins both against RF-d4


def test_noise_fraction_reruns_the_denoising_suite_at_another_level(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["bench", "--suite", "denoising", "--datasets", "concrete", "--models", "RF-d4", "--n-estimators", "2",
            "--repeats", "1", "--n-jobs", "1", "--no-progress", "--out", str(out)]
    assert main(argv + ["--noise-fraction", "0.75"]) == 0
    text = capsys.readouterr().out
    assert "MeanReplacementNoise(fraction=0.75)" in text and "in every test row 75 % of the features" in text
    noisy = read_results(out / "results.csv")[0].nl1_error
    # the default level is another transform: it does not resume the 75 % run
    assert main(argv) == 2
    assert "transform" in capsys.readouterr().err
    assert main(argv[:-2] + ["--out", str(tmp_path / "clean"), "--noise-fraction", "0"]) == 0
    assert read_results(tmp_path / "clean" / "results.csv")[0].nl1_error < noisy
    # a suite without a noise level, and a fraction outside [0, 1], are refused with a message
    assert main(["bench", "--suite", "quick", "--noise-fraction", "0.5", "--no-progress"]) == 2
    assert "has no test-noise level; --noise-fraction applies to denoising" in capsys.readouterr().err
    assert main(argv[:-2] + ["--out", str(tmp_path / "bad"), "--noise-fraction", "1.5"]) == 2
    assert "must be in [0, 1]" in capsys.readouterr().err


def test_denoising_suite_data_directory_datasets(tmp_path):
    with pytest.raises(FileNotFoundError, match="energy_efficiency.csv.gz"):
        run_suite("denoising", models=["RF-d4"], data_home=tmp_path)
    home = Path(os.environ.get("FORESTZOO_DATA") or SHARED_DATA)
    if not all((home / f).is_file() for f in ("energy_efficiency.csv.gz",
                                              "default_features_1059_tracks.txt")):
        pytest.skip("no data directory with energy_efficiency and music_origin (FORESTZOO_DATA)")
    run = run_suite("denoising", models=["RF-d4"], datasets=["energy_efficiency", "music_origin"],
                    n_estimators=3, repeats=1, n_jobs=1, warm_up=False, data_home=home)
    assert [(r.dataset, r.n_train + r.n_test) for r in run.results] == [
        ("energy_efficiency", 768), ("music_origin", 1059)]
    assert all(r.ok and 0 < r.nl1_error < 2 for r in run.results)


def test_suites_command_lists_the_denoising_suite(capsys):
    assert main(["suites"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("\ndenoising "):]
    assert "metric=nl1_error" in block and "MeanReplacementNoise(fraction=0.375)" in block
    assert "models: RF-d4,DRF" in block and "datasets: concrete,energy_efficiency" in block


def test_results_file_without_a_new_column_still_reads_and_resumes(tmp_path):
    out = tmp_path / "run"
    kw = dict(models=["RaF"], datasets=["iris"], folds=2, n_estimators=3, n_jobs=1, warm_up=False)
    run_suite("quick", out=out, **kw)
    path = out / "results.csv"
    rows = _rows(path)
    old_fields = [f for f in rows[0] if f != "nl1_error"]  # a file from before the column existed
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=old_fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    assert [r.accuracy for r in read_results(path)] == [float(r["accuracy"]) for r in rows]
    assert run_suite("quick", out=out, **kw).new == 0  # resumed: nothing to redo
    assert _rows(path)[0].keys() == rows[0].keys()  # rewritten in today's layout
    assert [r["accuracy"] for r in _rows(path)] == [r["accuracy"] for r in rows]


def test_cli_fetches_a_missing_file_from_openml_only_when_asked(monkeypatch, tmp_path, capsys):
    import pandas as pd
    import sklearn.datasets
    from sklearn.utils import Bunch

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x0": rng.normal(size=60), "x1": pd.Categorical(rng.choice(["u", "v"], 60))})
    target = pd.Series(pd.Categorical(np.where(frame["x0"] > 0, "yes", "no")))
    calls = []
    monkeypatch.setattr(sklearn.datasets, "fetch_openml",
                        lambda **kw: calls.append(kw) or Bunch(data=frame, target=target))
    monkeypatch.setitem(REGISTRY, "toy", DatasetInfo(
        "toy", "classification", 60, 2, 2, "made up", "none", (DataFile("toy.csv", "0" * 64),),
        TableFormat(), openml_id=12345))
    argv = ["bench", "--datasets", "toy", "--models", "RaF", "--data-home", str(tmp_path),
            "--out", str(tmp_path / "o")] + TINY
    monkeypatch.delenv("FORESTZOO_DOWNLOAD", raising=False)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "'toy.csv'" in err and "FORESTZOO_DOWNLOAD=1" in err and not calls
    monkeypatch.setenv("FORESTZOO_DOWNLOAD", "1")
    assert main(argv) == 0
    assert calls and calls[0]["data_id"] == 12345
    assert {r["status"] for r in _rows(tmp_path / "o" / "results.csv")} == {"ok"}


_SLOW_FIT_SCRIPT = """
import signal, sys, time
# a shell that starts a job in the background (``cmd &``, as CI may) makes it ignore SIGINT, and Python
# then never raises KeyboardInterrupt: restore what an interactive Ctrl-C would meet
signal.signal(signal.SIGINT, signal.default_int_handler)
from concurrent.futures import ThreadPoolExecutor
from sklearn.base import BaseEstimator, ClassifierMixin
from forestzoo.bench.cli import console
from forestzoo.bench.registry import MODELS, ModelSpec

POOL = ThreadPoolExecutor(2)  # like forestzoo's block pool: its threads are joined when Python exits

class Slow(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):  # work on two threads that a Ctrl-C in the main thread cannot stop
        print("fitting", flush=True)
        for future in [POOL.submit(time.sleep, 120) for _ in range(2)]:
            future.result()
        return self

MODELS["slow"] = ModelSpec("slow", lambda n_estimators, n_jobs, random_state: Slow(), "test model",
                           "classification", "test", "", True)
sys.exit(console(["bench", "--models", "slow", "--datasets", "iris", "--out", sys.argv[1], "--n-estimators", "1",
                  "--folds", "2", "--n-jobs", "1", "--no-progress"]))
"""


def test_console_leaves_at_once_when_interrupted(tmp_path):
    # the threads of a parallel fit keep running after Ctrl-C; the command must not wait for them
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", _SLOW_FIT_SCRIPT, str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "fitting"
        time.sleep(0.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        waited = time.monotonic() - start
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Run the same command again to resume" in err
    assert waited < 30  # the sleeping threads had ~120 s to go


def test_help_imports_neither_scikit_learn_nor_the_runner():
    # `forestzoo --help` only builds the parser: the estimators, scipy.stats and the runner load on use
    code = ("import sys; from forestzoo.bench.cli import _build_parser; _build_parser().format_help(); "
            "print(sorted(m for m in ('sklearn', 'scipy.stats', 'numba', 'forestzoo.bench.runner') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_on_first_compile_calls_back_once_per_block():
    import numba

    from forestzoo._jit import on_first_compile

    calls = []

    def kernel(x):
        return x + 1

    with on_first_compile(lambda: calls.append("compiling")):
        first = numba.njit(kernel)  # never compiled before: a cache miss
        first(1)
        numba.njit(lambda x: x * 2)(3)
    assert calls == ["compiling"]
    with on_first_compile(lambda: calls.append("again")):
        first(2)  # already compiled for int: nothing to compile
    assert calls == ["compiling"]


# --- the report's statistics: ties, small tables, corrected comparisons with the first model --


def _fake_run(table, sizes=(70, 70, 70), datasets=None, models=None):
    """FoldResults whose fold counts are ``table[d][m]`` (one count per fold)."""
    datasets = datasets or ["iris", "wine", "seeds", "sonar", "glass", "ionosphere", "vehicle",
                            "breast_cancer_wisconsin_diag"][:len(table)]
    models = models or [f"m{j}" for j in range(len(table[0]))]
    return [FoldResult(d, m, f, c / n, 0.1, n_test=n, error=1 - c / n)
            for d, row in zip(datasets, table) for m, counts in zip(models, row)
            for f, (c, n) in enumerate(zip(counts, sizes))]


def _ranks_section(text):
    return text[text.index("## Ranks and tests"):text.index("## Wall time")]


def test_equal_accuracies_tie_in_the_report_whatever_the_folds():
    from forestzoo.bench.report import summarize

    # 192 of 210 rows for m0 and m1, split differently over the folds: the naive mean of the
    # fold percentages differs in the last bit (91.42857142857143 vs ...44)
    row = [[64, 64, 64], [59, 65, 68], [62, 64, 64]]
    assert np.mean([c / 70 * 100 for c in row[0]]) != np.mean([c / 70 * 100 for c in row[1]])
    results = _fake_run([row, [[65, 66, 67], [60, 61, 62], [60, 60, 60]]])
    s = summarize(results)
    assert s["mean"][0, 0] == s["mean"][0, 1] == pytest.approx(192 / 210 * 100)
    assert summarize(results, "error")["mean"][0, 0] == summarize(results, "error")["mean"][0, 1]
    text = format_report(results)
    iris = next(line for line in text.splitlines() if line.startswith("| iris "))
    assert iris.count("**91.43 ± ") == 2  # both best, both bold
    # iris: m0 and m1 share ranks 1 and 2; wine: m0, m1, m2 in that order
    assert re.search(r"^\| m0 \| 1\.25 \|$", text, re.M) and re.search(r"^\| m1 \| 1\.75 \|$", text, re.M)
    assert "| m1 vs m0 | 0 / 1 / 1 |" in text


def test_two_models_that_rank_alike_on_two_datasets_are_not_declared_different():
    # every dataset ranks m1 above m0: chi2_F = N (k - 1) = 2, Friedman's p = 0.157, exact p = 0.5
    text = format_report(_fake_run([[[60, 60, 60], [62, 62, 62]], [[50, 50, 50], [55, 55, 55]]]))
    ranks = _ranks_section(text)
    assert "do not reject \"all models are equivalent\"" in ranks
    assert "reject \"all" not in ranks.replace("do not reject \"all", "")
    assert "chi2_F reaches its maximum N (k - 1) = 2" in ranks
    assert "p = 0.5: do not reject" in ranks and not re.search(r"\binf\b", ranks)
    assert "Demsar 2006, Sec. 3.2.2, gives N > 10 and k > 5 as a rule of thumb" in ranks
    assert "Nemenyi's critical difference rests on a normal approximation" in ranks
    assert "| m1 vs m0 | 2 / 0 / 0 | 2.4 | 0.5 | 0.5 | 0.5 | 0.5 |" in ranks



def test_many_models_ranked_alike_everywhere_are_decided_by_sampled_permutations():
    # 10 models in the same order on 8 datasets: chi2_F = N (k - 1), too many rearrangements to
    # count, and none of the 100000 sampled ones reaches the observed statistic
    table = [[[60 - j] * 3 for j in range(10)] for _ in range(8)]
    ranks = _ranks_section(format_report(_fake_run(table)))
    assert "chi2_F reaches its maximum N (k - 1) = 72" in ranks
    assert ("From the Monte Carlo permutation test (100000 resamples) on the ranks: p <= 1e-05 "
            "(no resample reached the observed chi2_F): reject \"all models are equivalent\"") in ranks
    # CD = 3.164 sqrt(10 x 11 / 48) = 4.79 rank places: m0 beats m5 and below
    assert "(Nemenyi): m0 > m5, m0 > m6, m0 > m7, m0 > m8, m0 > m9, m1 > m6," in ranks

def test_comparisons_with_the_first_model_are_holm_corrected_and_say_so():
    from scipy import stats as sps

    from forestzoo.stats import holm

    rng = np.random.default_rng(3)
    base = rng.integers(50, 60, size=(8, 1, 3))
    table = np.concatenate([base, base + [[[3, 3, 3]]], base + rng.integers(-2, 3, (8, 1, 3)),
                            base + [[[1, 1, 1]]]], axis=1)
    text = format_report(_fake_run(table.tolist()))
    ranks = _ranks_section(text)
    assert "Holm-corrected for the k - 1 = 3 comparisons with m0 (Holm 1979)" in ranks
    header = "| pair | W / T / L | wins needed | sign p | sign p (Holm) | Wilcoxon p | Wilcoxon p (Holm) |"
    assert header in ranks
    sums = table.sum(axis=2)  # equal folds: the mean order is the count order
    raw, rows = [], {}
    for j in (1, 2, 3):
        d = sums[:, j] - sums[:, 0]
        w, t, l_ = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        kept = t - t % 2
        wins, n = w + kept / 2, w + l_ + kept
        raw.append(sps.binomtest(int(np.floor(wins)) if wins > n / 2 else int(np.ceil(wins)),
                                 n).pvalue)
        rows[j] = re.search(rf"^\| m{j} vs m0 \| (\d+) / (\d+) / (\d+) \| [\d.]+ \| ([\d.e-]+) \| "
                            rf"([\d.e-]+) \|", ranks, re.M).groups()
        assert tuple(int(x) for x in rows[j][:3]) == (w, t, l_)
    for j, p, p_holm in zip((1, 2, 3), raw, holm(raw)):
        assert float(rows[j][3]) == pytest.approx(p, rel=1e-2)
        assert float(rows[j][4]) == pytest.approx(p_holm, rel=1e-2)
    # m1 and m3 win on all 8 datasets: p = 2 / 2^8 each, and 3 x that once corrected
    for j in (1, 3):
        assert rows[j][:3] == ("8", "0", "0")
        assert float(rows[j][3]) == pytest.approx(2 / 2 ** 8, rel=1e-2)
        assert float(rows[j][4]) == pytest.approx(3 * 2 / 2 ** 8, rel=1e-2)


def test_cli_two_models_two_datasets_through_a_subprocess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "forestzoo", "bench", "--models", "RaF,sk-RF",
                           "--datasets", "iris,wine", "--out", str(tmp_path / "run")] + TINY,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert proc.returncode == 0, proc.stderr
    ranks = _ranks_section(proc.stdout)
    assert "Friedman chi2_F" in ranks and "do not reject" in ranks
    assert "reject \"all" not in ranks.replace("do not reject \"all", "")
    assert not re.search(r"\binf\b", ranks) and "Holm" in ranks


def test_the_main_job_install_needs_no_peer_library():
    # `pip install -e ".[bench]"` is the core plus what the CLI uses; the libraries that only
    # benchmarks/ scripts time against live in the `peers` extra, and the package never imports them
    import ast
    import tomllib

    root = Path(__file__).resolve().parents[1]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]

    def names(reqs):
        return {re.split(r"[<>=!\[ ;]", r, maxsplit=1)[0].lower() for r in reqs}

    assert names(extras["bench"]) == {"matplotlib", "rich"}
    assert {"xgboost", "lightgbm"} <= names(extras["peers"])
    assert not {"xgboost", "lightgbm", "psutil"} & names(extras["test"])
    peers = {"xgboost", "lightgbm", "psutil"}
    for path in sorted((root / "forestzoo").rglob("*.py")) + sorted((root / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                mods = [node.module or ""]
            else:
                continue
            assert not {m.split(".")[0] for m in mods} & peers, f"{path}:{node.lineno} imports {mods}"
    readme = (root / "README.md").read_text()
    assert 'pip install -e ".[bench]" && forestzoo bench' in readme
    assert 'pip install -e ".[test]" && python -m pytest -q' in readme
    assert 'pip install -e ".[peers]"' in readme


# --- selective classifiers: coverage beside accuracy -------------------------------------------


def test_selective_classifier_folds_record_coverage_and_covered_accuracy(tmp_path):
    from forestzoo.bench.report import selective_summary

    out = tmp_path / "run"
    run = run_suite("quick", models=["CAF-first", "RaF"], datasets=["iris"], folds=2, n_estimators=5,
                    n_jobs=1, warm_up=False, out=out)
    caf = [r for r in run.results if r.model == "CAF-first"]
    raf = [r for r in run.results if r.model == "RaF"]
    assert len(caf) == 2 and all(r.ok for r in run.results)
    assert all(0.0 <= r.coverage <= 1.0 for r in caf)
    for r in caf:  # covered accuracy is NaN only where nothing is covered
        assert np.isnan(r.covered_accuracy) == (r.coverage == 0.0)
        if r.coverage == 1.0:  # every answer is the forest's own
            assert r.covered_accuracy == pytest.approx(r.accuracy)
    assert all(np.isnan(r.coverage) and np.isnan(r.covered_accuracy) for r in raf)
    back = {r.key: r for r in read_results(out / "results.csv")}
    for r in caf:
        assert back[r.key].coverage == r.coverage
        assert np.isnan(back[r.key].covered_accuracy) or back[r.key].covered_accuracy == r.covered_accuracy
    (row,) = selective_summary(run.results)
    assert row[:3] == ("CAF-first", "iris", 2)
    assert row[3] == pytest.approx(np.mean([r.coverage for r in caf]))
    assert row[5] == pytest.approx(np.mean([r.accuracy for r in caf]))


def test_report_flags_a_model_answered_mostly_by_its_fallback():
    def folds(model, dataset, coverage, covered):
        return [FoldResult(dataset, model, f, 0.8, 0.1, n_test=50, error=0.2, coverage=c,
                           covered_accuracy=covered) for f, c in enumerate(coverage)]

    results = (folds("CAF-vote", "iris", [0.1, 0.3], 0.9) + folds("CAF-vote", "wine", [0.2, 0.2], 1.0)
               + folds("CAF-first", "iris", [0.9, 0.7], 0.85) + folds("CAF-first", "wine", [0.6, 0.6], 0.8)
               + _fake_run([[[40, 40]], [[45, 45]]], sizes=(50, 50), datasets=["iris", "wine"], models=["RaF"]))
    text = format_report(results)
    section = text[text.index("## Selective classifiers"):text.index("## Ranks and tests")]
    assert "| CAF-vote | iris | 2 | 20.0 | 90.0 | 80.0 |" in section
    assert "| CAF-first | wine | 2 | 60.0 | 80.0 | 80.0 |" in section
    assert "RaF" not in section
    assert "**CAF-vote: 80% of its answers come from its fallback**" in section
    assert "CAF-first:" not in section  # covers 70 % on average: not flagged
    plain = _fake_run([[[40, 40]]], sizes=(50, 50), datasets=["iris"], models=["RaF"])
    assert "## Selective classifiers" not in format_report(plain)
