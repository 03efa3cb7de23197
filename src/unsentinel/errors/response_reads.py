"""What one test function binds from calls, and how it reads what they returned (UNS501).

The evidence :class:`~unsentinel.errors.consumers.ConsumerFinder` weighs: which variables a
call binds (``resp = tools.get_note(...)``, ``body, status = handler(...)``) and from which
callee, the test's string-keyed reads of them, the statuses >= 400 it asserts, and its
comparisons with dict literals. Kept apart from the consumers module, which decides which
reads change and rewrites them: this module only collects, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from unsentinel.core.syntax import NodeIndex, result_call, string_key
from unsentinel.errors.aliases import Aliases, aliases_of
from unsentinel.errors.case_assertions import compared_dict
from unsentinel.errors.parsers import parses
from unsentinel.errors.readers import SERIALISERS
from unsentinel.errors.shapes import is_json_loads
from unsentinel.errors.tool_calls import tool_called


@dataclass
class KeyRead:
    """``resp["error"]``: a read of a call-bound response by a string key."""

    node: cst.Subscript
    accessor: str
    key: str


@dataclass
class FunctionReads:
    """One test function's call-bound responses and the reads of them."""

    group_of: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    reads: list[KeyRead] = field(default_factory=list)
    # ``resp == {...}`` and ``self.assertEqual(resp, {...})``: (node, resp, the dict)
    literal_compares: list[tuple[cst.Comparison | cst.Call, cst.BaseExpression, cst.Dict]] = field(
        default_factory=list
    )
    failed_groups: set[int] = field(default_factory=set)
    callee_of: dict[int, str] = field(default_factory=dict)  # group -> bare callee name
    tool_groups: set[int] = field(default_factory=set)  # bound by a tool called by name
    # bound by a call of a value of the test (a fixture, a local no alias resolves): it may
    # call any function the repository defines
    value_groups: set[int] = field(default_factory=set)
    # the file's helpers that parse a reply, read as ``json.loads`` (errors/parsers.py)
    parsers: frozenset[str] = frozenset()

    @classmethod
    def collect(
        cls,
        function: cst.FunctionDef,
        nodes: NodeIndex,
        ours: frozenset[str],
        code_for: Callable[[cst.CSTNode], str],
        parsers: frozenset[str] = frozenset(),
    ) -> FunctionReads:
        """What ``function`` binds from calls and reads of them (``ours``: the repository's
        functions, for tools called by name; ``code_for``: a node's source, for accessors;
        ``parsers``: the file's helpers that parse a reply)."""
        state = cls(parsers=parsers)
        aliases = aliases_of(nodes, function)
        # no re-walk: nodes by type and owning function
        for node in nodes.within(cst.Assign, function):
            if isinstance(result_call(node.value), cst.Call):
                state._bind(node, len(state.group_of), ours, aliases)
        for read in nodes.within(cst.Subscript, function):
            state._read(read, code_for)
        for comparison in nodes.within(cst.Comparison, function):
            state._status_check(comparison)
            state._literal_compare(comparison)
        for call in nodes.within(cst.Call, function):
            compared = compared_dict(call)
            if compared is not None:
                state.literal_compares.append((call, *compared))
        return state

    def root(self, node: cst.BaseExpression) -> str | None:
        """The call-bound variable an accessor starts from, or None for anything else."""
        if isinstance(node, cst.Name):
            return node.value if node.value in self.group_of else None
        if isinstance(node, cst.Attribute):
            return self.root(node.value) if isinstance(node.value, cst.Name) else None
        if isinstance(node, cst.Call):
            if parses(node, self.parsers) and node.args:
                return self.root(node.args[0].value)
            if isinstance(node.func, cst.Attribute) and not node.args:
                return self.root(node.func.value)
        return None

    def failed_status(self, accessor: cst.BaseExpression) -> bool:
        """Did the test assert a status >= 400 for the response ``accessor`` reads?"""
        name = self.root(accessor)
        group, index = self.group_of.get(name or "", (None, None))
        return group in self.failed_groups and index in (None, 0)

    def _bind(self, node: cst.Assign, group: int, ours: frozenset[str], aliases: Aliases) -> None:
        call = result_call(node.value)
        assert isinstance(call, cst.Call)
        tool = tool_called(call, ours)
        if tool is not None:
            self.tool_groups.add(group)
        elif aliases.calls_a_value(call):
            self.value_groups.add(group)
        self.callee_of[group] = tool or aliases.callee(call) or ""
        if self.callee_of[group] in SERIALISERS:
            pass  # dumped = model.model_dump(): the model's fields, whoever built the model
        else:
            # body = resp.get_json() / json.loads(result) / json.loads(resp.content[0].text):
            # the body comes from the call that bound ``resp`` (``result = package(...)``),
            # not from ``loads``
            source = self.root(call) or self._loaded_root(call)
            if source is not None:
                origin = self.group_of[source][0]
                self.callee_of[group] = self.callee_of[origin]
                if origin in self.value_groups:
                    self.value_groups.add(group)
        for target in node.targets:
            inner = target.target
            if isinstance(inner, cst.Name):
                self.group_of[inner.value] = (group, None)
            elif isinstance(inner, (cst.Tuple, cst.List)):
                for index, element in enumerate(inner.elements):
                    if isinstance(element.value, cst.Name):
                        self.group_of[element.value.value] = (group, index)

    def _loaded_root(self, call: cst.Call) -> str | None:
        """``json.loads(response.content[0].text)`` where ``response`` is what a tool called
        by name returned: the dict comes from that tool. (The text inside any other reply
        may come from what the callee dispatched to: ``rpc.handle_message(...)``.)"""
        if not is_json_loads(call) or not call.args:
            return None
        value: cst.BaseExpression = call.args[0].value
        while isinstance(value, (cst.Attribute, cst.Subscript)):
            value = value.value
        root = self.root(value)
        if root is None or self.group_of[root][0] not in self.tool_groups:
            return None
        return root

    def _read(self, node: cst.Subscript, code_for: Callable[[cst.CSTNode], str]) -> None:
        key = string_key(node)
        if key is None or self.root(node.value) is None:
            return
        self.reads.append(KeyRead(node, code_for(node.value), key))

    def _status_check(self, node: cst.Comparison) -> None:
        """``status == 404`` / ``resp.status_code == 404``: the group's body is an error."""
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal):
            return
        right = node.comparisons[0].comparator
        if not (isinstance(right, cst.Integer) and int(right.evaluated_value) >= 400):
            return
        left = node.left
        if isinstance(left, cst.Attribute) and left.attr.value in ("status", "status_code"):
            left = left.value
        if isinstance(left, cst.Name) and left.value in self.group_of:
            group, index = self.group_of[left.value]
            if index in (None, 1) or node.left is not left:
                self.failed_groups.add(group)

    def _literal_compare(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal):
            return
        right = node.comparisons[0].comparator
        if isinstance(right, cst.Dict):
            self.literal_compares.append((node, node.left, right))
