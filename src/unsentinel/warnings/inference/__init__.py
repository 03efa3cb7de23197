"""Pure inference functions: severity, field_path and code. No I/O, no CST mutation.

Each returns an :class:`~unsentinel.core.model.Inferred` (value, confidence, reason) and never
raises for "don't know": it returns a low-confidence value instead. ``producer_site``
gathers, for one warning string, the values the others decide from (reading the file's
analysis, never changing it).
"""
