"""The names a module binds itself, read off its text: a builtin called by a name the
module never binds is Python's own function (``type(w)``), not a project helper."""

from __future__ import annotations

import pytest

from unsentinel.core.defined import binds_name

BOUND = [
    "def type(x): pass",
    "from a import type",
    "from a import (\n    x,\n    type,\n)",
    "import numbers as type",
    "type = 3",
    "type: int = 3",
    "a, type = f()",
    "def f(a, type):\n    return type(a)",
    "lambda type: 1",
    "for type in kinds: pass",
    "for a, type in pairs: pass",
    "if (type := 3): pass",
    "class type: pass",
    "f(type=3)",  # an argument looks like a parameter: the cautious side
    "isinstance(x, type)",  # likewise
]
FREE = [
    "x = type(w)",
    "y = type(w) == 3",
    "t.type = 3",
    "print(type(w) == x)",
    "kinds = {type(w) for w in warnings}",
]


@pytest.mark.parametrize("text", BOUND)
def test_a_binding_of_the_name_is_seen(text: str) -> None:
    assert binds_name(text, "type")


@pytest.mark.parametrize("text", FREE)
def test_a_call_alone_binds_nothing(text: str) -> None:
    assert not binds_name(text, "type")
