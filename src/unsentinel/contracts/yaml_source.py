"""YAML schema files (OpenAPI is often YAML): read with positions, never rewritten.

PyYAML (the ``yaml`` extra) reads them; it does not round-trip, so writing its output back
would drop every comment and re-layout the file. ruamel.yaml round-trips more, but still
re-indents sequences, re-wraps long scalars and changes quoting in places, which is not
"keeps the file's style". A YAML location is therefore always reported, never updated.
"""

from __future__ import annotations

from typing import Any

Pointer = tuple[str, ...]


class YamlUnavailable(Exception):
    """PyYAML is not installed: the file cannot be read (it is reported, not skipped)."""


def load(text: str) -> tuple[Any, dict[Pointer, tuple[int, int]]]:
    """The document and the 1-based (line, column) of every key and item, by pointer.

    Raises :class:`YamlUnavailable` without PyYAML and ``ValueError`` for text that is not
    one YAML document.
    """
    try:
        import yaml
    except ImportError as exc:
        raise YamlUnavailable from exc
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc
    positions: dict[Pointer, tuple[int, int]] = {}
    if node is not None:
        _positions(node, (), positions)
    return document, positions


def _positions(node: Any, pointer: Pointer, found: dict[Pointer, tuple[int, int]]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = (*pointer, str(key.value))
            found.setdefault(child, (key.start_mark.line + 1, key.start_mark.column + 1))
            _positions(value, child, found)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*pointer, str(index))
            found.setdefault(child, (item.start_mark.line + 1, item.start_mark.column + 1))
            _positions(item, child, found)
