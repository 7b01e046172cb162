"""Run scikit-learn's tree and forest tests against forestzoo and categorise the outcome.

Runs the opt-in harness ``tests/sklearn_suite`` (scikit-learn's installed
``sklearn/tree/tests/test_tree.py`` and ``sklearn/ensemble/tests/test_forest.py``
with forestzoo's DecisionTree*, RandomForest* and ExtraTrees* substituted for
scikit-learn's; see ``tests/sklearn_suite/_sklearn_suite.py``) with
``FORESTZOO_SKLEARN_SUITE=1`` and ``--junitxml``, and prints Markdown tables:

1. counts of outcomes: passed, skipped, failed by category, and apart from
   those the tests that exercise only scikit-learn (the harness tags them with
   a ``sklearn_only`` property: scikit-learn classes kept as they are, e.g.
   ExtraTreeClassifier, or scikit-learn private internals);
2. the scikit-learn-only tests, per test function, with the harness's reason;
3. the most frequent distinct failure messages (``--top``, default 40).

Categories of a failed (or erroring) test, first match wins.  The exception
message decides first, so a test is filed under what stopped it; the test's
parametrisation decides only for failures whose message names no cause
(assertions, other exceptions):

* ``sparse input``: the message says sparse input was refused ("Sparse data
  was passed", "dense data is required", "sparse matrix/array/input");
* ``multi-output y``: the message rejects a 2-D ``y`` ("multi-output",
  "y should be a 1d array", "column-vector y");
* ``missing criterion``: the message is the ``criterion`` parameter check
  naming ``absolute_error``, ``friedman_mse`` or ``poisson``;
* ``API difference: unsupported parameter value``: any other parameter check
  (``InvalidParameterError``, e.g. ``splitter='best'``, a callable
  ``oob_score``);
* ``API difference: missing attribute/method``: ``AttributeError``, or a
  protocol the estimator lacks ("has no len()", "is not subscriptable",
  "is not iterable");
* then, by parametrisation: ``sparse input`` when the test id names a sparse
  container (``csr_matrix``, ``csc_array``, ``coo_...``, ``sparse_csr``,
  ``sparse_csc``), ``multi-output y`` when the test name says multioutput /
  multi_output, ``missing criterion`` when the test name or id names one of
  these criteria (``test_friedman_mse_deprecation``, ``[...-poisson]``);
* ``behaviour difference``: ``AssertionError`` (results differ from what the
  test expects), ``pytest.raises`` / ``pytest.warns`` that saw no error or
  warning, or an error whose message does not match ("DID NOT RAISE",
  "DID NOT WARN", "Regex pattern did not match");
* ``other exception``: anything else (TypeError, ValueError, numba errors, ...).

The exception message is the one of the failure pytest reports, and, when
that is "DID NOT RAISE/WARN" or a failed ``match=`` while the block raised
another exception, also that exception (:func:`chained_cause`): a
``pytest.warns`` block around a ``fit`` that raises reports only "DID NOT WARN".

Messages are grouped on their headline (see :func:`normalise`; a chained cause
is added in brackets) after replacing numbers by ``N``, addresses by ``0x..``
and the substituted classes' names by ``<estimator>``; the table gives one
example test per message.

Usage (from the repository root; this checkout's forestzoo is put first on
``PYTHONPATH``)::

    python benchmarks/sklearn_suite_report.py                    # run, then report
    python benchmarks/sklearn_suite_report.py --junitxml out.xml # keep the XML
    python benchmarks/sklearn_suite_report.py --from-xml out.xml # report an earlier run
    python benchmarks/sklearn_suite_report.py -- -k forest       # extra pytest arguments

Standard library and pytest only.  The exit status is 0 when pytest ran to
the end (failures are what is measured), 2 when it did not.
"""

import argparse
import collections
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE_DIR = "tests/sklearn_suite"
ENV_VAR = "FORESTZOO_SKLEARN_SUITE"

SPARSE = "sparse input (CSR/CSC/COO, sparse matrices and arrays)"
MULTI_OUTPUT = "multi-output y"
CRITERION = "missing criterion (absolute_error, friedman_mse, poisson)"
API_PARAM = "API difference: unsupported parameter value"
API_ATTR = "API difference: missing attribute/method"
BEHAVIOUR = "behaviour difference (assertion, DID NOT RAISE/WARN)"
OTHER = "other exception"
FAILURE_CATEGORIES = [SPARSE, MULTI_OUTPUT, CRITERION, API_PARAM, API_ATTR, BEHAVIOUR, OTHER]
MISSING_CRITERIA = ("absolute_error", "friedman_mse", "poisson")

_SPARSE_MSG = re.compile(r"sparse data was passed|dense data is required|sparse (matrix|matrices|array|input)", re.I)
_SPARSE_ID = re.compile(r"(csr|csc|coo)_(matrix|array)|sparse_(csr|csc)", re.I)
_MULTI_MSG = re.compile(r"multi-?output|y should be a 1d array|column-vector y", re.I)
_MULTI_NAME = re.compile(r"multi_?output", re.I)
_CRITERION_MSG = re.compile(r"'criterion' parameter.*(" + "|".join(MISSING_CRITERIA) + ")", re.S)
_NO_PROTOCOL = re.compile(r"has no len\(\)|is not subscriptable|is not iterable")
_BEHAVIOUR_TEXT = ("DID NOT RAISE", "DID NOT WARN", "Regex pattern did not match")
_CHAIN_SEPARATORS = ("During handling of the above exception, another exception occurred:",
                     "The above exception was the direct cause of the following exception:")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning)\b")
_MATCH_DETAILS = ("Expected regex:", "Actual message:", "Regex:")
# a set of quoted strings in a message (e.g. the accepted values of a parameter): its order varies between runs
_STR_SET = re.compile(r"\{('[^']*'(?:, '[^']*')*)\}")
_PARAM_REASON = re.compile(r"^parametrised with (.+) only \(kept as scikit-learn's\)$")
_NUMBER = re.compile(r"(?<!\w)\d+(\.\d+)?([eE][-+]?\d+)?")
# the substituted classes' names, generalised so that one message about all of them is one group
_ESTIMATOR = re.compile(r"\b(DecisionTree|RandomForest|ExtraTrees)(Classifier|Regressor)\b")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def run_suite(junitxml, pytest_args):
    """Run the harness under pytest; returns (exit code, wall seconds, output tail)."""
    env = dict(os.environ)
    env[ENV_VAR] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    cmd = [sys.executable, "-m", "pytest", SUITE_DIR, "-q", "-p", "no:cacheprovider",
           f"--junitxml={junitxml}", *pytest_args]
    print("running:", f"{ENV_VAR}=1 PYTHONPATH={ROOT}", shlex.join(["python", *cmd[1:]]), file=sys.stderr, flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    return proc.returncode, wall, proc.stdout[-4000:]


def chained_cause(text):
    """The exception that an exception of a failure report was raised while handling, or "".

    pytest's ``raises``/``warns`` report "DID NOT RAISE/WARN" even when the
    block raised another exception; the traceback text then shows that one
    first, ahead of "During handling of the above exception".  Its message is
    the first ``E`` line that names an exception there.
    """
    for separator in _CHAIN_SEPARATORS:
        if separator in text:
            head = text[:text.rindex(separator)]
            for line in head.splitlines():
                if line.startswith("E ") and _EXCEPTION_LINE.match(line[1:].strip()):
                    return line[1:].strip()
    return ""


def read_cases(path):
    """One dict per ``<testcase>``: id, outcome, message, chained cause, sklearn_only reason."""
    cases = []
    for tc in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        outcome, message, cause = "passed", "", ""
        for tag in ("failure", "error", "skipped"):
            node = tc.find(tag)
            if node is not None:
                outcome = "failed" if tag in ("failure", "error") else "skipped"
                message = node.get("message") or (node.text or "")
                cause = chained_cause(node.text or "")
                break
        module = tc.get("classname", "").rsplit(".", 1)[-1]
        cases.append({"id": f"{module}::{tc.get('name')}", "name": tc.get("name", ""), "outcome": outcome,
                      "message": message, "cause": cause, "sklearn_only": props.get("sklearn_only")})
    return cases


def categorise(case):
    """The failure category of a failed case (see the module docstring)."""
    msg, name = case["message"], case["name"]
    params = name[name.find("[") + 1:-1] if "[" in name else ""
    for text in (msg, case.get("cause", "")):
        if _SPARSE_MSG.search(text):
            return SPARSE
        if _MULTI_MSG.search(text):
            return MULTI_OUTPUT
        if _CRITERION_MSG.search(text):
            return CRITERION
        if "InvalidParameterError" in text:
            return API_PARAM
        if text.startswith("AttributeError") or _NO_PROTOCOL.search(text):
            return API_ATTR
    if _SPARSE_ID.search(params):
        return SPARSE
    if _MULTI_NAME.search(name):
        return MULTI_OUTPUT
    if any(c in name for c in MISSING_CRITERIA):
        return CRITERION
    if msg.startswith(("AssertionError", "assert ", "Failed: ")) or any(s in msg for s in _BEHAVIOUR_TEXT):
        return BEHAVIOUR
    return OTHER


def normalise(message):
    """A failure message's headline, numbers and addresses generalised, for grouping.

    The headline is the first line, followed by the next line when the first
    ends in ":" (an empty exception text) and by the lines of pytest's
    ``match=`` reports (expected regex, actual message), which say more than
    "Regex pattern did not match." alone.
    """
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    head = lines[0]
    if head.endswith(":") and len(lines) > 1:
        head += " " + lines[1]
    head = " ".join([head] + [line for line in lines[1:4] if line.startswith(_MATCH_DETAILS)])
    head = _ADDRESS.sub("0x..", head)
    head = _NUMBER.sub("N", head)
    head = _ESTIMATOR.sub("<estimator>", head)
    head = _STR_SET.sub(lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", head)
    return head[:300]


def headline(case):
    """The grouping key of a failed case: its normalised message, and the chained cause if any."""
    head = normalise(case["message"])
    cause = normalise(case.get("cause") or "")
    if case.get("cause") and cause.split(": ", 1)[-1][:80] not in head:  # not already quoted by a match= report
        head += f" [while raising {cause}]"
    return head


def report(cases, wall=None, top=40, command=None):
    total = len(cases)
    fz = [c for c in cases if not c["sklearn_only"]]
    sk = [c for c in cases if c["sklearn_only"]]
    counts = collections.Counter()
    failed = []
    for c in fz:
        if c["outcome"] == "failed":
            c["category"] = categorise(c)
            counts[c["category"]] += 1
            failed.append(c)
        else:
            counts[c["outcome"]] += 1

    if command:
        print(f"pytest command: `{command}`")
    if wall is not None:
        print(f"wall time: {wall:.0f} s ({wall / 60:.1f} min)")
    print()
    print("| outcome | tests |")
    print("|---|---:|")
    print(f"| passed | {counts['passed']} |")
    print(f"| failed (all categories) | {len(failed)} |")
    for cat in FAILURE_CATEGORIES:
        print(f"| failed: {cat} | {counts[cat]} |")
    print(f"| skipped | {counts['skipped']} |")
    sk_out = collections.Counter(c["outcome"] for c in sk)
    print(f"| scikit-learn only (kept classes, private internals): not counted above | {len(sk)} "
          f"({sk_out['passed']} passed, {sk_out['failed']} failed, {sk_out['skipped']} skipped) |")
    print(f"| total | {total} |")

    print()
    print("scikit-learn-only tests (per test function; reason from tests/sklearn_suite/_sklearn_suite.py):")
    print()
    print("| test | cases | passed | reason |")
    print("|---|---:|---:|---|")
    groups = {}
    for c in sk:
        groups.setdefault(c["id"].split("[")[0], []).append(c)
    for test, cs in groups.items():
        reasons = list(dict.fromkeys(c["sklearn_only"] for c in cs))
        kept = [m.group(1) for m in map(_PARAM_REASON.match, reasons) if m]
        if len(kept) == len(reasons) > 1:  # one row for e.g. the ExtraTreeClassifier and ExtraTreeRegressor cases
            reasons = [f"parametrised with {' or '.join(kept)} only (kept as scikit-learn's)"]
        reasons = "; ".join(reasons)
        print(f"| `{test}` | {len(cs)} | {sum(c['outcome'] == 'passed' for c in cs)} | {reasons} |")

    print()
    n_distinct = len({headline(c) for c in failed})
    print(f"most frequent failure messages (forestzoo tests: {n_distinct} distinct, the first {min(top, n_distinct)} "
          "shown; numbers as N, the substituted classes as <estimator>):")
    print()
    print("| count | category | message | example |")
    print("|---:|---|---|---|")
    by_msg = collections.defaultdict(list)
    for c in failed:
        by_msg[headline(c)].append(c)
    ranked = sorted(by_msg.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for msg, cs in ranked[:top]:
        cats = " / ".join(cat.split(" (")[0] for cat, _ in collections.Counter(c["category"] for c in cs).most_common())
        cell = msg.replace("|", "\\|").replace("`", "'")
        print(f"| {len(cs)} | {cats} | {cell} | `{cs[0]['id']}` |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--junitxml", help="where to keep the run's JUnit XML (default: a temporary file)")
    parser.add_argument("--from-xml", help="report this JUnit XML of an earlier run instead of running")
    parser.add_argument("--top", type=int, default=40, help="failure messages listed (default 40)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments, after --")
    args = parser.parse_args(argv)

    if args.from_xml:
        report(read_cases(args.from_xml), top=args.top)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        xml = args.junitxml or os.path.join(tmp, "sklearn_suite.xml")
        code, wall, tail = run_suite(xml, args.pytest_args)
        if code not in (0, 1) or not os.path.exists(xml):
            print(f"pytest did not run to the end (exit code {code}):\n{tail}", file=sys.stderr)
            return 2
        command = f"{ENV_VAR}=1 PYTHONPATH=. " + shlex.join(
            ["python", "-m", "pytest", SUITE_DIR, "-q", "-p", "no:cacheprovider",
             f"--junitxml={args.junitxml or '<tmp>.xml'}", *args.pytest_args])
        report(read_cases(xml), wall=wall, top=args.top, command=command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
