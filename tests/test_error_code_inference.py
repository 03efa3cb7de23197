"""Table-driven tests for error-code inference (status, exception, message, translations)."""

from __future__ import annotations

import pytest

from unsentinel.core.model import Confidence
from unsentinel.errors.code import (
    REGISTRY,
    code_from_message,
    infer_error_code,
)

HIGH, LOW = Confidence.HIGH, Confidence.LOW


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        pytest.param(404, "Note 7 not found", "NOT_FOUND_RESOURCE", id="404 is a missing resource"),
        pytest.param(
            404, "Unknown tool: {}", "NOT_FOUND_OPERATION", id="404 naming a tool is an operation"
        ),
        pytest.param(400, "title is required", "VALIDATION_MISSING_PARAM", id="400 and required"),
        pytest.param(
            400,
            "Unknown query parameter(s): {}",
            "VALIDATION_UNKNOWN_PARAM",
            id="400 and unknown parameter",
        ),
        pytest.param(
            400,
            "Request body is not valid UTF-8",
            "VALIDATION_INVALID_ENCODING",
            id="400 and encoding",
        ),
        pytest.param(
            400,
            "webhook payload rejected",
            "VALIDATION_INVALID_TYPE",
            id="400 without a hint is the spec default",
        ),
        pytest.param(
            422,
            "per_page must be between 1 and {}",
            "VALIDATION_INVALID_TYPE",
            id="422 is invalid type",
        ),
        pytest.param(
            400,
            "Note 7 not found",
            "VALIDATION_INVALID_TYPE",
            id="message cannot leave the status family",
        ),
        pytest.param(401, "Missing API key", "PERMISSION_DENIED", id="401 wins over 'missing'"),
        pytest.param(403, "Archived notes are read-only", "PERMISSION_DENIED", id="403"),
        pytest.param(409, "A note titled {} already exists", "CONFLICT_ALREADY_EXISTS", id="409"),
        pytest.param(413, "batch too large", "VALIDATION_PAYLOAD_TOO_LARGE", id="413"),
        pytest.param(429, "slow down", "RATE_LIMIT_EXCEEDED", id="429"),
        pytest.param(500, "Could not store attachment", "INTERNAL_ERROR", id="500"),
        pytest.param(503, "Note storage is unavailable", "INTERNAL_ERROR", id="503"),
        pytest.param(504, "git fetch timed out", "INTERNAL_ERROR", id="504"),
    ],
)
def test_status_decides_first(status: int, message: str, code: str) -> None:
    inferred = infer_error_code(status, ("LookupError",), message)
    assert (inferred.value, inferred.confidence) == (code, HIGH)
    assert str(status) in inferred.reason


@pytest.mark.parametrize(
    ("exceptions", "message", "code", "confidence"),
    [
        pytest.param(("LookupError",), None, "NOT_FOUND_RESOURCE", HIGH, id="LookupError"),
        pytest.param(("KeyError",), None, "NOT_FOUND_RESOURCE", HIGH, id="KeyError alone"),
        pytest.param(
            ("KeyError",),
            "missing argument {}",
            "VALIDATION_MISSING_PARAM",
            HIGH,
            id="KeyError and missing argument",
        ),
        pytest.param(
            ("FileNotFoundError",), None, "NOT_FOUND_RESOURCE", HIGH, id="FileNotFoundError"
        ),
        pytest.param(
            ("FileNotFoundError",),
            "git executable not found",
            "INTERNAL_ERROR",
            HIGH,
            id="missing executable is internal",
        ),
        pytest.param(("PermissionError",), None, "PERMISSION_DENIED", HIGH, id="PermissionError"),
        pytest.param(
            ("ValueError", "TypeError"),
            None,
            "VALIDATION_INVALID_TYPE",
            HIGH,
            id="ValueError or TypeError",
        ),
        pytest.param(
            ("UnicodeDecodeError",),
            None,
            "VALIDATION_INVALID_ENCODING",
            HIGH,
            id="UnicodeDecodeError",
        ),
        pytest.param(
            ("json.JSONDecodeError",),
            None,
            "VALIDATION_INVALID_TYPE",
            HIGH,
            id="qualified JSONDecodeError",
        ),
        pytest.param(("TimeoutError",), None, "INTERNAL_ERROR", HIGH, id="TimeoutError"),
        pytest.param(
            ("Exception",),
            "Note not found",
            "INTERNAL_ERROR",
            HIGH,
            id="broad Exception stays internal",
        ),
        pytest.param(
            ("store.NoteNotFound",), None, "NOT_FOUND_RESOURCE", HIGH, id="custom NotFound"
        ),
        pytest.param(("RepoExists",), None, "CONFLICT_ALREADY_EXISTS", HIGH, id="custom Exists"),
        pytest.param(
            ("LookupError", "TypeError", "ValueError"),
            "Note {} not found",
            "NOT_FOUND_RESOURCE",
            HIGH,
            id="mixed tuple settled by message",
        ),
        pytest.param(
            ("LookupError", "TypeError", "ValueError"),
            None,
            "NOT_FOUND_RESOURCE",
            LOW,
            id="mixed tuple without message is low",
        ),
        pytest.param(
            ("SomethingOdd",),
            "Note not found",
            "NOT_FOUND_RESOURCE",
            HIGH,
            id="unknown exception falls through to message",
        ),
    ],
)
def test_exception_decides_without_status(
    exceptions: tuple[str, ...], message: str | None, code: str, confidence: Confidence
) -> None:
    inferred = infer_error_code(None, exceptions, message)
    assert (inferred.value, inferred.confidence) == (code, confidence)


def test_missing_external_binary_from_subprocess_evidence() -> None:
    inferred = infer_error_code(None, ("FileNotFoundError",), None, external_binary=True)
    assert inferred.value == "INTERNAL_ERROR"
    assert "binary" in inferred.reason


@pytest.mark.parametrize(
    ("message", "code"),
    [
        pytest.param("Unknown tool: {}", "NOT_FOUND_OPERATION", id="unknown tool"),
        pytest.param(
            "Unexpected argument(s) for {}: {}",
            "VALIDATION_UNKNOWN_PARAM",
            id="unexpected arguments",
        ),
        pytest.param("Note {} does not exist", "NOT_FOUND_RESOURCE", id="does not exist"),
        pytest.param("no such repository: {}", "NOT_FOUND_RESOURCE", id="no such"),
        pytest.param("query is required", "VALIDATION_MISSING_PARAM", id="is required"),
        pytest.param("tag must be a non-empty string", "VALIDATION_INVALID_TYPE", id="must be"),
        pytest.param(
            "Only the note owner can archive it", "PERMISSION_DENIED", id="only the owner can"
        ),
        pytest.param(
            "Invalid API key", "PERMISSION_DENIED", id="API key is permission, not invalid"
        ),
        pytest.param("rate limit exceeded, retry in {}s", "RATE_LIMIT_EXCEEDED", id="rate limit"),
        pytest.param("Attachment too large", "VALIDATION_PAYLOAD_TOO_LARGE", id="too large"),
        pytest.param(
            "Repository {} already exists", "CONFLICT_ALREADY_EXISTS", id="already exists"
        ),
        pytest.param("invalid encoding in request", "VALIDATION_INVALID_ENCODING", id="encoding"),
    ],
)
def test_message_text(message: str, code: str) -> None:
    inferred = infer_error_code(None, (), message)
    assert (inferred.value, inferred.confidence) == (code, HIGH)


def test_translated_msgid_is_read_like_a_message() -> None:
    inferred = infer_error_code(None, (), "A new title is required", translated=True)
    assert inferred.value == "VALIDATION_MISSING_PARAM"
    assert "msgid" in inferred.reason


@pytest.mark.parametrize(
    ("status", "exceptions", "message", "code", "confidence"),
    [
        pytest.param(
            None,
            ("LookupError",),
            "No se encontró la nota {}",
            "NOT_FOUND_RESOURCE",
            HIGH,
            id="Spanish text via exception",
        ),
        pytest.param(
            404,
            (),
            "Notiz {} nicht gefunden",
            "NOT_FOUND_RESOURCE",
            HIGH,
            id="German text via status",
        ),
        pytest.param(
            None,
            (),
            "ノートが見つかりません",
            "INTERNAL_ERROR",
            LOW,
            id="Japanese text alone is low",
        ),
        pytest.param(None, (), None, "INTERNAL_ERROR", LOW, id="no evidence at all"),
        pytest.param(None, (), "disk on fire", "INTERNAL_ERROR", LOW, id="unrecognised English"),
    ],
)
def test_non_english_and_defaults(
    status: int | None,
    exceptions: tuple[str, ...],
    message: str | None,
    code: str,
    confidence: Confidence,
) -> None:
    inferred = infer_error_code(status, exceptions, message)
    assert (inferred.value, inferred.confidence) == (code, confidence)
    assert inferred.reason


def test_every_inferred_code_is_in_the_registry() -> None:
    samples = [
        "not found",
        "required",
        "invalid",
        "unknown tool",
        "too large",
        "utf-8",
        "rate limit",
        "already exists",
        "forbidden",
        "unknown parameter",
        "nothing",
    ]
    for text in samples:
        assert (code_from_message(text) or "INTERNAL_ERROR") in REGISTRY


@pytest.mark.parametrize(
    ("message", "code"),
    [
        pytest.param("No table found in section {}", "NOT_FOUND_RESOURCE", id="no noun found"),
        pytest.param("No templates found", "NOT_FOUND_RESOURCE", id="no plural found"),
        pytest.param(
            "No matching records were found for {}",
            "NOT_FOUND_RESOURCE",
            id="no nouns were found",
        ),
        pytest.param("Could not find config {}", "NOT_FOUND_RESOURCE", id="could not find"),
        pytest.param("Unsupported runtime: {}", "VALIDATION_INVALID_TYPE", id="unsupported value"),
        pytest.param(
            "cannot set both start and end to {}",
            "VALIDATION_INVALID_TYPE",
            id="two inputs that exclude each other",
        ),
        pytest.param(
            "page and cursor are mutually exclusive",
            "VALIDATION_INVALID_TYPE",
            id="mutually exclusive",
        ),
        pytest.param(
            "Unsupported command: {}",
            "VALIDATION_INVALID_TYPE",
            id="unsupported command is a rejected value, as invalid command is",
        ),
        pytest.param("Validation failed: {}", "VALIDATION_INVALID_TYPE", id="validation failed"),
    ],
)
def test_wording_the_registry_names(message: str, code: str) -> None:
    inferred = infer_error_code(None, (), message)
    assert (inferred.value, inferred.confidence) == (code, HIGH)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        pytest.param("query_required", "VALIDATION_MISSING_PARAM", id="snake case"),
        pytest.param("BODY_TOO_LARGE", "VALIDATION_PAYLOAD_TOO_LARGE", id="upper snake case"),
        pytest.param("validation_failed", "VALIDATION_INVALID_TYPE", id="validation failed"),
        pytest.param("errors.not-found", "NOT_FOUND_RESOURCE", id="dotted and kebab case"),
        pytest.param("permissionDenied", "PERMISSION_DENIED", id="camel case"),
    ],
)
def test_message_ids_are_read_as_words(message: str, code: str) -> None:
    inferred = infer_error_code(None, (), message)
    assert (inferred.value, inferred.confidence) == (code, HIGH)
    assert message in inferred.reason


@pytest.mark.parametrize(
    ("message", "code", "confidence"),
    [
        pytest.param(
            "Upload to bucket_missing_archive failed",
            "INTERNAL_ERROR",
            LOW,
            id="an identifier inside a sentence stays one word",
        ),
        pytest.param(
            "Cannot connect to the database", "INTERNAL_ERROR", LOW, id="cannot alone is not input"
        ),
        pytest.param(
            "No parseable rows in section {}", "INTERNAL_ERROR", LOW, id="no without found"
        ),
        pytest.param(
            "Streaming is not supported",
            "VALIDATION_INVALID_TYPE",
            LOW,
            id="not supported is a weak signal",
        ),
    ],
)
def test_weak_or_absent_wording_stays_low(message: str, code: str, confidence: Confidence) -> None:
    inferred = infer_error_code(None, (), message)
    assert (inferred.value, inferred.confidence) == (code, confidence)


def test_a_weak_message_does_not_override_a_status() -> None:
    inferred = infer_error_code(503, (), "Streaming is not supported")
    assert (inferred.value, inferred.confidence) == ("INTERNAL_ERROR", HIGH)


def test_no_x_found_stays_in_a_validation_status_family() -> None:
    inferred = infer_error_code(422, (), "No templates found")
    assert inferred.value == "VALIDATION_INVALID_TYPE"


@pytest.mark.parametrize(
    ("exceptions", "message", "declared", "code", "confidence"),
    [
        pytest.param(
            (), "slow", "ThrottlingException", "RATE_LIMIT_EXCEEDED", HIGH, id="exception class"
        ),
        pytest.param(
            ("Exception",),
            "request failed",
            "AccessDeniedException",
            "PERMISSION_DENIED",
            HIGH,
            id="declared class replaces a broad except",
        ),
        pytest.param(
            (), "An error occurred", "access_denied", "PERMISSION_DENIED", HIGH, id="message id"
        ),
        pytest.param(
            (),
            "Note 7 not found",
            "access_denied",
            "NOT_FOUND_RESOURCE",
            HIGH,
            id="the message comes before a declared id",
        ),
        pytest.param((), "An error occurred", "E1042", "INTERNAL_ERROR", LOW, id="opaque type"),
    ],
)
def test_a_declared_error_type_is_evidence(
    exceptions: tuple[str, ...], message: str, declared: str, code: str, confidence: Confidence
) -> None:
    inferred = infer_error_code(None, exceptions, message, declared=declared)
    assert (inferred.value, inferred.confidence) == (code, confidence)


@pytest.mark.parametrize(
    ("message", "code", "confidence"),
    [
        pytest.param("No trace IDs provided", "VALIDATION_MISSING_PARAM", HIGH, id="none provided"),
        pytest.param("region not specified", "VALIDATION_MISSING_PARAM", HIGH, id="not specified"),
        pytest.param(
            "Too many ids ({}). Maximum 5", "VALIDATION_PAYLOAD_TOO_LARGE", HIGH, id="too many"
        ),
        pytest.param("Too many requests", "RATE_LIMIT_EXCEEDED", HIGH, id="too many requests"),
        pytest.param("credentials not found", "PERMISSION_DENIED", HIGH, id="credentials"),
        pytest.param(
            "Unknown metric {}. Use: a, b", "VALIDATION_INVALID_TYPE", LOW, id="unknown value"
        ),
        pytest.param("Unknown error occurred", "INTERNAL_ERROR", LOW, id="unknown error"),
        pytest.param("Author cannot be empty", "VALIDATION_INVALID_TYPE", HIGH, id="empty"),
        pytest.param(
            "Row index {} is out of range", "VALIDATION_INVALID_TYPE", HIGH, id="out of range"
        ),
        pytest.param("Style {} could not be found", "NOT_FOUND_RESOURCE", HIGH, id="not be found"),
        pytest.param("Cannot modify document: {}", "INTERNAL_ERROR", LOW, id="cannot modify"),
        pytest.param(
            "Each row must have 'name' and 'values' keys",
            "VALIDATION_INVALID_TYPE",
            HIGH,
            id="must have",
        ),
    ],
)
def test_more_wording(message: str, code: str, confidence: Confidence) -> None:
    inferred = infer_error_code(None, (), message)
    assert (inferred.value, inferred.confidence) == (code, confidence)
