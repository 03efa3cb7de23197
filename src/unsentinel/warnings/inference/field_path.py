"""field_path: which input caused a warning, from the code around it.

The rule collects three ordered candidate lists for a warning site and this module picks:

0. *spelled*: a path the message writes out with its index (``f"rows[{i}].sku is
   missing"``, ``"shipping_fees[{idx}].amount ..."``): the author named the culprit --
   unless another signal refines it (``"rows[{i}]: purchase_order_row_id=..."``).
1. *mentioned*: inputs named literally in the message text (``"Pass serial_numbers ..."``,
   ``"sales_order_row_id={x}"``). The first one is the subject of the message and wins.
2. *interpolated*: inputs whose values the message interpolates (``{destination_location_id}``);
   of several, the one the guarding condition also tests. A value shown only where a
   preposition of place or time puts it (``f"Query failed in {region} ..."``), which the
   condition does not test, says where the warning arose, not what is wrong: no candidate.
3. *guarding*: inputs in the ``if`` condition that guards the warning -- but not an input
   the condition only compares with a case the message does not say
   (``issue_type == "post-broker-timeout"``): that picks the diagnosis, it does not say
   what is wrong (``carrier == "freight"`` before "freight pickups need ..." still counts).

Then, with no input at all, a field of a non-input object (``settings.dbt_token``) that
the condition tests and the message names ("DBT_TOKEN is required"); where the condition
reads a value the object computes (``settings.resolved_url``), the field of its model the
message names ("SHOP_URL must use https"); else a snake_case name the message quotes as
code ("`long_summary` missing.").

None of them means the warning is about state (``"order is already DONE"``): ``None``.
Several candidates of one kind tie; the one whose name the message says in part wins
(``payment_kind`` for "payment kind {} is not supported"), still ``low``. Locals derived
from an input (``code = normalize(item.code)``) are resolved to it before this module
sees them (``derived.py``).
An info warning about an optional input left out (``if request.ship_by is None:``) points
at that input; any other info warning gives context and has no culprit.

Confidence is calibrated on real code: only an input the message names *and* the
condition tests is ``high`` -- two independent signals that agree. A name only shown in
the message is as often context (a region, a status) as the subject; a condition alone
often tests something the message is not about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence

import libcst as cst

from unsentinel.core.batch import read
from unsentinel.core.model import Inferred, Severity

_WORDS = re.compile(r"[A-Za-z]+")
_IDENTIFIERS = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def infer_field_path(
    mentioned: Sequence[str],
    interpolated: Sequence[str],
    guarding: Sequence[str],
    *,
    severity: str | None = None,
    unindexed_loop: bool = False,
    absent: str | None = None,
    text: str = "",
    tested: Sequence[str] = (),
    selecting: Sequence[str] = (),
    spelled: str | None = None,
    direct: Sequence[str] | None = None,
    through_element: Sequence[str] = (),
    situated: Sequence[str] = (),
    settings_fields: Sequence[str] = (),
    functions: Collection[str] = (),
) -> Inferred:
    """``absent``: the optional input whose ``is None`` test guards the warning; ``text``:
    the message's literal text, whose words break a tie between several candidates;
    ``tested``: the attribute names the guarding condition reads on anything (see
    :func:`attributes_tested`), for a message that names a setting no input holds;
    ``selecting``: inputs the condition compares with a case (``kind == "msk"``, see
    :func:`~unsentinel.warnings.guards.case_subjects`), once per comparison; ``spelled``:
    the path the message writes out itself (:func:`spelled_path`); ``direct``: the guarding
    inputs the condition tests as they are (see
    :func:`~unsentinel.warnings.guards.tested_directly`; None: all of them);
    ``through_element``: the guarding inputs the condition reaches only through one element
    of what a call made from them (``value`` of ``for key, value in (fields or
    {}).items()``), which never confirm a name the message says; ``situated``: the
    interpolated inputs shown where a preposition of place says where the warning arose
    (:func:`situates`), once per such placeholder; ``settings_fields``: the fields of the
    model type of a non-input object the condition reads (``settings: AppSettings``), for
    a message that names one of them where the condition reads another
    (:func:`_named_setting`); ``functions``: the names the module defines functions by,
    which a message quoting one as code (`` `sync_all` ``) names as no field."""
    if severity == Severity.INFO:
        if absent is not None:
            return Inferred.low(absent, f"guard: the optional input {absent!r} was left out")
        return Inferred.low(None, "info: context, no input is at fault")
    spoken = {_singular(w.lower()) for w in _WORDS.findall(text)}
    as_they_are = guarding if direct is None else [p for p in guarding if p in direct]
    faulty = _not_only_selecting(as_they_are, selecting)
    indirect = [path for path in _unique(guarding) if path not in as_they_are]
    context = _context_only(interpolated, situated, guarding)
    picked = _pick(
        _unique(mentioned),
        [path for path in _unique(interpolated) if path not in context],
        _unique(guarding),
        spoken,
        faulty,
        indirect,
        through_element,
    )
    if picked.value is None:
        picked = (
            _named_setting(text, tested, settings_fields)
            or _quoted_name(text, functions)
            or _situating(context)
            or picked
        )
    if spelled is not None and not _refines(picked.value, spelled):
        return Inferred.low(spelled, f"spelled: the message writes out the path {spelled!r}")
    return _maybe_low(picked, unindexed_loop)


# "Query failed in {region}", "stopped at line {n}": a placeholder right after a
# preposition of place or time (or after it and one noun) says where the warning arose.
_SITUATING = re.compile(r"\b(?:in|at|on|during|within)(?:\s+[A-Za-z][\w-]*)?\s+$", re.IGNORECASE)


def situates(before: str) -> bool:
    """Does the literal text ``before`` a placeholder put its value in a phrase of place
    or time (``"Query failed in "``, ``"error at line "``)? Such a value is context."""
    return _SITUATING.search(before) is not None


def _context_only(
    interpolated: Sequence[str], situated: Sequence[str], guarding: Sequence[str]
) -> list[str]:
    """The inputs the message shows only where it says where the warning arose, and the
    condition does not test: ``f"Query failed in {region} ..."`` after a failed call
    reports the region the query ran in; nothing says the region was wrong."""
    return [
        path
        for path in _unique(situated)
        if situated.count(path) == interpolated.count(path) and path not in guarding
    ]


def _situating(context: list[str]) -> Inferred | None:
    if not context:
        return None
    shown = ", ".join(repr(path) for path in context)
    return Inferred.low(None, f"context: the message shows {shown} only as where it arose")


def _refines(path: str | None, spelled: str) -> bool:
    """``rows[{i}].purchase_order_row_id`` refines the spelled ``rows[{i}]`` (the message
    goes on to name the field): the more precise path stands."""
    if path is None:
        return False
    return _unindexed(path).startswith(_unindexed(spelled) + ".")


def _unindexed(path: str) -> str:
    return re.sub(r"\[[^\]]*\]", "[]", path)


# ``rows[{i}].sku``, ``shipping_fees[0].amount``: a name, an index (a literal number or one
# interpolated value, marked by NUL below) and any attributes, not inside a longer name.
_SPELLED = re.compile(r"(?<![\w.\]])([A-Za-z_]\w*)\[(\x00|\d+)\]((?:\.[A-Za-z_]\w*)*)")


def spelled_path(
    parts: Sequence[str | cst.BaseExpression], index_code: Callable[[cst.BaseExpression], str]
) -> str | None:
    """The field path a message writes out with an index (``f"shipping_fees[{idx}].amount
    ({fee.amount!r}) is not a valid decimal"``): the author named the culprit. The index
    is the interpolated expression as ``index_code`` renders it (a loop's 1-based counter
    becomes ``idx - 1``), or the literal number."""
    text = ""
    values: list[cst.BaseExpression] = []
    for part in parts:
        if isinstance(part, str):
            text += part.replace("\x00", "")
        else:
            text += "\x00"
            values.append(part)
    match = _SPELLED.search(text)
    if match is None:
        return None
    name, index, rest = match.groups()
    if index == "\x00":
        index = "{" + index_code(values[text.count("\x00", 0, match.start(2))]) + "}"
    return f"{name}[{index}]{rest}"


def _named_setting(
    text: str, tested: Sequence[str], settings_fields: Sequence[str] = ()
) -> Inferred | None:
    """A field of an object that is no input (``settings``, ``config``), which the condition
    tests and the message names in any case: under ``if not settings.dbt_token:``,
    "DBT_TOKEN is required" is about ``dbt_token``. Only a name with an underscore counts
    (``name``, ``path`` are said in passing), and only one; low, like every name-match.

    Where the condition reads a value the object computes from a field (a property,
    ``settings.resolved_url``) and the message names that field ("SERVICE_URL must use
    https"), the one field of the object's model the message names is what the user
    sets: ``service_url``."""
    said = {word.lower() for word in _IDENTIFIERS.findall(text) if "_" in word}
    named = [leaf for leaf in _unique(tested) if "_" in leaf and leaf.lower() in said]
    how = "the condition tests it"
    if not named:
        named = [leaf for leaf in _unique(settings_fields) if "_" in leaf and leaf.lower() in said]
        how = "the condition reads a value of its object"
    if len(named) != 1:
        return None
    reason = f"named and guarding: the message names {named[0]!r}, {how}"
    return Inferred.low(named[0], f"{reason} (a field of a non-input object)")


# "`long_description` missing.": a name with an underscore that the message quotes as code.
_QUOTED = re.compile(r"`([A-Za-z_]\w*_\w*)`")


def _quoted_name(text: str, functions: Collection[str]) -> Inferred | None:
    """With no input in sight, a snake_case name the message quotes as code is the field
    its author means: "`long_description` missing." after reading the metadata a call
    returned (a document the analysis cannot follow). A function the module defines
    (`` `sync_all` ``, an instruction to run it) is no field; of several names, none. Low."""
    names = _unique(name for name in _QUOTED.findall(text) if name not in functions)
    if len(names) != 1:
        return None
    return Inferred.low(names[0], f"quoted: the message quotes {names[0]!r} as code")


def attributes_tested(condition: cst.BaseExpression) -> list[str]:
    """The attribute names a condition reads, in order: ``settings.dbt_token`` -> ``dbt_token``.
    A member of a class (``ToolName.TEXT_TO_SQL``, ``Status.DONE.value``) is a constant the
    condition compares with, no field of anything: not listed."""
    found: list[str] = []

    class _Attributes(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if _of_a_class(node):
                return False
            found.append(node.attr.value)
            return True

    read(condition, _Attributes())
    return found


def _of_a_class(node: cst.Attribute) -> bool:
    """``Status.DONE.value``: a chain rooted in a capitalised name, a class's member."""
    root: cst.BaseExpression = node
    while isinstance(root, cst.Attribute):
        root = root.value
    return isinstance(root, cst.Name) and root.value[:1].isupper()


def _not_only_selecting(guarding: Sequence[str], selecting: Sequence[str]) -> list[str]:
    """The guarding inputs the condition does more with than pick a case: an input compared
    with a case wherever the condition reads it (``issue_type == "auth-failed"``) says
    which situation this is, not what is wrong."""
    return _unique(p for p in guarding if guarding.count(p) > selecting.count(p))


def _pick(
    mentioned: list[str],
    interpolated: list[str],
    guarding: list[str],
    spoken: set[str],
    faulty: list[str],
    indirect: list[str],
    through_element: Sequence[str],
) -> Inferred:
    if mentioned:
        subject = mentioned[0]
        if subject in guarding:
            reason = f"named and guarding: the message names {subject!r}, the condition tests it"
            if subject in through_element:  # the call between the two could hand out anything
                return Inferred.low(subject, f"{reason} through one element a call made from it")
            return Inferred.high(subject, reason)
        return (
            _part_tested(subject, guarding, spoken)
            or _said_and_tested(faulty, [subject], spoken)
            or Inferred.low(subject, f"named: the message names the input {subject!r}")
        )
    if interpolated:
        tested = [path for path in interpolated if path in guarding]
        if len(tested) == 1:
            reason = f"shown and guarding: the message shows {tested[0]!r}, the condition tests it"
            return Inferred.low(tested[0], reason)
        if not tested:
            said = _said_and_tested(faulty, interpolated, spoken)
            if said is not None:
                return said
        if len(interpolated) == 1:
            reason = f"shown: the message interpolates {interpolated[0]!r} (may be context)"
            return Inferred.low(interpolated[0], reason)
        return _tie("shown", interpolated, interpolated[0], spoken)
    if faulty:
        if len(faulty) == 1:
            reason = f"guarding: the warning is guarded by a condition on {faulty[0]!r}"
            return Inferred.low(faulty[0], reason)
        return _tie("guarding", faulty, faulty[-1], spoken)
    if indirect:
        reached = ", ".join(repr(path) for path in indirect)
        reason = f"indirect: the condition reaches {reached} only through a call or its items"
        return Inferred.low(None, reason)
    if guarding:
        picked = ", ".join(repr(path) for path in guarding)
        return Inferred.low(None, f"case: the condition only picks a case of {picked}")
    return Inferred.low(None, "fallback: no input in the message or its condition")


def _part_tested(subject: str, guarding: list[str], spoken: set[str]) -> Inferred | None:
    """The message names an input, the condition tests a part of it: under ``if not
    isinstance(timeout, int):`` (``timeout := section.get("timeout")``), "[section.timeout]
    must be a number" is about ``section.timeout``, and inside ``for m in
    section.get("mirrors", [])`` about ``section.mirrors[{i}]``. The two signals agree and
    the condition's path is the more precise. Of several parts, the one the message says
    in part; otherwise none. Low: the name is the message's, the part the condition's."""
    parts = [path for path in guarding if _unindexed(path).startswith(subject + ".")]
    if len(parts) > 1:
        parts = [path for path in parts if _name_parts(path) & spoken]
    if len(parts) != 1:
        return None
    reason = f"named and guarding: the message names {subject!r}, the condition tests its part"
    return Inferred.low(parts[0], f"{reason} {parts[0]!r}")


def _said_and_tested(faulty: list[str], shown: list[str], spoken: set[str]) -> Inferred | None:
    """The one input the condition tests as it is and the message says in words, where the
    message shows or names others the condition does not test: ``if not tool.title:``
    "{tool.name}: missing title" is about ``title`` (the name only says which tool), and
    ``if not issue_key:`` "missing issue key for attachments" about ``issue_key``. Low."""
    said = [path for path in faulty if path not in shown and _said(path, spoken)]
    if len(said) != 1:
        return None
    others = ", ".join(repr(path) for path in shown)
    reason = f"said and guarding: the message says {said[0]!r}, the condition tests it"
    return Inferred.low(said[0], f"{reason} (it shows {others}, which the condition does not test)")


def _said(path: str, spoken: set[str]) -> bool:
    parts = _name_parts(path)
    return bool(parts) and parts <= spoken


def _tie(signal: str, candidates: list[str], default: str, spoken: set[str]) -> Inferred:
    """Several inputs, one signal: the one whose name the message says in part wins
    ("payment kind {kind} is not supported" under ``if request.payment_kind ...`` ->
    ``payment_kind``); otherwise ``default``. Low either way: a tie is a guess."""
    named = [path for path in candidates if _name_parts(path) & spoken]
    if len(named) == 1:
        others = ", ".join(path for path in candidates if path != named[0])
        reason = f"{signal}: the message names part of {named[0]!r} (also {others})"
        return Inferred.low(named[0], reason)
    others = ", ".join(path for path in candidates if path != default)
    return Inferred.low(default, f"{signal}: a tie between several inputs (also {others})")


def _name_parts(path: str) -> set[str]:
    """``items[{i}].unit_price`` -> {"unit", "price"}: the words of the field's own name."""
    leaf = path.rsplit(".", 1)[-1].split("[", 1)[0]
    return {_singular(part.lower()) for part in leaf.split("_") if len(part) > 2}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _maybe_low(value: Inferred, unindexed_loop: bool) -> Inferred:
    if not unindexed_loop:
        return value
    if value.value is not None and "[{" in value.value:
        why = "the loop had no index; the rewrite gives it one (enumerate), check the item"
    else:
        why = "the loop has no index to point at one item"
    return Inferred.low(value.value, f"{value.reason}; {why}")


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
