"""Error codes: which registry code an ad-hoc error response means.

Pure functions over plain evidence (no CST, no I/O). The evidence is weighed in the
order the error-codes spec and issue 5 give:

1. an explicit HTTP status, refined *within its family* by the message
   (400 + "title is required" -> ``VALIDATION_MISSING_PARAM``);
2. the exception being handled (``KeyError``, ``FileNotFoundError``, ``PermissionError``,
   ``ValueError``, ``TimeoutError``, ``Exception`` ...), refined by the message where the
   exception allows several codes (``KeyError`` + "missing argument" -> missing param);
3. the message text (English keywords; for ``_("...")`` the msgid).

Anything else is ``INTERNAL_ERROR`` with low confidence: inference never raises for
"don't know". A missing external binary (``FileNotFoundError`` around a subprocess, or a
message naming an executable) is a server problem, not a missing resource.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from unsentinel.core.model import Inferred

# The MVP and Phase 1 registries of the spec, plus CONFLICT_ALREADY_EXISTS (spec 8.1, named
# by the issue). Inference only ever returns codes from this set.
MVP_CODES = (
    "VALIDATION_MISSING_PARAM",
    "VALIDATION_INVALID_TYPE",
    "VALIDATION_UNKNOWN_PARAM",
    "VALIDATION_INVALID_ENCODING",
    "VALIDATION_PAYLOAD_TOO_LARGE",
    "NOT_FOUND_OPERATION",
    "NOT_FOUND_RESOURCE",
    "PERMISSION_DENIED",
    "INTERNAL_ERROR",
)
PHASE1_CODES = (
    "PERMISSION_TRUST_LEVEL_INSUFFICIENT",
    "PERMISSION_DANGER_LEVEL_DENIED",
    "CONFIRMATION_REQUIRED",
    "RATE_LIMIT_EXCEEDED",
    "RATE_LIMIT_QUOTA_PAUSE",
    "RATE_LIMIT_QUOTA_EXHAUSTED",
    "RATE_LIMIT_QUOTA_WARNING",
    "TOKEN_INVALID",
    "TOKEN_EXPIRED",
    "TOKEN_ALREADY_USED",
    "TOKEN_SCOPE_MISMATCH",
)
REGISTRY = frozenset((*MVP_CODES, *PHASE1_CODES, "CONFLICT_ALREADY_EXISTS"))

DEFAULT_CODE = "INTERNAL_ERROR"

# Message keywords, most specific first: the first pattern that matches decides. The third
# field says how sure the wording makes us: a *weak* phrase ("not supported" may be the
# client's input or the server's platform) gives its code at low confidence.
_MESSAGE_PATTERNS: tuple[tuple[str, re.Pattern[str], bool], ...] = tuple(
    (code, re.compile(pattern, re.IGNORECASE), strong)
    for code, pattern, strong in (
        # The registry's own wording ("Unknown operation: 'x'"); "unsupported operation"
        # and "invalid operation" read as a rejected value, like any other.
        ("NOT_FOUND_OPERATION", r"\bunknown (tool|operation|method|command|action)\b", True),
        (
            "VALIDATION_UNKNOWN_PARAM",
            r"\b(unknown|unexpected|unrecogni[sz]ed) (query )?(param|parameter|argument|field|"
            r"option|key)s?\b",
            True,
        ),
        ("VALIDATION_INVALID_ENCODING", r"\b(encoding|utf-?8|decod(e|ing))\b", True),
        ("VALIDATION_PAYLOAD_TOO_LARGE", r"\b(too (large|big|long)|payload too|exceeds)\b", True),
        ("RATE_LIMIT_EXCEEDED", r"\b(rate.?limit|too many requests|throttl)", True),
        # "Too many trace IDs (7). Maximum 5 per call.": the request is over a size limit.
        ("VALIDATION_PAYLOAD_TOO_LARGE", r"\btoo many\b", True),
        ("CONFLICT_ALREADY_EXISTS", r"\b(already exists?|duplicate)\b", True),
        (
            "PERMISSION_DENIED",
            r"\b(permission|forbidden|unauthori[sz]ed|access denied|not allowed|api key|"
            r"do not have access|only the [\w\s]+ can|read-only|credentials?)\b",
            True,
        ),
        # "No table found", "No matching templates were found", "could not find the file".
        (
            "NOT_FOUND_RESOURCE",
            r"\b(not found|does not exist|doesn't exist|no such|"
            r"(could not|couldn't|cannot|can't|unable to) (find|locate)|"
            r"(could|can) ?not be (found|located)|"
            r"no\s+(\S+\s+){1,5}?(was\s+|were\s+)?found)\b",
            True,
        ),
        # Two inputs that exclude each other: the request is invalid as a whole.
        (
            "VALIDATION_INVALID_TYPE",
            r"\b((cannot|can't|can not|may not|must not) (\w+ )?both|mutually exclusive|"
            r"(only|exactly) one of)\b",
            True,
        ),
        (
            "VALIDATION_MISSING_PARAM",
            r"\b(missing|(is|are) required|required|"
            r"(not\s+|no\s+(\S+\s+){1,3}?(was\s+|were\s+)?)(provided|given|specified|supplied))\b",
            True,
        ),
        (
            "VALIDATION_INVALID_TYPE",
            r"\b(invalid|must (be|not|have|match|contain|include)|expected|malformed|bad|"
            r"may only|unsupported|"
            r"validation (failed|error)s?|failed validation|out of (range|bounds)|"
            r"(cannot|can't|can not) be (empty|blank|null|none|negative|zero|longer|shorter|"
            r"more|less|greater|larger|smaller))\b",
            True,
        ),
        ("VALIDATION_INVALID_TYPE", r"\bnot supported\b", False),
        # "Unknown metric 'x'. Use: a, b": a value outside the allowed ones, most likely.
        (
            "VALIDATION_INVALID_TYPE",
            r"\bunknown (?!(error|exception|failure|issue|problem|reason|cause)s?\b)[a-z]\w*",
            False,
        ),
    )
)

# A message that is one identifier (``template_required``, ``TEMPLATE_TOO_LARGE``,
# ``errors.not-found``, ``validationFailed``) is a message id: its words are read apart.
_MESSAGE_ID = re.compile(
    r"^([A-Za-z][A-Za-z0-9]*([_.\-][A-Za-z0-9]+)+|[a-z][a-z0-9]*([A-Z][a-z0-9]+)+)$"
)
_ID_BREAKS = re.compile(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class MessageCode:
    """The code a message's wording asks for, and whether the wording is a strong signal."""

    code: str
    strong: bool


_BINARY_HINT = re.compile(
    r"\b(executable|binary|not installed|command not found|program)\b", re.IGNORECASE
)

# Exception name -> the codes it can mean; the first is the default, the others are
# reachable only when the message says so.
_EXCEPTION_CODES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern), codes)
    for pattern, codes in (
        (r"^UnicodeError$|^Unicode\w*Error$", ("VALIDATION_INVALID_ENCODING",)),
        (
            r"^PermissionError$|Forbidden|Unauthori[sz]ed|Denied|^AccessError$",
            ("PERMISSION_DENIED",),
        ),
        (r"^FileNotFoundError$", ("NOT_FOUND_RESOURCE",)),
        (
            r"^KeyError$",
            ("NOT_FOUND_RESOURCE", "VALIDATION_MISSING_PARAM", "VALIDATION_UNKNOWN_PARAM"),
        ),
        (
            r"^(LookupError|IndexError)$|NotFound|DoesNotExist|Missing\w*Error$",
            ("NOT_FOUND_RESOURCE", "NOT_FOUND_OPERATION"),
        ),
        (r"Exists|Conflict|Duplicate", ("CONFLICT_ALREADY_EXISTS",)),
        (r"RateLimit|Throttl|TooManyRequests", ("RATE_LIMIT_EXCEEDED",)),
        (
            r"^(ValueError|TypeError|AssertionError)$|JSONDecodeError|Validation|Invalid",
            (
                "VALIDATION_INVALID_TYPE",
                "VALIDATION_MISSING_PARAM",
                "VALIDATION_UNKNOWN_PARAM",
                "VALIDATION_INVALID_ENCODING",
                "VALIDATION_PAYLOAD_TOO_LARGE",
            ),
        ),
        (
            r"Timeout|TimedOut|^(OSError|IOError|ConnectionError|RuntimeError|"
            r"CalledProcessError|SubprocessError)$",
            ("INTERNAL_ERROR",),
        ),
        (r"^(Exception|BaseException)$", ("INTERNAL_ERROR",)),
    )
)

# A declared error type that names an exception class (``ThrottlingException``).
_EXCEPTION_CLASS = re.compile(r"^([A-Za-z_][\w]*\.)*[A-Z]\w*(Exception|Error)$")
_BROAD = frozenset({"Exception", "BaseException"})

_VALIDATION = tuple(c for c in MVP_CODES if c.startswith("VALIDATION_"))


def infer_error_code(
    status: int | None = None,
    exceptions: Sequence[str] = (),
    message: str | None = None,
    *,
    external_binary: bool = False,
    translated: bool = False,
    custom: Mapping[str, Sequence[str]] | None = None,
    declared: str | None = None,
) -> Inferred:
    """The registry code for one error site, with confidence and the evidence used.

    ``exceptions`` are the (unqualified) names in the enclosing ``except`` clause;
    ``message`` is the literal text or template (placeholders as ``{}``); ``translated``
    says it is a ``_()`` msgid; ``external_binary`` that the ``try`` body runs a subprocess.
    ``custom`` holds the repository's own codes (``error-codes``: code -> message keywords);
    a keyword found in the message decides before any other evidence. ``declared`` is the
    literal the dict itself gives as its error type (``"error_type": "ThrottlingException"``
    or ``"access_denied"``): an exception class name counts as the handled exception (in
    place of a broad ``except Exception``), other words as a message read after the real one.
    """
    configured = code_from_custom(message, custom or {})
    if configured is not None:
        return configured
    if status is not None:
        return code_from_status(status, message)
    handled = exceptions
    exceptions = _with_declared(exceptions, declared)
    if exceptions:
        inferred = code_from_exceptions(exceptions, message, external_binary=external_binary)
        if inferred is not None:
            return _declared_reason(inferred, exceptions, handled)
    if message:
        from_text = read_message_code(message)
        if from_text is not None:
            source = "msgid of the translated message" if translated else "message"
            reason = f"{source} {_quote(message)} reads as {from_text.code}"
            if from_text.strong:
                return Inferred.high(from_text.code, reason)
            return Inferred.low(from_text.code, f"{reason} (a weak signal)")
    if declared and not _EXCEPTION_CLASS.match(declared):
        from_type = read_message_code(declared)
        if from_type is not None:
            reason = f"declared error type {_quote(declared)} reads as {from_type.code}"
            if from_type.strong:
                return Inferred.high(from_type.code, reason)
            return Inferred.low(from_type.code, f"{reason} (a weak signal)")
    return Inferred.low(DEFAULT_CODE, "no status, exception or recognisable message")


def code_from_status(status: int, message: str | None = None) -> Inferred:
    """Spec 6.2's mapping, refined within the status family by the message."""
    refined = code_from_message(message) if message else None
    if status in (401, 403):
        return Inferred.high("PERMISSION_DENIED", f"HTTP {status}")
    if status == 404:
        if refined == "NOT_FOUND_OPERATION":
            return Inferred.high(refined, f"HTTP 404 and {_quote(message)} names an operation")
        return Inferred.high("NOT_FOUND_RESOURCE", "HTTP 404")
    if status == 409:
        return Inferred.high("CONFLICT_ALREADY_EXISTS", "HTTP 409")
    if status == 413:
        return Inferred.high("VALIDATION_PAYLOAD_TOO_LARGE", "HTTP 413")
    if status == 429:
        return Inferred.high("RATE_LIMIT_EXCEEDED", "HTTP 429")
    if status >= 500:
        return Inferred.high("INTERNAL_ERROR", f"HTTP {status}")
    if 400 <= status < 500:
        if refined in _VALIDATION:
            return Inferred.high(refined, f"HTTP {status} and message {_quote(message)}")
        return Inferred.high("VALIDATION_INVALID_TYPE", f"HTTP {status} (spec default)")
    return Inferred.low(DEFAULT_CODE, f"HTTP {status} is not an error status")


def code_from_exceptions(
    exceptions: Sequence[str], message: str | None = None, *, external_binary: bool = False
) -> Inferred | None:
    """The code the handled exception(s) mean, or None when no name is recognised."""
    names = ", ".join(exceptions)
    if "FileNotFoundError" in exceptions and (
        external_binary or (message is not None and _BINARY_HINT.search(message))
    ):
        return Inferred.high(
            DEFAULT_CODE, "FileNotFoundError for a missing external binary is a server error"
        )
    options = [codes for codes in (_exception_codes(name) for name in exceptions) if codes]
    if not options:
        return None
    refined = code_from_message(message) if message else None
    if refined is not None and any(refined in codes for codes in options):
        return Inferred.high(refined, f"except {names} and message {_quote(message)}")
    defaults = list(dict.fromkeys(codes[0] for codes in options))
    if len(defaults) == 1:
        return Inferred.high(defaults[0], f"except {names}")
    return Inferred.low(defaults[0], f"except {names} allows {', '.join(defaults)}")


def code_from_custom(message: str | None, custom: Mapping[str, Sequence[str]]) -> Inferred | None:
    """A configured code whose keyword occurs in the message (case-insensitively), if any."""
    if not message:
        return None
    lowered = message.casefold()
    for code, keywords in custom.items():
        for keyword in keywords:
            if keyword.casefold() in lowered:
                return Inferred.high(
                    code, f"message {_quote(message)} has {keyword!r} (configured {code})"
                )
    return None


def code_from_message(message: str) -> str | None:
    """The code a message's wording asks for, or None (non-English text, bare ``str(e)``)."""
    found = read_message_code(message)
    return found.code if found is not None else None


def read_message_code(message: str) -> MessageCode | None:
    """The code a message's wording asks for, with its strength; a message id's words split.

    ``\\b`` does not separate ``template_required``, so an identifier-shaped message is
    read as the words it is made of ("template required").
    """
    text = message_words(message)
    for code, pattern, strong in _MESSAGE_PATTERNS:
        if pattern.search(text):
            return MessageCode(code, strong)
    return None


def message_words(message: str) -> str:
    """The message as words: a message id (``template_too_large``) split, other text as is."""
    stripped = message.strip()
    if not _MESSAGE_ID.match(stripped):
        return message
    return " ".join(part for part in _ID_BREAKS.split(stripped) if part).lower()


def _declared_reason(
    inferred: Inferred, exceptions: Sequence[str], handled: Sequence[str]
) -> Inferred:
    """The reason names a declared exception class as what it is: the dict's error type
    (``"error_type": "ThrottlingException"``), not an ``except`` clause."""
    declared = [name for name in exceptions if name not in handled]
    if not declared:
        return inferred
    described = f"declared error type {_quote(declared[0])}"
    rest = [name for name in exceptions if name in handled]
    if rest:
        described += f" and except {', '.join(rest)}"
    reason = inferred.reason.replace(f"except {', '.join(exceptions)}", described, 1)
    return replace(inferred, reason=reason)


def _with_declared(exceptions: Sequence[str], declared: str | None) -> Sequence[str]:
    """The handled exceptions with a declared exception class; it replaces a broad one."""
    if not declared or not _EXCEPTION_CLASS.match(declared):
        return exceptions
    specific = [name for name in exceptions if name not in _BROAD]
    return (declared, *specific)


def _exception_codes(name: str) -> tuple[str, ...]:
    short = name.rsplit(".", 1)[-1]
    for pattern, codes in _EXCEPTION_CODES:
        if pattern.search(short):
            return codes
    return ()


def _quote(message: str | None) -> str:
    text = message or ""
    return repr(text if len(text) <= 60 else text[:57] + "...")
