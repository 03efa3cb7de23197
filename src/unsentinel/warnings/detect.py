"""The warnings feature's rules as the prefilter sees them: code, name, needles, patterns and
the second look, without LibCST.

One :class:`~unsentinel.core.prefilter.Detector` per rule, in the registry's order; each rule
class points at its detector (``detector = SENTINEL_STRING``), so this module is the one place
where a rule's words are written. Importing it costs no LibCST: a ``check`` whose files hold
none of these words never imports a rule module.
"""

from __future__ import annotations

import ast
import re
from functools import partial

from unsentinel.core.config import Config
from unsentinel.core.prefilter import Detector
from unsentinel.warnings.candidates import uses_warning_list
from unsentinel.warnings.settings import warning_settings

_RULES = "unsentinel.warnings.rules"

_WARNINGS_MODULE_API = (
    b"warn|warn_explicit|simplefilter|filterwarnings|catch_warnings|resetwarnings"
    b"|showwarning|formatwarning|filters|WarningMessage"
)


def sentinel_markers(config: Config) -> tuple[str, ...]:
    """Sentinel prefixes and configured markers as they appear in text, without trailing
    blanks ("STOP: " -> "STOP:")."""
    return tuple(
        marker.rstrip() for marker in warning_settings(config).severity_markers if marker.strip()
    )


def warning_list_patterns(config: Config) -> tuple[bytes, ...]:
    """Uses of a warnings-list name that can be a list: not ``import warnings``, not
    ``warnings.warn(...)``, not a call such as ``catch_warnings()``; ``location_warnings``
    and ``self.warnings`` still count."""
    return tuple(
        rb"(?<!import )(?<!from )(?<![A-Za-z0-9])"
        + re.escape(name.encode())
        + rb"(?![A-Za-z0-9_(])(?!\.(?:_|"
        + _WARNINGS_MODULE_API
        + rb")\b)(?! import)"
        for name in warning_settings(config).warning_list_names
    )


def _markers(config: Config) -> tuple[bytes, ...]:
    return tuple(marker.encode() for marker in sentinel_markers(config))


def _constants(config: Config) -> tuple[bytes, ...]:
    return tuple(name.encode() for name in warning_settings(config).sentinel_constants)


def _mentions(config: Config) -> tuple[bytes, ...]:
    return _markers(config) + _constants(config)


def _lists(config: Config) -> tuple[bytes, ...]:
    return tuple(name.encode() for name in warning_settings(config).warning_list_names)


def _producer_needles(config: Config, *, sentinel_only: bool) -> tuple[bytes, ...]:
    return _mentions(config) + (() if sentinel_only else _lists(config))


def _producer_patterns(config: Config, *, sentinel_only: bool) -> tuple[bytes, ...]:
    escaped = tuple(re.escape(word) for word in _mentions(config))
    return escaped + (() if sentinel_only else warning_list_patterns(config))


def _producer_refine(data: bytes, tree: ast.Module, config: Config, *, sentinel_only: bool) -> bool:
    """A marker or a sentinel constant in the text, or a warnings list in the code."""
    if any(word in data for word in _mentions(config)):
        return True
    return not sentinel_only and uses_warning_list(data, tree, config)


SENTINEL_STRING = Detector(
    "UNS001", "sentinel-string", f"{_RULES}.sentinel_string:SentinelString", _markers
)
SENTINEL_CONSTANT = Detector(
    "UNS002", "sentinel-constant", f"{_RULES}.sentinel_constant:SentinelConstant", _constants
)
SENTINEL_MENTION = Detector(
    "UNS003", "sentinel-mention", f"{_RULES}.sentinel_mention:SentinelMention", _mentions
)
SENTINEL_PRODUCER = Detector(
    "UNS101",
    "sentinel-warning-producer",
    f"{_RULES}.sentinel_producer:SentinelWarningProducer",
    partial(_producer_needles, sentinel_only=True),
    partial(_producer_patterns, sentinel_only=True),
    partial(_producer_refine, sentinel_only=True),
)
PLAIN_PRODUCER = Detector(
    "UNS102",
    "plain-warning-producer",
    f"{_RULES}.plain_producer:PlainWarningProducer",
    partial(_producer_needles, sentinel_only=False),
    partial(_producer_patterns, sentinel_only=False),
    partial(_producer_refine, sentinel_only=False),
)
# Consumers and annotations need a warnings list in the code.
CONSUMER = Detector(
    "UNS201",
    "warning-consumer",
    f"{_RULES}.consumer:WarningConsumer",
    _lists,
    warning_list_patterns,
    uses_warning_list,
)
ANNOTATION = Detector(
    "UNS301",
    "warning-annotation",
    f"{_RULES}.annotation:WarningAnnotation",
    _lists,
    warning_list_patterns,
    uses_warning_list,
)
SENTINEL_DEFINITION = Detector(
    "UNS401",
    "sentinel-definition",
    f"{_RULES}.sentinel_definition:SentinelDefinition",
    _constants,
)

DETECTORS: tuple[Detector, ...] = (
    # Detectors first: they report what the rewriting rules leave behind.
    SENTINEL_STRING,
    SENTINEL_CONSTANT,
    SENTINEL_MENTION,
    # Producers: strings flowing into warnings lists become Warning(...).
    SENTINEL_PRODUCER,
    PLAIN_PRODUCER,
    # Consumers: reads of the migrated warnings switch to severity / message.
    CONSUMER,
    # Annotations follow the data the producers and consumers now agree on.
    ANNOTATION,
    # Last: the constant goes only when the gather pass found no use left behind.
    SENTINEL_DEFINITION,
)
