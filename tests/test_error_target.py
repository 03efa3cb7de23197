"""UNS501's configurable output: the envelope or a helper, and codes outside the registry."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from unsentinel.cli import main
from unsentinel.core.config import Config
from unsentinel.core.config_checks import ConfigError
from unsentinel.core.facts import FactBook
from unsentinel.core.model import Action, FileResult, Inferred, Kind, Position, Site, Status
from unsentinel.errors.code import infer_error_code
from unsentinel.errors.emit import emit_error_modules
from unsentinel.errors.rules.error_dict import ErrorDict
from unsentinel.errors.settings import error_settings
from unsentinel.registry import configured, load_config, rewrite_source

RULES = [ErrorDict]
HELPER = configured(error_target="helper", error_model_module="svc/error_model.py")


def _rewrite(source: str, config: Config) -> str:
    return rewrite_source(textwrap.dedent(source).lstrip("\n"), config, rules=RULES)[0]


def _pyproject(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.unsentinel]\n{table}\n", encoding="utf-8")
    return tmp_path


# -- the helper target ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "def get(note_id):\n"
            '    return jsonify({"message": f"Note {note_id} not found"}), 404\n',
            # Longer than the line length (88): one argument per line, as ruff would.
            "    return jsonify(\n"
            "        error_response(\n"
            "            error_codes.NOT_FOUND_RESOURCE,\n"
            '            f"Note {note_id} not found",\n'
            '            {"note_id": note_id},\n'
            "        )\n"
            "    ), 404\n",
            id="details become the third argument",
        ),
        pytest.param(
            'def create(p):\n    return {"ok": False, "message": "disk on fire"}\n',
            '    return error_response(error_codes.INTERNAL_ERROR, "disk on fire")\n',
            id="no details, no third argument",
        ),
        pytest.param(
            'def tag(t):\n    r = {"success": False, "error": None}\n'
            '    r["error"] = "tag must be a non-empty string"\n    return r\n',
            '    r["error"] = error_response(error_codes.VALIDATION_INVALID_TYPE, '
            '"tag must be a non-empty string", {"param_name": "tag"})["error"]\n',
            id="built incrementally takes the helper's error object",
        ),
    ],
)
def test_helper_target_calls_the_helper(source: str, expected: str) -> None:
    new = _rewrite(source, HELPER)
    assert expected in new
    assert "from svc.error_model import error_response\n" in new
    assert "ErrorDetail" not in new
    assert _rewrite(new, HELPER) == new  # a fixed point


def test_configured_helper_is_imported_from_its_module() -> None:
    config = configured(error_target="helper", error_helper="svc.web.errors:fail")
    new = _rewrite('def f():\n    return {"error": "boom"}\n', config)
    assert "from svc.web.errors import fail\n" in new
    assert 'return fail(error_codes.INTERNAL_ERROR, "boom")' in new


def test_envelope_is_the_default_target() -> None:
    new = _rewrite('def f():\n    return {"error": "boom"}\n', Config())
    assert "ErrorDetail(code=error_codes.INTERNAL_ERROR" in new


def _changed_site(path: str, code: str) -> FileResult:
    site = Site(
        "UNS501",
        Kind.ERROR,
        Position(1, 1, 1, 2),
        "m",
        Action.REWRITE,
        code=Inferred.high(code, "r"),
    )
    return FileResult(path, Status.PARSED, sites=(site,), new_source=b"x\n")


def test_helper_is_emitted_with_a_new_model(tmp_path: Path) -> None:
    config = configured(Config(root=tmp_path), error_target="helper")
    emitted = emit_error_modules([_changed_site("a.py", "INTERNAL_ERROR")], FactBook(), config)
    model = next(r for r in emitted if r.path.endswith("error_model.py"))
    assert model.new_text is not None
    assert "class ErrorDetail" in model.new_text
    assert "\n\n\ndef error_response(\n    code: str, message: str" in model.new_text
    namespace: dict[str, object] = {}
    exec(compile(model.new_text, "error_model.py", "exec"), namespace)  # noqa: S102
    helper = namespace["error_response"]
    assert callable(helper)
    assert helper("NOT_FOUND_RESOURCE", "gone") == {
        "success": False,
        "error": {"code": "NOT_FOUND_RESOURCE", "message": "gone"},
    }


def test_helper_is_appended_to_an_existing_model_once(tmp_path: Path) -> None:
    model = tmp_path / "error_model.py"
    model.write_text("class ErrorDetail:\n    pass\n", encoding="utf-8")
    config = configured(Config(root=tmp_path), error_target="helper")
    (result,) = [
        r
        for r in emit_error_modules([_changed_site("a.py", "INTERNAL_ERROR")], FactBook(), config)
        if r.path.endswith("error_model.py")
    ]
    assert result.new_text is not None
    assert result.new_text.startswith("class ErrorDetail:\n    pass\n\n\ndef error_response(")
    model.write_text(result.new_text, encoding="utf-8")
    again = emit_error_modules([_changed_site("a.py", "INTERNAL_ERROR")], FactBook(), config)
    assert not [r for r in again if r.path.endswith("error_model.py")]


def test_envelope_target_never_touches_an_existing_model(tmp_path: Path) -> None:
    (tmp_path / "error_model.py").write_text("class ErrorDetail:\n    pass\n", encoding="utf-8")
    emitted = emit_error_modules(
        [_changed_site("a.py", "INTERNAL_ERROR")], FactBook(), Config(root=tmp_path)
    )
    assert not [r for r in emitted if r.path.endswith("error_model.py")]


# -- codes outside the registry ---------------------------------------------------------


def test_configured_code_wins_over_inference() -> None:
    custom = {"NOTE_LOCKED": ("is locked",)}
    inferred = infer_error_code(409, (), "Note 7 is locked", custom=custom)
    assert (inferred.value, inferred.confidence.value) == ("NOTE_LOCKED", "high")
    assert "configured NOTE_LOCKED" in inferred.reason


def test_without_configuration_only_registry_codes() -> None:
    assert infer_error_code(409, (), "Note 7 is locked").value == "CONFLICT_ALREADY_EXISTS"


def test_configured_code_reaches_the_rewrite() -> None:
    config = configured(error_codes={"NOTE_LOCKED": ("is locked",)})
    new = _rewrite('def f():\n    return {"error": "note is locked"}\n', config)
    assert "code=error_codes.NOTE_LOCKED" in new


# -- validation: clear errors, exit code 2 ------------------------------------------------


def test_error_keys_load(tmp_path: Path) -> None:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "errors.py").write_text("def fail(c, m, d=None): ...\n", "utf-8")
    root = _pyproject(
        tmp_path,
        'error-target = "helper"\nerror-helper = "svc.errors:fail"\n'
        '[tool.unsentinel.error-codes]\nNOTE_LOCKED = ["is locked", "read-only note"]\n',
    )
    config = load_config((root,))
    settings = error_settings(config)
    assert settings.error_target == "helper"
    assert settings.error_helper == "svc.errors:fail"
    assert settings.error_codes == {"NOTE_LOCKED": ("is locked", "read-only note")}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        pytest.param(
            'error-target = "function"',
            "'tool.unsentinel.error-target' must be one of envelope, helper, got 'function'",
            id="unknown target",
        ),
        pytest.param(
            'error-target = "helper"\nerror-helper = "error_response"',
            'must be "module.path:function"',
            id="helper without a module",
        ),
        pytest.param(
            'error-helper = "svc.errors:fail"',
            "'tool.unsentinel.error-helper' only applies with 'tool.unsentinel.error-target'",
            id="helper without the helper target",
        ),
        pytest.param(
            'error-target = "helper"\nerror-helper = "svc.missing:fail"',
            "no module svc.missing in",
            id="helper the repository does not define",
        ),
        pytest.param(
            'error-codes = {"note-locked" = ["locked"]}',
            "code 'note-locked' must be UPPER_SNAKE_CASE",
            id="code name not upper snake case",
        ),
        pytest.param(
            'error-codes = {"NOTE_LOCKED" = []}',
            "NOTE_LOCKED must be a non-empty list of message keywords",
            id="code without keywords",
        ),
        pytest.param(
            'error-codes = ["NOTE_LOCKED"]',
            "must be a table of CODE = [keywords]",
            id="codes as a list",
        ),
    ],
)
def test_bad_error_config_is_a_clear_error(tmp_path: Path, table: str, message: str) -> None:
    root = _pyproject(tmp_path, table)
    with pytest.raises(ConfigError, match="pyproject.toml") as raised:
        load_config((root,))
    assert message in str(raised.value)
    result = CliRunner().invoke(main, ["check", str(root)])
    assert result.exit_code == 2
    assert message in result.stderr
