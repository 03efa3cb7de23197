"""Feature two: ad-hoc error dicts.

``{"error": str(e)}``, ``{"success": False, "error": ...}`` and friends become the
``ErrorDetail`` envelope. ``shapes`` and ``lookalikes`` decide what is an error response,
``code`` infers the registry code, ``build`` writes the replacement, ``consumers`` and
``clients`` move the readers, ``emit`` writes ``error_codes`` and ``ErrorDetail``.
"""
