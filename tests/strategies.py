"""Hypothesis strategies: realistic modules to migrate, look-alikes to leave alone, and noise.

A generated module is a header (BOM, shebang, coding cookie, docstring, ``__future__``
import, the sentinel constant), then fragments in random order separated by blank lines,
then encoded with the chosen line endings, indentation and encoding. Fragments are written
with four-space indentation and re-indented, so every shape also appears with tabs.

* :data:`MIGRATABLE` fragments are the shapes the rules rewrite (rule examples and the
  ``mcp_orders`` / ``error_service`` fixtures): warning producers (UNS101/UNS102),
  consumers (UNS201), annotations (UNS301), error dicts (UNS501).
* :data:`LOOKALIKES` look like them but must stay byte-for-byte as they are.
* :data:`NOISE` is arbitrary surrounding code: decorators, classes, comments, nested
  f-strings, unicode, ``match``, ``async``, line continuations.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

Draw = st.DrawFn

# Words for messages and names. Non-ASCII ones exercise encodings; none may contain quotes,
# backslashes or braces, which would need escaping inside the literals they land in.
WORDS = (
    "order",
    "is",
    "empty",
    "already",
    "completed",
    "row",
    "quantity",
    "exceeds",
    "stock",
    "missing",
    "location",
    "sku",
    "not",
    "found",
    "preview",
    "cached",
    "dry-run",
    "over",
    "café",
    "naïve",
    "größe",
    "日本語",
    "ошибка",
    "Δx",
    "🚚",
    "ok",
    "100%",
    "a-b",
    "x/y",
)
LATIN1_WORDS = tuple(w for w in WORDS if all(ord(c) < 256 for c in w))
NAMES = ("order_no", "sku", "item", "row", "qty", "location", "note_id", "café", "größe")
FUNCS = ("complete", "check_rows", "build", "validate", "résumé", "preview_po", "receive")


@dataclass(frozen=True)
class Options:
    """How a module is laid out on disk."""

    newline: str  # "\n", "\r\n" or "mixed"
    indent: str
    bom: bool
    cookie: str | None  # encoding named in a PEP 263 cookie, if any
    latin1: bool  # restrict words to latin-1 so a latin-1 cookie can encode them


@st.composite
def options(draw: Draw) -> Options:
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "mixed"]))
    indent = draw(st.sampled_from(["    ", "    ", "\t", "  "]))
    cookie = draw(st.sampled_from([None, None, "utf-8", "latin-1"]))
    bom = cookie != "latin-1" and draw(st.booleans())
    return Options(str(newline), str(indent), bool(bom), cookie, cookie == "latin-1")


def _words(opts: Options, low: int = 1, high: int = 6) -> st.SearchStrategy[str]:
    vocabulary = LATIN1_WORDS if opts.latin1 else WORDS
    return st.lists(st.sampled_from(vocabulary), min_size=low, max_size=high).map(" ".join)


def _name(opts: Options, pool: tuple[str, ...] = NAMES) -> st.SearchStrategy[str]:
    return st.sampled_from([n for n in pool if not opts.latin1 or all(ord(c) < 256 for c in n)])


Fragment = Callable[[Draw, Options], str]


def _t(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


# -- shapes the rules migrate -------------------------------------------------------------


def producer_fstring_constant(draw: Draw, o: Options) -> str:
    fn, name, msg = draw(_name(o, FUNCS)), draw(_name(o)), draw(_words(o))
    return _t(f"""
        def {fn}({name}, warnings):
            warnings.append(f"{{BLOCK_WARNING_PREFIX}} MO {{{name}}} {msg}.")
        """)


def producer_literal_in_local_list(draw: Draw, o: Options) -> str:
    fn, msg = draw(_name(o, FUNCS)), draw(_words(o))
    annotation = draw(st.sampled_from(["", ": list[str]"]))
    return _t(f"""
        def {fn}_local():
            warnings{annotation} = []
            warnings.append("BLOCK: {msg}")
            return warnings
        """)


def producer_plain_info(draw: Draw, o: Options) -> str:
    msg = draw(_words(o))
    keyword = draw(st.sampled_from(["Preview only -", "Dry run:", "Using the default", "cached"]))
    return _t(f'''
        warnings = []
        warnings.append("{keyword} {msg}")
        ''')


def producer_loop_field_path(draw: Draw, o: Options) -> str:
    fn, msg = draw(_name(o, FUNCS)), draw(_words(o))
    return _t(f"""
        def {fn}_rows(rows):
            warnings: list[str] = []
            for i, row in enumerate(rows):
                if row.quantity < 0:
                    warnings.append(f"BLOCK: rows[{{i}}].quantity {msg}")
            return warnings
        """)


def producer_extend_and_concat(draw: Draw, o: Options) -> str:
    fn, first, second = draw(_name(o, FUNCS)), draw(_words(o)), draw(_words(o))
    return _t(f'''
        def {fn}_many(sku, warnings):
            warnings.extend(
                [
                    f"{{BLOCK_WARNING_PREFIX}} {{sku}} {first} "
                    "{second}",
                    "{second}",
                ]
            )
        ''')


def producer_conditional_and_augmented(draw: Draw, o: Options) -> str:
    fn, first, second = draw(_name(o, FUNCS)), draw(_words(o)), draw(_words(o))
    return _t(f'''
        def {fn}_cond(flag, warnings):
            warnings.append("BLOCK: {first}" if flag else "{second}")
            warnings += [f"{{BLOCK_WARNING_PREFIX}} {second}"]
        ''')


def producer_model_keyword(draw: Draw, o: Options) -> str:
    name, msg = draw(_name(o)), draw(_words(o))
    return _t(f"""
        def respond({name}):
            return Response(
                ok=False,
                warnings=[f"{{BLOCK_WARNING_PREFIX}} {{{name}}} {msg}"],  # trailing comment
            )
        """)


def consumers(draw: Draw, o: Options) -> str:
    shape = draw(
        st.sampled_from(
            [
                "blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in resp.warnings)",
                "ok = [w for w in resp.warnings if not w.startswith(BLOCK_WARNING_PREFIX)]",
                "texts = [w[len(BLOCK_WARNING_PREFIX):].strip() for w in resp.warnings]",
                'lines = [f"- {w}" for w in warnings]',
                'blocked = any(w.startswith("BLOCK:") for w in data["warnings"])',
            ]
        )
    )
    return _t(f"""
        def render(resp, data, warnings):
            {shape}
            return locals()
        """)


def annotation(draw: Draw, o: Options) -> str:
    cls = draw(st.sampled_from(["Response", "PreviewResult", "Réponse"]))
    return _t(f'''
        class {cls}(BaseModel):
            """A tool response."""

            warnings: list[str] = Field(default_factory=list, description="Problems.")
            next_actions: list[str] = Field(default_factory=list)
        ''')


def error_in_except(draw: Draw, o: Options) -> str:
    fn = draw(_name(o, FUNCS))
    return _t(f"""
        def {fn}_get(note_id):
            try:
                return store.get(note_id)
            except LookupError as e:
                return {{"error": str(e)}}
        """)


def error_jsonify(draw: Draw, o: Options) -> str:
    fn, msg = draw(_name(o, FUNCS)), draw(_words(o))
    return _t(f"""
        def {fn}_note(note_id):
            return jsonify({{"message": f"Note {{note_id}} {msg}"}}), 404
        """)


def error_ok_false(draw: Draw, o: Options) -> str:
    fn, msg = draw(_name(o, FUNCS)), draw(_words(o))
    return _t(f"""
        def {fn}_create(payload):
            if not payload:
                return {{"ok": False, "message": "title is required {msg}"}}
            return {{"ok": True}}
        """)


def error_dumps(draw: Draw, o: Options) -> str:
    msg = draw(_words(o))
    return _t(f"""
        def push(body):
            return json.dumps({{"error": "webhook signature mismatch {msg}"}}), 401
        """)


def error_commented(draw: Draw, o: Options) -> str:
    fn, msg, note = draw(_name(o, FUNCS)), draw(_words(o)), draw(_words(o))
    flag = draw(st.sampled_from(['"success": False,  # {}', '"ok": False,', "# {}"]))
    return _t(f"""
        def {fn}_commented(sku):
            return {{  # {note}
                {flag.format(note)}
                # {note}
                "error": "{msg} not found",  # {note}
                "sku": sku,  # {note}
                # {note}
            }}
        """)


def producer_commented(draw: Draw, o: Options) -> str:
    fn, msg, note = draw(_name(o, FUNCS)), draw(_words(o)), draw(_words(o))
    return _t(f"""
        def {fn}_noted(warnings):
            warnings.append(
                # {note}
                "BLOCK: {msg}"  # {note}
            )
            warnings.extend([
                "Using the default {msg}",  # {note}
                # {note}
            ])
        """)


MIGRATABLE: tuple[Fragment, ...] = (
    producer_fstring_constant,
    producer_literal_in_local_list,
    producer_plain_info,
    producer_loop_field_path,
    producer_extend_and_concat,
    producer_conditional_and_augmented,
    producer_model_keyword,
    consumers,
    annotation,
    error_in_except,
    error_jsonify,
    error_ok_false,
    error_dumps,
    error_commented,
    producer_commented,
)

# -- look-alikes: must come back byte-for-byte ---------------------------------------------


def lookalike_strings(draw: Draw, o: Options) -> str:
    msg = draw(_words(o))
    return _t(f"""
        label = b"BLOCK: raw bytes {msg.encode("ascii", "replace").decode()}"
        logger.info("the BLOCK: prefix {msg}")
        next_actions.append("call again: {msg}")
        if mo["status"] == "BLOCKED":
            pass
        # BLOCK: {msg} in a comment, and {{"error": "x"}} too
        """)


def lookalike_docstring(draw: Draw, o: Options) -> str:
    msg = draw(_words(o))
    return _t(f'''
        def documented():
            """Returns ``{{"error": "note 7 not found"}}``; BLOCK: {msg} stops it."""
            return None
        ''')


def lookalike_dicts(draw: Draw, o: Options) -> str:
    return draw(
        st.sampled_from(
            [
                _t('labels = {"tool": name, "status": "error"}'),
                _t('text = "[%(error)s]" % {"error": exc}'),
                _t('summary = {"error": 0, "warning": 0}'),
                _t('HANDLERS = {"error": handle_error, "info": handle_info}'),
                _t("""
                    def f(name, crash):
                        log.warning("failed", extra={"error": str(crash)})
                    """),
                _t(
                    "def rpc(mid):\n"
                    '    return {"jsonrpc": "2.0", "id": mid, '
                    '"error": {"code": -32601, "message": "Method not found"}}\n'
                ),
                _t("""
                    def batch(results, index):
                        results.append({"index": index, "error": "missing title"})
                        return {"success": True, "results": results}
                    """),
                _t("""
                    def health(down):
                        return jsonify({"status": "error" if down else "ok"})
                    """),
            ]
        )
    )


def lookalike_migrated(draw: Draw, o: Options) -> str:
    migrated = 'Warning(severity="blocking", message="x", field_path=None, code=warning_codes.X)'
    return _t(f"""
        def already(warnings):
            warnings.append({migrated})
            blocked = any(w.severity == "blocking" for w in warnings)
            return blocked
        """)


LOOKALIKES: tuple[Fragment, ...] = (
    lookalike_strings,
    lookalike_docstring,
    lookalike_dicts,
    lookalike_migrated,
)

# -- arbitrary surrounding code -------------------------------------------------------------


def noise_class(draw: Draw, o: Options) -> str:
    cls, comment = draw(_name(o, ("Thing", "Größe", "名前"))), draw(_words(o))
    return _t(f"""
        @dataclasses.dataclass(frozen=True)
        class {cls}:  # {comment}
            size: int = 0

            @property
            def double(self) -> int:
                # {comment}
                return self.size * 2

            @staticmethod
            def make(*args, **kwargs):
                return {cls}(*args, **kwargs)
        """)


def noise_fstrings(draw: Draw, o: Options) -> str:
    msg = draw(_words(o))
    return _t(f'''
        width = 10
        text = f"{{width!r:>{{width}}}} {{f'{{width}}'}} {msg} {{'BLOCK' + ':'}}"
        raw = rf"\\d+ {{width}}"
        tpl = """multi
        line {msg}
          indented"""
        ''')


def noise_flow(draw: Draw, o: Options) -> str:
    name = draw(_name(o))
    return _t(f"""
        async def fetch({name}, *, retries=3):
            async with session() as s:
                try:
                    if (n := len(s)) > retries:
                        return [x async for x in s]
                except (OSError, ValueError):
                    raise
                else:
                    pass
                finally:
                    await s.close()
            total = 1 + \\
                2
            return lambda y=total: y
        """)


def noise_match(draw: Draw, o: Options) -> str:
    return _t("""
        def classify(command):
            match command.split():
                case ["go", direction]:
                    return direction
                case ["quit" | "exit"]:
                    return None
                case _:
                    return {"error": "unknown"}["error"]
        """)


def noise_comment(draw: Draw, o: Options) -> str:
    return f"# {draw(_words(o, 0, 12))}\n"


NOISE: tuple[Fragment, ...] = (noise_class, noise_fstrings, noise_flow, noise_match, noise_comment)

CONSTANT_DEFINITION = 'BLOCK_WARNING_PREFIX = "BLOCK:"\n'
CONSTANT_IMPORT = "from orders.tool_result_utils import BLOCK_WARNING_PREFIX\n"


@dataclass(frozen=True)
class Module:
    """A generated module: its bytes, and how they were laid out (for messages)."""

    data: bytes
    text: str
    options: Options
    migratable: int  # how many migratable fragments it holds


def _header(draw: Draw, o: Options, *, constant: bool) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append("#!/usr/bin/env python3\n")
    if o.cookie:
        cookie = draw(st.sampled_from(["# -*- coding: {} -*-\n", "# vim: set fileencoding={} :\n"]))
        lines.append(cookie.format(o.cookie))
    if draw(st.booleans()):
        lines.append('"""Module docstring: BLOCK: is only mentioned here."""\n')
    if draw(st.booleans()):
        lines.append("from __future__ import annotations\n")
    lines.append("import json\n")
    if constant:
        lines.append(draw(st.sampled_from([CONSTANT_DEFINITION, CONSTANT_IMPORT])))
    return "".join(lines)


def _reindent(text: str, unit: str) -> str:
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        out.append(unit * depth + " " * ((len(line) - len(stripped)) % 4) + stripped)
    return "\n".join(out)


def _line_endings(draw: Draw, text: str, newline: str) -> str:
    lines = text.split("\n")
    if newline != "mixed":
        return newline.join(lines)
    endings = draw(
        st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines))
    )
    return (
        "".join(line + str(end) for line, end in zip(lines[:-1], endings, strict=False)) + lines[-1]
    )


@st.composite
def modules(draw: Draw, *, migrate: bool = True, max_fragments: int = 5) -> Module:
    """A module with migratable sites (``migrate=True``) or only look-alikes and noise."""
    o = draw(options())
    pool = (*MIGRATABLE, *LOOKALIKES, *NOISE) if migrate else (*LOOKALIKES, *NOISE)
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_fragments))
    if migrate and not any(f in MIGRATABLE for f in chosen):
        chosen.append(draw(st.sampled_from(MIGRATABLE)))
    body = [f(draw, o) for f in chosen]
    separators = [draw(st.sampled_from(["\n", "\n\n", "\n\n\n"])) for _ in body]
    text = _header(draw, o, constant=migrate and draw(st.booleans()))
    for separator, fragment in zip(separators, body, strict=True):
        text += separator + fragment
    text = _reindent(text, o.indent)
    if not draw(st.booleans()):
        text = text.rstrip("\n")  # no final newline
    text = _line_endings(draw, text, o.newline)
    encoding = "latin-1" if o.latin1 else "utf-8"
    data = (b"\xef\xbb\xbf" if o.bom else b"") + text.encode(encoding)
    return Module(data, text, o, sum(f in MIGRATABLE for f in chosen))
