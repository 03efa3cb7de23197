"""Writing back: atomic, mode-preserving, minimal, and never over uncommitted work."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

import unsentinel.core.writer
from unsentinel.cli import main
from unsentinel.core import journal
from unsentinel.core.rule import Rule
from unsentinel.core.writer import dirty_files, write_atomic

pytestmark = pytest.mark.usefixtures("detector_rules")

BEFORE = 'warnings.append("BLOCK: order is empty")\n'
AFTER = 'warnings.append("OK: order is empty")\n'
CLEAN = "def total(items):\n    return sum(items)\n"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one committed module to rewrite and one clean module."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "orders.py").write_text(BEFORE)
    (tmp_path / "clean.py").write_text(CLEAN)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "initial")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*.unsentinel"))


# -- write_atomic -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o644, 0o755, 0o600, 0o640])
def test_write_atomic_keeps_the_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "mod.py"
    target.write_text(BEFORE)
    target.chmod(mode)
    write_atomic(target, AFTER.encode())
    assert target.read_text() == AFTER
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert _leftovers(tmp_path) == []


def test_write_atomic_replaces_the_inode(tmp_path: Path) -> None:
    """A reader holding the old file sees the old bytes: the new file is moved into place."""
    target = tmp_path / "mod.py"
    target.write_text(BEFORE)
    with target.open() as reader:
        write_atomic(target, AFTER.encode())
        assert reader.read() == BEFORE
    assert target.read_text() == AFTER


def test_new_file_gets_the_umask_mode_not_mkstemp_0600(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "warning_codes.py", b"X = 'x'\n")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((tmp_path / "warning_codes.py").stat().st_mode) == 0o644


def test_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_text(BEFORE)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, AFTER.encode())
    assert link.is_symlink()
    assert real.read_text() == AFTER


def test_failed_replace_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "mod.py"
    target.write_text(BEFORE)

    def replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", replace)  # the os module the writer calls
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, AFTER.encode())
    assert target.read_text() == BEFORE
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "failing",
    [
        pytest.param("a.py", id="first write fails"),
        pytest.param("b.py", id="a later write fails, the earlier one is restored"),
    ],
)
def test_write_error_writes_nothing_and_restores_what_was_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rewriting_rule: type[Rule],
    write_tree: WriteTree,
    failing: str,
) -> None:
    write_tree({"a.py": BEFORE, "b.py": BEFORE})
    monkeypatch.chdir(tmp_path)
    real_write_atomic = unsentinel.core.writer.write_atomic
    attempted: list[str] = []

    def write(path: Path, data: bytes, **kwargs: object) -> None:
        attempted.append(path.name)
        if path.name == failing:
            raise OSError(28, "No space left on device")
        real_write_atomic(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("unsentinel.core.transaction.write_atomic", write)
    result = CliRunner().invoke(main, ["apply", "."])
    assert result.exit_code == 2
    other = "b.py" if failing == "a.py" else "a.py"
    if failing == "b.py":
        assert attempted == ["a.py", "b.py"]  # a.py really was written before b.py failed
    lines = result.stderr.splitlines()
    assert f"error: {failing}: cannot write: No space left on device; nothing written" in lines
    assert (
        "error: nothing written: 1 file(s) failed, so the 1 file(s) that would change were "
        "held back (a migration is applied whole or not at all)"
    ) in lines
    assert f"error: {other}:" not in result.stderr
    assert (tmp_path / "a.py").read_text() == BEFORE
    assert (tmp_path / "b.py").read_text() == BEFORE
    assert not journal.journal_path(tmp_path).exists()  # nothing applied, nothing to undo
    assert _leftovers(tmp_path) == []


# -- apply through the CLI ----------------------------------------------------------------


def test_apply_only_rewrites_files_that_change(
    cli: CliRunner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rewriting_rule: type[Rule],
    write_tree: WriteTree,
) -> None:
    write_tree(
        {
            "orders.py": BEFORE,
            "clean.py": CLEAN,
            "detected.py": "x = BLOCK_WARNING_PREFIX\n",  # parsed, reported, not edited
        }
    )
    (tmp_path / "orders.py").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    old = {p.name: p.stat() for p in tmp_path.iterdir()}
    assert journal.JOURNAL_DIR not in old
    os.utime(tmp_path / "clean.py", ns=(1_000_000_000, 1_000_000_000))
    os.utime(tmp_path / "detected.py", ns=(1_000_000_000, 1_000_000_000))
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 0  # apply: everything it set out to write was written
    # The journal folder is our own state (the record ``undo`` uses), not a project file.
    new = {p.name: p.stat() for p in tmp_path.iterdir() if p.name != journal.JOURNAL_DIR}
    assert sorted(new) == sorted(old)  # no temp file left behind
    for name in ("clean.py", "detected.py"):
        assert new[name].st_mtime_ns == 1_000_000_000
        assert new[name].st_ino == old[name].st_ino
    assert new["orders.py"].st_ino != old["orders.py"].st_ino  # replaced, not edited in place
    assert stat.S_IMODE(new["orders.py"].st_mode) == 0o755
    assert (tmp_path / "orders.py").read_text() == AFTER


def test_diff_and_check_write_nothing(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rewriting_rule: type[Rule]
) -> None:
    (tmp_path / "orders.py").write_text(BEFORE)
    monkeypatch.chdir(tmp_path)
    for command in ("check", "diff", "plan"):
        cli.invoke(main, [command, "."])
    assert (tmp_path / "orders.py").read_text() == BEFORE
    # check keeps its cache (our own state, git-ignored by its own .gitignore); nothing else.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".unsentinel_cache", "orders.py"]
    assert (tmp_path / ".unsentinel_cache" / ".gitignore").read_text().strip().endswith("*")


@needs_git
def test_apply_in_a_clean_repository(
    cli: CliRunner, repo: Path, rewriting_rule: type[Rule]
) -> None:
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 0  # apply: everything it set out to write was written
    assert (repo / "orders.py").read_text() == AFTER


@needs_git
@pytest.mark.parametrize(
    "make_dirty",
    [
        pytest.param(
            lambda repo: (repo / "orders.py").write_text(BEFORE + "# wip\n"), id="modified"
        ),
        pytest.param(
            lambda repo: (
                (repo / "orders.py").write_text(BEFORE + "# wip\n"),
                git(repo, "add", "orders.py"),
            ),
            id="staged",
        ),
        pytest.param(lambda repo: (repo / "new.py").write_text(BEFORE), id="untracked"),
    ],
)
def test_apply_refuses_dirty_files(
    cli: CliRunner, repo: Path, rewriting_rule: type[Rule], make_dirty: Callable[[Path], object]
) -> None:
    make_dirty(repo)
    before = {p.name: p.read_bytes() for p in repo.glob("*.py")}
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 2
    assert "refusing to modify files with uncommitted changes" in result.stderr
    assert "--allow-dirty" in result.stderr
    assert result.stdout == ""
    assert {p.name: p.read_bytes() for p in repo.glob("*.py")} == before
    allowed = cli.invoke(main, ["apply", ".", "--allow-dirty"])
    assert allowed.exit_code == 0  # apply: everything it set out to write was written
    assert all("OK:" in p.read_text() for p in repo.glob("*.py") if p.name != "clean.py")


@needs_git
def test_refusal_names_the_dirty_files(
    cli: CliRunner, repo: Path, rewriting_rule: type[Rule]
) -> None:
    (repo / "orders.py").write_text(BEFORE + "# wip\n")
    result = cli.invoke(main, ["apply", "."])
    assert "  orders.py" in result.stderr.splitlines()


@needs_git
def test_dirty_file_that_would_not_change_does_not_block(
    cli: CliRunner, repo: Path, rewriting_rule: type[Rule]
) -> None:
    (repo / "clean.py").write_text(CLEAN + "# wip\n")
    result = cli.invoke(main, ["apply", "."])
    assert result.exit_code == 0  # apply: everything it set out to write was written
    assert (repo / "orders.py").read_text() == AFTER


def test_outside_git_nothing_is_dirty(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    assert dirty_files(tmp_path, [tmp_path / "a.py"]) == []


@needs_git
def test_dirty_files_from_a_subdirectory(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / "new.py").write_text("")
    (repo / "orders.py").write_text("changed\n")
    targets = [repo / "orders.py", repo / "clean.py", repo / "sub" / "new.py"]
    assert dirty_files(repo / "sub", targets) == [repo / "orders.py", repo / "sub" / "new.py"]


@needs_git
def test_renamed_file_is_dirty(repo: Path) -> None:
    git(repo, "mv", "orders.py", "renamed.py")
    assert dirty_files(repo, [repo / "renamed.py", repo / "clean.py"]) == [repo / "renamed.py"]


# -- diff output is what git applies ------------------------------------------------------


@needs_git
@pytest.mark.parametrize(
    "content",
    [
        pytest.param(BEFORE.encode(), id="plain"),
        pytest.param(b"# header\r\n" + BEFORE.replace("\n", "\r\n").encode(), id="CRLF"),
        pytest.param(b"import os\n" + BEFORE.rstrip("\n").encode(), id="no final newline"),
        pytest.param(b"# page one\n\x0c\n# form feed above\n" + BEFORE.encode(), id="form feed"),
        pytest.param(
            b"x = 1\n" + 'y = "a\u2028b"\n'.encode() + BEFORE.encode(), id="line separator"
        ),
        pytest.param(b"\xef\xbb\xbf" + BEFORE.encode(), id="BOM"),
    ],
)
def test_git_applies_the_diff_to_the_same_result_as_apply(
    cli: CliRunner, repo: Path, rewriting_rule: type[Rule], content: bytes
) -> None:
    (repo / "orders.py").write_bytes(content)
    git(repo, "commit", "-q", "--allow-empty", "-am", "content")
    diff = cli.invoke(main, ["diff", "orders.py"])
    assert diff.exit_code == 1
    (repo / "change.patch").write_bytes(diff.stdout_bytes)
    git(repo, "apply", "change.patch")
    patched = (repo / "orders.py").read_bytes()
    git(repo, "checkout", "orders.py")
    (repo / "change.patch").unlink()
    assert cli.invoke(main, ["apply", "orders.py"]).exit_code == 0
    assert patched == (repo / "orders.py").read_bytes()
    assert patched == content.replace(b"BLOCK:", b"OK:")
