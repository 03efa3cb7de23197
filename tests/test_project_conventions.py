"""The project's own conventions, read from its files: where its installed code lives, and
how its formatter and import sorter lay code out. A migration writes where the installed
package can import it and as the project's tools would have written it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import main
from unsentinel.core.model import Mode
from unsentinel.core.own_line import OwnLine, place_argument
from unsentinel.core.tree import parent_map
from unsentinel.registry import load_config, rewrite_source, run


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- where generated modules go --------------------------------------------------------------

SERVER = """
def check(region):
    try:
        return {"region": region, "ok": do(region)}
    except Exception as e:
        return {"region": region, "error": str(e), "message": "Error checking status."}
"""


def test_generated_modules_go_into_the_package_of_a_pep_420_namespace(
    root: Path, write_tree: WriteTree, cli: CliRunner
) -> None:
    """``ns/mypkg/`` without ``ns/__init__.py``, shipped as ``packages = ["ns"]``: the
    modules go where the installed code can import them, not to the repository root."""
    write_tree(
        {
            "pyproject.toml": '[project]\nname = "ns.mypkg"\n'
            '[tool.hatch.build.targets.wheel]\npackages = ["ns"]\n',
            "ns/mypkg/__init__.py": "",
            "ns/mypkg/server.py": SERVER,
        }
    )
    result = cli.invoke(main, ["diff", ".", "-j", "1"])
    assert "+++ b/ns/mypkg/error_codes.py" in result.stdout
    assert "+++ b/ns/mypkg/error_model.py" in result.stdout
    assert "+from ns.mypkg import error_codes\n" in result.stdout
    assert "+from ns.mypkg.error_model import ErrorDetail\n" in result.stdout
    assert "warning:" not in result.stderr


def test_a_module_generated_at_the_root_of_an_installed_project_is_warned_about(
    root: Path, write_tree: WriteTree, cli: CliRunner
) -> None:
    """Two packages and no setting: the modules go to the root, which the built
    distribution does not ship, so the rewritten code would not import once installed."""
    write_tree({"a/__init__.py": "", "a/server.py": SERVER, "b/__init__.py": ""})
    plain = cli.invoke(main, ["diff", ".", "-j", "1"])
    assert "+++ b/error_codes.py" in plain.stdout
    assert "warning:" not in plain.stderr  # not a distribution: the root is on sys.path
    write_tree({"pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'})
    result = cli.invoke(main, ["diff", ".", "-j", "1", "-q"])
    assert "+++ b/error_codes.py" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, result.stderr
    assert "error_codes.py" in warnings[0] and "error-codes-module" in warnings[0]
    assert "error_model.py" in warnings[1] and "error-model-module" in warnings[1]


# -- layout as the project's formatter has it ------------------------------------------------


def _files(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return root


def _diff(root: Path, files: dict[str, str]) -> dict[str, str]:
    """The new text of every file ``diff`` changes or creates, by path from the root."""
    _files(root, files)
    result = run([root], load_config((root,)), Mode.DIFF, jobs=1)
    assert not result.failed, result.failed
    return {
        Path(r.path).resolve().relative_to(root).as_posix(): r.new_text or ""
        for r in result.all_results
        if r.changed
    }


ACCESS_DENIED = """
def handle(error, api_name):
    if error:
        return {
            'status': 'error',
            'error_type': 'access_denied',
            'message': (
                f'Access denied for Billing {api_name}. '
                'Ask the owner of the account for the permission.'
            ),
            'request_id': error.response.get('ResponseMetadata', {}).get(
                'RequestIdentifierOfTheCall', 'Unknown'
            ),
        }
    return {'status': 'success'}
"""

REWRITTEN = """
from pkg import error_codes
from pkg.error_model import ErrorDetail


def handle(error, api_name):
    if error:
        return {
            {q}success{q}: False,
            {q}error{q}: ErrorDetail(
                code=error_codes.PERMISSION_DENIED,
                message=(
                    f'Access denied for Billing {api_name}. '
                    'Ask the owner of the account for the permission.'
                ),
                details={
                    'error_type': 'access_denied',
                    'request_id': error.response.get('ResponseMetadata', {}).get(
                        'RequestIdentifierOfTheCall', 'Unknown'
                    ),
                },
            ).to_dict(),
        }
    return {'status': 'success'}
"""


def _expected(quote: str) -> str:
    return textwrap.dedent(REWRITTEN).lstrip("\n").replace("{q}", quote)


def test_multi_line_values_move_with_their_key(tmp_path: Path) -> None:
    """A value laid over several lines keeps its lines, indented as deep as its new place:
    its closing bracket lines up with the line that opens it, no line is left holding only
    spaces, and the keys the dict had keep their quotes."""
    files = {"pkg/__init__.py": "", "pkg/s.py": ACCESS_DENIED}
    new = _diff(tmp_path, {"pyproject.toml": "[tool.ruff]\nline-length = 99\n", **files})
    assert new["pkg/s.py"] == _expected('"')
    assert not [line for line in new["pkg/s.py"].splitlines() if line != line.rstrip()]


def test_new_strings_take_the_projects_quote_style(tmp_path: Path) -> None:
    """``quote-style = "single"``: the keys the rewrite adds are single-quoted as well; the
    project's own strings keep the quotes they had."""
    config = '[tool.ruff]\nline-length = 99\n[tool.ruff.format]\nquote-style = "single"\n'
    files = {"pyproject.toml": config, "pkg/__init__.py": "", "pkg/s.py": ACCESS_DENIED}
    new = _diff(tmp_path, files)
    assert new["pkg/s.py"] == _expected("'")


def test_the_rewrite_is_clean_under_the_projects_own_ruff(tmp_path: Path) -> None:
    """Formatted and lint-clean (pydocstyle's D1 and isort included) under the project's
    configuration: its line length, quote style and import sections. A call's sole argument
    that no longer fits beside its brackets goes on a line of its own, as ruff splits it
    (``json.dumps({`` and ``append(Warning(`` hugging their call failed ``ruff format
    --check``: awslabs-cdk-mcp-server, awslabs-cloudwatch-applicationsignals-mcp-server);
    so does every argument of a call whose arguments shared one line (``}, indent=2,
    ensure_ascii=False``: mcp-atlassian)."""
    config = textwrap.dedent(
        """
        [tool.ruff]
        line-length = 99
        [tool.ruff.format]
        quote-style = "single"
        [tool.ruff.lint.isort]
        no-sections = true
        """
    )
    files = {
        "pyproject.toml": config,
        "pkg/__init__.py": "",
        "pkg/s.py": ACCESS_DENIED,
        "pkg/batch.py": BATCH_WITH_IMPORTS,
        "pkg/util.py": "def clean(text):\n    return text\n",
        "pkg/tools.py": SOLE_ARGUMENTS,
    }
    ruff = [sys.executable, "-m", "ruff"]
    sources = ["pkg/s.py", "pkg/batch.py", "pkg/tools.py"]
    before = _files(tmp_path, files)
    for command in (["check", "--select", "E,W,F,I"], ["format", "--check"]):
        fair = subprocess.run([*ruff, *command, *sources], capture_output=True, cwd=before)
        assert fair.returncode == 0, fair.stdout  # the project is clean before the rewrite
    new = _diff(tmp_path, files)
    imports = "import re\nfrom pkg import error_codes\nfrom pkg.error_model import ErrorDetail\n"
    assert new["pkg/batch.py"].startswith(
        f'"""Batches."""\n\n{imports}from pkg.util import clean\n'
    )
    tools = new["pkg/tools.py"]
    assert "        return json.dumps(\n            {\n                'success': False," in tools
    assert "        result['warnings'].append(\n            Warning(\n" in tools
    # An implicit concatenation moved under ``message=``: its parts at the label's indent.
    assert "message=f'Query failed in {region} with {code}. '\n                f'Error:" in tools
    # The right side of an operator in an argument: the split comes before the operator.
    assert "        warnings=warnings\n        or [\n            Warning(\n" in tools
    # A parenthesized message: laid out from its '(' (the construction takes its place).
    assert "    note = Warning(\n        severity=" in tools
    assert "        message=(\n            f'{prefix} could not" in tools
    # A sole element of a list hugging its brackets: the list breaks around it.
    assert "            warnings=[\n                Warning(\n" in tools
    # A call broken after ``(`` already: each argument on a line of its own, comma after.
    assert "        result['warnings'].insert(\n            0,\n            Warning(\n" in tools
    assert (
        "            },\n            indent=2,\n            ensure_ascii=False,\n        )" in tools
    )
    assert "            },\n            indent=2,\n            sort_keys=True,\n        )" in tools
    for name, text in new.items():
        (tmp_path / name).write_text(text, "utf-8")
    generated = ["pkg/error_model.py", "pkg/error_codes.py"]
    for rules, paths in (("E,W,F,I", list(new)), ("E,W,F,I,D1", generated)):
        lint = [*ruff, "check", "--select", rules, "--ignore", "D203,D213", *paths]
        checked = subprocess.run(lint, capture_output=True, text=True, cwd=tmp_path)
        assert checked.returncode == 0, checked.stdout
    formatted = subprocess.run(
        [*ruff, "format", "--check", "--diff", *sources, *generated],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


# -- an argument on a line of its own: the decision itself ------------------------------------

_BROKEN = "Warning(\n    message=m,\n)"


_IN_PLACE, _ALONE, _BROKEN_ALREADY = "in place", "laid out alone", "in place, call split"


@pytest.mark.parametrize(
    ("source", "replacement", "one_line", "placed", "suffix"),
    [
        pytest.param("f(x)", "Warning(m)", True, _IN_PLACE, None, id="a one-line rewrite"),
        pytest.param("f(key=x)", _BROKEN, True, _IN_PLACE, None, id="a keyword argument"),
        pytest.param("f(x,\n  y)", _BROKEN, True, _IN_PLACE, None, id="arguments over lines"),
        pytest.param("f(x)", _BROKEN, False, _IN_PLACE, None, id="a site over lines"),
        pytest.param("f(x)", _BROKEN, True, _ALONE, 0, id="a sole argument, no comma"),
        pytest.param(
            "json.dumps(x, indent=2)", _BROKEN, True, _ALONE, 1, id="one of several, comma"
        ),
        pytest.param(
            "f(\n    x, indent=2\n)", _BROKEN, True, _BROKEN_ALREADY, None, id="after a break"
        ),
        pytest.param("f(\n    x\n)", _BROKEN, True, _IN_PLACE, None, id="alone after a break"),
        pytest.param(
            "f(\n    # why\n    x, y\n)", _BROKEN, True, _IN_PLACE, None, id="a comment inside"
        ),
        pytest.param("[x]", _BROKEN, True, _ALONE, 0, id="a sole element of a list"),
        pytest.param("[x, y]", _BROKEN, True, _ALONE, 1, id="one of several elements"),
        pytest.param("[x,\n y]", _BROKEN, True, _IN_PLACE, None, id="elements over lines"),
    ],
)
def test_a_rewritten_argument_fits_in_place_or_goes_on_a_line_of_its_own(
    source: str,
    replacement: str,
    one_line: bool,
    placed: str,
    suffix: int | None,
) -> None:
    """:func:`place_argument` alone: a rewrite that breaks over lines, of a positional
    argument of a call whose arguments share a line, goes on a line of its own, laid out
    by ``alone`` with a comma after it where the call has several arguments (as it was,
    where the call breaks after ``(`` already), the call's ``)`` at ``call_indentation``.
    Anything else fits in place."""
    call = cst.parse_expression(source)
    parents = parent_map(call)
    site = next(n for n in parents if isinstance(n, cst.Name) and n.value == "x")
    in_place = cst.parse_expression(replacement)
    laid_alone = cst.parse_expression("Warning(\n        message=m,\n    )")
    suffixes: list[int] = []

    def alone(suffix: int) -> cst.BaseExpression:
        suffixes.append(suffix)
        return laid_alone

    result = place_argument(
        in_place,
        site,
        parent_of=parents.get,
        one_line=one_line,
        alone=alone,
        call_indentation=lambda hugged: "  " if hugged is call else "not the hugging call",
        unit="    ",
    )
    expected = {
        _IN_PLACE: in_place,
        _ALONE: OwnLine(laid_alone, "  ", "    "),
        _BROKEN_ALREADY: OwnLine(in_place, "  ", "    "),
    }[placed]
    assert result == expected
    assert suffixes == ([] if suffix is None else [suffix])


SOLE_ARGUMENTS = """
import json


def describe(client, name):
    try:
        return json.dumps(client.describe(name))
    except OSError as e:
        return json.dumps({'error': str(e), 'error_type': 'service_error'})


def fix_ids(schema, result):
    if schema.get('fixed'):
        result['warnings'].append('Fixed the operation ids for compatibility')


def note_first(result, name):
    if not name:
        result['warnings'].insert(
            0, 'No name given: the report lists all projects of the workspace first'
        )


def query(region, code, exc, summary):
    try:
        summary.run(region)
    except OSError:
        summary.warnings.append(
            f'Query failed in {region} with {code}. '
            f'Error: {exc}. This error is not retryable, so the region is skipped.'
        )


def on_behalf(prefix, name, error, result):
    note = (
        f'{prefix} could not raise the request on behalf of {name}: '
        f'{error}; it was raised as the service account instead'
    )
    result['warnings'].append(note)


def recommend(queries, field_usage, recommendation):
    if not field_usage:
        return recommendation(
            count=len(queries),
            warnings=['No indexable fields found in the query history (only system fields).'],
        )
    return recommendation(count=len(queries), warnings=[])


def summarize(queries, summary):
    warnings = []
    if len(queries) > 100:
        warnings.append('Only the first 100 queries were summarized.')
    return summary(
        count=len(queries),
        warnings=warnings or ['All queried fields are already indexed, nothing to add here.'],
    )


def fields(client, project_key):
    try:
        return json.dumps(client.fields(project_key))
    except OSError as e:
        return json.dumps(
            {'success': False, 'error': str(e), 'key': project_key}, indent=2, sort_keys=True
        )


def version(client, version_id):
    try:
        return json.dumps(client.version(version_id))
    except OSError as e:
        return json.dumps({'success': False, 'error': str(e)}, indent=2, ensure_ascii=False)
"""

BATCH_WITH_IMPORTS = '''
"""Batches."""

import re
from pkg.util import clean

PATTERN = re.compile(clean('x'))


def batch_update(requests):
    if not requests:
        return {'error': 'requests list cannot be empty'}
    return {'replies': []}
'''

RELATIVE_IMPORTS = '''
"""Advice."""

import logging

import yaml

from ..sql import run_query
from .base import Base

LOG = logging.getLogger(yaml.__name__)


class Advisor(Base):
    def advise(self, queries):
        if not queries:
            return {"error": "No queries given"}
        return {"advice": run_query(queries)}
'''


def test_new_imports_form_their_own_block_above_relative_imports(tmp_path: Path) -> None:
    """isort (and ruff's I001) keep relative imports in a section of their own, after the
    first-party one: the absolute import of a generated module goes into a new first-party
    block between the third-party and the relative ones, not at the top of the relative
    block."""
    files = {
        "pkg/__init__.py": "",
        "pkg/sql.py": "def run_query(q):\n    return q\n",
        "pkg/advice/__init__.py": "",
        "pkg/advice/base.py": "class Base:\n    pass\n",
        "pkg/advice/advisor.py": RELATIVE_IMPORTS,
    }
    before = _files(tmp_path, files)
    ruff = [sys.executable, "-m", "ruff", "check", "--select", "I", "--isolated"]
    fair = subprocess.run([*ruff, "pkg/advice/advisor.py"], capture_output=True, cwd=before)
    assert fair.returncode == 0, fair.stdout  # the project is clean before the rewrite
    new = _diff(tmp_path, files)
    assert new["pkg/advice/advisor.py"].startswith(
        '"""Advice."""\n\nimport logging\n\nimport yaml\n\n'
        "from pkg import error_codes\nfrom pkg.error_model import ErrorDetail\n\n"
        "from ..sql import run_query\nfrom .base import Base\n"
    )
    (tmp_path / "pkg/advice/advisor.py").write_text(new["pkg/advice/advisor.py"], "utf-8")
    checked = subprocess.run(
        [*ruff, "pkg/advice/advisor.py"], capture_output=True, text=True, cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stdout


NESTED_ROUTE = """
class Router:
    async def route(self, client, start, end):
        if client is not None:
            routes = client.routes(start, end)
            if not routes:
                return {"error": "No route found"}
            return {"route": routes[0]}
        return {"route": None}
"""


def test_a_value_on_its_own_line_is_measured_from_the_margin_to_its_comma(
    tmp_path: Path,
) -> None:
    """Four levels deep, ``"error": ErrorDetail(...).to_dict(),`` is measured with the
    block's indentation and the trailing comma, as ruff measures it: at 99 columns it is
    broken, and ruff's formatter and E501 have nothing to say. (Measured from the block,
    the line of awslabs-aws-location-mcp-server's ``No route found`` fitted at 97 columns
    and was 110 wide.)"""
    files = {
        "pyproject.toml": "[tool.ruff]\nline-length = 99\n",
        "pkg/__init__.py": "",
        "pkg/router.py": NESTED_ROUTE,
    }
    new = _diff(tmp_path, files)
    text = new["pkg/router.py"]
    assert "ErrorDetail(\n" in text
    assert max(len(line) for line in text.splitlines()) <= 99
    (tmp_path / "pkg/router.py").write_text(text, "utf-8")
    ruff = [sys.executable, "-m", "ruff"]
    for command in (["format", "--check", "--diff"], ["check", "--select", "E501"]):
        done = subprocess.run(
            [*ruff, *command, "pkg/router.py"], capture_output=True, text=True, cwd=tmp_path
        )
        assert done.returncode == 0, done.stdout + done.stderr


KEY_BY_KEY = """
def tag(notes, note_id, name):
    r = {"success": False, "error": None}
    if not name:
        r["error"] = f"a tag needs a name to be added to note {note_id}"
        return r
    notes[note_id].append(name)
    return {"success": True}
"""


def test_an_error_written_key_by_key_is_broken_where_it_does_not_fit(tmp_path: Path) -> None:
    """``r["error"] = ErrorDetail(...).to_dict()`` is laid out like every other rewrite:
    over lines, at the project's line length (it stayed on one line of 150 columns)."""
    files = {"pkg/__init__.py": "", "pkg/tags.py": KEY_BY_KEY}
    text = _diff(tmp_path, files)["pkg/tags.py"]
    assert '        r["error"] = ErrorDetail(\n' in text
    assert max(len(line) for line in text.splitlines()) <= 88


def test_comments_among_the_arguments_of_a_broken_call_survive() -> None:
    """Found by the property test: a sole argument after a break behind ``(``, with a
    comment line before it and one after it, kept both once its call was no longer split
    around it."""
    source = (
        "def complete(warnings):\n"
        "    warnings.append(\n"
        "        # why it blocks\n"
        '        "BLOCK: order"  # the order\n'
        "    )\n"
    )
    after, _sites = rewrite_source(source, path="app.py")
    assert "        # why it blocks\n        Warning(\n" in after
    assert "        )  # the order\n    )\n" in after
