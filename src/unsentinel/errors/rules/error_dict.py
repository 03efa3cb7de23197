"""UNS501: ad-hoc error dicts become the spec's ``{"success": False, "error": ...}`` envelope."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from unsentinel.core.config import Config
from unsentinel.core.layout import fit_to_line
from unsentinel.core.model import Action, Inferred, Kind
from unsentinel.core.rule import Example, Rule, RuleContext
from unsentinel.core.syntax import NodeIndex, string_key
from unsentinel.errors import build
from unsentinel.errors.candidates import may_hold_error_dicts
from unsentinel.errors.clients import ClientFinder
from unsentinel.errors.code import infer_error_code
from unsentinel.errors.consumers import ConsumerFinder
from unsentinel.errors.facts import ErrorFacts, ErrorNotes
from unsentinel.errors.lookalikes import reason as lookalike_reason
from unsentinel.errors.lookalikes import suspicious, unclear_bare
from unsentinel.errors.settings import error_helper_target, error_settings, module_path
from unsentinel.errors.shapes import (
    DETAIL_CONTAINERS,
    MESSAGE_KEYS,
    Shape,
    ShapeKind,
    classify,
    elements_by_key,
    enclosing_function,
    exception_names,
    handler_of,
    is_false,
    is_stringish,
    response_flow,
)

MODEL_NAME = "ErrorDetail"
_SUBPROCESS_HINTS = ("subprocess.", "Popen(", "check_output(", "shutil.which(")


module_of = module_path  # ``errsvc/error_codes.py`` -> ``errsvc.error_codes``


@dataclass(frozen=True)
class _Error:
    """What the rewrite of one site needs: the code constant, the message, the details."""

    code: str
    message: cst.BaseExpression
    details: cst.Dict | None


class ErrorDict(Rule):
    """Rewrite a hand-built error response, and the reads of it, into the error envelope.

    What it does
        Finds hand-built error responses -- ``{"error": str(e)}``, ``{"success": False,
        "message": ...}``, ``{"succeed": False, "error": ..., "errorDetails": {...}}``,
        ``{"status": "error", "message": ...}``, ``jsonify({"message": ...}), 404``,
        ``JSONResponse(content={"detail": ...}, status_code=404)``,
        ``Response(json.dumps(d), status=400)``, ``r = {"success": False, "error": None}``
        ... ``r["error"] = "..."`` -- and rewrites each into the MCP-AQL error envelope with
        a registry code (or into a call of the repository's helper,
        ``error-target = "helper"``). It also rewrites the reads of the old keys to the new
        shape: in tests (``resp["error"] == "..."``) and in the code that calls a migrated
        function (``if resp.get("ok") is False: raise X(resp["message"])``).

    Why
        Clients cannot act on prose. The spec's envelope (ADR-006) carries a
        machine-readable ``code`` from a fixed registry, the human ``message``, and
        structured ``details``.

    Example
        ```python
        return jsonify({"message": f"Note {note_id} not found"}), 404
        ```

    Use instead
        ```python
        return jsonify({"success": False, "error": ErrorDetail(
            code=error_codes.NOT_FOUND_RESOURCE,
            message=f"Note {note_id} not found",
            details={"note_id": note_id},
        ).to_dict()}), 404
        ```

    Fix safety
        The wire shape changes on purpose, so every client must follow: a reader of the old
        keys is rewritten when each of its reads is an error check or sits behind one;
        otherwise all of its reads are reported (action ``skip``) and none is changed. A
        returned status stays returned. Only dicts whose value provably reaches a
        ``return`` are rewritten: metric labels, ``%``-mappings, counters, routing tables,
        log ``extra=``, ``details=`` / ``metadata=`` arguments, per-item batch results and
        JSON-RPC protocol errors are left alone and listed in ``plan`` as notes with the
        reason. An error inside a success envelope is reported, never moved.

    Inference
        The code comes from the HTTP status (refined by the message within its family),
        then the handled exception, then the message wording (``unsentinel.errors.code``).
        Codes configured in ``error-codes`` (code -> message keywords) come first. Anything
        else is ``INTERNAL_ERROR`` with low confidence, shown in ``plan`` and the review
        table.
    """

    code = "UNS501"
    name = "error-dict"
    summary = "Ad-hoc error dict instead of the spec's error envelope"

    VALID = (
        Example('labels = {"tool": name, "status": "error"}', id="metric labels"),
        Example('text = "[%(error)s]" % {"error": exc}', id="percent-format mapping"),
        Example('summary = {"error": 0, "warning": 0}', id="severity counters"),
        Example('HANDLERS = {"error": handle_error, "info": handle_info}', id="routing table"),
        Example(
            'def f(name, crash):\n    log.warning("failed", extra={"error": str(crash)})\n',
            id="log extra",
        ),
        Example(
            'def f(repo):\n    audit.record("denied", details={"error": "not owner"})\n'
            "    return None\n",
            id="details argument",
        ),
        Example(
            'def f(mid):\n    return {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601,'
            ' "message": "Method not found"}}\n',
            id="json-rpc protocol error",
        ),
        Example(
            "def f(results, index):\n"
            '    results.append({"index": index, "error": "missing title"})\n'
            '    return {"success": True, "results": results}\n',
            id="per-item result in a successful batch",
        ),
        Example(
            'def health(down):\n    return jsonify({"status": "error" if down else "ok"})\n',
            id="status probe",
        ),
        Example(
            'def created():\n    return jsonify({"message": "created"}), 201\n',
            id="message in a success response",
        ),
        Example(
            'def doc():\n    """Fails with ``{"error": "note 7 not found"}``."""\n', id="docstring"
        ),
    )
    INVALID = (
        Example(
            """
            def get(note_id):
                try:
                    return store.get(note_id)
                except LookupError as e:
                    return {"error": str(e)}
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def get(note_id):
                try:
                    return store.get(note_id)
                except LookupError as e:
                    return {
                        "success": False,
                        "error": ErrorDetail(code=error_codes.NOT_FOUND_RESOURCE, message=str(e)).to_dict(),
                    }
            """,  # noqa: E501 (example code keeps its natural length)
            id="bare error key in an except clause",
        ),
        Example(
            """
            def get_note(note_id):
                return jsonify({"message": f"Note {note_id} not found"}), 404
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def get_note(note_id):
                return jsonify({
                    "success": False,
                    "error": ErrorDetail(
                        code=error_codes.NOT_FOUND_RESOURCE,
                        message=f"Note {note_id} not found",
                        details={"note_id": note_id},
                    ).to_dict(),
                }), 404
            """,
            id="jsonify with a status",
        ),
        Example(
            """
            def create(payload):
                return {"ok": False, "message": "title is required"}
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def create(payload):
                return {
                    "success": False,
                    "error": ErrorDetail(
                        code=error_codes.VALIDATION_MISSING_PARAM,
                        message="title is required",
                        details={"param_name": "title"},
                    ).to_dict(),
                }
            """,
            id="ok False with a message",
        ),
        Example(
            """
            def summarize(owner):
                return {"succeed": False, "error": "Repository not found", "errorDetails": {"owner": owner}}
            """,  # noqa: E501 (example code keeps its natural length)
            """
            import error_codes
            from error_model import ErrorDetail

            def summarize(owner):
                return {
                    "success": False,
                    "error": ErrorDetail(
                        code=error_codes.NOT_FOUND_RESOURCE,
                        message="Repository not found",
                        details={"owner": owner},
                    ).to_dict(),
                }
            """,
            id="errorDetails move into details",
        ),
        Example(
            """
            def tag(tag):
                r = {"success": False, "error": None}
                if not tag:
                    r["error"] = "tag must be a non-empty string"
                    return r
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def tag(tag):
                r = {"success": False, "error": None}
                if not tag:
                    r["error"] = ErrorDetail(code=error_codes.VALIDATION_INVALID_TYPE, message="tag must be a non-empty string", details={"param_name": "tag"}).to_dict()
                    return r
            """,  # noqa: E501 (example code keeps its natural length)
            id="built incrementally",
        ),
        Example(
            """
            def push(body):
                return json.dumps({"error": "webhook signature mismatch"}), 401
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def push(body):
                return json.dumps({
                    "success": False,
                    "error": ErrorDetail(
                        code=error_codes.PERMISSION_DENIED,
                        message="webhook signature mismatch",
                    ).to_dict(),
                }), 401
            """,
            id="serialised with json.dumps",
        ),
        Example(
            """
            def get_note(arguments):
                return {"ok": False, "error": "note_id is required"}

            def test_missing():
                resp = tools.get_note({})
                assert resp["ok"] is False
                assert resp["error"] == "note 7 not found"
            """,
            """
            import error_codes
            from error_model import ErrorDetail

            def get_note(arguments):
                return {
                    "success": False,
                    "error": ErrorDetail(
                        code=error_codes.VALIDATION_MISSING_PARAM,
                        message="note_id is required",
                        details={"param_name": "note_id"},
                    ).to_dict(),
                }

            def test_missing():
                resp = tools.get_note({})
                assert resp["success"] is False
                assert resp["error"]["message"] == "note 7 not found"
            """,
            id="consumer in a test follows its producer",
        ),
        Example(
            """
            def rename(title):
                return {"success": True, "error": "title ignored"}
            """,
            id="error inside a success envelope is reported",
        ),
    )

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._incremental: dict[cst.FunctionDef, set[str]] = {}
        self._pending: list[tuple[cst.FunctionDef | None, cst.CSTNode, Callable[[], None]]] = []

    @classmethod
    def needles(cls, config: Config) -> tuple[bytes, ...]:
        keys = [b'"error":', b"'error':", b'"error"]', b"'error']"]
        for flag in (b"success", b"ok", b"succeed"):
            keys += [b'"' + flag + b'": False', b"'" + flag + b"': False"]
        keys += [b'["message"]', b"['message']", b'["detail"]', b"['detail']"]
        keys += [b"jsonify(", b"JSONResponse(", b'"status": "error"', b"'status': 'error'"]
        return tuple(keys)

    @classmethod
    def refine(cls, data: bytes, tree: ast.Module, config: Config) -> bool:
        return may_hold_error_dicts(tree)

    # -- producers ----------------------------------------------------------------------
    def visit_Dict(self, node: cst.Dict) -> None:
        shape = classify(node)
        if shape is None and not suspicious(node, shape) or self._in_assertion(node):
            return
        flow = response_flow(node, self.context.parent)
        if shape is None or flow is None:
            self._note(node, shape, returned=flow is not None)
            return
        if shape.kind is ShapeKind.WRAPPED:
            self._hold(node)
            self._report_only(node, "Error message inside a success envelope; review by hand")
            return
        status = flow.status
        if status is not None and status < 400:
            if shape.kind is not ShapeKind.MESSAGE_ONLY:
                self._hold(node)
                self._report_only(node, f"Error-shaped dict returned with HTTP {status}; skipped")
            return
        if shape.kind is ShapeKind.MESSAGE_ONLY and status is None:
            return
        in_handler = handler_of(node, self.context.parent) is not None
        unclear = unclear_bare(node, shape, status, in_handler)
        if unclear is not None:
            self._note(node, shape, returned=True, why=unclear)
            return
        self._defer(node, lambda: self._rewrite_dict(node, shape, status))

    def _note(
        self, node: cst.Dict, shape: Shape | None, *, returned: bool, why: str | None = None
    ) -> None:
        """A look-alike left alone: listed in ``plan`` with the reason, not a finding.

        One that is returned holds its function back: a reader of the function's result
        cannot tell it from a migrated error, so none of them may change.
        """
        if not suspicious(node, shape):
            return
        if returned:
            self._hold(node)
        why = why or lookalike_reason(node, self.context.parent)
        self.context.report(
            self,
            node,
            f"Looks like an error dict but is left alone: {why}",
            kind=Kind.ERROR,
            action=Action.NOTE,
            reasons=(why,),
        )

    # -- the group rule: a function's error dicts change together or not at all ----------
    def _hold(self, node: cst.CSTNode) -> None:
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            self.context.shared(ErrorNotes).held_functions.add(function.name.value)

    def _defer(self, node: cst.CSTNode, rewrite: Callable[[], None]) -> None:
        """Rewrite in :meth:`finish`, once every error dict of the function is known."""
        self._pending.append((enclosing_function(node, self.context.parent), node, rewrite))

    def _settle_producers(self) -> None:
        held = self.context.shared(ErrorNotes).held_functions
        for function, node, rewrite in self._pending:
            if function is None or function.name.value not in held:
                rewrite()
                continue
            why = (
                f"{function.name.value}() also returns an error-looking dict that is left "
                "alone; its error dicts and their readers change together or not at all"
            )
            self.context.report(
                self,
                node,
                f"Ad-hoc error dict left as it is: {why}",
                kind=Kind.ERROR,
                action=Action.SKIP,
                reasons=(why,),
            )

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and isinstance(node.value, cst.Dict):
            self._remember_incremental(node, target.value, node.value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self._rewrite_incremental(node, target)

    def _remember_incremental(self, node: cst.Assign, name: str, value: cst.Dict) -> None:
        values = elements_by_key(value)
        if not values or not any(
            is_false(values.get(k, cst.Name("x"))) for k in ("success", "ok", "succeed")
        ):
            return
        if not any(k in values for k in MESSAGE_KEYS):
            return
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            self._incremental.setdefault(function, set()).add(name)

    def _rewrite_incremental(self, node: cst.Assign, target: cst.Subscript) -> None:
        assert isinstance(target.value, cst.Name)
        function = enclosing_function(node, self.context.parent)
        if function is None or target.value.value not in self._incremental.get(function, set()):
            return
        key = string_key(target)
        if key not in MESSAGE_KEYS or not is_stringish(node.value):
            return
        self._defer(node, lambda: self._rewrite_assignment(node))

    def _rewrite_assignment(self, node: cst.Assign) -> None:
        error = self._error_for(node, node.value, None, extras={}, spreads=())
        self._returns_error(node)
        value = self._error_value(error)
        self.context.replace(
            node, lambda updated: _with_value(updated, build.carry_updates(value, node, updated))
        )

    # -- building -----------------------------------------------------------------------
    def _rewrite_dict(self, node: cst.Dict, shape: Shape, status: int | None) -> None:
        values = elements_by_key(node)
        assert values is not None
        message = values[shape.message_key]
        extras: dict[str, cst.BaseExpression] = {}
        spreads: list[cst.BaseExpression] = []
        for key in shape.extra_keys:
            value = values[key]
            if key in DETAIL_CONTAINERS and isinstance(value, cst.Dict):
                inner = elements_by_key(value)
                if inner is None:
                    spreads.append(value)
                else:
                    extras.update(inner)
            elif key in DETAIL_CONTAINERS:
                spreads.append(value)
            elif key not in ("status",):
                extras[key] = value
        error = self._error_for(node, message, status, extras=extras, spreads=spreads)
        self._returns_error(node)
        response = self._response(error)
        comments = self._comment_plan(node, shape, values)
        multiline = build.breaks_lines(node)
        self.context.replace(
            node,
            lambda updated: self._fit(
                build.carry_updates(response, node, updated), node, comments, multiline
            ),
        )

    def _comment_plan(
        self, node: cst.Dict, shape: Shape, values: dict[str, cst.BaseExpression]
    ) -> dict[build.Path, build.Comments]:
        """Where each comment of the old dict goes in the new construction: a key's comments
        to the part that took its value, a dropped key's (a flag, a status) to the
        envelope's ``"success"`` (the helper's code argument)."""
        envelope = not self._uses_helper
        message: build.Path = ("error", "message") if envelope else ("#1",)
        details: build.Path = ("error", "details") if envelope else ("#2",)
        flag: build.Path = ("success",) if envelope else ("#0",)
        extracted = {
            key
            for key in shape.extra_keys
            if key in DETAIL_CONTAINERS
            and isinstance(values[key], cst.Dict)
            and elements_by_key(cst.ensure_type(values[key], cst.Dict)) is not None
        }
        carried = {shape.message_key, *shape.extra_keys} - {"status"} - extracted
        found = build.comments_of(node, dropped=frozenset(set(values) - carried - extracted))
        plan: dict[build.Path, build.Comments] = {
            build.OPENING: found.opening,
            build.CLOSING: found.closing,
        }

        def add(path: build.Path, part: build.Comments) -> None:
            plan.setdefault(path, build.Comments()).absorb(part)

        for key, part in found.by_key.items():
            if key == shape.message_key:
                add(message, part)
            elif key in extracted:
                add(details, part)
                inner = build.comments_of(cst.ensure_type(values[key], cst.Dict))
                add(details, inner.opening)
                add(details, inner.closing)
                for inner_key, inner_part in inner.by_key.items():
                    add((*details, inner_key), inner_part)
            elif key in carried and key not in DETAIL_CONTAINERS:
                add((*details, key), part)
            elif key in carried:
                add(details, part)  # spread into the details: ``**value``
            else:
                add(flag, part)
        return plan

    def _fit(
        self,
        built: cst.BaseExpression,
        site: cst.CSTNode,
        comments: dict[build.Path, build.Comments] | None = None,
        multiline: bool = False,
    ) -> cst.BaseExpression:
        """Break the new construction over lines as the project's formatter would, keeping
        a multi-line dict multi-line and every comment it held."""
        position = self.context.position(site)
        lines = self.context.text.splitlines()
        statement = next(
            (a for a in self.context.ancestors(site) if isinstance(a, cst.SimpleStatementLine)),
            None,
        )
        start = self.context.position(statement).line if statement is not None else position.line
        block = _indentation(lines[start - 1])
        base = _indentation(lines[position.line - 1])[len(block) :]
        unit = self.context.module.default_indent
        fitted = fit_to_line(
            built,
            column=position.column - 1,
            base=base,
            indent_unit=unit,
            line_length=self.config.line_length,
        )
        layout = build.Layout(base, len(block), unit, self.config.line_length)
        return build.place_comments(fitted, comments or {}, layout, multiline=multiline)

    def _error_for(
        self,
        node: cst.CSTNode,
        message: cst.BaseExpression,
        status: int | None,
        *,
        extras: dict[str, cst.BaseExpression],
        spreads: tuple[cst.BaseExpression, ...] | list[cst.BaseExpression],
    ) -> _Error:
        found = handler_of(node, self.context.parent)
        exceptions: tuple[str, ...] = ()
        alias: str | None = None
        external_binary = False
        if found is not None:
            handler, try_node = found
            exceptions = exception_names(handler)
            if handler.name is not None and isinstance(handler.name.name, cst.Name):
                alias = handler.name.name.value
            body_code = self.context.code_for(try_node.body)
            external_binary = any(hint in body_code for hint in _SUBPROCESS_HINTS)
        text = build.read_message(message, alias)
        code = infer_error_code(
            status,
            exceptions,
            text.text,
            external_binary=external_binary,
            translated=text.translated,
            custom=error_settings(self.config).error_codes,
        )
        decided = self.context.decide(node, "code", code)  # an edited plan's code, if any
        code = decided if decided.value is not None else code  # an error always has a code
        assert code.value is not None
        entries: list[tuple[str, cst.BaseExpression]] = []
        param = build.param_name(text, code.value)
        if param is not None and "param_name" not in extras:
            entries.append(("param_name", build.string(param)))
        entries += [(k, cst.Name(v)) for k, v in text.placeholders if k not in extras]
        entries += list(extras.items())
        details = build.details_dict(_unique(entries), list(spreads))
        self._report(node, code, status, exceptions)
        return _Error(code.value, message, details)

    # -- the configured target ----------------------------------------------------------
    @property
    def _uses_helper(self) -> bool:
        return error_settings(self.config).error_target == "helper"

    def _response(self, error: _Error) -> cst.BaseExpression:
        """The whole failed response: the spec's envelope, or the configured helper's call."""
        if self._uses_helper:
            return self._helper_call(error)
        return build.envelope(self._detail_call(error))

    def _error_value(self, error: _Error) -> cst.BaseExpression:
        """Just the envelope's ``error`` object (for ``r["error"] = ...``)."""
        if self._uses_helper:
            return build.error_of(self._helper_call(error))
        return self._detail_call(error)

    def _detail_call(self, error: _Error) -> cst.Call:
        codes_module = self._codes_module()
        self.context.add_import(
            module_of(error_settings(self.config).error_model_module), MODEL_NAME
        )
        return build.error_detail_call(
            MODEL_NAME, codes_module, error.code, error.message, error.details
        )

    def _helper_call(self, error: _Error) -> cst.Call:
        codes_module = self._codes_module()
        module, name = error_helper_target(self.config)
        self.context.add_import(module, name)
        return build.helper_call(name, codes_module, error.code, error.message, error.details)

    def _codes_module(self) -> str:
        """Imports the codes module; returns the name the rewritten code refers to it by."""
        codes_module = module_of(error_settings(self.config).error_codes_module)
        self.context.add_import(*_import_of(codes_module))
        return codes_module.rsplit(".", 1)[-1]

    def _returns_error(self, node: cst.CSTNode) -> None:
        """The enclosing function now returns the new error shape: a cross-file fact."""
        function = enclosing_function(node, self.context.parent)
        if function is not None:
            self.context.shared(ErrorNotes).error_functions.add(function.name.value)

    def _report(
        self, node: cst.CSTNode, code: Inferred, status: int | None, exceptions: tuple[str, ...]
    ) -> None:
        low = code.confidence.value == "low"
        evidence = [f"HTTP {status}"] if status is not None else []
        evidence += [f"except {', '.join(exceptions)}"] if exceptions else []
        self.context.report(
            self,
            node,
            f"Ad-hoc error dict; rewrite to ErrorDetail with {code.value}",
            kind=Kind.ERROR,
            action=Action.REVIEW if low else Action.REWRITE,
            code=code,
            reasons=tuple(evidence),
        )

    def _report_only(self, node: cst.CSTNode, message: str) -> None:
        self.context.report(self, node, message, kind=Kind.ERROR, action=Action.REPORT)

    def _in_assertion(self, node: cst.CSTNode) -> bool:
        return any(
            isinstance(a, (cst.Assert, cst.Comparison)) for a in self.context.ancestors(node)
        )

    # -- consumers ----------------------------------------------------------------------
    def finish(self) -> None:
        """Consumers, once every producer of the file is known (plus the gathered ones)."""
        self._settle_producers()
        index = self.context.shared(NodeIndex)
        notes = self.context.shared(ErrorNotes)
        gathered = self.context.facts.get(ErrorFacts)
        held = gathered.held_functions | frozenset(notes.held_functions)
        producers = (gathered.error_functions | frozenset(notes.error_functions)) - held
        ours = gathered.defined_functions
        tests = ConsumerFinder(self, self.context, index, producers, held, ours)
        clients = ClientFinder(self, self.context, index)
        functions: list[cst.FunctionDef | None] = [None]
        functions += [
            f for f in index.by_type.get(cst.FunctionDef, []) if isinstance(f, cst.FunctionDef)
        ]
        for function in functions:
            if function is not None and function.name.value.startswith("test"):
                tests.scan_function(function)
            elif producers or held:
                clients.scan(function, producers, held)


def _with_value(updated: cst.CSTNode, value: cst.BaseExpression) -> cst.CSTNode:
    assert isinstance(updated, cst.Assign)
    return updated.with_changes(value=value)


def _unique(entries: list[tuple[str, cst.BaseExpression]]) -> list[tuple[str, cst.BaseExpression]]:
    seen: dict[str, cst.BaseExpression] = {}
    for key, value in entries:
        seen.setdefault(key, value)
    return list(seen.items())


def _import_of(module: str) -> tuple[str, str | None]:
    """``errsvc.error_codes`` -> ``from errsvc import error_codes``; ``error_codes`` -> import."""
    if "." in module:
        package, name = module.rsplit(".", 1)
        return package, name
    return module, None


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
