"""The second look (Python's ``ast``) never hides a site from the rules.

A file whose code has no candidate is never parsed by LibCST; so, for every such file we
can find, running the whole rule set through LibCST anyway must report and change nothing.
"""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from unsentinel.core.config import Config
from unsentinel.core.defined import DefinedNames
from unsentinel.core.prefilter import Detector, Prefilter
from unsentinel.registry import ALL_RULES, DETECTORS, rewrite_source
from unsentinel.warnings import candidates

ROOT = Path(__file__).resolve().parents[1]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _files() -> list[Path]:
    fixtures = sorted((ROOT / "fixtures").rglob("*.py"))
    stdlib = sorted(STDLIB.glob("*.py"))  # the top level: quick, and varied
    return [*fixtures, *stdlib]


def _screened_out(path: Path, prefilter: Prefilter) -> bool:
    data = path.read_bytes()
    if not prefilter.may_match(data):
        return False  # the byte prefilter decides these; not what is tested here
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return not prefilter.second_look(data, tree).candidates


def test_screened_out_files_have_nothing_for_libcst() -> None:
    config = Config()
    prefilter = Prefilter(DETECTORS, config)  # what a run reads: no rule class imported
    screened = [p for p in _files() if _screened_out(p, prefilter)]
    assert len(screened) >= 10, "the second look should screen out files that mention warnings"
    for path in screened:
        source = path.read_text(encoding="utf-8")
        new, sites = rewrite_source(source, config, path=path.name)
        assert sites == [], f"{path}: screened out, yet LibCST finds {sites[:1]}"
        assert new == source, path


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        pytest.param("import warnings\nwarnings.warn('x')\n", False, id="the warnings module"),
        pytest.param(
            "c_warnings = import_fresh_module('warnings', fresh=['_warnings'])\n"
            "catch = c_warnings.catch_warnings\n",
            False,
            id="the module loaded by name",
        ),
        pytest.param(
            "c_warnings = import_fresh_module('warnings')\nc_warnings = []\n",
            True,
            id="the loaded name bound again",
        ),
        pytest.param("# collect warnings here\nx = 1\n", False, id="a comment"),
        pytest.param('"""Return warnings."""\n', False, id="a docstring"),
        pytest.param("def f():\n    warnings = []\n    return warnings\n", True, id="a local list"),
        pytest.param(
            "import warnings\ndef f(warnings):\n    return warnings\n", True, id="shadowed"
        ),
        pytest.param("r = resp.warnings\n", True, id="an attribute"),
        pytest.param("r = data['warnings']\n", True, id="a string key"),
        pytest.param("f(warnings=[])\n", True, id="a keyword"),
        pytest.param("msg = 'see the error: log'\n", False, id="error in a string"),
        pytest.param("return_value = {'error': str(e)}\n", True, id="an error dict"),
        pytest.param("m = body['message']\n", True, id="a reader"),
        pytest.param('x = 1\nmsg = f"""\n{len(\n  warnings)}"""\n', True, id="inside an f-string"),
        pytest.param("x = 1\r\rwarnings = []\r", True, id="carriage returns alone"),
        pytest.param(
            "import warnings\n\ndef f():\n    def g():\n        return warnings\n"
            "    warnings = []\n",
            True,
            id="a nested function",
        ),
        pytest.param("x = 1  # NOQA: UNS101\n", True, id="a directive in capitals"),
        pytest.param('ok = r["status"] == "error"\n', True, id="a status read, tested"),
        pytest.param('ok = r.get("status") != "error"\n', True, id="a status got, tested"),
        pytest.param('ok = "error" in r\n', True, id="an error key looked for"),
        pytest.param('if outcome == "error":\n    n += 1\n', False, id="a value of its own"),
        pytest.param('ok = self.mode == "error"\n', False, id="an attribute of its own"),
    ],
)
def test_second_look(source: str, kept: bool) -> None:
    config = Config()
    prefilter = Prefilter(ALL_RULES, config)
    data = source.encode()
    assert prefilter.may_match(data) or not kept
    if prefilter.may_match(data):
        assert prefilter.second_look(data, ast.parse(data)).candidates is kept


def test_the_walk_of_matching_lines_agrees_with_the_whole_walk() -> None:
    """The second look visits only subtrees on lines naming a list; it must answer as a
    walk of every node would."""
    names = ("warnings",)
    checked = 0
    for path in _files():
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        pruned = candidates._uses(data, tree, names)
        whole = candidates._uses(data.replace(b"\n", b"\r"), tree, names)  # no line counts
        assert pruned is whole, path
        checked += whole
    assert checked >= 10


def test_defined_functions_are_read_from_the_bytes_without_missing_one() -> None:
    for path in _files():
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
        exact = {node.name for node in ast.walk(tree) if isinstance(node, kinds)}
        defined = DefinedNames.from_source(data) or DefinedNames()
        assert exact <= defined.functions, path
        classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        assert classes <= defined.classes, path
        methods = {
            item.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.ClassDef, *kinds))
            for item in node.body
            if isinstance(item, kinds)
        }
        assert methods <= defined.methods, path


def test_defined_names_by_kind() -> None:
    data = b"""\
class Order(Base):
    async def cancel(self, reason):
        def undo():
            pass


def first[T](items: list[T]) -> T:
    return items[0]


class Box[T]:
    pass
"""
    defined = DefinedNames.from_source(data)
    assert defined == DefinedNames(
        functions=frozenset({"cancel", "undo", "first"}),
        classes=frozenset({"Order", "Box"}),
        methods=frozenset({"cancel", "undo"}),
    )


def test_every_detector_names_the_rule_that_points_back_at_it() -> None:
    """One source of truth: a rule's code, name and needles are its detector's."""
    assert [rule.code for rule in ALL_RULES] == [detector.code for detector in DETECTORS]
    assert len({detector.code for detector in DETECTORS}) == len(DETECTORS)
    for detector in DETECTORS:
        assert isinstance(detector, Detector), detector.code
        rule = detector.load()
        assert rule.detector is detector, detector.code
        assert (rule.code, rule.name) == (detector.code, detector.name)


def test_a_rule_class_answers_for_the_prefilter_as_its_detector_does() -> None:
    config = Config()
    data = b'def f(warnings):\n    warnings.append("BLOCK: x")\n    return {"error": 1}\n'
    tree = ast.parse(data)
    for detector in DETECTORS:
        rule = detector.load()
        assert rule.needles(config) == detector.needles(config)
        assert rule.patterns(config) == detector.patterns(config)
        assert rule.refine(data, tree, config) is detector.refine(data, tree, config)
