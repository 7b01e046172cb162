"""forestzoo.compile_kernels and ``forestzoo compile``: kernels compiled ahead, then loaded by a new process.

Each test that compiles runs in fresh processes with a Numba cache directory of
its own (``NUMBA_CACHE_DIR``), so that what the first process writes is what
the second one finds.
"""

import os
import subprocess
import sys

import pytest

import forestzoo
from forestzoo.bench.cli import main

# a new process fits the online forest (another size and number of trees than the compile's instance) and says
# whether any kernel had to be compiled for it
_SECOND_USE = """
import numpy as np
from forestzoo import OnlineRandomForestClassifier
from forestzoo._jit import on_first_compile
compiled = []
rng = np.random.RandomState(1)
X = rng.normal(size=(300, 6))
y = (X[:, 0] > 0).astype(int)
with on_first_compile(lambda: compiled.append(True)):
    model = OnlineRandomForestClassifier(n_estimators=3, random_state=1).fit(X, y)
    model.predict_proba(X)
print("compiled:", bool(compiled))
"""


def _run(args, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=900)


def test_compiled_kernels_are_loaded_by_a_new_process(tmp_path):
    warm, cold = tmp_path / "warm", tmp_path / "cold"
    done = _run(["-m", "forestzoo", "compile", "--estimators", "OnlineRandomForestClassifier", "--jobs", "1"], warm)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "compiled OnlineRandomForestClassifier in" in done.stdout
    assert any(warm.rglob("*.nbi")), "no Numba index written to NUMBA_CACHE_DIR"
    after = _run(["-c", _SECOND_USE], warm)
    assert after.returncode == 0, after.stderr[-3000:]
    assert "compiled: False" in after.stdout
    # the control: the same use on an empty cache compiles
    control = _run(["-c", _SECOND_USE], cold)
    assert control.returncode == 0, control.stderr[-3000:]
    assert "compiled: True" in control.stdout


def test_unknown_estimator_names_are_refused(capsys):
    with pytest.raises(ValueError, match="Unknown estimators"):
        forestzoo.compile_kernels(["RandomForest"])
    assert main(["compile", "--estimators", "RandomForest"]) == 2
    assert "Unknown estimators ['RandomForest']" in capsys.readouterr().err


def test_tasks_put_the_engine_first_and_group_the_rest_by_family():
    from forestzoo._compile import _plan

    names = ["DNRFClassifier", "RandomForestRegressor", "DNDTClassifier", "GCForestClassifier",
             "DecisionTreeClassifier"]
    assert _plan(names, dict(forestzoo.all_estimators())) == [
        ("RandomForestRegressor",), ("DecisionTreeClassifier",), ("DNRFClassifier", "DNDTClassifier"),
        ("GCForestClassifier",)]
    every = _plan(None, dict(forestzoo.all_estimators()))
    assert sorted(n for task in every for n in task) == [n for n, _ in forestzoo.all_estimators()]
