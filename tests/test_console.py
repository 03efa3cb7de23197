"""The lazy console prints plain lines itself, exactly as rich would, and loads rich only
for the rest (tables, markup, non-ASCII): a run with nothing rich to show never imports it.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from unsentinel.output import console as consoles

PRINTABLE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200)
ANY_TEXT = st.text(max_size=60)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def through_rich(text: str, *, markup: bool | None, color: bool, tty: bool = False) -> str:
    stream = Terminal() if tty else io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        consoles.make_console(stderr=True, color=color).print(text, markup=markup)
    return stream.getvalue()


def through_lazy(text: str, *, markup: bool | None, color: bool, tty: bool = False) -> str:
    stream = Terminal() if tty else io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        consoles.LazyConsole(stderr=True, color=color).print(text, markup=markup)
    return stream.getvalue()


@settings(max_examples=300, deadline=None)
@given(
    text=PRINTABLE, markup=st.sampled_from([None, False]), color=st.booleans(), tty=st.booleans()
)
@example(text="[bold]x[/bold] \\[y]", markup=None, color=True, tty=False)
@example(text=":cat: " + "w" * 150, markup=None, color=False, tty=True)
def test_a_plain_line_prints_as_rich_prints_it(
    text: str, markup: bool | None, color: bool, tty: bool
) -> None:
    """On a terminal or not, coloured or not: the bytes rich would write."""
    lazy = through_lazy(text, markup=markup, color=color, tty=tty)
    assert lazy == through_rich(text, markup=markup, color=color, tty=tty)


@settings(max_examples=300, deadline=None)
@given(text=ANY_TEXT, markup=st.sampled_from([None, False]), color=st.booleans())
def test_any_line_prints_as_rich_prints_it(text: str, markup: bool | None, color: bool) -> None:
    """Control codes, tabs, wide characters and markup go through rich itself."""
    try:
        expected = through_rich(text, markup=markup, color=color)
    except Exception as exc:  # rich rejects some markup ("[/x]" closing nothing): so do we
        with pytest.raises(type(exc)):
            through_lazy(text, markup=markup, color=color)
        return
    assert through_lazy(text, markup=markup, color=color) == expected


@pytest.mark.parametrize(
    ("text", "markup", "plain"),
    [
        ("All clear: no findings in 3 file(s).", None, True),
        ("error: a[1].py: invalid", False, True),
        ("[bold]x[/bold]", None, False),  # markup: rich reads it
        ("caf\u00e9.py", False, False),  # not ASCII: rich measures it
        ("a\tb", False, False),  # a tab: rich expands it
        ("a\rb", False, False),  # a control code: rich strips it
    ],
)
def test_which_lines_are_plain(text: str, markup: bool | None, plain: bool) -> None:
    assert consoles.plain(text, markup=markup) is plain


def test_printing_plain_lines_loads_no_rich() -> None:
    probe = (
        "import sys\n"
        "from unsentinel.output.console import LazyConsole\n"
        "LazyConsole(color=True).print('All clear: no findings in 1 file(s).')\n"
        "print('rich' in sys.modules, file=sys.stdout)\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout == "False\n"
    assert ran.stderr == "All clear: no findings in 1 file(s).\n"
