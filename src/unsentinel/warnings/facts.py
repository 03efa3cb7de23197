"""The warnings feature's cross-file facts, typed (see :mod:`unsentinel.core.facts`).

Rules record what one file shows in a :class:`WarningNotes` (mutable, one per file); the
gather pass freezes the notes into :class:`WarningFacts` and merges them over the whole
repository. A rewrite then asks the merged facts: does ``resolve`` return warnings, and in
which shape? Does ``render``'s first parameter receive them? Which code does a template get?
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from unsentinel.core.pywalk import statements
from unsentinel.warnings.graph import (
    Blocker,
    Carrier,
    ConstantUse,
    KeyedEntries,
    Link,
    carrier_name,
    settle_blocked,
)
from unsentinel.warnings.inference.code import Template, assign_codes, entity_nouns, own_code
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.core.facts import ReadFile
    from unsentinel.core.rule import RuleContext


class WarningShape(enum.Enum):
    """How warnings travel in a value: as objects or as dumped dicts, one or a list."""

    LIST = "list"  # a list of Warning objects
    ITEM = "item"  # one Warning object
    DICT_LIST = "dict list"  # a list of dumped warnings
    DICT = "dict"  # one dumped warning

    @property
    def item(self) -> WarningShape:
        return (
            WarningShape.ITEM
            if self in (WarningShape.LIST, WarningShape.ITEM)
            else WarningShape.DICT
        )

    @property
    def is_dict(self) -> bool:
        return self in (WarningShape.DICT, WarningShape.DICT_LIST)


# A list of warnings, as objects or as dumped dicts.
LIST_SHAPES = (WarningShape.LIST, WarningShape.DICT_LIST)


@dataclass(frozen=True, order=True)
class TupleSlot:
    """Element ``index`` of the tuple that ``function`` returns is a warning."""

    function: str
    index: int


@dataclass(frozen=True, order=True)
class ParamSlot:
    """A parameter of ``function`` (by position or by name) that receives warnings."""

    function: str
    key: int | str
    dumped: bool = False  # receives dumped dicts, not Warning objects
    # A slot by position that a definition recorded (its parameter is named like a
    # warnings list) holds that name: functions are known by their bare names, and an
    # unrelated ``__init__`` elsewhere must not take warnings at the same position.
    named: str = ""


@dataclass(frozen=True)
class ConstantReference:
    """A sentinel constant named in code: ``use`` (blocks its deletion), ``import`` or
    ``definition``. Attached to the UNS002 findings no rewrite claimed."""

    name: str
    role: str


@dataclass
class WarningNotes:
    """What the rules saw in one file; frozen into :class:`WarningFacts` by the gather pass."""

    context: RuleContext
    templates: list[Template] = field(default_factory=list)
    returning: set[str] = field(default_factory=set)
    return_shapes: dict[str, WarningShape] = field(default_factory=dict)
    tuple_slots: set[TupleSlot] = field(default_factory=set)
    text_slots: set[TupleSlot] = field(default_factory=set)
    dumped_slots: set[TupleSlot] = field(default_factory=set)
    list_slots: set[TupleSlot] = field(default_factory=set)
    params: set[ParamSlot] = field(default_factory=set)
    marker_constants: dict[str, str] = field(default_factory=dict)
    links: set[Link] = field(default_factory=set)  # flows between carriers (warnings/graph)
    blockers: set[Blocker] = field(default_factory=set)
    keyed: set[KeyedEntries] = field(default_factory=set)
    constant_uses: set[ConstantUse] = field(default_factory=set)
    # warnings/returned_dicts.py: (function, blocker) and (function, key) pairs
    returned_objects: set[tuple[str, Blocker]] = field(default_factory=set)
    key_reads: set[tuple[str, str]] = field(default_factory=set)


@dataclass(frozen=True)
class WarningFacts:
    """What one file, or the whole repository, tells the warning rules."""

    model_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    templates: tuple[Template, ...] = ()
    returning: frozenset[str] = frozenset()  # functions whose return value carries warnings
    return_shapes: Mapping[str, WarningShape] = field(default_factory=dict)
    tuple_slots: frozenset[TupleSlot] = frozenset()
    # Slots a helper fills with what is not followed as warnings (``return blocks, ...``
    # where ``blocks`` gathers message texts): a name unpacked from one is no warnings list.
    text_slots: frozenset[TupleSlot] = frozenset()
    # List slots a helper fills with dumped warnings (``return blocks, regulars`` where
    # ``regulars`` collects ``model_dump()`` dicts): a name unpacked from one reads keys.
    dumped_slots: frozenset[TupleSlot] = frozenset()
    # List slots a helper fills with a warnings list (``return blocks, regulars`` where
    # ``regulars`` collects the warnings themselves): a name unpacked from one holds them.
    list_slots: frozenset[TupleSlot] = frozenset()
    params: frozenset[ParamSlot] = frozenset()
    marker_constants: Mapping[str, str] = field(default_factory=dict)  # NAME -> "BLOCK:"-like
    constant_leftovers: frozenset[str] = (
        frozenset()
    )  # sentinel constants used where we can't migrate
    # template text -> constant name, where it is not :func:`own_code`'s (settled)
    codes: Mapping[str, str] = field(default_factory=dict)
    code_values: Mapping[str, str] = field(default_factory=dict)  # constant name -> value
    links: frozenset[Link] = frozenset()
    blockers: frozenset[Blocker] = frozenset()
    keyed: frozenset[KeyedEntries] = frozenset()
    constant_uses: frozenset[ConstantUse] = frozenset()
    # Lists a function returns inside a dict under a key (warnings/returned_dicts.py):
    # blocked where a caller reads that key off its result (``key_reads``: function, key).
    returned_objects: frozenset[tuple[str, Blocker]] = frozenset()
    key_reads: frozenset[tuple[str, str]] = frozenset()
    blocked: Mapping[Carrier, Blocker] = field(default_factory=dict)  # settled: group -> why

    # -- the protocol -------------------------------------------------------------------
    @classmethod
    def from_source(cls, data: bytes) -> WarningFacts | None:
        fields = model_fields(data)
        return cls(model_fields=dict(fields)) if fields else None

    @classmethod
    def from_context(cls, context: ReadFile) -> WarningFacts:
        notes = context.shared(WarningNotes)
        left_behind = {
            finding.subject.name
            for finding in context.pending
            if isinstance(finding.subject, ConstantReference) and finding.subject.role == "use"
        }
        return cls(
            templates=tuple(notes.templates),
            returning=frozenset(notes.returning),
            return_shapes=dict(notes.return_shapes),
            tuple_slots=frozenset(notes.tuple_slots),
            text_slots=frozenset(notes.text_slots),
            dumped_slots=frozenset(notes.dumped_slots),
            list_slots=frozenset(notes.list_slots),
            params=frozenset(notes.params),
            marker_constants=dict(notes.marker_constants),
            constant_leftovers=frozenset(left_behind),
            links=frozenset(notes.links),
            blockers=frozenset(notes.blockers),
            keyed=frozenset(notes.keyed),
            constant_uses=frozenset(notes.constant_uses),
            returned_objects=frozenset(notes.returned_objects),
            key_reads=frozenset(notes.key_reads),
        )

    def merge(self, other: WarningFacts) -> WarningFacts:
        fields = dict(self.model_fields)
        for name, names in other.model_fields.items():
            fields[name] = tuple(dict.fromkeys([*fields.get(name, ()), *names]))
        return WarningFacts(
            model_fields=fields,
            templates=self.templates + other.templates,
            returning=self.returning | other.returning,
            return_shapes={**self.return_shapes, **other.return_shapes},
            tuple_slots=self.tuple_slots | other.tuple_slots,
            text_slots=self.text_slots | other.text_slots,
            dumped_slots=self.dumped_slots | other.dumped_slots,
            list_slots=self.list_slots | other.list_slots,
            params=self.params | other.params,
            marker_constants={**self.marker_constants, **other.marker_constants},
            constant_leftovers=self.constant_leftovers | other.constant_leftovers,
            links=self.links | other.links,
            blockers=self.blockers | other.blockers,
            keyed=self.keyed | other.keyed,
            constant_uses=self.constant_uses | other.constant_uses,
            returned_objects=self.returned_objects | other.returned_objects,
            key_reads=self.key_reads | other.key_reads,
        )

    def settle(self, config: Config) -> WarningFacts:
        """One code per template, repository-wide; codes a human kept in the module win."""
        nouns = entity_nouns(config)
        codes, values = assign_codes(self.templates, existing_codes(config), nouns)
        # Only the codes a template's own words would not name: where the settled one is
        # that name (most), an analysis told no code (a first gather round) holds.
        codes = {text: name for text, name in codes.items() if name != own_code(text, nouns)}
        # Connected groups with a blocker stay as they are; the constants their producers
        # spell stay in use.
        read = {
            blocker
            for function, blocker in self.returned_objects
            if (function, carrier_name(blocker.carrier)) in self.key_reads
        }
        blocked = settle_blocked(self.links, self.blockers | read, self.keyed)
        kept = {use.name for use in self.constant_uses if use.carrier in blocked}
        return replace(
            self,
            codes=codes,
            code_values=values,
            blocked=blocked,
            constant_leftovers=self.constant_leftovers | kept,
        )

    def changed_functions(self, previous: WarningFacts) -> set[str]:
        def keys(facts: WarningFacts) -> set[tuple[str, object]]:
            return {
                *((name, "returns") for name in facts.returning),
                *((name, shape) for name, shape in facts.return_shapes.items()),
                *((slot.function, slot) for slot in facts.tuple_slots),
                *((slot.function, ("text", slot)) for slot in facts.text_slots),
                *((slot.function, ("dumped", slot)) for slot in facts.dumped_slots),
                *((slot.function, ("list", slot)) for slot in facts.list_slots),
                *((param.function, param) for param in facts.params),
            }

        changed = {name for name, _what in keys(self) ^ keys(previous)}
        # A group that became blocked (or free) changes what every file touching it does.
        moved = set(self.blocked.items()) ^ set(previous.blocked.items())
        return changed | {carrier_name(carrier) for carrier, _blocker in moved}

    def function_names(self) -> frozenset[str]:
        """Helpers whose result is a warning: a file that calls one (or defines it) gets
        warnings from it. Those whose group is held too: nothing of the group changes, but
        ``check`` still reports its consumers (left as they are, with the reason), so the
        prefilter must let their files through. Not those that only take warnings (their
        module spells the parameter's name, a needle), and never a dunder."""
        slots = self.tuple_slots | self.list_slots
        names = set(self.returning) | {slot.function for slot in slots}
        return frozenset(name for name in names if not name.startswith("__"))

    # -- questions the rules ask ------------------------------------------------------------
    def return_shape(self, function: str) -> WarningShape | None:
        """The shape of what ``function`` returns, if it returns warnings."""
        if function not in self.returning:
            return None
        return self.return_shapes.get(function, WarningShape.LIST)

    def returns_slot(self, function: str, index: int) -> bool:
        return TupleSlot(function, index) in self.tuple_slots

    def is_text_slot(self, function: str, index: int) -> bool:
        return TupleSlot(function, index) in self.text_slots

    def is_dumped_slot(self, function: str, index: int) -> bool:
        return TupleSlot(function, index) in self.dumped_slots

    def is_list_slot(self, function: str, index: int) -> bool:
        return TupleSlot(function, index) in self.list_slots

    def slots_of(self, function: str) -> set[int]:
        return {slot.index for slot in self.tuple_slots if slot.function == function}

    def param_shape(self, function: str, index: int, name: str) -> WarningShape | None:
        """What parameter ``index`` / ``name`` of ``function`` receives, if warnings.

        A call's slot by position counts; a definition's slot by position only where the
        parameter has the name that made it a warnings list.
        """
        keys = ((index, ""), (index, name), (name, ""))
        for dumped, shape in ((True, WarningShape.DICT_LIST), (False, WarningShape.LIST)):
            if any(ParamSlot(function, key, dumped, named) in self.params for key, named in keys):
                return shape
        return None

    def takes_warnings(self, function: str, key: int | str) -> bool:
        """Does a call's argument ``key`` (position or keyword) land in a warnings list?"""
        return (function, key) in self._param_keys

    @cached_property
    def _param_keys(self) -> frozenset[tuple[str, int | str]]:
        # Asked for every parameter of every function: a set, not a scan of ``params``.
        return frozenset((slot.function, slot.key) for slot in self.params)


# -- what the gather pass reads without LibCST ----------------------------------------------

MODEL_MARKERS = (b"BaseModel", b"BaseSettings", b"dataclass", b"TypedDict", b"NamedTuple")
MODEL_BASES = {"BaseModel", "TypedDict", "NamedTuple", "BaseSettings"}


def model_fields(data: bytes) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(class name, field names)`` for every model-like class in a module's source.

    Read with the standard library's ``ast``, an order of magnitude faster than LibCST.
    """
    if b"class" not in data or not any(marker in data for marker in MODEL_MARKERS):
        return ()
    if not _may_define_a_model(data):
        return ()  # ``from typing import NamedTuple`` alone: no parse
    try:
        tree = ast.parse(data)
    except SyntaxError:
        # newer syntax than this Python's ``ast`` (a 3.12 f-string on 3.11): LibCST reads
        # it, imported only for such a module (the facts never import it themselves)
        from unsentinel.warnings.model_fields_libcst import model_fields_by_libcst

        return model_fields_by_libcst(data)
    except (ValueError, RecursionError):
        return ()
    return tuple(
        (node.name, _annotated_names(node))
        for node in statements(tree)  # a class is a statement: no expression is visited
        if isinstance(node, ast.ClassDef) and _is_model(node)
    )


def _may_define_a_model(data: bytes) -> bool:
    """A ``@dataclass`` decorator, or a class header naming a model base. Where a base is
    a call (``class X(make(), BaseModel)``) the header cannot be read here: maybe."""
    for header in _MODEL_HEADER.finditer(data):
        bases = header.group("bases")
        if bases is None or b"(" in bases or _MODEL_BASE.search(bases):
            return True
    return False


_MODEL_HEADER = re.compile(
    rb"^[ \t]*@[ \t]*[\w.]*dataclass\b|^[ \t]*class[ \t]+\w+[ \t]*\((?P<bases>[^)]*)\)",
    re.MULTILINE,
)
_MODEL_BASE = re.compile(rb"\b(?:" + b"|".join(sorted(n.encode() for n in MODEL_BASES)) + rb")\b")


def _is_model(node: ast.ClassDef) -> bool:
    bases = {_name_of(base) for base in node.bases}
    decorators = {_name_of(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}
    return bool(bases & MODEL_BASES) or "dataclass" in decorators


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _annotated_names(node: ast.ClassDef) -> tuple[str, ...]:
    return tuple(
        stmt.target.id
        for stmt in node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    )


def existing_codes(config: Config) -> dict[str, str]:
    """Constants already in the configured ``warning_codes`` module (name -> value)."""
    path = config.root / warning_settings(config).codes_module
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return {}
    return dict(_string_constants(tree.body))


def _string_constants(body: Iterable[ast.stmt]) -> Iterable[tuple[str, str]]:
    for node in body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.targets[0].id, node.value.value
