"""field_path: which input caused a warning, from the code around it.

The rule collects three ordered candidate lists for a warning site and this module picks:

1. *mentioned*: inputs named literally in the message text (``"Pass serial_numbers ..."``,
   ``"sales_order_row_id={x}"``). The first one is the subject of the message and wins.
2. *interpolated*: inputs whose values the message interpolates (``{destination_location_id}``);
   of several, the one the guarding condition also tests.
3. *guarding*: inputs in the ``if`` condition that guards the warning.

None of them means the warning is about state (``"order is already DONE"``): ``None``.
An info warning about an optional input left out (``if request.ship_by is None:``) points
at that input; any other info warning gives context and has no culprit.

Confidence is calibrated on real code: only an input the message names *and* the
condition tests is ``high`` -- two independent signals that agree. A name only shown in
the message is as often context (a region, a status) as the subject; a condition alone
often tests something the message is not about.
"""

from __future__ import annotations

from collections.abc import Sequence

from unsentinel.core.model import Inferred, Severity


def infer_field_path(
    mentioned: Sequence[str],
    interpolated: Sequence[str],
    guarding: Sequence[str],
    *,
    severity: str | None = None,
    unindexed_loop: bool = False,
    absent: str | None = None,
) -> Inferred:
    """``absent``: the optional input whose ``is None`` test guards the warning."""
    if severity == Severity.INFO:
        if absent is not None:
            return Inferred.low(absent, f"guard: the optional input {absent!r} was left out")
        return Inferred.low(None, "info: context, no input is at fault")
    picked = _pick(_unique(mentioned), _unique(interpolated), _unique(guarding))
    return _maybe_low(picked, unindexed_loop)


def _pick(mentioned: list[str], interpolated: list[str], guarding: list[str]) -> Inferred:
    if mentioned:
        subject = mentioned[0]
        if subject in guarding:
            reason = f"named and guarding: the message names {subject!r}, the condition tests it"
            return Inferred.high(subject, reason)
        return Inferred.low(subject, f"named: the message names the input {subject!r}")
    if interpolated:
        tested = [path for path in interpolated if path in guarding]
        if len(tested) == 1:
            reason = f"shown and guarding: the message shows {tested[0]!r}, the condition tests it"
            return Inferred.low(tested[0], reason)
        if len(interpolated) == 1:
            reason = f"shown: the message interpolates {interpolated[0]!r} (may be context)"
            return Inferred.low(interpolated[0], reason)
        others = ", ".join(interpolated[1:])
        return Inferred.low(interpolated[0], f"shown: first of several inputs (also {others})")
    if guarding:
        if len(guarding) == 1:
            reason = f"guarding: the warning is guarded by a condition on {guarding[0]!r}"
            return Inferred.low(guarding[0], reason)
        others = ", ".join(guarding[:-1])
        return Inferred.low(guarding[-1], f"guarding: last of several inputs (also {others})")
    return Inferred.low(None, "fallback: no input in the message or its condition")


def _maybe_low(value: Inferred, unindexed_loop: bool) -> Inferred:
    if not unindexed_loop:
        return value
    return Inferred.low(value.value, f"{value.reason}; the loop has no index to point at one item")


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))
