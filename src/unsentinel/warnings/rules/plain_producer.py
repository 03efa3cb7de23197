"""UNS102: a plain warning string becomes a ``Warning(...)``."""

from __future__ import annotations

from unsentinel.core.rule import Example
from unsentinel.warnings.detect import PLAIN_PRODUCER
from unsentinel.warnings.producer_flow import WarningProducer


class PlainWarningProducer(WarningProducer):
    """Rewrite a plain string that flows into a warnings list into a ``Warning``.

    What it does
        The rewrite of UNS101 for warning strings without a marker: every string literal or
        f-string that flows into a warnings list (the places UNS101 follows) becomes
        ``Warning(severity=..., message=..., field_path=..., code=...)``, the message
        unchanged. A value of unknown type going into a warnings list (a name or a call the
        gather pass cannot follow) is reported and left as it is -- and so is every
        producer, consumer and annotation connected to that list (a *connected group*),
        each reported as ``skip`` naming the blocker.

    Why
        Once one entry of a warnings list is a ``Warning``, every entry must be: a consumer
        that reads ``w.severity`` fails on the one string left behind. A code also lets a
        client react to an informational or advisory warning without parsing its text.

    Example
        ```python
        warnings.append("Preview only - nothing was saved")
        ```

    Use instead
        ```python
        warnings.append(
            Warning(
                severity="info",
                message="Preview only - nothing was saved",
                field_path=None,
                code=warning_codes.NOTHING_SAVED,
            )
        )
        ```

    Fix safety
        The message is kept as written. A value that may or may not be a string is never
        half-migrated: it is reported (action ``skip``) for a person to check. Values
        inferred with low confidence are listed for review in ``plan``.

    Inference
        Severity from the words: ``info`` when the message mentions one of
        ``info-keywords`` (a preview, a dry run, an auto-selected default), else
        ``advisory`` (the code never blocked on a plain warning); field_path and code as
        for UNS101.
    """

    detector = PLAIN_PRODUCER
    code = detector.code
    name = detector.name
    summary = "Plain warning string in a warnings list -> Warning(...)"
    sentinel_only = False

    VALID = (Example('next_actions.append("call again")', id="not a warnings list"),)
    INVALID = (
        Example(
            """
            warnings = []
            warnings.append("Preview only - nothing was saved")
            """,
            """
            import warning_codes
            from warning_model import Warning

            warnings = []
            warnings.append(
                Warning(
                    severity="info",
                    message="Preview only - nothing was saved",
                    field_path=None,
                    code=warning_codes.NOTHING_SAVED,
                )
            )
            """,
            id="info keyword",
        ),
        Example(
            """
            def archive(warnings):
                warnings.append("Order is archived")
            """,
            """
            import warning_codes
            from warning_model import Warning


            def archive(warnings):
                warnings.append(
                    Warning(
                        severity="advisory",
                        message="Order is archived",
                        field_path=None,
                        code=warning_codes.ARCHIVED,
                    )
                )
            """,
            id="advisory by default",
            config={"entity_nouns": ("order",)},
        ),
        Example(
            """
            def archive(warnings, note):
                warnings.append("Order is archived")
                warnings.append(note)
            """,
            None,
            id="a value of unknown type blocks its whole list: nothing is rewritten",
        ),
    )
