"""A LibCST codemod that changes nothing: the floor of LibCST's own runner.

benchmarks/run.py times it over each tree, with the same ``-j`` as unsentinel:

    PYTHONPATH=benchmarks python -m libcst.tool codemod -x noop_codemod.NoOpCommand \
        -j 2 --no-format --hide-progress -u 1 TREE

The runner reads, parses and round-trips every file, and the visitor walks every node, so
what remains is the cost any LibCST-based codemod pays before doing its own work.
"""

from __future__ import annotations

from libcst.codemod import VisitorBasedCodemodCommand


class NoOpCommand(VisitorBasedCodemodCommand):
    DESCRIPTION = "Parse every file, visit every node, and give the module back unchanged."
