"""Limits and hostile input beyond tests/test_bad_input.py: each file gets a clear per-file
message, nothing crashes the run, and no such file is ever written."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import unsentinel.core.engine
from unsentinel.cli import main

GOOD = 'def f(warnings):\n    warnings.append("BLOCK: order is empty")\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.unsentinel]\n")
    (tmp_path / "good.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(stderr: str, prefix: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(prefix)]


def test_max_file_size_from_pyproject_skips_without_parsing(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text("[tool.unsentinel]\nmax-file-size = 1000\n")
    big = GOOD + "# padding\n" * 200
    (project / "big.py").write_text(big)
    parsed: list[object] = []
    real_parse = unsentinel.core.engine.cst.parse_module

    def parse(source: object) -> object:
        parsed.append(source)
        return real_parse(source)  # type: ignore[arg-type]

    monkeypatch.setattr(unsentinel.core.engine.cst, "parse_module", parse)
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 1, result.stderr
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
    "nested f-strings": "x = " + "f'{" * 200 + "1" + "}'" * 200 + "\n",
}


@pytest.mark.parametrize("source", list(DEEP.values()), ids=list(DEEP))
def test_deep_nesting_is_one_error_in_a_real_process(project: Path, source: str) -> None:
    """In a child process: a stack overflow in the parser would be a signal, not an error line."""
    (project / "deep.py").write_text('"BLOCK: sentinel so the file is parsed"\n' + source)
    before = (project / "deep.py").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "unsentinel", "apply", "--jobs", "1", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (1, 2), done.stderr  # never a negative signal number
    errors = _lines(done.stderr, "error:")
    assert all(line.startswith("error: deep.py: ") for line in errors), errors
    assert (project / "deep.py").read_bytes() == before or done.returncode == 1
    assert "Warning(" in (project / "good.py").read_text()


BINARY = {
    "PNG bytes": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
    "PNG bytes with a sentinel": b"\x89PNG\r\n\x1a\nBLOCK:" + bytes(range(256)),
    "ELF with a sentinel": b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + b'"BLOCK: x"',
    "UTF-16 source": '"BLOCK: x"\n'.encode("utf-16"),
    "lone surrogate bytes": b'x = "BLOCK: \xed\xa0\x80"\n',
    "truncated utf-8": b'x = "BLOCK: caf\xc3"\n',
    "only a BOM": b"\xef\xbb\xbf",
    "BOM and a latin-1 cookie": b'\xef\xbb\xbf# coding: latin-1\nx = "BLOCK: a"\n',
    "NUL after the sentinel": b'x = "BLOCK: a"\x00\n',
    "form feed and vertical tab": b'x = 1\x0c\x0b\ny = "BLOCK: a"\n',
}


@pytest.mark.parametrize("data", list(BINARY.values()), ids=list(BINARY))
def test_binary_and_broken_encodings_are_never_written(
    cli: CliRunner, project: Path, data: bytes
) -> None:
    (project / "bad.py").write_bytes(data)
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code in (1, 2), result.stderr
    errors = _lines(result.stderr, "error:")
    assert all(line.startswith("error: bad.py: ") for line in errors)
    assert len(errors) <= 1
    assert "internal error" not in result.stderr
    assert (project / "bad.py").read_bytes() == data
    assert "Warning(" in (project / "good.py").read_text()


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
    assert result.exit_code == 1, result.stderr
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
    assert result.exit_code == 1, result.stderr
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
    try:
        result = cli.invoke(main, ["apply", "ro/m.py"])
    finally:
        (project / "ro").chmod(0o755)
    assert result.exit_code == 2
    assert "error: ro/m.py: cannot write: Permission denied; file unchanged" in result.stderr
    assert (project / "ro" / "m.py").read_text() == GOOD
