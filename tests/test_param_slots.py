"""Which parameters take warnings, across files: functions are known by bare name only.

Seen on the standard library: ``unittest``'s ``TextTestRunner.__init__`` and
``TestProgram.__init__`` take a parameter named ``warnings`` at positions 7 and 11, and
every other ``__init__`` of the run then took warnings at those positions (``argparse``,
``distutils``: ``"licence" in attrs`` became ``"licence" in [w.message for w in attrs]``).
"""

from __future__ import annotations

from unsentinel.warnings.facts import ParamSlot, WarningFacts, WarningShape


def _facts(*slots: ParamSlot) -> WarningFacts:
    return WarningFacts(params=frozenset(slots))


def test_a_definitions_position_applies_only_to_a_parameter_of_that_name() -> None:
    facts = _facts(ParamSlot("__init__", 7, named="warnings"), ParamSlot("__init__", "warnings"))
    assert facts.param_shape("__init__", 7, "metavar") is None
    assert facts.param_shape("__init__", 7, "warnings") is WarningShape.LIST
    assert facts.param_shape("__init__", 3, "warnings") is WarningShape.LIST  # by name


def test_a_calls_position_applies_to_whatever_the_parameter_is_called() -> None:
    facts = _facts(ParamSlot("collect", 1, dumped=True))
    assert facts.param_shape("collect", 1, "notes") is WarningShape.DICT_LIST
    assert facts.param_shape("collect", 0, "notes") is None


def test_a_call_passing_a_list_by_position_reaches_a_definitions_slot() -> None:
    facts = _facts(ParamSlot("report", 2, named="warnings"))
    assert facts.takes_warnings("report", 2)
    assert not facts.takes_warnings("report", 1)
