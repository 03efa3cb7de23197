"""Why a function's error dicts are held: the reason ``plan`` gives for each of them.

A function is held for something in its own body (an error-looking dict left alone), for
what its readers do (a key read where no rewrite follows, a failure checked in the old
shape, a test double, a case of a test-data file that names it: errors/data_pins.py), or
through another function it is linked with: one whose error it passes on, whose result it
returns, or that returns its result. A linked hold names the function it came from and that
function's own reason, so a reviewer can follow the chain.
"""

from __future__ import annotations

from unsentinel.errors.data_pins import RANK as _RANK
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.returned import MODEL_DUMPS

_TOGETHER = "its error dicts and readers stay together"


def hold_reason(name: str, facts: ErrorFacts, local: frozenset[str] = frozenset()) -> str:
    """The reason ``name``'s error dicts are held (``local``: functions this file holds for
    a look-alike of their own). A hold that came along a chain of returns names the link
    that held this function, and the reason of the function where the chain starts."""
    link = _link(name, facts, local)
    if link is None:
        return _own_reason(name, facts, local)
    if link[1] in MODEL_DUMPS:
        return (
            f"{name}() also returns a model's dump ({link[1]}()), whose fields keep their "
            f"old shape; {_TOGETHER}"
        )
    seen = {name}
    source = link[1]
    while source not in seen:
        seen.add(source)
        further = _link(source, facts, local)
        if further is None:
            break
        source = further[1]
    return f"{link[0]}; where the chain starts, {_own_reason(source, facts, local)}"


def _link(name: str, facts: ErrorFacts, local: frozenset[str]) -> tuple[str, str] | None:
    """How a return linked ``name`` to a held function: the text, and that function."""
    if name in local or _held_for_itself(name, facts):
        return None
    linked = dict(facts.held_returning).get(name)
    if linked is not None:
        return f"{name}() returns the result of {linked}(), which keeps its old error shape", linked
    linked = dict(facts.held_returned).get(name)
    if linked is not None:
        text = f"{linked}() keeps its old error shape and returns the result of {name}()"
        return text, linked
    return None


def _held_for_itself(name: str, facts: ErrorFacts) -> bool:
    """Held for what its readers do, not for a function it is linked with."""
    return (
        name in facts.doubled
        or name in facts.asserted
        or any(f == name for f, _check, _key in facts.detected)
        or name in facts.held_callees
        or any(f == name for f, _key in facts.blocked)
        or any(f == name for f, _key, _place in facts.test_blocked)
        or any(f == name for f, _file, _key, _how in facts.pinned)
    )


def _own_reason(name: str, facts: ErrorFacts, local: frozenset[str]) -> str:
    left_alone = (
        f"{name}() also returns an error-looking dict that is left "
        "alone; its error dicts and their readers change together or not at all"
    )
    if name in local:
        return left_alone
    pinned = sorted((file, key, how) for f, file, key, how in facts.pinned if f == name)
    if pinned:
        file, key, how = min(pinned, key=lambda pin: (_RANK[pin[2]], pin))
        return f"{file} pins the output of {name}() ({key!r} {how}); {_TOGETHER}"
    read = sorted(key for f, key in facts.blocked if f == name)
    checked = sorted((check, key) for f, check, key in facts.detected if f == name)
    if checked and not read:
        check, key = checked[0]
        return (
            f"{check}() reads {key!r} of the dicts it is given, which the envelope changes, "
            f"and {name}()'s error dicts may reach it (a generic error check, or its result "
            f"is passed to it); {_TOGETHER}"
        )
    if name in facts.doubled and not read:
        return f"a test double returns an old-shaped error dict for {name}(); {_TOGETHER}"
    if name in facts.asserted and not read:
        return (
            f"a test checks the failure of {name}() with reads of the old keys that no "
            "reader rewrite follows (nothing in that test says the value read is an error "
            f"response); {_TOGETHER}"
        )
    if name in facts.held_callees:
        return (
            f"a function that keeps its old error shape reads the error of {name}() "
            f"and passes it on; {_TOGETHER}"
        )
    if read:
        return (
            f"a reader of {name}() reads {', '.join(map(repr, read))}, which would "
            f"move into error.details; {_TOGETHER}"
        )
    tested = sorted((key, place) for f, key, place in facts.test_blocked if f == name)
    if tested:
        keys = ", ".join(f"{key!r} (moved to {place})" for key, place in tested)
        return (
            f"a test reads {keys} of the result of {name}(), and no reader rewrite takes "
            f"that read to its new place; {_TOGETHER}"
        )
    return left_alone
