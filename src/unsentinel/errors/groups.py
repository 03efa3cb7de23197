"""A function's error dicts, and the readers of its result, change together or not at all.

A reader of a function's result cannot tell a migrated error from one left alone, so one
error-looking dict that UNS501 leaves alone (a look-alike that is returned, an error in a
success envelope, an error shape returned with a 2xx status) *holds* its function: the
function's other error dicts are reported as skip instead of rewritten, and its readers
keep the old shape. Rewrites are therefore deferred until the whole file is seen, and
readers are decided last, with the producers gathered from the whole repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from unsentinel.core.defined import DefinedNames, may_be_defined
from unsentinel.core.model import Action, Kind
from unsentinel.core.rule import Rule, RuleContext
from unsentinel.core.syntax import LocalBindings, NodeIndex
from unsentinel.errors.clients import ClientFinder
from unsentinel.errors.consumers import ConsumerFinder
from unsentinel.errors.facts import ErrorFacts, ErrorNotes
from unsentinel.errors.generic_checks import ReceivedReads, changed_keys, passes
from unsentinel.errors.hold_reasons import hold_reason
from unsentinel.errors.key_places import key_places
from unsentinel.errors.readers import (
    KNOWN_KEYS,
    asserted_failures,
    extra_reads,
    failure_reads,
    test_key_reads,
)
from unsentinel.errors.returned import MODEL_DUMPS, returned_callees
from unsentinel.errors.shapes import Shape, enclosing_function
from unsentinel.errors.tool_calls import callable_here
from unsentinel.errors.untraced import Untraced

_Deferred = tuple[cst.FunctionDef | None, cst.CSTNode, Callable[[], None]]


class ErrorGroups:
    """One file's producers held, rewrites deferred, and readers decided with them."""

    def __init__(self, rule: Rule, context: RuleContext) -> None:
        self.rule = rule
        self.context = context
        self._deferred: list[_Deferred] = []

    def hold(self, node: cst.CSTNode) -> None:
        """The function enclosing ``node`` keeps its old error shape (a cross-file fact)."""
        notes = self.context.shared(ErrorNotes)
        notes.left_alone = True
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            notes.held_functions.add(function.name.value)

    def hold_function(self, name: str) -> None:
        """``name`` keeps its old error shape: a test double returns that shape for it."""
        notes = self.context.shared(ErrorNotes)
        notes.left_alone = True
        notes.doubled.add(name)

    def produces(self, node: cst.CSTNode) -> None:
        """The function enclosing ``node`` now returns the new error shape (a cross-file fact)."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            notes = self.context.shared(ErrorNotes)
            notes.error_functions.add(function.name.value)
            if _in_class(function, self.context.parent):
                notes.error_methods.add(function.name.value)

    def defer(self, node: cst.CSTNode, rewrite: Callable[[], None]) -> None:
        """Rewrite in :meth:`settle_producers`, once every error dict of the function is known."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            self.context.shared(ErrorNotes).producing.add(function.name.value)
        self._deferred.append((function, node, rewrite))

    def settle_producers(self) -> None:
        """Run the deferred rewrites of functions not held; report the others as skip."""
        held = frozenset(self.context.shared(ErrorNotes).held_functions)
        gathered = self.context.facts.get(ErrorFacts)
        for function, node, rewrite in self._deferred:
            name = function.name.value if function is not None else None
            if name is None or (name not in held and name not in gathered.held_functions):
                rewrite()
                continue
            why = hold_reason(name, gathered, held)
            self.context.report(
                self.rule,
                node,
                f"Ad-hoc error dict left as it is: {why}",
                kind=Kind.ERROR,
                action=Action.SKIP,
                reasons=(why,),
            )

    def settle_readers(self) -> None:
        """Readers, once every producer of the file is known (plus the gathered ones).

        Test functions are scanned for reads of a response; other code for calls of a
        migrated (or held) function whose result it reads.
        """
        index = self.context.shared(NodeIndex)
        bindings = self.context.shared(LocalBindings)
        notes = self.context.shared(ErrorNotes)
        gathered = self.context.facts.get(ErrorFacts)
        # This file's own functions first: where it has producers, the facts are not asked
        # whether other files have any (an answer the first gather round cannot know).
        held = frozenset(notes.held_functions) | gathered.held_functions
        candidates = frozenset(notes.error_functions) | gathered.error_functions
        candidates |= gathered.forwarders
        producers = candidates - held
        facts = self.context.facts
        ours = callable_here(facts.get(DefinedNames), self.context.text)
        templates = gathered.message_templates | frozenset(notes.message_templates)
        kept = gathered.kept_templates | frozenset(notes.kept_templates)
        untraced = Untraced(
            notes.left_alone, templates, kept, elsewhere=lambda: gathered.left_alone
        )
        tests = ConsumerFinder(self.rule, self.context, index, producers, held, ours, untraced)
        clients = ClientFinder(self.rule, self.context, index)
        functions: list[cst.FunctionDef | None] = [None]
        functions += [
            f for f in index.by_type.get(cst.FunctionDef, []) if isinstance(f, cst.FunctionDef)
        ]
        for function in functions:
            notes.passes |= passes(index, function, lambda name: may_be_defined(facts, name))
            if function is not None and function.name.value.startswith("test"):
                followed = tests.scan_function(function)
                notes.extra_reads |= extra_reads(index, function, followed, ours)
                notes.test_reads |= {
                    read
                    for read in test_key_reads(index, function, followed, self.context.parent, ours)
                    if may_be_defined(self.context.facts, read[0])
                }
                asserted = asserted_failures(
                    index, function, followed, self.context.parent, defined=ours
                )
                notes.asserted |= {
                    callee for callee in asserted if may_be_defined(self.context.facts, callee)
                }
                continue
            notes.extra_reads |= extra_reads(index, function)
            if function is not None:
                reader = function.name.value
                received = ReceivedReads(index, function, self.context.parent)
                notes.marker_tests |= {(reader, key) for key in received.markers()}
                notes.param_reads |= {(reader, *read) for read in received.param_reads()}
                notes.failure_reads |= {
                    (reader, callee)
                    for callee in failure_reads(index, function)
                    if may_be_defined(self.context.facts, callee)  # never ``next(...)``
                }
                notes.returns |= {
                    (reader, callee)
                    for callee in returned_callees(bindings, function)
                    if callee in MODEL_DUMPS or may_be_defined(self.context.facts, callee)
                }
            # Asked callee by callee (core/asked.py): not whether the repository has any
            # producer, which a first gather round cannot know.
            clients.scan(function, producers, held)

    def changes(self, node: cst.CSTNode, keys: tuple[str, ...]) -> None:
        """The top-level keys of this error dict the envelope changes (for the code that
        receives it: errors/generic_checks.py)."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            name = function.name.value
            changed = {(name, key, presence) for key, presence in changed_keys(frozenset(keys))}
            notes = self.context.shared(ErrorNotes)
            notes.changed_keys |= changed
            notes.parameters |= {(name, parameter) for parameter in _parameters(function)}

    def moves(self, node: cst.CSTNode, shape: Shape) -> None:
        """The keys an error dict of this function moves: its extra keys into
        ``error.details`` (``moved_keys``), and every key to its place (``key_places``)."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            name = function.name.value
            notes = self.context.shared(ErrorNotes)
            notes.moved_keys |= {(name, key) for key in shape.extra_keys if key not in KNOWN_KEYS}
            notes.key_places |= {(name, key, place) for key, place in key_places(shape)}

    def keeps(self, node: cst.Dict, keys: Iterable[str]) -> None:
        """A success dict this function returns has these keys (they do not move)."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            name = function.name.value
            self.context.shared(ErrorNotes).kept_keys |= {(name, key) for key in keys}


def _parameters(function: cst.FunctionDef) -> set[str]:
    """The names ``function`` takes by keyword (a data file's case may pass them)."""
    params = function.params
    named = [*params.posonly_params, *params.params, *params.kwonly_params]
    return {param.name.value for param in named}


def _in_class(
    function: cst.FunctionDef, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    """Is ``function`` a method (its nearest enclosing definition is a class)?"""
    current = parent(function)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef)):
        current = parent(current)
    return isinstance(current, cst.ClassDef)
