"""Field paths through reads of an input's contents, and guards that only pick wording.

A loop over ``payload.get("requires", [])`` or ``entrypoints.items()`` walks the input
itself; an ``if``/``else`` that appends either way (``if acknowledged: ... else: ...``)
says how the warning reads, not which input is at fault (issue 13, item 3); nor does a
test that compares an input with a case the message does not say.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from unsentinel import Mode, load_config, run

SOURCE = """
def check_requires(payload: dict) -> list[str]:
    warnings = []
    for req in payload.get("requires", []):
        if not req:
            warnings.append(f"empty requirement {req!r}")
    for i, extra in enumerate(payload.get("extras", [])):
        if " " in extra:
            warnings.append(f"blank in extra {extra!r}")
    return warnings


def check_entrypoints(entrypoints: dict, limit: int) -> list[str]:
    warnings = []
    for group, entries in entrypoints.items():
        for key, value in entries.items():
            if ":" not in value:
                warnings.append(f"bad entry point in {group}: {key} = {value}")
    return warnings


def check_fields(fields: dict | None, limit: int) -> list[str]:
    warnings = []
    for key, value in (fields or {}).items():
        if len(value) > limit:
            warnings.append(f"value of {key} too long")
    return warnings


def check_quantity(quantity: int, acknowledged: bool) -> list[str]:
    warnings = []
    if quantity > 100:
        if acknowledged:
            warnings.append("accepted (acknowledged): the quantity is unusual")
        else:
            warnings.append("refused: the quantity is unusual")
    if not acknowledged:
        warnings.append("noted: acknowledged is off")
    return warnings


def check_tool(tool_path: str | None, fallback: str) -> list[str]:
    warnings = []
    if not tool_path:
        warnings.append("missing: tool_path is required")
    else:
        if not exists(tool_path):
            warnings.append(f"absent: {fallback} is used instead")
    return warnings


def check_cluster(kind: str, status: str, batch_size: int) -> list[str]:
    warnings = []
    if kind == "post-broker-timeout":
        warnings.append("authentication failed: IAM or SASL issues")
    if status == Status.PARTIALLY_RECEIVED.value or status in ("held", "late"):
        warnings.append("replayed rows are received first")
    if kind == "msk" and not batch_size:
        warnings.append("unset: the cluster cannot start")
    if kind == "freight":
        warnings.append("freight pickups need a dock appointment")
    return warnings
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[object, object]]:
    """First word of the message -> (field path, its confidence) as the plan infers them."""
    root = tmp_path_factory.mktemp("iterated")
    (root / "pyproject.toml").write_text('[tool.unsentinel]\nwarning-list-names = ["warnings"]\n')
    (root / "m.py").write_text(SOURCE)
    from unsentinel.output.plan import plan_document

    result = run([root], load_config((root,)), Mode.PLAN)
    lines = SOURCE.splitlines()
    found: dict[str, tuple[object, object]] = {}
    for site in plan_document(result.results)["sites"]:
        if site["kind"] == "producer":
            line = lines[int(str(site["line"])) - 1]
            text = line.split('"', 1)[1]
            confidence = site["confidence"]
            assert isinstance(confidence, dict)
            found[text.split(" ")[0]] = (site["field_path"], confidence["field_path"])
    return found


def test_a_loop_over_a_key_read_with_get_walks_that_field(
    sites: dict[str, tuple[object, object]],
) -> None:
    """``payload.get("requires", [])`` is the field ``requires``; the loop has no index, so
    the rewrite gives it one (``enumerate``; ``i`` is taken in the module) and the path
    points at the item, flagged low."""
    assert sites["empty"] == ("requires[{index}]", "low")


def test_the_one_input_read_by_key_is_a_mapping_of_fields(
    tmp_path: Path,
) -> None:
    """``validate(metadata)`` reading ``metadata.get("requires_dist")``: the fields are the
    mapping's keys (``requires_dist[{i}]``). Beside another input the parameter's name
    says which mapping, and stays (``options.forward``)."""
    source = """
def validate(metadata: dict) -> list[str]:
    problems = []
    for req in metadata.get("requires_dist", []):
        if " " in req:
            problems.append(f"Could not parse requirement: {req!r}")
    return problems


def check(criteria: dict, options: dict) -> list[str]:
    problems = []
    if options.get("forward") and not criteria:
        problems.append(f"Forward target {options.get('forward')!r} is ignored")
    return problems
"""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.unsentinel]\nwarning-list-names = ["problems"]\n', encoding="utf-8"
    )
    (tmp_path / "app.py").write_text(source, encoding="utf-8")
    result = run([tmp_path], load_config((tmp_path,)), Mode.PLAN, jobs=1)
    paths = {
        site.position.line: site.field_path.value
        for file in result.results
        for site in file.sites
        if site.field_path is not None
    }
    assert paths[6] == "requires_dist[{i}]"
    assert paths[13] == "options.forward"


def test_an_enumerated_key_read_points_at_the_item(
    sites: dict[str, tuple[object, object]],
) -> None:
    assert sites["blank"][0] == "extras[{i}]"


def test_a_loop_over_items_walks_the_mapping(sites: dict[str, tuple[object, object]]) -> None:
    """``entrypoints.items()``, then ``entries.items()`` of each value: both names of
    each entry stand for the input mapping, which has no index to point at one entry."""
    assert sites["bad"] == ("entrypoints", "low")


def test_a_loop_over_an_optional_mapping_with_a_default_walks_it(
    sites: dict[str, tuple[object, object]],
) -> None:
    """``(fields or {}).items()``: the default is empty, the entries are ``fields``'."""
    assert sites["value"][0] == "fields"


def test_an_if_else_that_appends_either_way_is_no_guarding_signal(
    sites: dict[str, tuple[object, object]],
) -> None:
    """``if acknowledged:`` only picks the wording: the message naming ``acknowledged``
    is no longer confirmed by a guard, and the outer test (``quantity > 100``) guards
    both arms. "accepted (acknowledged): the quantity is unusual" says the quantity the
    condition tests, so that wins over the mode flag in parentheses -- low, never high;
    the ``else`` arm names ``quantity`` outright."""
    assert sites["accepted"] == ("quantity", "low")
    assert sites["refused:"] == ("quantity", "high")


def test_a_one_armed_if_still_guards(sites: dict[str, tuple[object, object]]) -> None:
    assert sites["noted:"] == ("acknowledged", "high")


def test_an_else_that_appends_only_under_its_own_test_keeps_the_guard(
    sites: dict[str, tuple[object, object]],
) -> None:
    """``if not tool_path: ... else: if not exists(tool_path): ...``: two situations, and
    ``not tool_path`` still guards the first."""
    assert sites["missing:"] == ("tool_path", "high")


def test_a_comparison_with_a_case_only_picks_the_situation(
    sites: dict[str, tuple[object, object]],
) -> None:
    """``kind == "post-broker-timeout"`` and ``status == Status.X.value`` say which
    situation the code is in; the message names neither input nor the case: no field is
    at fault (low, for review)."""
    assert sites["authentication"] == (None, "low")
    assert sites["replayed"] == (None, "low")


def test_a_case_the_message_says_is_what_the_warning_is_about(
    sites: dict[str, tuple[object, object]],
) -> None:
    assert sites["freight"] == ("kind", "low")


def test_an_input_the_condition_also_tests_for_validity_still_guards(
    sites: dict[str, tuple[object, object]],
) -> None:
    assert sites["unset:"] == ("batch_size", "low")


WALKED_DATA = """
def check_values(data, kind):
    warnings = []
    for value in data:
        if value == "":
            warnings.append("empty value")
    return warnings


def check_request(data, kind):
    warnings = []
    if not data.name:
        warnings.append("name missing")
    return warnings
"""


def test_a_parameter_named_like_a_request_but_walked_is_a_list_of_inputs(
    tmp_path: Path,
) -> None:
    """``data`` names a request's fields (``data.name``) as often as a list: walked item by
    item (``for value in data:``) it is the list, and the value tested is ``data[{i}]``.
    Before, the loop walked no input (a request is no list) and the path was none."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.unsentinel]\nwarning-list-names = ["warnings"]\n'
    )
    (tmp_path / "m.py").write_text(WALKED_DATA)
    from unsentinel.output.plan import plan_document

    result = run([tmp_path], load_config((tmp_path,)), Mode.PLAN)
    paths = {
        site["code"]: site["field_path"]
        for site in plan_document(result.results)["sites"]
        if site["kind"] == "producer"
    }
    assert paths == {"VALUE_EMPTY": "data[{i}]", "NAME_MISSING": "name"}
