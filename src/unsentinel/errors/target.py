"""The configured target of UNS501: the spec's envelope, or the repository's helper.

``error-target = "envelope"`` (the default) builds ``{"success": False, "error":
ErrorDetail(...).to_dict()}``; ``"helper"`` calls the repository's own function instead.
Either way the rewritten file imports the codes module and the model (or the helper), so
the choice and its imports live together here, apart from finding the sites.
"""

from __future__ import annotations

import libcst as cst

from unsentinel.core.rule import RuleContext
from unsentinel.errors import build
from unsentinel.errors.settings import error_helper_target, error_settings, module_path
from unsentinel.errors.site_error import SiteError

MODEL_NAME = "ErrorDetail"


class Target:
    """Builds a site's replacement for the configured target and asks for its imports."""

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.settings = error_settings(context.config)

    @property
    def uses_helper(self) -> bool:
        return self.settings.error_target == "helper"

    @property
    def imported_module(self) -> str:
        """The generated module every rewrite imports: the codes module."""
        return module_path(self.settings.error_codes_module)

    def response(self, error: SiteError) -> cst.BaseExpression:
        """The whole failed response: the spec's envelope, or the configured helper's call."""
        if self.uses_helper:
            return self._helper_call(error)
        return build.envelope(self._detail_call(error))

    def error_value(self, error: SiteError) -> cst.BaseExpression:
        """Just the envelope's ``error`` object (for ``r["error"] = ...``)."""
        if self.uses_helper:
            return build.error_of(self._helper_call(error))
        return self._detail_call(error)

    def _detail_call(self, error: SiteError) -> cst.Call:
        codes_module = self._codes_module()
        self.context.add_import(module_path(self.settings.error_model_module), MODEL_NAME)
        return build.error_detail_call(
            MODEL_NAME, codes_module, error.code, error.message, error.details
        )

    def _helper_call(self, error: SiteError) -> cst.Call:
        codes_module = self._codes_module()
        module, name = error_helper_target(self.context.config)
        self.context.add_import(module, name)
        return build.helper_call(name, codes_module, error.code, error.message, error.details)

    def _codes_module(self) -> str:
        """Imports the codes module; returns the name the rewritten code refers to it by."""
        codes_module = self.imported_module
        self.context.add_import(*_import_of(codes_module))
        return codes_module.rsplit(".", 1)[-1]


def _import_of(module: str) -> tuple[str, str | None]:
    """``errsvc.error_codes`` -> ``from errsvc import error_codes``; ``error_codes`` -> import."""
    if "." in module:
        package, name = module.rsplit(".", 1)
        return package, name
    return module, None
