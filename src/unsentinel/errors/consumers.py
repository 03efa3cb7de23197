"""Readers of the old error keys inside test functions (helpers of UNS501).

A test that reads ``resp["error"] == "..."``, ``body.data["message"]``, ``resp["ok"] is
False`` or compares ``resp == {"error": "..."}`` breaks once the producer is migrated, so
it is migrated with it. A response is only touched when the test itself shows it is an
error response: a string read of its ``"error"`` key, a failed discriminator, or an
asserted HTTP status >= 400 on the value it was unpacked with. The response must come
straight from a call (``resp = tools.get_note(...)``, ``body, status = handler(...)``);
values dug out of other values (``event["metadata"]``, ``results[1]``) are never touched.
Tests already reading the new shape (``resp["error"]["code"]``) are left alone.

What a test binds and reads is collected by :mod:`~unsentinel.errors.response_reads`; what
a changed read becomes is built by :mod:`~unsentinel.errors.envelope_reads`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.syntax import LocalBindings, NodeIndex, is_name
from unsentinel.errors.case_assertions import (
    assert_failed,
    asserted_checks,
    asserting_call,
    assertion_evidence,
)
from unsentinel.errors.envelope_reads import and_chain, failed, resubscript
from unsentinel.errors.key_places import DETAIL_CONTAINERS, DISCRIMINATORS, MESSAGE_KEYS, new_path
from unsentinel.errors.parsers import parsing_helpers
from unsentinel.errors.placement import fit
from unsentinel.errors.readers import SERIALISERS
from unsentinel.errors.response_reads import FunctionReads, KeyRead
from unsentinel.errors.shapes import (
    ShapeKind,
    classify,
    elements_by_key,
    is_error_string,
    is_json_loads,
)
from unsentinel.errors.untraced import Untraced, expected_of

if TYPE_CHECKING:
    from unsentinel.core.rule import Rule, RuleContext

_STRING_METHODS = frozenset(
    {"startswith", "endswith", "lower", "upper", "casefold", "strip", "split"}
)


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
        self._places: dict[cst.CSTNode, int] | None = None
        self._parsers: frozenset[str] | None = None

    def scan_function(self, function: cst.FunctionDef) -> frozenset[str]:
        """Rewrite the test's reads; the variables whose reads it follows (on evidence)."""
        if not function.name.value.startswith("test"):
            return frozenset()
        if self._parsers is None:
            self._parsers = parsing_helpers(self.nodes)
        state = FunctionReads.collect(
            function, self.nodes, self.ours, self.context.code_for, self._parsers
        )
        return self._rewrite(state)

    # -- deciding -----------------------------------------------------------------------
    def _is_error(self, state: FunctionReads, accessor: str, reads: list[KeyRead]) -> str | None:
        """The test's evidence that the response is an error one, or None."""
        if reads and state.failed_status(reads[0].node.value):
            return "the test asserts an HTTP status >= 400"
        contexts = {(r.key, self._context(r.node)) for r in reads}
        if ("error", "string") in contexts:
            return 'the test reads "error" as a string'
        flag = next((d for d in DISCRIMINATORS if (d, "false") in contexts), None)
        if flag is not None:
            return f'the test checks that "{flag}" is False'
        message = next((k for k in ("message", "detail") if (k, "string") in contexts), None)
        if message is not None and ("status", "error") in contexts:
            return f'the test checks "status" == "error" and reads "{message}" as a string'
        return None

    def _context(self, node: cst.Subscript) -> str:
        parent = self.context.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return "subscripted"
        if isinstance(parent, cst.Attribute) and parent.attr.value in _STRING_METHODS:
            return "string"
        if isinstance(parent, cst.FormattedStringExpression):
            return "string"  # ``f"failed: {result['error']}"`` formats it as text
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.context.parent(parent)
        if isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1:
            target = parent.comparisons[0]
            other = target.comparator if parent.left is node else parent.left
            if isinstance(target.operator, (cst.Is, cst.Equal)) and is_name(other, "False"):
                return "false"
            if is_error_string(other) and isinstance(target.operator, cst.Equal):
                return "error"
            if isinstance(other, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                return "string"
        if isinstance(parent, cst.Arg):
            return assertion_evidence(node, self.context.parent).value
        return "other"

    def _rewrite(self, state: FunctionReads) -> frozenset[str]:
        # A local bound twice (``result = tool("analyze")`` ... ``result = tool("validate")``)
        # holds two responses: each binding's reads are judged on their own evidence.
        by_accessor: dict[tuple[str, int], list[KeyRead]] = {}
        for read in state.reads:
            binding = self._binding_of(read, state)
            by_accessor.setdefault((read.accessor, binding), []).append(read)
        evidenced: set[str] = set()
        followed: set[str] = set()
        for (accessor, _binding), reads in by_accessor.items():
            new_shape = any(
                r.key == "error" and self._context(r.node) == "subscripted" for r in reads
            )
            evidence = None if new_shape else self._is_error(state, accessor, reads)
            if evidence is None:
                continue
            evidenced.add(accessor)
            followed.add(state.root(reads[0].node.value) or "")
            nodes: list[cst.CSTNode] = [r.node for r in reads]
            why = self._follows_producer(state, reads[0].node.value, nodes)
            if why is not None:
                for read in reads:
                    self._rewrite_read(read, (why, evidence))
        for comparison, left, literal in state.literal_compares:
            self._rewrite_compare(state, comparison, left, literal, evidenced)
        return frozenset(followed)

    def _binding_of(self, read: KeyRead, state: FunctionReads) -> int:
        """Where the local a read starts from was last bound before it (its statement's
        place in the file), or -1 where no assignment of the test binds it."""
        name = state.root(read.node.value)
        function = self.nodes.owner_of(read.node)
        if name is None or function is None:
            return -1
        place = self._place(read.node)
        bound = [
            self._place(assignment.statement)
            for assignment in self.context.shared(LocalBindings).of(function)
            if assignment.name == name
        ]
        return max((at for at in bound if at < place), default=-1)

    def _place(self, node: cst.CSTNode) -> int:
        """A node's place in the file: the parent map is in source order (counted once)."""
        if self._places is None:
            self._places = {each: place for place, each in enumerate(self.nodes.parents)}
        return self._places.get(node, -1)

    def _follows_producer(
        self, state: FunctionReads, accessor: cst.BaseExpression, nodes: list[cst.CSTNode]
    ) -> str | None:
        """May these reads change? Only when the call they read is a migrated producer, or
        an untraced call the evidence ties to one: why they may, or None."""
        name = state.root(accessor)
        group, _index = state.group_of.get(name or "", (None, None))
        callee = state.callee_of.get(group, "") if group is not None else ""
        if callee in SERIALISERS:
            return None  # a model's own fields, not an error dict's
        if callee in self.producers:
            return f"{callee}() returns an error dict UNS501 migrates"
        if callee not in self.held | self.ours:
            # an HTTP client or ``json.loads``: judged on the test's evidence, but only where
            # the run migrates some producer; with none, nothing changed for it to follow
            if not self.producers:
                return None
            return self._follows_untraced(nodes, any_function=group in state.value_groups)
        if callee in self.held:
            why = f"{callee}() also returns an error-looking dict that is not migrated"
            self._left_as_it_is(nodes, Action.SKIP, why)
        else:
            why = f"{callee}() is defined here but returns no error dict UNS501 migrates"
            self._left_as_it_is(nodes, Action.NOTE, why)
        return None

    def _follows_untraced(self, nodes: list[cst.CSTNode], *, any_function: bool) -> str | None:
        """A response from a call the flow cannot trace follows the migrated producers
        where all of them migrate, or where it expects one of their messages (always, for
        a call of a value of the test: it may call any function defined here)."""
        expected = [e for node in nodes for e in expected_of(node, self.context.parent)]
        if self.untraced.follows(expected, any_function=any_function):
            named = self.untraced.named(expected)
            if named is not None:
                return (
                    f"its producer cannot be traced; it expects {named.text!r}, "
                    "a message of a migrated error dict"
                )
            return "its producer cannot be traced, and every error dict of the run migrates"
        if any_function:
            why = (
                "its producer cannot be traced (the test calls a value, which may be any "
                "function defined here), and it expects no message of a migrated error dict"
            )
        else:
            why = (
                "its producer cannot be traced, some error dicts stay as they are, and it "
                "expects no message of a migrated one"
            )
        self._left_as_it_is(nodes, Action.NOTE, why)
        return None

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

    def _rewrite_read(self, read: KeyRead, why: tuple[str, ...]) -> None:
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
                self._report(check, why)
                self.context.replace(check, failed)
            else:  # ``self.assertEqual(x["status"], "error")``
                call = asserting_call(read.node, self.context.parent)
                assert call is not None
                self._report(call, why)
                self.context.replace(call, assert_failed)
            return
        path = new_path(read.key)
        self._report(read.node, why)
        self.context.replace(read.node, lambda updated: resubscript(updated, path))

    def _rewrite_compare(
        self,
        state: FunctionReads,
        comparison: cst.Comparison | cst.Call,
        left: cst.BaseExpression,
        literal: cst.Dict,
        evidenced: set[str],
    ) -> None:
        shape = classify(literal)
        if shape is None or shape.kind is ShapeKind.WRAPPED:
            return
        accessor = self.context.code_for(left)
        from_call = state.root(left) is not None or is_json_loads(left)
        known = accessor in evidenced or state.failed_status(left)
        if not from_call or (shape.kind is ShapeKind.MESSAGE_ONLY and not known):
            return
        why = self._follows_producer(state, _call_root(left), [comparison])
        if why is None:
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
        evidence = "the test compares it with an error dict literal"
        self._report(comparison, (why, evidence))
        if isinstance(comparison, cst.Call):  # ``self.assertEqual(resp, {...})``
            self.context.replace(
                comparison,
                lambda updated: fit(self.context, asserted_checks(updated, checks), comparison),
            )
            return
        negated = isinstance(self.context.parent(comparison), cst.UnaryOperation)
        self.context.replace(
            comparison,
            lambda updated: fit(
                self.context, and_chain(updated, checks, parenthesized=negated), comparison
            ),
        )

    def _report(self, node: cst.CSTNode, why: tuple[str, ...]) -> None:
        self.context.report(
            self.rule,
            node,
            "Reads the old error-dict keys; rewritten to the error envelope",
            kind=Kind.CONSUMER,
            action=Action.REWRITE,
            reasons=why,
        )


def _call_root(left: cst.BaseExpression) -> cst.BaseExpression:
    """``json.loads(resp.data)`` -> ``resp.data``: the value a compared response came from."""
    if is_json_loads(left):
        assert isinstance(left, cst.Call)
        return left.args[0].value if left.args else left
    return left
