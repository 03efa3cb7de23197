"""Feature three: the review of a migration itself -- markers left to check, stale ``noqa``.

Independent of ``warnings`` and ``errors``: it reads only comments, through the core.
"""
