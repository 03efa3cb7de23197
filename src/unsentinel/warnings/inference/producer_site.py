"""One producer site's severity, field_path and code, from what the rewrite knows of it.

The other modules of this package decide from plain values (a template, candidate lists,
a :class:`~unsentinel.warnings.inference.structure.Structure`). Something has to gather
those values for one warning string: read the function around it, the condition that
guards it, what the gather pass learned about the whole repository. That is this module;
``rewrite.py`` calls it for each string it turns into a ``Warning`` and keeps to building
the new code (and to the decisions an edited plan makes).

Nothing here changes the tree: each function reads the file's analysis and returns an
:class:`~unsentinel.core.model.Inferred` (severity also the Python code that spells it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from unsentinel.core.layout import expression_code
from unsentinel.core.model import Inferred, Severity
from unsentinel.core.syntax import annotation_name
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.guards import case_subjects, tested_directly
from unsentinel.warnings.inference.code import (
    Template,
    code_confidence,
    constant_name,
    entity_nouns,
    own_code,
    slug_for,
)
from unsentinel.warnings.inference.field_path import (
    attributes_tested,
    infer_field_path,
    situates,
    spelled_path,
)
from unsentinel.warnings.inference.severity import infer_severity, producer_severity
from unsentinel.warnings.input_leaves import outer_chains
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.config import Config
    from unsentinel.warnings.analysis import FileAnalysis, FunctionFacts
    from unsentinel.warnings.facts import WarningFacts
    from unsentinel.warnings.inference.structure import Structure
    from unsentinel.warnings.strings import Stripped

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(=?)")


def local_resolver(
    analysis: FileAnalysis, facts: FunctionFacts | None
) -> Callable[[cst.BaseExpression], cst.BaseExpression | None]:
    """What a message's local stands for: the value the function assigns it exactly once
    (nothing at module level), so the template reads through ``msg = f"..."``."""

    def resolve(expr: cst.BaseExpression) -> cst.BaseExpression | None:
        if facts is None or not isinstance(expr, cst.Name):
            return None
        return analysis.single_assignment(expr.value, facts)

    return resolve


def site_severity(
    stripped: Stripped,
    template: str,
    structure: Structure,
    *,
    repository: WarningFacts,
    test_file: bool,
    config: Config,
) -> tuple[Inferred, str]:
    """The severity of one warning string, and the Python code that spells it in the new
    ``Warning(...)`` (a run-time prefix becomes a conditional expression)."""
    runtime = stripped.runtime
    if runtime is not None:
        test = expression_code(runtime.test)
        code = f'"{runtime.when_true}" if {test} else "{runtime.when_false}"'
        reason = f"prefix {runtime.name!r} is chosen at run time by `{test}`"
        return Inferred.high(
            f"{runtime.when_true} if {test} else {runtime.when_false}", reason
        ), code
    marker = stripped.marker
    test_data = test_file and marker is None
    known = producer_severity(repository.templates, template) if test_data else None
    if known is not None:  # test data stands for what the code's own producer appends
        return Inferred.low(Severity(known), "producer: the code's own site of this message"), (
            f'"{known}"'
        )
    severity = infer_severity(
        template,
        marker.text if marker else None,
        marker.severity if marker else None,
        warning_settings(config).info_keywords,
        structure,
    )
    return severity, f'"{severity.value}"'


def site_field_path(
    analysis: FileAnalysis,
    site: cst.BaseExpression,
    parts: list[str | cst.BaseExpression],
    facts: FunctionFacts | None,
    severity: str | None,
    absent: str | None = None,
) -> Inferred:
    """The field path of the warning whose message is ``site`` (split into ``parts``):
    the candidate inputs the message and its guarding condition name, for
    :func:`~unsentinel.warnings.inference.field_path.infer_field_path` to pick from."""
    if facts is None:
        return Inferred.low(None, "fallback: module-level warning, no function inputs")
    inferred = _field_path_with(analysis, site, parts, facts, severity, absent)
    if not facts.stated:
        return inferred
    declared = analysis.declared_function(facts.node)
    named = _field_path_with(analysis, site, parts, declared, severity, absent)
    if named.value != inferred.value and named.reason.startswith(_SAID_AND_TESTED):
        # The message says the parameter and the condition tests it: it is what the
        # warning is about, wherever its value came from; state taken for it is low.
        return Inferred.low(named.value, f"{named.reason}; every caller fills it with state")
    return inferred


# Reasons of a pick where the message's words and the condition agree on one input.
_SAID_AND_TESTED = ("named and guarding:", "said and guarding:")


def _field_path_with(
    analysis: FileAnalysis,
    site: cst.BaseExpression,
    parts: list[str | cst.BaseExpression],
    facts: FunctionFacts,
    severity: str | None,
    absent: str | None,
) -> Inferred:
    """The field path from the candidates ``facts`` make of the message and its guard."""
    leaves = analysis.known_leaves(facts, site)
    wording = {
        path
        for test in analysis.wording_tests(site)
        for path in analysis.input_references(test, facts, site)[0]
    }
    named = [leaves[w] for w in _mentioned_words(parts, leaves, facts.inputs)]
    # "WARNING (acknowledged): ..." under ``if acknowledged: ... else: ...``: the test chose
    # the words, so the name they say is the mode the text reports, not the culprit.
    mentioned = [path for path in named if path not in wording]
    interpolated: list[str] = []
    situated: list[str] = []
    lost = False
    for position, part in enumerate(parts):
        if not isinstance(part, str):
            found, lost_here = analysis.input_references(part, facts, site)
            interpolated.extend(found)
            before = parts[position - 1] if position else ""
            if isinstance(before, str) and situates(before):
                situated.extend(found)
            lost = lost or lost_here
    text = " ".join(part for part in parts if isinstance(part, str))
    guard = analysis.fault_condition(site)
    guarding: list[str] = []
    selecting: list[str] = []
    direct: list[str] = []
    through_element: list[str] = []
    if guard is not None:
        guarding, lost_guard = analysis.input_references(guard, facts, site)
        lost = lost or lost_guard
        for subject in case_subjects(guard, text):
            selecting += analysis.input_references(subject, facts, site)[0]
        for operand in tested_directly(guard):
            direct += analysis.input_references(operand, facts, site)[0]
        whole = analysis.input_references(guard, facts, site, whole=True)[0]
        through_element = [path for path in guarding if path not in whole]
    spelled = spelled_path(parts, lambda index: _zero_based(index, facts))
    inferred = infer_field_path(
        mentioned,
        interpolated,
        guarding,
        severity=severity,
        unindexed_loop=lost,
        absent=absent,
        text=text,
        tested=attributes_tested(guard) if guard is not None else (),
        selecting=selecting,
        spelled=spelled,
        direct=direct,
        through_element=through_element,
        situated=situated,
        settings_fields=_settings_fields(analysis, guard, facts) if guard is not None else (),
        functions=analysis.function_names,
    )
    if len(mentioned) < len(named):
        return _worded_by_mode(inferred, [path for path in named if path in wording])
    return inferred


def _settings_fields(
    analysis: FileAnalysis, guard: cst.BaseExpression, facts: FunctionFacts
) -> list[str]:
    """The fields of the model each non-input parameter the condition reads is typed with
    (``settings: AppSettings`` read as ``settings.resolved_url``): the names a user sets,
    which a message about a value computed from one of them names."""
    models = analysis.context.facts.get(WarningFacts).model_fields
    fields: list[str] = []
    for chain in outer_chains(guard):
        root = chain
        while isinstance(root, cst.Attribute):
            root = root.value
        if root is chain or not isinstance(root, cst.Name):
            continue
        param = facts.params.get(root.value)
        if param is not None and root.value not in facts.inputs | facts.containers:
            fields.extend(models.get(annotation_name(param.annotation), ()))
    return fields


def _worded_by_mode(inferred: Inferred, modes: list[str]) -> Inferred:
    """A message part of whose words a mode chose (``if acknowledged:`` "accepted
    (acknowledged): the quantity is unusual") is a weaker witness than one the author wrote
    once: whatever it names besides the mode stays low."""
    reason = f"{inferred.reason}; the wording test put {modes[0]!r} into the message"
    return Inferred.low(inferred.value, reason)


def site_code(
    template: str,
    function: cst.FunctionDef | None,
    *,
    repository: WarningFacts,
    config: Config,
) -> Inferred:
    """The code of a message ``template``: the one the gather pass settled for it, else
    its own slug, else (no literal words) the name of the ``function`` it is made in."""
    nouns = entity_nouns(config)
    known = repository.codes.get(template) or own_code(template, nouns)
    if known is not None:
        # Measured on real code, even subject + condition slugs match a person's name
        # for the situation about one time in four: a code is a suggestion, always low.
        shape = code_confidence(template, nouns) or "no condition word, names a subject"
        return Inferred.low(known, f"template: a suggested name ({shape})")
    fallback = constant_name(function.name.value if function else "warning")
    return Inferred.low(fallback, "message has no literal words; named after the function")


def template_record(text: str, severity: Inferred, stripped: Stripped) -> Template:
    """What the site tells the gather pass. The slug is settled repo-wide in WarningFacts;
    the severity of a plain message is kept for the tests that compare warnings with its
    text (a marked one says its own)."""
    plain = stripped.marker is None and stripped.runtime is None
    return Template(text, slug_for(text), str(severity.value) if plain else None)


def _mentioned_words(
    parts: list[str | cst.BaseExpression], leaves: dict[str, str], inputs: set[str]
) -> Iterator[str]:
    for position, part in enumerate(parts):
        if not isinstance(part, str):
            continue
        before_placeholder = position + 1 < len(parts) and not isinstance(parts[position + 1], str)
        for match in _WORD.finditer(part):
            word = match.group(0).rstrip("=")
            # "sales_order_row_id={x}" names the field whose value follows; "force=true" is
            # an instruction, not the culprit.
            assigns_value = (
                match.group(1) == "=" and before_placeholder and match.end() == len(part)
            )
            named = ("_" in word and match.group(1) != "=") or assigns_value or word in inputs
            if word in leaves and named:
                yield word


def _zero_based(index: cst.BaseExpression, facts: FunctionFacts) -> str:
    """An index as a field path writes it: counted from 0 (``enumerate(fees, start=1)``'s
    ``idx`` is ``idx - 1``)."""
    code = expression_code(index)
    if isinstance(index, cst.Name):
        for loop in facts.loops:
            if loop.index == index.value and loop.start:
                return f"{code} - {loop.start}"
    return code
