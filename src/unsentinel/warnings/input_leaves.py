"""Which names a warning's message may mention, and the field each one denotes.

A message says ``serial_numbers`` or ``sales_order_row_id`` in words; the function reads
those fields as ``request.serial_numbers`` or ``row.sales_order_row_id``. The leaf table
maps each such last name to its path, sorted out once per function (a chain rooted in a
loop variable depends on where the warning is). :func:`outer_chains` is the walk both
this table and :meth:`InputPaths.input_references
<unsentinel.warnings.input_paths.InputPaths.input_references>` read an expression with.
Split from ``input_paths.py``, which keeps how one expression resolves to a path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import NodeIndex, annotation_name, dotted, last_name, string_value
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.function_facts import FunctionFacts, LeafTable

if TYPE_CHECKING:
    from unsentinel.warnings.input_paths import InputPaths


class InputLeaves:
    """The names a message may mention in one file's functions, mapped to their paths."""

    def __init__(self, context: RuleContext, index: NodeIndex, paths: InputPaths) -> None:
        self.context = context
        self.index = index
        self.paths = paths

    def known_leaves(self, facts: FunctionFacts, site: cst.CSTNode) -> dict[str, str]:
        """Names a message may mention literally, mapped to the field path they denote."""
        leaves: dict[str, str] = {name: name for name in facts.inputs}
        for container in facts.containers:
            type_name = annotation_name(facts.params[container].annotation)
            for field_name in self.context.facts.get(WarningFacts).model_fields.get(type_name, ()):
                leaves.setdefault(field_name, field_name)
        table = self._leaf_table(facts)
        leaves.update(table.static_paths)
        for position, leaf, chain in table.dynamic:  # in order: the last chain wins
            path, _ = self.paths.input_path(chain, facts, site)
            if path is not None and position > table.static_position.get(leaf, -1):
                leaves[leaf] = path
        return leaves

    def _leaf_table(self, facts: FunctionFacts) -> LeafTable:
        if facts.leaf_table is None:
            static_paths: dict[str, str] = {}
            static_position: dict[str, int] = {}
            dynamic: dict[str, tuple[int, str, cst.BaseExpression]] = {}
            for position, chain in enumerate(self._chains_of(facts)):
                leaf = last_name(chain)
                if leaf is None:
                    continue
                root = _loop_root(chain, facts)
                if root is None:
                    path, _ = self.paths.input_path(chain, facts, chain)
                    if path is not None:
                        static_paths[leaf] = path
                        static_position[leaf] = position
                    continue
                if root not in facts.last_loop:
                    continue  # a local no loop runs over: it names no input anywhere
                text = dotted(chain) or leaf
                dynamic.pop(text, None)  # keep insertion order = last position
                dynamic[text] = (position, leaf, chain)
            facts.leaf_table = LeafTable(static_paths, static_position, list(dynamic.values()))
        return facts.leaf_table

    def _chains_of(self, facts: FunctionFacts) -> list[cst.BaseExpression]:
        """Outermost ``a.b.c`` chains and names directly in a function (cached)."""
        if facts.chains is None:
            attributes = [
                a
                for a in self.index.within(cst.Attribute, facts.node)
                if dotted(a) is not None and not isinstance(self.context.parent(a), cst.Attribute)
            ]
            names = [n for n in self.index.within(cst.Name, facts.node) if self._is_chain_name(n)]
            facts.chains = [*attributes, *names]
        return facts.chains

    def _is_chain_name(self, name: cst.Name) -> bool:
        parent = self.context.parent(name)
        if isinstance(parent, cst.Attribute):
            return False  # part of a longer chain (or an attribute name)
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return False
        return not (isinstance(parent, cst.Subscript) and parent.value is name)  # a record


def _loop_root(expr: cst.BaseExpression, facts: FunctionFacts) -> str | None:
    """The name whose loop resolving ``expr`` asks about (see ``InputPaths._resolve``);
    None when the answer does not depend on where the warning is."""
    if isinstance(expr, cst.Name):
        return None if expr.value in facts.inputs else expr.value
    if isinstance(expr, cst.Attribute):
        base = expr.value
        if isinstance(base, cst.Name) and base.value in facts.containers:
            return None
        return _loop_root(base, facts)
    return None


def outer_chains(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Maximal ``a.b.c`` chains and bare names inside ``node``, in source order."""
    found: list[cst.BaseExpression] = []

    class _Chains(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            if dotted(attribute) is not None:
                found.append(attribute)
                return False
            return True

        def visit_Subscript(self, subscript: cst.Subscript) -> bool:
            # ``mo["order_no"]`` reads a record: the record is state, not an input value.
            if isinstance(subscript.value, cst.Name):
                for element in subscript.slice:
                    read(element, self)
                return False
            return True

        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Call(self, call: cst.Call) -> bool:
            # A method is never a field path: ``url.split("/")`` shows ``url``, and
            # ``criteria.get("excludeChats")`` reads the field ``criteria.excludeChats``.
            if not isinstance(call.func, cst.Attribute):
                return True
            receiver, key = call.func.value, get_key(call)
            if key is not None and dotted(receiver) is not None:
                found.append(cst.Attribute(value=receiver, attr=cst.Name(key)))
            else:
                read(receiver, self)
            for arg in call.args:
                read(arg, self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            if arg.keyword is not None:
                read(arg.value, self)
                return False
            return True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    read(node, _Chains())
    return iter(found)


def get_key(call: cst.Call) -> str | None:
    """``"key"`` of ``x.get("key")`` / ``x.get("key", default)`` when it is an identifier."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "get" and call.args):
        return None
    first = call.args[0].value
    value = string_value(first) if isinstance(first, cst.SimpleString) else None
    return value if isinstance(value, str) and value.isidentifier() else None
