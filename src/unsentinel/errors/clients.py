"""Readers of the old error keys outside test functions (helpers of UNS501).

A client in the same repository that calls a function whose error dicts UNS501 migrates
(``resp = tools.get_note(...)``) and then reads ``resp["error"]``, ``resp["message"]`` or
``resp.get("ok") is False`` breaks with the producer, so it is migrated with it - or, when
that cannot be done safely, every one of its reads is reported (``Action.SKIP``) and none is
changed: never half-migrate.

Which functions return migrated errors is a cross-file fact (``RepoFacts.error_functions``,
filled by the gather pass) plus what the rule saw in this file. A read is rewritten when it
is an error check (``resp.get("ok") is False`` -> ``resp.get("success") is False``) or a
message read that only runs behind one (inside ``if "error" in resp:``, or after
``if resp.get("ok"): return ...``). A message read that success responses could reach too
is reported, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.model import Action, Kind
from unsentinel.core.syntax import NodeIndex, is_name, result_call
from unsentinel.errors import build
from unsentinel.errors.aliases import Aliases, aliases_of
from unsentinel.errors.key_places import DETAIL_CONTAINERS, DISCRIMINATORS, MESSAGE_KEYS
from unsentinel.errors.readers import keyed_read
from unsentinel.errors.shapes import is_error_string, is_json_loads

if TYPE_CHECKING:
    from unsentinel.core.rule import Rule, RuleContext

OLD_KEYS = frozenset({*MESSAGE_KEYS, *DISCRIMINATORS, *DETAIL_CONTAINERS, "status"})
_TERMINAL = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_GUARDED = (cst.If, cst.While, cst.IfExp, cst.Assert)


@dataclass(frozen=True)
class Read:
    """One read of an old key: ``x["k"]``, ``x.get("k", ...)`` or ``"k" in x``."""

    node: cst.BaseExpression  # the Subscript / Call / Comparison
    variable: str  # the call-bound name it starts from
    key: str


@dataclass(frozen=True)
class Plan:
    """What to do with one read: replace ``target`` by ``new``, keep it, or give up."""

    target: cst.CSTNode | None
    new: cst.BaseExpression | None = None
    problem: str | None = None  # why it cannot be migrated; None when it can


class ClientFinder:
    def __init__(self, rule: Rule, context: RuleContext, nodes: NodeIndex) -> None:
        self.rule = rule
        self.context = context
        self.nodes = nodes

    def scan(
        self,
        function: cst.FunctionDef | None,
        producers: frozenset[str],
        held: frozenset[str] = frozenset(),
    ) -> None:
        """Migrate the readers of ``producers``' results; report those of ``held`` ones."""
        index = self.nodes
        calls = [
            (node, value)
            for node in index.within(cst.Assign, function)
            if isinstance(value := result_call(node.value), cst.Call)
        ]
        if not calls:
            return  # no response is kept here (nor its aliases worked out)
        bound = self._bound(calls, producers | held, aliases_of(index, function))
        if not bound:
            return
        reads = [
            read
            for kind in (cst.Subscript, cst.Call, cst.Comparison)
            for node in index.within(kind, function)
            if (read := self._read(node, bound)) is not None
        ]
        for variable, callee in bound.items():
            mine = [r for r in reads if r.variable == variable]
            if not mine or any(self._new_shape(r) for r in mine):
                continue
            if _bare(callee) in held:
                self._hold(mine, callee)
            else:
                self._migrate(mine, callee)

    # -- collecting ---------------------------------------------------------------------
    def _bound(
        self,
        calls: list[tuple[cst.Assign, cst.Call]],
        producers: frozenset[str],
        aliases: Aliases,
    ) -> dict[str, str]:
        """Variables holding the response of a call to an error-returning function (called
        by its name, or through a local alias of it), of the assignments of a call."""
        bound: dict[str, str] = {}
        for node, value in calls:
            if aliases.callee(value) not in producers:
                continue
            named = aliases.target(value.func.value) if isinstance(value.func, cst.Name) else None
            callee = self.context.code_for(named or value.func)
            for target in node.targets:
                inner: cst.BaseExpression = target.target
                if isinstance(inner, (cst.Tuple, cst.List)) and inner.elements:
                    inner = inner.elements[0].value  # (body, status) = handler(...)
                if isinstance(inner, cst.Name):
                    bound[inner.value] = callee
        return bound

    def _read(self, node: cst.CSTNode, bound: dict[str, str]) -> Read | None:
        found = keyed_read(node)
        if found is None:
            return None
        key, base = found
        variable = _root(base)
        if key not in OLD_KEYS or variable not in bound:
            return None
        assert isinstance(node, cst.BaseExpression) and variable is not None and key is not None
        return Read(node, variable, key)

    def _new_shape(self, read: Read) -> bool:
        """``x["error"]["code"]``: the client already reads the envelope (a fixed point)."""
        parent = self.context.parent(read.node)
        return (
            read.key == "error" and isinstance(parent, cst.Subscript) and parent.value is read.node
        )

    # -- deciding -----------------------------------------------------------------------
    def _migrate(self, reads: list[Read], callee: str) -> None:
        plans = [(read, self._plan(read)) for read in reads]
        problems = [(read, plan.problem) for read, plan in plans if plan.problem is not None]
        if problems:
            for read, _plan in plans:
                problem = next((p for r, p in problems if r is read), None)
                self._report(read, callee, Action.SKIP, problem or "another read of it cannot be")
            return
        for read, plan in plans:
            if plan.target is None or plan.new is None:
                continue
            self._report(read, callee, Action.REWRITE, None)
            self.context.replace(plan.target, _constant(plan.new))

    def _hold(self, reads: list[Read], callee: str) -> None:
        """A producer of this value keeps the old shape, so every read of it stays."""
        problem = (
            f"{callee}() also returns an error-looking dict that is not migrated, "
            "so its readers keep the old keys"
        )
        for read in reads:
            self.context.report(
                self.rule,
                read.node,
                f"Reads the error keys of {callee}(); left as it is: {problem}",
                kind=Kind.CONSUMER,
                action=Action.SKIP,
                reasons=(problem,),
            )

    def _plan(self, read: Read) -> Plan:
        atom, polarity = self._atom(read)
        guard = self._guard_of(atom)
        if read.key in DISCRIMINATORS or read.key == "status":
            if guard is None or polarity is None:
                return Plan(None, problem=f'reads "{read.key}" outside an error check')
            return Plan(atom, _failed_check(read, error=polarity))
        if read.key == "error" and guard is not None and polarity is not None:
            return Plan(None)  # `"error" in x`, `if x.get("error")`: still true for errors
        if guard is not None:
            return Plan(None, problem=f'tests "{read.key}", which success responses may have too')
        if not self._behind_error_check(read):
            return Plan(None, problem=f'reads "{read.key}" where success responses reach too')
        path = ("error", "details") if read.key in DETAIL_CONTAINERS else ("error", "message")
        quote = self._free_quote(read.node)
        return Plan(read.node, _subscripts(cst.Name(read.variable), read, path, quote))

    def _atom(self, read: Read) -> tuple[cst.BaseExpression, bool | None]:
        """The smallest test around ``read`` and whether it being true means "failed".

        ``x.get("ok") is False`` / ``not x["ok"]`` / ``x["status"] == "error"`` /
        ``"error" in x`` / ``x.get("error")`` mean failed (True); ``x["ok"]``, ``x["ok"] is
        True``, ``"error" not in x`` mean succeeded (False); anything else is None.
        """
        node: cst.BaseExpression = read.node
        if isinstance(node, cst.Comparison):  # "k" in x
            if read.key != "error":
                return node, None
            polarity: bool | None = isinstance(node.comparisons[0].operator, cst.In)
        elif read.key in DISCRIMINATORS:
            polarity = False
        else:
            polarity = True if read.key == "error" else None
        return self._widen(read, node, polarity)

    def _widen(
        self, read: Read, node: cst.BaseExpression, polarity: bool | None
    ) -> tuple[cst.BaseExpression, bool | None]:
        """Take in a comparison with ``True`` / ``False`` / ``"error"`` and a ``not``."""
        parent = self.context.parent(node)
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.context.parent(parent)
        if isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1:
            target = parent.comparisons[0]
            other = target.comparator if parent.left is node else parent.left
            operator = target.operator
            if is_name(other, "False", "True") and isinstance(
                operator, (cst.Is, cst.Equal, cst.IsNot, cst.NotEqual)
            ):
                truth = is_name(other, "True")
                negated = isinstance(operator, (cst.IsNot, cst.NotEqual))
                failed = (not truth) != negated
                node, polarity = parent, failed if read.key in DISCRIMINATORS else None
            elif read.key == "status" and is_error_string(other):
                node, polarity = parent, isinstance(operator, (cst.Equal, cst.Is))
            else:
                return parent, None
        elif read.key == "status":
            return node, None
        up = self.context.parent(node)
        if isinstance(up, cst.UnaryOperation) and isinstance(up.operator, cst.Not):
            return up, None if polarity is None else not polarity
        return node, polarity

    def _free_quote(self, node: cst.CSTNode) -> str:
        """A quote the new keys can use: not the one of an f-string around ``node``."""
        for ancestor in self.context.ancestors(node):
            if isinstance(ancestor, cst.FormattedString):
                return "'" if ancestor.quote.startswith('"') else '"'
        return '"'

    def _guard_of(self, atom: cst.BaseExpression) -> cst.CSTNode | None:
        """The ``if`` / ``while`` / ternary / ``assert`` whose whole test is ``atom``."""
        parent = self.context.parent(atom)
        if isinstance(parent, _GUARDED) and parent.test is atom:
            return parent
        return None

    def _behind_error_check(self, read: Read) -> bool:
        """Only failed responses reach ``read``: it sits in the failed branch of an error
        check of the same variable, or after ``if <succeeded>: return ...``."""
        current: cst.CSTNode = read.node
        while True:
            parent = self.context.parent(current)
            if parent is None or isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(parent, (cst.If, cst.IfExp)) and current is not parent.test:
                failed = self._test_polarity(parent.test, read.variable)
                if failed is not None and failed == (current is parent.body):
                    return True
            if isinstance(parent, (cst.IndentedBlock, cst.Module)) and self._returned_early(
                parent, current, read.variable
            ):
                return True
            current = parent

    def _returned_early(self, block: cst.CSTNode, statement: cst.CSTNode, variable: str) -> bool:
        assert isinstance(block, (cst.IndentedBlock, cst.Module))
        body: list[cst.CSTNode] = list(block.body)
        for earlier in body[: body.index(statement)] if statement in body else []:
            if (
                isinstance(earlier, cst.If)
                and earlier.orelse is None
                and self._test_polarity(earlier.test, variable) is False
                and _ends_in_exit(earlier.body)
            ):
                return True
        return False

    def _test_polarity(self, test: cst.BaseExpression, variable: str) -> bool | None:
        """True: ``test`` holds for failed responses of ``variable``; False: for succeeded."""
        for kind in (cst.Subscript, cst.Call, cst.Comparison):
            for node in _nodes(test, kind):
                read = self._read(node, {variable: ""})
                if read is None:
                    continue
                atom, polarity = self._atom(read)
                if atom is test:
                    return polarity
        return None

    def _report(self, read: Read, callee: str, action: Action, problem: str | None) -> None:
        if action is Action.REWRITE:
            message = f"Reads the old error keys of {callee}(); rewritten to the error envelope"
        else:
            message = (
                f"Reads the old error keys of {callee}(), which now returns the error "
                f"envelope; {problem}: migrate this function by hand"
            )
        reasons = (f"{callee}() returns an error dict UNS501 migrates",)
        self.context.report(
            self.rule, read.node, message, kind=Kind.CONSUMER, action=action, reasons=reasons
        )


def _bare(callee: str) -> str:
    """``self.tools.get_note`` -> ``get_note``: facts name functions by their bare name."""
    return callee.rsplit(".", 1)[-1]


def _constant(new: cst.BaseExpression) -> Callable[[cst.CSTNode], cst.CSTNode]:
    def build_new(updated: cst.CSTNode) -> cst.CSTNode:
        return new

    return build_new


def _failed_check(read: Read, *, error: bool) -> cst.Comparison:
    """``x.get("success") is False`` (error) or ``x.get("success") is not False``."""
    get = cst.Call(
        cst.Attribute(cst.Name(read.variable), cst.Name("get")), [cst.Arg(build.string("success"))]
    )
    operator: cst.BaseCompOp = cst.Is() if error else cst.IsNot()
    return cst.Comparison(get, [cst.ComparisonTarget(operator, cst.Name("False"))])


def _subscripts(
    base: cst.BaseExpression, read: Read, path: tuple[str, ...], quote: str
) -> cst.BaseExpression:
    """``x["error"]["message"]`` on the same accessor ``read`` used (``body.data`` ...)."""
    node = read.node
    accessor = node.value if isinstance(node, cst.Subscript) else None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        accessor = node.func.value
    value: cst.BaseExpression = accessor if accessor is not None else base
    for key in path:
        value = cst.Subscript(value, [cst.SubscriptElement(cst.Index(build.string(key, quote)))])
    return value


def _ends_in_exit(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.IndentedBlock):
        last = body.body[-1] if body.body else None
        if isinstance(last, cst.SimpleStatementLine):
            return isinstance(last.body[-1], _TERMINAL)
        return False
    return isinstance(body, cst.SimpleStatementSuite) and isinstance(body.body[-1], _TERMINAL)


def _nodes(node: cst.CSTNode, kind: type[cst.CSTNode]) -> list[cst.CSTNode]:
    """``node`` itself and what it holds, of ``kind`` (tests are small expressions)."""
    found = [node] if isinstance(node, kind) else []
    for child in node.children:
        found.extend(_nodes(child, kind))
    return found


def _root(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x``, ``x.data``, ``x.json()`` and ``json.loads(x)``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return node.value.value
    if isinstance(node, cst.Call):
        if is_json_loads(node) and node.args:
            return _root(node.args[0].value)
        if isinstance(node.func, cst.Attribute) and not node.args:
            return _root(node.func.value)
    return None
