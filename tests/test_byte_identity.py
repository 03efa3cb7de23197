"""Files with nothing to change are never rewritten; files that change keep every other byte."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main

pytestmark = pytest.mark.usefixtures("rewriting_rule")

# Each body mentions the sentinel constant, so the file is parsed and reported (never
# prefiltered away) but has nothing for the rewriting rule to change.
UNCHANGED = [
    pytest.param(b"x = BLOCK_WARNING_PREFIX\r\ny = 2\r\n", id="CRLF"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX\ry = 2\r", id="CR only"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX\r\ny = 2\n", id="mixed line endings"),
    pytest.param(b"\xef\xbb\xbfx = BLOCK_WARNING_PREFIX\n", id="BOM"),
    pytest.param(
        b"# -*- coding: latin-1 -*-\nx = BLOCK_WARNING_PREFIX + '\xe9t\xe9'\n",
        id="latin-1 coding cookie",
    ),
    pytest.param(b"def f():\n\tif True:\n\t\treturn BLOCK_WARNING_PREFIX\n", id="tabs"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX   \n\ny = 1\t\n   \n", id="trailing whitespace"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX", id="no final newline"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX\n\x0c\ny = 1\n", id="form feed"),
    pytest.param(b"x = BLOCK_WARNING_PREFIX\n\n\n\n", id="trailing blank lines"),
    pytest.param(b'x = BLOCK_WARNING_PREFIX  # "BLOCK: in a comment"\n', id="needle in a comment"),
]

# The same shapes with one literal to rewrite: only those bytes may differ.
CHANGED = [
    pytest.param(b'x = 1\r\ny = "BLOCK: a"\r\n', id="CRLF"),
    pytest.param(b'\xef\xbb\xbfy = "BLOCK: a"\n', id="BOM"),
    pytest.param(
        b'# -*- coding: latin-1 -*-\ny = "BLOCK: caf\xe9 ferm\xe9"\n', id="latin-1 coding cookie"
    ),
    pytest.param(b'def f():\n\tif True:\n\t\treturn "BLOCK: a"\n', id="tabs"),
    pytest.param(b'x = 1   \ny = "BLOCK: a"  \t\n   \n', id="trailing whitespace"),
    pytest.param(b'y = "BLOCK: a"', id="no final newline"),
    pytest.param(b'y = "BLOCK: a"  # keep   this\n\x0c\n\n\n', id="comment, form feed, blanks"),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "changes.py").write_text('x = "BLOCK: something to rewrite"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("content", UNCHANGED)
def test_file_with_nothing_to_change_is_never_rewritten(
    cli: CliRunner, project: Path, content: bytes
) -> None:
    target = project / "target.py"
    target.write_bytes(content)
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    inode = target.stat().st_ino

    check = cli.invoke(main, ["check", "."])
    assert check.exit_code == 1
    assert any(  # really parsed, not prefiltered
        line.startswith("target.py:") and " UNS002 " in line for line in check.stdout.splitlines()
    )
    assert _error_lines(check.stderr) == []

    diff = cli.invoke(main, ["diff", "."])
    assert "target.py" not in diff.stdout

    apply = cli.invoke(main, ["apply", ".", "--exit-non-zero-on-fix"])
    assert apply.exit_code == 1, apply.stderr  # changes.py was written: the run really wrote
    assert _error_lines(apply.stderr) == []
    assert (project / "changes.py").read_text().startswith('x = "OK:')
    assert target.read_bytes() == content
    assert target.stat().st_mtime_ns == 1_000_000_000
    assert target.stat().st_ino == inode


@pytest.mark.parametrize("content", CHANGED)
def test_a_rewrite_changes_only_the_rewritten_bytes(
    cli: CliRunner, project: Path, content: bytes
) -> None:
    target = project / "target.py"
    target.write_bytes(content)
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 0, result.stderr  # everything it set out to write was written
    assert _error_lines(result.stderr) == []
    assert target.read_bytes() == content.replace(b"BLOCK:", b"OK:")
    again = cli.invoke(main, ["apply", ".", "--exit-non-zero-on-fix"])
    assert again.exit_code == 0  # even asked to exit 1 on a fix: the second run writes nothing
    assert target.read_bytes() == content.replace(b"BLOCK:", b"OK:")


_SYNTAX_ERROR_LINE = re.compile(r"\S+:\d+:\d+: syntax error: \S")


def _error_lines(stderr: str) -> list[str]:
    """``error: ...`` lines and one-line syntax errors (``path:line:col: syntax error: ...``)."""
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("error:") or _SYNTAX_ERROR_LINE.match(line)
    ]
