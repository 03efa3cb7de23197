"""The byte-level prefilter: files without a needle never reach the LibCST parser."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import unsentinel.registry
from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.model import Mode, Status
from unsentinel.core.prefilter import Prefilter, _anchors, _by_part, holds_an_anchor, shared_anchors
from unsentinel.registry import configured, enabled_rules, run

pytestmark = pytest.mark.usefixtures("detector_rules")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b'x = "BLOCK: a"\n', True, id="sentinel prefix"),
        pytest.param(b"from u import BLOCK_WARNING_PREFIX\n", True, id="sentinel constant"),
        pytest.param(b"# BLOCK: only in a comment\n", True, id="needle in a comment counts"),
        pytest.param(b'x = "BLOCK a"\n', False, id="no colon"),
        pytest.param(b'x = "block: a"\n', False, id="other case"),
        pytest.param(b"", False, id="empty file"),
    ],
)
def test_default_needles(data: bytes, expected: bool) -> None:
    config = Config()
    assert Prefilter(enabled_rules(config), config).may_match(data) is expected


def test_needles_follow_the_configuration() -> None:
    config = configured(sentinel_prefixes=("STOP: ",), sentinel_constants=("HARD_STOP",))
    prefilter = Prefilter(enabled_rules(config), config)
    assert prefilter.may_match(b'issues.append("STOP: x")')
    assert prefilter.may_match(b"HARD_STOP")
    assert not prefilter.may_match(b'x = "BLOCK: a"\nBLOCK_WARNING_PREFIX')


def test_needles_follow_the_enabled_rules() -> None:
    config = Config(select=("UNS002",))
    prefilter = Prefilter(enabled_rules(config), config)
    assert not prefilter.may_match(b'x = "BLOCK: a"\n')
    assert prefilter.may_match(b"BLOCK_WARNING_PREFIX")


def test_no_rules_no_match() -> None:
    assert not Prefilter((), Config()).may_match(b'x = "BLOCK: a"\n')


def test_needle_with_regex_characters_is_literal() -> None:
    config = configured(sentinel_prefixes=("[!] ",), sentinel_constants=())
    prefilter = Prefilter(enabled_rules(config), config)
    assert prefilter.may_match(b'x = "[!] stop"')
    assert not prefilter.may_match(b'x = "! stop"')


NEEDLE_FREE = b"def total(items):\n    return sum(items)  # blocks: none\n"


@pytest.mark.parametrize("mode", list(Mode), ids=[m.value for m in Mode])
def test_file_without_needles_is_never_parsed(
    tmp_path: Path, parsed: list[bytes | str], mode: Mode
) -> None:
    (tmp_path / "plain.py").write_bytes(NEEDLE_FREE)
    (tmp_path / "other.py").write_bytes(NEEDLE_FREE.replace(b"total", b"mean"))
    (tmp_path / "sentinel.py").write_bytes(b'x = "BLOCK: a"\n')
    result = run([tmp_path], Config(root=tmp_path), mode, jobs=1)
    statuses = {Path(r.path).name: r.status for r in result.results}
    assert statuses == {
        "other.py": Status.PREFILTERED,
        "plain.py": Status.PREFILTERED,
        "sentinel.py": Status.PARSED,
    }
    assert parsed, "the sentinel file must be parsed"
    assert all(source == b'x = "BLOCK: a"\n' for source in parsed)


def test_prefiltered_file_with_binary_garbage_is_not_an_error(
    tmp_path: Path, parsed: list[bytes | str]
) -> None:
    """Undecodable bytes only matter when the file could contain a site (documented choice)."""
    (tmp_path / "blob.py").write_bytes(b"\xff\xfe\x00garbage")
    result = run([tmp_path], Config(root=tmp_path), Mode.CHECK, jobs=1)
    assert [r.status for r in result.results] == [Status.PREFILTERED]
    assert result.exit_code == 0
    assert parsed == []


def test_statistics_count_what_the_prefilter_did(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parsed: list[bytes | str]
) -> None:
    for index in range(7):
        (tmp_path / f"plain_{index}.py").write_bytes(NEEDLE_FREE)
    for index in range(3):
        (tmp_path / f"sentinel_{index}.py").write_bytes(b'x = "BLOCK: a"\n')
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(main, ["check", ".", "--statistics", "-j", "1"])
    assert result.exit_code == 1
    lines = [line.split() for line in result.stderr.splitlines()]
    rows = {" ".join(words[:-1]): words[-1] for words in lines if words and words[-1].isdigit()}
    assert rows == {
        "files seen": "10",
        "prefiltered out": "7",
        "parsed": "3",
        "skipped": "0",
        "changed": "0",
        "failed": "0",
        "from cache": "0",  # a cold cache
        "peak memory per worker, MiB (1 process)": rows["peak memory per worker, MiB (1 process)"],
    }
    assert len(parsed) == 3


@pytest.mark.parametrize(
    ("data", "by_bytes", "by_code"),
    [
        pytest.param(b"name, note = resolve(cache, 1)\n", True, True, id="a call"),
        pytest.param(b"from app import resolve as r\n", True, True, id="an import"),
        pytest.param(b"def resolve(cache, i):\n    return None, i\n", True, True, id="the def"),
        pytest.param(b"# resolve it later\nx = 1\n", True, False, id="only a comment"),
        pytest.param(b"resolved = 1\n", False, False, id="a longer word"),
        pytest.param(b"x = cache.resolve(1)\n", True, True, id="a method call"),
        pytest.param(b"from app import resolve\n", True, False, id="an import, never called"),
        pytest.param(b"import dns.resolve\n", True, False, id="a module of the name"),
        pytest.param(b"handlers = [resolve]\n", True, False, id="a reference, not a call"),
        pytest.param(b"x = cache.resolve\n", True, False, id="an attribute read"),
    ],
)
def test_a_function_the_facts_name_admits_a_file_with_no_needle(
    data: bytes, by_bytes: bool, by_code: bool
) -> None:
    """``resolve`` returns a warning in a tuple slot (a gather fact): its module and the
    tests reading its result may spell no needle, and still belong to the migration. What
    reaches a file is a call's result: a name only mentioned (``import urllib.request``
    for an error helper named ``request``) admits nothing."""
    import ast

    config = Config()
    plain = Prefilter(enabled_rules(config), config)
    prefilter = Prefilter(enabled_rules(config), config, {"resolve"})
    assert not plain.may_match(data)
    assert prefilter.may_match(data) is by_bytes
    assert prefilter.second_look(data, ast.parse(data)).candidates is by_code


@pytest.mark.parametrize(
    ("data", "admitted"),
    [
        pytest.param(b"self.check(form)\n", False, id="a statement"),
        pytest.param(b"async def f(c):\n    await c.check(form)\n", False, id="awaited statement"),
        pytest.param(b"report = self.check(form)\n", True, id="its result kept"),
        pytest.param(b"async def f(c):\n    r = await c.check(form)\n", True, id="awaited, kept"),
        pytest.param(b"def f(self):\n    return self.check(form)\n", True, id="returned"),
        pytest.param(b"for w in check(form):\n    print(w)\n", True, id="iterated"),
        pytest.param(b"print(check(form))\n", True, id="an argument of a statement"),
        pytest.param(b"check(form).sort()\n", True, id="the receiver of a statement"),
        pytest.param(b"class Form:\n    def check(self):\n        pass\n", True, id="a def"),
    ],
)
def test_a_call_whose_result_is_thrown_away_admits_nothing(data: bytes, admitted: bool) -> None:
    """``check`` returns warnings (a gather fact): a file that keeps the result of a call
    to it reads them, one that calls it as a statement of its own never sees them. Before,
    every ``self.check(...)`` of a test suite admitted its file."""
    import ast

    config = Config()
    prefilter = Prefilter(enabled_rules(config), config, {"check"})
    assert prefilter.second_look(data, ast.parse(data)).candidates is admitted


@pytest.mark.parametrize(
    ("data", "admitted"),
    [
        pytest.param(b"from client import request\nr = request('stop')\n", True, id="bare"),
        pytest.param(b"import client\nr = client.request('stop')\n", True, id="via module"),
        pytest.param(b"import pkg.client\nr = pkg.client.request('x')\n", True, id="dotted"),
        pytest.param(b"from pkg import client as c\nr = c.request('x')\n", True, id="renamed"),
        pytest.param(b"conn = make()\nr = conn.request('GET', '/')\n", False, id="a method"),
        pytest.param(b"r = self.conn.request('GET', '/')\n", False, id="a method of a field"),
    ],
)
def test_a_module_function_admits_its_callers_not_a_methods(data: bytes, admitted: bool) -> None:
    """``request`` is a module-level function whose error dicts migrate: a file calls it
    bare or through a module it imports. ``conn.request("GET", "/")`` on an object of its
    own is a method of that name, and admitted all of the standard library's http tests."""
    import ast

    config = Config()
    prefilter = Prefilter(enabled_rules(config), config, {"request"}, {"request"})
    anywhere = Prefilter(enabled_rules(config), config, {"request"})
    assert prefilter.second_look(data, ast.parse(data)).candidates is admitted
    assert anywhere.second_look(data, ast.parse(data)).candidates


@pytest.mark.parametrize(
    ("anchors", "cover"),
    [
        pytest.param((b'"ok"]', b'"ok" in', b'get("ok"'), (b'"ok"',), id="a quoted key, one scan"),
        # ``error`` would be one scan, and found in every file that spells ``ValueError``.
        pytest.param((b'"error', b"'error"), (b'"error', b"'error"), id="quoted over bare"),
        pytest.param((b"warnings", b"block_warning_prefix"), (b"warning",), id="a shared word"),
        pytest.param((b"[!] ", b"ok:"), (b"[!] ", b"ok:"), id="too short or spaced: itself"),
    ],
)
def test_anchors_share_scans(anchors: tuple[bytes, ...], cover: tuple[bytes, ...]) -> None:
    assert sorted(shared_anchors(anchors)) == sorted(cover)


def test_the_default_anchors_take_fewer_scans() -> None:
    config = Config()  # every registered rule, not this module's two detectors
    needles = [needle for rule in unsentinel.registry.DETECTORS for needle in rule.needles(config)]
    anchors = _anchors(needles)
    cover = shared_anchors(anchors)
    assert all(any(part in anchor for part in cover) for anchor in anchors)
    assert len(cover) * 2 < len(anchors)


@settings(max_examples=300, deadline=None)
@given(
    needles=st.lists(st.binary(min_size=1, max_size=9).map(bytes.lower), min_size=1, max_size=8),
    data=st.binary(max_size=60),
)
def test_the_cover_never_turns_away_a_file_an_anchor_admits(
    needles: list[bytes], data: bytes
) -> None:
    anchors = _anchors(needles)
    cover = shared_anchors(anchors)
    assert all(any(part in anchor for part in cover) for anchor in anchors)
    by_part = _by_part(anchors)
    assert holds_an_anchor(data, by_part) == any(anchor in data for anchor in anchors)
    for anchor in anchors:  # each anchor planted in the data is found through the cover
        assert holds_an_anchor(data + anchor + data, by_part)
    for part, _held in by_part:  # a part alone is not an anchor
        planted = data + part + data
        assert holds_an_anchor(planted, by_part) == any(a in planted for a in anchors)


# -- a fact name called, read off the bytes -----------------------------------------------


@pytest.mark.parametrize(
    ("data", "called"),
    [
        pytest.param(b"r = check(form)\n", True, id="a call"),
        pytest.param(b"r = self.check (form)\n", True, id="a space before it"),
        pytest.param(b"r = (check  # why\n     (form))\n", True, id="a comment before it"),
        pytest.param(b"r = check \\\n(form)\n", True, id="a continued line"),
        pytest.param(b"r = ((check))(form)\n", True, id="a parenthesised callee"),
        pytest.param(b"print(form.check)\n", False, id="an argument"),
        pytest.param(b"def check[T](x: T) -> T:\n    return x\n", True, id="a generic def"),
        pytest.param(b"from forms import check as run_check\n", True, id="renamed"),
        pytest.param(b"import forms.check as c\n", True, id="a module renamed"),
        pytest.param(b"x = check + 1\nprint(x.check)\n", False, id="only read"),
        pytest.param(b"checks = checkas = recheck(1)\n", False, id="another word"),
        pytest.param(b"# check(form)\n", True, id="a comment (a yes is only a maybe)"),
    ],
)
def test_a_call_of_a_fact_name_is_read_off_the_bytes(data: bytes, called: bool) -> None:
    """A file whose bytes spell a function the facts name is parsed only where they may
    call it (define it, or import it under another name): what the second look would ask
    of Python's parse, a necessary condition read off the bytes."""
    config = Config()
    prefilter = Prefilter(enabled_rules(config), config, {"check"})
    assert prefilter.may_call_a_fact_name(data) is called


STDLIB = Path(__import__("sysconfig").get_paths()["stdlib"])


@pytest.mark.parametrize(
    "name", ["argparse.py", "typing.py", "unittest/case.py", "test/test_grammar.py", "ast.py"]
)
def test_every_name_a_module_calls_is_called_in_its_bytes(name: str) -> None:
    """Soundness on real modules: every function ``CallNames`` says a module calls
    (keeps the result of), defines or imports renamed, its bytes may call too."""
    import ast

    from unsentinel.core.prefilter import CallNames

    data = (STDLIB / name).read_bytes()
    calls = CallNames.of(ast.parse(data))
    names = {n for n in (*calls.bare, *calls.attributes) if n.isidentifier() and n.isascii()}
    assert len(names) > 20
    config = Config()
    for called in sorted(names):
        prefilter = Prefilter(enabled_rules(config), config, {called})
        assert calls.spells_any(frozenset({called}))
        assert prefilter.may_call_a_fact_name(data), called
