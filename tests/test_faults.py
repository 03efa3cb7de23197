"""Fault injection: ``apply`` interrupted at the worst moments never leaves a partial file.

Every scenario ends with the same invariant: each file of the project holds either its
original bytes or its complete migrated bytes, no ``.unsentinel`` temp file is left behind
(except where the process was killed outright), and the reason is one clear error line.

Faults: the write fails (ENOSPC / EACCES / EIO at each step of the atomic write, on each
file in turn); the process is SIGKILLed between the temp write and the replace, and at a
random moment; a file changes, appears or vanishes between read and write; two ``apply``
runs start on one tree.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core.journal import JOURNAL_DIR, journal_path
from unsentinel.core.lock import LOCK_NAME, project_lock
from unsentinel.core.model import Mode
from unsentinel.core.runner import RunResult
from unsentinel.core.transaction import write_changes
from unsentinel.registry import load_config, run

PROJECT: dict[str, str] = {
    "pyproject.toml": "[tool.unsentinel]\n",
    "shop/__init__.py": "",
    "shop/utils.py": 'BLOCK_WARNING_PREFIX = "BLOCK:"\n',
    "shop/orders.py": textwrap.dedent("""
        from shop.utils import BLOCK_WARNING_PREFIX


        def complete(order_no, warnings):
            warnings.append(f"{BLOCK_WARNING_PREFIX} MO {order_no} is already completed.")


        def preview():
            warnings = []
            warnings.append("Preview only - nothing was saved")
            return warnings
        """).lstrip(),
    "shop/ui.py": textwrap.dedent("""
        from shop.utils import BLOCK_WARNING_PREFIX


        def render(resp):
            blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in resp.warnings)
            return [f"- {w}" for w in resp.warnings], blocked
        """).lstrip(),
    "shop/notes.py": textwrap.dedent("""
        def get(note_id):
            try:
                return store.get(note_id)
            except LookupError as e:
                return {"error": str(e)}
        """).lstrip(),
    "shop/web.py": textwrap.dedent("""
        def get_note(note_id):
            return jsonify({"message": f"Note {note_id} not found"}), 404
        """).lstrip(),
    "shop/untouched.py": "def add(a, b):\n    return a + b\n",
}

Snapshot = dict[str, bytes]


def _write_project(root: Path) -> None:
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _snapshot(root: Path) -> Snapshot:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        # The apply journal is unsentinel's own state (git-ignored), not project content.
        if p.is_file() and "__pycache__" not in p.parts and JOURNAL_DIR not in p.parts
    }


class Reference:
    """The project before and after a clean ``apply``, and the run that computed it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        _write_project(root)
        self.before = _snapshot(root)
        self.config = load_config((root,))  # as the CLI builds it
        self.result: RunResult = run([root], self.config, Mode.DIFF, jobs=1)
        assert self.result.failed == []
        # Generated modules name call sites relative to the cwd: apply from the same spot.
        clean = root.parent / "cleanroom" / "project"
        shutil.copytree(root, clean)
        os.chdir(clean.parent)
        run([clean], replace(self.config, root=clean), Mode.APPLY, jobs=1)
        os.chdir(root.parent)
        self.after = _snapshot(clean)
        self.changed = sorted(  # project files: the apply journal is unsentinel's own state
            n
            for n in self.after
            if self.after[n] != self.before.get(n) and not n.startswith(f"{JOURNAL_DIR}/")
        )
        assert len(self.changed) >= 6, self.changed  # enough files to fail in between

    def copy(self, target: Path) -> Path:
        shutil.copytree(self.root, target)
        return target

    def assert_whole(self, root: Path, *, leftovers_ok: bool = False) -> dict[str, str]:
        """Every file original or completely new; returns which state each changed one is in."""
        now = _snapshot(root)
        temps = [n for n in now if n.endswith(".unsentinel")]
        if not leftovers_ok:
            assert temps == []
        states = {}
        for name in sorted(set(now) | set(self.before) | set(self.after)):
            if name in temps or name == LOCK_NAME:
                continue
            data = now.get(name)
            if data == self.before.get(name):
                states[name] = "original"
            elif data == self.after.get(name):
                states[name] = "new"
            else:
                raise AssertionError(f"{name} is neither original nor migrated: {data!r}")
        return states


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    base = tmp_path_factory.mktemp("reference")
    previous = os.getcwd()
    os.chdir(base)  # result paths read "project/...", as they will in every copy
    try:
        yield Reference(base / "project")
    finally:
        os.chdir(previous)


@pytest.fixture
def copy(reference: Reference, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the reference project; the cwd is set so result paths point into it."""
    root = tmp_path / "project"
    reference.copy(root)
    monkeypatch.chdir(tmp_path)
    return root


# -- the write fails -----------------------------------------------------------------------

FAULTS = {
    "ENOSPC on the temp file write": ("fsync", errno.ENOSPC),
    "EACCES creating the temp file": ("mkstemp", errno.EACCES),
    "EPERM on chmod": ("chmod", errno.EPERM),
    "EACCES on replace": ("replace", errno.EACCES),
    "EIO on replace": ("replace", errno.EIO),
    "EROFS on mkdir": ("mkdir", errno.EROFS),
}


def _inject(
    monkeypatch: pytest.MonkeyPatch, where: str, code: int, fail_on: Callable[[int], bool]
) -> list[int]:
    """Make the ``where`` step of the writer raise ``OSError(code)`` on the calls chosen."""
    calls = [0]

    def failing(real: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            calls[0] += 1
            if fail_on(calls[0]):
                raise OSError(code, os.strerror(code))
            return real(*args, **kwargs)

        return wrapper

    # The writer calls these through the modules (``os.replace``, ``tempfile.mkstemp``).
    if where == "fsync":
        monkeypatch.setattr(os, "fsync", failing(os.fsync))
    elif where == "mkstemp":
        monkeypatch.setattr(tempfile, "mkstemp", failing(tempfile.mkstemp))
    elif where == "chmod":
        monkeypatch.setattr(os, "chmod", failing(os.chmod))
    elif where == "replace":
        monkeypatch.setattr(os, "replace", failing(os.replace))
    elif where == "mkdir":
        monkeypatch.setattr(Path, "mkdir", failing(Path.mkdir))
    return calls


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
@pytest.mark.parametrize("nth", [1, 2, 4, 6], ids=lambda n: f"on write {n}")
def test_a_failing_write_rolls_the_whole_apply_back(
    reference: Reference, copy: Path, monkeypatch: pytest.MonkeyPatch, fault: str, nth: int
) -> None:
    """All or nothing: whichever write fails, every file ends as it was, nothing is "written"."""
    where, code = FAULTS[fault]
    calls = _inject(monkeypatch, where, code, lambda call: call == nth)
    result = write_changes(reference.result, replace(reference.config, root=copy), allow_dirty=True)
    states = reference.assert_whole(copy)
    assert calls[0] >= nth, "the fault was never injected"
    [(_failed, reason)] = result.write_errors
    assert reason.endswith(f"{os.strerror(code)}; nothing written")
    assert result.written == ()
    assert set(states.values()) == {"original"}
    assert len(result.held_back) >= len(reference.changed) - 1
    assert not journal_path(copy).exists()


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
def test_disk_full_for_every_write(
    reference: Reference, copy: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    where, code = FAULTS[fault]
    _inject(monkeypatch, where, code, lambda call: True)
    result = write_changes(reference.result, replace(reference.config, root=copy), allow_dirty=True)
    assert result.written == ()
    assert len(result.write_errors) == 1  # the first failure stops the run; nothing is written
    assert set(reference.assert_whole(copy).values()) == {"original"}


def test_disk_full_through_the_cli(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(copy)
    _inject(monkeypatch, "fsync", errno.ENOSPC, lambda call: call == 1)
    result = CliRunner().invoke(main, ["apply", "."])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    # The first fsync is the journal's, recorded before any file is touched.
    assert len(errors) == 2
    assert errors[0].endswith(
        ": cannot record the journal of this apply: No space left on device; nothing written"
    )
    assert errors[1].startswith("error: nothing written: 1 file(s) failed")


# -- the process is killed --------------------------------------------------------------------

# Exit 1 when files were written (0: nothing to do, 2: refused or failed).
# No review markers: the reference is the library's apply, which leaves none.
APPLY = ("apply", "--no-mark-review", "--exit-non-zero-on-fix", "--jobs", "1")

KILL_ON_REPLACE = """
import os, sys
import unsentinel.core.writer
from unsentinel.cli import main
from unsentinel.core.journal import JOURNAL_DIR

nth, calls, real = int(sys.argv[1]), [0], os.replace
def replace(src, dst):
    if os.path.basename(os.path.dirname(dst)) != JOURNAL_DIR:  # not the apply's own journal
        calls[0] += 1
        if calls[0] == nth:
            # The temp file is complete, the target not yet replaced: say so, then wait for
            # the SIGKILL (the parent never writes to stdin; end of input: it is gone).
            print("stopped", os.fspath(src), os.fspath(dst), sep="\\0", flush=True)
            sys.stdin.read()
            os._exit(3)
    real(src, dst)
unsentinel.core.writer.os.replace = replace
sys.argv = [
    "unsentinel", "apply", "--no-mark-review", "--exit-non-zero-on-fix", "--jobs", "1", sys.argv[2]
]
main()
"""


def _apply_process(
    root: Path, *args: str, script: str | None = None, stdin: int | None = None
) -> subprocess.Popen[str]:
    """``unsentinel apply`` on ``root`` in a child process, run from the root's parent as the
    reference was (the generated modules name call sites relative to the cwd)."""
    if script:
        command = [sys.executable, "-c", script, *args, root.name]
    else:
        command = [sys.executable, "-m", "unsentinel", *APPLY, root.name]
    return subprocess.Popen(
        command,
        cwd=root.parent,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _leftovers(root: Path) -> list[Path]:
    return sorted(p.resolve() for p in root.rglob("*.unsentinel") if p.is_file())


@pytest.mark.parametrize("nth", [1, 3, 7], ids=lambda n: f"before replace {n}")
def test_killed_between_temp_write_and_replace(reference: Reference, copy: Path, nth: int) -> None:
    process = _apply_process(copy, str(nth), script=KILL_ON_REPLACE, stdin=subprocess.PIPE)
    assert process.stdout is not None
    for line in process.stdout:  # blocks until the child is inside the nth replace
        if line.startswith("stopped\0"):
            break
    else:
        raise AssertionError(f"never reached replace {nth}: {process.communicate(timeout=120)}")
    _stopped, temp_name, target_name = line.rstrip("\n").split("\0")
    temp, target = Path(temp_name), Path(target_name)
    name = target.relative_to(copy.resolve()).as_posix()
    # The kill lands exactly here: the temp file holds the complete new bytes, next to a
    # target that still holds its original bytes.
    assert temp.parent == target.parent
    assert temp.name.startswith(f".{target.name}.") and temp.name.endswith(".unsentinel")
    assert temp.read_bytes() == reference.after[name]
    if name in reference.before:
        assert target.read_bytes() == reference.before[name]
    else:  # a generated module, not created yet
        assert not target.exists()
    process.kill()
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL

    states = reference.assert_whole(copy, leftovers_ok=True)
    assert states[name] == "original"
    assert sum(state == "new" for n, state in states.items() if n in reference.changed) == nth - 1
    # The one leftover is the temp file of the interrupted write, and it is detected as such.
    assert _leftovers(copy) == [temp]
    with pytest.raises(AssertionError):
        reference.assert_whole(copy)

    # The kernel dropped the lock with the process: the next apply runs and completes.
    again = _apply_process(copy)
    _out, err = again.communicate(timeout=120)
    assert again.returncode == 1, err
    states = reference.assert_whole(copy, leftovers_ok=True)
    assert {n: s for n, s in states.items() if n in reference.changed} == dict.fromkeys(
        reference.changed, "new"
    )
    assert _leftovers(copy) == [temp]  # a stale temp file is never read, nor removed
    assert not (copy / LOCK_NAME).exists()


@pytest.mark.parametrize("delay", [0.3, 0.6, 0.9, 1.2])
def test_killed_at_a_random_moment(reference: Reference, copy: Path, delay: float) -> None:
    process = _apply_process(copy)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=120)
    reference.assert_whole(copy, leftovers_ok=True)


# -- the file changes under us ------------------------------------------------------------------


def test_file_edited_between_read_and_write_is_refused(reference: Reference, copy: Path) -> None:
    edited = copy / "shop" / "orders.py"
    edited.write_text(PROJECT["shop/orders.py"] + "# a line the user just added\n")
    mine = edited.read_bytes()
    result = write_changes(reference.result, replace(reference.config, root=copy), allow_dirty=True)
    assert result.write_errors == (
        (
            "project/shop/orders.py",
            "changed on disk while unsentinel ran; nothing written (run apply again)",
        ),
    )
    assert edited.read_bytes() == mine
    assert result.written == ()  # all or nothing: the files written before it are rolled back
    others = {k: v for k, v in _snapshot(copy).items() if k != "shop/orders.py"}
    assert others == {k: v for k, v in reference.before.items() if k != "shop/orders.py"}


def test_file_edited_at_the_last_moment_before_replace(
    reference: Reference, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check runs after the temp file is complete, right before ``os.replace``."""
    real_chmod = os.chmod

    def chmod(path: str, mode: int) -> None:
        real_chmod(path, mode)
        if ".ui.py." in os.path.basename(path):
            (copy / "shop" / "ui.py").write_text("edited = True\n")

    monkeypatch.setattr(os, "chmod", chmod)
    result = write_changes(reference.result, replace(reference.config, root=copy), allow_dirty=True)
    assert [path for path, _ in result.write_errors] == ["project/shop/ui.py"]
    assert (copy / "shop" / "ui.py").read_text() == "edited = True\n"
    assert not list(copy.rglob("*.unsentinel"))


def test_generated_module_created_meanwhile_is_not_overwritten(
    reference: Reference, copy: Path
) -> None:
    created = [r.path for r in reference.result.emitted if r.original is None]
    assert created, "the reference run emits at least one new module"
    target = copy.parent / created[0]
    target.write_text("# somebody else's module\n")
    result = write_changes(reference.result, replace(reference.config, root=copy), allow_dirty=True)
    assert (
        created[0],
        "changed on disk while unsentinel ran; nothing written (run apply again)",
    ) in result.write_errors
    assert target.read_text() == "# somebody else's module\n"


def test_edit_between_plan_and_apply_is_migrated_as_it_is_now(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``apply`` recomputes from the files as they are: a stale plan cannot be applied."""
    monkeypatch.chdir(copy)
    assert CliRunner().invoke(main, ["plan", ".", "-o", "plan.json"]).exit_code == 0
    (copy / "shop" / "web.py").write_text("def get_note(note_id):\n    return None\n")
    result = CliRunner().invoke(main, [*APPLY, "."])
    assert result.exit_code == 1, result.stderr
    assert (copy / "shop" / "web.py").read_text() == "def get_note(note_id):\n    return None\n"


# -- two runs at once ---------------------------------------------------------------------------


def test_second_apply_while_the_lock_is_held_exits_2(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(copy)
    before = _snapshot(copy)
    with project_lock(copy):
        result = CliRunner().invoke(main, ["apply", "."])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: another unsentinel apply is running on this project (pid {os.getpid()}); "
        "run again when it has finished\n"
    )
    assert _snapshot(copy) == before
    assert not (copy / LOCK_NAME).exists()  # released and removed on exit


def test_check_diff_and_plan_need_no_lock(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(copy)
    with project_lock(copy):
        for command in ("check", "diff", "plan"):
            assert CliRunner().invoke(main, [command, "."]).exit_code in (0, 1)


HOLD_LOCK = """
import sys, time
from pathlib import Path
from unsentinel.core.lock import project_lock
with project_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_lock_of_a_killed_holder_is_taken_over(copy: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLD_LOCK,
            str(copy),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    blocked = _apply_process(copy)
    _out, err = blocked.communicate(timeout=120)
    assert blocked.returncode == 2
    assert f"another unsentinel apply is running on this project (pid {holder.pid})" in err
    holder.kill()
    holder.wait()
    assert (copy / LOCK_NAME).exists()  # SIGKILL: the file stays, the flock does not
    after = _apply_process(copy)
    _out, err = after.communicate(timeout=120)
    assert after.returncode == 1, err
    assert not (copy / LOCK_NAME).exists()


@pytest.mark.parametrize("attempt", range(3))
def test_two_real_applies_at_once(reference: Reference, copy: Path, attempt: int) -> None:
    first, second = _apply_process(copy), _apply_process(copy)
    outcomes = sorted(
        (p.returncode, err) for p in (first, second) for _out, err in [p.communicate(timeout=120)]
    )
    codes = [code for code, _ in outcomes]
    # Either they overlapped (one wins, the other is refused) or ran one after the other.
    assert codes in ([1, 2], [0, 1]), outcomes
    if codes == [1, 2]:
        assert "another unsentinel apply is running on this project" in outcomes[1][1]
    states = reference.assert_whole(copy)
    assert {n: states[n] for n in reference.changed} == dict.fromkeys(reference.changed, "new"), (
        outcomes
    )


# -- found while building these tests ------------------------------------------------------------


def test_generated_modules_do_not_depend_on_the_working_directory(tmp_path: Path) -> None:
    outputs = []
    for where in ("root", "parent"):
        root = tmp_path / where / "project"
        _write_project(root)
        completed = subprocess.run(
            [sys.executable, "-m", "unsentinel", *APPLY, str(root)],
            cwd=root if where == "root" else root.parent,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert completed.returncode == 1, completed.stderr
        outputs.append(_snapshot(root))
    assert outputs[0] == outputs[1]
