"""The vocabulary codes are made from: words that carry no situation (stop words, generic
nouns), idioms rewritten to the condition they name, and the words that say what is wrong.

Data only; ``inference.code`` reads messages with it. Kept apart so the tables can grow
(and be reviewed) without reading through the algorithm.
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "of",
        "for",
        "to",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "as",
        "at",
        "by",
        "on",
        "in",
        "into",
        "with",
        "from",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "it's",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "please",
        "we",
        "you",
        "your",
        "our",
        "their",
        "there",
        "here",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "how",
        "than",
        "also",
        "again",
        "any",
        "all",
        "each",
        "per",
        "via",
        "only",
        "just",
        "further",
        "such",
        # Filler that says how the author noticed, not what is wrong: "must be positive,
        # got {}" is the situation "quantity not positive" whatever value came in. (Not
        # "received": "PO {} is fully received" names the situation with it.)
        "got",
        # "Found file containing tabs": a file with tabs, as "with" says it.
        "containing",
    ]
)

# Idioms that name a condition in several words: "appears more than once" is a duplicate.
# Rewritten to the condition word before the words are counted, so "SKU {} appears more
# than once" and "duplicate SKU {}" name one situation.
IDIOMS = (
    (
        re.compile(
            r"\b(?:(?:appears?|occurs?|is listed|listed|is given|given|is used|used|"
            r"is specified|specified|is repeated)\s+)?"
            r"(?:more than once|twice|multiple times|several times)\b",
            re.IGNORECASE,
        ),
        " duplicate ",
    ),
    (re.compile(r"\b(?:is repeated|repeated)\b", re.IGNORECASE), " duplicate "),
    # "Java requires code_unit": what is missing is required, whoever requires it.
    (re.compile(r"\brequires\b", re.IGNORECASE), " required "),
    # "Name {} longer than 32 characters": the limit is the situation, not the comparison.
    (
        re.compile(
            r"\b(?:(?:is\s+)?longer than|exceeds)\s+(?:\d+|\{\})\s+char(?:acter)?s\b"
            r"|\b(?:is\s+)?(?:longer than|too long)\b",
            re.IGNORECASE,
        ),
        " too_long ",
    ),
    (re.compile(r"\b(?:is\s+)?(?:shorter than|too short)\b", re.IGNORECASE), " too_short "),
    # "DBT_PATH environment variable is required": where the setting lives, not what is
    # wrong with it.
    (re.compile(r"\benvironment variables?\b", re.IGNORECASE), " "),
    # "is not a valid FQDN" and "invalid FQDN" are one condition: a rephrasing must not
    # make a second code ("Invalid value {}: not a valid FQDN" says it twice).
    (
        re.compile(
            r"\b(?:(?:is|are|was|were)\s+not|(?:is|are|was|were)n['’]t|not)\s+(?:an?\s+)?valid\b",
            re.IGNORECASE,
        ),
        " invalid ",
    ),
    # "Expected depth to be a number, got {}": the situation is "depth not a number".
    (
        re.compile(r"\bexpected\s+(?P<subject>[^,.;:]+?)\s+to\s+be\b", re.IGNORECASE),
        r" \g<subject> not ",
    ),
    # "X does not exist" is "X missing".
    (
        re.compile(r"\b(?:(?:does|do|did)\s+not|(?:does|do|did)n['’]t)\s+exists?\b", re.IGNORECASE),
        " missing ",
    ),
)

# Words that name *what* a warning is about rather than *what is wrong*, in any domain.
# Dropping them lets "item 7 is already completed" and "item 9 ..." share a code. The
# project's own nouns ("order", "invoice", "MO") come from the `entity-nouns` setting.
GENERIC_ENTITY_NOUNS = frozenset(
    [
        "item",
        "items",
        "record",
        "records",
        "entry",
        "entries",
        "request",
        "warning",
        "warnings",
        "error",
        "note",
    ]
)

AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can"]
)
IRREGULAR_PARTICIPLES = frozenset(["found", "seen", "done", "made", "taken", "sent", "written"])
# Participles that only say the subject was not there: "No location given".
ABSENCE_PARTICIPLES = frozenset(
    ["specified", "given", "provided", "present", "supplied", "set", "passed", "requested"]
)

NEGATIONS = frozenset({"no", "not", "without"})

# Words that say *what is wrong*: a code without one names a subject, not a situation.
CONDITION_WORDS = frozenset(
    [
        "invalid",
        "missing",
        "unknown",
        "duplicate",
        "duplicated",
        "found",
        "failed",
        "fails",
        "empty",
        "required",
        "deprecated",
        "unsupported",
        "unrecognized",
        "unrecognised",
        "exceeds",
        "exceeded",
        "mismatch",
        "conflict",
        "conflicts",
        "negative",
        "zero",
        "too",
        "too_long",
        "too_short",
        "already",
        "blocked",
        "not",
        "no",
        "without",
        "cannot",
        "cant",
        "unable",
        "disabled",
        "expired",
        "ignored",
        "skipped",
        "truncated",
        "capped",
        "ambiguous",
        "inconsistent",
        "unreachable",
        "undefined",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "arent",
        "wasnt",
        "werent",
        "wont",
        "couldnt",
        "shouldnt",
    ]
)

# Conditions that read after their subject in a code: ``REGION_INVALID``, ``TITLE_MISSING``.
# A message that opens with one ("Invalid region", "Missing title") has it moved behind the
# subject. Negations and ``already``, ``too`` stay where the message has them.
TRAILING_CONDITIONS = frozenset(
    [
        "invalid",
        "missing",
        "unknown",
        "duplicate",
        "duplicated",
        "failed",
        "empty",
        "required",
        "deprecated",
        "unsupported",
        "unrecognized",
        "unrecognised",
        "ambiguous",
        "inconsistent",
        "unreachable",
        "undefined",
        "expired",
        "disabled",
        "ignored",
        "skipped",
        "truncated",
        "capped",
        "blocked",
        "negative",
    ]
)
