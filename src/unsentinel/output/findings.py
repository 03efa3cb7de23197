"""The findings ``check`` reports, flattened for the output formats, and the rules' metadata.

Every format renders the same sorted list of :class:`Finding` rows; the command line builds
the :class:`RuleInfo` table from the registry, so no format imports a rule.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from unsentinel.core.model import FileResult


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str
    end_line: int
    end_column: int  # 1-based, one past the last character
    action: str  # what apply does here: rewrite / review / skip / report


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    summary: str


def collect(results: Iterable[FileResult]) -> list[Finding]:
    """Every finding, sorted by path, line, column and code."""
    rows = [
        Finding(
            path=result.path,
            line=site.position.line,
            column=site.position.column,
            code=site.rule,
            message=site.message,
            end_line=site.position.end_line,
            end_column=site.position.end_column,
            action=site.action.value,
        )
        for result in results
        for site in result.sites
        if site.action.is_finding
    ]
    return sorted(rows)


# -- fixes: what apply would write, as replacements an editor can apply ------------------------


@dataclass(frozen=True)
class Replacement:
    """Replace a region of the original text (1-based lines and columns, in code points).

    ``offset`` / ``length`` say the same in characters from the start of the file, for
    consumers that prefer them; ``end`` is exclusive.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    offset: int
    length: int
    inserted: str


@dataclass(frozen=True)
class FileChange:
    path: str
    replacements: tuple[Replacement, ...]


@dataclass(frozen=True)
class Fix:
    """The rewrite ``apply`` makes in one file, with the generated modules it imports from.

    A fix is per file, not per site: the sites of one file share imports (and often a
    generated code module), so a single site's edit applied alone would not be valid code.
    """

    description: str
    changes: tuple[FileChange, ...]


def fixes(results: Iterable[FileResult], emitted: Iterable[FileResult]) -> dict[str, Fix]:
    """One :class:`Fix` per changed file in ``results`` (a diff run), keyed by its path.

    Every fix carries the changed generated modules too, because the rewritten file imports
    from them; a file that fails or does not change gets no fix (we don't know one).
    """
    generated = tuple(_change(r) for r in emitted if r.changed)
    found: dict[str, Fix] = {}
    for result in results:
        if not result.changed:
            continue
        sites = sum(1 for site in result.sites if site.action.is_finding)
        description = (
            f"Migrate {result.path} as `unsentinel apply` would ({sites} site(s) in this file"
            + (", and the generated modules it imports from)" if generated else ")")
        )
        found[result.path] = Fix(description, (_change(result), *generated))
    return found


def _change(result: FileResult) -> FileChange:
    return FileChange(result.path, replacements(result.original or "", result.new_text or ""))


def replacements(old: str, new: str) -> tuple[Replacement, ...]:
    """The line hunks that turn ``old`` into ``new``, whole lines each (difflib's opcodes)."""
    if old.startswith("\ufeff") and new.startswith("\ufeff"):
        old, new = old[1:], new[1:]  # the BOM is no character an editor shows or counts
    old_lines = _LINE.findall(old)
    new_lines = _LINE.findall(new)
    starts = _line_starts(old_lines)
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        end_line, end_column = _position_after(old_lines, i2)
        found.append(
            Replacement(
                start_line=i1 + 1,
                start_column=1,
                end_line=end_line,
                end_column=end_column,
                offset=starts[i1],
                length=starts[i2] - starts[i1],
                inserted="".join(new_lines[j1:j2]),
            )
        )
    return tuple(found)


# A line and its terminator, as SARIF counts lines (str.splitlines also splits on \f, ...).
_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+\Z", re.DOTALL)


def _line_starts(lines: list[str]) -> list[int]:
    """Character offset of each line's start, and of the end of the text last."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _position_after(lines: list[str], count: int) -> tuple[int, int]:
    """Line and column just past the first ``count`` lines (line terminators included).

    Past the last line that has no line terminator, that is the end of that line, not the
    start of a line that does not exist.
    """
    if count == 0:
        return 1, 1
    last = lines[count - 1]
    if last.endswith(("\n", "\r")):
        return count + 1, 1
    return count, len(last) + 1
