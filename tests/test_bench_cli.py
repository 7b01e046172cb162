"""The ``forestzoo`` command line and the benchmark runner behind it."""

import re
import subprocess
import sys

import numpy as np
import pytest

from forestzoo.bench import average_ranks, format_report, run_benchmark
from forestzoo.bench.cli import main
from forestzoo.bench.registry import MODELS, get_model, register_model

TINY = ["--n-estimators", "5", "--cv", "2", "--n-jobs", "1", "--no-progress"]


def test_bench_prints_accuracy_time_and_ranks(capsys):
    rc = main(["bench", "--datasets", "iris,wine", "--models", "RaF,ET,sk-RF,sk-ET"] + TINY)
    out = capsys.readouterr().out
    assert rc == 0
    for word in ("iris", "wine", "RaF", "ET", "sk-RF", "sk-ET", "average rank",
                 "Fit time", "5 trees, 2-fold"):
        assert word in out
    iris_row = next(line for line in out.splitlines() if line.startswith("iris "))
    accuracies = [float(a) for a in re.findall(r"(\d\.\d{4}) \(", iris_row)]
    assert len(accuracies) == 4 and all(0.8 < a <= 1.0 for a in accuracies)
    ranks = re.search(r"Average rank .*: (.*)", out).group(1)
    assert len(ranks.split(",")) == 4


def test_run_benchmark_scores_every_fold_on_the_same_splits():
    results = run_benchmark(["iris"], ["sk-RF", "sk-ET"], n_estimators=5, cv=3, n_jobs=1)
    assert len(results) == 6
    assert {(r.model, r.fold) for r in results} == {(m, f) for m in ("sk-RF", "sk-ET")
                                                      for f in range(3)}
    assert all(0 <= r.accuracy <= 1 and r.fit_seconds >= 0 for r in results)
    again = run_benchmark(["iris"], ["sk-RF", "sk-ET"], n_estimators=5, cv=3, n_jobs=1)
    assert [r.accuracy for r in again] == [r.accuracy for r in results]
    assert "iris" in format_report(results)


def test_average_ranks_share_ties():
    scores = [[0.9, 0.9, 0.8], [0.7, 0.8, 0.9]]
    np.testing.assert_allclose(average_ranks(scores), [(1.5 + 3) / 2, (1.5 + 2) / 2, 2.0])


def test_help_and_no_command(capsys):
    for argv in (["--help"], ["bench", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 0
    assert "--n-estimators" in capsys.readouterr().out
    assert main([]) == 2
    assert "bench" in capsys.readouterr().out


@pytest.mark.parametrize("argv, expected", [
    (["--datasets", "nope"], "Unknown dataset 'nope'. Valid names:"),
    (["--models", "nope"], "Unknown model 'nope'. Valid names: RaF, ET"),
    (["--datasets", "concrete"], "regression task"),
    (["--cv", "1"], "cv must be an integer >= 2"),
    (["--models", ","], "at least one dataset and one model"),
])
def test_bad_names_are_refused_without_traceback(capsys, argv, expected):
    assert main(["bench"] + TINY + argv) == 2
    assert expected in capsys.readouterr().err


def test_missing_data_file_exit_status(capsys, tmp_path):
    assert main(["bench", "--datasets", "letter", "--data-home", str(tmp_path)] + TINY) == 1
    assert "letter-recognition.data" in capsys.readouterr().err


def test_list_commands(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^iris +150 x 4 +3 classes +bundled", out, re.M)
    assert re.search(r"^letter .* data dir", out, re.M)
    assert main(["models"]) == 0
    assert "sk-ET" in capsys.readouterr().out


def test_register_model_refuses_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        register_model("RaF", "again")(lambda **kw: None)
    assert get_model("RaF") is MODELS["RaF"] and get_model("raf") is MODELS["RaF"]


def test_python_dash_m_forestzoo():
    proc = subprocess.run([sys.executable, "-m", "forestzoo", "bench", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--datasets" in proc.stdout
