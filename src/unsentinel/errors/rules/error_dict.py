"""UNS501: ad-hoc error dicts become the spec's ``{"success": False, "error": ...}`` envelope.

The rule finds the sites and decides what each one is; the pieces it relies on live
beside it: :mod:`~unsentinel.errors.groups` (a function's error dicts and their readers
change together), :mod:`~unsentinel.errors.site_error` (code, message and details),
:mod:`~unsentinel.errors.target` (envelope or helper),
:mod:`~unsentinel.errors.placement` (line breaks and comments),
:mod:`~unsentinel.errors.built_in_steps` (dicts built one key at a time) and
:mod:`~unsentinel.errors.lookalike_notes` (the notes on look-alikes left alone).
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.model import Action, Inferred, Kind
from unsentinel.core.reach import outside_package
from unsentinel.core.rule import Example, Rule, RuleContext
from unsentinel.core.syntax import LocalBindings
from unsentinel.errors import build, dict_comments
from unsentinel.errors.built_in_steps import ErrorsBuiltInSteps
from unsentinel.errors.detect import ERROR_DICT
from unsentinel.errors.facts import ErrorNotes
from unsentinel.errors.groups import ErrorGroups
from unsentinel.errors.lookalike_notes import LookalikeNotes
from unsentinel.errors.lookalikes import code_valued, suspicious, text_details, unclear_bare
from unsentinel.errors.mutations import later_change
from unsentinel.errors.placement import comment_plan, fit_in_place
from unsentinel.errors.shapes import (
    Shape,
    ShapeKind,
    classify,
    elements_by_key,
    enclosing_function,
    handler_of,
    response_flow,
)
from unsentinel.errors.site_error import ErrorAtSite, error_at, split_extras
from unsentinel.errors.target import Target
from unsentinel.errors.text_locals import TextLocals
from unsentinel.errors.untraced import message_template
from unsentinel.errors.wrappers import handed_out


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
        otherwise all of its reads are reported (action ``skip``) and none is changed. Code
        that receives error dicts and reads their old keys -- a generic check testing
        ``result.get("status") == "error"``, a helper handed a result -- holds the
        producers whose dicts it would read differently. A returned status stays
        returned. Only dicts whose value provably reaches a ``return`` are rewritten:
        metric labels, ``%``-mappings, counters, routing tables,
        log ``extra=``, ``details=`` / ``metadata=`` arguments, per-item batch results and
        JSON-RPC protocol errors are left alone and listed in ``plan`` as notes with the
        reason; so are the error dicts of a file beside the package that imports nothing
        from it (a script, a handler deployed on its own), which the rewrite would make
        import the generated codes module. An error inside a success envelope is
        reported, never moved.

    Inference
        The code comes from the HTTP status (refined by the message within its family),
        then the handled exception, then the message wording (``unsentinel.errors.code``).
        Codes configured in ``error-codes`` (code -> message keywords) come first. Anything
        else is ``INTERNAL_ERROR`` with low confidence, shown in ``plan`` and the review
        table.
    """

    detector = ERROR_DICT
    code = detector.code
    name = detector.name
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
                        "error": ErrorDetail(
                            code=error_codes.NOT_FOUND_RESOURCE,
                            message=str(e),
                        ).to_dict(),
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
                return jsonify(
                    {
                        "success": False,
                        "error": ErrorDetail(
                            code=error_codes.NOT_FOUND_RESOURCE,
                            message=f"Note {note_id} not found",
                            details={"note_id": note_id},
                        ).to_dict(),
                    }
                ), 404
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
                    r["error"] = ErrorDetail(
                        code=error_codes.VALIDATION_INVALID_TYPE,
                        message="tag must be a non-empty string",
                        details={"param_name": "tag"},
                    ).to_dict()
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
                return json.dumps(
                    {
                        "success": False,
                        "error": ErrorDetail(
                            code=error_codes.PERMISSION_DENIED,
                            message="webhook signature mismatch",
                        ).to_dict(),
                    }
                ), 401
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
            def fetch(key):
                return {"ok": False, "error": "boom"}

            def explore(op):
                return format_response("error", {}, "bad op")

            def test_aliased_call():
                real_fn = explore
                res = real_fn("x")
                assert res["status"] == "error"
                assert res["message"] == "bad op"
            """,
            """
            import error_codes
            from error_model import ErrorDetail


            def fetch(key):
                return {
                    "success": False,
                    "error": ErrorDetail(code=error_codes.INTERNAL_ERROR, message="boom").to_dict(),
                }

            def explore(op):
                return format_response("error", {}, "bad op")

            def test_aliased_call():
                real_fn = explore
                res = real_fn("x")
                assert res["status"] == "error"
                assert res["message"] == "bad op"
            """,  # noqa: E501 (example code keeps its natural length)
            id="a function called through an alias is read as that function",
        ),
        Example(
            """
            def _fail(msg):
                return {"ok": False, "message": msg}

            def get_note(note_id):
                if note_id is None:
                    return _fail("note_id is required")
                return {"ok": True, "note": load(note_id)}

            def test_missing():
                resp = get_note(None)
                assert resp["ok"] is False
                assert resp["message"] == "note_id is required"
            """,
            """
            import error_codes
            from error_model import ErrorDetail


            def _fail(msg):
                return {
                    "success": False,
                    "error": ErrorDetail(code=error_codes.INTERNAL_ERROR, message=msg).to_dict(),
                }

            def get_note(note_id):
                if note_id is None:
                    return _fail("note_id is required")
                return {"ok": True, "note": load(note_id)}

            def test_missing():
                resp = get_note(None)
                assert resp["success"] is False
                assert resp["error"]["message"] == "note_id is required"
            """,  # noqa: E501 (example code keeps its natural length)
            id="readers follow a function that returns the producer's result",
        ),
        Example(
            """
            def normalize(e):
                r = e.response()
                return {"error": r.message, "kind": r.kind}

            def status(store, key):
                try:
                    found = store.get(key)
                    if found is None:
                        return {"error": f"{key} not found", "kind": "NotFound"}
                    return found
                except Exception as e:
                    return normalize(e)
            """,
            id="a literal beside a held function's returned result is held",
        ),
        Example(
            """
            def status(store, key):
                found = store.get(key)
                if found is None:
                    return {"error": f"{key} not found", "kind": "NotFound"}
                return found

            def test_missing():
                result = status({}, "k")
                assert result["kind"] == "NotFound"
            """,
            id="a test reading only a moved key holds its producer",
        ),
        Example(
            """
            def check(region):
                try:
                    return {"region": region, "ok": probe(region)}
                except Exception as e:
                    return {"region": region, "error": str(e), "message": "Check failed"}

            def test_error():
                result = check("eu-1")
                assert "timed out" in result["error"]
                assert "message" in result
            """,
            id="a key test of a moved key holds its producer",
        ),
        Example(
            """
            def rename(title):
                return {"success": True, "error": "title ignored"}
            """,
            id="error inside a success envelope is reported",
        ),
        Example(
            """
            def signal_errors(result):
                if result.get("status") == "error":
                    return {"is_error": True}
                return {"is_error": False}

            def failing_tool():
                return {"status": "error", "message": "slow"}
            """,
            id="an error dict a generic check tells by its old keys is held",
        ),
    )

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._groups = ErrorGroups(self, context)
        self._target = Target(context)
        self._lookalikes = LookalikeNotes(self, context, self._groups)
        self._text = TextLocals(context.shared(LocalBindings))
        self._steps = ErrorsBuiltInSteps(
            context,
            self._groups,
            self._lookalikes,
            self._target,
            lambda node, message: self._error_at(node, message, None, extras={}, spreads=()),
        )

    # -- producers ----------------------------------------------------------------------
    def visit_Dict(self, node: cst.Dict) -> None:
        shape = classify(node)
        if shape is None and not suspicious(node, shape) or self._in_assertion(node):
            if shape is None:
                self._success_keys(node)
            return
        flow = response_flow(node, self.context.parent)
        if shape is None or flow is None:
            self._lookalikes.note(node, shape, returned=flow is not None)
            return
        if shape.kind is ShapeKind.WRAPPED:
            self._groups.hold(node)
            self._report_only(node, "Error message inside a success envelope; review by hand")
            return
        status = flow.status
        if status is not None and status < 400:
            if shape.kind is not ShapeKind.MESSAGE_ONLY:
                self._groups.hold(node)
                self._report_only(node, f"Error-shaped dict returned with HTTP {status}; skipped")
            else:
                self._success_keys(node)
            return
        if shape.kind is ShapeKind.MESSAGE_ONLY and status is None:
            self._success_keys(node)
            return
        in_handler = handler_of(node, self.context.parent) is not None
        function = enclosing_function(node, self.context.parent)
        unclear = (
            code_valued(node, shape)
            or text_details(node, shape)
            or unclear_bare(
                node, shape, status, in_handler, lambda name: self._text.holds_text(name, function)
            )
        )
        if unclear is not None:
            self._lookalikes.note(node, shape, returned=True, why=unclear)
            return
        unseen_callers = handed_out(function, self.context.parent)
        if unseen_callers is not None:
            self._lookalikes.held_note(node, unseen_callers)
            return
        unreachable = outside_package(self.context, self._target.imported_module)
        if unreachable is not None:
            self._lookalikes.held_note(node, unreachable)
            return
        changed = later_change(node, self.context.parent)
        if changed is not None:
            self._steps.built_in_steps(node, changed)
            return
        self._groups.moves(node, shape)
        self._groups.changes(node, shape.keys)
        self._groups.defer(node, lambda: self._rewrite_dict(node, shape, status))

    def _success_keys(self, node: cst.Dict) -> None:
        """A dict the function returns that is no error: its keys stay where they are."""
        keys = elements_by_key(node)
        if keys and response_flow(node, self.context.parent) is not None:
            self._groups.keeps(node, keys)

    # -- a dict built one key at a time: ``r = {"success": False, ...}; r["error"] = ...`` --
    def visit_Assign(self, node: cst.Assign) -> None:
        """Handled in :mod:`~unsentinel.errors.built_in_steps`."""
        self._steps.assigned(node)

    # -- rewriting ----------------------------------------------------------------------
    def _rewrite_dict(self, node: cst.Dict, shape: Shape, status: int | None) -> None:
        values = elements_by_key(node)
        assert values is not None
        extras, spreads = split_extras(shape, values)
        found = self._error_at(node, values[shape.message_key], status, extras, spreads)
        self._groups.produces(node)
        response = self._target.response(found.error)
        comments = comment_plan(node, shape, values, envelope=not self._target.uses_helper)
        multiline = dict_comments.breaks_lines(node)
        self.context.replace(
            node,
            lambda updated: fit_in_place(
                self.context,
                build.carry_updates(response, node, updated),
                node,
                comments,
                multiline,
                carried_from=(response, node),
            ),
        )

    def _error_at(
        self,
        node: cst.CSTNode,
        message: cst.BaseExpression,
        status: int | None,
        extras: dict[str, cst.BaseExpression],
        spreads: list[cst.BaseExpression] | tuple[cst.BaseExpression, ...],
    ) -> ErrorAtSite:
        """The site's error, reported as a finding with the evidence for its code."""
        found = error_at(self.context, node, message, status, extras=extras, spreads=spreads)
        template = message_template(message)
        if template is not None:
            self.context.shared(ErrorNotes).message_templates.add(template)
        self._report(node, found.code, status, found.exceptions)
        return found

    # -- reporting ----------------------------------------------------------------------
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
        """An expected value: in an ``assert``, a comparison or a ``self.assert*(...)`` call."""
        return any(
            isinstance(a, (cst.Assert, cst.Comparison))
            or isinstance(a, cst.Call)
            and isinstance(a.func, cst.Attribute)
            and a.func.attr.value.startswith("assert")
            for a in self.context.ancestors(node)
        )

    # -- readers ------------------------------------------------------------------------
    def finish(self) -> None:
        """Producers held or rewritten, then readers: the group is decided as a whole."""
        self._groups.settle_producers()
        self._groups.settle_readers()
