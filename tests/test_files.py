"""File discovery: ignore files, excludes, files-from, generated files and symlinks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WriteTree

from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.discovery import discover, module_name
from unsentinel.core.project import project_package

pytestmark = pytest.mark.usefixtures("detector_rules")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def found(
    root: Path, paths: Sequence[str] = (".",), files_from: Sequence[str] = (), **settings: object
) -> list[str]:
    config = Config(root=root, **settings)  # type: ignore[arg-type]
    discovery = discover([Path(p) for p in paths], config, files_from)
    return [task.display for task in discovery.tasks]


def test_only_python_files_sorted(root: Path, write_tree: WriteTree) -> None:
    write_tree({"b.py": "", "a.pyi": "", "notes.txt": "", "script": "", "sub/c.py": ""})
    assert found(root) == ["a.pyi", "b.py", "sub/c.py"]


def test_gitignore_at_the_root(root: Path, write_tree: WriteTree) -> None:
    write_tree(
        {
            ".gitignore": "*_pb2.py\nscratch/\n",
            "keep.py": "",
            "api_pb2.py": "",
            "scratch/tmp.py": "",
            "sub/deep_pb2.py": "",
        }
    )
    assert found(root) == ["keep.py"]


def test_nested_gitignore_applies_below_its_directory_only(
    root: Path, write_tree: WriteTree
) -> None:
    write_tree(
        {
            "local.py": "",
            "sub/.gitignore": "local.py\n/anchored.py\n",
            "sub/local.py": "",
            "sub/anchored.py": "",
            "sub/kept.py": "",
            "sub/inner/local.py": "",
            "sub/inner/anchored.py": "",
        }
    )
    assert found(root) == ["local.py", "sub/inner/anchored.py", "sub/kept.py"]


def test_nested_gitignore_applies_when_walking_from_below(
    root: Path, write_tree: WriteTree
) -> None:
    write_tree({".gitignore": "*_pb2.py\n", "sub/api_pb2.py": "", "sub/kept.py": ""})
    assert found(root, ["sub"]) == ["sub/kept.py"]


def test_git_info_exclude(root: Path, write_tree: WriteTree) -> None:
    write_tree({".git/info/exclude": "private.py\n", "private.py": "", "public.py": ""})
    assert found(root) == ["public.py"]


@pytest.mark.parametrize(
    "directory",
    [
        pytest.param(name, id=name)
        for name in (
            ".git",
            ".venv",
            "venv",
            "build",
            "dist",
            "node_modules",
            "__pycache__",
            ".tox",
            ".nox",
            "site-packages",
        )
    ]
    + [pytest.param("pkg/build", id="nested build")],
)
def test_default_excludes(root: Path, write_tree: WriteTree, directory: str) -> None:
    write_tree({f"{directory}/hidden.py": "", "pkg/visible.py": ""})
    assert found(root) == ["pkg/visible.py"]


def test_exclude_replaces_the_defaults(root: Path, write_tree: WriteTree) -> None:
    write_tree({".venv/lib.py": "", "legacy/old.py": "", "new.py": ""})
    assert found(root, exclude=("legacy",)) == [".venv/lib.py", "new.py"]


def test_extend_exclude_keeps_the_defaults(root: Path, write_tree: WriteTree) -> None:
    write_tree({".venv/lib.py": "", "legacy/old.py": "", "new.py": "", "pkg/test_x.py": ""})
    assert found(root, extend_exclude=("legacy", "test_*.py")) == ["new.py"]


def test_exclude_glob_with_a_directory_part(root: Path, write_tree: WriteTree) -> None:
    write_tree({"pkg/migrations/0001.py": "", "other/migrations/0001.py": ""})
    assert found(root, extend_exclude=("pkg/migrations",)) == ["other/migrations/0001.py"]


def test_cli_exclude_and_extend_exclude(root: Path, write_tree: WriteTree) -> None:
    write_tree({".venv/lib.py": 'x = "BLOCK: a"\n', "legacy/old.py": 'x = "BLOCK: b"\n'})
    runner = CliRunner()

    def files(*options: str) -> set[str]:
        result = runner.invoke(main, ["check", ".", *options])
        return {line.split(":")[0] for line in result.stdout.splitlines()}

    assert files() == {"legacy/old.py"}
    assert files("--exclude", "legacy") == {".venv/lib.py"}
    assert files("--extend-exclude", "legacy") == set()


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({".gitignore": "ignored.py\n", "ignored.py": ""}, id="gitignored"),
        pytest.param({"build/ignored.py": ""}, id="default exclude"),
        pytest.param({"ignored": ""}, id="no py suffix"),
    ],
)
def test_explicit_file_is_always_taken(
    root: Path, write_tree: WriteTree, files: dict[str, str | bytes]
) -> None:
    write_tree(files)
    target = next(name for name in files if not name.startswith("."))
    assert found(root, [target]) == [target]


def test_explicitly_named_ignored_directory_is_walked(root: Path, write_tree: WriteTree) -> None:
    write_tree({".gitignore": "vendor/\n", "vendor/lib.py": ""})
    assert found(root) == []
    assert found(root, ["vendor"]) == ["vendor/lib.py"]


def test_files_from_lines_are_taken_like_arguments(root: Path, write_tree: WriteTree) -> None:
    write_tree({"a.py": "", "b.py": "", "sub/c.py": "", "sub/d.txt": ""})
    assert found(root, [], files_from=["b.py", "", "sub", "a.py"]) == ["a.py", "b.py", "sub/c.py"]


def test_the_same_file_twice_is_processed_once(root: Path, write_tree: WriteTree) -> None:
    write_tree({"a.py": ""})
    assert found(root, [".", "a.py", "./a.py"], files_from=["a.py"]) == ["a.py"]


def test_missing_argument_is_an_error(root: Path) -> None:
    discovery = discover([Path("gone.py")], Config(root=root))
    assert discovery.tasks == ()
    assert discovery.errors == (("gone.py", "no such file or directory"),)


def test_symlink_leaving_the_root_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    project = tmp_path / "project"
    (outside / "pkg").mkdir(parents=True)
    (outside / "pkg" / "secret.py").write_text("")
    (outside / "lone.py").write_text("")
    project.mkdir()
    (project / "own.py").write_text("")
    (project / "linked_dir").symlink_to(outside / "pkg")
    (project / "linked.py").symlink_to(outside / "lone.py")
    monkeypatch.chdir(project)
    discovery = discover([Path(".")], Config(root=project))
    assert [t.display for t in discovery.tasks] == ["own.py"]
    assert sorted(discovery.skipped) == [
        ("linked.py", "symbolic link leaves the project root"),
        ("linked_dir", "symbolic link leaves the project root"),
    ]
    assert discovery.errors == ()


def test_symlink_inside_the_root_is_not_processed_twice(root: Path, write_tree: WriteTree) -> None:
    write_tree({"real/mod.py": ""})
    (root / "alias.py").symlink_to(root / "real" / "mod.py")
    (root / "alias_dir").symlink_to(root / "real")
    assert len(found(root)) == 1


def test_broken_symlink_is_an_error(root: Path) -> None:
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    discovery = discover([Path(".")], Config(root=root))
    assert discovery.tasks == ()
    assert discovery.errors == (("dangling.py", "broken symbolic link"),)


def test_symlink_loop_is_an_error_not_a_crash(root: Path) -> None:
    (root / "loop_a.py").symlink_to(root / "loop_b.py")
    (root / "loop_b.py").symlink_to(root / "loop_a.py")
    discovery = discover([Path(".")], Config(root=root))
    assert discovery.tasks == ()
    assert [path for path, _ in discovery.errors] == ["loop_a.py", "loop_b.py"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can list any directory")
def test_unlistable_directory_is_an_error(root: Path, write_tree: WriteTree) -> None:
    write_tree({"locked/a.py": "", "open.py": ""})
    (root / "locked").chmod(0)
    try:
        discovery = discover([Path(".")], Config(root=root))
    finally:
        (root / "locked").chmod(0o755)
    assert [t.display for t in discovery.tasks] == ["open.py"]
    assert [path for path, _ in discovery.errors] == ["locked"]


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        pytest.param("pkg/mod.py", "pkg.mod", id="module"),
        pytest.param("pkg/__init__.py", "pkg", id="package"),
        pytest.param("src/pkg/mod.py", "pkg.mod", id="src layout"),
        pytest.param("pkg/stub.pyi", "pkg.stub", id="stub"),
    ],
)
def test_module_name(tmp_path: Path, relative: str, expected: str) -> None:
    assert module_name(tmp_path / relative, tmp_path) == expected


def test_module_name_outside_the_root_is_empty(tmp_path: Path) -> None:
    assert module_name(Path("/elsewhere/mod.py"), tmp_path) == ""


# -- generated files (decided when the file is read) --------------------------------------

GENERATED = '# This file is @generated by protoc. Do not edit.\nx = "BLOCK: generated"\n'


def test_generated_files_are_skipped_unless_included(root: Path, write_tree: WriteTree) -> None:
    write_tree({"gen.py": GENERATED})
    runner = CliRunner()
    skipped = runner.invoke(main, ["check", ".", "--statistics"])
    assert skipped.exit_code == 0
    assert skipped.stdout == ""
    included = runner.invoke(main, ["check", ".", "--include-generated"])
    assert included.exit_code == 1
    assert included.stdout.startswith("gen.py:2:5: UNS001")


def test_include_generated_from_config(root: Path, write_tree: WriteTree) -> None:
    write_tree(
        {"pyproject.toml": "[tool.unsentinel]\ninclude-generated = true\n", "gen.py": GENERATED}
    )
    result = CliRunner().invoke(main, ["check", "."])
    assert result.stdout.startswith("gen.py:2:5: UNS001")


# -- where generated modules go: the project's one package --------------------------------

NAMESPACE_INIT = "__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"pkg/__init__.py": ""}, "pkg", id="package"),
        pytest.param({"src/pkg/__init__.py": ""}, "src/pkg", id="src layout"),
        pytest.param({"a/__init__.py": "", "b/__init__.py": ""}, None, id="two packages"),
        pytest.param(
            {"ns/__init__.py": NAMESPACE_INIT, "ns/server/__init__.py": ""},
            "ns/server",
            id="the package inside a pkgutil namespace",
        ),
        pytest.param(
            {"ns/__init__.py": NAMESPACE_INIT, "ns/a/__init__.py": "", "ns/b/__init__.py": ""},
            "ns",
            id="a namespace holding two packages stays the namespace",
        ),
        pytest.param(
            {"pkg/__init__.py": "VERSION = 1\n", "pkg/sub/__init__.py": ""},
            "pkg",
            id="an ordinary package with one subpackage",
        ),
        pytest.param(
            {"ns/mypkg/__init__.py": "", "ns/mypkg/server.py": "", "tests/test_it.py": ""},
            "ns/mypkg",
            id="the package at the end of a PEP 420 namespace path",
        ),
        pytest.param(
            {"src/google/cloud/thing/__init__.py": ""},
            "src/google/cloud/thing",
            id="a deeper PEP 420 namespace path under src",
        ),
        pytest.param(
            {"ns/a/__init__.py": "", "ns/b/__init__.py": ""},
            None,
            id="a PEP 420 directory holding two packages",
        ),
        pytest.param(
            {"server.py": "", "tools/gen/__init__.py": ""},
            None,
            id="modules at the root: a directory of tools is not the code",
        ),
        pytest.param(
            {
                "pyproject.toml": '[tool.hatch.build.targets.wheel]\npackages = ["ns"]\n',
                "ns/mypkg/__init__.py": "",
            },
            "ns/mypkg",
            id="hatch packages naming a PEP 420 namespace",
        ),
        pytest.param(
            {
                "pyproject.toml": '[tool.hatch.build.targets.wheel]\npackages = ["ns"]\n',
                "ns/a/__init__.py": "",
                "ns/b/__init__.py": "",
            },
            "ns",
            id="hatch packages naming a namespace of two packages",
        ),
        pytest.param(
            {
                "pyproject.toml": '[tool.hatch.build.targets.wheel]\npackages = ["app"]\n',
                "app/__init__.py": "",
                "fixtures_pkg/__init__.py": "",
            },
            "app",
            id="the declared package among two",
        ),
        pytest.param(
            {
                "pyproject.toml": '[tool.setuptools]\npackages = ["awslabs", "awslabs.x"]\n',
                "awslabs/x/__init__.py": "",
            },
            "awslabs/x",
            id="setuptools packages listing a namespace and its package",
        ),
        pytest.param(
            {
                "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["lib"]\n',
                "lib/ns/app/__init__.py": "",
            },
            "lib/ns/app",
            id="setuptools find with where",
        ),
        pytest.param(
            {
                "pyproject.toml": ('[tool.poetry]\npackages = [{include = "ns", from = "src"}]\n'),
                "src/ns/app/__init__.py": "",
            },
            "src/ns/app",
            id="poetry packages with from",
        ),
        pytest.param(
            {
                "setup.py": 'from setuptools import setup\nsetup(packages=["ns", "ns.app"])\n',
                "ns/app/__init__.py": "",
                "other/__init__.py": "",
            },
            "ns/app",
            id="setup.py packages",
        ),
    ],
)
def test_project_package(tmp_path: Path, files: dict[str, str], expected: str | None) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert project_package(tmp_path) == expected


def test_a_walk_spells_each_file_as_the_path_functions_do(
    root: Path, write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery spells a walked file from its directory's spelling; the current directory
    below the walk's start, and the project root below it, give what ``display_path`` and
    ``module_name`` give for the file itself."""
    write_tree(
        {
            "outer/proj/pkg/mod.py": "",
            "outer/proj/pkg/sub/deep.py": "",
            "outer/proj/build/gen.py": "",  # a default exclude, relative to the root
            "outer/other.py": "",
        }
    )
    monkeypatch.chdir(root / "outer" / "proj" / "pkg")
    project = (root / "outer" / "proj").resolve()
    discovery = discover([root / "outer"], Config(root=project))
    shown = {task.display: task.module_name for task in discovery.tasks}
    assert shown == {
        "../../other.py": "",
        "mod.py": "pkg.mod",
        "sub/deep.py": "pkg.sub.deep",
    }
    for task in discovery.tasks:
        assert task.module_name == module_name(task.path.resolve(), project)
        assert task.display == Path(os.path.relpath(task.path)).as_posix()
