"""The check cache keeps analyses by their answers: an edit of the facts is not a cold run.

An edit that changes the repository's facts (a function added anywhere) used to change the
digest every later round and every result is keyed by, so every file the rules read was
parsed and analysed again. Now an analysis is kept with the questions it asked the facts
and their answers (:mod:`unsentinel.core.cache_answers`), and taken where the new facts give
the same answers; where one answer changed, the file is analysed again. Either way the
cached check reports exactly what ``--no-cache`` does.
"""

from __future__ import annotations

import collections
import json
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import libcst
import pytest
from projects import CALLER, HELPERS

import unsentinel.core.cache_answers
import unsentinel.core.cache_rounds
import unsentinel.core.engine
import unsentinel.core.gather
import unsentinel.core.regather
from unsentinel.core.cache import CACHE_DIR
from unsentinel.core.model import Mode
from unsentinel.core.runner import RunResult
from unsentinel.registry import load_config, run

FIXTURES = Path(__file__).parent.parent / "fixtures"
NAMES = ["mcp_orders", "fulfillment_svc", "error_service"]
ADDED = "\n\ndef zz_added_elsewhere() -> None:\n    return None\n"


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """Counts LibCST parses (``"parse"``) and analyses (by the file's display path)."""
    counts: collections.Counter[str] = collections.Counter()
    analyze, parse = unsentinel.core.engine.analyze, libcst.parse_module

    def counting_analyze(*args: Any, **keywords: Any) -> Any:
        counts[keywords.get("path", "?")] += 1
        return analyze(*args, **keywords)

    def counting_parse(*args: Any, **keywords: Any) -> Any:
        counts["parse"] += 1
        return parse(*args, **keywords)

    monkeypatch.setattr(unsentinel.core.engine, "analyze", counting_analyze)
    monkeypatch.setattr(libcst, "parse_module", counting_parse)
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    yield counts


def check(root: Path, *, cache: bool = True) -> RunResult:
    return run([root], load_config((root,)), Mode.CHECK, jobs=1, cache=cache)


def reported(result: RunResult) -> list[tuple[str, str, object, tuple[object, ...]]]:
    return [(r.path, r.status.value, r.error, r.sites) for r in result.results]


def copy_of(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


def analysed(counts: collections.Counter[str]) -> set[str]:
    return {path for path in counts if path != "parse"}


@pytest.mark.parametrize("name", NAMES)
def test_a_function_added_elsewhere_reuses_every_other_analysis(
    name: str, tmp_path: Path, work: collections.Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The measured case of docs/benchmarks.md: a new function changes the facts' digest,
    but no other file's analysis asked about it, so only the edited file is parsed and
    analysed (the old cache parsed and analysed every file the rules read)."""
    root = copy_of(name, tmp_path)
    monkeypatch.chdir(root)
    check(root)
    cold = set(analysed(work))
    assert len(cold) > 3
    edited = sorted(cold)[0]
    with (root / edited).open("a") as handle:
        handle.write(ADDED)
    work.clear()
    warm = check(root)
    assert analysed(work) == {edited}
    assert work["parse"] == 1
    assert warm.cached == len(warm.results) - 1
    assert reported(warm) == reported(check(root, cache=False))


OTHER = "def unrelated(a: int) -> int:\n    return a\n"


@pytest.fixture
def flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``caller.py`` reads the warnings ``helpers.resolve`` returns: cross-file flow."""
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "caller.py").write_text(CALLER)
    (tmp_path / "other.py").write_text(OTHER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sites_of(result: RunResult, name: str) -> list[str]:
    [found] = [r for r in result.results if r.path == name]
    return [site.rule for site in found.sites]


@pytest.mark.parametrize(
    "helpers",
    [
        # the helper's warnings no longer block: what flows into caller.py changed
        pytest.param("def resolve(order: str) -> list[str]:\n    return [order]\n", id="flow"),
        # ``resolve`` is no longer the repository's: caller.py asked whether it is
        pytest.param(HELPERS.replace("def resolve", "def settle"), id="name removed"),
    ],
)
def test_an_edit_that_changes_an_answer_analyses_the_file_again(
    flow: Path, work: collections.Counter[str], helpers: str
) -> None:
    check(flow)
    warm = check(flow)
    assert sites_of(warm, "caller.py") == ["UNS201"]
    (flow / "helpers.py").write_text(helpers)
    work.clear()
    edited = check(flow)
    assert "caller.py" in analysed(work)  # caller.py's bytes are the same; its answers not
    assert reported(edited) == reported(check(flow, cache=False))
    assert sites_of(edited, "caller.py") != sites_of(warm, "caller.py")
    (flow / "helpers.py").write_text(HELPERS)
    work.clear()
    back = check(flow)  # the first bytes again: every analysis is kept
    assert reported(back) == reported(warm)
    assert analysed(work) == set()


def test_a_name_defined_anew_that_a_file_asked_about_analyses_it_again(
    flow: Path, work: collections.Counter[str]
) -> None:
    """``caller.py`` calls ``resolve``, which nothing defines; defining it (in a file the
    caller never imports) changes the answer to a question its analysis asked."""
    (flow / "helpers.py").write_text(OTHER.replace("unrelated", "helper"))
    check(flow)
    work.clear()
    (flow / "other.py").write_text(OTHER + "\n\n" + HELPERS)
    edited = check(flow)
    assert "caller.py" in analysed(work)
    assert reported(edited) == reported(check(flow, cache=False))


# -- a sequence of edits: the cached check always reports what a fresh one does -------------


def _append_unrelated(text: str, step: int, _other: str) -> str:
    return text + f"\n\ndef zz_step_{step}() -> None:\n    return None\n"


def _append_blocking(text: str, step: int, _other: str) -> str:
    return text + (
        f"\n\ndef zz_block_{step}(warnings: list[str]) -> list[str]:\n"
        f'    warnings.append("BLOCK: step {step}")\n'
        "    return warnings\n"
    )


def _drop_last_function(text: str, _step: int, _other: str) -> str:
    cut = text.rfind("\ndef ")
    return text if cut < 0 else text[:cut] + "\n"


def _copy_a_function(text: str, _step: int, other: str) -> str:
    """Define here a function another file defines (same name, same body)."""
    start = other.find("\ndef ")
    if start < 0:
        return text
    end = other.find("\ndef ", start + 1)
    return text + "\n" + other[start : end if end > 0 else len(other)]


EDITS: list[Callable[[str, int, str], str]] = [
    _append_unrelated,
    _append_blocking,
    _drop_last_function,
    _copy_a_function,
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_sequence_of_edits_reports_what_a_fresh_check_does(
    name: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random edits (functions added, removed, copied between files, a file put back as
    it was), each followed by a cached check compared with ``--no-cache``."""
    monkeypatch.delenv("UNSENTINEL_NO_CACHE", raising=False)
    root = copy_of(name, tmp_path)
    files = sorted(path for path in root.rglob("*.py") if CACHE_DIR not in path.parts)
    originals = {path: path.read_text() for path in files}
    chooser = random.Random(f"{name}-{seed}")
    check(root)
    for step in range(6):
        path, other = chooser.choice(files), chooser.choice(files)
        if chooser.random() < 0.2:
            path.write_text(originals[path])
        else:
            edit = chooser.choice(EDITS)
            path.write_text(edit(path.read_text(), step, other.read_text()))
        cached = check(root)
        assert reported(cached) == reported(check(root, cache=False)), (step, path)


# -- kept analyses that do not read, or were tampered with ----------------------------------


def kept_entries(root: Path) -> list[Path]:
    return sorted((root / CACHE_DIR / "answers").glob("*/*.json"))


def rewrite_kept(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    for entry in kept_entries(root):
        data = json.loads(entry.read_bytes())
        change(data)
        entry.write_text(json.dumps(data))


def _wrong_digests(data: dict[str, Any]) -> None:
    for kept in data["kept"]:
        kept["digest"] = "0" * 64


def _private_questions(data: dict[str, Any]) -> None:
    """Every question now calls a private method (a cache file never names code to run)."""
    data["questions"] = [
        json.dumps([kind, "__init__", "call", args, keywords])
        for kind, _name, _how, args, keywords in map(json.loads, data["questions"])
    ]


def _not_a_list(data: dict[str, Any]) -> None:
    data["kept"] = {"not": "a list"}


@pytest.mark.parametrize("change", [_wrong_digests, _private_questions, _not_a_list])
def test_a_kept_analysis_that_does_not_hold_or_read_is_never_taken(
    change: Callable[[dict[str, Any]], None],
    tmp_path: Path,
    work: collections.Counter[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = copy_of("mcp_orders", tmp_path)
    monkeypatch.chdir(root)
    check(root)
    cold = set(analysed(work))
    assert kept_entries(root)
    rewrite_kept(root, change)
    edited = sorted(cold)[0]
    with (root / edited).open("a") as handle:
        handle.write(ADDED)
    work.clear()
    warm = check(root)
    assert analysed(work) == cold  # every file the rules read, as without kept analyses
    assert reported(warm) == reported(check(root, cache=False))


def test_many_prefiltered_files_are_told_apart_on_their_words(
    flow: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the facts changed, a later round's prefiltered misses (thousands on the
    standard library) are told apart on their words, not sent to the pipeline to be read
    and parsed with ``ast`` again; the one that calls a changed function still comes back."""
    for n in range(80):
        (flow / f"plain_{n}.py").write_text(f"def plain_{n}(a: int) -> int:\n    return a + {n}\n")
    (flow / "uses.py").write_text("from helpers import resolve\n\nresolve('x')\n")
    check(flow)
    parsed: list[bytes] = []  # the bytes whose names a later round's pipeline read
    spelled_names = unsentinel.core.gather.spelled_names

    def spelling(data: bytes, *args: Any) -> frozenset[str]:
        parsed.append(data)
        return spelled_names(data, *args)

    monkeypatch.setattr(unsentinel.core.regather, "spelled_names", spelling)
    (flow / "other.py").write_text(OTHER + ADDED)
    edited = check(flow)
    assert not [data for data in parsed if data.startswith(b"def plain_")]
    assert reported(edited) == reported(check(flow, cache=False))
    # The rounds' packs kept what the words said: the next run with these facts (a comment
    # added) finds every line there, and tests no file's words.
    tested: list[bytes] = []
    spells_none = unsentinel.core.cache_rounds._spells_none

    def testing(data: bytes, *args: Any) -> bool:
        tested.append(data)
        return spells_none(data, *args)

    monkeypatch.setattr(unsentinel.core.cache_rounds, "_spells_none", testing)
    (flow / "other.py").write_text(OTHER + ADDED + "# a comment\n")
    commented = check(flow)
    assert len(tested) <= 1  # other.py's own, at most
    assert reported(commented) == reported(edited)


def test_a_kept_result_is_then_found_by_the_facts_digest(
    tmp_path: Path, work: collections.Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A result taken because its answers held is stored under the new facts' digest: the
    next run with the same facts (a comment added) reads no kept analysis."""
    root = copy_of("mcp_orders", tmp_path)
    monkeypatch.chdir(root)
    check(root)
    edited = sorted(analysed(work))[0]
    with (root / edited).open("a") as handle:
        handle.write(ADDED)
    check(root)
    with (root / edited).open("a") as handle:
        handle.write("# a comment\n")
    read: list[str] = []
    load_kept = unsentinel.core.cache_answers.load_kept

    def loading(cache: Any, key: str) -> Any:
        read.append(key)
        return load_kept(cache, key)

    monkeypatch.setattr(unsentinel.core.cache_rounds, "load_kept", loading)
    warm = check(root)
    assert len(read) <= 1  # the edited file's, new bytes: none kept
    assert reported(warm) == reported(check(root, cache=False))
