"""Wire contracts: JSON Schema and OpenAPI files that pin the response shape outside Python.

A repository's contract tests validate responses against such files; once ``apply`` turns
``warnings`` into ``Warning`` objects (or ``error`` strings into ``ErrorDetail`` objects)
a schema still saying "array of strings" (or "string") fails them by surprise. This
package finds those schema locations under the paths of the run and either reports each
as a site the user must change or, with ``--update-schemas``, rewrites it.

It knows neither feature: :mod:`unsentinel.registry` hands it, per migration, the model's
fields (:class:`~unsentinel.core.fields.ModelField`) and a test of whether the run migrates
it (:class:`~unsentinel.contracts.emit.Migration`). An import-linter contract enforces that.
"""

from __future__ import annotations

from unsentinel.contracts.emit import Contracts, Migration, emit_contracts

__all__ = ["Contracts", "Migration", "emit_contracts"]
