"""Model fields read from a module's bytes: a class-header screen first, ``ast`` after.

The screen may only skip modules that define no model; every case here must give what
a full parse gives.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from unsentinel.warnings.facts import _annotated_names, _is_model, model_fields

CASES = {
    "a pydantic model": """
        from pydantic import BaseModel
        class Order(BaseModel):
            warnings: list[str]
    """,
    "a dotted base over lines": """
        import pydantic
        class Order(
            pydantic.BaseModel,
        ):
            sku: str
    """,
    "a dataclass with arguments": """
        import dataclasses
        @dataclasses.dataclass(frozen=True)
        class Row:
            error: str | None = None
    """,
    "a base that is a call": """
        from pydantic import BaseModel
        def make(): return object
        class Odd(make(), BaseModel):
            note: str
    """,
    "a settings model alone": """
        from pydantic_settings import BaseSettings
        class ShopSettings(BaseSettings):
            shop_url: str
    """,
    "a nested model": """
        from typing import NamedTuple
        def build():
            class Point(NamedTuple):
                x: int
            return Point
    """,
    "imports alone": """
        from dataclasses import dataclass
        from typing import NamedTuple, TypedDict
        class Plain:
            x: int
    """,
    "a decorator that only starts like dataclass": """
        from typing import dataclass_transform
        @dataclass_transform()
        class Base:
            x: int
    """,
}


def _parsed(source: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    tree = ast.parse(source)
    return tuple(
        (node.name, _annotated_names(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and _is_model(node)
    )


@pytest.mark.parametrize("name", CASES)
def test_the_screen_gives_what_a_full_parse_gives(name: str) -> None:
    source = textwrap.dedent(CASES[name])
    assert model_fields(source.encode()) == _parsed(source)


def test_a_module_that_only_imports_the_markers_has_no_models() -> None:
    assert model_fields(textwrap.dedent(CASES["imports alone"]).encode()) == ()


def test_a_module_this_python_cannot_parse_still_gives_its_models() -> None:
    """An f-string with a backslash in a replacement field is Python 3.12; on an older
    Python ``ast`` refuses the module, and LibCST reads its models instead."""
    source = textwrap.dedent(
        """
        from pydantic_settings import BaseSettings
        class ShopSettings(BaseSettings):
            shop_url: str
            retries: int = 3
        def banner(lines):
            return f"{'\\n'.join(lines)}"
        """
    )
    assert model_fields(source.encode()) == (("ShopSettings", ("shop_url", "retries")),)
