"""Bad input never stops the reading: one line each, exit 2, no damage.

Each bad file gets one ``error: path: reason`` line (a syntax error reads like a finding,
``path:line:col: syntax error: <Python's own message>``); ``check`` goes on with the other
files, and ``apply`` writes nothing at all (a migration is applied whole or not at all).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import unsentinel.core.discovery
import unsentinel.core.engine
import unsentinel.core.runner
import unsentinel.core.transaction
from unsentinel.cli import main
from unsentinel.core.rule import Rule

pytestmark = pytest.mark.usefixtures("detector_rules")

GOOD = 'warnings.append("BLOCK: order is empty")\n'
GOOD_FINDING = "good.py:1:17: UNS001 String starts with sentinel prefix 'BLOCK:'\n"
PY2 = b'print "BLOCK: python 2 print statement"\n'


def _python_syntax_error(source: bytes) -> tuple[int, int, str]:
    """Where and how Python itself rejects ``source``: the words the one-line error must use."""
    try:
        compile(source, "<bad>", "exec")
    except SyntaxError as error:
        assert error.lineno is not None
        return error.lineno, error.offset or 1, error.msg
    raise AssertionError("the source was supposed to be a syntax error")


_PY2_LINE, _PY2_COLUMN, _PY2_MESSAGE = _python_syntax_error(PY2)


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _broken_link(path: Path) -> None:
    path.symlink_to(path.parent / "does_not_exist.py")


BadMaker = Callable[[Path], None]

CASES = [
    # A syntax error is one line without the "error: " prefix, in Python's own words.
    pytest.param(
        "py2.py",
        lambda p: _write(p, PY2),
        f"py2.py:{_PY2_LINE}:{_PY2_COLUMN}: syntax error: {_PY2_MESSAGE}",
        id="python 2 syntax",
    ),
    pytest.param(
        "latin.py",
        lambda p: _write(p, b'x = "BLOCK: caf\xe9 closed"\n'),
        "error: latin.py: cannot decode as utf-8: invalid byte 0xe9 on line 1",
        id="undecodable bytes",
    ),
    pytest.param(
        "nul.py",
        lambda p: _write(p, b'x = "BLOCK: a"\n\x00\x00\n'),
        "error: nul.py: contains NUL bytes",
        id="NUL bytes",
    ),
    pytest.param(
        "cookie.py",
        lambda p: _write(p, b'# -*- coding: klingon -*-\nx = "BLOCK: a"\n'),
        "error: cookie.py: bad coding declaration",
        id="unknown coding cookie",
    ),
    pytest.param("f.py", _fifo, "error: f.py: not a regular file", id="FIFO named f.py"),
    pytest.param(
        "link.py", _broken_link, "error: link.py: broken symbolic link", id="broken symlink"
    ),
]
HELD_BACK = (
    "error: nothing written: {failed} file(s) failed, so the {held} file(s) that would change "
    "were held back (a migration is applied whole or not at all)"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "good.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


_SYNTAX_ERROR_LINE = re.compile(r"\S+:\d+:\d+: syntax error: \S")


def _error_lines(stderr: str) -> list[str]:
    """``error: ...`` lines and one-line syntax errors (``path:line:col: syntax error: ...``)."""
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("error:") or _SYNTAX_ERROR_LINE.match(line)
    ]


def _snapshot(directory: Path) -> dict[str, bytes | None]:
    """Every entry's bytes (None for what isn't a regular file): shows any write or leftover."""
    return {
        entry.name: entry.read_bytes() if entry.is_file() and not entry.is_symlink() else None
        for entry in sorted(directory.iterdir())
        if entry.name != "good.py"
    }


@pytest.mark.parametrize(("name", "make", "expected"), CASES)
def test_check_reports_one_line_and_goes_on(
    cli: CliRunner, project: Path, name: str, make: BadMaker, expected: str
) -> None:
    make(project / name)
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    [line] = _error_lines(result.stderr)
    assert line.startswith(expected)
    assert name in expected
    assert result.stdout == GOOD_FINDING


@pytest.mark.parametrize(("name", "make", "expected"), CASES)
def test_apply_writes_nothing_when_one_file_is_bad(
    cli: CliRunner,
    project: Path,
    rewriting_rule: type[Rule],
    name: str,
    make: BadMaker,
    expected: str,
) -> None:
    """All or nothing: the bad file is reported and the good one is held back, unwritten."""
    make(project / name)
    good_before = (project / "good.py").read_text()
    before = _snapshot(project)
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 2
    *failures, held_back = result.stderr.strip().splitlines()
    assert len(failures) == 1 and failures[0].startswith(expected)  # the bad file, one line
    assert held_back == HELD_BACK.format(failed=1, held=1)  # good.py
    assert (project / "good.py").read_text() == good_before
    assert _snapshot(project) == before  # nothing touched, no temp file left


@pytest.mark.parametrize(("name", "make", "expected"), CASES)
def test_explicit_bad_argument(
    cli: CliRunner, project: Path, name: str, make: BadMaker, expected: str
) -> None:
    make(project / name)
    result = cli.invoke(main, ["check", name, "good.py"])
    assert result.exit_code == 2
    [line] = _error_lines(result.stderr)
    assert line.startswith(expected)
    assert name in expected
    assert result.stdout == GOOD_FINDING


def test_a_syntax_error_is_exactly_one_line_in_pythons_words(cli: CliRunner, project: Path) -> None:
    """No ``error: `` prefix, no LibCST token list: ``path:line:col: syntax error: <message>``."""
    (project / "py2.py").write_bytes(PY2)
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if "py2.py" in line]
    assert lines == [f"py2.py:{_PY2_LINE}:{_PY2_COLUMN}: syntax error: {_PY2_MESSAGE}"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file(cli: CliRunner, project: Path) -> None:
    secret = project / "secret.py"
    secret.write_text(GOOD)
    secret.chmod(0)
    try:
        result = cli.invoke(main, ["check", "."])
    finally:
        secret.chmod(0o644)
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == ["error: secret.py: cannot read: Permission denied"]
    assert result.stdout == GOOD_FINDING


def test_read_permission_error(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same path as the chmod 000 test, reachable when the suite runs as root."""
    (project / "secret.py").write_text(GOOD)
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == ["error: secret.py: cannot read: Permission denied"]
    assert result.stdout == GOOD_FINDING


def _after_discovery(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run ``action`` between discovery and processing: the file system changes mid-run."""
    real_discover = unsentinel.core.discovery.discover  # what the runner imported

    def discover(*args: object, **kwargs: object) -> object:
        discovery = real_discover(*args, **kwargs)  # type: ignore[arg-type]
        action()
        return discovery

    monkeypatch.setattr(unsentinel.core.runner, "discover", discover)


@pytest.mark.parametrize(
    ("command", "held_back"),
    [
        pytest.param("check", [], id="check"),
        # apply: the vanished file failed, so good.py is held back and nothing is written.
        pytest.param("apply", [HELD_BACK.format(failed=1, held=1)], id="apply"),
    ],
)
def test_file_vanishes_mid_run(
    cli: CliRunner,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    rewriting_rule: type[Rule],
    command: str,
    held_back: list[str],
) -> None:
    (project / "gone.py").write_text(GOOD)
    _after_discovery(monkeypatch, (project / "gone.py").unlink)
    result = cli.invoke(main, [command, "."])
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == [
        "error: gone.py: file vanished before it could be read",
        *held_back,
    ]
    assert not (project / "gone.py").exists()
    assert (project / "good.py").read_text() == GOOD


def test_file_replaced_by_a_directory_mid_run(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "x.py").write_text(GOOD)

    def replace() -> None:
        (project / "x.py").unlink()
        (project / "x.py").mkdir()

    _after_discovery(monkeypatch, replace)
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == ["error: x.py: is a directory, not a Python file"]
    assert result.stdout == GOOD_FINDING


def test_file_vanishes_between_processing_and_writing(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch, rewriting_rule: type[Rule]
) -> None:
    """apply must not resurrect a file somebody deleted while the run was computing it,
    and, that file having failed, writes nothing else either: good.py is held back."""
    (project / "gone.py").write_text(GOOD)
    real_write_changes = unsentinel.core.transaction.write_changes

    def write_changes(*args: object, **kwargs: object) -> object:
        (project / "gone.py").unlink()
        return real_write_changes(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(unsentinel.core.transaction, "write_changes", write_changes)
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == [
        "error: gone.py: vanished before it could be written; not recreated",
        HELD_BACK.format(failed=1, held=1),  # good.py, not the vanished file itself
    ]
    assert not (project / "gone.py").exists()
    assert (project / "good.py").read_text() == GOOD


def test_directory_named_like_a_module_is_walked_not_read(cli: CliRunner, project: Path) -> None:
    """``x.py/`` is a directory: its modules are checked, and it is not an error itself."""
    (project / "x.py").mkdir()
    shutil.copy(project / "good.py", project / "x.py" / "inner.py")
    for args in (["check", "."], ["check", "x.py", "good.py"]):
        result = cli.invoke(main, args)
        assert result.exit_code == 1
        assert _error_lines(result.stderr) == []
        assert result.stdout == GOOD_FINDING + GOOD_FINDING.replace("good.py", "x.py/inner.py")


def test_internal_error_in_a_rule_is_one_line(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "boom.py").write_text(GOOD)
    real_analyze = unsentinel.core.engine.analyze

    def analyze(module, config, facts=None, *, path="<string>", **kwargs):  # type: ignore[no-untyped-def]
        if path == "boom.py":
            raise ValueError("rule exploded")
        return real_analyze(module, config, facts, path=path, **kwargs)

    monkeypatch.setattr(unsentinel.core.engine, "analyze", analyze)
    result = cli.invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert _error_lines(result.stderr) == [
        "error: boom.py: internal error: ValueError: rule exploded"
    ]
    assert result.stdout == GOOD_FINDING
