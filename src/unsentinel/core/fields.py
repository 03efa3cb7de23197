"""The fields of a generated model, as data.

A feature's emitter renders these into the Python model it writes (``Warning``,
``ErrorDetail``); :mod:`unsentinel.contracts` renders the same tuple into a JSON Schema for
the wire contracts it updates. One list for both, so a schema can never describe a model
the emitter did not write.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelField:
    """One field: its Python spelling and what it looks like on the wire."""

    name: str
    annotation: str  # as the generated model spells it: 'str | None'
    json_type: str  # the JSON Schema type of a present, non-null value: 'string', 'object'
    default: str | None = None  # the Python default as written ('None'); None: required
    wire_nullable: bool = False  # the serialised model may carry null (not only omit it)
    enum: tuple[str, ...] = ()  # the allowed values, for a Literal[...] field
    description: str = ""

    @property
    def required(self) -> bool:
        """Every serialised model carries it: it has no default."""
        return self.default is None
