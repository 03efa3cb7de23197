"""Which files a later gather round comes back to, and how each is brought back.

A round after the first revisits only files that may learn something new: the facts of a
set of functions (``names``) changed, and a file can record anything new only if its code
spells one of them (:func:`~unsentinel.core.gather.spelled_names`: a comment or a sentence
is no question to the facts). Files the prefilter or the parser stopped carry the facts of
their bytes alone, unless the facts have just learnt about a function such a file calls.
Whether a file that comes back needs the rules again is the engine's question
(:meth:`~unsentinel.core.engine.Pipeline.process` reuses an analysis whose answers hold).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unsentinel.core.gather import module_token, spelled_names
from unsentinel.core.model import FileResult, FileTask, Status
from unsentinel.core.store import FileStore, Loaded, read_source

if TYPE_CHECKING:
    from unsentinel.core.engine import Pipeline


def later_round(
    pipeline: Pipeline, task: FileTask, store: FileStore, names: frozenset[str]
) -> FileResult | None:
    """``task`` in a round after the first, or None where it cannot learn more."""
    loaded = store.entries.get(task.path)
    if loaded is None:
        return _unread(pipeline, task, store, names)
    if isinstance(loaded, FileResult) and loaded.status is Status.PREFILTERED:
        return _prefiltered(pipeline, task, store, names)
    if not isinstance(loaded, Loaded):
        return None
    if not loaded.mentions(names) and module_token(task.module_name) not in names:
        return None
    return pipeline.process(task, store)


def _prefiltered(
    pipeline: Pipeline, task: FileTask, store: FileStore, names: frozenset[str]
) -> FileResult | None:
    """A file the prefilter stopped matters now if it spells a function the facts have
    just learned about (the helper's own module, a test reading its result): read it
    again and give it to the rules. Its bytes were not kept: most such files never
    come back."""
    prefilter = pipeline.prefilter
    if prefilter.fact_names.isdisjoint(names):
        return None  # it spells no name it did not spell in an earlier round
    calls = store.calls.get(task.path)
    if calls is not None and not prefilter.admits(calls):
        return None  # what it calls, read in an earlier round, names none of them
    read = read_source(task, pipeline.config)
    if isinstance(read, FileResult) or not prefilter.may_call_a_fact_name(read):
        return None
    earlier = store.entries.pop(task.path)
    store.seeded[task.path] = read
    if isinstance(earlier, FileResult):  # the facts of its bytes, taken the first time
        store.source_facts[task.path] = earlier.facts
    return pipeline.process(task, store)


def _unread(
    pipeline: Pipeline, task: FileTask, store: FileStore, names: frozenset[str]
) -> FileResult | None:
    """A later round for a file whose earlier rounds came from ``check``'s cache: its
    bytes decide whether it is parsed at all, and stay for the passes that follow."""
    data = store.take(task)
    if data is None:
        read = read_source(task, pipeline.config)
        if isinstance(read, FileResult):
            return None
        data = read
    store.seeded[task.path] = data
    if spelled_names(data).isdisjoint(names) and module_token(task.module_name) not in names:
        return None
    return pipeline.process(task, store)
