"""Feature one: sentinel and plain warnings.

``warnings: list[str]`` entries (often prefixed ``BLOCK:``) become ``Warning(severity=...,
message=..., field_path=..., code=...)``; consumers, annotations and the sentinel constant
follow. ``analysis`` and ``flow`` say what holds warnings, ``facts`` carries what crosses
files, ``inference`` guesses severity / field_path / code, ``rules`` rewrite, ``emit``
writes ``warning_codes`` and the model.
"""
