"""field_path: which input caused a warning, from the code around it.

The rule collects three ordered candidate lists for a warning site and this module picks:

1. *mentioned*: inputs named literally in the message text (``"Pass serial_numbers ..."``,
   ``"sales_order_row_id={x}"``). The first one is the subject of the message and wins.
2. *interpolated*: inputs whose values the message interpolates (``{destination_location_id}``);
   of several, the one the guarding condition also tests.
3. *guarding*: inputs in the ``if`` condition that guards the warning.

None of them means the warning is about state (``"order is already DONE"``): ``None``.
Info warnings are context, never caused by an input: always ``None``.
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
) -> Inferred:
    mentioned, interpolated, guarding = _unique(mentioned), _unique(interpolated), _unique(guarding)
    if severity == Severity.INFO:
        return Inferred.high(None, "info warnings give context; no input is at fault")
    if mentioned:
        return _maybe_low(
            Inferred.high(mentioned[0], f"the message names the input {mentioned[0]!r}"),
            unindexed_loop,
        )
    if interpolated:
        tested = [path for path in interpolated if path in guarding]
        if len(interpolated) > 1 and len(tested) == 1:
            reason = f"the message shows {tested[0]!r} and the condition tests it"
            return _maybe_low(Inferred.high(tested[0], reason), unindexed_loop)
        if len(interpolated) == 1:
            reason = f"the message interpolates the input {interpolated[0]!r}"
            return _maybe_low(Inferred.high(interpolated[0], reason), unindexed_loop)
        others = ", ".join(interpolated[1:])
        return Inferred.low(
            interpolated[0], f"first of several interpolated inputs (also {others})"
        )
    if guarding:
        if len(guarding) == 1:
            reason = f"the warning is guarded by a condition on {guarding[0]!r}"
            return _maybe_low(Inferred.high(guarding[0], reason), unindexed_loop)
        others = ", ".join(guarding[:-1])
        return Inferred.low(
            guarding[-1], f"last of several inputs in the condition (also {others})"
        )
    return Inferred.high(None, "no input in the message or its condition: state-driven")


def _maybe_low(value: Inferred, unindexed_loop: bool) -> Inferred:
    if not unindexed_loop:
        return value
    return Inferred.low(value.value, f"{value.reason}; the loop has no index to point at one item")


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))
