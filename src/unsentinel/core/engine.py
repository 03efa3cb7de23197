"""The per-file pipeline: bytes -> decode -> prefilter -> parse -> rules -> edits -> validate.

:class:`Pipeline` is what the worker pool runs; it never raises, every problem becomes
a :class:`~unsentinel.core.model.FileResult` with ``status=FAILED`` and a reason. What a
process keeps of each file between passes (bytes, the parsed module) is
:mod:`unsentinel.core.store`; one pass of the rules over a module, and the pure
``str -> str`` seam that rule tests drive, are :mod:`unsentinel.core.passes`.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from unsentinel.core.asked import Asked, asking
from unsentinel.core.cache_answers import Answers, Kept, holding, kept_result
from unsentinel.core.cache_codec import FactCodec
from unsentinel.core.config import Config
from unsentinel.core.facts import FactBook
from unsentinel.core.gather import facts_of_context, facts_of_source
from unsentinel.core.model import FileResult, FileTask, Mode, Site, Status

# Re-exported: the pipeline looks them up here, where tests count and replace them.
from unsentinel.core.passes import analyze as analyze
from unsentinel.core.passes import apply_edits as apply_edits
from unsentinel.core.prefilter import Prefilter
from unsentinel.core.regather import later_round
from unsentinel.core.source import SourceError, decode_source
from unsentinel.core.store import (
    Analysed,
    FileStore,
    Loaded,
    failed_result,
    read_source,
    unless_generated,
)
from unsentinel.core.suite import Suite
from unsentinel.core.validate import RewriteError, python_parse, syntax_error, validate_rewrite

if TYPE_CHECKING:
    # LibCST, and the modules built on it, are imported where a file reaches LibCST: a
    # check whose files all stop at the prefilter never loads them.
    import libcst as cst

    from unsentinel.core.rule import RuleContext


class Pipeline:
    """The per-file pipeline for one run: built once per worker process, reused per file."""

    def __init__(
        self,
        config: Config,
        suite: Suite,
        facts: FactBook,
        mode: Mode,
        *,
        gather: bool = False,
        analyse: bool = True,
        screen: bool = True,
        kept: Mapping[Path, Sequence[Kept]] | None = None,
    ) -> None:
        self.config = config
        self.suite = suite
        self.facts = facts
        self.mode = mode
        self.gather = gather  # collect cross-file facts only
        # False (a gather pass only): load each file and give the facts of its bytes; the
        # rules read it in the rounds after, told what every file's bytes say.
        self.analyse = analyse
        # False: every file that parses goes to the rules (``check --no-prefilter``, which
        # proves the prefilter sound: it must not change a single finding).
        self.screen = screen
        # A cached check's (None: no cache): analyses of earlier runs by file, taken where
        # their answers hold, and every analysis's record returned with its result.
        self.kept = kept
        self._answers: Answers | None = None
        self.prefilter = Prefilter(
            suite.rules, config, facts.function_names(), facts.module_function_names()
        )

    def process(self, task: FileTask, store: FileStore | None = None) -> FileResult:
        """Run the whole pipeline on one file. Never raises.

        With a ``store`` the file is loaded (read, parsed) once for the whole run: a gather
        pass keeps what it loaded there, the final pass takes it out again.
        """
        try:
            return self._process(task, store or FileStore())
        except RewriteError as exc:
            return failed_result(task, f"{exc}; file left unchanged (please report this)")
        except RecursionError:
            return failed_result(task, "too deeply nested to parse (recursion limit)")
        except Exception as exc:  # the per-file runner must never take the run down
            return failed_result(task, f"internal error: {type(exc).__name__}: {exc}")

    def regather(
        self, task: FileTask, store: FileStore, names: frozenset[str]
    ) -> FileResult | None:
        """A later gather round for a file loaded earlier; None where it cannot learn more
        (:mod:`unsentinel.core.regather` decides which files come back)."""
        return later_round(self, task, store, names)

    def _process(self, task: FileTask, store: FileStore) -> FileResult:
        """Load the file (once a run), then take the rules' reading of it: this run's last
        analysis where its answers hold, else an earlier run's kept one (a cached check),
        else a parse (if :meth:`_load` left it) and a fresh analysis."""
        # The last pass of a run takes the entry out: nothing after it needs the tree.
        entry = store.entries.get(task.path) if self.gather else store.entries.pop(task.path, None)
        if entry is None:
            entry = self._load(task, store.take(task), store)
            if self.gather:
                store.entries[task.path] = entry
        if isinstance(entry, FileResult):
            return entry if self.gather else replace(entry, facts=())
        if not self.analyse:
            return FileResult(task.display, Status.PARSED, facts=entry.source_facts)
        last = self._last(entry)
        if last is None:
            early = self._kept(task) or self._unparsed(task, entry, store)
            if early is not None:
                return early
        if last is not None and self.mode.rewrites:
            rewritten = self._rewritten_from(task, entry, *last)
            if rewritten is not None:
                return rewritten
            last = None
        context, asked = last or self._analysis(task, entry)
        result = self._result(task, entry.data, entry.text, context, entry.source_facts)
        if self.kept is None or self.mode.rewrites:
            return result
        return replace(result, answered=self._book_answers().record(asked))

    def _rewritten_from(
        self, task: FileTask, entry: Loaded, context: RuleContext, asked: Asked
    ) -> FileResult | None:
        """The rewrite built from a gather round's analysis, where the facts' answers hold
        for the edits too; None: analyse afresh.

        The edit builders ask the facts again while they build (after the test in
        :meth:`_last`); their questions land in the same record, so the record is tested
        once more when the rewrite is built. Where an answer differs, this pass's facts
        would have built something else: that rewrite (or its failure) is thrown away.
        """
        try:
            result = self._result(task, entry.data, entry.text, context, entry.source_facts)
        except RewriteError:
            if asked.holds_under(self.facts):
                raise
            return None
        return result if asked.holds_under(self.facts) else None

    def _last(self, entry: Loaded) -> tuple[RuleContext, Asked] | None:
        """The last gather round's analysis of ``entry``, where it holds for this pass.

        An analysis is a function of the tree and of the answers the facts gave its rules:
        where every question the last gather round's analysis asked gets the same answer
        from this pass's facts, that analysis is the one the rules would make again. A
        rewriting pass tests the answers once more after its edits are built
        (:meth:`_rewritten_from`): the builders ask the facts as they build.
        """
        last = entry.last
        if last is not None and last.asked.holds_under(self.facts):
            return last.context, last.asked
        return None

    def _kept(self, task: FileTask) -> FileResult | None:
        """The output of an earlier run's analysis of these bytes whose answers this pass's
        facts give again (:mod:`unsentinel.core.cache_answers`), or None."""
        kept = self.kept.get(task.path, ()) if self.kept is not None else ()
        if not kept:
            return None
        found = holding(kept, "gather" if self.gather else "check", self._book_answers())
        if found is None:
            return None
        try:
            return kept_result(found, task.display, self._book_answers().codec)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None  # an output that does not read: analyse

    def _book_answers(self) -> Answers:
        if self._answers is None:
            self._answers = Answers(self.facts, FactCodec(self.suite.facts))
        return self._answers

    def _unparsed(self, task: FileTask, entry: Loaded, store: FileStore) -> FileResult | None:
        """The failure of a parse :meth:`_load` left for now (kept in ``store`` for the
        passes after, as :meth:`_load` keeps one), or None: the file is parsed."""
        failed = self._parse(task, entry)
        if failed is None:
            return None
        if self.gather:
            store.entries[task.path] = failed
            return failed
        return replace(failed, facts=())

    def _parse(self, task: FileTask, entry: Loaded) -> FileResult | None:
        """Parse a file whose parse :meth:`_load` left for when the rules need the tree (it
        had kept analyses); the failure where LibCST refuses it."""
        if entry.module is not None:
            return None
        import libcst as cst

        try:
            entry.module = cst.parse_module(entry.data)
        except cst.ParserSyntaxError as exc:
            failure = syntax_error(entry.data, exc)
            return failed_result(task, failure, entry.source_facts, lasting=True)
        return None

    def _analysis(self, task: FileTask, entry: Loaded) -> tuple[RuleContext, Asked | None]:
        """The rules' reading of ``entry`` under this pass's facts, with the questions they
        asked (recorded in a gather round, and in a cached check's last pass)."""
        recording = self.gather or (self.kept is not None and not self.mode.rewrites)
        facts, asked = asking(self.facts, self.suite.facts) if recording else (self.facts, None)
        assert entry.module is not None  # parsed by :meth:`_parse`
        context = analyze(
            entry.module,
            self.config,
            facts,
            path=task.display,
            module_name=task.module_name,
            rules=self.suite.rule_classes,
            text=entry.text.removeprefix("\ufeff"),
            memo=entry.memo,
        )
        entry.last = Analysed(context, asked) if asked is not None and self.gather else None
        return context, asked

    def _load(self, task: FileTask, data: bytes | None, store: FileStore) -> Loaded | FileResult:
        """Read, decode, prefilter and parse one file: everything that depends on its bytes
        alone, so it is done once however many passes look at the file. A file with kept
        analyses is parsed only when none holds (:meth:`_parse`)."""
        if data is None:
            data_or_result = read_source(task, self.config)
        else:
            data_or_result = unless_generated(task, data, self.config)
        if isinstance(data_or_result, FileResult):
            return data_or_result
        data = data_or_result
        source_facts = store.source_facts.pop(task.path, None)
        if source_facts is None:
            source_facts = facts_of_source(self.suite, data) if self.gather else ()
        # The first look, in two halves: a rule's pattern, else a call of a function the
        # facts name (a file that only spells one is not parsed to learn it calls none).
        any_rule = self.screen and self.prefilter.matches_a_rule(data)
        if self.screen and not any_rule and not self.prefilter.may_call_a_fact_name(data):
            return FileResult(task.display, Status.PREFILTERED, facts=source_facts)
        try:
            text, _encoding = decode_source(data)
        except SourceError as exc:
            return failed_result(task, str(exc), lasting=True)
        tree, too_deep = python_parse(data)
        if too_deep is not None:
            return failed_result(task, too_deep, source_facts, lasting=True)
        look = None
        if self.screen and tree is not None:
            look = self.prefilter.second_look(data, tree, any_rule=any_rule)
        if look is not None and not look.candidates:
            # Python's own parser shows no code any rule could act on (the words were in
            # comments, docstrings or module names): LibCST is never asked.
            if self.gather and look.calls is not None:
                store.calls[task.path] = look.calls  # for the rounds that follow
            return FileResult(task.display, Status.PREFILTERED, facts=source_facts)
        from unsentinel.core.tree import TreeMemo

        loaded = Loaded(data, text, None, source_facts, TreeMemo(), tree)
        if self.kept is not None and self.kept.get(task.path):
            return loaded  # parsed only if no kept analysis holds (:meth:`_parse`)
        failed = self._parse(task, loaded)
        return loaded if failed is None else failed

    def _result(
        self,
        task: FileTask,
        data: bytes,
        text: str,
        context: RuleContext,
        source_facts: tuple[object, ...],
    ) -> FileResult:
        from unsentinel.core.target import TargetVersionError, fit_to_target

        if self.gather:  # the gather pass wants facts only; positions are costly
            facts = facts_of_context(self.suite, context, source_facts)
            return FileResult(task.display, Status.PARSED, facts=facts)
        sites = tuple(sorted(context.sites, key=_site_order))
        unchanged = FileResult(task.display, Status.PARSED, sites=sites)
        if not self.mode.rewrites or not (
            context.edits or context.imports or context.removed_imports
        ):
            return unchanged
        try:
            new_module = fit_to_target(
                apply_edits(context, self.suite), self.config.target, context.module
            )
        except TargetVersionError as exc:
            raise RewriteError(f"rewrite of {task.display}: {exc}") from exc
        # Generated once: a module's code is its whole codegen (0.3 s for 10,000 lines),
        # and the bytes, the validation, the second run and the diff all read it.
        new_code = new_module.code
        new_bytes = new_code.encode(new_module.encoding)  # what ``Module.bytes`` does
        if new_bytes == data:
            return unchanged
        reparsed = validate_rewrite(text, new_code, task.display, self.config.target)
        self._check_fixed_point(reparsed, task, new_code)
        # The texts feed the diff, which must match the bytes git sees: keep a BOM as U+FEFF.
        bom = "\ufeff" if data.startswith(codecs.BOM_UTF8) else ""
        return FileResult(
            task.display,
            Status.PARSED,
            sites=sites,
            original=bom + text,
            new_source=new_bytes,
            new_text=bom + new_code,
        )

    def _check_fixed_point(self, rewritten: cst.Module, task: FileTask, code: str) -> None:
        """Refuse a rewrite that a second run would rewrite again (ruff's convergence check).

        The whole rule set runs once more, in memory, over the new text with the same facts;
        if it would change anything, the file fails instead of being written half-way to a
        fixed point (``.message.message`` on the next run, say). ``code`` is the text
        ``rewritten`` was parsed from, which is its code (LibCST's parse round-trips).
        """
        again = analyze(
            rewritten,
            self.config,
            self.facts,
            path=task.display,
            module_name=task.module_name,
            rules=self.suite.rule_classes,
            text=code,
        )
        if not (again.edits or again.imports or again.removed_imports):
            return
        second = apply_edits(again, self.suite)
        if second.code == code:
            return
        raise RewriteError(f"rewrite of {task.display} is not idempotent: {_first_change(again)}")


def _first_change(context: RuleContext) -> str:
    """Where a second run would still change the code, for the error message."""
    for finding in context.pending:
        if finding.node in context.edits:
            position = context.position(finding.node)
            return f"line {position.line} would change again ({finding.rule}: {finding.message})"
    return "a second run would change the imports"


def _site_order(site: Site) -> tuple[int, int, str]:
    return (site.position.line, site.position.column, site.rule)
