"""What a rule leaves on its file's context: a :class:`Finding`, and the :data:`Builder` of an edit.

These live apart from :mod:`unsentinel.core.rule` so that the modules the context relies
on (the plan's decisions, the fact protocol) can name a finding without importing the
context itself: the dependency then runs one way, from ``rule`` down to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from unsentinel.core.model import Action, Inferred, Kind

if TYPE_CHECKING:
    import libcst as cst  # names only: the runner reads findings without loading LibCST

    from unsentinel.core.own_line import OwnLine

Builder = Callable[
    ["cst.CSTNode"], "cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[Any] | OwnLine"
]
"""Builds a node's replacement from the updated node (an edit scheduled by a rule): an
``OwnLine`` puts a call's sole argument on a line of its own."""


@dataclass
class Finding:
    """A site as a rule reports it, before positions are resolved (only kept ones need them).

    ``subject`` is typed data a feature attaches for its own later use (for instance which
    constant a detector saw); the core never reads it.
    """

    node: cst.CSTNode
    rule: str
    kind: Kind
    message: str
    action: Action
    severity: Inferred | None = None
    field_path: Inferred | None = None
    code: Inferred | None = None
    reasons: tuple[str, ...] = ()
    subject: object = None
