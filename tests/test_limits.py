"""Limits and hostile input beyond tests/test_bad_input.py: each file gets a clear per-file
message, nothing crashes the run, and no such file is ever written (nor, the run having failed,
any other: a migration is applied whole or not at all)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core import journal

GOOD = 'def f(warnings):\n    warnings.append("BLOCK: order is empty")\n'
# good.py and the two generated modules (warning codes, warning model) it would bring.
HELD_BACK_GOOD = (
    "error: nothing written: 1 file(s) failed, so the 3 file(s) that would change were held "
    "back (a migration is applied whole or not at all)"
)
_SYNTAX_ERROR_LINE = re.compile(r"\S+:\d+:\d+: syntax error: \S")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "good.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(stderr: str, prefix: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(prefix)]


def _diagnostics(stderr: str) -> list[str]:
    """``error: ...`` lines and one-line syntax errors (``path:line:col: syntax error: ...``)."""
    return [
        line
        for line in stderr.splitlines()
        if line.startswith("error:") or _SYNTAX_ERROR_LINE.match(line)
    ]


def _project_files(root: Path) -> list[str]:
    """Every file of the project; the journal folder is our own state, not one of them."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and journal.JOURNAL_DIR not in p.parts
    )


def test_max_file_size_from_pyproject_skips_without_parsing(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text("[tool.unsentinel]\nmax-file-size = 1000\n")
    big = GOOD + "# padding\n" * 200
    (project / "big.py").write_text(big)
    parsed: list[object] = []
    real_parse = cst.parse_module

    def parse(source: object) -> object:
        parsed.append(source)
        return real_parse(source)  # type: ignore[arg-type]

    monkeypatch.setattr(cst, "parse_module", parse)  # the libcst the engine calls
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 0, result.stderr  # a skipped file is no failure: good.py is written
    size = len(big.encode())
    assert _lines(result.stderr, "skipped:") == [
        f"skipped: big.py: larger than max-file-size ({size} > 1000 bytes)"
    ]
    assert (project / "big.py").read_text() == big
    assert not any(isinstance(s, bytes) and b"padding" in s for s in parsed)
    assert "Warning(" in (project / "good.py").read_text()


DEEP = {
    "parentheses": "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
    "lists": "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "unary minus": "x = " + "-" * 100_000 + "1\n",
    "binary chain": "x = " + " + ".join(["1"] * 100_000) + "\n",
    "attribute chain": "x = a" + ".b" * 100_000 + "\n",
    "call chain": "x = f" + "()" * 50_000 + "\n",
    "nested blocks": "".join("    " * i + "if x:\n" for i in range(100)) + "    " * 100 + "pass\n",
    "nested f-strings": "x = " + "f'{" * 1000 + "1" + "}'" * 1000 + "\n",
}


@pytest.mark.parametrize("source", list(DEEP.values()), ids=list(DEEP))
def test_deep_nesting_is_one_error_in_a_real_process(project: Path, source: str) -> None:
    """In a child process: a stack overflow in the parser would be a signal, not an error line.

    The deep file fails (one line), so nothing is written: good.py is held back."""
    (project / "deep.py").write_text('"BLOCK: sentinel so the file is parsed"\n' + source)
    before = (project / "deep.py").read_bytes()
    files_before = _project_files(project)
    done = subprocess.run(
        [sys.executable, "-m", "unsentinel", "apply", "--jobs", "1", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr  # never a negative signal number
    [error, held_back] = _diagnostics(done.stderr)
    assert error.startswith("error: deep.py: ") or (
        error.startswith("deep.py:") and _SYNTAX_ERROR_LINE.match(error)
    ), error
    assert held_back == HELD_BACK_GOOD
    assert (project / "deep.py").read_bytes() == before
    assert (project / "good.py").read_text() == GOOD
    assert _project_files(project) == files_before  # no generated module either


# The data, and the start of bad.py's one error line (None: no needle, so the prefilter
# passes over it unread and the run, bad.py untouched, migrates good.py).
BINARY: dict[str, tuple[bytes, str | None]] = {
    "PNG bytes": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, None),
    "PNG bytes with a sentinel": (
        b"\x89PNG\r\n\x1a\nBLOCK:" + bytes(range(256)),
        "error: bad.py: contains NUL bytes",
    ),
    "ELF with a sentinel": (
        b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b'"BLOCK: x"',
        "error: bad.py: contains NUL bytes",
    ),
    "UTF-16 source": ('"BLOCK: x"\n'.encode("utf-16"), None),
    "lone surrogate bytes": (
        b'x = "BLOCK: \xed\xa0\x80"\n',
        "error: bad.py: cannot decode as utf-8: invalid byte 0xed on line 1",
    ),
    "truncated utf-8": (
        b'x = "BLOCK: caf\xc3"\n',
        "error: bad.py: cannot decode as utf-8: invalid byte 0xc3 on line 1",
    ),
    "only a BOM": (b"\xef\xbb\xbf", None),
    "BOM and a latin-1 cookie": (
        b'\xef\xbb\xbf# coding: latin-1\nx = "BLOCK: a"\n',
        "error: bad.py: bad coding declaration",
    ),
    "NUL after the sentinel": (b'x = "BLOCK: a"\x00\n', "error: bad.py: contains NUL bytes"),
    "form feed and vertical tab": (
        b'x = 1\x0c\x0b\ny = "BLOCK: a"\n',
        "bad.py:1:7: syntax error: ",  # one line, in Python's own words
    ),
}


@pytest.mark.parametrize(("data", "error"), list(BINARY.values()), ids=list(BINARY))
def test_binary_and_broken_encodings_are_never_written(
    cli: CliRunner, project: Path, data: bytes, error: str | None
) -> None:
    (project / "bad.py").write_bytes(data)
    files_before = _project_files(project)
    result = cli.invoke(main, ["apply", "."])
    assert "internal error" not in result.stderr
    assert (project / "bad.py").read_bytes() == data
    if error is None:  # never read past the prefilter: the rest is migrated as usual
        assert result.exit_code == 0, result.stderr
        assert _diagnostics(result.stderr) == []
        assert "Warning(" in (project / "good.py").read_text()
        return
    assert result.exit_code == 2, result.stderr
    [line, held_back] = _diagnostics(result.stderr)
    assert line.startswith(error)
    assert held_back == HELD_BACK_GOOD  # bad.py failed: nothing is written at all
    assert (project / "good.py").read_text() == GOOD
    assert _project_files(project) == files_before


def test_mixed_line_endings_keep_every_untouched_line(cli: CliRunner, project: Path) -> None:
    data = (
        b"import os\r\n"
        b"def f(warnings):\n"
        b'    warnings.append("BLOCK: order is empty")\r\n'
        b"    return os.sep\r"
        b"\n"
        b"x = 1\n"
    )
    (project / "mixed.py").write_bytes(data)
    result = cli.invoke(main, ["apply", "mixed.py"])
    assert result.exit_code == 0, result.stderr  # apply: everything it set out to write was written
    new = (project / "mixed.py").read_bytes()
    compile(new, "mixed.py", "exec")
    assert b"    return os.sep\r\n" in new and new.endswith(b"x = 1\n")
    assert b"BLOCK:" not in new


def test_socket_named_like_a_module(cli: CliRunner, project: Path) -> None:
    path = project / "sock.py"
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.bind(str(path))
        except OSError as exc:  # pragma: no cover - path too long for AF_UNIX
            pytest.skip(f"cannot bind a unix socket here: {exc}")
        result = cli.invoke(main, ["check", "sock.py", "good.py"])
    assert result.exit_code == 2
    assert _lines(result.stderr, "error:") == [
        "error: sock.py: not a regular file (FIFO, socket or device)"
    ]


def test_device_named_explicitly(cli: CliRunner, project: Path) -> None:
    result = cli.invoke(main, ["check", "/dev/null", "good.py"])
    assert result.exit_code == 2
    [line] = _lines(result.stderr, "error:")
    assert line.endswith("not a regular file (FIFO, socket or device)")


def test_a_huge_line_within_the_limit(cli: CliRunner, project: Path) -> None:
    data = 'x = "' + "a" * 1_500_000 + '"\nwarnings = []\nwarnings.append("BLOCK: a")\n'
    (project / "huge.py").write_text(data)
    result = cli.invoke(main, ["apply", "huge.py"])
    assert result.exit_code == 0, result.stderr  # apply: everything it set out to write was written
    new = (project / "huge.py").read_text()
    assert data.splitlines()[0] + "\n" in new
    assert "Warning(" in new


@pytest.mark.parametrize(
    "data",
    [b"", b"\n", b"\xef\xbb\xbf", b"# BLOCK: only a comment\n", b"\\\n", b"BLOCK_WARNING_PREFIX"],
    ids=["empty", "one newline", "BOM only", "comment only", "lone continuation", "no newline"],
)
def test_degenerate_files(cli: CliRunner, project: Path, data: bytes) -> None:
    (project / "tiny.py").write_bytes(data)
    result = cli.invoke(main, ["apply", "."])
    assert "internal error" not in result.stderr
    assert (project / "tiny.py").read_bytes() == data


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a read-only directory")
def test_read_only_directory_is_a_write_error(cli: CliRunner, project: Path) -> None:
    (project / "ro").mkdir()
    (project / "ro" / "m.py").write_text(GOOD)
    (project / "ro").chmod(0o555)
    files_before = _project_files(project)
    try:
        result = cli.invoke(main, ["apply", "ro/m.py"])
    finally:
        (project / "ro").chmod(0o755)
    assert result.exit_code == 2
    assert "error: ro/m.py: cannot write: Permission denied; nothing written" in result.stderr
    assert (project / "ro" / "m.py").read_text() == GOOD
    # The generated modules written before m.py failed are rolled back from the journal.
    assert _project_files(project) == files_before
