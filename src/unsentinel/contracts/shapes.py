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
    replacement: dict[str, Any] | None  # None: declared through $ref / anyOf: by hand only

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
    return list(_walk(document, (), targets, document))


def _walk(
    node: object,
    pointer: tuple[str, ...],
    targets: Sequence[Target],
    root: object,
    *,
    names: bool = False,
) -> Iterator[Hit]:
    """``names``: ``node`` maps names to schemas (``properties``), so no key is a keyword."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, (*pointer, str(index)), targets, root)
        return
    if not isinstance(node, Mapping):
        return
    for key, value in node.items():
        if not isinstance(key, str) or (key in DATA_KEYWORDS and not names):
            continue
        child = (*pointer, key)
        named = not names and key in NAMED_SCHEMAS and isinstance(value, Mapping)
        if named and key == "properties":
            yield from _properties(value, child, targets, root)
        yield from _walk(value, child, targets, root, names=named)


def _properties(
    properties: Mapping[str, Any],
    pointer: tuple[str, ...],
    targets: Sequence[Target],
    root: object,
) -> Iterator[Hit]:
    for name, schema in properties.items():
        for target in targets:
            if name not in target.names or not isinstance(schema, Mapping):
                continue
            hit = _items_hit(schema, target, root) if target.in_items else None
            if target.in_items and hit is not None:
                yield Hit((*pointer, name, "items"), target, hit)
            elif target.in_items and _indirect_strings(schema.get("items"), root):
                yield Hit((*pointer, name, "items"), target, None)
            elif not target.in_items and _declares(schema, "string"):
                yield Hit((*pointer, name), target, as_object(schema, target.fields))
            elif not target.in_items and _indirect_strings(schema, root):
                yield Hit((*pointer, name), target, None)


def _items_hit(schema: Mapping[str, Any], target: Target, root: object) -> dict[str, Any] | None:
    """The replacement of an array of strings written out in place (not through a $ref)."""
    items = schema.get("items")
    if isinstance(items, Mapping) and _declares(items, "string") and _declares(schema, "array"):
        return as_object(items, target.fields)
    return None


def _indirect_strings(schema: object, root: object, depth: int = 0) -> bool:
    """Does ``schema`` declare a string through a local ``$ref`` or an ``anyOf``/``oneOf``?

    Such a declaration is shared or a union: it is reported for a change by hand, never
    rewritten in place (changing a shared definition would change other properties too).
    """
    if not isinstance(schema, Mapping) or depth > 8:
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(root, ref)
        return isinstance(target, Mapping) and (
            _declares(target, "string") or _indirect_strings(target, root, depth + 1)
        )
    for union in ("anyOf", "oneOf"):
        members = schema.get(union)
        if isinstance(members, list) and any(_strings(m, root, depth + 1) for m in members):
            return True
    return False


def _strings(schema: object, root: object, depth: int) -> bool:
    """A string schema, directly or indirectly."""
    if isinstance(schema, Mapping) and _declares(schema, "string"):
        return True
    return _indirect_strings(schema, root, depth)


def _resolve(root: object, ref: str) -> object:
    """A local JSON pointer (``#/$defs/Note``) in ``root``; anything else is unknown."""
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


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
