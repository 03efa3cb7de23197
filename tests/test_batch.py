"""The rules' one traversal meets the nodes LibCST's visit meets, in LibCST's order; the
parent map reads only the fields that walk visits."""

from __future__ import annotations

import dataclasses
import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from unsentinel.core.batch import _Batch, visit_batched, visit_order
from unsentinel.core.tree import parent_map

ROOT = Path(__file__).parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Modules that between them use every statement and expression Python has: pattern
# matching, f-strings with format specs, star imports, async, decorators, walrus, lambdas.
SYNTAX_RICH = ("test/test_grammar.py", "test/test_patma.py", "test/test_fstring.py", "typing.py")

EVERY_FORM = """\
from __future__ import annotations
from os import *
from . import sibling as s
import a.b as c
@decorator(1)
async def f[T](a, /, b: int = 1, *args, c, **kw) -> list[T]:
    global g
    x: int = (y := 3)
    async with open(p) as h, other():
        async for i in h:
            yield i
    try:
        pass
    except* ValueError as e:
        raise e from None
    finally:
        del x
    match a:
        case {"k": [1, *rest]} | Point(x=0) if rest:
            return f"{a!r:>{b}} {c=}"
        case _:
            lambda q, *r: q
    return [i for i in range(3) if i] or {k: v for k, v in kw.items()}
"""


def _corpus() -> list[object]:
    files = sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "src").rglob("*.py"))
    files += [STDLIB / name for name in SYNTAX_RICH if (STDLIB / name).is_file()]
    named = [("every form", EVERY_FORM)]
    named += [(str(f.relative_to(f.parents[1])), f.read_text("utf-8")) for f in files]
    return [pytest.param(source, id=name) for name, source in named]


class _Recorder(cst.BatchableCSTVisitor):
    """Records every node visited and left, by identity: a hook for each node class."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, int]] = []


def _recording(kind: str) -> object:
    def hook(self: _Recorder, node: cst.CSTNode) -> None:
        self.seen.append((kind, id(node)))

    return hook


def _node_classes(base: type[cst.CSTNode] = cst.CSTNode) -> set[type[cst.CSTNode]]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub} | _node_classes(sub)
    return found


for _kind in _node_classes():
    if "_" not in _kind.__name__:
        setattr(_Recorder, f"visit_{_kind.__name__}", _recording("visit"))
        setattr(_Recorder, f"leave_{_kind.__name__}", _recording("leave"))


@pytest.mark.parametrize("source", _corpus())
def test_the_walk_meets_every_node_libcst_visits_in_its_order(source: str) -> None:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        pytest.skip("LibCST does not parse it (test_grammar.py's deliberate oddities)")
    by_libcst, by_walk = _Recorder(), _Recorder()
    module.visit(_Batch([by_libcst]))
    walker = _Batch([by_walk])
    assert not walker.attribute_hooks
    walker.walk(module)
    assert by_walk.seen == by_libcst.seen
    assert source.strip() == "" or len(by_walk.seen) > 10


def test_the_order_is_libcsts_not_the_dataclass_fields() -> None:
    order = visit_order(cst.FunctionDef)
    assert order.index("decorators") < order.index("name") < order.index("params")
    assert order.index("params") < order.index("returns") < order.index("body")
    assert visit_order(cst.SimpleWhitespace) == ()


def test_an_attribute_hook_gets_libcsts_own_walk() -> None:
    class OnFunc(cst.BatchableCSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.funcs: list[str] = []

        def visit_Call_func(self, node: cst.Call) -> None:
            self.funcs.append(cst.Module([]).code_for_node(node.func))

    visitor = OnFunc()
    visit_batched(cst.MetadataWrapper(cst.parse_module("f(g(1))\n")), [visitor])
    assert visitor.funcs == ["f", "g"]


def _every_field_parents(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """The parent map read off every dataclass field (the map before it skipped fields)."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        children: list[cst.CSTNode] = []
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            if isinstance(value, cst.CSTNode):
                children.append(value)
            elif isinstance(value, (list, tuple)):
                children.extend(item for item in value if isinstance(item, cst.CSTNode))
        parents.update((child, node) for child in children)
        stack.extend(reversed(children))
    return parents


@pytest.mark.parametrize("source", _corpus())
def test_the_parent_map_skips_no_child(source: str) -> None:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        pytest.skip("LibCST does not parse it")
    assert list(parent_map(module).items()) == list(_every_field_parents(module).items())
