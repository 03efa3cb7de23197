"""Property tests: whatever module we are given, a migration never corrupts it.

Modules come from :mod:`tests.strategies` (producers, consumers, annotations, error dicts,
look-alikes and noise, with CRLF, tabs, BOM, coding cookies and unicode). Each example runs
the real library entry, :func:`unsentinel.run`, in a scratch project:

* the output of ``apply`` compiles (as bytes: BOM and cookie included), and so does every
  generated module;
* a second ``apply`` writes nothing;
* every line outside a rewritten site is byte-identical (imports may be added or trimmed);
* a module with nothing to migrate comes back as the same bytes (and is never rewritten);
* ``plan`` reports exactly the sites ``apply`` acted on: each is rewritten or reviewed (and
  then its lines change), or skipped / reported / noted (and then they do not);
* no comment is lost or invented: the multiset of ``tokenize`` COMMENT tokens before equals
  the one after, the ``# TODO(unsentinel)`` review markers the tool adds set aside (the
  same holds for the three fixtures and the ecosystem cases, checked below).

Example counts: ``UNSENTINEL_EXAMPLES`` if set, else 25 (the default suite); the ``slow``
nox session runs them again with more (``UNSENTINEL_SLOW_EXAMPLES``, 150 by default).
"""

from __future__ import annotations

import difflib
import io
import os
import re
import tempfile
import tokenize
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Module, modules

from unsentinel import load_config
from unsentinel.core.config import Config
from unsentinel.core.decisions import MARKER
from unsentinel.core.model import Action, Mode, Site
from unsentinel.core.runner import RunResult
from unsentinel.registry import run

EXAMPLES = int(os.environ.get("UNSENTINEL_EXAMPLES") or 25)
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
CHANGING = (Action.REWRITE, Action.REVIEW)
LEAVING = (Action.SKIP, Action.REPORT, Action.NOTE)
BOM = b"\xef\xbb\xbf"


@dataclass
class Migration:
    original: bytes
    plan: RunResult
    first: RunResult
    second: RunResult
    after_first: bytes
    after_second: bytes
    generated: dict[str, bytes]

    @property
    def sites(self) -> tuple[Site, ...]:
        [result] = [r for r in self.first.results if r.path.endswith("mod.py")]
        return result.sites


@contextmanager
def _project() -> Iterator[Path]:
    """A scratch project root; the working directory moves there (paths display relative)."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="unsentinel-prop-") as name:
        root = Path(name).resolve()
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(previous)


def migrate(data: bytes) -> Migration:
    with _project() as root:
        target = root / "mod.py"
        target.write_bytes(data)
        config = Config(root=root)
        plan = run([root], config, Mode.PLAN, jobs=1)
        first = run([root], config, Mode.APPLY, jobs=1)
        after_first = target.read_bytes()
        second = run([root], config, Mode.APPLY, jobs=1)
        generated = {p.name: p.read_bytes() for p in root.glob("*.py") if p.name != "mod.py"}
        return Migration(data, plan, first, second, after_first, target.read_bytes(), generated)


def _lines(data: bytes) -> list[bytes]:
    return data.removeprefix(BOM).splitlines(keepends=True)


def _is_import_or_blank(line: bytes) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith((b"import ", b"from "))


def changed_regions(old: bytes, new: bytes) -> list[tuple[range, list[bytes], list[bytes]]]:
    """(original 1-based line range, old lines, new lines) for every region that differs.

    Import and blank lines are set aside first (imports may be added or trimmed anywhere
    in the header), so a repeated block cannot make the alignment blame the wrong lines.
    """
    a = [(n, line) for n, line in enumerate(_lines(old), 1) if not _is_import_or_blank(line)]
    b = [line for line in _lines(new) if not _is_import_or_blank(line)]
    matcher = difflib.SequenceMatcher(None, [line for _, line in a], b, autojunk=False)
    regions = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i1 < i2:
            lines = range(a[i1][0], a[i2 - 1][0] + 1)
        else:  # inserted after original line a[i1 - 1] (or at the top)
            at = a[i1 - 1][0] + 1 if i1 else 1
            lines = range(at, at)
        regions.append((lines, [line for _, line in a[i1:i2]], b[j1:j2]))
    return regions


def _covered(lines: range, sites: tuple[Site, ...]) -> bool:
    spans = [range(s.position.line, s.position.end_line + 1) for s in sites if s.action in CHANGING]
    if not lines:  # a pure insertion between two original lines
        return any(lines.start - 1 in span or lines.start in span for span in spans)
    return all(any(line in span for span in spans) for line in lines)


def _describe(module: Module, migration: Migration | None = None) -> str:
    parts = [f"options={module.options}", "--- input ---", module.data.decode("latin-1")]
    if migration is not None:
        parts += ["--- output ---", migration.after_first.decode("latin-1")]
    return "\n".join(parts)


@PROPERTY_SETTINGS
@given(modules(migrate=True))
def test_migration_never_corrupts(module: Module) -> None:
    m = migrate(module.data)
    why = _describe(module, m)
    for result in (m.plan, m.first, m.second):
        assert result.failed == [], why

    # The output compiles exactly as Python would read it from disk.
    compile(m.after_first, "mod.py", "exec", dont_inherit=True)
    for name, data in m.generated.items():
        compile(data, name, "exec", dont_inherit=True)

    # A second apply converges: nothing written, same bytes.
    assert m.second.written == (), why
    assert m.after_second == m.after_first, why

    # The encoding frame survives: BOM, and no line ending the file did not use.
    assert m.after_first.startswith(BOM) == m.original.startswith(BOM), why
    if b"\r\n" in m.original and b"\n" not in m.original.replace(b"\r\n", b""):
        assert b"\n" not in m.after_first.replace(b"\r\n", b""), why

    # Outside rewritten sites, only import lines may change.
    for lines, old, new in changed_regions(m.original, m.after_first):
        if _covered(lines, m.sites):
            continue
        assert all(_is_import_or_blank(line) for line in [*old, *new]), (
            f"lines {lines.start}-{lines.stop - 1} changed outside any rewritten site:\n"
            f"{old!r}\n->\n{new!r}\n{why}"
        )

    _assert_plan_accounts_for_every_site(m, why)

    # Every comment survives; the tool's own review markers are not the user's comments.
    assert_comments_survive(m.original, m.after_first, why)


_MARKER = re.compile(r"\s*" + re.escape(MARKER) + r".*$")


def assert_comments_survive(old: bytes, new: bytes, why: str) -> None:
    """The comments after are the comments before, less those of a module-level constant
    the tool deleted as unused (a comment documenting it would be left describing nothing):
    nothing else may be lost, nothing may be added."""
    before, after = comments(old), comments(new)
    assert after - before == Counter(), why
    lost = before - after
    assert lost - Counter(deleted_constant_comments(old, new)) == Counter(), why


def deleted_constant_comments(old: bytes, new: bytes) -> list[str]:
    """Comments on and above ``NAME = ...`` statements of ``old``'s module level whose name
    ``new`` no longer assigns there."""
    kept = set(_module_constants(cst.parse_module(new)))
    found: list[str] = []
    for name, line in _module_constants(cst.parse_module(old)).items():
        if name not in kept:
            found += [e.comment.value for e in line.leading_lines if e.comment is not None]
            if line.trailing_whitespace.comment is not None:
                found.append(line.trailing_whitespace.comment.value)
    return found


def _module_constants(module: cst.Module) -> dict[str, cst.SimpleStatementLine]:
    constants: dict[str, cst.SimpleStatementLine] = {}
    for line in module.body:
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            statement = line.body[0]
            targets = (
                [t.target for t in statement.targets]
                if isinstance(statement, cst.Assign)
                else [statement.target]
                if isinstance(statement, cst.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, cst.Name):
                    constants[target.value] = line
    return constants


def comments(data: bytes) -> Counter[str]:
    """The file's comments as Python's tokenizer reads them (encoding from BOM or cookie),
    each with a ``# TODO(unsentinel)`` marker the tool appended cut off (dropped whole when
    the comment is nothing but the marker)."""
    found: Counter[str] = Counter()
    for token in tokenize.tokenize(io.BytesIO(data).readline):
        if token.type == tokenize.COMMENT:
            text = _MARKER.sub("", token.string)
            if text:
                found[text] += 1
    return found


def _assert_plan_accounts_for_every_site(m: Migration, why: str) -> None:
    planned = [s for r in m.plan.results for s in r.sites]
    assert sorted(map(repr, planned)) == sorted(map(repr, m.sites)), why
    changing = [s for s in planned if s.action in CHANGING]
    leaving = [s for s in planned if s.action in LEAVING]
    assert len(planned) == len(changing) + len(leaving)
    assert bool(changing) == (m.after_first != m.original), why
    regions = [lines for lines, _, _ in changed_regions(m.original, m.after_first)]
    for site in changing:
        span = range(site.position.line, site.position.end_line + 1)
        assert any(
            set(lines) & set(span) or (not lines and lines.start - 1 in span) for lines in regions
        ), f"{site.rule} at line {site.position.line} is 'rewrite' but nothing changed\n{why}"


@PROPERTY_SETTINGS
@given(modules(migrate=False))
def test_nothing_to_migrate_comes_back_as_the_same_bytes(module: Module) -> None:
    with _project() as root:
        target = root / "mod.py"
        target.write_bytes(module.data)
        os.utime(target, ns=(1_000_000_000, 1_000_000_000))
        config = Config(root=root)
        for mode in (Mode.CHECK, Mode.DIFF, Mode.PLAN, Mode.APPLY):
            result = run([root], config, mode, jobs=1)
            assert result.failed == [], _describe(module)
            assert result.changed == [], _describe(module)
            assert all(s.action in LEAVING for r in result.results for s in r.sites)
        assert target.read_bytes() == module.data
        assert target.stat().st_mtime_ns == 1_000_000_000
        assert sorted(p.name for p in root.iterdir()) == ["mod.py"]


@PROPERTY_SETTINGS
@given(modules(migrate=True), st.sampled_from(["\n", "\r\n"]))
def test_the_str_seam_agrees_with_the_file_pipeline(module: Module, newline: str) -> None:
    """``rewrite_source`` (what rule tests drive) gives what ``run`` writes for the same file.

    The module goes on disk with the chosen line endings (BOM and encoding as generated);
    the seam gets its decoded text. Same new text, same sites, and the seam converges.
    """
    from unsentinel.registry import rewrite_source

    source = module.text.replace("\r\n", "\n").replace("\n", newline)
    encoding = "latin-1" if module.options.latin1 else "utf-8"
    data = (BOM if module.options.bom else b"") + source.encode(encoding)
    with _project() as root:
        (root / "mod.py").write_bytes(data)
        config = Config(root=root)
        result = run([root], config, Mode.DIFF, jobs=1)
        new, sites = rewrite_source(source, config, path="mod.py", module_name="mod")
    why = _describe(module)
    assert result.failed == [], why
    [file] = [r for r in result.results if r.path == "mod.py"]
    # The pipeline keeps a BOM as U+FEFF in its texts; the seam never sees one.
    piped = source if file.new_text is None else file.new_text.removeprefix("\ufeff")
    assert new == piped, why
    assert sorted(map(repr, sites)) == sorted(map(repr, file.sites)), why
    assert (new != source) == (file.new_text is not None), why
    compile(new, "<seam>", "exec", dont_inherit=True)
    again, _ = rewrite_source(new, config, path="mod.py", module_name="mod")
    assert again == new, why


# -- found by the corpus sweep (tests/test_corpus.py) -----------------------------------------


def test_scalar_str_named_warnings_is_not_annotated() -> None:
    from unsentinel.registry import rewrite_source

    source = (
        "class TestProgram:\n"
        "    warnings: str | None\n"
        "    def __init__(self, warnings: str | None = None) -> None:\n"
        "        self.warnings = warnings\n"
    )
    new, _sites = rewrite_source(source, Config())
    assert new == source


# -- comments survive on code we did not generate ---------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ("mcp_orders", "fulfillment_svc", "error_service")


def _assert_comments_survive(result: RunResult, root: Path) -> int:
    """Every rewritten file keeps its comments; returns how many files were rewritten."""
    assert result.failed == []
    rewritten = 0
    for file in result.results:
        if file.new_text is None or file.error is not None:
            continue
        original = (root / file.path).read_bytes() if (root / file.path).exists() else b""
        if not original:  # a generated module: nothing of the user's in it
            continue
        rewritten += 1
        new = file.new_text.removeprefix("\ufeff").encode("utf-8")
        assert_comments_survive(original.removeprefix(BOM), new, file.path)
    return rewritten


@pytest.mark.parametrize("name", FIXTURES)
def test_every_comment_of_a_fixture_survives(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    root = ROOT / "fixtures" / name
    monkeypatch.chdir(root)
    result = run([root], load_config((root,)), Mode.DIFF, jobs=1)
    assert _assert_comments_survive(result, root) > 0


def test_every_comment_of_the_ecosystem_cases_survives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = ROOT / "tests" / "ecosystem_cases" / "README.md"
    if not readme.exists():
        pytest.skip("no ecosystem cases in this checkout")
    block = re.compile(
        r"^`(?P<name>[\w/]+\.py)`:\s*\n\s*\n```python\n(?P<code>.*?)```", re.M | re.S
    )
    sections = re.split(r"^## ", readme.read_text(encoding="utf-8"), flags=re.M)[1:]
    assert sections
    for number, chunk in enumerate(sections):
        root = tmp_path / f"case{number}"
        for match in block.finditer(chunk):
            target = root / match["name"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(match["code"], encoding="utf-8")
        if not root.exists():
            continue
        monkeypatch.chdir(root)
        _assert_comments_survive(run([root], load_config((root,)), Mode.DIFF, jobs=1), root)
