"""Which condition guards a statement: the test a warning is appended under.

Severity and field path are read from the guard (``if not request.sku:`` says the field is
``sku`` and it was left out), so a warning needs the nearest test it depends on -- an
``if`` / ``while`` body, an ``IfExp`` arm, or a comprehension's ``if`` -- but never one
beyond its own function.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.rule import RuleContext
from unsentinel.core.syntax import string_value


def guarding_condition(
    context: RuleContext, node: cst.CSTNode, *, skip_wording: bool = False
) -> cst.BaseExpression | None:
    """The test of the nearest ``if`` (in the same function) that ``node`` depends on.

    ``skip_wording``: pass over an ``if``/``else`` (or a whole ``if``/``elif``/``else``
    chain) whose every arm appends to the same list (:func:`wording_chain`) -- it decides
    how the warning reads, not whether there is one, so it says nothing about which input
    is at fault."""
    previous: cst.CSTNode = node
    passing: cst.If | None = None  # the head of a wording chain being passed over
    for ancestor in context.ancestors(node):
        if passing is not None:  # an ``elif``'s way up to its chain's head
            passing = None if ancestor is passing else passing
            previous = ancestor
            continue
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            return None
        if isinstance(ancestor, cst.If) and skip_wording:
            head = wording_chain(context, ancestor, previous)
            if head is not None:
                passing = None if head is ancestor else head
                previous = ancestor
                continue
        if isinstance(ancestor, (cst.If, cst.While)) and previous is not ancestor.test:
            return ancestor.test
        if isinstance(ancestor, cst.IfExp) and previous is not ancestor.test:
            return ancestor.test
        if (
            isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
            and previous is ancestor.elt
        ):
            conditions = _comprehension_conditions(ancestor.for_in)
            if conditions:
                return (
                    conditions[0]
                    if len(conditions) == 1
                    else cst.BooleanOperation(conditions[0], cst.And(), conditions[1])
                )
        previous = ancestor
    return None


def wording_tests(context: RuleContext, node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The tests that only pick how ``node``'s warning reads: those of the ``if``/``else``
    statements (and ``elif`` chains) :func:`guarding_condition` passes over with
    ``skip_wording``, up to the test that decides whether there is a warning at all. Under
    ``if acknowledged:``, "WARNING (acknowledged): ..." says the word because that test
    chose the phrasing: a mode, not the subject of the message."""
    found: list[cst.BaseExpression] = []
    previous: cst.CSTNode = node
    passing: cst.If | None = None
    for ancestor in context.ancestors(node):
        if passing is not None:
            passing = None if ancestor is passing else passing
            previous = ancestor
            continue
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            break
        head = wording_chain(context, ancestor, previous) if isinstance(ancestor, cst.If) else None
        if head is not None:
            found.extend(branch.test for branch in _chain(head))
            passing = None if head is ancestor else head
        elif isinstance(ancestor, (cst.If, cst.While, cst.IfExp)) and previous is not ancestor.test:
            break
        previous = ancestor
    return found


def _comprehension_conditions(comp_for: cst.CompFor | None) -> list[cst.BaseExpression]:
    conditions: list[cst.BaseExpression] = []
    while comp_for is not None:
        conditions.extend(condition.test for condition in comp_for.ifs)
        comp_for = comp_for.inner_for_in
    return conditions


def wording_chain(context: RuleContext, branch: cst.If, arm: cst.CSTNode) -> cst.If | None:
    """The head of the ``if``/``else`` chain whose arm ``arm`` (a part of ``branch``) is,
    when every arm appends to one list unconditionally; None otherwise.

    ``if acknowledged: warnings.append("noted: ...") else: warnings.append("BLOCK: ...")``:
    a warning is made either way and the test only picks its wording (``acknowledged`` is
    a mode, not the culprit). So with ``if kind == "a": ... elif kind == "b": ... else:
    ...``, each arm appending its own diagnosis: which case it is chose the words. Not a
    chain without a final ``else`` (some case makes no warning), nor one with an arm that
    appends only under a test of its own (``if not path: errors.append("path missing")
    else: if not exists(path): errors.append(...)``): two situations."""
    if arm is branch.test or not (arm is branch.body or isinstance(arm, cst.Else)):
        return None
    branches = _chain(branch)
    last = branches[-1].orelse
    if not isinstance(last, cst.Else):
        return None
    common = _appended_lists(last)
    for each in branches:
        common &= _appended_lists(each.body)
    if not common:
        return None
    # Up through the ``elif``s above: an arm that appends to the list too is the same
    # choice of words; one that does not makes the chain below it a case of its own.
    head, parent = branch, context.parent(branch)
    while isinstance(parent, cst.If) and parent.orelse is head:
        common &= _appended_lists(parent.body)
        if not common:
            break
        head, parent = parent, context.parent(parent)
    return head


def _chain(head: cst.If) -> list[cst.If]:
    """``head`` and the ``elif`` branches that follow it, in order."""
    branches = [head]
    while isinstance(branches[-1].orelse, cst.If):
        branches.append(branches[-1].orelse)
    return branches


def _appended_lists(arm: cst.CSTNode) -> set[str]:
    """The lists an ``if`` arm appends to as a statement of its own block (not under a
    further test or loop): ``warnings.append(...)`` -> {"warnings"}."""
    block = arm.body if isinstance(arm, cst.Else) else arm
    if not isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return set()
    smalls = (
        block.body
        if isinstance(block, cst.SimpleStatementSuite)
        else [
            s for line in block.body if isinstance(line, cst.SimpleStatementLine) for s in line.body
        ]
    )
    lists: set[str] = set()
    for small in smalls:
        call = small.value if isinstance(small, cst.Expr) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
            continue
        if call.func.attr.value in _ADDERS:
            receiver = call.func.value
            if isinstance(receiver, cst.Name):
                lists.add(receiver.value)
            elif isinstance(receiver, cst.Attribute):
                lists.add(receiver.attr.value)
    return lists


_ADDERS = frozenset(["append", "insert", "extend"])


def case_subjects(condition: cst.BaseExpression, message: str) -> list[cst.BaseExpression]:
    """What a condition compares with a *case* the message does not say:
    ``issue_type == "post-broker-timeout"``, ``status in ("held", "late")``,
    ``mode == Mode.STRICT.value``.

    Such a test picks which situation the code is in (which diagnosis to give); it does not
    test whether the value is valid, so the compared input is no culprit by that test
    alone. Where the message says the case (``carrier == "freight"``, "freight pickups
    need a dock appointment"), the case itself is what the warning is about, and the test
    still counts. Comparisons with ``None``, numbers or an empty string are validity tests
    and are never listed.
    """
    said = message.lower()
    found: list[cst.BaseExpression] = []
    for node in _comparisons(condition):
        if len(node.comparisons) != 1:
            continue
        target = node.comparisons[0]
        if not isinstance(target.operator, _CASE_OPERATORS):
            continue
        values = _case_values(target.comparator)
        if values and not any(value.lower() in said for value in values):
            found.append(node.left)
    return found


_CASE_OPERATORS = (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)


def _comparisons(condition: cst.BaseExpression) -> list[cst.Comparison]:
    found: list[cst.Comparison] = []

    class _Collect(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            found.append(node)

    read(condition, _Collect())
    return found


def _case_values(expr: cst.BaseExpression) -> list[str] | None:
    """The cases ``expr`` names: a non-empty string literal, an enum-like member
    (``Status.DONE``, the ``.value`` of one), or a literal collection of those; None when
    it is anything else."""
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        found: list[str] = []
        for element in expr.elements:
            values = _case_values(element.value)
            if values is None:
                return None
            found += values
        return found or None
    if isinstance(expr, cst.SimpleString):
        value = string_value(expr)
        return [value] if isinstance(value, str) and value else None
    if isinstance(expr, cst.Attribute) and expr.attr.value == "value":
        expr = expr.value
    if isinstance(expr, cst.Attribute) and _is_constant_name(expr.attr.value):
        return [expr.attr.value]
    return None


def _is_constant_name(name: str) -> bool:
    return name.isupper() and any(char.isalpha() for char in name)


def tested_directly(condition: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands a condition tests as they are: its truth (``not rows``), its size
    (``len(rows) == 0``), a comparison (``weight_grams <= 0``), a key's value
    (``options.get("forward")``), joined by ``and``/``or``.

    A value reached through a call or a search over items (``os.path.exists(path)``,
    ``any(c.rate is not None for c in rows)``) is not tested itself: the test is about
    what the call or the items say (the file system, the state of each row). Measured on
    real code, a warning guarded only by such a test is seldom about that input.
    """
    if isinstance(condition, cst.BooleanOperation):
        return tested_directly(condition.left) + tested_directly(condition.right)
    if isinstance(condition, cst.UnaryOperation):
        return tested_directly(condition.expression)
    if isinstance(condition, cst.Comparison):
        operands = [condition.left, *(target.comparator for target in condition.comparisons)]
        return [found for operand in operands for found in tested_directly(operand)]
    if isinstance(condition, cst.BinaryOperation):
        return tested_directly(condition.left) + tested_directly(condition.right)
    if isinstance(condition, cst.Call):
        func = condition.func
        if isinstance(func, cst.Name) and func.value in _SIZE_OR_TRUTH and condition.args:
            return tested_directly(condition.args[0].value)
        if _reads_a_key(condition):
            return [condition]  # ``filter_action.get("forward")``: the field itself
        return []
    if isinstance(condition, (cst.Name, cst.Attribute, cst.Subscript)):
        return [condition]
    return []


_SIZE_OR_TRUTH = frozenset({"len", "bool"})


def _reads_a_key(call: cst.Call) -> bool:
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "get"
        and bool(call.args)
        and isinstance(call.args[0].value, cst.SimpleString)
    )
