"""``unsentinel apply --interactive`` under a real pseudo-terminal, as a reviewer runs it.

The command runs in a child process whose standard input, output and error are a pty
(stdlib ``pty.openpty``); the test reads the prompts as they come and types the answers:
it skips the first site of the repository's tests, renames one code, and accepts every
other site. Then it reads the files written in the temporary git copy of the fixture.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent.parent / "fixtures" / "mcp_orders"
HEADER = re.compile(r"\[(\d+)/(\d+)\] (\S+):(\d+):(\d+)  (UNS\d+)")
KEYS_PROMPT = "[q]uit ? "
DEADLINE = 300  # seconds for the whole review; a hung prompt fails instead of blocking CI

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")


class Reviewer:
    """Answers each prompt: skip the first test-file site, rename one code, accept the rest."""

    def __init__(self) -> None:
        self.skipped: tuple[str, int] | None = None
        self.edited: tuple[str, int] | None = None
        self.sites = 0

    def __call__(self, pending: str) -> str | None:
        if pending.endswith("edit which value (severity / field_path / code) > "):
            return "code"
        if pending.endswith("new code > "):
            return "MO_ALREADY_DONE"
        if not pending.endswith(KEYS_PROMPT):
            return None  # the prompt is not complete yet
        headers = HEADER.findall(pending)
        if not headers:
            return "a"  # asked again after the edit: accept the edited site
        self.sites += 1
        _index, _total, path, line, _column, rule = headers[-1]
        if self.skipped is None and path.startswith("tests/"):
            self.skipped = (path, int(line))
            return "s"
        if self.edited is None and rule == "UNS101":
            self.edited = (path, int(line))
            return "e"
        return "a"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def interact(command: list[str], cwd: Path, answer: Callable[[str], str | None]) -> tuple[int, str]:
    """Run ``command`` on a pty, typing ``answer(output since the last answer)`` when not None."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in {"FORCE_COLOR", "COLUMNS"}}
    env["NO_COLOR"] = "1"
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, close_fds=True
    )
    os.close(slave)
    output, pending = [], ""
    deadline = time.monotonic() + DEADLINE
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
            output.append(text)
            pending += text
            reply = answer(pending)
            if reply is not None:
                os.write(master, f"{reply}\n".encode())
                pending = ""
        else:
            process.kill()
            pytest.fail("the interactive review did not finish in time:\n" + "".join(output))
    finally:
        os.close(master)
    return process.wait(timeout=60), "".join(output)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is needed for a version-controlled copy")
    target = tmp_path / "mcp_orders"
    shutil.copytree(FIXTURE, target)
    git(target, "init", "-q", ".")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "fixture")
    return target


def test_review_under_a_pseudo_terminal_writes_what_was_accepted(repo: Path) -> None:
    reviewer = Reviewer()
    command = [sys.executable, "-m", "unsentinel", "apply", "--interactive", ".", "-j1"]
    code, output = interact(command, repo, reviewer)
    assert code == 0, output
    assert reviewer.skipped is not None and reviewer.edited is not None, output
    assert reviewer.sites > 20, output

    # the renamed code: at the site, in every site that shared it, in warning_codes
    edited_path, _line = reviewer.edited
    assert "code=warning_codes.MO_ALREADY_DONE" in (repo / edited_path).read_text()
    codes = next(repo.rglob("warning_codes.py")).read_text()
    assert "MO_ALREADY_DONE = " in codes
    assert "ALREADY_COMPLETED = " not in codes

    # the skipped site is as it was
    skipped_path, line = reviewer.skipped
    original = (FIXTURE / skipped_path).read_text().splitlines()[line - 1]
    assert original in (repo / skipped_path).read_text().splitlines(), output

    # the rest was accepted and written
    models = (repo / "orders_mcp" / "tools" / "models.py").read_text()
    assert "warnings: list[Warning]" in models
    assert "will be written" in output
