"""``string_value`` is LibCST's ``evaluated_value`` for every string token, only cheaper."""

from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from unsentinel.core.syntax import string_value

PREFIXES = ("", "r", "b", "rb", "u", "R", "Br")
QUOTES = ('"', "'", '"""', "'''")


@pytest.mark.parametrize(
    "token",
    [
        pytest.param('"plain"', id="plain"),
        pytest.param("''", id="empty"),
        pytest.param('""""""', id="empty triple"),
        pytest.param('"tab\\there"', id="an escape"),
        pytest.param('r"C:\\dir"', id="raw"),
        pytest.param("b'bytes'", id="bytes"),
        pytest.param('"""two\r\nlines"""', id="a carriage return, translated"),
        pytest.param("'''it''s'''", id="quotes inside a triple-quoted token"),
        pytest.param('"caf\u00e9 \u2603"', id="non-ASCII"),
        pytest.param('"\\N{BULLET} \\u2022"', id="named and numbered escapes"),
    ],
)
def test_known_tokens(token: str) -> None:
    node = cst.SimpleString(token)
    assert string_value(node) == node.evaluated_value
    assert type(string_value(node)) is type(node.evaluated_value)


def _token(prefix: str, quote: str, body: str) -> str:
    return f"{prefix}{quote}{body}{quote}"


@given(
    st.sampled_from(PREFIXES),
    st.sampled_from(QUOTES),
    st.text(alphabet=st.sampled_from("ab \\\r\n\t\"'\u00e9x0N{}"), max_size=12),
)
def test_any_token_python_accepts(prefix: str, quote: str, body: str) -> None:
    token = _token(prefix, quote, body)
    try:
        node = cst.ensure_type(cst.parse_expression(token), cst.SimpleString)
        expected = node.evaluated_value
    except Exception:  # not a string token Python reads: no question to answer
        return
    assert string_value(node) == expected
    assert type(string_value(node)) is type(expected)
