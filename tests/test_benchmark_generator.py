"""The benchmark's repository generator: valid Python, deterministic, the requested mix.

Fast and offline: a tiny repository. No timing is measured or asserted here.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

GENERATOR = Path(__file__).resolve().parents[1] / "benchmarks" / "generate.py"


@pytest.fixture(scope="module")
def generate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


def tiny(generate: ModuleType, seed: int = 3) -> object:
    return generate.Spec(modules=40, seed=seed, sentinel_share=0.1, big_modules=1, big_lines=400)


def digest(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_every_generated_file_is_python_that_parses(generate: ModuleType, tmp_path: Path) -> None:
    manifest = generate.generate(tmp_path, tiny(generate))
    files = sorted(tmp_path.rglob("*.py"))
    assert len(files) > len(manifest.modules)  # the modules plus their packages' __init__.py
    for path in files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_the_same_seed_gives_the_same_bytes(generate: ModuleType, tmp_path: Path) -> None:
    generate.generate(tmp_path / "a", tiny(generate))
    generate.generate(tmp_path / "b", tiny(generate))
    generate.generate(tmp_path / "c", tiny(generate, seed=4))
    assert digest(tmp_path / "a") == digest(tmp_path / "b")
    assert digest(tmp_path / "a") != digest(tmp_path / "c")


def carries_sentinels(text: str) -> bool:
    return any(
        marker in text
        for marker in (
            'BLOCK_WARNING_PREFIX = "BLOCK: "',
            "startswith(BLOCK_WARNING_PREFIX)",
            '"BLOCK: ',
            '"error": str(',
        )
    )


def test_the_requested_share_of_modules_carries_sentinels(
    generate: ModuleType, tmp_path: Path
) -> None:
    spec = tiny(generate)
    manifest = generate.generate(tmp_path, spec)
    assert len(manifest.modules) == 40
    with_sentinels = {
        module.path
        for module in manifest.modules
        if carries_sentinels((tmp_path / module.path).read_text(encoding="utf-8"))
    }
    assert with_sentinels == {module.path for module in manifest.sentinel_modules()}
    assert len(with_sentinels) == round(40 * 0.1)


def test_ordinary_modules_still_mention_the_words_a_prefilter_looks_for(
    generate: ModuleType, tmp_path: Path
) -> None:
    manifest = generate.generate(tmp_path, tiny(generate))
    ordinary = "".join(
        (tmp_path / module.path).read_text(encoding="utf-8")
        for module in manifest.modules
        if not module.sentinel
    )
    for word in ("warnings.warn(", "error", "BLOCKED", "list[str]"):
        assert word in ordinary


def test_big_modules_have_the_requested_size(generate: ModuleType, tmp_path: Path) -> None:
    manifest = generate.generate(tmp_path, tiny(generate))
    big = [module for module in manifest.modules if module.big]
    assert len(big) == 1 and big[0].sentinel
    assert 400 <= big[0].lines < 500
