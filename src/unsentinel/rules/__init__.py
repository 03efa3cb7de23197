"""The rule registry: an explicit, ordered list (bump-pydantic style).

Order matters only for reporting: every rule reads the same original tree and the engine
applies all scheduled edits in one pass, so no rule sees another's output.
"""

from __future__ import annotations

from ..config import Config
from ._base import Example, Rule, RuleContext
from .error_dict import ErrorDict
from .sentinel_definition import SentinelDefinition
from .sentinel_string import SentinelConstant, SentinelMention, SentinelString
from .warning_annotation import WarningAnnotation
from .warning_consumer import WarningConsumer
from .warning_producer import PlainWarningProducer, SentinelWarningProducer

ALL_RULES: tuple[type[Rule], ...] = (
    # Detectors first: they report what the rewriting rules leave behind.
    SentinelString,
    SentinelConstant,
    SentinelMention,
    # Producers: strings flowing into warnings lists become Warning(...).
    SentinelWarningProducer,
    PlainWarningProducer,
    # Consumers: reads of the migrated warnings switch to severity / message.
    WarningConsumer,
    # Annotations follow the data the producers and consumers now agree on.
    WarningAnnotation,
    # Last: the constant goes only when the gather pass found no use left behind.
    SentinelDefinition,
    # Error dicts (UNS501): independent of the warning rules; edits never overlap theirs.
    ErrorDict,
)


def enabled_rules(config: Config) -> tuple[type[Rule], ...]:
    return tuple(rule for rule in ALL_RULES if config.is_rule_enabled(rule.code))


def rule_by_code(code: str) -> type[Rule]:
    for rule in ALL_RULES:
        if rule.code == code:
            return rule
    raise KeyError(code)


__all__ = ["ALL_RULES", "Example", "Rule", "RuleContext", "enabled_rules", "rule_by_code"]
