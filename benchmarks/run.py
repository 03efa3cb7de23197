"""Benchmark unsentinel side by side with its peers, and write docs/benchmarks.md.

    python benchmarks/run.py --quick                  # smoke test: a small generated tree, 1 run
    python benchmarks/run.py --write-doc              # every tree, 5 runs (on a quiet machine)
    python benchmarks/run.py --tree sympy --runs 1    # one tree (repeat --tree for more)
    python benchmarks/run.py --json out.json          # keep the raw figures ...
    python benchmarks/run.py --from-json out.json --write-doc   # ... and render them later

On the same trees, in one go, it times: ``unsentinel check`` cold (``--no-cache`` when the
CLI has it) and warm (after a priming run), ``unsentinel plan`` and ``unsentinel diff``
(and ``plan`` on the generated tree's big module alone); ``rg`` for the sentinel
(``grep -r`` if ripgrep is missing); ``ast-grep scan`` with
``benchmarks/ast_grep_sentinel.yml``; ``ruff check`` with one rule; and LibCST's own
codemod runner (``python -m libcst.tool codemod``) with the no-op codemod in
``benchmarks/noop_codemod.py`` and with our migration as a codemod
(``unsentinel.codemod.Migrate``, one file at a time). Every tool that takes ``-j`` gets the
same one.

Trees: the generated MCP-server-like repository (``benchmarks/generate.py``), sympy's
sdist (pinned), the standard library plus the project venv's site-packages, and the
pinned sdists of ``benchmarks/ecosystem.py`` when that script is present. Each tree is a
copy in a temporary directory holding only the ``*.py`` files, without the directories
that some tool skips by default (``build``, ``dist``, ``site-packages``, hidden ones ...),
so every tool sees the same files and nothing is written next to the originals.

Each command is a whole process, run several times (fewer when its runs add up to more
than ``--budget`` seconds): median wall time, median CPU time (user + sys of the process
and the workers it waited for), peak RSS of its largest single process (both read by GNU
``time`` where installed, else by ``os.wait4``), and lines per second. Ratios are
unsentinel's time divided by each peer's. No figure here is ever asserted by a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import pstats
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOC = ROOT / "docs" / "benchmarks.md"
VENV_BIN = ROOT / ".venv" / "bin"
RULE_FILE = HERE / "ast_grep_sentinel.yml"
NOOP_CODEMOD = "noop_codemod.NoOpCommand"
MIGRATE_CODEMOD = "unsentinel.codemod.Migrate"
SENTINEL_PATTERN = "BLOCK:|BLOCK_WARNING_PREFIX"
RUFF_RULE = "E501"
# GNU time reports the command's own peak RSS; os.wait4 alone would also count the pages
# the forked child inherited from this (much larger) Python process before its exec.
GNU_TIME = "/usr/bin/time"
TREES = ("generated", "sympy", "stdlib", "ecosystem")
OUR_KEYS = ("check-cold", "check-warm", "plan", "diff", "plan-big")
PEER_KEYS = ("rg", "ast-grep", "ruff", "libcst-noop", "libcst-migrate")
COMMAND_KEYS = (*OUR_KEYS, *PEER_KEYS)
SYMPY = ("sympy", "1.14.0", "d3d3fe8df1e5a0b42f0e7bdf50541697dbe7d23746e894990c030e2b05e72517")

sys.path.insert(0, str(HERE))
import generate  # noqa: E402  (benchmarks/ is not a package)

# Directory names that at least one of the tools skips by default (ruff's list is the
# longest); leaving them out of the copies keeps the file sets identical.
SKIPPED_DIRS = {
    "build",
    "dist",
    "site-packages",
    "node_modules",
    "venv",
    "_build",
    "buck-out",
    "__pypackages__",
    "__pycache__",
}


# -- trees -----------------------------------------------------------------------------


@dataclass
class Tree:
    name: str
    path: Path
    description: str
    files: int = 0
    lines: int = 0
    big_module: Path | None = None  # a 10,000-line module with many sites (generated tree)
    big_lines: int = 0


def count(tree: Tree) -> None:
    """Files and lines of ``tree`` (reading every file also warms the page cache)."""
    files = list(tree.path.rglob("*.py"))
    tree.files = len(files)
    tree.lines = sum(path.read_bytes().count(b"\n") for path in files)


def copy_python_files(source: Path, target: Path) -> None:
    """Copy the ``*.py`` files under ``source`` to ``target``; never writes to ``source``."""
    for directory, subdirs, names in os.walk(source):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS and not d.startswith("."))
        relative = Path(directory).relative_to(source)
        for name in sorted(names):
            if name.endswith(".py"):
                destination = target / relative / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(directory) / name, destination)


def generated_tree(work: Path, modules: int, big_lines: int) -> Tree:
    spec = generate.Spec(modules=modules, big_lines=big_lines)
    manifest = generate.generate(work / "generated", spec)
    sentinel_modules = len(manifest.sentinel_modules())
    big = next((m for m in manifest.modules if m.big and m.sentinel), None)
    return Tree(
        "generated",
        manifest.root,
        f"benchmarks/generate.py --modules {modules} --big-lines {big_lines} --seed {spec.seed} "
        f"({sentinel_modules} modules with sentinels, {spec.big_count()} big modules)",
        big_module=manifest.root / big.path if big else None,
        big_lines=big.lines if big else 0,
    )


def sympy_tree(work: Path) -> Tree:
    from sdists import Pin, fetch

    source = fetch(Pin(*SYMPY))
    copy_python_files(source, work / "sympy")
    return Tree("sympy", work / "sympy", f"sympy {SYMPY[1]} sdist from PyPI (every .py file)")


def stdlib_tree(work: Path, python: str) -> Tree:
    query = (
        "import sysconfig, json; p = sysconfig.get_paths(); "
        "print(json.dumps([p['stdlib'], p['purelib']]))"
    )
    stdlib, purelib = json.loads(subprocess.check_output([python, "-c", query], text=True))
    copy_python_files(Path(stdlib), work / "stdlib" / "lib")
    copy_python_files(Path(purelib), work / "stdlib" / "packages")
    return Tree(
        "stdlib",
        work / "stdlib",
        f"standard library ({stdlib}) plus the venv's site-packages ({purelib})",
    )


def ecosystem_tree(work: Path) -> Tree | None:
    """Every pinned sdist of benchmarks/ecosystem.py side by side, if that script is here."""
    try:
        import ecosystem
        from sdists import fetch
    except ImportError as missing:
        print(f"\n== ecosystem: skipped ({missing})", flush=True)
        return None
    pins = [package.pin for package in ecosystem.PACKAGES if package.pin is not None]
    for pin in pins:
        copy_python_files(fetch(pin), work / "ecosystem" / f"{pin.name}-{pin.version}")
    description = f"the {len(pins)} pinned sdists of benchmarks/ecosystem.py (every .py file)"
    return Tree("ecosystem", work / "ecosystem", description)


# -- tools -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Toolbox:
    unsentinel: list[str]
    python: str  # the interpreter that has libcst
    rg: list[str]  # rg, or grep -r
    ast_grep: str | None
    ruff: str | None
    jobs: int
    no_cache: bool  # whether `unsentinel check` has --no-cache

    def env(self, pythonpath: str = "") -> dict[str, str]:
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [pythonpath, env.get("PYTHONPATH", "")])
            )
        env.setdefault("NO_COLOR", "1")
        return env


def find_unsentinel(explicit: str | None) -> list[str]:
    if explicit:
        return shlex.split(explicit)
    script = VENV_BIN / "unsentinel"
    if script.exists():
        return [str(script)]
    found = shutil.which("unsentinel")
    return [found] if found else [sys.executable, "-m", "unsentinel"]


def find_python() -> str:
    venv_python = VENV_BIN / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def ensure_ripgrep(install: bool) -> list[str]:
    if shutil.which("rg") is None and install and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "ripgrep"], capture_output=True, check=False)
    rg = shutil.which("rg")
    return [rg] if rg else ["grep", "-rnE", "--include=*.py"]


def ensure_ast_grep(python: str, install: bool) -> str | None:
    candidate = Path(python).parent / "ast-grep"
    if not candidate.exists() and install:
        subprocess.run(
            [python, "-m", "pip", "install", "-q", "ast-grep-cli"], capture_output=True, check=False
        )
    if candidate.exists():
        return str(candidate)
    return shutil.which("ast-grep")


def find_ruff(python: str) -> str | None:
    candidate = Path(python).parent / "ruff"
    return str(candidate) if candidate.exists() else shutil.which("ruff")


def toolbox(args: argparse.Namespace) -> Toolbox:
    unsentinel = find_unsentinel(args.unsentinel)
    python = find_python()
    helped = subprocess.run(
        [*unsentinel, "check", "--help"], capture_output=True, text=True, check=False
    )
    if helped.returncode != 0:
        sys.exit(f"`{shlex.join(unsentinel)} check --help` failed:\n{helped.stderr}")
    compile_bytecode(python)
    return Toolbox(
        unsentinel=unsentinel,
        python=python,
        rg=ensure_ripgrep(not args.no_install),
        ast_grep=ensure_ast_grep(python, not args.no_install),
        ruff=find_ruff(python),
        jobs=args.jobs,
        no_cache="--no-cache" in helped.stdout,
    )


def compile_bytecode(python: str) -> None:
    """Write the timed package's bytecode before any timing. An installed wheel has it (pip
    compiles on install) and an editable checkout writes it on its first import, unless
    ``PYTHONDONTWRITEBYTECODE`` is set: then every timed process compiled about a hundred
    modules from source again (0.7 s of CPU on this machine, more than a warm check)."""
    where = version_of([python, "-c", "import unsentinel; print(unsentinel.__path__[0])"])
    if Path(where).is_dir():
        subprocess.run([python, "-m", "compileall", "-q", where], capture_output=True, check=False)


def version_of(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    except OSError:
        return "unavailable"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0] if text else "unknown"


def unsentinel_source(python: str) -> str:
    """Where the timed unsentinel comes from, and the commit of this checkout."""
    where = version_of([python, "-c", "import unsentinel; print(unsentinel.__path__[0])"])
    commit = version_of(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    changed = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "src"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    state = " + uncommitted changes in src/" if changed else ""
    return f"{where}; this checkout: {commit}{state}"


def versions(tools: Toolbox) -> dict[str, str]:
    found = {
        "unsentinel": version_of([*tools.unsentinel, "--version"]),
        "python": version_of([tools.python, "--version"]),
        "libcst": version_of(
            [
                tools.python,
                "-c",
                "import importlib.metadata as m; print('libcst', m.version('libcst'))",
            ]
        ),
        Path(tools.rg[0]).name: version_of([tools.rg[0], "--version"]),
    }
    found["unsentinel imported from"] = unsentinel_source(tools.python)
    if tools.ast_grep:
        found["ast-grep"] = version_of([tools.ast_grep, "--version"])
    if tools.ruff:
        found["ruff"] = version_of([tools.ruff, "--version"])
    return found


# -- commands --------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    key: str  # e.g. "check-cold"
    label: str
    argv: list[str]
    ours: bool
    prime: bool = False  # run once untimed before the timed runs (the warm cache)
    ok_codes: tuple[int, ...] = (0, 1)
    pythonpath: str = ""  # prepended to PYTHONPATH for this command only


def unsentinel_commands(tools: Toolbox, tree: Tree) -> list[Command]:
    us, jobs, path = tools.unsentinel, ["-j", str(tools.jobs)], str(tree.path)
    cold = [*us, "check", *(["--no-cache"] if tools.no_cache else []), *jobs, path]
    commands = [
        Command("check-cold", "unsentinel check (cold)", cold, True),
        # without a cache the cold runs just before are the priming run
        Command(
            "check-warm",
            "unsentinel check (warm)",
            [*us, "check", *jobs, path],
            True,
            prime=tools.no_cache,
        ),
        Command("plan", "unsentinel plan", [*us, "plan", *jobs, path], True),
        Command("diff", "unsentinel diff", [*us, "diff", *jobs, path], True),
    ]
    if tree.big_module is not None:
        label = f"unsentinel plan, one {tree.big_lines:,}-line module"
        commands.append(
            Command("plan-big", label, [*us, "plan", *jobs, str(tree.big_module)], True)
        )
    return commands


def peer_commands(tools: Toolbox, tree: Tree) -> list[Command]:
    path, jobs = str(tree.path), str(tools.jobs)
    commands: list[Command] = []
    if tools.rg[0].endswith("rg"):
        rg = [
            tools.rg[0],
            "-n",
            "--no-heading",
            "-j",
            jobs,
            "-g",
            "*.py",
            "-e",
            SENTINEL_PATTERN,
            path,
        ]
        commands.append(Command("rg", "rg (sentinel regex)", rg, False))
    else:
        commands.append(
            Command("rg", "grep -r (sentinel regex)", [*tools.rg, SENTINEL_PATTERN, path], False)
        )
    if tools.ast_grep:
        scan = [tools.ast_grep, "scan", "--rule", str(RULE_FILE), "--json=stream", "-j", jobs, path]
        commands.append(Command("ast-grep", "ast-grep scan (sentinel rule)", scan, False))
    if tools.ruff:
        ruff = [
            tools.ruff,
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            RUFF_RULE,
            "--exit-zero",
            "--output-format",
            "concise",
            path,
        ]
        commands.append(Command("ruff", f"ruff check --select {RUFF_RULE}", ruff, False))
    commands.append(
        Command(
            "libcst-noop",
            "LibCST codemod runner, no-op",
            libcst_codemod(tools, NOOP_CODEMOD, path),
            False,
            pythonpath=str(HERE),
        )
    )
    commands.append(
        Command(
            "libcst-migrate",
            "LibCST codemod runner, our migration",
            libcst_codemod(tools, MIGRATE_CODEMOD, path),
            False,
        )
    )
    return commands


def libcst_codemod(tools: Toolbox, command: str, path: str) -> list[str]:
    """LibCST's runner with ``command``, printing diffs (``-u 1``) instead of writing."""
    return [
        tools.python,
        "-m",
        "libcst.tool",
        "codemod",
        "-x",
        command,
        "-j",
        str(tools.jobs),
        "--no-format",
        "--hide-progress",
        "--hide-generated-warnings",
        "-u",
        "1",
        path,
    ]


# -- measuring -------------------------------------------------------------------------


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mib: float
    code: int
    output_lines: int


@dataclass
class Result:
    tree: str
    command: Command
    samples: list[Sample] = field(default_factory=list)
    timed_out: bool = False
    error: str = ""
    limit: float = 0.0  # the timeout that ended the run, when it timed out

    def wall_text(self) -> str:
        """The median wall time, or a lower bound for a command that never finished."""
        if not self.samples and self.timed_out:
            return f"> {self.limit:.0f}"
        return seconds(self.median_wall())

    def median_wall(self) -> float:
        return statistics.median(s.wall for s in self.samples) if self.samples else float("nan")

    def median_cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples) if self.samples else float("nan")

    def peak_rss(self) -> float:
        return max((s.rss_mib for s in self.samples), default=float("nan"))

    def output_lines(self) -> int:
        return self.samples[-1].output_lines if self.samples else 0


def run_once(
    command: Command, cwd: Path, env: dict[str, str], timeout: float, scratch: Path
) -> tuple[Sample, bool, str]:
    """One run of ``command`` as a whole process: wall time, CPU time and peak RSS.

    CPU and RSS come from GNU time's ``wait4`` on the command where it is installed, else
    from ours; either way they include the workers the command waited for.
    """
    out_path, err_path = scratch / "stdout", scratch / "stderr"
    usage_path = scratch / "rusage"
    usage_path.unlink(missing_ok=True)
    argv = command.argv
    if Path(GNU_TIME).exists():
        argv = [GNU_TIME, "-f", "%U %S %M", "-o", str(usage_path), *argv]
    with out_path.open("wb") as out, err_path.open("wb") as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        expired = threading.Event()
        timer = threading.Timer(timeout, stop_group, (process.pid, expired))
        timer.daemon = True
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C: don't leave the command running on its own
            stop_group(process.pid, expired)
            os.wait4(process.pid, 0)
            raise
        finally:
            timer.cancel()
        wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    with out_path.open("rb") as produced:
        output_lines = sum(1 for _ in produced)
    cpu, rss_kib = usage.ru_utime + usage.ru_stime, float(usage.ru_maxrss)
    cpu, rss_kib = gnu_time_usage(usage_path) or (cpu, rss_kib)
    sample = Sample(wall, cpu, rss_kib / 1024, process.returncode, output_lines)
    message = ""
    if process.returncode not in command.ok_codes and not expired.is_set():
        message = err_path.read_text(errors="replace").strip()[-400:]
    return sample, expired.is_set(), message


def gnu_time_usage(path: Path) -> tuple[float, float] | None:
    """(user + sys seconds, peak RSS KiB) of the timed command, as GNU time wrote them."""
    try:
        last = path.read_text().strip().splitlines()[-1].split()
        return float(last[0]) + float(last[1]), float(last[2])
    except (OSError, IndexError, ValueError):
        return None


def stop_group(pid: int, expired: threading.Event) -> None:
    """End the process group of the command we started (and only that one)."""
    expired.set()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def measure(
    command: Command, tree: Tree, tools: Toolbox, runs: int, budget: float, timeout: float
) -> Result:
    result = Result(tree.name, command)
    env = tools.env(command.pythonpath)
    with tempfile.TemporaryDirectory(prefix="unsentinel-bench-out-") as scratch:
        if command.prime:
            run_once(command, tree.path, env, timeout, Path(scratch))
        spent = 0.0
        for _ in range(runs):
            sample, timed_out, error = run_once(command, tree.path, env, timeout, Path(scratch))
            if timed_out:
                result.timed_out, result.limit = True, timeout
                break
            result.samples.append(sample)
            result.error = result.error or error
            spent += sample.wall
            if spent + sample.wall > budget:
                break
    return result


def prepare_libcst(tree: Tree, tools: Toolbox) -> None:
    """LibCST's runner reads .libcst.codemod.yaml from the working directory upwards."""
    subprocess.run(
        [tools.python, "-m", "libcst.tool", "initialize", str(tree.path)],
        capture_output=True,
        check=False,
    )


def bench_tree(
    tree: Tree, tools: Toolbox, args: argparse.Namespace, report: Callable[[Result], None]
) -> list[Result]:
    count(tree)
    prepare_libcst(tree, tools)
    print(
        f"\n== {tree.name}: {tree.files:,} files, {tree.lines:,} lines -- {tree.description}",
        flush=True,
    )
    results = []
    for command in [*unsentinel_commands(tools, tree), *peer_commands(tools, tree)]:
        if command.key in args.skip:
            continue
        result = measure(command, tree, tools, args.runs, args.budget, args.timeout)
        report(result)
        results.append(result)
    return results


def profile_big_module(tree: Tree, tools: Toolbox, timeout: float, rows: int = 30) -> str:
    """cProfile of ``unsentinel plan -j 1`` on the big module: top rows by cumulative time,
    then by own time."""
    assert tree.big_module is not None
    with tempfile.TemporaryDirectory(prefix="unsentinel-bench-profile-") as scratch:
        stats_file = Path(scratch) / "plan.prof"
        argv = [tools.python, "-m", "cProfile", "-o", str(stats_file), "-m", "unsentinel"]
        argv += ["plan", "-j", "1", str(tree.big_module)]
        try:
            done = subprocess.run(
                argv, cwd=tree.path, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            return f"(the profiled run took longer than {timeout:.0f} s)"
        if done.returncode not in (0, 1) or not stats_file.exists():
            return f"(the profiled run failed: {done.stderr.strip()[-1500:]})"
        report = io.StringIO()
        stats = pstats.Stats(str(stats_file), stream=report).strip_dirs()
        stats.sort_stats("cumulative").print_stats(rows)
        stats.sort_stats("tottime").print_stats(rows // 2)
    lines = report.getvalue().strip().splitlines()
    return "\n".join(line.rstrip() for line in lines if "plan.prof" not in line)


def print_result(result: Result) -> None:
    status = (
        "TIMED OUT"
        if result.timed_out
        else f"exit {result.samples[-1].code}"
        if result.samples
        else "-"
    )
    print(
        f"  {result.command.label:<44} {result.median_wall():8.2f} s wall "
        f"{result.median_cpu():8.2f} s CPU "
        f"{result.peak_rss():7.0f} MiB  {len(result.samples)} run(s)  {status}",
        flush=True,
    )
    if result.error:
        print(f"    stderr: {result.error}", flush=True)


# -- report ----------------------------------------------------------------------------


def rate(lines: int, seconds: float) -> str:
    if seconds != seconds or seconds <= 0:
        return "-"
    value = lines / seconds
    if value >= 1e6:
        return f"{value / 1e6:.2f}M"
    return f"{value / 1e3:.0f}k" if value >= 1e4 else f"{value:,.0f}"


def mebibytes(value: float) -> str:
    return "-" if value != value else f"{value:.0f}"


def seconds(value: float) -> str:
    return "-" if value != value else f"{value:.2f}"


def results_table(trees: list[Tree], results: list[Result]) -> list[str]:
    by_name = {tree.name: tree for tree in trees}
    rows = [
        "| tree | command | runs | wall s (median) | CPU s (median) | peak RSS MiB | lines/s "
        "| output lines | exit |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for result in results:
        tree = by_name[result.tree]
        lines = tree.big_lines if result.command.key == "plan-big" else tree.lines
        exit_text = (
            "timed out"
            if result.timed_out
            else str(result.samples[-1].code)
            if result.samples
            else "-"
        )
        rows.append(
            f"| {result.tree} | {result.command.label} | {len(result.samples)} "
            f"| {result.wall_text()} | {seconds(result.median_cpu())} "
            f"| {mebibytes(result.peak_rss())} | {rate(lines, result.median_wall())} "
            f"| {result.output_lines():,} | {exit_text} |"
        )
    return rows


def attempted(results: Iterable[Result], tree: str, key: str) -> Result | None:
    """Like :func:`find`, but also a command that timed out."""
    return next((r for r in results if r.tree == tree and r.command.key == key), None)


def find(results: Iterable[Result], tree: str, key: str) -> Result | None:
    return next((r for r in results if r.tree == tree and r.command.key == key and r.samples), None)


def ratio(mine: Result, other: Result | None, value: Callable[[Result], float]) -> str:
    if other is not None and not other.samples and other.timed_out and value is Result.median_wall:
        return f"< {value(mine) / other.limit:.2f}×"  # the peer never finished
    if other is None or not other.samples or value(other) < 0.005:
        return "-"
    quotient = value(mine) / value(other)
    return f"{quotient:,.0f}×" if quotient >= 100 else f"{quotient:.1f}×"


def ratio_table(
    trees: list[Tree], results: list[Result], value: Callable[[Result], float]
) -> list[str]:
    peers = list(PEER_KEYS)
    ours = ["check-cold", "check-warm", "plan", "diff"]
    rows = [
        "| tree | unsentinel | " + " | ".join(f"÷ {peer}" for peer in peers) + " |",
        "| --- | --- |" + " ---: |" * len(peers),
    ]
    for tree in trees:
        for key in ours:
            mine = find(results, tree.name, key)
            if mine is None:
                continue
            cells = [ratio(mine, attempted(results, tree.name, peer), value) for peer in peers]
            rows.append(f"| {tree.name} | {key} | " + " | ".join(cells) + " |")
    return rows


@dataclass(frozen=True)
class Verdict:
    target: str
    measured: str
    outcome: str


def ratio_target(
    results: list[Result], tree: str, key: str, peer: str, limit: float, target: str
) -> Verdict:
    mine, other = find(results, tree, key), find(results, tree, peer)
    if mine is None or other is None:
        return Verdict(target, "not measured", "-")
    value = mine.median_wall() / other.median_wall()
    measured = f"{value:.2f}× ({mine.median_wall():.2f} s vs {other.median_wall():.2f} s)"
    return Verdict(target, measured, judge(value, limit))


def speedup_target(
    results: list[Result], tree: str, key: str, limit: float, target: str
) -> Verdict:
    mine, other = find(results, tree, key), find(results, tree, "libcst-noop")
    stopped = attempted(results, tree, "libcst-noop")
    if mine is not None and other is None and stopped is not None and stopped.timed_out:
        value = stopped.limit / mine.median_wall()
        measured = f"≥ {value:.2f}× as fast ({mine.median_wall():.2f} s vs > {stopped.limit:.0f} s)"
        outcome = "met" if value >= limit else "unknown (LibCST timed out)"
        return Verdict(target, measured, outcome)
    if mine is None or other is None:
        return Verdict(target, "not measured", "-")
    value = other.median_wall() / mine.median_wall()
    measured = f"{value:.2f}× as fast ({mine.median_wall():.2f} s vs {other.median_wall():.2f} s)"
    outcome = "met" if value >= limit else f"missed: needs {limit / value:.1f}× more speed"
    return Verdict(target, measured, outcome)


def absolute_target(
    result: Result | None,
    limit: float,
    target: str,
    value_of: Callable[[Result], float],
    unit: str,
    note: str = "",
) -> Verdict:
    if result is None:
        return Verdict(target, "not measured", "-")
    value = value_of(result)
    outcome = judge(value, limit) + (f" ({value - limit:+.2f} {unit})" if value > limit else "")
    return Verdict(target, f"{value:.2f} {unit}{note}", outcome)


def judge(value: float, limit: float) -> str:
    return "met" if value <= limit else f"missed by {value / limit:.1f}×"


def verdicts(trees: list[Tree], results: list[Result]) -> list[Verdict]:
    big = next((t for t in trees if t.name == "generated"), None)
    big_note = ""
    if big is not None and big.big_lines < 9000:
        big_note = f" (this run's big module has {big.big_lines:,} lines, not 10,000)"
    worst_sympy = max(
        (r for r in results if r.tree == "sympy" and r.command.ours and r.samples),
        key=lambda r: r.peak_rss(),
        default=None,
    )
    return [
        ratio_target(
            results,
            "generated",
            "check-cold",
            "ast-grep",
            1.0,
            "check cold on the generated repo ≤ 1.0× ast-grep",
        ),
        ratio_target(
            results, "sympy", "check-cold", "ast-grep", 0.5, "check cold on sympy ≤ 0.5× ast-grep"
        ),
        absolute_target(
            find(results, "generated", "check-warm"),
            0.3,
            "check warm (generated repo) ≤ 0.3 s",
            Result.median_wall,
            "s",
        ),
        absolute_target(
            find(results, "stdlib", "check-cold"),
            3.0,
            "check over stdlib + site-packages ≤ 3 s",
            Result.median_wall,
            "s",
        ),
        speedup_target(
            results,
            "generated",
            "plan",
            10.0,
            "plan on the generated repo ≥ 10× faster than LibCST no-op",
        ),
        speedup_target(
            results,
            "generated",
            "diff",
            10.0,
            "diff on the generated repo ≥ 10× faster than LibCST no-op",
        ),
        absolute_target(
            find(results, "generated", "plan-big"),
            3.0,
            "plan on one 10,000-line module with many sites ≤ 3 s",
            Result.median_wall,
            "s",
            big_note,
        ),
        absolute_target(
            worst_sympy,
            300.0,
            "peak memory per process ≤ 300 MiB on sympy",
            Result.peak_rss,
            "MiB",
            f" ({worst_sympy.command.label})" if worst_sympy else "",
        ),
    ]


def machine() -> list[str]:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return [
        f"- CPU: {model}, {os.cpu_count()} logical cores",
        f"- OS: {platform.system()} {platform.release()}",
    ]


@dataclass
class Run:
    """Everything the page is rendered from (saved with --json, re-read with --from-json)."""

    argv: list[str]
    quick: bool
    runs: int
    jobs: int
    no_cache: bool
    versions: dict[str, str]
    machine: list[str]
    load: list[float]  # the 1/5/15-minute load averages when the run started
    trees: list[Tree] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    profiles: dict[str, str] = field(default_factory=dict)


def command_lines(run: Run) -> list[str]:
    """The exact commands, as run on the first tree (the others differ only in TREE)."""
    tree = run.trees[0]
    lines = []
    for result in (r for r in run.results if r.tree == tree.name):
        text = shlex.join(result.command.argv)
        if tree.big_module:
            text = text.replace(str(tree.big_module), "BIG_MODULE")
        text = text.replace(str(tree.path), "TREE").replace(str(ROOT) + "/", "")
        lines.append(f"- {result.command.label}: `{text}`")
    return lines


def caveat(run: Run) -> list[str]:
    """The warning at the top of a page that is not the reference table."""
    cores = os.cpu_count() or 1
    shared = run.load[0] > 0.5 * cores
    quick = run.quick or run.runs < 3
    if not (quick or shared):
        return []
    kind = ("Quick run" if quick else "Run") + (" on a shared machine" if shared else "")
    load = ", ".join(f"{x:.2f}" for x in run.load)
    invocations = " and ".join(
        f"`python benchmarks/run.py {part.strip()}`" for part in shlex.join(run.argv).split(" + ")
    )
    lines = [
        f"> **{kind}; not the reference figures.**",
        f"> {invocations}: {run.runs} run(s) per command;",
        f"> load average {load} on {cores} cores at the start.",
    ]
    if shared:
        lines.append(
            "> Other jobs were running, so wall times are inflated; CPU times are steadier."
        )
    return [*lines, "> Rerun `python benchmarks/run.py --write-doc` on a quiet machine.", ""]


def render(run: Run) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Written by `python benchmarks/run.py --write-doc` (see its docstring). Each row is",
        "a whole process, start-up included: median wall and CPU time (user + sys of the",
        "process and the workers it waited for) over the runs, the peak RSS of its largest",
        "single process, and lines/s = the tree's lines ÷ median wall time.",
        "",
        *caveat(run),
        "## Machine and versions",
        "",
        *run.machine,
        f"- `-j {run.jobs}` for every tool that takes it",
        *(f"- {name}: {version}" for name, version in run.versions.items()),
        "",
        "## Trees",
        "",
        *(
            f"- **{t.name}**: {t.files:,} files, {t.lines:,} lines -- {t.description}"
            for t in run.trees
        ),
        "",
        "## Commands",
        "",
        "`TREE` is the tree's copy; LibCST runs with `PYTHONPATH=benchmarks`.",
        "",
        *command_lines(run),
    ]
    if not run.no_cache:
        lines += [
            "",
            "`unsentinel check` has no `--no-cache` yet (no cache), so cold and warm are the same",
            "command.",
        ]
    lines += ["", "## Results", "", *results_table(run.trees, run.results), "", "## Ratios", ""]
    lines += ["unsentinel's median wall time ÷ the peer's (below 1× = unsentinel is faster).", ""]
    lines += ratio_table(run.trees, run.results, Result.median_wall)
    lines += ["", "The same with CPU time (user + sys, all workers included):", ""]
    lines += ratio_table(run.trees, run.results, Result.median_cpu)
    lines += [
        "",
        "## Targets (issue 11)",
        "",
        "| target | measured | outcome |",
        "| --- | --- | --- |",
    ]
    lines += [
        f"| {v.target} | {v.measured} | {v.outcome} |" for v in verdicts(run.trees, run.results)
    ]
    for name, profile in run.profiles.items():
        big = next(t for t in run.trees if t.name == name)
        lines += [
            "",
            f"## Profile: `unsentinel plan -j 1` on the {big.big_lines:,}-line module",
            "",
        ]
        lines += [
            "cProfile (`--profile`), by cumulative and by own time:",
            "",
            "```",
            profile,
            "```",
        ]
    lines += ["", *notes()]
    return "\n".join(lines) + "\n"


def notes() -> list[str]:
    return [
        "## Notes",
        "",
        "- rg and ast-grep only search; ruff parses every file (in Rust) for one line-length",
        "  rule; LibCST's runner parses every file with LibCST, walks it and round-trips it",
        "  (`-u 1` prints a diff instead of writing, so nothing is written). `unsentinel check`",
        "  finds what the ast-grep rule finds and more; `plan` and `diff` also infer and",
        "  rewrite, so the no-op codemod is what they would cost if they parsed every file.",
        "- `LibCST codemod runner, our migration` runs the same rules through LibCST's runner",
        "  (`unsentinel.codemod.Migrate`): every file is parsed by LibCST, and each file's",
        "  gather pass sees that file alone, so it is the cost of our rules without the",
        "  prefilter, the `ast` detection and the shared gather pass.",
        "- `output lines` shows that the tools look for comparable things: findings for check,",
        "  rg and ast-grep; diff lines for diff; plan lines for plan.",
        "- Exit code 2 from unsentinel on the stdlib tree comes from the few test files that",
        "  no Python 3 parses (lib2to3's Python 2 grammar data, test_grammar.py); it reports",
        "  them as input errors and goes on.",
        "- A `> N` wall time is a command killed after `--timeout` N seconds; ratios against",
        "  it are bounds.",
        "- `--profile` adds a cProfile of `unsentinel plan -j 1` on the big generated module,",
        "  the first place to look when the plan or diff targets are missed.",
    ]


# -- main ------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a small generated tree (40 modules, 1,000-line big module), 1 run; "
        "only the generated tree unless --tree is given",
    )
    parser.add_argument(
        "--runs", type=int, default=None, help="timed runs per command (default 5; 1 with --quick)"
    )
    parser.add_argument(
        "--tree", action="append", choices=TREES, help="benchmark only this tree (repeatable)"
    )
    parser.add_argument(
        "--modules", type=int, default=None, help="size of the generated tree (default 1000)"
    )
    parser.add_argument(
        "--big-lines",
        type=int,
        default=None,
        help="lines of each big generated module (default 10000)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="-j for every tool (default: cores)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=300.0,
        help="stop repeating a command once its runs add up to this many seconds",
    )
    parser.add_argument(
        "--timeout", type=float, default=1200.0, help="seconds before one run is killed"
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=COMMAND_KEYS,
        help="leave this command out (repeatable)",
    )
    parser.add_argument(
        "--unsentinel", help="the unsentinel command to time (default: the project venv's)"
    )
    parser.add_argument(
        "--no-install",
        action="store_true",
        help="don't apt-get ripgrep or pip install ast-grep-cli",
    )
    parser.add_argument("--write-doc", action="store_true", help=f"write {DOC.relative_to(ROOT)}")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile `unsentinel plan` on the big generated module (cProfile)",
    )
    parser.add_argument("--json", type=Path, help="also write the raw results as JSON here")
    parser.add_argument(
        "--from-json",
        type=Path,
        action="append",
        help="render the page from saved --json files (repeatable: their trees are merged), "
        "measure nothing",
    )
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.runs = args.runs or (1 if args.quick else 5)
    args.modules = args.modules or (40 if args.quick else 1000)
    args.big_lines = args.big_lines or (1000 if args.quick else 10_000)
    args.tree = args.tree or (["generated"] if args.quick else list(TREES))
    return args


def build_tree(name: str, work: Path, args: argparse.Namespace, tools: Toolbox) -> Tree | None:
    if name == "generated":
        return generated_tree(work, args.modules, args.big_lines)
    if name == "sympy":
        return sympy_tree(work)
    if name == "ecosystem":
        return ecosystem_tree(work)
    return stdlib_tree(work, tools.python)


def save(run: Run, path: Path) -> None:
    data = asdict(run)
    for tree in data["trees"]:
        tree["path"] = str(tree["path"])
        tree["big_module"] = str(tree["big_module"]) if tree["big_module"] else None
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def load(path: Path) -> Run:
    data = json.loads(path.read_text(encoding="utf-8"))
    trees = [
        Tree(
            **{
                **t,
                "path": Path(t["path"]),
                "big_module": t["big_module"] and Path(t["big_module"]),
            }
        )
        for t in data.pop("trees")
    ]
    results = [
        Result(
            r["tree"],
            Command(**{**r["command"], "ok_codes": tuple(r["command"]["ok_codes"])}),
            [Sample(**sample) for sample in r["samples"]],
            r["timed_out"],
            r["error"],
            r.get("limit", 0.0),
        )
        for r in data.pop("results")
    ]
    return Run(**data, trees=trees, results=results)


def merge(runs: list[Run]) -> Run:
    """One page from several saved runs: the first one's machine and versions, all trees."""
    merged = runs[0]
    for other in runs[1:]:
        merged.trees += other.trees
        merged.results += other.results
        merged.profiles.update(other.profiles)
        merged.argv = [*merged.argv, "+", *other.argv]
        merged.load = [max(a, b) for a, b in zip(merged.load, other.load, strict=True)]
    return merged


def interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> None:
    # SIGTERM (and SIGINT, even where the shell ignores it for background jobs) unwinds:
    # the command being timed is stopped and the temporary trees are removed
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    args = parse_args(argv)
    run = merge([load(path) for path in args.from_json]) if args.from_json else measure_all(args)
    if not run.trees:
        sys.exit("no tree was benchmarked")
    publish(run, args, final=True)


def measure_all(args: argparse.Namespace) -> Run:
    tools = toolbox(args)
    run = Run(
        argv=args.argv,
        quick=args.quick,
        runs=args.runs,
        jobs=tools.jobs,
        no_cache=tools.no_cache,
        versions=versions(tools),
        machine=machine(),
        load=list(os.getloadavg()),
    )
    print("\n".join(f"{name}: {version}" for name, version in run.versions.items()))
    with tempfile.TemporaryDirectory(prefix="unsentinel-bench-") as temporary:
        for name in args.tree:
            tree = build_tree(name, Path(temporary), args, tools)
            if tree is None:
                continue
            run.trees.append(tree)
            run.results += bench_tree(tree, tools, args, print_result)
            if args.profile and tree.big_module is not None:
                run.profiles[tree.name] = profile_big_module(tree, tools, args.timeout)
            shutil.rmtree(tree.path, ignore_errors=True)
            publish(run, args, final=False)
    return run


def publish(run: Run, args: argparse.Namespace, final: bool) -> None:
    """Save the JSON and the page; also after each tree, so a long run keeps what it has."""
    text = render(run)
    if final:
        print("\n" + text)
    if args.json:
        save(run, args.json)
    if args.write_doc:
        DOC.write_text(text, encoding="utf-8")
        if final:
            print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
