"""Where the envelope keeps each key of an old error dict, and the test reads that miss it.

A migrated ``{"status": "error", "message": m, "error_type": t}`` keeps ``m`` at
``error.message`` and ``t`` at ``error.details.error_type``; ``status`` is gone. A test that
reads such a key where no reader rewrite follows it (nothing in the test says it reads a
failure: ``assert result["error_type"] == "WorkflowNotFound"`` alone), or reads it in a
form the rewrites leave as it is (``"message" in result``, ``result.get("message")``), finds
nothing after the migration; so does a read the rewrites send to the wrong place (a
``"message"`` beside ``"error"`` moves into ``error.details``, not to ``error.message``).
Each of these holds the producer, with its readers.

A key the function's success dicts have too (``{"stack_name": n, "status": s}``) is read
of a success as likely as of a failure, where nothing says which: it holds nothing, as
success dicts do not change.

The places are recorded per producer (:func:`key_places`), the test reads per callee
(:func:`~unsentinel.errors.readers.test_key_reads`), and
:meth:`~unsentinel.errors.facts.ErrorFacts.settle` meets them (:func:`missed_reads`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unsentinel.errors.shapes import Shape

# The old keys by what the envelope makes of them (the gather facts read this module, so it
# imports no LibCST; ``errors/shapes.py`` takes them from here).
MESSAGE_KEYS = ("error", "message", "detail")
DISCRIMINATORS = ("success", "ok", "succeed")
DETAIL_CONTAINERS = ("errorDetails", "error_details", "details")

# How a test reads a key of a call's result (the third item of ``ErrorFacts.test_reads``):
UNFOLLOWED = "unfollowed"  # no reader rewrite follows the result (no failure evidence)
UNCHANGED = "unchanged"  # followed, but a form the rewrites keep (``"k" in x``, ``x.get``)
REWRITTEN = "rewritten"  # followed and rewritten to the reader's path for the key

DROPPED = "nowhere (dropped)"


def new_path(key: str) -> tuple[str, ...]:
    """Where the envelope keeps what the old ``key`` held (``"message"`` -> ``error.message``)."""
    if key in MESSAGE_KEYS:
        return ("error", "message")
    if key in DISCRIMINATORS:
        return ("success",)
    if key in DETAIL_CONTAINERS:
        return ("error", "details")
    return ("error", "details", key)


def key_places(shape: Shape) -> set[tuple[str, str]]:
    """``(old key, its place in the envelope)`` for every key that does not stay where it
    was: all but an ``"error"`` message and a ``"success"`` flag."""
    found: set[tuple[str, str]] = set()
    for key in shape.keys:
        if key == shape.message_key:
            place = "error.message"
        elif key == shape.discriminator:
            place = "success"
        elif key in DETAIL_CONTAINERS:
            place = "error.details"
        elif key == "status":
            place = DROPPED
        else:
            place = f"error.details.{key}"
        if (key, place) not in (("error", "error.message"), ("success", "success")):
            found.add((key, place))
    return found


def reader_place(key: str) -> str:
    """Where a reader rewrite sends a read of ``key`` (``x["status"] == "error"`` becomes
    ``x["success"] is False``)."""
    return "success" if key == "status" else ".".join(new_path(key))


def missed_reads(
    test_reads: Iterable[tuple[str, str, str, str]],
    places: Mapping[str, Mapping[str, set[str]]],
    kept: Mapping[str, set[str]],
) -> set[tuple[str, str, str]]:
    """``(function, key, place)`` for each test read that would find nothing after the
    migration: the key moves (``places``: function -> key -> its places) and the read is
    not rewritten to where it goes. A read no rewrite follows holds nothing where it may
    read a success, which does not change: where the function's success dicts have the
    key too (``kept``: function -> their keys), or where the test checks that the result
    succeeded on a key the error dicts use only as their failed flag."""
    missed: set[tuple[str, str, str]] = set()
    for function, key, how, succeeded in test_reads:
        moved = places.get(function, {}).get(key)
        if not moved:
            continue
        if how == UNFOLLOWED and key in kept.get(function, set()):
            continue
        if how == UNFOLLOWED and succeeded and _flag_only(places.get(function, {}), succeeded):
            continue
        if how == REWRITTEN and (key == "status" or moved == {reader_place(key)}):
            continue
        missed.add((function, key, min(moved)))
    return missed


def _flag_only(places: Mapping[str, set[str]], key: str) -> bool:
    """Do the error dicts use ``key`` only as their failed flag (or not at all)? Then a
    check that it says "succeeded" (``x["status"] == "success"``) reads a success."""
    return places.get(key, {"success"}) == {"success"}
