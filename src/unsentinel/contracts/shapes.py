"""Which schema nodes the migration breaks, and what they become.

A ``warnings`` property declared as an array of strings gets the ``Warning`` object schema
for its items; an ``error`` property declared as a string becomes the ``ErrorDetail`` object
schema. Both object schemas are rendered from the models' field lists, so the contract
describes exactly what the generated model serialises.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unsentinel.core.fields import ModelField

# Markers of a schema document: a data file that happens to have a "properties" key deep
# inside is not one unless its top level says so.
SCHEMA_MARKERS = frozenset(
    {"$schema", "$id", "$defs", "definitions", "openapi", "swagger", "components", "properties"}
)
# Values under these keys are instance data (examples, defaults), not schemas.
DATA_KEYWORDS = frozenset({"example", "examples", "default", "const", "enum"})
# Keywords whose value maps names to schemas: its keys are names, whatever they spell.
NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "schemas"})
# Keywords that only constrain a string: meaningless once the value is an object.
STRING_KEYWORDS = frozenset(
    {"minLength", "maxLength", "pattern", "format", "enum", "const", "example", "examples"}
)
STRING_KEYWORDS |= {"default", "contentMediaType", "contentEncoding"}


@dataclass(frozen=True)
class Target:
    """One kind of schema location the migration breaks."""

    kind: str  # "warnings" or "error", for the messages
    names: tuple[str, ...]  # property names that hold it
    fields: tuple[ModelField, ...]  # the model the values become
    model: str  # its name in messages: "Warning", "ErrorDetail"
    in_items: bool  # the strings are an array's items (warnings), or the value itself


@dataclass(frozen=True)
class Hit:
    """A schema location to change: the node to replace and its replacement."""

    pointer: tuple[str, ...]  # the path to the node that changes (items, or the property)
    target: Target
    replacement: dict[str, Any]

    @property
    def property_pointer(self) -> tuple[str, ...]:
        """The property the user reads about: ``.../warnings``, not ``.../warnings/items``."""
        return self.pointer[:-1] if self.target.in_items else self.pointer


def is_schema_document(document: object) -> bool:
    return isinstance(document, Mapping) and any(key in document for key in SCHEMA_MARKERS)


def object_schema(fields: Sequence[ModelField]) -> dict[str, Any]:
    """The JSON Schema of a model's serialised form, from its field list."""
    properties: dict[str, Any] = {}
    for field in fields:
        prop: dict[str, Any] = {"type": [field.json_type, "null"]}
        if not field.wire_nullable:
            prop["type"] = field.json_type
        if field.enum:
            prop["enum"] = list(field.enum)
        if field.description:
            prop["description"] = field.description
        properties[field.name] = prop
    required = [field.name for field in fields if field.required]
    return {"type": "object", "properties": properties, "required": required}


def find_hits(document: object, targets: Sequence[Target]) -> list[Hit]:
    """Every location in ``document`` that declares a target as strings, in document order."""
    return list(_walk(document, (), targets))


def _walk(
    node: object, pointer: tuple[str, ...], targets: Sequence[Target], *, names: bool = False
) -> Iterator[Hit]:
    """``names``: ``node`` maps names to schemas (``properties``), so no key is a keyword."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, (*pointer, str(index)), targets)
        return
    if not isinstance(node, Mapping):
        return
    for key, value in node.items():
        if not isinstance(key, str) or (key in DATA_KEYWORDS and not names):
            continue
        child = (*pointer, key)
        named = not names and key in NAMED_SCHEMAS and isinstance(value, Mapping)
        if named and key == "properties":
            yield from _properties(value, child, targets)
        yield from _walk(value, child, targets, names=named)


def _properties(
    properties: Mapping[str, Any], pointer: tuple[str, ...], targets: Sequence[Target]
) -> Iterator[Hit]:
    for name, schema in properties.items():
        for target in targets:
            if name not in target.names or not isinstance(schema, Mapping):
                continue
            if target.in_items:
                items = schema.get("items")
                strings = isinstance(items, Mapping) and _declares(items, "string")
                if strings and _declares(schema, "array") and isinstance(items, Mapping):
                    replacement = as_object(items, target.fields)
                    yield Hit((*pointer, name, "items"), target, replacement)
            elif _declares(schema, "string"):
                yield Hit((*pointer, name), target, as_object(schema, target.fields))


def _declares(schema: Mapping[str, Any], json_type: str) -> bool:
    """``"type": json_type``, or a list of that type and at most ``"null"``."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared == json_type
    if isinstance(declared, list):
        return json_type in declared and set(declared) <= {json_type, "null"}
    return False


def as_object(schema: Mapping[str, Any], fields: Sequence[ModelField]) -> dict[str, Any]:
    """``schema`` (a string schema) as the model's object schema, in the same key order.

    Annotations the author wrote (``description``, ``title``, OpenAPI's ``nullable``) stay;
    string-only constraints go; a nullable type stays nullable.
    """
    model = object_schema(fields)
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            nullable = isinstance(value, list) and "null" in value
            result["type"] = ["object", "null"] if nullable else "object"
            result["properties"] = model["properties"]
            result["required"] = model["required"]
        elif key not in STRING_KEYWORDS and key not in ("properties", "required"):
            result[key] = value
    return result


def json_pointer(parts: Sequence[str]) -> str:
    """RFC 6901: ``#/components/schemas/Resp/properties/warnings``."""
    escaped = (part.replace("~", "~0").replace("/", "~1") for part in parts)
    return "#/" + "/".join(escaped) if parts else "#"
