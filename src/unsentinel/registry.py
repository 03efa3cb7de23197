"""The registry: the two features, their rules in order, and the entry points that run them.

This is the only module that imports both ``unsentinel.warnings`` and ``unsentinel.errors``;
the core receives them as a :class:`~unsentinel.core.suite.Suite` and never imports a
feature. Order matters only for reporting: every rule reads the same original tree and the
engine applies all scheduled edits in one pass, so no rule sees another's output.

Rules are listed by their LibCST-free detectors (each feature's ``detect`` module); a rule's
class, and LibCST with it, is imported only when a file reaches LibCST or a caller asks for
the classes (``ALL_RULES``, ``enabled_rules``, ``rule_by_code``: docs and listings).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from unsentinel.contracts import Contracts, Migration, emit_contracts
from unsentinel.core import passes, runner
from unsentinel.core.config import Config, Section
from unsentinel.core.config import load_config as load_with_sections
from unsentinel.core.defined import DefinedNames
from unsentinel.core.facts import FactBook
from unsentinel.core.model import FileResult, Mode, Position, Site
from unsentinel.core.runner import Progress, RunOptions, RunResult
from unsentinel.core.suite import Emitter, Suite
from unsentinel.errors import detect as error_detect
from unsentinel.errors.emit import ERROR_DETAIL_FIELDS, emit_error_modules, used_codes
from unsentinel.errors.facts import ErrorFacts
from unsentinel.errors.settings import SECTION as ERROR_SETTINGS
from unsentinel.review import detect as review_detect
from unsentinel.warnings import detect as warning_detect
from unsentinel.warnings.emit import emit_warning_modules
from unsentinel.warnings.emit.model_module import WARNING_FIELDS, migrates_warnings
from unsentinel.warnings.emit.regression_test import emit_regression_test
from unsentinel.warnings.facts import WarningFacts
from unsentinel.warnings.settings import SECTION as WARNING_SETTINGS
from unsentinel.warnings.settings import warning_settings

if TYPE_CHECKING:
    from unsentinel.core.decisions import Decisions, Plan
    from unsentinel.core.prefilter import Detects
    from unsentinel.core.rule import Rule

    # Read through __getattr__ below: the classes, imported on first use.
    ALL_RULES: tuple[type[Rule], ...]
    WARNING_RULES: tuple[type[Rule], ...]
    ERROR_RULES: tuple[type[Rule], ...]
    REVIEW_RULES: tuple[type[Rule], ...]

# The warning rules' order is theirs (warnings/detect.py: detectors, producers, consumers,
# annotations, the constant's definition). Error dicts (UNS501) are independent of them:
# edits never overlap. The review of the migration itself (UNS9xx) comes last: comments only.
DETECTORS: tuple[Detects, ...] = (
    *warning_detect.DETECTORS,
    *error_detect.DETECTORS,
    *review_detect.DETECTORS,
)
_GROUPS: dict[str, tuple[Detects, ...]] = {
    "WARNING_RULES": warning_detect.DETECTORS,
    "ERROR_RULES": error_detect.DETECTORS,
    "REVIEW_RULES": review_detect.DETECTORS,
    "ALL_RULES": DETECTORS,
}
FACTS = (DefinedNames, WarningFacts, ErrorFacts)
EMITTERS: tuple[Emitter, ...] = (emit_warning_modules, emit_error_modules)
# Each feature's keys in [tool.unsentinel]: the core reads the common keys only.
SECTIONS: tuple[Section, ...] = (WARNING_SETTINGS, ERROR_SETTINGS)


def load_config(
    paths: tuple[Path, ...] = (), config_file: Path | None = None, **overrides: object
) -> Config:
    """The configuration with every feature's section read and validated (CLI and library)."""
    return load_with_sections(paths, config_file, sections=SECTIONS, **overrides)


def configured(base: Config | None = None, /, **values: object) -> Config:
    """``base`` (default ``Config()``) with settings set by field name, common or a feature's:
    ``configured(sentinel_prefixes=("STOP: ",))``. For code that builds a Config itself."""
    return (base or Config()).with_values(values, SECTIONS)


def __getattr__(name: str) -> tuple[type[Rule], ...]:
    """``ALL_RULES``, ``WARNING_RULES``, ``ERROR_RULES``, ``REVIEW_RULES``: the rule classes,
    imported on first use (each module imports LibCST)."""
    if name not in _GROUPS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    classes = tuple(detector.load() for detector in _GROUPS[name])
    globals()[name] = classes
    return classes


def _entries() -> tuple[Detects, ...]:
    """Every rule as the prefilter reads it: the detectors, or the classes a caller set as
    ``ALL_RULES`` (tests pin the rule set that way)."""
    entries: tuple[Detects, ...] = globals().get("ALL_RULES", DETECTORS)
    return entries


def rule_codes() -> tuple[str, ...]:
    """Every rule's code, in order, without importing a rule module."""
    return tuple(rule.code for rule in _entries())


def registered(config: Config) -> tuple[Detects, ...]:
    """The enabled rules as the prefilter reads them (no rule module imported)."""
    return tuple(rule for rule in _entries() if config.is_rule_enabled(rule.code))


def enabled_rules(config: Config) -> tuple[type[Rule], ...]:
    """The enabled rules' classes (imports them)."""
    return tuple(rule.load() for rule in registered(config))


def rule_by_code(code: str) -> type[Rule]:
    for rule in DETECTORS:
        if rule.code == code:
            return rule.load()
    raise KeyError(code)


def suite(
    config: Config, *, regression_test: Path | None = None, contracts: Contracts | None = None
) -> Suite:
    """The registered features, with the rules ``config`` enables.

    ``contracts``: where to find wire-contract schema files (last: it reads what the
    features' rewrites migrate).
    """
    emitters = EMITTERS
    if regression_test is not None:
        emitters = (*emitters, partial(_regression_test, regression_test))
    if contracts is not None:
        emitters = (*emitters, partial(emit_contracts, contracts))
    return Suite(registered(config), FACTS, emitters, SECTIONS)


def _regression_test(
    target: Path, _results: Sequence[FileResult], _facts: FactBook, config: Config
) -> list[FileResult]:
    return [emit_regression_test(target, config)]


def contracts_for(
    paths: Sequence[Path], files_from: Sequence[str], config: Config, *, update: bool
) -> Contracts:
    """What the contracts package needs from the features: each model's fields and a test."""
    warnings = Migration(
        "warnings",
        warning_settings(config).warning_list_names,
        WARNING_FIELDS,
        "Warning",
        in_items=True,
        migrated=migrates_warnings,
    )
    errors = Migration(
        "error", ("error",), ERROR_DETAIL_FIELDS, "ErrorDetail", in_items=False, migrated=_errors
    )
    return Contracts(tuple(paths), tuple(files_from), update, (warnings, errors))


def _errors(results: Sequence[FileResult]) -> bool:
    """Does the run turn error dicts into ``ErrorDetail`` envelopes?"""
    return bool(used_codes(results))


def run(
    paths: Sequence[Path],
    config: Config,
    mode: Mode,
    *,
    files_from: Iterable[str] = (),
    jobs: int | None = None,
    allow_dirty: bool = False,
    allow_partial: bool = False,
    verify: str | None = None,
    progress: Progress | None = None,
    regression_test: Path | None = None,
    decisions: Decisions | None = None,
    cache: bool = False,
    update_schemas: bool = False,
    screen: bool = True,
) -> RunResult:
    """Run unsentinel over ``paths``: the library entry point behind every command.

    ``regression_test``: where to write a pytest module pinning the new wire shape
    (``apply --emit-regression-test``), as one more generated file. ``allow_partial`` and
    ``verify`` are ``apply``'s (see :class:`~unsentinel.core.runner.ApplyOptions`).
    ``decisions``: a reviewer's plan and review markers (see :func:`run_plan`).
    ``cache``: let ``check`` reuse results from ``.unsentinel_cache/`` (the CLI's default).
    ``update_schemas``: rewrite the wire-contract schemas the migration breaks
    (:mod:`unsentinel.contracts`) instead of reporting them as held for manual change.
    ``screen=False``: no prefilter; every file that parses goes to the rules. Slow; it
    exists to show that the prefilter changes no finding.
    """
    files_from = tuple(files_from)  # read twice: by discovery and by the contracts
    contracts = contracts_for(paths, files_from, config, update=update_schemas)
    return runner.run(
        paths,
        config,
        mode,
        suite(config, regression_test=regression_test, contracts=contracts),
        RunOptions(
            files_from=files_from,
            jobs=jobs,
            allow_dirty=allow_dirty,
            allow_partial=allow_partial,
            verify=verify,
            progress=progress,
            decisions=decisions,
            cache=cache,
            screen=screen,
        ),
    )


def run_plan(
    paths: Sequence[Path],
    config: Config,
    plan: Plan,
    *,
    mark_review: bool = True,
    files_from: Iterable[str] = (),
    jobs: int | None = None,
    allow_dirty: bool = False,
    allow_partial: bool = False,
    verify: str | None = None,
    progress: Progress | None = None,
    regression_test: Path | None = None,
    update_schemas: bool = False,
) -> tuple[RunResult, tuple[str, ...]]:
    """``apply --plan``: apply exactly what an edited plan decides; also the refused entries.

    A fresh run (writing nothing) shows the sites as they are now; entries whose fingerprint
    matches none are refused, codes the plan changes become renames, and the apply leaves
    every site the plan skips or does not know as it is. Raises
    :class:`~unsentinel.core.decisions.PlanError` for contradictory renames.
    """
    files_from = tuple(files_from)
    fresh = run(paths, config, Mode.PLAN, files_from=files_from, jobs=jobs)
    # all_results: a plan lists the schema sites too; they must not read as stale entries.
    # A skip reaches the skipped site's whole group: no string left among migrated warnings.
    groups = site_groups(fresh)
    from unsentinel.core.decisions import resolve

    resolution = resolve(plan, fresh.all_results, mark_review=mark_review, groups=groups)
    applied = run(
        paths,
        config,
        Mode.APPLY,
        files_from=files_from,
        jobs=jobs,
        allow_dirty=allow_dirty,
        allow_partial=allow_partial,
        verify=verify,
        progress=progress,
        regression_test=regression_test,
        decisions=resolution.decisions,
        update_schemas=update_schemas,
    )
    return applied, resolution.refused


def site_groups(result: RunResult) -> dict[tuple[str, Position], str]:
    """Which sites change together (a connected group): ``apply --interactive`` skips a
    group whole. Keyed by path and position; error dicts stand alone."""
    from unsentinel.warnings.groups import site_groups as warning_site_groups

    return warning_site_groups(result.facts.get(WarningFacts), result.results)


def rewrite_source(
    source: str,
    config: Config | None = None,
    facts: FactBook | None = None,
    *,
    path: str = "<string>",
    module_name: str = "",
    rules: Sequence[type[Rule]] | None = None,
) -> tuple[str, list[Site]]:
    """Rewrite one module's source: the pure ``str -> str`` seam (new code, sites)."""
    config = config or Config()
    chosen = suite(config)
    if rules is not None:
        chosen = Suite(tuple(rules), chosen.facts, chosen.emitters, chosen.sections)
    return passes.rewrite_source(source, chosen, config, facts, path=path, module_name=module_name)


__all__ = [
    "ALL_RULES",
    "DETECTORS",
    "ERROR_RULES",
    "REVIEW_RULES",
    "SECTIONS",
    "WARNING_RULES",
    "configured",
    "contracts_for",
    "enabled_rules",
    "registered",
    "load_config",
    "rewrite_source",
    "rule_by_code",
    "rule_codes",
    "run",
    "run_plan",
    "site_groups",
    "suite",
]
