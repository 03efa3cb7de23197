"""Generate an MCP-server-like Python repository for the benchmark (deterministic, seeded).

    python benchmarks/generate.py OUT                      # ~1,000 modules, ~250k lines
    python benchmarks/generate.py OUT --modules 60 --big-lines 2000 --seed 7

The repository looks like a mid-sized MCP server: a package of tool, resource, client,
model and service modules. About 5% of the modules carry what unsentinel migrates --
``BLOCK_WARNING_PREFIX = "BLOCK: "`` constants, f-string producers appending to a
``warnings`` list, consumers testing ``w.startswith(BLOCK_WARNING_PREFIX)``,
``warnings: list[str]`` fields on pydantic models, and ad-hoc error dicts
(``return {"error": str(e)}``, ``{"success": False, "error": "..."}``). The rest is
ordinary code that still mentions ``warnings`` (``warnings.warn``), ``error``,
``BLOCKED`` and ``list[str]``, so a byte-level prefilter cannot dismiss it for free.
A few modules are large (``--big-lines``, 10,000 by default); the first of them is a
sentinel module with many sites.

The same ``--seed`` and sizes always give byte-identical output. ``generate()`` returns
a :class:`Manifest` listing every module with its role, for tests and the benchmark.
"""

# ruff: noqa: E501  (the templates hold the generated code lines verbatim)

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "harbor_mcp"
SENTINEL_CONSTANT = "BLOCK_WARNING_PREFIX"
SENTINEL_VALUE = "BLOCK: "
OVERSHOOT = 18
GUARDS_MODULE = f"{PACKAGE}/common/guards.py"

NOUNS = (
    "invoice",
    "shipment",
    "customer",
    "warehouse",
    "ticket",
    "subscription",
    "ledger",
    "payment",
    "product",
    "vendor",
    "contract",
    "order",
    "refund",
    "coupon",
    "project",
    "sprint",
    "deployment",
    "cluster",
    "bucket",
    "dataset",
    "report",
    "schedule",
    "route",
    "driver",
    "vehicle",
    "booking",
    "room",
    "patient",
    "claim",
    "policy",
    "account",
    "wallet",
    "transfer",
    "batch",
    "recipe",
    "supplier",
    "carrier",
    "parcel",
    "label",
    "review",
    "channel",
    "webhook",
    "token",
    "session",
    "workspace",
    "folder",
    "asset",
    "quote",
    "lease",
    "meter",
)
VERBS = (
    "create",
    "update",
    "cancel",
    "approve",
    "sync",
    "reconcile",
    "archive",
    "fetch",
    "list",
    "validate",
    "merge",
    "split",
    "assign",
    "release",
    "close",
    "reopen",
    "export",
    "ingest",
    "schedule",
    "transfer",
    "refresh",
    "publish",
    "retry",
    "tag",
)
PAST = {
    "create": "created",
    "update": "updated",
    "cancel": "cancelled",
    "approve": "approved",
    "sync": "synced",
    "reconcile": "reconciled",
    "archive": "archived",
    "fetch": "fetched",
    "list": "listed",
    "validate": "validated",
    "merge": "merged",
    "split": "split",
    "assign": "assigned",
    "release": "released",
    "close": "closed",
    "reopen": "reopened",
    "export": "exported",
    "ingest": "ingested",
    "schedule": "scheduled",
    "transfer": "transferred",
    "refresh": "refreshed",
    "publish": "published",
    "retry": "retried",
    "tag": "tagged",
}
QUALIFIERS = (
    "pending",
    "primary",
    "remote",
    "cached",
    "draft",
    "legacy",
    "partial",
    "nightly",
    "shared",
    "external",
    "default",
    "active",
    "stale",
    "bulk",
    "scoped",
)
AREAS = (
    "tools",
    "resources",
    "prompts",
    "clients",
    "models",
    "services",
    "storage",
    "handlers",
    "schemas",
    "utils",
    "integrations",
    "jobs",
)
MODULE_SUFFIXES = (
    "",
    "_tools",
    "_service",
    "_client",
    "_models",
    "_helpers",
    "_handlers",
    "_store",
    "_views",
    "_sync",
    "_rules",
    "_adapter",
    "_queries",
    "_api",
    "_cache",
)
EXCEPTIONS = ("LookupError", "KeyError", "ValueError", "TimeoutError", "PermissionError")


def camel(*words: str) -> str:
    return "".join(part.capitalize() for word in words for part in word.split("_"))


@dataclass(frozen=True)
class Spec:
    """What to generate. ``big_modules=None`` means about 3 per 1,000 modules (at least 1)."""

    modules: int = 1000
    seed: int = 11
    sentinel_share: float = 0.05
    lines_per_module: int = 250
    big_modules: int | None = None
    big_lines: int = 10_000

    def big_count(self) -> int:
        if self.big_modules is not None:
            return min(self.big_modules, self.modules)
        return min(self.modules, max(1, round(self.modules * 3 / 1000)))

    def sentinel_count(self) -> int:
        return min(self.modules, max(1, round(self.modules * self.sentinel_share)))


@dataclass(frozen=True)
class ModuleInfo:
    path: str  # relative to the repository root, POSIX separators
    sentinel: bool
    big: bool
    lines: int


@dataclass
class Manifest:
    root: Path
    modules: list[ModuleInfo] = field(default_factory=list)
    extra_files: list[str] = field(default_factory=list)  # __init__.py, pyproject.toml

    @property
    def lines(self) -> int:
        return sum(module.lines for module in self.modules)

    def sentinel_modules(self) -> list[ModuleInfo]:
        return [module for module in self.modules if module.sentinel]

    def big_module_paths(self) -> list[str]:
        return [module.path for module in self.modules if module.big]


@dataclass
class Fragment:
    """A piece of a module: its lines and the import lines it needs."""

    lines: list[str]
    imports: set[str] = field(default_factory=set)


class Namer:
    """Hands out identifiers that are unique within one module."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.taken: set[str] = set()

    def unique(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}_{n}", n + 1
        self.taken.add(candidate)
        return candidate

    def noun(self) -> str:
        return self.rng.choice(NOUNS)

    def verb(self) -> str:
        return self.rng.choice(VERBS)

    def qualifier(self) -> str:
        return self.rng.choice(QUALIFIERS)


# -- ordinary fragments: they mention warnings, error, BLOCKED and list[str] -----------


def record_class(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(camel(namer.qualifier(), noun, "record"))
    extra = namer.noun()
    return Fragment(
        [
            "@dataclass",
            f"class {name}:",
            f'    """A {noun} as the upstream API returns it, trimmed to what the tools use."""',
            "",
            "    id: int",
            "    name: str",
            f"    {extra}_id: int | None = None",
            "    tags: list[str] = field(default_factory=list)",
            "    error_count: int = 0",
            "",
            "    def label(self) -> str:",
            '        suffix = f" ({len(self.tags)} tags)" if self.tags else ""',
            f'        return f"{noun} #{{self.id}} {{self.name}}{{suffix}}"',
            "",
            "    def has_errors(self) -> bool:",
            "        return self.error_count > 0",
        ],
        {"from dataclasses import dataclass, field"},
    )


def status_enum(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(camel(noun, namer.rng.choice(("status", "state", "phase"))))
    states = ["OPEN", "IN_PROGRESS", "BLOCKED", "DONE", "FAILED"]
    namer.rng.shuffle(states)
    body = [f'    {state} = "{state.lower()}"' for state in states[: namer.rng.randint(3, 5)]]
    if not any("BLOCKED" in line for line in body):
        body.append('    BLOCKED = "blocked"')
    return Fragment(
        [f"class {name}(str, Enum):", f'    """Lifecycle of a {noun}."""', "", *body],
        {"from enum import Enum"},
    )


def deprecated_alias(namer: Namer, noun: str) -> Fragment:
    verb = namer.verb()
    new = namer.unique(f"{verb}_{noun}")
    old = namer.unique(f"{verb}_{noun}_legacy")
    return Fragment(
        [
            f"def {new}(items: list[str], *, limit: int = 50) -> list[str]:",
            f'    """Return the {noun} keys to {verb}, de-duplicated and capped at ``limit``."""',
            "    seen: dict[str, None] = {}",
            "    for item in items:",
            "        key = item.strip().lower()",
            "        if key and key not in seen:",
            "            seen[key] = None",
            "    return list(seen)[:limit]",
            "",
            "",
            f"def {old}(items: list[str]) -> list[str]:",
            "    warnings.warn(",
            f'        "{old}() is deprecated; call {new}() instead",',
            "        DeprecationWarning,",
            "        stacklevel=2,",
            "    )",
            f"    return {new}(items)",
        ],
        {"import warnings"},
    )


def quiet_call(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(f"load_{noun}_{namer.qualifier()}")
    category = namer.rng.choice(("ResourceWarning", "UserWarning", "FutureWarning"))
    return Fragment(
        [
            f"def {name}(path: str) -> list[str]:",
            f'    """Read {noun} lines from ``path`` without the noise of {category}."""',
            "    with warnings.catch_warnings():",
            f'        warnings.simplefilter("ignore", {category})',
            '        with open(path, encoding="utf-8") as handle:',
            "            rows = [line.rstrip() for line in handle]",
            "    return [row for row in rows if row and not row.startswith('#')]",
        ],
        {"import warnings"},
    )


def logged_operation(namer: Namer, noun: str) -> Fragment:
    verb = namer.verb()
    name = namer.unique(f"{verb}_{noun}_safely")
    error_class = namer.unique(camel(noun, "error"))
    exception = namer.rng.choice(EXCEPTIONS)
    return Fragment(
        [
            f"class {error_class}(RuntimeError):",
            f'    """Raised when a {noun} cannot be {PAST[verb]}."""',
            "",
            "",
            f"def {name}(client: Any, {noun}_id: int, attempts: int = 3) -> dict[str, Any]:",
            "    last_error: Exception | None = None",
            "    for attempt in range(1, attempts + 1):",
            "        try:",
            f"            return client.{verb}_{noun}({noun}_id)",
            f"        except {exception} as error:",
            "            last_error = error",
            f'            logger.error("{verb} {noun} %s failed (attempt %d): %s", {noun}_id, attempt, error)',
            f'    raise {error_class}(f"could not {verb} {noun} {{{noun}_id}}") from last_error',
        ],
        {"import logging", "from typing import Any", "logger = logging.getLogger(__name__)"},
    )


def error_counter(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(camel(noun, namer.rng.choice(("stats", "counters", "tally"))))
    return Fragment(
        [
            f"class {name}:",
            f'    """Counts how {noun} calls went, for the health resource."""',
            "",
            "    def __init__(self) -> None:",
            "        self.calls = 0",
            "        self.errors: list[str] = []",
            "        self.blocked = 0",
            "",
            '    def record(self, outcome: str, detail: str = "") -> None:',
            "        self.calls += 1",
            '        if outcome == "error":',
            "            self.errors.append(detail)",
            '        elif outcome == "BLOCKED":',
            "            self.blocked += 1",
            "",
            "    @property",
            "    def error_rate(self) -> float:",
            "        return len(self.errors) / self.calls if self.calls else 0.0",
            "",
            "    def summary(self) -> list[str]:",
            '        return [f"calls={self.calls}", f"errors={len(self.errors)}", f"blocked={self.blocked}"]',
        ],
    )


def problem_list(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(f"{noun}_problems")
    other = namer.noun()
    return Fragment(
        [
            f"def {name}(payload: dict[str, Any]) -> list[str]:",
            f'    """Describe what is wrong with a {noun} payload; empty when it is fine."""',
            "    problems: list[str] = []",
            f'    if not payload.get("{noun}_id"):',
            f'        problems.append("{noun}_id is missing")',
            f'    if payload.get("{other}_id") is not None and not isinstance(payload["{other}_id"], int):',
            f"        problems.append(f\"{other}_id must be an integer, got {{payload['{other}_id']!r}}\")",
            '    for key in sorted(set(payload) - {"name", "notes"}):',
            '        if key.endswith("_at") and not str(payload[key]).strip():',
            '            problems.append(f"{key} is empty")',
            "    return problems",
        ],
        {"from typing import Any"},
    )


def computation(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(f"{namer.rng.choice(('score', 'rank', 'weigh', 'bucket'))}_{noun}s")
    width = namer.rng.randint(3, 9)
    return Fragment(
        [
            f"def {name}(values: list[float], *, width: int = {width}) -> dict[str, float]:",
            f'    """Summary statistics of {noun} values in windows of ``width``."""',
            "    if not values:",
            '        return {"count": 0.0, "mean": 0.0, "peak": 0.0}',
            "    windows = [values[i : i + width] for i in range(0, len(values), width)]",
            "    means = [sum(window) / len(window) for window in windows]",
            "    total = sum(values)",
            "    return {",
            '        "count": float(len(values)),',
            '        "mean": total / len(values),',
            '        "peak": max(means),',
            '        "spread": max(values) - min(values),',
            "    }",
        ],
    )


def async_handler(namer: Namer, noun: str) -> Fragment:
    verb = namer.verb()
    name = namer.unique(f"handle_{verb}_{noun}")
    return Fragment(
        [
            f"async def {name}(client: Any, arguments: dict[str, Any]) -> dict[str, Any]:",
            f'    """MCP handler: {verb} one {noun} and report what changed."""',
            f'    {noun}_id = int(arguments["{noun}_id"])',
            f"    before = await client.get_{noun}({noun}_id)",
            '    if before.get("state") == "BLOCKED":',
            f'        return {{"id": {noun}_id, "changed": False, "state": "BLOCKED"}}',
            f"    after = await client.{verb}_{noun}({noun}_id, **arguments.get('fields', {{}}))",
            "    changed = sorted(k for k in after if after.get(k) != before.get(k))",
            f'    return {{"id": {noun}_id, "changed": bool(changed), "fields": changed}}',
        ],
        {"from typing import Any"},
    )


def constants_block(namer: Namer, noun: str) -> Fragment:
    upper = noun.upper()
    qualifier = namer.qualifier().upper()
    return Fragment(
        [
            f"DEFAULT_{upper}_PAGE_SIZE = {namer.rng.choice((25, 50, 100, 200))}",
            f"{qualifier}_{upper}_TIMEOUT = {namer.rng.randint(2, 60)}.0",
            f'{upper}_STATES: tuple[str, ...] = ("open", "BLOCKED", "closed")',
            f'{upper}_ERROR_FIELDS: list[str] = ["code", "message", "{noun}_id"]',
        ],
    )


def documented_service(namer: Namer, noun: str) -> Fragment:
    name = namer.unique(camel(noun, namer.rng.choice(("service", "manager", "registry"))))
    lines = [
        f"class {name}:",
        f'    """In-memory {noun} bookkeeping used by the tools and their tests.',
        "",
        "    Nothing here talks to the network; the client layer does that.",
        '    """',
        "",
        "    def __init__(self) -> None:",
        "        self._items: dict[int, dict[str, Any]] = {}",
        "        self._next_id = 1",
        "",
    ]
    for _ in range(namer.rng.randint(2, 5)):
        verb = namer.verb()
        method = namer.unique(f"{verb}_{namer.qualifier()}")
        lines += [
            f"    def {method}(self, item_id: int, **changes: Any) -> dict[str, Any]:",
            f'        """{verb.capitalize()} the {noun} ``item_id`` (a KeyError if unknown)."""',
            "        item = self._items[item_id]",
            "        item.update(changes)",
            f'        item.setdefault("history", []).append("{PAST[verb]}")',
            "        return item",
            "",
        ]
    lines += [
        "    def add(self, **fields: Any) -> int:",
        "        item_id = self._next_id",
        '        self._items[item_id] = {"id": item_id, **fields}',
        "        self._next_id += 1",
        "        return item_id",
    ]
    return Fragment(lines, {"from typing import Any"})


ORDINARY: tuple[Callable[[Namer, str], Fragment], ...] = (
    record_class,
    status_enum,
    deprecated_alias,
    quiet_call,
    logged_operation,
    error_counter,
    problem_list,
    computation,
    async_handler,
    constants_block,
    documented_service,
)


# -- sentinel fragments: what unsentinel migrates --------------------------------------


def prefix_import(local: bool) -> set[str]:
    if local:
        return set()
    return {f"from {PACKAGE}.common.guards import {SENTINEL_CONSTANT}"}


def response_model(namer: Namer, noun: str, verb: str) -> Fragment:
    name = camel(verb, noun, "response")
    if name in namer.taken:
        return Fragment([])
    namer.taken.add(name)
    field_line = namer.rng.choice(
        (
            "    warnings: list[str] = Field(default_factory=list)",
            '    warnings: list[str] = Field(default_factory=list, description="BLOCK: entries stop the apply call.")',
            "    warnings: list[str] = []",
        )
    )
    return Fragment(
        [
            f"class {name}(BaseModel):",
            f"    {noun}_id: int",
            "    is_preview: bool = True",
            field_line,
            "    next_actions: list[str] = Field(default_factory=list)",
        ],
        {"from pydantic import BaseModel, Field"},
    )


def producer(namer: Namer, noun: str, local: bool) -> Fragment:
    verb = namer.verb()
    model = response_model(namer, noun, verb)
    name = namer.unique(f"{verb}_{noun}")
    limit = namer.rng.choice((10, 25, 100, 500))
    response = camel(verb, noun, "response")
    literal = namer.rng.random() < 0.3
    block_unknown = (
        f'"BLOCK: {noun} {{request.{noun}_id}} does not exist."'
        if literal
        else f'f"{{{SENTINEL_CONSTANT}}}{noun} {{request.{noun}_id}} does not exist."'
    )
    if literal:
        block_unknown = "f" + block_unknown
    lines = (
        model.lines
        + ([""] * 2 if model.lines else [])
        + [
            f"def {name}(request: Any, client: Any) -> {response}:",
            f'    """{verb.capitalize()} a {noun}; with ``preview=True`` only report what would happen."""',
            f"    record = client.get_{noun}(request.{noun}_id)",
            "    warnings: list[str] = []",
            "    if record is None:",
            f"        warnings.append({block_unknown})",
            f"        return {response}({noun}_id=request.{noun}_id, warnings=warnings)",
            '    if record.get("status") == "archived":',
            f"        warnings.append(f\"{{{SENTINEL_CONSTANT}}}{noun} {{record['id']}} is archived and cannot be {PAST[verb]}.\")",
            "    for i, line in enumerate(request.lines):",
            "        if line.quantity <= 0:",
            f'            warnings.append(f"{{{SENTINEL_CONSTANT}}}Line {{i + 1}}: quantity must be positive.")',
            f"        elif line.quantity > {limit}:",
            f'            warnings.append(f"Line {{i + 1}}: {{line.quantity}} is above the usual {limit}; double-check it.")',
            f"    if request.preview or any(w.startswith({SENTINEL_CONSTANT}) for w in warnings):",
            f"        return {response}({noun}_id=record['id'], is_preview=True, warnings=warnings)",
            f"    client.{verb}_{noun}(record['id'], [line.quantity for line in request.lines])",
            f"    return {response}({noun}_id=record['id'], is_preview=False, warnings=warnings)",
        ]
    )
    return Fragment(lines, model.imports | prefix_import(local) | {"from typing import Any"})


def consumer(namer: Namer, noun: str, local: bool) -> Fragment:
    blocking = namer.unique(f"{noun}_is_blocked")
    reasons = namer.unique(f"{noun}_block_reasons")
    advisory = namer.unique(f"{noun}_advisories")
    return Fragment(
        [
            f"def {blocking}(warnings: list[str]) -> bool:",
            f"    return any(w.startswith({SENTINEL_CONSTANT}) for w in warnings)",
            "",
            "",
            f"def {reasons}(warnings: list[str]) -> list[str]:",
            f"    return [w[len({SENTINEL_CONSTANT}) :].strip() for w in warnings if w.startswith({SENTINEL_CONSTANT})]",
            "",
            "",
            f"def {advisory}(response: Any) -> list[str]:",
            '    """Warnings the UI shows without disabling the confirm button."""',
            f"    return [w for w in response.warnings if not w.startswith({SENTINEL_CONSTANT})]",
        ],
        prefix_import(local) | {"from typing import Any"},
    )


def error_tool(namer: Namer, noun: str) -> Fragment:
    verb = namer.verb()
    name = namer.unique(f"{verb}_{noun}_tool")
    exception = namer.rng.choice(EXCEPTIONS)
    variable = namer.rng.choice(("e", "exc", "err"))
    return Fragment(
        [
            f"def {name}(arguments: dict[str, Any], service: Any) -> dict[str, Any]:",
            f'    """MCP tool: {verb} a {noun}. Failures come back as ``{{"error": ...}}``."""',
            f'    {noun}_id = arguments.get("{noun}_id")',
            f"    if {noun}_id is None:",
            f'        return {{"success": False, "error": "{noun}_id is required"}}',
            "    try:",
            f"        result = service.{verb}(int({noun}_id))",
            f"    except {exception} as {variable}:",
            f'        return {{"error": str({variable})}}',
            f"    except (TypeError, ValueError) as {variable}:",
            f'        return {{"success": False, "error": f"invalid {noun}_id: {{{variable}}}"}}',
            f'    return {{"success": True, "{noun}": result}}',
        ],
        {"from typing import Any"},
    )


def row_checker(namer: Namer, noun: str, local: bool) -> Fragment:
    name = namer.unique(f"{noun}_{namer.qualifier()}_row_warnings")
    limit = namer.rng.choice((5, 12, 40, 250))
    return Fragment(
        [
            f"def {name}(rows: list[Any], *, hard_limit: int = {limit}) -> list[str]:",
            f'    """Row-level checks shared by the {noun} tools (merged into their warnings)."""',
            "    warnings: list[str] = []",
            "    seen: set[int] = set()",
            "    for row in rows:",
            "        if row.id in seen:",
            '            warnings.append("BLOCK: the same row is listed twice; remove the duplicate.")',
            "        seen.add(row.id)",
            "        if row.quantity > hard_limit:",
            f'            warnings.append({SENTINEL_CONSTANT} + f"row {{row.id}}: {{row.quantity}} exceeds {{hard_limit}}.")',
            "        elif not row.note:",
            '            warnings.append(f"row {row.id} has no note; the packing slip will be blank.")',
            "    return warnings",
        ],
        prefix_import(local) | {"from typing import Any"},
    )


SentinelMaker = Callable[[Namer, str, bool], Fragment]


def sentinel_makers() -> tuple[SentinelMaker, ...]:
    return (
        producer,
        consumer,
        row_checker,
        lambda namer, noun, local: error_tool(namer, noun),
    )


# -- modules ----------------------------------------------------------------------------


def render(docstring: str, imports: set[str], body: list[Fragment], head: list[str]) -> str:
    """Lay out a module: docstring, imports (stdlib, third party, ours), head, fragments."""
    statements = [line for line in imports if line.startswith(("import ", "from "))]
    assignments = sorted(line for line in imports if line not in statements)
    lines = [f'"""{docstring}"""', "", "from __future__ import annotations"]
    for group in (0, 1, 2):
        chosen = sorted(line for line in statements if import_group(line) == group)
        lines += ["", *chosen] if chosen else []
    if assignments:
        lines += ["", *assignments]
    if head:
        lines += ["", *head]
    for fragment in body:
        if fragment.lines:
            lines += ["", "", *fragment.lines]
    return "\n".join(lines) + "\n"


def import_group(line: str) -> int:
    """0 for the standard library, 1 for pydantic, 2 for our own package."""
    module = line.split()[1]
    return 2 if module.startswith(PACKAGE) else 1 if module.startswith("pydantic") else 0


def count_lines(fragments: list[Fragment]) -> int:
    return sum(len(fragment.lines) + 2 for fragment in fragments)


def build_module(rng: random.Random, noun: str, target: int, sentinel: bool) -> str:
    namer = Namer(rng)
    local = sentinel and rng.random() < 0.4
    head = [f'{SENTINEL_CONSTANT} = "{SENTINEL_VALUE}"'] if local else []
    fragments: list[Fragment] = []
    makers = sentinel_makers()
    if sentinel:
        # every sentinel module has at least one producer; consumers and error tools vary
        fragments.append(producer(namer, noun, local))
    while count_lines(fragments) < target:
        if sentinel and rng.random() < 0.35:
            fragments.append(rng.choice(makers)(namer, rng.choice((noun, namer.noun())), local))
        else:
            fragments.append(rng.choice(ORDINARY)(namer, rng.choice((noun, noun, namer.noun()))))
    imports = {line for fragment in fragments for line in fragment.imports}
    kind = "tools that return previews with warnings" if sentinel else "helpers"
    docstring = f"{noun.capitalize()} {kind} for the {PACKAGE} server."
    return render(docstring, imports, fragments, head)


def guards_module() -> str:
    return "\n".join(
        [
            '"""Shared guard helpers: the marker that makes an apply call refuse."""',
            "",
            "from __future__ import annotations",
            "",
            f'{SENTINEL_CONSTANT} = "{SENTINEL_VALUE}"',
            "",
            "",
            "def refuse_if_blocked(tool: str, warnings: list[str]) -> None:",
            f"    blocking = [w for w in warnings if w.startswith({SENTINEL_CONSTANT})]",
            "    if blocking:",
            '        raise RuntimeError(f"{tool} refused: " + "; ".join(blocking))',
            "",
        ]
    )


def module_paths(rng: random.Random, count: int) -> Iterator[tuple[str, str]]:
    """Unique (relative path, main noun) pairs spread over the package's areas."""
    seen: set[str] = set()
    while len(seen) < count:
        area, noun = rng.choice(AREAS), rng.choice(NOUNS)
        stem = f"{noun}{rng.choice(MODULE_SUFFIXES)}"
        if rng.random() < 0.3:
            stem = f"{rng.choice(QUALIFIERS)}_{stem}"
        path = f"{PACKAGE}/{area}/{stem}.py"
        if path in seen or path == GUARDS_MODULE:
            continue
        seen.add(path)
        yield path, noun


def plan_modules(spec: Spec) -> list[tuple[str, str, bool, bool, int]]:
    """(path, noun, sentinel, big, target lines) for each module, in a seeded order."""
    rng = random.Random(f"{spec.seed}:layout")
    paths = list(module_paths(rng, spec.modules - 1))
    big = spec.big_count()
    ordinary_total = spec.modules * spec.lines_per_module - big * spec.big_lines
    # a module overshoots its target by about half a fragment plus its header
    average = max(40, ordinary_total // max(1, spec.modules - big) - OVERSHOOT)
    indices = list(range(len(paths)))
    rng.shuffle(indices)
    big_indices = set(indices[:big])
    # the guards module counts as one sentinel module; the first big module is the next
    others = spec.sentinel_count() - 1
    sentinel_indices = set(indices[: min(1, others)]) | set(indices[big : big + others - 1])
    planned = [(GUARDS_MODULE, "guard", True, False, 12)]
    for index, (path, noun) in enumerate(paths):
        is_big = index in big_indices
        target = spec.big_lines if is_big else int(average * rng.uniform(0.25, 1.75))
        planned.append((path, noun, index in sentinel_indices, is_big, target))
    return planned


def generate(root: Path, spec: Spec = Spec()) -> Manifest:
    """Write the repository under ``root`` (created if missing) and describe it."""
    manifest = Manifest(root)
    root.mkdir(parents=True, exist_ok=True)
    write(root, "pyproject.toml", pyproject(), manifest.extra_files)
    packages: set[str] = set()
    for path, noun, sentinel, big, target in plan_modules(spec):
        rng = random.Random(f"{spec.seed}:{path}")
        text = (
            guards_module() if path == GUARDS_MODULE else build_module(rng, noun, target, sentinel)
        )
        write(root, path, text, None)
        manifest.modules.append(ModuleInfo(path, sentinel, big, text.count("\n")))
        parts = path.split("/")[:-1]
        packages.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    for package in sorted(packages):
        init = f"{package}/__init__.py"
        write(root, init, f'"""The {package.replace("/", ".")} package."""\n', manifest.extra_files)
    return manifest


def write(root: Path, relative: str, text: str, record: list[str] | None) -> None:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    if record is not None:
        record.append(relative)


def pyproject() -> str:
    return "\n".join(
        [
            "[project]",
            f'name = "{PACKAGE.replace("_", "-")}"',
            'version = "2.3.0"',
            'description = "A generated MCP server, for benchmarking unsentinel"',
            'requires-python = ">=3.10"',
            'dependencies = ["pydantic>=2"]',
            "",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write (created if missing)")
    parser.add_argument("--modules", type=int, default=Spec.modules)
    parser.add_argument("--seed", type=int, default=Spec.seed)
    parser.add_argument("--sentinel-share", type=float, default=Spec.sentinel_share)
    parser.add_argument("--lines-per-module", type=int, default=Spec.lines_per_module)
    parser.add_argument("--big-modules", type=int, default=None)
    parser.add_argument("--big-lines", type=int, default=Spec.big_lines)
    args = parser.parse_args(argv)
    spec = Spec(
        modules=args.modules,
        seed=args.seed,
        sentinel_share=args.sentinel_share,
        lines_per_module=args.lines_per_module,
        big_modules=args.big_modules,
        big_lines=args.big_lines,
    )
    manifest = generate(args.out, spec)
    print(
        f"{len(manifest.modules)} modules ({len(manifest.sentinel_modules())} with sentinels), "
        f"{manifest.lines:,} lines, big: {', '.join(manifest.big_module_paths()) or 'none'}"
    )


if __name__ == "__main__":
    main()
