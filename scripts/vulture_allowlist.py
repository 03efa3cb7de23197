"""Names vulture cannot see used: called by frameworks, by name, or kept as public API.

Run: ``vulture`` (paths and settings in ``[tool.vulture]`` of pyproject.toml). A new entry
needs a reason; dead code is deleted, not listed here.
"""

# ruff: noqa: B018, F821
# Public API (``from unsentinel import RunResult``): the exit code of a library run.
_.exit_code
# Dataclass fields set positionally (ParamSlot(function, key, True)).
_.dumped
# Used by tests to build fact books without a gather pass.
_.with_entries
# Read by tests/test_rule_examples.py: why an example differs under the whole rule set.
_.alone
# The error-codes registry of the spec: the oracle tests/test_error_code_inference.py uses.
_.REGISTRY
# An output format chosen by value (--output-format gitlab).
_.GITLAB
# PEP 562: the package root's lazy exports (unsentinel.run, unsentinel.RunResult).
__getattr__
# Counted beside the hits (the hits feed --statistics; the misses are there for debugging).
_.misses
# Part of the --verify report a library caller reads (RunResult.verification).
_.rolled_back
# LibCST's codemod framework calls these on a command class (python -m libcst.tool codemod).
_.DESCRIPTION
_.add_args
_.transform_module_impl
# Rule classes: imported by the dotted name their detector gives (Detector.rule, lazily).
_.SentinelString
_.SentinelConstant
_.SentinelMention
_.SentinelWarningProducer
_.PlainWarningProducer
_.WarningConsumer
_.WarningAnnotation
_.SentinelDefinition
_.ErrorDict
_.ReviewMarker
_.UnusedNoqa
