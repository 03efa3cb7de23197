"""The project's style for what unsentinel writes whole: import sections and quotes.

A generated module (``error_model.py``, ``warning_model.py``, ...) is a template; before
it is written its import block is laid out as the project's import sorter would (isort's
sections, or one with ``no-sections``; ``import x`` lines before ``from x import`` lines
unless ``force-sort-within-sections``) and its strings take the project's quote. The
ordering rules here are also the ones :mod:`unsentinel.core.imports` inserts by; this
module imports no LibCST unless a string is re-quoted.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from unsentinel.core.project import ImportStyle

SECTION_ORDER = {"future": 0, "stdlib": 1, "thirdparty": 2, "firstparty": 3, "localfolder": 4}
_IMPORT = re.compile(r"^(?:from (?P<from>[\w.]+) import .+|import (?P<module>[\w.]+).*)$")


def section_of(
    module: str, style: ImportStyle, is_first_party: Callable[[str], bool] = lambda _: False
) -> str:
    """isort's section of ``module``: __future__, standard library, third party, first
    party, and the local folder of relative imports, a block of its own after the first
    party one (with ``no-sections``: __future__, and one for everything else)."""
    top = module.split(".")[0]
    if top == "__future__":
        return "future"
    if style.no_sections:
        return "firstparty"
    if module.startswith("."):
        return "localfolder"
    if is_first_party(top):
        return "firstparty"
    if top in sys.stdlib_module_names:
        return "stdlib"
    return "thirdparty"


def order_key(module: str, is_from: bool, style: ImportStyle) -> tuple[bool, bool, str]:
    """isort's order within a section: ``import x`` lines before ``from x import`` lines
    (unless ``force-sort-within-sections``), absolute modules before relative ones, then
    by module."""
    return is_from and not style.force_sort_within_sections, module.startswith("."), module.lower()


def styled(text: str, style: ImportStyle, quote: str) -> str:
    """A generated module's ``text`` with its top import block sorted as ``style`` says
    and its strings (docstrings aside) in ``quote``."""
    return _quoted(_sorted_imports(text, style), quote)


def _sorted_imports(text: str, style: ImportStyle) -> str:
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _IMPORT.match(line)), None)
    if first is None:
        return text
    last = first
    while last + 1 < len(lines) and (not lines[last + 1] or _IMPORT.match(lines[last + 1])):
        last += 1
    while not lines[last]:
        last -= 1
    statements = [line for line in lines[first : last + 1] if line]
    blocks: dict[str, list[str]] = {}
    for line in statements:
        match = _IMPORT.match(line)
        assert match is not None
        module = match["from"] or match["module"]
        blocks.setdefault(section_of(module, style), []).append(line)
    rendered: list[str] = []
    for section in sorted(blocks, key=SECTION_ORDER.__getitem__):
        if rendered:
            rendered.append("")
        rendered.extend(sorted(blocks[section], key=lambda line: _line_key(line, style)))
    return "\n".join([*lines[:first], *rendered, *lines[last + 1 :]])


def _line_key(line: str, style: ImportStyle) -> tuple[bool, bool, str]:
    match = _IMPORT.match(line)
    assert match is not None
    return order_key(match["from"] or match["module"], match["from"] is not None, style)


def _quoted(text: str, quote: str) -> str:
    if quote != "'":
        return text
    import libcst as cst

    from unsentinel.core.quotes import module_quoted

    return module_quoted(cst.parse_module(text), quote).code
