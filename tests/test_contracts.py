"""Wire contracts: JSON Schema / OpenAPI files that pin ``warnings`` or ``error`` as strings.

A repository whose contract tests validate responses against a schema must not find them
failing by surprise after ``apply``: each broken schema location is reported (plan, diff,
apply) or, with ``--update-schemas``, updated to the models' object schemas.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.contracts import yaml_source
from unsentinel.contracts.emit import _json_result
from unsentinel.contracts.json_source import replace_values, spans
from unsentinel.contracts.shapes import Target, find_hits, object_schema
from unsentinel.core.model import Action
from unsentinel.errors.emit import DATACLASS_MODEL, ERROR_DETAIL_FIELDS
from unsentinel.warnings.emit.model_module import WARNING_FIELDS, dataclass_model

SERVICE = """from __future__ import annotations

from dataclasses import dataclass, field

BLOCK_WARNING_PREFIX = "BLOCK:"


@dataclass
class Response:
    ok: bool
    warnings: list[str] = field(default_factory=list)


def create_order(quantity: int) -> Response:
    warnings: list[str] = []
    if quantity <= 0:
        warnings.append(f"{BLOCK_WARNING_PREFIX} quantity must be positive, got {quantity}")
    blocked = any(w.startswith(BLOCK_WARNING_PREFIX) for w in warnings)
    return Response(ok=not blocked, warnings=warnings)
"""

PLAIN = """def add(a: int, b: int) -> int:
    return a + b
"""

SCHEMA = """{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Response",
  "type": "object",
  "properties": {
    "ok": {"type": "boolean"},
    "warnings": {
      "type": "array",
      "description": "What the caller should know.",
      "items": {"type": "string"}
    }
  },
  "required": ["ok", "warnings"]
}
"""

OPENAPI_YAML = """openapi: 3.0.3
info: {title: orders, version: "1"}
paths: {}
components:
  schemas:
    Response:
      type: object
      properties:
        warnings:  # pinned by the contract tests
          type: array
          items:
            type: string
"""

SCHEMA_PATH = "schemas/response.schema.json"


def _repo(root: Path, service: str = SERVICE) -> Path:
    (root / "pyproject.toml").write_text('[project]\nname = "orders"\n')
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "service.py").write_text(service)
    (root / "schemas").mkdir()
    (root / SCHEMA_PATH).write_text(SCHEMA)
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return _repo(tmp_path)


def _schema_sites(output: str) -> list[dict[str, object]]:
    return [s for s in json.loads(output)["sites"] if s["rule"] == "schema"]


def test_plan_lists_the_schema_site_with_file_pointer_and_reason(repo: Path) -> None:
    result = CliRunner().invoke(main, ["plan", "."])
    assert result.exit_code == 0, result.stderr
    sites = _schema_sites(result.stdout)
    assert len(sites) == 1
    site = sites[0]
    assert site["path"] == SCHEMA_PATH
    assert (site["line"], site["column"]) == (7, 5)  # the "warnings" key
    assert site["action"] == "report"
    reasons = " ".join(map(str, site["reasons"]))  # type: ignore[call-overload]
    assert "#/properties/warnings" in reasons
    assert "array of strings" in reasons
    assert "held for manual change" in reasons


def test_apply_without_the_flag_leaves_the_schema_byte_identical_and_reports_it(
    repo: Path,
) -> None:
    before = (repo / SCHEMA_PATH).read_bytes()
    result = CliRunner().invoke(main, ["apply", "."])
    assert result.exit_code == 0, result.stderr
    assert (repo / SCHEMA_PATH).read_bytes() == before
    assert "Warning(" in (repo / "app" / "service.py").read_text()  # the Python did migrate
    assert f"held for manual change: {SCHEMA_PATH}:7:5: #/properties/warnings" in result.stderr


def test_apply_update_schemas_updates_it_and_the_migrated_response_validates(
    repo: Path,
) -> None:
    old_schema = json.loads(SCHEMA)
    result = CliRunner().invoke(main, ["apply", ".", "--update-schemas"])
    assert result.exit_code == 0, result.stderr
    assert "held for manual change" not in result.stderr
    text = (repo / SCHEMA_PATH).read_text()
    schema = json.loads(text)
    warnings = schema["properties"]["warnings"]
    assert list(warnings) == ["type", "description", "items"]  # key order kept
    assert warnings["items"]["properties"]["severity"]["enum"] == ["info", "advisory", "blocking"]
    assert warnings["items"]["properties"]["field_path"]["type"] == ["string", "null"]
    assert warnings["items"]["required"] == ["severity", "message"]
    # The file's style: two-space indent, the untouched lines as they were, a final newline.
    assert '    "ok": {"type": "boolean"},\n' in text
    assert '        "type": "object",\n' in text
    assert text.endswith("}\n")

    response = _run_migrated(repo)
    jsonschema.validate(response, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(response, old_schema)  # the update was needed


def _run_migrated(root: Path) -> object:
    """The migrated service's response to a blocked order, as its JSON wire form."""
    script = (
        "import dataclasses, json\n"
        "from app.service import create_order\n"
        "print(json.dumps(dataclasses.asdict(create_order(0))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_diff_update_schemas_previews_the_schema_change_and_writes_nothing(repo: Path) -> None:
    before = (repo / SCHEMA_PATH).read_bytes()
    result = CliRunner().invoke(main, ["diff", ".", "--update-schemas"])
    assert result.exit_code == 1, result.stderr
    assert f"+++ b/{SCHEMA_PATH}" in result.stdout or f"+++ {SCHEMA_PATH}" in result.stdout
    assert '+        "properties": {' in result.stdout
    assert (repo / SCHEMA_PATH).read_bytes() == before


def test_diff_without_the_flag_shows_the_schema_as_held(repo: Path) -> None:
    result = CliRunner().invoke(main, ["diff", "."])
    assert SCHEMA_PATH not in result.stdout
    assert f"held for manual change: {SCHEMA_PATH}:7:5" in result.stderr


def test_nothing_to_migrate_means_no_schema_report_and_no_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _repo(tmp_path, PLAIN)
    before = (tmp_path / SCHEMA_PATH).read_bytes()
    planned = CliRunner().invoke(main, ["plan", "."])
    assert _schema_sites(planned.stdout) == []
    assert "held for manual change" not in planned.stderr
    applied = CliRunner().invoke(main, ["apply", ".", "--update-schemas"])
    assert applied.exit_code == 0, applied.stderr
    assert "held for manual change" not in applied.stderr
    assert (tmp_path / SCHEMA_PATH).read_bytes() == before


def test_a_schema_in_an_ignored_directory_is_not_looked_at(repo: Path) -> None:
    (repo / ".gitignore").write_text("schemas/\n")
    result = CliRunner().invoke(main, ["plan", "."])
    assert _schema_sites(result.stdout) == []


def test_yaml_is_reported_even_with_the_flag_and_never_rewritten(repo: Path) -> None:
    pytest.importorskip("yaml")
    (repo / SCHEMA_PATH).unlink()
    (repo / "openapi.yaml").write_text(OPENAPI_YAML)
    result = CliRunner().invoke(main, ["apply", ".", "--update-schemas"])
    assert result.exit_code == 0, result.stderr
    assert (repo / "openapi.yaml").read_text() == OPENAPI_YAML
    pointer = "#/components/schemas/Response/properties/warnings"
    assert f"held for manual change: openapi.yaml:9:9: {pointer}" in result.stderr


# -- the schemas come from the models' own field lists ------------------------------------


def _model_fields(source: str) -> list[str]:
    tree = ast.parse(source)
    model = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    return [n.target.id for n in model.body if isinstance(n, ast.AnnAssign)]  # type: ignore[union-attr]


def test_the_object_schemas_describe_exactly_the_generated_models() -> None:
    assert list(object_schema(WARNING_FIELDS)["properties"]) == _model_fields(dataclass_model())
    error = object_schema(ERROR_DETAIL_FIELDS)
    assert list(error["properties"]) == _model_fields(DATACLASS_MODEL)
    assert error["required"] == ["code", "message"]
    assert error["properties"]["details"]["type"] == "object"  # dropped when empty, never null


def test_an_error_string_becomes_the_error_detail_schema_keeping_what_the_author_wrote() -> None:
    document = {
        "openapi": "3.0.3",
        "components": {
            "schemas": {
                "Failure": {
                    "type": "object",
                    "properties": {
                        "error": {
                            "type": "string",
                            "nullable": True,
                            "description": "Why it failed.",
                            "maxLength": 200,
                            "example": "order not found",
                        },
                        "examples": {"type": "string"},
                    },
                }
            }
        },
    }
    target = Target("error", ("error",), ERROR_DETAIL_FIELDS, "ErrorDetail", in_items=False)
    hits = find_hits(document, [target])
    assert [hit.pointer for hit in hits] == [
        ("components", "schemas", "Failure", "properties", "error")
    ]
    replacement = hits[0].replacement
    assert replacement is not None
    assert list(replacement) == ["type", "properties", "required", "nullable", "description"]
    assert replacement["type"] == "object"
    jsonschema.validate({"code": "NOT_FOUND", "message": "order not found"}, replacement)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("order not found", replacement)


def test_a_data_file_or_an_example_is_not_a_schema() -> None:
    warnings = Target("warnings", ("warnings",), WARNING_FIELDS, "Warning", in_items=True)
    example = {
        "type": "object",
        "example": {"properties": {"warnings": {"type": "array", "items": {"type": "string"}}}},
    }
    assert find_hits(example, [warnings]) == []


def test_a_splice_keeps_four_space_indent_crlf_and_everything_else() -> None:
    text = (
        '{\r\n    "properties": {\r\n        "error": {"type": "string"},\r\n'
        '        "note": [1, 2]\r\n    }\r\n}'
    )
    new = replace_values(text, {("properties", "error"): {"type": "object", "x": 1}})
    assert new == (
        '{\r\n    "properties": {\r\n        "error": {\r\n            "type": "object",\r\n'
        '            "x": 1\r\n        },\r\n        "note": [1, 2]\r\n    }\r\n}'
    )
    assert spans(new)[("properties", "note")].start == new.index("[1, 2]")


HANDLERS = """def get_order(order_id: str) -> dict:
    try:
        return {"success": True, "order": load(order_id)}
    except KeyError as e:
        return {"success": False, "error": str(e)}


def load(order_id: str) -> dict:
    raise KeyError(order_id)
"""

OPENAPI = """{
    "openapi": "3.1.0",
    "components": {"schemas": {"Failure": {"type": "object", "properties": {
        "success": {"type": "boolean"},
        "error": {"type": "string", "description": "Why it failed."}
    }}}}
}
"""


def test_an_error_string_schema_is_updated_and_the_migrated_failure_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "handlers.py").write_text(HANDLERS)
    (tmp_path / "openapi.json").write_text(OPENAPI)
    result = CliRunner().invoke(main, ["apply", ".", "--update-schemas"])
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "openapi.json").read_text()
    assert '        "success": {"type": "boolean"},\n' in text  # the rest as it was
    failure = json.loads(text)["components"]["schemas"]["Failure"]
    script = "import json, handlers\nprint(json.dumps(handlers.get_order('42')))\n"
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    response = json.loads(done.stdout)
    assert isinstance(response["error"], dict)
    jsonschema.validate(response, failure)


def test_undo_restores_an_updated_schema_with_the_rest_of_the_apply(repo: Path) -> None:
    before = (repo / SCHEMA_PATH).read_bytes()
    applied = CliRunner().invoke(main, ["apply", ".", "--update-schemas"])
    assert applied.exit_code == 0, applied.stderr
    assert (repo / SCHEMA_PATH).read_bytes() != before
    undone = CliRunner().invoke(main, ["undo"])
    assert undone.exit_code == 0, undone.stderr
    assert (repo / SCHEMA_PATH).read_bytes() == before


def test_a_yaml_file_that_cannot_be_read_is_reported_not_skipped(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(_text: str) -> object:
        raise yaml_source.YamlUnavailable

    monkeypatch.setattr(yaml_source, "load", unavailable)
    (repo / "openapi.yaml").write_text(OPENAPI_YAML)
    result = CliRunner().invoke(main, ["plan", "."])
    sites = [s for s in _schema_sites(result.stdout) if s["path"] == "openapi.yaml"]
    assert len(sites) == 1
    assert "PyYAML is not installed" in " ".join(map(str, sites[0]["reasons"]))  # type: ignore[call-overload]


# -- declarations through a $ref or a union: reported for a change by hand -----------------

WARNINGS = Target("warnings", ("warnings",), WARNING_FIELDS, "Warning", in_items=True)
ERROR = Target("error", ("error",), ERROR_DETAIL_FIELDS, "ErrorDetail", in_items=False)


def test_items_through_a_local_ref_are_reported_not_rewritten() -> None:
    document = {
        "$defs": {"Message": {"type": "string", "maxLength": 200}},
        "properties": {"warnings": {"type": "array", "items": {"$ref": "#/$defs/Message"}}},
    }
    [hit] = find_hits(document, [WARNINGS])
    assert hit.pointer == ("properties", "warnings", "items")
    assert hit.replacement is None  # the definition may be shared: a change by hand


def test_an_error_union_with_a_string_is_reported() -> None:
    document = {"properties": {"error": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    [hit] = find_hits(document, [ERROR])
    assert hit.pointer == ("properties", "error") and hit.replacement is None


def test_a_ref_to_an_object_is_not_a_string() -> None:
    document = {
        "$defs": {"Failure": {"type": "object", "properties": {"code": {"type": "string"}}}},
        "properties": {"error": {"$ref": "#/$defs/Failure"}},
    }
    assert find_hits(document, [ERROR]) == []


def test_update_schemas_leaves_an_indirect_declaration_and_says_why(tmp_path: Path) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"Message": {"type": "string"}},
        "properties": {"warnings": {"type": "array", "items": {"$ref": "#/$defs/Message"}}},
    }
    path = tmp_path / "response.schema.json"
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    before = path.read_bytes()
    result = _json_result(path, path.read_text(encoding="utf-8"), [WARNINGS], update=True)
    assert result is not None and result.new_text is None  # nothing rewritten
    [site] = result.sites
    assert site.action is Action.REPORT
    assert "$ref" in site.reasons[-1]
    assert path.read_bytes() == before
