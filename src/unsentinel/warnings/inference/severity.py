"""Severity: which of ``info`` / ``advisory`` / ``blocking`` a warning is.

The decision table of the structured-warnings proposal, as far as code can tell it. The
code's structure decides first, the words last -- and only a signal that is as good as
the author saying it is ``high``:

1. a sentinel prefix (``BLOCK:``) or a configured marker: that severity, ``high``;
2. the list is a verdict by its name -- a lint's ``failed`` list blocks, its ``warned``
   list does not: ``high``;
3. the function raises when the list is not empty (``if errors: raise ...``): blocking,
   ``high``;
4. the list is named like errors (``errors``, ``validation_errors``), or it is what a
   validator (``validate_urls``, a method of ``class SizeCheck``) collects and not named
   like warnings: blocking;
5. ``is None`` on an optional input (``if request.ship_by is None:``): the input was
   left out, info. The consumer rule rewrites literal lists in tests (``problems ==
   ["..."]``) with the severity the producer of the same message got
   (:func:`producer_severity`), so the two agree;
6. the function raises right after appending: blocking (a ``return`` is not enough:
   ``if dry_run: issues.append("dry run: ..."); return result`` is context);
7. the append is in an ``except`` branch: a partial failure, advisory;
8. an ``info-keywords`` word in a message that reports no failure: info;
9. otherwise advisory: the code never blocked on it.

Steps 4 to 9 are ``low``: measured on real code, they are right often, not always.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from unsentinel.core.model import Inferred, Severity
from unsentinel.warnings.inference.code import Template
from unsentinel.warnings.inference.structure import Structure

# Lists whose name is the verdict (the lint convention: nf-core's ``failed`` / ``warned``).
VERDICT_LISTS = {
    "failed": Severity.BLOCKING,
    "failures": Severity.BLOCKING,
    "warned": Severity.ADVISORY,
}
# Lists whose name suggests, without proving, that the operation fails.
ERROR_LISTS = frozenset({"errors", "error_messages", "validation_errors"})
# A message that reports a failure is not context, whatever incidental word it holds:
# "Saved, but the local cache could not be updated" is a partial failure.
_FAILURE = re.compile(
    r"\b(could ?n[o']t|can ?n[o']t|can't|failed|fails|unable|error|not be)\b", re.IGNORECASE
)


def infer_severity(
    message: str,
    marker: str | None,
    marker_severity: Severity | None,
    info_keywords: Iterable[str],
    structure: Structure | None = None,
) -> Inferred:
    if marker is not None and marker_severity is not None:
        return Inferred.high(marker_severity, f"marker: the message starts with {marker!r}")
    found = structural_severity(structure or Structure())
    if found is not None:
        return found
    keyword = info_keyword_in(message, info_keywords)
    if keyword is not None and not _FAILURE.search(message):
        return Inferred.low(
            Severity.INFO, f"keyword: the message mentions {keyword!r} and reports no failure"
        )
    return Inferred.low(Severity.ADVISORY, "fallback: a plain warning the code never blocked on")


def structural_severity(structure: Structure) -> Inferred | None:
    """Steps 2 to 7: what the code around the append says, or None."""
    name = structure.list_name or ""
    verdict = VERDICT_LISTS.get(name)
    if verdict is not None:
        return Inferred.high(verdict, f"list name: a {name!r} list is the verdict")
    if structure.raised_on:
        reason = f"raise: the function raises when {name!r} is not empty"
        return Inferred.high(Severity.BLOCKING, reason)
    if name in ERROR_LISTS:
        return Inferred.low(Severity.BLOCKING, f"list name: {name!r} collects errors")
    if _is_validator(structure.function_name) and "warn" not in name.lower():
        reason = f"validator: {structure.function_name!r} reports what makes its input invalid"
        return Inferred.low(Severity.BLOCKING, reason)
    if _is_check_class(structure.class_name) and "warn" not in name.lower():
        reason = f"validator: a method of {structure.class_name!r} reports what fails the check"
        return Inferred.low(Severity.BLOCKING, reason)
    if structure.none_guard is not None:
        reason = f"guard: appended when the optional input {structure.none_guard!r} is None"
        return Inferred.low(Severity.INFO, reason)
    if structure.stops_after == "raise":  # a ``return`` after it is as often a dry run's
        reason = "branch: the function raises right after appending"
        return Inferred.low(Severity.BLOCKING, reason)
    if structure.in_except:
        return Inferred.low(Severity.ADVISORY, "except: appended while handling a failure")
    return None


def _is_validator(function_name: str | None) -> bool:
    """``validate_urls`` / ``_validate_readme``: a function whose whole job is to say what
    is wrong with its input. What it collects (``problems``, ``probs``) is why the input is
    refused -- unless the author filed it apart as a warning (``result["warnings"]``)."""
    return function_name is not None and function_name.lstrip("_").lower().startswith("validat")


_CHECK_CLASS = re.compile(r"(Check|Checker|Validator)$")


def _is_check_class(class_name: str | None) -> bool:
    """``class SizeCheck`` / ``UrlValidator``: a class that exists to run one check, so
    what its methods collect (``out``, ``problems``) is why the check fails -- a
    validator by its class's name where the method's own name (``__call__``, ``run``)
    says nothing. A list named like warnings is still filed apart."""
    return class_name is not None and _CHECK_CLASS.search(class_name) is not None


def producer_severity(templates: Iterable[Template], text: str) -> str | None:
    """The severity every producer of the message ``text`` got, or None (none, or several).

    A test that compares warnings with literal strings (``problems == ["no carrier
    requested; quoting ground"]``) checks what a producer appended: its rewrite must name
    the severity that producer gets from its structure, not one guessed again from the
    words. The test's text is the template filled in (``"no carrier requested; quoting
    {}"``); a template of little fixed text (``"{}: {}"``) would match anything, and is
    no evidence.
    """
    found = {t.severity for t in templates if t.severity is not None and _fills(t.text, text)}
    return found.pop() if len(found) == 1 else None


_PLACEHOLDER = "{}"
_MIN_FIXED_LETTERS = 8  # "no carrier requested" -- not "{}: {}" or "bad {}"


def _fills(template: str, text: str) -> bool:
    """Is ``text`` the template ``template`` with each ``{}`` filled in?"""
    if template == text:
        return True
    fixed = template.split(_PLACEHOLDER)
    if len(fixed) == 1 or sum(c.isalpha() for c in "".join(fixed)) < _MIN_FIXED_LETTERS:
        return False
    pattern = "(.+?)".join(re.escape(part) for part in fixed)
    return re.fullmatch(pattern, text, re.DOTALL) is not None


def info_keyword_in(message: str, keywords: Iterable[str]) -> str | None:
    lowered = message.lower()
    for keyword in keywords:
        if re.search(rf"(?<![a-z]){re.escape(keyword.lower())}(?![a-z])", lowered):
            return keyword
    return None
