"""UNS101: a sentinel-prefixed warning string becomes a ``Warning(...)``."""

from __future__ import annotations

from unsentinel.core.rule import Example
from unsentinel.warnings.detect import SENTINEL_PRODUCER
from unsentinel.warnings.producer_flow import WarningProducer


class SentinelWarningProducer(WarningProducer):
    """Rewrite a sentinel-prefixed string that flows into a warnings list into a ``Warning``.

    What it does
        Finds every string that starts with a sentinel prefix, a configured marker or a
        sentinel constant (``"BLOCK: ..."``, ``f"{BLOCK_WARNING_PREFIX} ..."``,
        ``BLOCK_WARNING_PREFIX + "..."``) and flows into a warnings list:
        ``warnings.append(...)`` / ``.insert(...)`` / ``.extend([...])``, ``+= [...]``, a
        list assigned to a warnings list, a ``warnings=[...]`` keyword argument, a
        ``{"warnings": [...]}`` entry, or a ``return`` from a helper whose result feeds a
        warnings list. Each becomes ``Warning(severity=..., message=..., field_path=...,
        code=...)``. A helper that returns sentinel strings is recorded by the gather pass,
        so its callers, its annotation (UNS301) and test doubles of it
        (``patch("pkg.check", return_value=[...])``) follow in the same run.

    Why
        A sentinel prefix mixes a machine signal into human text. A structured warning says
        the same thing in fields a consumer can read without parsing: how to react
        (``severity``), what to show (``message``), which input to fix (``field_path``) and
        a stable identifier (``code``).

    Example
        ```python
        warnings.append(f"{BLOCK_WARNING_PREFIX} MO {n} is already completed.")
        ```

    Use instead
        ```python
        warnings.append(
            Warning(
                severity="blocking",
                message=f"MO {n} is already completed.",
                field_path=None,
                code=warning_codes.ALREADY_COMPLETED,
            )
        )
        ```
        with ``import warning_codes`` and ``from warning_model import Warning`` added; both
        modules are generated when the repository has none.

    Fix safety
        The message keeps its placeholders, concatenation and layout; only the marker and
        the blank after it go. A prefix chosen at run time becomes a conditional severity.
        Values inferred with low confidence are listed for review in ``plan``.

    Inference
        Severity from the marker: ``blocking`` for a sentinel prefix or constant, the
        configured severity for a marker in ``markers``; field_path from the inputs the
        message names, interpolates, or is guarded by (with the loop index when the check
        runs per row: ``rows[{i}].sales_order_row_id``); code from the message template,
        shared across the repository (one template, one code).
    """

    detector = SENTINEL_PRODUCER
    code = detector.code
    name = detector.name
    summary = "Sentinel-prefixed warning string -> Warning(...)"
    sentinel_only = True

    VALID = (
        Example(
            """
            def f(warnings):
                warnings.append(Warning(severity="blocking", message="x", field_path=None, code=warning_codes.X))
            """,  # noqa: E501 (example code keeps its natural length)
            id="already migrated",
        ),
        Example('log.info("BLOCK: not a warning list")', id="not flowing into a warnings list"),
    )
    INVALID = (
        Example(
            """
            def complete(mo, warnings):
                if mo["status"] == "DONE":
                    warnings.append(f"{BLOCK_WARNING_PREFIX} MO {mo['order_no']} is already completed.")
            """,  # noqa: E501 (example code keeps its natural length)
            """
            import warning_codes
            from warning_model import Warning


            def complete(mo, warnings):
                if mo["status"] == "DONE":
                    warnings.append(
                        Warning(
                            severity="blocking",
                            message=f"MO {mo['order_no']} is already completed.",
                            field_path=None,
                            code=warning_codes.ALREADY_COMPLETED,
                        )
                    )
            """,
            id="state-driven f-string with the prefix constant",
            config={"entity_nouns": ("mo",)},  # the domain's noun, dropped from the code
        ),
        Example(
            """
            def check(serial_numbers, actual_quantity):
                warnings = []
                if len(serial_numbers) != actual_quantity:
                    warnings.append(
                        BLOCK_WARNING_PREFIX
                        + f" serial_numbers count ({len(serial_numbers)}) "
                        + f"must equal actual_quantity ({actual_quantity})."
                    )
                return warnings
            """,
            """
            import warning_codes
            from warning_model import Warning


            def check(serial_numbers, actual_quantity):
                warnings = []
                if len(serial_numbers) != actual_quantity:
                    warnings.append(
                        Warning(
                            severity="blocking",
                            message=f"serial_numbers count ({len(serial_numbers)}) "
                            + f"must equal actual_quantity ({actual_quantity}).",
                            field_path="serial_numbers",
                            code=warning_codes.SERIAL_NUMBERS_COUNT_EQUAL_ACTUAL_QUANTITY,
                        )
                    )
                return warnings
            """,
            id="concatenation; the subject of the message is the field",
        ),
        Example(
            """
            def receive(request, warnings):
                for i, row in enumerate(request.rows):
                    if row.sales_order_row_id not in known:
                        warnings.append(f"BLOCK: unknown sales_order_row_id={row.sales_order_row_id}")
            """,  # noqa: E501 (example code keeps its natural length)
            """
            import warning_codes
            from warning_model import Warning


            def receive(request, warnings):
                for i, row in enumerate(request.rows):
                    if row.sales_order_row_id not in known:
                        warnings.append(
                            Warning(
                                severity="blocking",
                                message=f"unknown sales_order_row_id={row.sales_order_row_id}",
                                field_path=f"rows[{i}].sales_order_row_id",
                                code=warning_codes.SALES_ORDER_ROW_ID_UNKNOWN,
                            )
                        )
            """,
            id="literal prefix in a loop: the field path carries the index",
        ),
    )
