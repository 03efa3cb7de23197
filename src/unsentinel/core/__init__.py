"""The core: files in, rewritten files out, knowing no feature.

Discovery, decoding, the prefilter, the per-file pipeline and its batched rule traversal,
the gather pass's bookkeeping, imports, writing. Features plug in through
:class:`~unsentinel.core.suite.Suite` (rules, typed facts, emitters); nothing here imports
``unsentinel.warnings`` or ``unsentinel.errors``.
"""
