"""The library, its tests, benchmarks and documents speak of the code, not of how it was made.

No text in ``forestzoo/``, ``tests/``, ``benchmarks/``, ``docs/``, ``README.md`` or
``BENCHMARKS.md`` may refer to

- the history of the work: issue or pull-request numbers of this project, work
  sessions or rounds of work, "this PR", a commit of this repository by its hash;
- a source document by its file name (the papers are cited by authors, title
  and year);
- an absolute path of a development machine (``/work/``, ``/tmp/``, ``/home/``,
  ``/root/``): a default or an example must work elsewhere.

Python files are read with :mod:`tokenize`: comments and string literals
(docstrings included) are text, identifiers are code, so ``onnxruntime``'s
``InferenceSession`` or a variable ``session`` is not a hit.  Markdown is
text, except that the word "session" inside code (fenced blocks and inline
``code``) is code.  Data files (CSV, JSON, logs of runs) are records, not
prose, and are not read.
"""

import functools
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("forestzoo", "tests", "benchmarks", "docs", "README.md", "BENCHMARKS.md")
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yml", ".yaml"}

_ORDINAL = (r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
            r"\w+teenth|twentieth|thirtieth|(?:twenty|thirty)-\w+|\d+(?:st|nd|rd|th))")

#: (rule, pattern); every pattern is matched case-insensitively.
RULES = (
    ("work history", r"\bissues?\s*#\s*\d+"),
    ("work history", r"\bissues?\s+\d+\b"),
    ("work history", r"\b(?:PR|pull request)\s*#\s*\d+"),
    ("work history", r"\bthis PR\b"),
    ("work history", r"\bthe issue's\b"),
    ("work history", r"\brounds? of work\b"),
    ("work history", r"\bsessions?\b"),
    ("work history", rf"\b{_ORDINAL}\s+session\b"),
    ("work history", r"\bcommits?\s+[0-9a-f]{7,40}\b"),
    ("work history", r"\bthis helper\b"),
    ("work history", r"\b(?:previous|this|same|earlier|later|that) commit\b"),
    # an abbreviated commit hash on its own: 7-12 hex digits, with a digit and a letter
    ("work history", r"(?<![\w/.#@-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}(?![\w/.-])"),
    ("source file name", r"\bseeds?\s+0\d\d\b"),
    ("source file name", r"\bseeds/0\d\d"),
    ("machine path", r"(?<![\w.~$-])/(?:work|tmp|home|root)/"),
)

#: Legitimate uses: (file glob, pattern that the hit's line must match, why it is allowed).
ALLOWED = (
    ("forestzoo/datasets/ATTRIBUTION.md", r"\b[\w.-]+/[\w.-]+ at commit [0-9a-f]{7,40}\b",
     "the commit of another project's repository that a bundled file was taken from (provenance)"),
    ("*", r"\b(?:scikit-learn|numpy|scipy|numba|joblib|dask|distributed|river|lightgbm|xgboost|aeon)"
          r"(?:'s)? (?:issue|PRs?|pull request)s? #\d+",
     "an issue or pull request of another project, named with that project"),
    ("*", r"https?://\S*/(?:issues|pull)/\d+", "a link to another project's issue tracker"),
    ("tests/test_hygiene.py", r".", "this file spells out the rules it enforces"),
)


#: what the documentation build writes into docs/ (ignored by git; it holds the build machine's paths in
#: captured warnings): not source, so not scanned
GENERATED = ("docs/_build", "docs/generated", "docs/auto_examples", "docs/sg_execution_times.rst")


def _generated(path):
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == g or rel.startswith(g + "/") for g in GENERATED)


def _files():
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                if (p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts
                        and not _generated(p)):
                    yield p


def _python_text(source):
    """``(line number, text)`` of every comment and string literal of a Python source."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            for offset, line in enumerate(tok.string.splitlines()):
                yield tok.start[0] + offset, line


def _markdown_text(source):
    """``(line number, text, code)`` of a Markdown file; ``code`` is that line's code with prose removed."""
    fenced = False
    for number, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            yield number, line, line
            continue
        if fenced or line.startswith("    "):
            yield number, line, line
        else:
            yield number, line, " ".join(re.findall(r"`[^`]*`", line))


def _hits(path):
    source = path.read_text(encoding="utf-8", errors="replace")
    rel = path.relative_to(ROOT).as_posix()
    if path.suffix == ".py":
        try:
            lines = [(n, text, "") for n, text in _python_text(source)]
        except (tokenize.TokenError, SyntaxError):
            lines = [(n, text, "") for n, text in enumerate(source.splitlines(), 1)]
    elif path.suffix == ".md":
        lines = list(_markdown_text(source))
    else:
        lines = [(n, text, "") for n, text in enumerate(source.splitlines(), 1)]
    for number, text, code in lines:
        for rule, pattern in RULES:
            for match in re.finditer(pattern, text, flags=re.IGNORECASE):
                if "session" in pattern and re.search(re.escape(match.group(0)), code, flags=re.IGNORECASE):
                    continue  # the word inside code: an API's session object
                if any(Path(rel).match(glob) and re.search(allowed, text, flags=re.IGNORECASE)
                       for glob, allowed, _ in ALLOWED):
                    continue
                yield f"{rel}:{number}: {rule}: {match.group(0)!r} in {text.strip()[:120]!r}"


def test_rules_find_what_they_name():
    """Each rule catches an example of what it forbids and leaves its legitimate neighbour alone."""
    # examples of forbidden text are split into adjacent literals, so this file's own source holds none
    cases = {
        "Fixed after issue #12.": True,
        "issue 4: the GBT target": True,
        "measured in the twenty-third " "session": True,
        "a round of work on the engine": True,
        "under the issue's protocol": True,
        "since commit 3c62367 the forests": True,
        "| before (4f196d3) |": True,
        "timed against the previous commit": True,
        "not made: the engine is not this helper's": True,
        "sha256 3c62367aa1b2c3d4e5f60718293a4b5c6d7e8f90": False,
        "a facade of 1234567 rows": False,
        "the lecture (shared/seeds/004_4a4c.txt)": True,
        "see seed " "003": True,
        'default="/' 'work/shared/datasets"': True,
        "pip install --target /" "tmp/pkg": True,
        "scikit-learn issue #26784 removed SAMME.R": False,
        "100 boosting rounds of stumps": False,
        "seed 1 draws other folds": False,
        "data/cars.csv and ~/" "tmp/x and $HOME/work/y": False,
        "breast_tissue": False,
    }
    for text, forbidden in cases.items():
        found = any(re.search(p, text, flags=re.IGNORECASE) for _, p in RULES) and not any(
            re.search(a, text, flags=re.IGNORECASE) for g, a, _ in ALLOWED if g == "*")
        assert found == forbidden, text


def test_python_code_is_not_text():
    source = 'session = rt.InferenceSession(x)  # one ONNX run\nlabel = session.run(None)\n"""A docstring."""\n'
    assert [text for _, text in _python_text(source)] == ["# one ONNX run", '"""A docstring."""']


@functools.lru_cache(maxsize=None)
def _all_hits():
    """Every hit of every rule, read once for the three tests below."""
    return tuple(h for path in _files() for h in _hits(path))


@pytest.mark.parametrize("rule", ["work history", "source file name", "machine path"])
def test_no_history_source_names_or_machine_paths(rule):
    hits = [h for h in _all_hits() if f": {rule}: " in h]
    assert not hits, f"{len(hits)} hit(s):\n" + "\n".join(hits)


def test_documents_cited_by_name_exist():
    """A project document cited by its upper-case name (``README.md``, ``BENCHMARKS.md``, ...) is in the repository."""
    cited = {}
    for path in _files():
        for name in re.findall(r"\b[A-Z][A-Z_]+\.md\b", path.read_text(encoding="utf-8", errors="replace")):
            cited.setdefault(name, path.relative_to(ROOT).as_posix())
    missing = {name: where for name, where in cited.items()
               if not any(ROOT.glob(name)) and not any(ROOT.glob(f"*/**/{name}"))}
    assert cited and not missing, f"cited but absent (name: first file citing it): {missing}"
