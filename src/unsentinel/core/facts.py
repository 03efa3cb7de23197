"""The typed protocol for facts that cross files (bump-pydantic's gather pattern).

Each feature owns one frozen :class:`Facts` class. The gather pass builds one value per
file (:meth:`Facts.from_source` on the raw bytes, :meth:`Facts.from_context` after the
rules have read the tree), :meth:`Facts.merge` folds them into the repository's view, and
:meth:`Facts.settle` derives what needs the whole repository (one code per template).
The core never looks inside: it stores values in a :class:`FactBook` keyed by their class,
and a rule asks for its own feature's facts with ``context.facts.get(WarningFacts)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from typing_extensions import Self

    from unsentinel.core.config import Config
    from unsentinel.core.finding import Finding

T = TypeVar("T")


class ReadFile(Protocol):
    """What :meth:`Facts.from_context` reads from one parsed file's rule context.

    The feature's per-file notes (``shared``) and the findings its rules reported. A
    protocol rather than the context class, so that this module never imports
    :mod:`unsentinel.core.rule` (which imports it): the dependency runs one way.
    """

    @property
    def pending(self) -> Sequence[Finding]: ...

    def shared(self, kind: type[T]) -> T: ...


class Facts(Protocol):
    """A feature's cross-file facts; the empty value is ``cls()``."""

    def __init__(self) -> None: ...

    @classmethod
    def from_source(cls, data: bytes) -> Self | None:
        """Facts read cheaply from every file's bytes, parsed or not (None: nothing)."""
        ...

    @classmethod
    def from_context(cls, context: ReadFile) -> Self:
        """Facts the rules recorded while reading one parsed file."""
        ...

    # Optional: ``from_data(files, config) -> Self | None``, the facts a feature reads from
    # the run's test-data files (:mod:`unsentinel.core.data_files`); the runner merges
    # them with every round's facts.

    def merge(self, other: Self) -> Self:
        """The union of two files' facts; associative, so the order of files is irrelevant."""
        ...

    def settle(self, config: Config) -> Self:
        """Derive what needs the whole repository, once everything is merged."""
        ...

    def changed_functions(self, previous: Self) -> set[str]:
        """Names of functions whose facts differ from ``previous`` (another gather round
        is needed only for files that mention one of them). Those whose standing with the
        prefilter changed are added by :func:`~unsentinel.core.gather.admission_changed`."""
        ...

    def function_names(self) -> frozenset[str]:
        """Functions this feature has facts about: a file that spells one may have
        something to rewrite though it spells none of the rules' needles."""
        ...


F = TypeVar("F", bound=Facts)


@dataclass(frozen=True)
class FactBook:
    """One :class:`Facts` value per feature, keyed by its class."""

    entries: Mapping[type[Any], Any] = field(default_factory=dict)
    gathered: bool = False  # True once a whole-repository gather pass produced these
    # :meth:`function_names` and :meth:`module_function_names`, where the book's maker knew
    # them without its entries (the check cache reads the entries when a rule asks).
    names: tuple[frozenset[str], frozenset[str]] | None = field(
        default=None, compare=False, repr=False
    )

    def get(self, kind: type[F]) -> F:
        found = self.entries.get(kind)
        return found if found is not None else kind()

    def function_names(self) -> frozenset[str]:
        """Every feature's :meth:`Facts.function_names` (a reviewer's decisions, kept in
        the book beside the facts, name no function)."""
        if self.names is not None:
            return self.names[0]
        found: set[str] = set()
        for value in self.entries.values():
            names = getattr(value, "function_names", None)
            if names is not None:
                found |= names()
        return frozenset(found)

    def module_function_names(self) -> frozenset[str]:
        """Of :meth:`function_names`, those every feature naming them knows only as
        module-level functions (a feature's optional ``module_function_names``): a file
        admits them only by a bare call or a call through an imported module."""
        if self.names is not None:
            return self.names[1]
        anywhere: set[str] = set()
        module_only: set[str] = set()
        for value in self.entries.values():
            names = getattr(value, "function_names", None)
            if names is None:
                continue
            named = names()
            only = getattr(value, "module_function_names", None)
            module = only() & named if only is not None else frozenset()
            module_only |= module
            anywhere |= named - module
        return frozenset(module_only - anywhere)

    def with_entries(self, values: Iterable[Facts], *, gathered: bool = True) -> FactBook:
        return FactBook({type(value): value for value in values}, gathered=gathered)
