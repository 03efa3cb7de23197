"""Readers of the old error keys inside test functions (helpers of UNS501).

A test that reads ``resp["error"] == "..."``, ``body.data["message"]``, ``resp["ok"] is
False`` or compares ``resp == {"error": "..."}`` breaks once the producer is migrated, so
it is migrated with it. A response is only touched when the test itself shows it is an
error response: a string read of its ``"error"`` key, a failed discriminator, or an
asserted HTTP status >= 400 on the value it was unpacked with. The response must come
straight from a call (``resp = tools.get_note(...)``, ``body, status = handler(...)``);
values dug out of other values (``event["metadata"]``, ``results[1]``) are never touched.
Tests already reading the new shape (``resp["error"]["code"]``) are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from unsentinel.core.model import Action, Kind
from unsentinel.core.syntax import NodeIndex, string_key
from unsentinel.errors.case_assertions import assert_failed, asserting_call, assertion_evidence
from unsentinel.errors.envelope_reads import and_chain, failed, new_path, resubscript
from unsentinel.errors.readers import SERIALISERS
from unsentinel.errors.shapes import (
    DETAIL_CONTAINERS,
    DISCRIMINATORS,
    MESSAGE_KEYS,
    ShapeKind,
    call_name,
    classify,
    elements_by_key,
    is_error_string,
    is_json_loads,
)
from unsentinel.errors.tool_calls import tool_called
from unsentinel.errors.untraced import Untraced, expected_texts

if TYPE_CHECKING:
    from unsentinel.core.rule import Rule, RuleContext

_STRING_METHODS = frozenset(
    {"startswith", "endswith", "lower", "upper", "casefold", "strip", "split"}
)


@dataclass
class _Read:
    node: cst.Subscript
    accessor: str
    key: str


@dataclass
class _Function:
    group_of: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    reads: list[_Read] = field(default_factory=list)
    literal_compares: list[tuple[cst.Comparison, cst.BaseExpression, cst.Dict]] = field(
        default_factory=list
    )
    failed_groups: set[int] = field(default_factory=set)
    callee_of: dict[int, str] = field(default_factory=dict)  # group -> bare callee name
    tool_groups: set[int] = field(default_factory=set)  # bound by a tool called by name


class ConsumerFinder:
    """Test readers of error responses; they follow their producer, never run ahead of it.

    ``producers`` are the functions whose every error dict is migrated: a read of a value
    bound from one of them is rewritten. ``held`` ones keep an error dict as it is, so the
    reads of their results are reported as skip. A response from any other call (an HTTP
    test client, ``json.loads``) is judged on the test's own evidence; one from a function
    the repository defines but UNS501 does not migrate is left alone with a note.
    """

    def __init__(
        self,
        rule: Rule,
        context: RuleContext,
        nodes: NodeIndex,
        producers: frozenset[str] = frozenset(),
        held: frozenset[str] = frozenset(),
        ours: frozenset[str] = frozenset(),
        untraced: Untraced | None = None,
    ) -> None:
        self.rule = rule
        self.context = context
        self.nodes = nodes
        self.producers = producers
        self.held = held
        self.ours = ours
        self.untraced = untraced or Untraced()

    def scan_function(self, function: cst.FunctionDef) -> frozenset[str]:
        """Rewrite the test's reads; the variables whose reads it follows (on evidence)."""
        if not function.name.value.startswith("test"):
            return frozenset()
        state = _Function()
        index = self.nodes  # no re-walk: nodes by type and owning function
        for node in index.within(cst.Assign, function):
            if isinstance(_unawaited(node.value), cst.Call):
                self._bind(state, node, len(state.group_of))
        for read in index.within(cst.Subscript, function):
            self._read(state, read)
        for comparison in index.within(cst.Comparison, function):
            self._status_check(state, comparison)
            self._literal_compare(state, comparison)
        return self._rewrite(state)

    # -- collecting ---------------------------------------------------------------------
    def _bind(self, state: _Function, node: cst.Assign, group: int) -> None:
        call = _unawaited(node.value)
        assert isinstance(call, cst.Call)
        tool = tool_called(call, self.ours)
        if tool is not None:
            state.tool_groups.add(group)
        state.callee_of[group] = tool or call_name(call) or ""
        if state.callee_of[group] in SERIALISERS:
            pass  # dumped = model.model_dump(): the model's fields, whoever built the model
        else:
            # body = resp.get_json() / json.loads(result) / json.loads(resp.content[0].text):
            # the body comes from the call that bound ``resp`` (``result = package(...)``),
            # not from ``loads``
            source = self._root(state, call) or self._loaded_root(state, call)
            if source is not None:
                state.callee_of[group] = state.callee_of[state.group_of[source][0]]
        for target in node.targets:
            inner = target.target
            if isinstance(inner, cst.Name):
                state.group_of[inner.value] = (group, None)
            elif isinstance(inner, (cst.Tuple, cst.List)):
                for index, element in enumerate(inner.elements):
                    if isinstance(element.value, cst.Name):
                        state.group_of[element.value.value] = (group, index)

    def _root(self, state: _Function, node: cst.BaseExpression) -> str | None:
        """The call-bound variable an accessor starts from, or None for anything else."""
        if isinstance(node, cst.Name):
            return node.value if node.value in state.group_of else None
        if isinstance(node, cst.Attribute):
            return self._root(state, node.value) if isinstance(node.value, cst.Name) else None
        if isinstance(node, cst.Call):
            if is_json_loads(node) and node.args:
                return self._root(state, node.args[0].value)
            if isinstance(node.func, cst.Attribute) and not node.args:
                return self._root(state, node.func.value)
        return None

    def _loaded_root(self, state: _Function, call: cst.Call) -> str | None:
        """``json.loads(response.content[0].text)`` where ``response`` is what a tool called
        by name returned: the dict comes from that tool. (The text inside any other reply
        may come from what the callee dispatched to: ``rpc.handle_message(...)``.)"""
        if not is_json_loads(call) or not call.args:
            return None
        value: cst.BaseExpression = call.args[0].value
        while isinstance(value, (cst.Attribute, cst.Subscript)):
            value = value.value
        root = self._root(state, value)
        if root is None or state.group_of[root][0] not in state.tool_groups:
            return None
        return root

    def _read(self, state: _Function, node: cst.Subscript) -> None:
        key = string_key(node)
        if key is None or self._root(state, node.value) is None:
            return
        state.reads.append(_Read(node, self.context.code_for(node.value), key))

    def _status_check(self, state: _Function, node: cst.Comparison) -> None:
        """``status == 404`` / ``resp.status_code == 404``: the group's body is an error."""
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal):
            return
        right = node.comparisons[0].comparator
        if not (isinstance(right, cst.Integer) and int(right.evaluated_value) >= 400):
            return
        left = node.left
        if isinstance(left, cst.Attribute) and left.attr.value in ("status", "status_code"):
            left = left.value
        if isinstance(left, cst.Name) and left.value in state.group_of:
            group, index = state.group_of[left.value]
            if index in (None, 1) or node.left is not left:
                state.failed_groups.add(group)

    def _literal_compare(self, state: _Function, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal):
            return
        right = node.comparisons[0].comparator
        if isinstance(right, cst.Dict):
            state.literal_compares.append((node, node.left, right))

    # -- deciding -----------------------------------------------------------------------
    def _failed_status(self, state: _Function, accessor: cst.BaseExpression) -> bool:
        """Did the test assert a status >= 400 for the response ``accessor`` reads?"""
        name = self._root(state, accessor)
        group, index = state.group_of.get(name or "", (None, None))
        return group in state.failed_groups and index in (None, 0)

    def _is_error(self, state: _Function, accessor: str, reads: list[_Read]) -> bool:
        if reads and self._failed_status(state, reads[0].node.value):
            return True
        contexts = {(r.key, self._context(r.node)) for r in reads}
        if ("error", "string") in contexts:
            return True
        if any((d, "false") in contexts for d in DISCRIMINATORS):
            return True
        message_read = any((k, "string") in contexts for k in ("message", "detail"))
        return message_read and ("status", "error") in contexts

    def _context(self, node: cst.Subscript) -> str:
        parent = self.context.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return "subscripted"
        if isinstance(parent, cst.Attribute) and parent.attr.value in _STRING_METHODS:
            return "string"
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.context.parent(parent)
        if isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1:
            target = parent.comparisons[0]
            other = target.comparator if parent.left is node else parent.left
            if isinstance(target.operator, (cst.Is, cst.Equal)) and m.matches(
                other, m.Name("False")
            ):
                return "false"
            if is_error_string(other) and isinstance(target.operator, cst.Equal):
                return "error"
            if isinstance(other, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                return "string"
        if isinstance(parent, cst.Arg):
            return assertion_evidence(node, self.context.parent).value
        return "other"

    def _rewrite(self, state: _Function) -> frozenset[str]:
        by_accessor: dict[str, list[_Read]] = {}
        for read in state.reads:
            by_accessor.setdefault(read.accessor, []).append(read)
        evidenced: set[str] = set()
        followed: set[str] = set()
        for accessor, reads in by_accessor.items():
            new_shape = any(
                r.key == "error" and self._context(r.node) == "subscripted" for r in reads
            )
            if new_shape or not self._is_error(state, accessor, reads):
                continue
            evidenced.add(accessor)
            followed.add(self._root(state, reads[0].node.value) or "")
            if self._follows_producer(state, reads[0].node.value, [r.node for r in reads]):
                for read in reads:
                    self._rewrite_read(read)
        for comparison, left, literal in state.literal_compares:
            self._rewrite_compare(state, comparison, left, literal, evidenced)
        return frozenset(followed)

    def _follows_producer(
        self, state: _Function, accessor: cst.BaseExpression, nodes: list[cst.CSTNode]
    ) -> bool:
        """May these reads change? Only when the call they read is a migrated producer."""
        name = self._root(state, accessor)
        group, _index = state.group_of.get(name or "", (None, None))
        callee = state.callee_of.get(group, "") if group is not None else ""
        if callee in SERIALISERS:
            return False  # a model's own fields, not an error dict's
        if callee in self.producers:
            return True
        if callee not in self.held | self.ours:
            # an HTTP client or ``json.loads``: judged on the test's evidence, but only where
            # the run migrates some producer; with none, nothing changed for it to follow
            return bool(self.producers) and self._follows_untraced(nodes)
        if callee in self.held:
            why = f"{callee}() also returns an error-looking dict that is not migrated"
            self._left_as_it_is(nodes, Action.SKIP, why)
        else:
            why = f"{callee}() is defined here but returns no error dict UNS501 migrates"
            self._left_as_it_is(nodes, Action.NOTE, why)
        return False

    def _follows_untraced(self, nodes: list[cst.CSTNode]) -> bool:
        """A response from a call the flow cannot trace follows the migrated producers
        where all of them migrate, or where it expects one of their messages."""
        expected = [text for node in nodes for text in expected_texts(node, self.context.parent)]
        if self.untraced.follows(expected):
            return True
        why = (
            "its producer cannot be traced, some error dicts stay as they are, and it "
            "expects no message of a migrated one"
        )
        self._left_as_it_is(nodes, Action.NOTE, why)
        return False

    def _left_as_it_is(self, nodes: list[cst.CSTNode], action: Action, why: str) -> None:
        for node in nodes:
            self.context.report(
                self.rule,
                node,
                f"Reads error keys of a response; left as it is: {why}",
                kind=Kind.CONSUMER,
                action=action,
                reasons=(why,),
            )

    def _rewrite_read(self, read: _Read) -> None:
        context = self._context(read.node)
        if read.key == "success" or context == "subscripted" and read.key in MESSAGE_KEYS:
            return
        if read.key == "status":
            if context != "error":
                return
            check = self.context.parent(read.node)
            if isinstance(check, cst.ComparisonTarget):
                check = self.context.parent(check)
            if isinstance(check, cst.Comparison):
                self._report(check)
                self.context.replace(check, failed)
            else:  # ``self.assertEqual(x["status"], "error")``
                call = asserting_call(read.node, self.context.parent)
                assert call is not None
                self._report(call)
                self.context.replace(call, assert_failed)
            return
        path = new_path(read.key)
        self._report(read.node)
        self.context.replace(read.node, lambda updated: resubscript(updated, path))

    def _rewrite_compare(
        self,
        state: _Function,
        comparison: cst.Comparison,
        left: cst.BaseExpression,
        literal: cst.Dict,
        evidenced: set[str],
    ) -> None:
        shape = classify(literal)
        if shape is None or shape.kind is ShapeKind.WRAPPED:
            return
        accessor = self.context.code_for(left)
        from_call = self._root(state, left) is not None or is_json_loads(left)
        known = accessor in evidenced or self._failed_status(state, left)
        if not from_call or (shape.kind is ShapeKind.MESSAGE_ONLY and not known):
            return
        if not self._follows_producer(state, _call_root(left), [comparison]):
            return
        values = elements_by_key(literal)
        assert values is not None
        checks: list[tuple[tuple[str, ...], cst.BaseExpression]] = [
            (("error", "message"), values[shape.message_key])
        ]
        for key in shape.extra_keys:
            if key in DETAIL_CONTAINERS:
                checks.append((("error", "details"), values[key]))
            elif key != "status":
                checks.append((("error", "details", key), values[key]))
        self._report(comparison)
        self.context.replace(comparison, lambda updated: and_chain(updated, checks))

    def _report(self, node: cst.CSTNode) -> None:
        self.context.report(
            self.rule,
            node,
            "Reads the old error-dict keys; rewritten to the error envelope",
            kind=Kind.CONSUMER,
            action=Action.REWRITE,
        )


def _unawaited(value: cst.BaseExpression) -> cst.BaseExpression:
    """``await f(...)`` -> ``f(...)``: an awaited call binds its response just the same."""
    return value.expression if isinstance(value, cst.Await) else value


def _call_root(left: cst.BaseExpression) -> cst.BaseExpression:
    """``json.loads(resp.data)`` -> ``resp.data``: the value a compared response came from."""
    if is_json_loads(left):
        assert isinstance(left, cst.Call)
        return left.args[0].value if left.args else left
    return left
