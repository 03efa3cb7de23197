"""``apply --interactive``: scripted answers become an edited plan, applied as ``--plan`` is.

Each test runs the real pipeline on a small project, answers the prompts from a script,
applies the resulting plan through :func:`unsentinel.registry.run_plan` and reads the files
written. The CLI's refusal without a terminal is tested here too; the same review under a
real pseudo-terminal is in ``test_interactive_pty.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core.decisions import Plan
from unsentinel.core.model import Mode
from unsentinel.registry import load_config, run, run_plan, site_groups
from unsentinel.review.interactive import Terminal, review
from unsentinel.review.site_change import SiteChange, site_changes

ORDERS = """\
BLOCK_WARNING_PREFIX = "BLOCK:"


def complete(order: dict, warnings: list[str]) -> None:
    if order["done"]:
        warnings.append(f"{BLOCK_WARNING_PREFIX} Order {order['id']} is already completed.")
    if not order["rows"]:
        warnings.append(f"{BLOCK_WARNING_PREFIX} Order has no rows to ship.")


def ship(order: dict, warnings: list[str]) -> None:
    warnings.append("Shipping is slow today.")
    warnings.append(f"{BLOCK_WARNING_PREFIX} Stock")
"""

AUDIT = """\
from pkg.orders import BLOCK_WARNING_PREFIX


def audit(order: dict, warnings: list[str]) -> None:
    warnings.append(f"{BLOCK_WARNING_PREFIX} Order {order['no']} is already completed.")
"""

# The sites, in the order they are asked about:
#  1 audit.py:4 annotation   2 audit.py:5 ORDER_ALREADY_COMPLETED   3 orders.py:1 constant
#  4 orders.py:4 annotation  5 orders.py:6 ORDER_ALREADY_COMPLETED  6 orders.py:8 ORDER_NO_ROWS_SHIP
#  7 orders.py:11 annotation 8 orders.py:12 SHIPPING_SLOW_TODAY      9 orders.py:13 STOCK
SITES = 9


class Script:
    """A terminal that answers from a list and records everything it was shown."""

    def __init__(self, *answers: str) -> None:
        self.answers: Iterator[str] = iter(answers)
        self.shown: list[str] = []

    def ask(self, prompt: str) -> str:
        self.shown.append(prompt)
        try:
            return next(self.answers)
        except StopIteration:
            raise EOFError from None

    @property
    def terminal(self) -> Terminal:
        return Terminal(self.ask, self.shown.append)

    @property
    def text(self) -> str:
        return "\n".join(self.shown)

    def unused(self) -> list[str]:
        return list(self.answers)


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


def changes() -> list[SiteChange]:
    paths = (Path("."),)
    result = run(paths, load_config(paths), Mode.DIFF, jobs=1)
    return site_changes(result.results, site_groups(result))


def reviewed(script: Script) -> Plan | None:
    plan = review(changes(), script.terminal, paths=(".",))
    assert script.unused() == [], "the review stopped before the script ended"
    return plan


def apply(plan: Plan) -> None:
    paths = (Path("."),)
    result, refused = run_plan(paths, load_config(paths), plan, mark_review=False, jobs=1)
    assert refused == ()
    assert not result.failed


def read(name: str) -> str:
    return Path(name).read_text(encoding="utf-8")


def test_sites_are_asked_about_in_file_order_with_their_change(project: Path) -> None:
    found = changes()
    assert [(c.path, c.site.position.line) for c in found] == [
        ("pkg/audit.py", 4),
        ("pkg/audit.py", 5),
        ("pkg/orders.py", 1),
        ("pkg/orders.py", 4),
        ("pkg/orders.py", 6),
        ("pkg/orders.py", 8),
        ("pkg/orders.py", 11),
        ("pkg/orders.py", 12),
        ("pkg/orders.py", 13),
    ]
    stock = found[8]
    assert stock.before == ('    warnings.append(f"{BLOCK_WARNING_PREFIX} Stock")',)
    assert stock.after[:2] == ("    warnings.append(", "        Warning(")
    assert '            message="Stock",' in stock.after
    annotation = found[6]  # its own line only, not the appends below it
    assert annotation.after == ("def ship(order: dict, warnings: list[Warning]) -> None:",)


def test_the_prompt_shows_the_values_confidence_and_reasons(project: Path) -> None:
    script = Script("q")
    assert reviewed(script) is None
    assert "[1/9] pkg/audit.py:4:34  UNS301" in script.text
    assert "+ def audit(order: dict, warnings: list[Warning]) -> None:" in script.text
    assert "nothing accepted: nothing written" in script.text


def test_accepting_every_site_writes_what_apply_writes(project: Path) -> None:
    diff = run((Path("."),), load_config((Path("."),)), Mode.DIFF, jobs=1)
    new_text = {r.path: r.new_text for r in diff.results if r.changed}
    script = Script(*["a"] * SITES)
    plan = reviewed(script)
    assert plan is not None
    apply(plan)
    assert read("pkg/orders.py") == new_text["pkg/orders.py"]
    assert read("pkg/audit.py") == new_text["pkg/audit.py"]
    assert "9 site(s) accepted in 2 file(s) will be written; 0 skipped" in script.text


def test_a_skip_skips_the_sites_connected_to_it(project: Path) -> None:
    # accept the first eight (the ship() annotation and its plain warning among them),
    # then skip Stock: the annotation and the other append of ship() go with it
    script = Script(*["a"] * 8, "s")
    plan = reviewed(script)
    assert plan is not None
    apply(plan)
    orders = read("pkg/orders.py")
    assert "def ship(order: dict, warnings: list[str]) -> None:" in orders
    assert '    warnings.append("Shipping is slow today.")' in orders
    assert '    warnings.append(f"{BLOCK_WARNING_PREFIX} Stock")' in orders
    assert 'BLOCK_WARNING_PREFIX = "BLOCK:"' in orders  # still used: kept
    assert "def complete(order: dict, warnings: list[Warning]) -> None:" in orders
    assert "skipped with its connected group (2 other site(s): pkg/orders.py:11:33" in script.text
    assert "2 of them accepted before, now skipped" in script.text


def test_later_sites_of_a_skipped_group_are_not_asked_about(project: Path) -> None:
    script = Script(*["a"] * 6, "s")  # skip the ship() annotation: lines 12 and 13 follow
    assert reviewed(script) is not None
    assert "[8/9] pkg/orders.py:12:21 skipped: in the group of the site skipped at" in script.text
    assert "[9/9] pkg/orders.py:13:21 skipped" in script.text
    assert sum(1 for line in script.shown if line.startswith("[a]ccept")) == 7


def test_an_edited_code_is_renamed_everywhere_and_invalid_values_are_asked_again(
    project: Path,
) -> None:
    script = Script(
        "a",
        "e",
        "code",
        "not a name",  # refused, asked again
        "class",  # a keyword: refused too
        "ORDER_DONE",
        "e",
        "sev",  # a prefix names the field
        "critical",  # not a severity
        "advisory",
        "a",
        *["a"] * 7,
    )
    plan = reviewed(script)
    assert "code 'not a name' is not a valid Python identifier" in script.text
    assert "code 'class' is not a valid Python identifier" in script.text
    assert "unknown severity 'critical' (one of: advisory, blocking, info)" in script.text
    assert plan is not None
    apply(plan)
    audit = read("pkg/audit.py")
    assert "code=warning_codes.ORDER_DONE," in audit
    assert 'severity="advisory",' in audit
    # a code is one constant: the other site that had it follows, its severity does not
    orders = read("pkg/orders.py")
    assert "code=warning_codes.ORDER_DONE," in orders
    codes = next(Path(".").rglob("warning_codes.py")).read_text(encoding="utf-8")
    assert "ORDER_DONE = " in codes
    assert "ORDER_ALREADY_COMPLETED" not in codes
    assert orders.count('severity="blocking"') == 3


def test_an_edited_field_path_may_be_none_and_is_written(project: Path) -> None:
    script = Script("a", "a", "a", "a", "a", "e", "field_path", "rows", "a", "a", "a", "a")
    plan = reviewed(script)
    assert plan is not None
    apply(plan)
    assert 'field_path="rows",' in read("pkg/orders.py")


def test_accept_the_rest_of_the_file_then_quit_writes_only_that_file(project: Path) -> None:
    script = Script("f", "q", "y")  # all of audit.py; quit at the first site of orders.py
    plan = reviewed(script)
    assert "2 site(s) accepted in 1 file(s) will be written; 0 skipped and 7 not reviewed" in (
        script.text
    )
    assert plan is not None
    apply(plan)
    assert "code=warning_codes.ORDER_ALREADY_COMPLETED," in read("pkg/audit.py")
    assert read("pkg/orders.py") == ORDERS


def test_quit_and_decline_writes_nothing(project: Path) -> None:
    script = Script("a", "q", "n")
    assert reviewed(script) is None
    assert "write the accepted sites? [y/N]" in script.text
    assert script.text.endswith("nothing written")


def test_an_unknown_key_is_asked_again(project: Path) -> None:
    script = Script("x", "", "q")
    assert reviewed(script) is None
    assert script.text.count("press a, s, e, f or q") == 2


def test_input_ending_writes_nothing(project: Path) -> None:
    script = Script("a", "a")
    assert review(changes(), script.terminal) is None
    assert "input ended: nothing written" in script.text


def test_a_site_without_values_has_nothing_to_edit(project: Path) -> None:
    script = Script("e", "q")
    assert reviewed(script) is None
    assert "this site has no inferred value to edit" in script.text


def test_without_a_terminal_the_cli_refuses_in_one_line(project: Path) -> None:
    result = CliRunner().invoke(main, ["apply", "--interactive", "."], input="a\n")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: --interactive needs a terminal")
    assert read("pkg/orders.py") == ORDERS


def test_interactive_and_a_plan_do_not_mix(project: Path) -> None:
    (project / "plan.toml").write_text("sites = []\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["apply", "-i", "--plan", "plan.toml", "."])
    assert result.exit_code == 2
    assert "--interactive and --plan" in result.stderr
