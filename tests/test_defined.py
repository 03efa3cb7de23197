"""The names a module binds itself, read off its text: a builtin called by a name the
module never binds is Python's own function (``type(w)``), not a project helper."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unsentinel.core.defined import DefinedNames, binds_name

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


# The definition reader as one expression anchored at every line start: slower, and the
# plainest statement of what it reads, so the reader is held to it.
_REFERENCE = re.compile(
    rb"^([ \t]*)(?:(?:async[ \t]+)?(def)|class)[ \t]+([^\s(:\[]+)[ \t]*[(:\[]", re.MULTILINE
)


def _reference(data: bytes) -> DefinedNames | None:
    functions: set[str] = set()
    classes: set[str] = set()
    methods: set[str] = set()
    for indent, is_def, raw in _REFERENCE.findall(data):
        name = raw.decode("utf-8", "replace")
        if name.isidentifier():
            (functions if is_def else classes).add(name)
            if is_def and indent:
                methods.add(name)
    if not functions and not classes:
        return None
    return DefinedNames(frozenset(functions), frozenset(classes), frozenset(methods))


_PIECES = [
    *(b"def", b"class", b"async", b"async ", b"def f(", b"class C:", b"undef", b"x = "),
    *(b" ", b"\t", b"\n", b"\r\n", b"f", b"C", b"(", b":", b"[T]", b"#", b'"', b"\xc3\xa9"),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map(b"".join))
def test_definitions_are_read_as_one_line_anchored_expression_reads_them(data: bytes) -> None:
    assert DefinedNames.from_source(data) == _reference(data)


@pytest.mark.parametrize(
    ("data", "functions", "classes", "methods"),
    [
        (b"def f(x):\n    pass\n", {"f"}, set(), set()),
        (b"class C:\n    async def m(self): ...\n", {"m"}, {"C"}, {"m"}),
        (b"\tdef t(): pass\n", {"t"}, set(), {"t"}),
        (b"x = 'def g(' \nundef h(\n", set(), set(), set()),
        (b"def first[T](items): ...\nclass Box[T]: ...\n", {"first"}, {"Box"}, set()),
    ],
)
def test_definitions_at_the_start_of_a_line(
    data: bytes, functions: set[str], classes: set[str], methods: set[str]
) -> None:
    found = DefinedNames.from_source(data) or DefinedNames()
    assert (set(found.functions), set(found.classes), set(found.methods)) == (
        functions,
        classes,
        methods,
    )
