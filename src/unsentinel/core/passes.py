"""One pass of the rules over a module, and the pure ``str -> str`` seam.

:func:`analyze` runs every rule over a parsed module in one traversal and returns the
context that holds their sites and scheduled edits; :func:`apply_edits` applies the edits
in one transform. The file pipeline (:mod:`unsentinel.core.engine`) calls both for each
file; :func:`rewrite_source` is the seam rule tests drive: a module's text in, its rewrite
and sites out, with the gather pass run over that one module (:func:`gather_module`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from unsentinel.core.config import Config, generated_modules
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import changed_functions, facts_of_context, facts_of_source, merge_facts
from unsentinel.core.model import Site
from unsentinel.core.suite import Suite

if TYPE_CHECKING:
    # LibCST, and the modules built on it, are imported where a file reaches LibCST: a
    # check whose files all stop at the prefilter never loads them.
    import libcst as cst

    from unsentinel.core.rule import Rule, RuleContext
    from unsentinel.core.tree import TreeMemo


def analyze(
    module: cst.Module,
    config: Config,
    facts: FactBook | None = None,
    *,
    path: str = "<string>",
    module_name: str = "",
    rules: Sequence[type[Rule]] = (),
    text: str | None = None,
    memo: TreeMemo | None = None,
) -> RuleContext:
    """Run every rule over ``module``; the returned context holds sites and scheduled edits.

    ``text`` is the module's source when the caller has it (saves regenerating it); ``memo``
    the parent map and positions of earlier passes over the same module object.
    """
    import libcst as cst

    from unsentinel.core.batch import visit_batched
    from unsentinel.core.rule import RuleContext

    # No defensive copy: the module was parsed for this run and edits never mutate it.
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    context = RuleContext(wrapper, config, facts or FactBook(), path, module_name, text, memo)
    instances = [rule(context) for rule in rules]
    visit_batched(wrapper, instances)  # one traversal for every rule
    for instance in instances:
        instance.finish()
    context.drop_claimed_detections()
    context.apply_suppressions()
    return context


def apply_edits(context: RuleContext, suite: Suite) -> cst.Module:
    """Apply every scheduled edit in one transform, then add and remove imports."""
    from unsentinel.core.edits import EditApplier

    module = context.module
    if context.edits:
        config = context.config
        applier = EditApplier(context.edits, config.quote, config.line_length, context.parents)
        module = module.visit(applier)
    if context.imports or context.removed_imports:
        module = _fix_imports(module, context, suite)
    return module


def rewrite_source(
    source: str,
    suite: Suite,
    config: Config | None = None,
    facts: FactBook | None = None,
    *,
    path: str = "<string>",
    module_name: str = "",
) -> tuple[str, list[Site]]:
    """Rewrite ``source`` and return the new code with the sites found.

    Without ``facts`` the gather pass runs over this one module first, as a whole run would.
    """
    import libcst as cst

    from unsentinel.core.target import fit_to_target
    from unsentinel.core.tree import TreeMemo

    config = config or Config()
    module = cst.parse_module(source)
    memo = TreeMemo()  # every pass below reads the same module
    if facts is None:
        facts = gather_module(module, config, suite, path=path, module_name=module_name, memo=memo)
    rules = suite.rule_classes
    context = analyze(
        module, config, facts, path=path, module_name=module_name, rules=rules, memo=memo
    )
    new = fit_to_target(apply_edits(context, suite), config.target, context.module)
    return new.code, list(context.sites)


def gather_module(
    module: cst.Module,
    config: Config,
    suite: Suite,
    *,
    path: str = "<string>",
    module_name: str = "",
    memo: TreeMemo | None = None,
) -> FactBook:
    """The gather pass over a single module (for the ``str -> str`` seam and tests)."""
    facts = FactBook()
    source_facts = facts_of_source(suite, module.bytes)
    rules = suite.rule_classes
    for _round in range(3):
        context = analyze(
            module, config, facts, path=path, module_name=module_name, rules=rules, memo=memo
        )
        merged = merge_facts(suite, config, [facts_of_context(suite, context, source_facts)])
        if not changed_functions(facts, merged):
            return merged
        facts = merged
    return facts


def _fix_imports(module: cst.Module, context: RuleContext, suite: Suite) -> cst.Module:
    from unsentinel.core.imports import fix_imports

    root = context.config.root

    generated = {
        Path(path).parts[0].removesuffix(".py")
        for path in generated_modules(context.config, suite.sections)
    }

    def is_first_party(top: str) -> bool:
        if top in generated:  # modules this run creates are the project's own
            return True
        return any(
            (base / top).exists() or (base / f"{top}.py").exists() for base in (root, root / "src")
        )

    return fix_imports(
        module,
        context.imports,
        context.removed_imports,
        context.module_name,
        is_first_party,
        context.config.import_style,
    )
