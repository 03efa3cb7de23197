"""A tool called by its name in a test: the function that serves it.

MCP servers are tested through their client: ``await client.call_tool("jira_get_user_profile",
{...})`` runs the tool function ``get_user_profile`` (registered under a server prefix) and
the test reads the JSON it returned. Read as a call of ``call_tool``, the response had no
traceable producer; read as a call of the tool function, its readers follow that function
like any other caller: rewritten with it, left with it when it keeps its old shape.

Where the repository defines a function of the dispatcher's name itself (a test's own
client class with an ``async def call_tool(self, name, args)`` that builds its answers),
the call runs that function: its result is what that function returns, whatever tool it
names, and its readers follow it. A module function of that name elsewhere (an end-to-end
suite's ``async def call_tool(session, name, args)`` helper) is out of reach of
``client.call_tool(...)`` in a module that neither defines nor imports it: that call runs
the tool (mcp-atlassian).
"""

from __future__ import annotations

import re

import libcst as cst

from unsentinel.core.defined import DefinedNames
from unsentinel.core.syntax import string_value
from unsentinel.errors.candidates import TOOL_CALLS
from unsentinel.errors.shapes import call_name


def tool_called(call: cst.Call, defined: frozenset[str]) -> str | None:
    """The function the repository defines for the tool ``call`` names, if one matches:
    the name itself, or the name without its server prefix (``jira_`` of
    ``jira_get_user_profile``). None where the repository defines the dispatcher too."""
    dispatcher = call_name(call)
    if dispatcher not in TOOL_CALLS or dispatcher in defined or not call.args:
        return None
    first = call.args[0].value
    name = string_value(first) if isinstance(first, cst.SimpleString) else None
    if not isinstance(name, str):
        return None
    candidates = [name]
    if "_" in name:
        candidates.append(name.split("_", 1)[1])
    found = [candidate for candidate in candidates if candidate in defined]
    return found[0] if found else None


def callable_here(names: DefinedNames, text: str) -> frozenset[str]:
    """The repository's functions a call in the module ``text`` may run, for deciding
    whose a tool call is: a dispatcher (``call_tool``) the repository defines only as a
    module function counts where this module defines or imports it, not elsewhere.

    The repository's functions are asked about by name (each dispatcher here, each callee
    by the caller), never read whole: a function added elsewhere changes no answer this
    module's analysis was given (:mod:`unsentinel.core.asked`)."""
    out_of_reach = frozenset(
        dispatcher
        for dispatcher in TOOL_CALLS
        if dispatcher in names.functions
        and dispatcher not in names.methods
        and not _bound_here(dispatcher, text)
    )
    return names.functions - out_of_reach


def _bound_here(name: str, text: str) -> bool:
    """Does ``text`` define or import ``name`` (on a ``def`` or ``import`` line)?"""
    pattern = rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{name}\b|^[ \t]*(?:from|import)\b.*\b{name}\b"
    return re.search(pattern, text, re.MULTILINE) is not None
