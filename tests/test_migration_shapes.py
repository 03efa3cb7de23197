"""Migration shapes one at a time: each consumer, annotation and flow form on its own.

Cases that must change are pinned as readable snapshots (``before`` and ``after`` in one
file per case, reviewed like code) and must be fixed points; cases that must *not* change
are asserted byte for byte.
"""

from __future__ import annotations

import textwrap

import pytest
from syrupy.assertion import SnapshotAssertion

from unsentinel.registry import rewrite_source

CHANGES = {
    "gate with any() and a negated filter": """
        def build(resp):
            blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in resp.warnings)
            other = [w for w in resp.warnings if not w.startswith(BLOCK_WARNING_PREFIX)]
            return blocked, other
        """,
    "membership test and display on both arms": """
        def show(warnings):
            for w in warnings:
                text = w.removeprefix(BLOCK_WARNING_PREFIX).lstrip() if BLOCK_WARNING_PREFIX in w else w
                print(f"- {text}", "; ".join(warnings))
        """,  # noqa: E501
    "dumped dicts through a helper parameter": """
        import dataclasses

        def _rows(items: list[str]) -> list[str]:
            return ["x " + item[len(BLOCK_WARNING_PREFIX):] if item.startswith(BLOCK_WARNING_PREFIX) else item for item in items]

        def render(result):
            d = dataclasses.asdict(result)
            return _rows(d["warnings"])
        """,  # noqa: E501
    "tests: equality, substring, isinstance": """
        def test_it(resp):
            assert resp.warnings == ["BLOCK: order is empty", "MO 7 is blocked - review"]
            assert "empty" in resp.warnings[0]
            assert all(isinstance(w, str) for w in resp.warnings)
        """,
    "a helper returning str | None and its caller": """
        def same_location(source_location_id: int, destination_location_id: int) -> str | None:
            if source_location_id == destination_location_id:
                return f"{BLOCK_WARNING_PREFIX} Source and destination are the same (id {destination_location_id})"
            return None

        def transfer(request, warnings: list[str]):
            same = same_location(request.source_location_id, request.destination_location_id)
            if same:
                warnings.append(same)
        """,  # noqa: E501
    "a tuple slot unpacked by the caller": """
        def resolve(client, location_id) -> tuple[int, str | None]:
            if location_id is not None:
                return location_id, None
            return client.default_id, f"No location_id given; defaulted to {client.default_id}"

        def create(client, request):
            warnings: list[str] = []
            location_id, note = resolve(client, request.location_id)
            if note:
                warnings.append(note)
            return warnings
        """,
    "a prefix chosen at run time": """
        def modify(request, warnings):
            prefix = BLOCK_WARNING_PREFIX if not request.force else ""
            warnings.append(f"{prefix}Transfer was already received; nothing moves back.")
        """,
    "a dict fixture in a test and a mocked helper": """
        def check_rows(rows) -> list[str]:
            return [f"{BLOCK_WARNING_PREFIX} no rows"] if not rows else []

        def test_view(monkeypatch):
            payload = {"warnings": ["BLOCK: no rows"]}
            monkeypatch.setattr(mod, "check_rows", lambda *a: ["BLOCK: mocked"])
        """,
}

UNCHANGED = {
    "a sibling list of strings": """
        def build(next_actions: list[str]) -> list[str]:
            next_actions.append("Call again with preview=false")
            return next_actions
        """,
    "a (sku, name) tuple of strings": """
        def describe(store, code) -> tuple[str | None, str | None]:
            record = store.get(code)
            return (record.sku, record.name) if record else (None, None)
        """,
    "the warnings module": """
        import warnings

        def old():
            warnings.warn("deprecated", DeprecationWarning)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
        """,
    "already migrated code": """
        def check(warnings):
            warnings.append(Warning(severity="blocking", message="x", field_path=None, code=warning_codes.X))
            return any(w.severity == "blocking" for w in warnings)
        """,  # noqa: E501
}


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_shape_is_migrated(name: str, text_snapshot: SnapshotAssertion) -> None:
    before = _source(CHANGES[name])
    after, sites = rewrite_source(
        before, path="tests/test_shape.py" if "test" in name else "shape.py"
    )
    assert after != before
    assert sites
    assert f"# before\n{before}\n# after\n{after}" == text_snapshot
    again, _ = rewrite_source(after, path="tests/test_shape.py" if "test" in name else "shape.py")
    assert again == after


@pytest.mark.parametrize("name", sorted(UNCHANGED))
def test_look_alike_is_left_alone(name: str) -> None:
    source = _source(UNCHANGED[name])
    after, sites = rewrite_source(source)
    assert after == source
    assert [s for s in sites if s.action.is_finding] == []
