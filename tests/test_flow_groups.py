"""Connected groups: a warning value changes type only together with everything it meets.

Each case is a small multi-module project run through the whole tool (gather, rewrite) the
way ``unsentinel diff`` runs it. A case either migrates consistently -- every producer,
consumer and annotation of the group changes -- or is skipped as a group: no site of it
changes, and every site says which blocker (path:line, why) held it back.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from projects import (
    appends_a_warning,
    apply_and_run_tests,
    diff_project,
    new_text,
    write_package_project,
    write_project,
)

from unsentinel.core.model import Action, Mode, Site
from unsentinel.core.runner import RunResult
from unsentinel.registry import load_config, run
from unsentinel.warnings.facts import WarningFacts


@pytest.fixture(autouse=True)
def _inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the project's root, so sites show paths as a user sees them."""
    monkeypatch.chdir(tmp_path)


def _sites(result: RunResult, name: str) -> list[Site]:
    return [
        site
        for file in result.results
        if file.path.replace("\\", "/").endswith(name)
        for site in file.sites
    ]


def _warning_sites(result: RunResult, name: str) -> list[Site]:
    """Sites of the warning producer, consumer and annotation rules."""
    return [s for s in _sites(result, name) if s.rule in ("UNS101", "UNS102", "UNS201", "UNS301")]


# -- one blocker, two files: the whole group stays as it is ----------------------------------

HELPER = """
    BLOCK_WARNING_PREFIX = "BLOCK:"

    def check_rows(rows, warnings: list[str]) -> None:
        for row in rows:
            if not row:
                warnings.append(f"{BLOCK_WARNING_PREFIX} empty row")
"""
TOOL_BLOCKED = """
    from app.checks import BLOCK_WARNING_PREFIX, check_rows

    def run_tool(rows, note):
        warnings: list[str] = []
        check_rows(rows, warnings)
        warnings.append(note)
        blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)
        return blocked, warnings
"""


def test_a_group_with_one_blocker_is_skipped_whole_across_two_files(tmp_path: Path) -> None:
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/checks.py": HELPER, "app/tool.py": TOOL_BLOCKED}
    )
    result = diff_project(root)

    assert new_text(result, "app/checks.py") is None
    assert new_text(result, "app/tool.py") is None
    checks = _warning_sites(result, "app/checks.py")
    tool = _warning_sites(result, "app/tool.py")
    assert checks and tool
    assert {s.action for s in checks + tool} == {Action.SKIP}
    blocker = "connected to app/tool.py:6: value of unknown type `note` added to a warnings list"
    # The producer in the other file and the consumer both name the blocker.
    assert [s.reasons for s in checks if s.rule == "UNS101"] == [(blocker,)]
    assert [s.reasons for s in tool if s.rule == "UNS201"] == [(blocker,)]
    assert [s.rule for s in checks] == ["UNS301", "UNS101"]  # the parameter annotation too
    # The constant stays: the string that spells it was not migrated.
    assert not any(
        s.rule == "UNS401" and s.action is Action.REWRITE for s in _sites(result, "checks.py")
    )


def test_check_still_reports_the_sites_of_a_skipped_group(tmp_path: Path) -> None:
    """Skipping is a decision about rewriting, never a suppression: the sentinel is still in
    the code, so ``check`` (the CI guard) still fails on the group plan skips."""
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/checks.py": HELPER, "app/tool.py": TOOL_BLOCKED}
    )
    skipped = {
        (Path(file.path).name, site.position.line, site.rule)
        for file in diff_project(root).results
        for site in file.sites
        if site.action is Action.SKIP
    }
    checked = run([root], load_config((root,)), Mode.CHECK, jobs=1)
    reported = {
        (Path(file.path).name, site.position.line, site.rule)
        for file in checked.results
        for site in file.sites
    }
    producer, consumer = ("checks.py", 6, "UNS101"), ("tool.py", 7, "UNS201")
    assert {producer, consumer} <= skipped
    assert {producer, consumer} <= reported


def test_without_the_blocker_the_same_group_migrates_whole(tmp_path: Path) -> None:
    tool = TOOL_BLOCKED.replace("        warnings.append(note)\n", "")
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/checks.py": HELPER, "app/tool.py": tool}
    )
    result = diff_project(root)

    checks_text = new_text(result, "app/checks.py")
    tool_text = new_text(result, "app/tool.py")
    assert checks_text is not None and tool_text is not None
    assert appends_a_warning(checks_text, "warnings")
    assert "warnings: list[Warning]" in checks_text
    assert 'any(w.severity == "blocking" for w in warnings)' in tool_text
    assert "warnings: list[Warning] = []" in tool_text
    actions = {
        s.action for s in _warning_sites(result, "checks.py") + _warning_sites(result, "tool.py")
    }
    assert Action.SKIP not in actions


# -- flow shapes that must migrate consistently -------------------------------------------


def test_a_local_assigned_then_appended_later_migrates(tmp_path: Path) -> None:
    source = """
        def check(order, warnings: list[str]) -> None:
            block: str | None = None
            if order.done:
                block = "BLOCK: order is already completed"
            if block:
                warnings.append(block)
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert "block = Warning(" in text
    assert 'message="order is already completed"' in text
    assert "warnings: list[Warning]" in text
    # It holds a Warning (or None) now: ``str | None`` would fail the type check.
    assert "block: Warning | None = None" in text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, "app.py")}


def test_a_tuple_slot_and_the_callers_unpacking_migrate_across_files(tmp_path: Path) -> None:
    helper = """
        def resolve(location_id) -> tuple[int, str | None]:
            if location_id is None:
                return 0, "BLOCK: no location given"
            return location_id, None
    """
    caller = """
        from app.resolve import resolve

        def move(request, warnings: list[str]):
            location, note = resolve(request.location_id)
            if note:
                warnings.append(note)
            return location
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/resolve.py": helper, "app/move.py": caller}
    )
    result = diff_project(root)
    helper_text = new_text(result, "app/resolve.py")
    assert helper_text is not None
    assert "-> tuple[int, Warning | None]" in helper_text
    assert "return 0, Warning(" in helper_text
    move_text = new_text(result, "app/move.py")
    assert move_text is not None and "warnings: list[Warning]" in move_text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, ".py")}


def test_a_filter_over_a_tuple_of_locals_migrates(tmp_path: Path) -> None:
    source = """
        def check(order):
            warnings = []
            a = "BLOCK: order is empty" if not order.lines else None
            b = "Order is archived"
            warnings.extend([w for w in (a, b) if w])
            return warnings
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert 'message="order is empty"' in text
    assert 'message="Order is archived"' in text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, "app.py")}


def test_an_enumerate_loop_and_an_fstring_over_migrated_warnings(tmp_path: Path) -> None:
    source = """
        def report(order):
            warnings = ["BLOCK: order is empty"]
            for number, warning in enumerate(warnings, start=1):
                print(f"{number}. {warning}")
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert "Warning(" in text
    assert 'print(f"{number}. {warning.message}")' in text


def test_dumped_warnings_are_read_by_key(tmp_path: Path) -> None:
    model = """
        from pydantic import BaseModel

        class Response(BaseModel):
            warnings: list[str] = []

        def build(order):
            return Response(warnings=["BLOCK: order is empty"])
    """
    reader = """
        from app.model import build

        def show(order):
            data = build(order).model_dump()
            return [w for w in data["warnings"] if w.startswith("BLOCK:")]
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/model.py": model, "app/show.py": reader}
    )
    result = diff_project(root)
    model_text = new_text(result, "app/model.py")
    show_text = new_text(result, "app/show.py")
    assert model_text is not None and "warnings: list[Warning] = []" in model_text
    assert show_text is not None
    assert 'if w["severity"] == "blocking"' in show_text


def test_a_dumped_dict_key_with_a_blocker_skips_the_model_too(tmp_path: Path) -> None:
    model = """
        from pydantic import BaseModel

        class Response(BaseModel):
            warnings: list[str] = []

        def build(order, note):
            return Response(warnings=["BLOCK: order is empty", note])
    """
    reader = """
        from app.model import build

        def show(order):
            data = build(order, "x").model_dump()
            return [w for w in data["warnings"] if w.startswith("BLOCK:")]
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/model.py": model, "app/show.py": reader}
    )
    result = diff_project(root)
    assert new_text(result, "app/model.py") is None
    assert new_text(result, "app/show.py") is None
    reasons = {s.reasons for s in _warning_sites(result, ".py") if s.action is Action.SKIP}
    assert reasons == {
        ("connected to app/model.py:7: value of unknown type `note` added to a warnings list",),
        ("cannot tell whether this is a string; left as it is",),
    }


def test_a_parameter_group_is_skipped_when_a_caller_passes_unknown_values(tmp_path: Path) -> None:
    lib = """
        def summarize(warnings: list[str]) -> str:
            return "; ".join(warnings)
    """
    caller = """
        from app.lib import summarize

        def tool(order, extra):
            warnings = ["BLOCK: order is empty"]
            warnings += extra
            return summarize(warnings)
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/lib.py": lib, "app/tool.py": caller}
    )
    result = diff_project(root)
    assert new_text(result, "app/lib.py") is None
    assert new_text(result, "app/tool.py") is None
    lib_sites = _warning_sites(result, "app/lib.py")
    assert lib_sites and {s.action for s in lib_sites} == {Action.SKIP}
    assert all(s.reasons[0].startswith("connected to app/tool.py:5:") for s in lib_sites)


# -- weak evidence must not connect (or create) groups ---------------------------------------


def test_extending_another_list_with_warnings_does_not_make_it_a_warnings_list(
    tmp_path: Path,
) -> None:
    helpers = """
        def merge(existing, warnings):
            existing.extend(warnings)
            return existing
    """
    cli = """
        def command(tool):
            command = ["claude"]
            command.extend(["--allowed-tools", tool])
            return command

        def check(order):
            warnings = ["BLOCK: order is empty"]
            return warnings
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/helpers.py": helpers, "app/cli.py": cli}
    )
    result = diff_project(root)
    text = new_text(result, "app/cli.py")
    assert text is not None
    assert 'command.extend(["--allowed-tools", tool])' in text
    assert "Warning(\n" in text or "Warning(" in text


def test_a_str_of_the_list_does_not_make_str_a_warning_helper(tmp_path: Path) -> None:
    source = """
        def check(order, warnings, dry_run):
            warnings = [str(warnings)]
            flag = str(dry_run).lower()
            return warnings, flag
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is None or "str(dry_run).lower()" in text
    assert ".message" not in (text or "")


def test_a_dict_key_test_is_not_a_read_of_warnings(tmp_path: Path) -> None:
    source = """
        def check(order):
            warnings = ["BLOCK: order is empty"]
            result = {"warnings": warnings}
            for warning in warnings:
                if "warnings" in warning:
                    pass
            return "warnings" in result
    """
    root = write_project(tmp_path, {"app.py": source})
    text = new_text(diff_project(root), "app.py")
    assert text is not None
    assert 'return "warnings" in result\n' in text
    assert '"warnings" in warning:' in text


# -- asyncio.gather: each unpacked name is its own helper's result ----------------------------

GATHER_CHECKS = """
    async def check_stock(order) -> str | None:
        if not order.lines:
            return "BLOCK: order has no lines"
        return None

    async def check_credit(order) -> str | None:
        if order.over_limit:
            return "Credit limit is close"
        return None
"""
GATHER_TOOL = """
    import asyncio

    from app.checks import check_credit, check_stock

    async def validate(order, warnings: list[str]) -> None:
        stock, credit = await asyncio.gather(check_stock(order), check_credit(order))
        if stock:
            warnings.append(stock)
        if credit:
            warnings.append(credit)
"""


def test_names_unpacked_from_gather_migrate_with_their_helpers(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"app/__init__.py": "", "app/checks.py": GATHER_CHECKS, "app/tool.py": GATHER_TOOL},
    )
    result = diff_project(root)
    checks = new_text(result, "app/checks.py")
    tool = new_text(result, "app/tool.py")
    assert checks is not None and tool is not None
    # The plain helper changes with the sentinel one: the list never holds both kinds.
    assert checks.count("-> Warning | None") == 2
    assert 'message="order has no lines"' in checks
    assert 'message="Credit limit is close"' in checks
    assert "warnings: list[Warning]" in tool
    assert Action.SKIP not in {s.action for s in _warning_sites(result, ".py")}


def test_a_gather_group_with_one_unknown_result_is_skipped_whole(tmp_path: Path) -> None:
    checks = GATHER_CHECKS.replace('return "Credit limit is close"', "return order.credit_note")
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/checks.py": checks, "app/tool.py": GATHER_TOOL}
    )
    result = diff_project(root)
    assert new_text(result, "app/checks.py") is None
    assert new_text(result, "app/tool.py") is None
    sites = _warning_sites(result, ".py")
    assert {s.rule for s in sites} >= {"UNS101", "UNS301"}
    assert {s.action for s in sites} == {Action.SKIP}
    blocker = "connected to app/checks.py:8: value of unknown type `order.credit_note`"
    (producer,) = [s for s in sites if s.rule == "UNS101"]
    assert producer.reasons[0].startswith(blocker)


GATHER_SLOTS = """
    import asyncio

    async def resolve(location_id) -> tuple[int, str | None]:
        if location_id is None:
            return 0, "BLOCK: no location given"
        return location_id, None

    async def reserve(quantity) -> tuple[int, str | None]:
        if quantity > 100:
            return 100, "Quantity capped at 100"
        return quantity, None

    async def move(request, warnings: list[str]) -> int:
        (location, where), (quantity, how_many) = await asyncio.gather(
            resolve(request.location_id), reserve(request.quantity)
        )
        if where:
            warnings.append(where)
        if how_many:
            warnings.append(how_many)
        return location + quantity
"""


def test_tuple_slots_unpacked_from_gather_migrate_with_their_helpers(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"app.py": GATHER_SLOTS})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert text.count("-> tuple[int, Warning | None]") == 2
    assert "return 0, Warning(" in text and "return 100, Warning(" in text
    assert "warnings: list[Warning]" in text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, "app.py")}


def test_a_gather_of_tuple_slots_with_one_unknown_slot_is_skipped_whole(tmp_path: Path) -> None:
    source = GATHER_SLOTS.replace(
        'return 100, "Quantity capped at 100"', "return 100, quantity.note"
    )
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    assert new_text(result, "app.py") is None
    sites = _warning_sites(result, "app.py")
    assert {s.rule for s in sites} >= {"UNS101", "UNS301"}
    assert {s.action for s in sites} == {Action.SKIP}
    (producer,) = [s for s in sites if s.rule == "UNS101"]
    assert producer.reasons == (
        "connected to app.py:10: value of unknown type `quantity.note` added to a warnings list",
    )


# -- precision: a name built up as one string is not a warnings list -------------------------

STRING_ACCUMULATOR = """
    import warnings

    unicode_warnings = ""

    def note(name):
        global unicode_warnings
        unicode_warnings += "No %s in the table\\n" % name

    def flush():
        global unicode_warnings
        if unicode_warnings:
            warnings.warn(unicode_warnings)
            unicode_warnings = ""

    def summary(count):
        report_warnings: str = f"{count} fonts missing"
        report_warnings += "; falling back to ASCII"
        return report_warnings
"""


def test_a_string_accumulator_named_like_a_list_is_left_alone(tmp_path: Path) -> None:
    """``x_warnings = ""`` then ``x_warnings += "..." % name``: a str, never a list -- no
    "value of unknown type" report, no rewrite."""
    root = write_project(tmp_path, {"app.py": STRING_ACCUMULATOR})
    result = diff_project(root)
    assert new_text(result, "app.py") is None
    assert _warning_sites(result, "app.py") == []


def test_a_string_accumulator_does_not_unblock_a_real_list_of_the_same_name(
    tmp_path: Path,
) -> None:
    """A list literal under the same name elsewhere is still a list, and still migrates."""
    source = STRING_ACCUMULATOR + textwrap.indent(
        textwrap.dedent(
            """
            def check(order):
                order_warnings = []
                if not order.lines:
                    order_warnings.append("Order has no lines")
                return order_warnings
            """
        ),
        "    ",
    )
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert appends_a_warning(text, "order_warnings")
    assert 'unicode_warnings += "No %s in the table\\n" % name' in text


def test_a_join_over_a_filtering_generator_reads_each_message_once(tmp_path: Path) -> None:
    """``"; ".join(w for w in warnings if w.startswith("No"))``: the element becomes its
    message and the filter is read as a message too -- never a generator nested in itself."""
    source = """
        def report(order) -> str:
            warnings = []
            if order.note is None:
                warnings.append("No note given")
            return "; ".join(w for w in warnings if w.startswith("No"))
    """
    root = write_project(tmp_path, {"app.py": source})
    text = new_text(diff_project(root), "app.py")
    assert text is not None
    assert '"; ".join(w.message for w in warnings if w.message.startswith("No"))' in text


def test_a_local_also_used_as_text_stays_text_and_is_wrapped_at_the_append(
    tmp_path: Path,
) -> None:
    """``msg = f"..."``; ``summary.warnings.append(msg)``; ``ctx.warning(msg)``: rewriting the
    assignment would hand a ``Warning`` to ``ctx.warning``, so the append wraps the local
    instead; a test of the local (``note is not None``) reads it either way."""
    source = """
        async def run(summary, ctx, merged):
            if len(merged) > 100:
                warning_msg = f"Large result set: {len(merged)} records returned."
                summary.warnings.append(warning_msg)
                await ctx.warning(warning_msg)

        def check(order):
            warnings = []
            note: str | None = None
            if not order.lines:
                note = "Order has no lines"
            if note is not None:
                warnings.append(note)
            return warnings
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert 'warning_msg = f"Large result set: {len(merged)} records returned."' in text
    assert appends_a_warning(text, "summary.warnings")
    assert "message=warning_msg," in text
    assert "await ctx.warning(warning_msg)" in text
    assert 'message="Order has no lines"' in text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, "app.py")}


def test_a_conditional_string_used_as_text_holds_its_group_back(tmp_path: Path) -> None:
    """``note = "a" if x else "b"``, appended and logged: both arms would become a
    ``Warning`` that ``log.info`` still takes as text, so the group stays as it is."""
    source = """
        def check(order, log):
            warnings = []
            note = "order is locked" if order.locked else "order is late"
            if order.flagged:
                warnings.append(note)
            log.info(note)
            return warnings
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    assert new_text(result, "app.py") is None
    held = [s for s in _warning_sites(result, "app.py") if s.action is Action.SKIP]
    assert held and all("is also used as text" in s.reasons[0] for s in held)


def test_a_keyword_or_an_attribute_of_the_same_name_is_no_use_as_text(tmp_path: Path) -> None:
    """``message = f"..."`` appended, then ``Response(message=summary)`` and
    ``result.message``: the keyword and the attribute are other names, not the local."""
    source = """
        def preview(request, result):
            warnings = []
            if request.count > 10:
                message = f"Only the first 10 of {request.count} rows are shown"
                warnings.append(message)
            return Response(warnings=warnings, message=result.message)
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    text = new_text(result, "app.py")
    assert text is not None
    assert appends_a_warning(text, "warnings") or "message = Warning(" in text
    assert [s for s in _warning_sites(result, "app.py") if s.action is Action.SKIP] == []


def test_a_flag_or_a_count_named_like_a_list_is_left_alone(tmp_path: Path) -> None:
    """``_ignored_warnings = True``, ``{"has_warnings": n > 0, "total_warnings": len(ws)}``:
    scalars, never a list -- nothing reported, nothing rewritten."""
    source = """
        import warnings

        _ignored_benign_warnings = False

        def ignore_benign_warnings() -> None:
            global _ignored_benign_warnings
            if _ignored_benign_warnings:
                return
            warnings.filterwarnings("ignore", "x", UserWarning)
            _ignored_benign_warnings = True

        def summary(steps, log_warnings):
            return {
                "has_warnings": len(log_warnings) > 0,
                "total_warnings": len(log_warnings),
                "steps": steps,
            }
    """
    root = write_project(tmp_path, {"app.py": source})
    result = diff_project(root)
    assert new_text(result, "app.py") is None
    assert _warning_sites(result, "app.py") == []


# -- a helper module that spells no needle still belongs to its group -------------------------

RESOLVE = """
    def resolve(cache, entity_id) -> tuple[str | None, str | None]:
        row = cache.get(entity_id)
        if row is None:
            note = f"{entity_id} was not found in the cache; the live API will check it"
            return None, note
        return row.name, None
"""
CREATE = """
    from app.resolve import resolve

    def create(cache, request) -> list[str]:
        warnings: list[str] = []
        if request.quantity < 1:
            warnings.append("BLOCK: quantity must be at least 1")
        name, note = resolve(cache, request.supplier_id)
        if note:
            warnings.append(note)
        return warnings
"""
READ_ONLY_TEST = """
    from app.resolve import resolve

    def test_miss():
        name, note = resolve({}, 9999)
        assert name is None
        assert "9999" in note
"""


def _resolve_project(root: Path, resolve: str = RESOLVE) -> Path:
    return write_project(
        root,
        {
            "app/__init__.py": "",
            "app/resolve.py": resolve,
            "app/create.py": CREATE,
            "tests/test_resolve.py": READ_ONLY_TEST,
        },
    )


def test_a_helper_module_with_no_needle_migrates_with_the_list_its_slot_feeds(
    tmp_path: Path,
) -> None:
    """Neither ``resolve.py`` nor the test spells a sentinel or a warnings list: the
    prefilter alone would stop both, and ``create`` would append a string to a list of
    ``Warning``. The facts name ``resolve``, so both reach the rules."""
    result = diff_project(_resolve_project(tmp_path))

    resolve_text = new_text(result, "app/resolve.py")
    assert resolve_text is not None
    assert "note = Warning(" in resolve_text
    assert "-> tuple[str | None, Warning | None]" in resolve_text
    create_text = new_text(result, "app/create.py")
    assert create_text is not None and "warnings: list[Warning] = []" in create_text
    test_text = new_text(result, "tests/test_resolve.py")
    assert test_text is not None and 'assert "9999" in note.message' in test_text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, ".py")}


def test_a_name_that_only_reads_a_slot_is_held_with_the_slots_producer(tmp_path: Path) -> None:
    """The producer is held (its local is also logged as text): the test that only reads
    the slot's value must stay as it is too, not read ``.message`` off a string."""
    logged = RESOLVE.replace(
        "            return None, note\n",
        '            print("lookup:", note)\n            return None, note\n',
    )
    result = diff_project(_resolve_project(tmp_path, logged))

    for name in ("app/resolve.py", "app/create.py", "tests/test_resolve.py"):
        assert new_text(result, name) is None, name
    reads = _warning_sites(result, "tests/test_resolve.py")
    assert [s.action for s in reads] == [Action.SKIP]
    assert reads[0].reasons == (
        "connected to app/resolve.py:5: `note` is also used as text on this line",
    )


SPLIT = """
    BLOCK_WARNING_PREFIX = "BLOCK:"

    def split_warnings(warnings: list[str]) -> tuple[list[str], list[str]]:
        blocks: list[str] = []
        regulars: list[str] = []
        for w in warnings:
            if w.startswith(BLOCK_WARNING_PREFIX):
                blocks.append(w[len(BLOCK_WARNING_PREFIX) :].strip())
            else:
                regulars.append(w)
        return blocks, regulars

    def render_warnings(warnings: list[str]) -> list[str]:
        block_warnings, regular_warnings = split_warnings(warnings)
        for w in block_warnings:
            print("[x]", w)
        return block_warnings
"""
PREVIEW = """
    from app.render import BLOCK_WARNING_PREFIX, render_warnings

    def preview(order) -> list[str]:
        warnings: list[str] = []
        if order.quantity < 1:
            warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be at least 1")
        return render_warnings(warnings)
"""


def test_a_slot_of_message_texts_is_no_warnings_list_whatever_its_callers_name_it(
    tmp_path: Path,
) -> None:
    """``blocks`` gathers the texts of blocking warnings (the prefix cut off): after the
    migration it holds ``w.message``. The caller's ``block_warnings`` looks like a warnings
    list by its name only: slot 0 is a text slot, and the annotations it reaches keep
    ``str``; ``regulars`` (slot 1) only ever collects warnings, and says so."""
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/render.py": SPLIT, "app/preview.py": PREVIEW}
    )
    result = diff_project(root)

    render = new_text(result, "app/render.py")
    preview = new_text(result, "app/preview.py")
    assert render is not None and preview is not None
    assert "blocks.append(w.message)" in render
    assert "-> tuple[list[str], list[Warning]]:" in render
    assert "    blocks: list[str] = []" in render
    assert "    regulars: list[Warning] = []" in render
    assert "def render_warnings(warnings: list[Warning]) -> list[str]:" in render
    assert "def preview(order) -> list[str]:" in preview
    assert "warnings: list[Warning] = []" in preview


# -- a local that is also used as text: the append builds the Warning from it ---------------

ATTACH = """
    def attach(request, created, failed):
        warnings: list[str] = []
        if failed and created:
            message = f"{len(created)} attached, {len(failed)} failed"
        else:
            message = f"no records returned for {request.resource_id}; re-fetch the list"
            warnings.append(message)
        if request.quantity < 1:
            warnings.append("BLOCK: quantity must be at least 1")
        return {"warnings": warnings, "message": message}
"""


def test_a_local_also_used_as_text_is_wrapped_where_it_is_appended(tmp_path: Path) -> None:
    result = diff_project(write_project(tmp_path, {"app.py": ATTACH}))
    text = new_text(result, "app.py")
    assert text is not None
    # The local stays text for the response's ``message``; the list gets a Warning of it,
    # inferred from the assignment that reaches the append (not the other branch's).
    assert 'message = f"no records returned for {request.resource_id}; re-fetch' in text
    assert "        warnings.append(\n            Warning(\n" in text
    assert "                message=message,\n" in text
    assert 'field_path="resource_id"' in text
    assert "code=warning_codes.NO_RECORDS_RETURNED" in text
    assert '"message": message}' in text
    assert Action.SKIP not in {s.action for s in _warning_sites(result, "app.py")}


def test_a_sentinel_local_also_used_as_text_still_holds_its_group(tmp_path: Path) -> None:
    """Wrapping cannot cut ``BLOCK:`` off the text the other use reads: held, as before."""
    marked = ATTACH.replace('f"no records', 'f"BLOCK: no records')
    result = diff_project(write_project(tmp_path, {"app.py": marked}))
    assert new_text(result, "app.py") is None
    held = _warning_sites(result, "app.py")
    assert held and {s.action for s in held} == {Action.SKIP}
    assert held[0].reasons == (
        "connected to app.py:10: `message` is also used as text on this line",
    )


# -- annotations follow the lists, whatever their names --------------------------------------

LIST_SLOTS = """
    def check(x) -> tuple[list[str], list[str]]:
        errors: list[str] = []
        warnings: list[str] = []
        if x < 1:
            warnings.append("BLOCK: x must be at least 1")
        return errors, warnings

    def split(warnings: list[str]) -> tuple[list[str], list[str]]:
        blocks: list[str] = []
        regulars: list[str] = []
        for w in warnings:
            if w.startswith("BLOCK:"):
                blocks.append(w)
            else:
                regulars.append(w)
        return blocks, regulars

    def texts(warnings: list[str]) -> list[str]:
        lines: list[str] = []
        for w in warnings:
            lines.append(w)
        lines.append("end of report")
        return lines
"""


def test_a_returned_list_slot_and_collecting_locals_say_warning(tmp_path: Path) -> None:
    """After the migration these lists hold ``Warning`` objects: a ``list[str]`` left on
    them fails the type check (the slot of ``return errors, warnings``; ``blocks`` and
    ``regulars``, which only ever collect warnings). ``lines`` also takes a string: it is a
    list of text, its annotation stays, and a warning goes in as its message."""
    result = diff_project(write_project(tmp_path, {"app.py": LIST_SLOTS}))
    text = new_text(result, "app.py")
    assert text is not None
    assert "def check(x) -> tuple[list[str], list[Warning]]:" in text
    assert "    errors: list[str] = []" in text
    assert "def split(warnings: list[Warning]) -> tuple[list[Warning], list[Warning]]:" in text
    assert "    blocks: list[Warning] = []" in text
    assert "    regulars: list[Warning] = []" in text
    assert "    lines: list[str] = []" in text
    assert "def texts(warnings: list[Warning]) -> list[str]:" in text
    assert "        lines.append(w.message)\n" in text


def test_a_list_collecting_dumped_warnings_says_dict(tmp_path: Path) -> None:
    source = """
        def split(resp: dict) -> tuple[list[str], list[str]]:
            blocks: list[str] = []
            regulars: list[str] = []
            for w in resp["warnings"]:
                if w.startswith("BLOCK:"):
                    blocks.append(w[len("BLOCK:"):].strip())
                else:
                    regulars.append(w)
            return blocks, regulars
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    assert "def split(resp: dict) -> tuple[list[str], list[dict[str, Any]]]:" in text
    assert "    blocks: list[str] = []" in text  # it collects message texts
    assert "    regulars: list[dict[str, Any]] = []" in text
    assert 'blocks.append(w["message"])' in text


def test_a_local_wrapped_at_the_append_keeps_its_str_annotation(tmp_path: Path) -> None:
    source = """
        def check(order, log, warnings: list[str]) -> None:
            note: str = f"order {order.id} is late"
            warnings.append(note)
            log.info(note)
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    assert 'note: str = f"order {order.id} is late"' in text  # still text for ``log.info``
    assert appends_a_warning(text, "warnings")


def test_a_substring_test_with_any_text_on_the_left_reads_the_message(tmp_path: Path) -> None:
    source = """
        def refused(result, terminal: str) -> bool:
            return any(w.startswith("BLOCK:") and terminal in w for w in result.warnings)
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    assert 'any(\n        w.severity == "blocking" and terminal in w.message for w in' in text


def test_a_local_annotated_str_that_receives_a_warning_slot_says_warning(tmp_path: Path) -> None:
    """``note: str | None = None`` then ``loc, note = resolve(...)``: the unpacking binds
    the local (no use as text), so its annotation follows the slot's warning."""
    caller = """
        from app.resolve import resolve

        def move(request, warnings: list[str]):
            note: str | None = None
            if request.location_id is not None:
                location, note = resolve(request.location_id)
            if note:
                warnings.append(note)
    """
    helper = """
        def resolve(location_id) -> tuple[int, str | None]:
            if location_id < 0:
                return 0, "BLOCK: no such location"
            return location_id, None
    """
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/resolve.py": helper, "app/move.py": caller}
    )
    text = new_text(diff_project(root), "app/move.py")
    assert text is not None
    assert "    note: Warning | None = None\n" in text


# -- library code keeps the text it was written for ----------------------------------------

SHOW = """
    from ui import Badge

    from app.widgets import Panel

    def show(warnings: list[str]) -> None:
        for w in warnings:
            Badge(label=w, variant="secondary")
            Panel(w)
"""
WIDGETS = """
    class Panel:
        def __init__(self, warning) -> None:
            self.warning = warning
"""


def test_a_warning_passed_to_library_code_goes_as_its_message(tmp_path: Path) -> None:
    """``Badge`` is imported from outside the repository: its ``label`` took the text and
    still does. ``Panel`` is a class of the repository (defined in another module): what
    it receives is ours to follow, so the warning goes to it whole."""
    root = write_project(
        tmp_path, {"app/__init__.py": "", "app/widgets.py": WIDGETS, "app/show.py": SHOW}
    )
    text = new_text(diff_project(root), "app/show.py")
    assert text is not None
    assert 'Badge(label=w.message, variant="secondary")' in text
    assert "Panel(w)\n" in text


def test_a_method_defined_nowhere_in_the_repository_is_library_code(tmp_path: Path) -> None:
    source = """
        import logging

        log = logging.getLogger(__name__)

        def report(warnings: list[str], store) -> None:
            for w in warnings:
                log.info(w)
                store.remember(w)
                store.seen.add(w)

        class Store:
            def remember(self, warning) -> None:
                self.last = warning
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    assert "log.info(w.message)" in text
    assert "store.remember(w)\n" in text  # ours: defined below
    assert "store.seen.add(w)\n" in text  # a container keeps the value as it is


# -- weak evidence does not spread: assertions and constructors ----------------------------

ASSERTING = """
    import unittest

    class CheckTest(unittest.TestCase):
        def test_check(self):
            cmd = run_check()
            self.assertEqual(["BLOCK: zero"], cmd.warnings)
"""
NUMBERS = """
    import unittest
    from decimal import Decimal

    def odd_values(values) -> list[str]:
        warnings = []
        for v in values:
            warnings.append(f"odd value {v}")
        return warnings

    class NumberTest(unittest.TestCase):
        def test_infinity(self):
            inf = Decimal("INF")
            self.assertEqual(ratio(inf), (inf, None))

        def test_text(self):
            r = Decimal("0.1")
            self.assertEqual(str(r), "0.1")
"""


def test_an_assertion_over_warnings_makes_no_other_assertion_a_warning_place(
    tmp_path: Path,
) -> None:
    """``self.assertEqual(cmd.warnings, [...])`` in one test compares; it does not make
    every value ever passed to ``assertEqual`` a warning: ``Decimal(...)`` in another test
    stays a number (it became a warning-returning helper, and ``str(r)`` -> ``r.message``)."""
    root = write_project(
        tmp_path,
        {"tests/test_checks.py": ASSERTING, "tests/test_numbers.py": NUMBERS},
    )
    text = new_text(diff_project(root), "tests/test_numbers.py")
    assert text is not None  # odd_values migrates
    assert 'self.assertEqual(str(r), "0.1")' in text
    assert 'inf = Decimal("INF")' in text


def test_a_constructor_handed_to_a_warnings_parameter_is_no_warning_helper(
    tmp_path: Path,
) -> None:
    """``report([Decimal("1")])``: a class builds an instance of itself, never a warning
    string. ``Decimal`` does not become a helper returning warnings (then every
    ``str(Decimal(...))`` would read ``.message``); the value is of unknown type."""
    source = """
        from decimal import Decimal

        def report(warnings: list[str]) -> str:
            return "; ".join(warnings)

        def total() -> str:
            report([Decimal("1")])
            x = Decimal("2")
            return str(x)
    """
    result = diff_project(write_project(tmp_path, {"app.py": source}))
    text = new_text(result, "app.py")
    assert text is None or "return str(x)" in text


def test_a_slot_of_dumped_warnings_is_read_by_key_by_its_callers(tmp_path: Path) -> None:
    """``regulars`` collects dumped warnings (the callers pass ``data["warnings"]``), so
    the caller's ``regular_warnings`` unpacked from slot 1 holds dicts: its items are read
    by key (``w["message"]``), never as objects (``w.message`` raises on a dict)."""
    render = SPLIT.replace(
        """        for w in block_warnings:
            print("[x]", w)
""",
        """        for w in block_warnings:
            Badge(label=w, variant="destructive")
        for w in regular_warnings:
            Badge(label=w, variant="secondary")
""",
    ).replace(
        'BLOCK_WARNING_PREFIX = "BLOCK:"',
        'from ui import Badge\n\n    BLOCK_WARNING_PREFIX = "BLOCK:"',
    )
    show = """
        from app.render import render_warnings

        def show(data: dict) -> list[str]:
            return render_warnings(data["warnings"])
    """
    root = write_project(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/render.py": render,
            "app/preview.py": PREVIEW,
            "app/show.py": show,
        },
    )
    text = new_text(diff_project(root), "app/render.py")
    assert text is not None
    # The loop over dicts takes a name of its own: ``w`` is a text in the loop before it.
    assert 'Badge(label=regular_warning["message"], variant="secondary")' in text
    assert 'Badge(label=w, variant="destructive")' in text  # texts already


def test_a_local_bound_to_a_held_helpers_result_is_held_with_it() -> None:
    """``d = note(x)`` holds what ``note`` returns. Where the gather pass never linked the
    two (it stops after a fixed number of rounds; a long chain of helpers learnt late), the
    read ``f"{d}"`` must still meet ``note``'s blocker and stay as it is: rewritten to
    ``d.message``, it would read a string's attribute."""
    from unsentinel.core.config import Config
    from unsentinel.core.defined import DefinedNames
    from unsentinel.core.facts import FactBook
    from unsentinel.registry import rewrite_source
    from unsentinel.warnings.facts import WarningFacts, WarningShape
    from unsentinel.warnings.graph import Blocker, ReturnCarrier

    held = Blocker("helpers.py", 3, "value of unknown type `x`", ReturnCarrier("note"))
    facts = FactBook().with_entries(
        [
            DefinedNames(functions=frozenset({"note"})),  # the repository defines ``note``
            WarningFacts(
                returning=frozenset({"note"}),
                return_shapes={"note": WarningShape.ITEM},
                blocked={ReturnCarrier("note"): held},
            ),
        ]
    )
    source = textwrap.dedent(
        """
        def show(paths):
            d = note(1)
            print(f"{d}")
            for path in paths:
                path = note(path)
                print(f"{path}")
        """
    )
    new, sites = rewrite_source(source, Config(), facts)
    assert new == source
    assert {s.action for s in sites if s.rule == "UNS201"} == {Action.SKIP}


def test_a_text_method_is_no_helper_returning_warnings(tmp_path: Path) -> None:
    """``warnings = stderr.splitlines()``: the lines of a text are strings of unknown
    kind, so the group is held. Recorded as a helper returning warnings, ``splitlines``
    made its own call a known warning (the group never blocked), and every
    ``x.splitlines()`` of the repository a list of warnings."""
    source = """
        BLOCK_WARNING_PREFIX = "BLOCK:"

        def run(stderr: str) -> list[str]:
            warnings = stderr.splitlines()
            if not stderr:
                warnings.append(f"{BLOCK_WARNING_PREFIX} nothing ran")
            return warnings

        def count(text: str) -> int:
            lines = text.splitlines()
            return len([line for line in lines if line.startswith("BLOCK:")])
    """
    result = diff_project(write_project(tmp_path, {"app.py": source}))
    assert new_text(result, "app.py") is None
    sites = _warning_sites(result, "app.py")
    assert sites and {s.action for s in sites} == {Action.SKIP}


def test_the_warnings_module_is_no_warnings_list(tmp_path: Path) -> None:
    """``import warnings`` beside a real warnings list: ``hasattr(warnings, ...)`` passes
    the module, not warnings, and ``c_warnings = load("warnings")`` loads the module (test
    suites keep a C and a Python copy). Read as lists, they made ``hasattr``'s parameter a
    place for warnings and ``load`` a helper returning them, so every module ``load``
    returned elsewhere joined the group. The real list still migrates."""
    source = """
        import warnings

        from support import load

        BLOCK_WARNING_PREFIX = "BLOCK:"
        c_warnings = load("warnings")
        json_module = load("json")

        def check(quantity: int) -> list[str]:
            order_warnings: list[str] = []
            if quantity <= 0:
                order_warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            if not hasattr(warnings, "filters"):
                warnings.warn("no filters")
            return order_warnings

        def describe(value: object) -> bool:
            return hasattr(value, "name") and c_warnings is not None
    """
    support = """
        import importlib

        def load(name: str) -> object:
            return importlib.import_module(name)
    """
    result = diff_project(write_project(tmp_path, {"app.py": source, "support.py": support}))
    facts = result.facts.get(WarningFacts)
    assert "load" not in facts.returning
    assert not {slot for slot in facts.params if slot.function == "hasattr"}
    text = new_text(result, "app.py")
    assert text is not None and 'severity="blocking"' in text
    assert 'hasattr(warnings, "filters")' in text


def test_a_constructors_parameters_are_the_classs(tmp_path: Path) -> None:
    """``Report("order", warnings)`` fills ``Report.__init__``'s ``notes`` (its callers pass
    no ``self``): that parameter takes warnings and says so. Keyed by ``__init__``, the
    facts of every constructor of the repository were one: the call never reached
    ``notes`` (a ``list[Warning]`` handed to ``list[str]``), while a value passed to any
    other constructor could hold them all. ``Journal``'s ``notes`` keeps its text."""
    source = """
        BLOCK_WARNING_PREFIX = "BLOCK:"


        class Report:
            def __init__(self, title: str, notes: list[str]) -> None:
                self.title = title
                self.count = len(notes)


        class Journal:
            def __init__(self, title: str, notes: list[str]) -> None:
                self.title = title
                self.entries = notes


        def build(quantity: int) -> Report:
            warnings: list[str] = []
            if quantity <= 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            return Report("order", warnings)


        def diary() -> Journal:
            return Journal("diary", ["went for a walk"])
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    report, journal = text.split("class Journal")
    assert "def __init__(self, title: str, notes: list[Warning]) -> None:" in report
    assert "def __init__(self, title: str, notes: list[str]) -> None:" in journal


def test_warnings_stored_in_a_field_not_followed_hold_their_group(tmp_path: Path) -> None:
    """``self.lines = warnings``: only fields named like a warnings list are followed, so
    ``"\\n".join(self.lines)`` would join ``Warning`` objects after the migration (a
    ``TypeError`` at run time). The group stays as it is, and says where it was stored."""
    source = """
        BLOCK_WARNING_PREFIX = "BLOCK:"


        class Report:
            def __init__(self, warnings: list[str]) -> None:
                self.lines = warnings

            def render(self) -> str:
                return "\\n".join(self.lines)


        def build(quantity: int) -> Report:
            warnings: list[str] = []
            if quantity <= 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            return Report(warnings)
    """
    result = diff_project(write_project(tmp_path, {"app.py": source}))
    assert new_text(result, "app.py") is None
    sites = _warning_sites(result, "app.py")
    assert sites and {s.action for s in sites} == {Action.SKIP}
    assert any("stored in `self.lines`" in " ".join(s.reasons) for s in sites)


def test_a_dunder_is_no_helper_returning_warnings(tmp_path: Path) -> None:
    """``self.warnings = self.manager.__enter__()``: every context manager of the tree has
    an ``__enter__``; recorded as a helper returning warnings, each ``return self`` of one
    became a warning (in files the prefilter never reads, so ``check`` without the
    prefilter disagreed with ``check``)."""
    manager = """
        class Capture:
            def start(self) -> None:
                self.warnings = self.manager.__enter__()
    """
    session = """
        class Session:
            def __enter__(self) -> "Session":
                return self
    """
    result = diff_project(write_project(tmp_path, {"capture.py": manager, "session.py": session}))
    assert "__enter__" not in result.facts.get(WarningFacts).returning
    assert _sites(result, "session.py") == []


def test_a_methods_callers_fill_its_parameters_after_self(tmp_path: Path) -> None:
    """``Printer().render(warnings)`` fills ``render(self, items)``'s ``items``: callers
    pass no ``self``. Counted with ``self``, the call reached no parameter, so ``items``
    kept ``list[str]`` and ``", ".join(items)`` joined ``Warning`` objects (a ``TypeError``
    after apply). A static method's callers fill its first parameter."""
    source = """
        BLOCK_WARNING_PREFIX = "BLOCK:"


        class Printer:
            def render(self, items: list[str]) -> str:
                return ", ".join(items)

            @staticmethod
            def tally(lines: list[str], extra: list[str]) -> int:
                return len(lines)


        def build(quantity: int) -> str:
            warnings: list[str] = []
            if quantity <= 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            Printer.tally(warnings, ["a note"])
            return Printer().render(warnings)
    """
    text = new_text(diff_project(write_project(tmp_path, {"app.py": source})), "app.py")
    assert text is not None
    assert "def render(self, items: list[Warning]) -> str:" in text
    assert 'return ", ".join(w.message for w in items)' in text
    assert "def tally(lines: list[Warning], extra: list[str]) -> int:" in text


def test_a_name_for_errors_and_warnings_is_no_warnings_list(tmp_path: Path) -> None:
    """``errors_warnings = validate(config)`` names the pair a validator returns. Read as
    a warnings list, it made ``validate`` a helper returning a list of warnings, and its
    annotation ``tuple[list[str], list[str]]`` became ``tuple[list[Warning],
    list[Warning]]``: the errors slot too, which stays a list of strings."""
    checks = """
        BLOCK_WARNING_PREFIX = "BLOCK:"

        def validate(config: dict) -> tuple[list[str], list[str]]:
            errors: list[str] = []
            warnings: list[str] = []
            if "name" not in config:
                warnings.append(f"{BLOCK_WARNING_PREFIX} no name")
            return errors, warnings

        def report(config: dict) -> str:
            errors, warnings = validate(config)
            return "\\n".join(w for w in warnings if w.startswith(BLOCK_WARNING_PREFIX))
    """
    test = """
        from checks import validate

        def test_validate():
            errors_warnings = validate({"name": "x"})
            assert errors_warnings == ([], [])
            errors_and_warnings = validate({})
            assert len(errors_and_warnings) == 2
    """
    result = diff_project(write_project(tmp_path, {"checks.py": checks, "test_checks.py": test}))
    assert "validate" not in result.facts.get(WarningFacts).returning
    text = new_text(result, "checks.py")
    assert text is not None
    assert "-> tuple[list[str], list[Warning]]:" in text
    assert new_text(result, "test_checks.py") is None


def test_a_library_functions_result_is_no_project_helpers(tmp_path: Path) -> None:
    """``return os.path.abspath(value)`` in a helper whose result lands in a warnings list:
    ``abspath`` is library code (the repository defines no such function), so what it
    returns is no place of the flow. Recorded as a helper returning warnings, it made
    ``path = os.path.abspath(path)`` in every module a warning (``f"{path}"`` a consumer
    held with the group, or rewritten with it)."""
    options = """
        import os

        def resolve(value: str) -> str:
            return os.path.abspath(value)

        def collect(paths: list[str]) -> list[str]:
            warnings: list[str] = []
            for path in paths:
                warnings.append(resolve(path))
            return warnings
    """
    watcher = """
        import os

        def watch(path: str) -> None:
            path = os.path.abspath(path)
            print(f"watching {path}")
    """
    root = write_project(tmp_path, {"options.py": options, "watcher.py": watcher})
    config = load_config((root,))
    for screen in (True, False):  # with and without the prefilter: the same findings
        result = run([root], config, Mode.CHECK, jobs=1, screen=screen)
        facts = result.facts.get(WarningFacts)
        assert "resolve" in facts.returning
        assert "abspath" not in facts.returning
        assert _sites(result, "watcher.py") == []


def test_a_list_grown_under_a_key_holds_its_readers(tmp_path: Path) -> None:
    """``response["warnings"].append("WARNING: ...")``: no producer rewrite follows a list
    under a key, so a test reading ``result["warnings"]`` (and a literal ``"warnings":
    ["Existing warning"]`` it passes in) must stay as it is. Rewritten to dumped warnings,
    it broke awslabs-ecs-mcp-server's own test (the ecosystem's ``tests`` invariant)."""
    security = """
        def add_public_endpoint_warning(response: dict) -> dict:
            if "alb_url" in response:
                response["warnings"] = response.get("warnings", [])
                response["warnings"].append("WARNING: this URL is publicly accessible.")
            return response
    """
    test = """
        from security import add_public_endpoint_warning

        def test_warning_added():
            data = {"alb_url": "http://x", "warnings": ["Existing warning"]}
            result = add_public_endpoint_warning(data)
            assert "Existing warning" in result["warnings"]
            assert any("publicly" in w for w in result["warnings"])
    """
    result = diff_project(
        write_project(tmp_path, {"security.py": security, "test_security.py": test})
    )
    assert new_text(result, "test_security.py") is None
    assert new_text(result, "security.py") is None
    held = _warning_sites(result, "test_security.py")
    assert held and {s.action for s in held} == {Action.SKIP}
    dumped = "test_security.py:4 passes it entries written as dumped dicts"
    assert any(dumped in reason for reason in held[0].reasons)


def test_a_list_grown_under_a_key_migrates_with_its_group(tmp_path: Path) -> None:
    """``view["warnings"].append(f"...")`` on a view whose ``"warnings"`` list a helper built
    and a model takes (``Response(**view)``): the list holds objects only, so the append is a
    producer like any other. Held as a whole, it kept katana-mcp-server's whole warnings
    migration back (one append in a 2,000-line module). A test's dumped stand-in passed to
    a UI builder is another dict: it does not meet the append, and holds nothing."""
    items = """
        from pydantic import BaseModel

        class Response(BaseModel):
            name: str
            warnings: list[str] = []

        def build_view(name: str) -> dict:
            warnings: list[str] = []
            if not name:
                warnings.append("No name given")
            return {"name": name, "warnings": warnings}

        def set_price(view: dict, price: float) -> bool:
            try:
                return price > 0
            except ValueError as exc:
                view["warnings"].append(f"Price {price} was not confirmed: {exc}")
                return False

        def create(name: str, price: float) -> Response:
            view = build_view(name)
            set_price(view, price)
            return Response(**view)
    """
    render_test = """
        from ui import render

        def test_render_shows_a_block():
            html = render({"name": "x", "warnings": ["BLOCK: a customer exists"]})
            assert "exists" in html
    """
    render = """
        def render(response: dict) -> str:
            return "".join(w["message"] for w in response["warnings"])
    """
    files = {"items.py": items, "ui.py": render, "test_ui.py": render_test}
    result = diff_project(write_project(tmp_path, files))
    new = new_text(result, "items.py")
    assert new is not None
    assert appends_a_warning(new, 'view["warnings"]')
    assert 'message=f"Price {price} was not confirmed: {exc}"' in new
    assert "warnings: list[Warning] = []" in new
    assert {s.action for s in _warning_sites(result, "items.py")} <= {Action.REWRITE, Action.REVIEW}


def test_a_list_extended_under_a_key_with_plus_equals_is_a_producer(tmp_path: Path) -> None:
    """``result["warnings"] += ["..."]`` grows the list under the key as ``.extend([...])``
    does: its strings are warnings like any appended to it (poetry's ``check`` builds its
    report so; before, the site was not found at all)."""
    check = """
        def check(locked: bool) -> dict[str, list[str]]:
            result: dict[str, list[str]] = {"errors": [], "warnings": []}
            if not locked:
                result["warnings"] += ["poetry.lock was not found."]
            result["warnings"].append("Lock file is old.")
            return result
    """
    result = diff_project(write_project(tmp_path, {"check.py": check}))
    new = new_text(result, "check.py")
    assert new is not None
    assert 'result["warnings"] += [\n            Warning(' in new  # the list breaks around it
    assert 'message="poetry.lock was not found."' in new
    assert len(_warning_sites(result, "check.py")) == 2


def test_a_list_extended_under_a_key_meets_a_tests_stand_in(tmp_path: Path) -> None:
    """A ``+=`` under a key records its objects as ``.append`` does: where a test passes the
    same key's entries as dumped dicts, the group is held as a whole."""
    security = """
        def add_public_endpoint_warning(response: dict) -> dict:
            if "alb_url" in response:
                response["warnings"] = response.get("warnings", [])
                response["warnings"] += ["WARNING: this URL is publicly accessible."]
            return response
    """
    test = """
        from security import add_public_endpoint_warning

        def test_warning_added():
            data = {"alb_url": "http://x", "warnings": ["Existing warning"]}
            result = add_public_endpoint_warning(data)
            assert "Existing warning" in result["warnings"]
    """
    result = diff_project(
        write_project(tmp_path, {"security.py": security, "test_security.py": test})
    )
    assert new_text(result, "security.py") is None
    held = _warning_sites(result, "security.py")
    assert held and {s.action for s in held} == {Action.SKIP}


def test_a_builtin_called_by_name_is_no_helper_whatever_method_shares_its_name(
    tmp_path: Path,
) -> None:
    """``type(w)`` is Python's own function in a module that binds no ``type``: a method
    ``type`` elsewhere in the repository does not make every value passed to ``type()``
    one place of the flow (seen in the standard library: an unknown value given to
    ``issubclass`` in one test held the warnings of every module calling it)."""
    fields = """
        class Field:
            def type(self):
                return "text"
    """
    app = """
        BLOCK_WARNING_PREFIX = "BLOCK:"

        def check(quantity: int) -> list[str]:
            warnings: list[str] = []
            if quantity <= 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            assert type(warnings) is list
            return warnings
    """
    other = """
        def collect(module):
            warnings = []
            warnings.append(module)
            return type(warnings)
    """
    files = {"fields.py": fields, "app.py": app, "other.py": other}
    result = diff_project(write_project(tmp_path, files))
    facts = result.facts.get(WarningFacts)
    assert not {slot for slot in facts.params if slot.function == "type"}
    text = new_text(result, "app.py")
    assert text is not None and 'severity="blocking"' in text


def test_a_builtin_the_module_defines_itself_is_its_own_function(tmp_path: Path) -> None:
    """Where the module binds the name (``def format(...)``), the call is that function's."""
    app = """
        BLOCK_WARNING_PREFIX = "BLOCK:"

        def format(warnings):
            return "; ".join(warnings)

        def check(quantity: int) -> str:
            warnings: list[str] = []
            if quantity <= 0:
                warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive")
            return format(warnings)
    """
    result = diff_project(write_project(tmp_path, {"app.py": app}))
    facts = result.facts.get(WarningFacts)
    assert {slot for slot in facts.params if slot.function == "format"}


def test_none_in_a_class_body_is_no_field_of_the_flow(tmp_path: Path) -> None:
    """``warnings = None`` then ``x.warnings = module`` holds the ``warnings`` field; it
    must not hold a field called ``None`` (which every module spells)."""
    source = """
        class Recorder:
            warnings = None
            other = None

        def install(recorder, module):
            recorder.warnings = module
    """
    result = diff_project(write_project(tmp_path, {"app.py": source}))
    facts = result.facts.get(WarningFacts)
    assert not {c for c in facts.blocked if getattr(c, "name", "") == "None"}
    assert not {c for link in facts.links for c in (link.first, link.second) if "None" in repr(c)}


HELD_HELPER = """
def _locate(tokens: list[str]) -> list[str]:
    messages = []
    for token in tokens:
        messages.append(f"{token} NOT FOUND on this instance")
    return messages


def fetch(tokens: list[str]) -> dict[str, object]:
    warnings: list[str] = []
    if tokens:
        warnings.extend(_locate(tokens))
    return {"success": True, "warnings": warnings}
"""

READS_THE_HELD_HELPER = """
from pkg.tools import _locate


def test_locate():
    messages = _locate(["ghost"])
    absent = [m for m in messages if "NOT FOUND" in m]
    assert "ghost" in absent[0]
"""


def test_the_prefilter_lets_through_a_test_of_a_held_helper(tmp_path: Path) -> None:
    """The helper's group is held (a value of unknown type reaches the list), so nothing of
    it changes; ``check`` still reports the test's consumers as left as they are, and the
    prefilter must not hide that file, which spells no needle, only the helper's name."""
    root = write_project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tools.py": HELD_HELPER,
            "tests/test_tools.py": READS_THE_HELD_HELPER,
        },
    )
    config = load_config((root,))
    screened = run([root], config, Mode.CHECK, jobs=1)
    whole = run([root], config, Mode.CHECK, jobs=1, screen=False)

    def sites(result: RunResult) -> list[tuple[str, int, str]]:
        return sorted(
            (Path(r.path).name, s.position.line, s.rule) for r in result.results for s in r.sites
        )

    assert ("test_tools.py", 6, "UNS201") in sites(whole)
    assert sites(screened) == sites(whole)


def test_a_list_whose_append_is_handed_to_other_code_stays(tmp_path: Path) -> None:
    """``monkeypatch.setattr(log, "warning", warnings.append)`` fills ``warnings`` with
    whatever the patched code logs (format strings): nothing produces ``Warning`` objects
    into it, so reading ``warnings[0].message`` broke the test. The list's group stays."""
    app = """
        import logging

        logger = logging.getLogger(__name__)

        def check_version(current: str, latest: str) -> None:
            if current != latest:
                logger.warning("a newer version is out (current: %s)", current)
    """
    test = """
        import app

        def test_update_check(monkeypatch):
            warnings = []
            monkeypatch.setattr(app.logger, "warning", warnings.append)
            app.check_version("1.0", "2.0")
            assert warnings
            assert "current" in warnings[0]
    """
    result = diff_project(write_project(tmp_path, {"app.py": app, "test_app.py": test}))
    assert new_text(result, "test_app.py") is None
    held = _warning_sites(result, "test_app.py")
    assert held and {s.action for s in held} == {Action.SKIP}
    assert any("`warnings.append` is handed to other code" in r for r in held[0].reasons)


FILLS_A_RESULT = """
def fix_ids(schema, result):
    if schema.get("fixed"):
        result["warnings"].append("Fixed the operation ids")


def generate(schema):
    result = {"warnings": [], "schema": schema}
    fix_ids(schema, result)
    return result
"""

READS_THE_FILLED_RESULT = """
from pkg.schema import fix_ids


def test_fixing_warns():
    result = {"warnings": []}
    fix_ids({"fixed": True}, result)
    assert "Fixed the operation ids" in result["warnings"]
"""


def test_a_dict_built_with_an_empty_list_holds_the_warnings_its_helper_appends(
    tmp_path: Path,
) -> None:
    """``result = {"warnings": []}`` handed to a helper that appends: the list holds the
    helper's ``Warning`` objects, not a dumped response's dicts, so the test reads
    ``w.message`` (awslabs-cdk-mcp-server: ``w["message"]`` of a model, a TypeError)."""
    root = write_package_project(
        tmp_path, {"pkg/schema.py": FILLS_A_RESULT, "tests/test_schema.py": READS_THE_FILLED_RESULT}
    )
    result = diff_project(root)
    test = new_text(result, "test_schema.py")
    assert test is not None
    assert '[w.message for w in result["warnings"]]' in test
    apply_and_run_tests(root, result)
