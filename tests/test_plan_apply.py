"""The editable plan: write -> edit -> ``apply --plan`` applies exactly the edit.

Also: entries whose source changed are refused (the rest applies), invalid plan files
are errors naming the entry and its line, and review markers (``--mark-review``) with
their ``check`` rule, UNS901.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from click.testing import CliRunner, Result

from unsentinel.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ORDERS = """\
BLOCK_WARNING_PREFIX = "BLOCK:"


def complete(order: dict, warnings: list[str]) -> None:
    if order["done"]:
        warnings.append(f"{BLOCK_WARNING_PREFIX} Order {order['id']} is already completed.")
    if not order["rows"]:
        warnings.append(f"{BLOCK_WARNING_PREFIX} Order has no rows to ship.")


def ship(order: dict, warnings: list[str]) -> None:
    warnings.append("Shipping is slow today.")


def pack(order: dict, warnings: list[str]) -> None:
    warnings.append(f"{BLOCK_WARNING_PREFIX} Stock")
"""

AUDIT = """\
from pkg.orders import BLOCK_WARNING_PREFIX


def audit(order: dict, warnings: list[str]) -> None:
    warnings.append(f"{BLOCK_WARNING_PREFIX} Order {order['no']} is already completed.")
"""

Edit = Callable[[dict[str, Any]], None]


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "pkg/__init__.py": "",
        "pkg/orders.py": ORDERS,
        "pkg/audit.py": AUDIT,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_plan(project: Path) -> dict[str, Any]:
    result = invoke("plan", ".", "--format", "toml", "-o", "plan.toml", "-j1", "-q")
    assert result.exit_code == 0, result.stderr
    return tomllib.loads((project / "plan.toml").read_text(encoding="utf-8"))


def edit_plan(project: Path, document: dict[str, Any], edit: Edit) -> None:
    edit(document)
    (project / "plan.toml").write_text(tomli_w.dumps(document), encoding="utf-8")


def site(document: dict[str, Any], **match: str) -> dict[str, Any]:
    found = [s for s in document["sites"] if all(s.get(k) == v for k, v in match.items())]
    assert len(found) == 1, found
    entry: dict[str, Any] = found[0]
    return entry


def reviewed(document: dict[str, Any]) -> None:
    """What a reviewer might do: rename a code, change a severity and a field_path, skip."""
    site(document, code="ORDER_ALREADY_COMPLETED", path="pkg/orders.py")["code"] = "ORDER_DONE"
    site(document, code="SHIPPING_SLOW_TODAY")["severity"] = "info"
    site(document, code="ORDER_NO_ROWS_SHIP")["field_path"] = "rows"
    site(document, code="STOCK")["action"] = "skip"


EDITED_ORDERS = """\
from pkg import warning_codes
from pkg.warning_model import Warning

BLOCK_WARNING_PREFIX = "BLOCK:"


def complete(order: dict, warnings: list[Warning]) -> None:
    if order["done"]:
        warnings.append(
            Warning(
                severity="blocking",
                message=f"Order {order['id']} is already completed.",
                field_path=None,
                code=warning_codes.ORDER_DONE,
            )
        )
    if not order["rows"]:
        warnings.append(
            Warning(
                severity="blocking",
                message="Order has no rows to ship.",
                field_path="rows",
                code=warning_codes.ORDER_NO_ROWS_SHIP,
            )
        )


def ship(order: dict, warnings: list[Warning]) -> None:
    warnings.append(
        Warning(
            severity="info",
            message="Shipping is slow today.",
            field_path=None,
            code=warning_codes.SHIPPING_SLOW_TODAY,
        )
    )


def pack(order: dict, warnings: list[str]) -> None:
    warnings.append(f"{BLOCK_WARNING_PREFIX} Stock")
"""


def test_plan_entries_carry_a_fingerprint_and_the_paths(project: Path) -> None:
    document = write_plan(project)
    assert document["paths"] == ["."]
    assert all(entry["fingerprint"].startswith("sha256:") for entry in document["sites"])


def test_round_trip_applies_exactly_the_edited_plan(project: Path) -> None:
    edit_plan(project, write_plan(project), reviewed)

    result = invoke("apply", "--plan", "plan.toml", "--no-mark-review", "-j1")

    assert result.exit_code == 0, result.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == EDITED_ORDERS
    codes = (project / "pkg/warning_codes.py").read_text(encoding="utf-8")
    assert "ORDER_DONE = " in codes
    assert "ORDER_ALREADY_COMPLETED" not in codes
    assert "STOCK" not in codes  # the skipped site mints no constant


def test_a_skip_reaches_the_whole_group_so_no_string_joins_migrated_warnings(
    project: Path,
) -> None:
    """Skipping one append of a list skips every site of that list: a plan can never leave a
    string in a ``list[Warning]``, even where the reviewer edited another of its sites."""
    orders = project / "pkg/orders.py"
    orders.write_text(
        ORDERS.replace(
            '    warnings.append("Shipping is slow today.")\n',
            '    warnings.append("Shipping is slow today.")\n'
            '    warnings.append(f"{BLOCK_WARNING_PREFIX} Out of boxes")\n',
        ),
        encoding="utf-8",
    )
    before = orders.read_text(encoding="utf-8")
    ship_before = before[before.index("def ship") : before.index("def pack")]

    def skip_one(document: dict[str, Any]) -> None:
        site(document, code="SHIPPING_SLOW_TODAY")["severity"] = "info"
        site(document, code="OUT_BOXES")["action"] = "skip"

    edit_plan(project, write_plan(project), skip_one)
    result = invoke("apply", "--plan", "plan.toml", "--no-mark-review", "-j1")

    assert result.exit_code == 0, result.stderr
    after = orders.read_text(encoding="utf-8")
    assert ship_before in after  # the whole group as it was, the edited site included
    assert "def complete(order: dict, warnings: list[Warning])" in after  # the rest migrates


def test_a_renamed_code_is_followed_by_every_site_sharing_it(project: Path) -> None:
    edit_plan(project, write_plan(project), reviewed)

    invoke("apply", "--plan", "plan.toml", "-j1")

    audit = (project / "pkg/audit.py").read_text(encoding="utf-8")
    assert "code=warning_codes.ORDER_DONE" in audit


def test_decided_values_are_reported_high_from_the_plan(project: Path) -> None:
    edit_plan(project, write_plan(project), reviewed)
    from unsentinel import registry
    from unsentinel.core.decisions import load_plan
    from unsentinel.registry import load_config

    config = load_config((Path("."),), None)
    plan = load_plan(project / "plan.toml")
    result, refused = registry.run_plan([Path(".")], config, plan, jobs=1)

    assert refused == ()
    sites = [s for r in result.results for s in r.sites if s.code and s.code.value == "ORDER_DONE"]
    assert sites
    assert all(s.code is not None and s.code.reason == "from the plan" for s in sites)
    assert all(s.code is not None and s.code.confidence.value == "high" for s in sites)


def test_an_unedited_plan_applies_what_apply_would(project: Path, tmp_path: Path) -> None:
    write_plan(project)

    result = invoke("apply", "--plan", "plan.toml", "--no-mark-review", "-j1")

    assert result.exit_code == 0, result.stderr
    planned = (project / "pkg/orders.py").read_text(encoding="utf-8")
    (project / "pkg/orders.py").write_text(ORDERS, encoding="utf-8")
    (project / "pkg/audit.py").write_text(AUDIT, encoding="utf-8")
    (project / "pkg/warning_codes.py").unlink()
    invoke("apply", ".", "--no-mark-review", "-j1")
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == planned


def test_an_entry_whose_source_changed_is_refused_and_the_rest_applies(project: Path) -> None:
    document = write_plan(project)
    edit_plan(project, document, reviewed)
    orders = project / "pkg/orders.py"
    changed = ORDERS.replace("Shipping is slow today.", "Shipping is slow this week.")
    orders.write_text("import os\n\n" + changed, encoding="utf-8")  # lines move too
    stale = site(document, code="SHIPPING_SLOW_TODAY")["id"]

    result = invoke("apply", "--plan", "plan.toml", "-j1")

    assert result.exit_code == 1
    assert f"refused: {stale}: the source changed since the plan was made" in result.stderr
    text = orders.read_text(encoding="utf-8")
    assert 'warnings.append("Shipping is slow this week.")' in text  # left as it is
    assert "code=warning_codes.ORDER_DONE" in text  # the rest applies, lines moved or not
    assert 'field_path="rows"' in text


def test_a_site_new_since_the_plan_is_left_alone(project: Path) -> None:
    write_plan(project)
    orders = project / "pkg/orders.py"
    orders.write_text(ORDERS + '    warnings.append("Carrier is late.")\n', encoding="utf-8")

    result = invoke("apply", "--plan", "plan.toml", "-j1")

    assert result.exit_code == 0, result.stderr
    assert 'warnings.append("Carrier is late.")' in orders.read_text(encoding="utf-8")


def test_apply_without_paths_uses_the_plans_paths(project: Path) -> None:
    edit_plan(project, write_plan(project), reviewed)

    result = invoke("apply", "--plan", "plan.toml", "--no-mark-review", "-j1", "-q")

    assert result.exit_code == 0, result.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == EDITED_ORDERS


def test_plan_output_may_be_written_outside_the_project(
    project: Path, tmp_path_factory: Any
) -> None:
    elsewhere = tmp_path_factory.mktemp("review") / "plan.toml"

    result = invoke("plan", ".", "--format", "toml", "-o", str(elsewhere), "-j1")

    assert result.exit_code == 0, result.stderr
    assert "[[sites]]" in elsewhere.read_text(encoding="utf-8")


# -- invalid plans ------------------------------------------------------------------------


def _set(key: str, value: str) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        site(document, code="SHIPPING_SLOW_TODAY")[key] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "problem", "key"),
    [
        pytest.param(_set("colour", "red"), "unknown key 'colour'", "colour", id="unknown key"),
        pytest.param(
            _set("code", "2FAST"),
            "code '2FAST' is not a valid Python identifier",
            "code",
            id="code not an identifier",
        ),
        pytest.param(
            _set("code", "class"),
            "code 'class' is not a valid Python identifier",
            "code",
            id="code a keyword",
        ),
        pytest.param(
            _set("severity", "critical"),
            "unknown severity 'critical'",
            "severity",
            id="unknown severity",
        ),
        pytest.param(
            _set("action", "later"), "unknown action 'later'", "action", id="unknown action"
        ),
        pytest.param(
            _set("field_path", 'rows"]'),
            "may not contain quotes",
            "field_path",
            id="field_path that would break the code",
        ),
    ],
)
def test_an_invalid_entry_is_an_error_naming_it_and_its_line(
    project: Path, edit: Edit, problem: str, key: str
) -> None:
    document = write_plan(project)
    entry_id = site(document, code="SHIPPING_SLOW_TODAY")["id"]
    edit_plan(project, document, edit)
    lines = (project / "plan.toml").read_text(encoding="utf-8").splitlines()
    line = next(
        n
        for n, text in enumerate(lines, 1)
        if text.startswith(f"{key} =") and _entry_at(lines, n) == entry_id
    )
    before = (project / "pkg/orders.py").read_text(encoding="utf-8")

    result = invoke("apply", "--plan", "plan.toml", "-j1")

    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: plan.toml:{line}: entry {entry_id!r}: ")
    assert problem in result.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == before


def _entry_at(lines: list[str], number: int) -> str:
    for text in reversed(lines[:number]):
        if text.startswith("id = "):
            return str(tomllib.loads(text)["id"])
    return ""


def test_bad_toml_is_an_error_with_its_line(project: Path) -> None:
    (project / "plan.toml").write_text("version = 1\n[[sites]\n", encoding="utf-8")

    result = invoke("apply", "--plan", "plan.toml", ".", "-j1")

    assert result.exit_code == 2
    assert "plan.toml: invalid TOML" in result.stderr
    assert "line 2" in result.stderr


def test_a_missing_fingerprint_asks_for_a_new_plan(project: Path) -> None:
    document = write_plan(project)
    edit_plan(project, document, lambda d: d["sites"][0].pop("fingerprint"))

    result = invoke("apply", "--plan", "plan.toml", "-j1")

    assert result.exit_code == 2
    assert "missing 'fingerprint' (regenerate the plan" in result.stderr


def test_two_names_for_one_code_are_an_error(project: Path) -> None:
    def split(document: dict[str, Any]) -> None:
        site(document, code="ORDER_ALREADY_COMPLETED", path="pkg/orders.py")["code"] = "A_DONE"
        site(document, code="ORDER_ALREADY_COMPLETED", path="pkg/audit.py")["code"] = "B_DONE"

    edit_plan(project, write_plan(project), split)

    result = invoke("apply", "--plan", "plan.toml", "-j1")

    assert result.exit_code == 2
    assert "rename code ORDER_ALREADY_COMPLETED to both B_DONE and A_DONE" in result.stderr


# -- review markers -----------------------------------------------------------------------
# Which values are low-confidence is inference's business: these tests take it from the plan.

MARKER = re.compile(
    r"  # TODO\(unsentinel\): (?:(?:severity|field_path|code) inferred from .+?; )+check it$",
    re.MULTILINE,
)


def low_sites(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in document["sites"] if "low" in s.get("confidence", {}).values()]


def marked_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "TODO(unsentinel)" in line]


def test_apply_marks_each_low_confidence_site_for_review(project: Path) -> None:
    document = write_plan(project)
    expected = len([s for s in low_sites(document) if s["path"] == "pkg/orders.py"])
    assert expected  # the "Stock" template yields a one-word code

    result = invoke("apply", ".", "-j1", "-q")

    assert result.exit_code == 0, result.stderr
    lines = marked_lines((project / "pkg/orders.py").read_text(encoding="utf-8"))
    assert len(lines) == expected
    assert all(MARKER.search(line) for line in lines), lines


def test_no_mark_review_leaves_no_marker(project: Path) -> None:
    invoke("apply", ".", "--no-mark-review", "-j1", "-q")

    assert "TODO(unsentinel)" not in (project / "pkg/orders.py").read_text(encoding="utf-8")


def test_a_second_apply_adds_no_marker_again(project: Path) -> None:
    invoke("apply", ".", "-j1", "-q")
    first = (project / "pkg/orders.py").read_text(encoding="utf-8")
    assert marked_lines(first)

    again = invoke("apply", ".", "-j1")

    assert again.exit_code == 0, again.stderr
    assert (project / "pkg/orders.py").read_text(encoding="utf-8") == first


def test_check_reports_the_markers_left_until_they_are_gone(project: Path) -> None:
    invoke("apply", ".", "-j1", "-q")
    files = [project / "pkg/orders.py", project / "pkg/audit.py"]
    left = sum(len(marked_lines(f.read_text(encoding="utf-8"))) for f in files)

    result = invoke("check", ".", "-j1", "--no-cache")

    assert result.exit_code == 1
    assert result.stdout.count(" UNS901 Review marker left: ") == left
    for path in files:
        text = path.read_text(encoding="utf-8")
        path.write_text(MARKER.sub("", text), "utf-8")
    assert "UNS901" not in invoke("check", ".", "-j1", "--no-cache").stdout


def test_a_marker_keeps_an_existing_comment(project: Path) -> None:
    orders = project / "pkg/orders.py"
    source = ORDERS.replace('Stock")', 'Stock")  # from the warehouse')
    orders.write_text(source, encoding="utf-8")

    invoke("apply", ".", "-j1", "-q")

    text = orders.read_text(encoding="utf-8")
    assert "\n    )  # from the warehouse  # TODO(unsentinel): " in text


def test_a_value_the_plan_decides_needs_no_marker(project: Path) -> None:
    document = write_plan(project)
    edit_plan(project, document, lambda d: site(d, code="STOCK").update(code="STOCK_SHORT"))

    invoke("apply", "--plan", "plan.toml", "-j1", "-q")

    lines = (project / "pkg/orders.py").read_text(encoding="utf-8").splitlines()
    at = lines.index("            code=warning_codes.STOCK_SHORT,")
    assert "code inferred" not in lines[at + 1]


def test_diff_mark_review_shows_what_apply_writes(project: Path) -> None:
    shown = invoke("diff", ".", "--mark-review", "-j1", "-q").stdout
    assert "TODO(unsentinel)" not in invoke("diff", ".", "-j1", "-q").stdout

    invoke("apply", ".", "-j1", "-q")

    written = marked_lines((project / "pkg/orders.py").read_text(encoding="utf-8"))
    assert written
    assert all(f"+{line}\n" in shown for line in written)


def test_markers_on_a_fixture_repository_reach_a_fixed_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mcp_orders"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "mcp_orders", root)
    monkeypatch.chdir(root)
    assert invoke("apply", ".", "-j1", "-q").exit_code == 0
    files = {p: p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}
    marked = sum(len(marked_lines(text)) for text in files.values())
    assert marked

    check = invoke("check", ".", "-j1", "--no-cache", "--select", "UNS901")
    again = invoke("apply", ".", "--allow-dirty", "-j1")

    assert check.stdout.count(" UNS901 ") == marked
    assert again.exit_code == 0, again.stderr
    assert {p: p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))} == files
