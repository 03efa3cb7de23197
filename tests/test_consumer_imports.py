"""A consumer that names the migrated model imports it: ``isinstance(w, Warning)`` must not
silently mean Python's builtin ``Warning`` (every migrated warning would fail the check)."""

from __future__ import annotations

import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from unsentinel.core.config import Config
from unsentinel.registry import configured, rewrite_source


@dataclass
class _Warning:
    severity: str
    message: str


@dataclass
class _Response:
    warnings: list[_Warning]


def _rewrite(source: str, *, module_name: str = "tests.test_it") -> str:
    config = configured(Config(root=Path("/project")), models_module="shop/warning_model.py")
    new, _sites = rewrite_source(
        textwrap.dedent(source).lstrip(), config, path="tests/test_it.py", module_name=module_name
    )
    return new


def test_isinstance_on_the_new_type_imports_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    new = _rewrite("""
        def test_it(resp):
            assert resp.warnings == ["BLOCK: order is empty"]
            assert all(isinstance(w, str) for w in resp.warnings)
        """)
    assert "isinstance(w, Warning)" in new
    assert "from shop.warning_model import Warning\n" in new
    # And the migrated test passes on migrated warnings (the builtin would fail it).
    model = types.ModuleType("shop.warning_model")
    model.Warning = _Warning  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "shop", types.ModuleType("shop"))
    monkeypatch.setitem(sys.modules, "shop.warning_model", model)
    namespace: dict[str, Any] = {}
    exec(compile(new, "tests/test_it.py", "exec"), namespace)
    namespace["test_it"](_Response([_Warning("blocking", "order is empty")]))


def test_isinstance_uses_the_alias_when_the_builtin_warning_is_used() -> None:
    new = _rewrite("""
        def check(resp):
            if resp.fatal:
                raise Warning("stop")
            assert resp.warnings == ["BLOCK: order is empty"]
            return all(isinstance(w, str) for w in resp.warnings)
        """)
    assert "isinstance(w, StructuredWarning)" in new
    assert "from shop.warning_model import Warning as StructuredWarning\n" in new
    assert 'raise Warning("stop")' in new


def test_the_models_module_does_not_import_itself() -> None:
    new = _rewrite(
        """
        def check(resp):
            assert resp.warnings == ["BLOCK: order is empty"]
            return all(isinstance(w, str) for w in resp.warnings)
        """,
        module_name="shop.warning_model",
    )
    assert "isinstance(w, Warning)" in new
    assert "import" not in new


def test_isinstance_on_dumped_warnings_needs_no_import() -> None:
    new = _rewrite("""
        def test_it(resp):
            d = resp.model_dump()
            assert d["warnings"] == ["BLOCK: order is empty"]
            assert all(isinstance(w, str) for w in d["warnings"])
        """)
    assert "isinstance(w, dict)" in new
    assert "warning_model" not in new
