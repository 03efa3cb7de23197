"""Measure unsentinel's inference on real warnings labelled by hand (issue 13).

    python benchmarks/inference.py               # print the figures
    python benchmarks/inference.py --write-doc   # ... and put them into docs/inference.md
    python benchmarks/inference.py --only NAME   # one package, for a quick look

The labels are in ``benchmarks/inference_labels.toml`` (see its header). For each pinned
package the script downloads the sdist (``sdists.py``, verified by sha256, cached outside
the repository), copies it into a temporary directory, prefixes the messages of the sites
marked ``sentinel = true`` with ``BLOCK: ``, runs ``unsentinel plan --format json`` on the
copy with the package's list names, and matches the plan's producer sites to the labels
by path and line (a label on ``out.append(msg)`` whose local is only appended matches
the plan's site at ``msg = ...`` above it, where the plan reports that message).

Per field (severity, field_path, code) and separately for the tuning half and the
holdout it reports: coverage (labelled sites the plan lists with values; a site it
skips has none), accuracy (right among the found), how often ``high`` is right, the
share of wrong values flagged ``low``, and the severity confusion table.

Comparisons: a field path is compared after mapping every index placeholder
(``[{i}]``, ``[{n - 1}]``, ``[0]``) to ``[i]``; null and "" both mean "no field". A code
is *right* when it names the same situation: the same set of meaningful words after
lower-casing, dropping filler words (articles, auxiliaries, prepositions, "got", "more",
...) and a plural ``s``; exact matches (same slug, case-insensitive) are reported too.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sdists import Pin, fetch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "benchmarks" / "inference_labels.toml"
DOC = ROOT / "docs" / "inference.md"
FIGURES = ROOT / "benchmarks" / "inference_figures.json"  # read by tests/test_inference_floor.py
UNSENTINEL = ROOT / ".venv" / "bin" / "unsentinel"
START = "<!-- inference-figures:start -->"
END = "<!-- inference-figures:end -->"
FIELDS = ("severity", "field_path", "code")
SEVERITIES = ("info", "advisory", "blocking")
SENTINEL = "BLOCK: "
FILLER = frozenset(
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
        "has",
        "have",
        "had",
        "of",
        "to",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "and",
        "or",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "got",
        "than",
        "more",
        "please",
        "should",
        "must",
        "will",
        "would",
        "can",
        "could",
        "does",
        "do",
        "did",
        "there",
        "here",
        "any",
        "some",
    ]
)
OPENERS = (".append(", ".extend([", ".extend((", "+= [", "+= (")
QUOTE = re.compile(r"""(?<![A-Za-z0-9_])([rRuUfF]{0,2})("|')""")
INDEX = re.compile(r"\[\{[^}]*\}\]|\[\d+\]|\[[A-Za-z_]\w*\]")


@dataclass(frozen=True)
class Label:
    package: str
    path: str
    line: int
    severity: str
    field_path: str
    code: str
    holdout: bool
    sentinel: bool


@dataclass
class Outcome:
    """One labelled site and what the plan said about it (``site`` is None when absent)."""

    label: Label
    site: dict[str, Any] | None


@dataclass
class Tally:
    labelled: int = 0
    found: int = 0
    right: int = 0
    exact: int = 0
    high: int = 0
    high_right: int = 0
    wrong: int = 0
    wrong_low: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)


# --- labels and packages ------------------------------------------------------------


def load_labels(path: Path = LABELS) -> tuple[dict[str, tuple[Pin, list[str]]], list[Label]]:
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    packages = {
        f"{p['name']}=={p['version']}": (
            Pin(p["name"], p["version"], p["sha256"]),
            list(p["list_names"]),
        )
        for p in document["packages"]
    }
    labels = [
        Label(
            package=s["package"],
            path=s["path"],
            line=int(s["line"]),
            severity=s["severity"],
            field_path=s["field_path"],
            code=s["code"],
            holdout=bool(s.get("holdout", False)),
            sentinel=bool(s.get("sentinel", False)),
        )
        for s in document["sites"]
    ]
    return packages, labels


# --- preparing a copy ---------------------------------------------------------------


def literal_column(text: str) -> int:
    """Column of the string literal that starts the message on this line, or -1."""
    start = max((text.rfind(o) + len(o) for o in OPENERS if o in text), default=0)
    match = QUOTE.search(text, start)
    if match is None:
        return -1
    quote = match.group(2)
    end = match.end()
    return end + 2 if text[end : end + 2] == quote * 2 else end


def add_sentinel(text: str) -> str:
    """``text`` with ``BLOCK: `` inserted right after the opening quote of the message."""
    column = literal_column(text)
    if column < 0:
        raise ValueError(f"no string literal to mark on: {text.strip()[:40]!r}")
    return text[:column] + SENTINEL + text[column:]


def apply_sentinels(tree: Path, labels: list[Label]) -> None:
    by_file: dict[str, list[int]] = defaultdict(list)
    for label in labels:
        if label.sentinel:
            by_file[label.path].append(label.line)
    for relative, lines in by_file.items():
        target = tree / relative
        source = target.read_text(encoding="utf-8")
        rows = source.split("\n")
        for line in lines:
            rows[line - 1] = add_sentinel(rows[line - 1])
        target.write_text("\n".join(rows), encoding="utf-8")


def write_config(directory: Path, list_names: list[str]) -> Path:
    config = directory / "pyproject.toml"
    names = ", ".join(json.dumps(name) for name in list_names)
    config.write_text(f"[tool.unsentinel]\nwarning-list-names = [{names}]\n", encoding="utf-8")
    return config


def run_plan(tree: Path, config: Path, command: str) -> list[dict[str, Any]]:
    completed = subprocess.run(
        [command, "plan", ".", "--format", "json", "--config", str(config), "--jobs", "1"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if not completed.stdout.strip():
        raise RuntimeError(
            f"plan printed nothing (exit {completed.returncode}): {completed.stderr[-500:]}"
        )
    sites = json.loads(completed.stdout)["sites"]
    return [site for site in sites if site.get("kind") == "producer"]


def plan_package(
    pin: Pin, list_names: list[str], labels: list[Label], command: str
) -> list[dict[str, Any]]:
    source = fetch(pin)
    with tempfile.TemporaryDirectory(prefix="uns-inference-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".complete"))
        apply_sentinels(tree, labels)
        config_dir = Path(scratch) / "config"
        config_dir.mkdir()
        return run_plan(tree, write_config(config_dir, list_names), command)


# --- matching and comparing -----------------------------------------------------------


def match(
    labels: list[Label], sites: list[dict[str, Any]], tree: Path | None = None
) -> list[Outcome]:
    exact = {(s["path"], s["line"]): s for s in sites}
    outcomes = []
    for label in labels:
        site = exact.get((label.path, label.line))
        if site is None:
            site = _covering(sites, label.path, label.line)
        if site is None and tree is not None:
            assigned = assignment_line(tree / label.path, label.line)
            if assigned is not None:
                site = next(
                    (
                        s
                        for s in sites
                        if s["path"] == label.path and assigned <= s["line"] <= assigned + 2
                    ),
                    None,
                )
        outcomes.append(Outcome(label, site))
    return outcomes


def _covering(sites: list[dict[str, Any]], path: str, line: int) -> dict[str, Any] | None:
    return next(
        (
            s
            for s in sites
            if s["path"] == path and s["line"] <= line <= s.get("end_line", s["line"])
        ),
        None,
    )


APPENDED_NAME = re.compile(r"\.(?:append|insert)\((?:[^,()]*,\s*)?([A-Za-z_]\w*)\)\s*$")


def assignment_line(source: Path, line: int) -> int | None:
    """``out.append(msg)`` on ``line``: the line of the nearest ``msg = ...`` above it in
    the same function, where the plan reports a local that is only appended (the
    assignment's string becomes the ``Warning``). The label keeps the append's line, as
    the header says; this only finds the plan's site for it."""
    rows = source.read_text(encoding="utf-8").split("\n")
    found = APPENDED_NAME.search(rows[line - 1])
    if found is None:
        return None
    assigned = re.compile(rf"^\s*{found.group(1)}\s*(?::[^=]*)?=(?!=)")
    for number in range(line - 1, 0, -1):
        row = rows[number - 1]
        if assigned.match(row):
            return number
        if re.match(r"^\s*(?:async\s+)?def\s", row):
            return None
    return None


def normal_path(value: str | None) -> str:
    return INDEX.sub("[i]", value or "").strip()


def code_words(code: str | None) -> frozenset[str]:
    words = [w for w in re.split(r"[^a-z0-9]+", (code or "").lower()) if w and w not in FILLER]
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


def judge(name: str, label: Label, site: dict[str, Any]) -> tuple[bool, bool]:
    """(right, exact) for one field."""
    if name == "severity":
        same = site.get("severity") == label.severity
        return same, same
    if name == "field_path":
        same = normal_path(site.get("field_path")) == normal_path(label.field_path)
        return same, same
    got = site.get("code") or ""
    exact = got.lower() == label.code.lower()
    return exact or (bool(got) and code_words(got) == code_words(label.code)), exact


def skipped(site: dict[str, Any]) -> bool:
    """A site the plan lists as skipped (its group cannot be migrated) has no values."""
    return site.get("action") == "skip" and site.get("severity") is None


def tally(outcomes: list[Outcome], name: str) -> Tally:
    result = Tally(labelled=len(outcomes))
    for outcome in outcomes:
        site = outcome.site
        if name == "severity":
            got = (
                "missing"
                if site is None
                else "skipped"
                if skipped(site)
                else str(site.get("severity"))
            )
            known = got in SEVERITIES or got in ("missing", "skipped")
            result.confusion[(outcome.label.severity, got if known else "other")] += 1
        if site is None or skipped(site):
            continue
        result.found += 1
        right, exact = judge(name, outcome.label, site)
        confidence = (site.get("confidence") or {}).get(name, "low")
        result.right += right
        result.exact += exact
        result.high += confidence == "high"
        result.high_right += confidence == "high" and right
        result.wrong += not right
        result.wrong_low += not right and confidence == "low"
    return result


def same_code_per_situation(outcomes: list[Outcome], *, covered: bool = False) -> tuple[int, int]:
    """(situations labelled more than once, of them those the tool gave one code). A
    skipped site has no code, so its situation counts as more than one code; with
    ``covered``, only the sites the plan gives values count (as the tables count): does
    the tool give one code where it gives any?"""
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    counts: Counter[tuple[str, str]] = Counter()
    for outcome in outcomes:
        if covered and not (outcome.site or {}).get("code"):
            continue
        key = (outcome.label.package, outcome.label.code)
        counts[key] += 1
        groups[key].add((outcome.site or {}).get("code") or "<none>")
    repeated = [key for key, count in counts.items() if count > 1]
    return len(repeated), sum(
        1 for key in repeated if len(groups[key]) == 1 and "<none>" not in groups[key]
    )


# --- report --------------------------------------------------------------------------


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}% ({part}/{whole})" if whole else "n/a"


def field_table(outcomes: list[Outcome]) -> list[str]:
    rows = [
        "| field | coverage | accuracy | exact | `high` right | wrong flagged `low` |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in FIELDS:
        t = tally(outcomes, name)
        exact = percent(t.exact, t.found) if name == "code" else "="
        rows.append(
            f"| {name} | {percent(t.found, t.labelled)} | {percent(t.right, t.found)} | {exact} "
            f"| {percent(t.high_right, t.high)} | {percent(t.wrong_low, t.wrong)} |"
        )
    return rows


def confusion_table(outcomes: list[Outcome]) -> list[str]:
    confusion = tally(outcomes, "severity").confusion
    columns = [*SEVERITIES, "other", "skipped", "missing"]
    rows = [
        "| labelled \\ inferred | " + " | ".join(columns) + " |",
        "| --- |" + " --- |" * len(columns),
    ]
    for severity in SEVERITIES:
        rows.append(
            f"| {severity} | " + " | ".join(str(confusion[(severity, c)]) for c in columns) + " |"
        )
    return rows


def half_report(title: str, outcomes: list[Outcome]) -> list[str]:
    repeated, stable = same_code_per_situation(outcomes)
    covered_repeated, covered_stable = same_code_per_situation(outcomes, covered=True)
    # Counted among the covered sites, as the tables count: a skipped one has no severity.
    sentinel = [o for o in outcomes if o.label.sentinel and o.site and o.site.get("severity")]
    sentinel_skipped = sum(1 for o in outcomes if o.label.sentinel) - len(sentinel)
    sentinel_right = sum(1 for o in sentinel if o.site and o.site.get("severity") == "blocking")
    packages = len({o.label.package for o in outcomes})
    return [
        f"### {title}: {len(outcomes)} sites from {packages} packages",
        "",
        *field_table(outcomes),
        "",
        *confusion_table(outcomes),
        "",
        "Hand-converted sentinel sites inferred `blocking`: "
        f"{percent(sentinel_right, len(sentinel))} of those covered "
        f"({sentinel_skipped} more skipped with their group). "
        f"Situations labelled more than once that got one code: {percent(stable, repeated)}; "
        "counting only the sites the plan covers (a skipped site has no code): "
        f"{percent(covered_stable, covered_repeated)}.",
        "",
    ]


def report(outcomes: list[Outcome], packages: int) -> str:
    tuning = [o for o in outcomes if not o.label.holdout]
    holdout = [o for o in outcomes if o.label.holdout]
    lines = [
        f"Measured by `python benchmarks/inference.py` on {len(outcomes)} labelled warning sites "
        f"from {packages} PyPI packages (`benchmarks/inference_labels.toml`). Coverage: labelled "
        "sites the plan lists with inferred values (a site it skips, because its group of "
        "warnings cannot be migrated whole, has none: column *skipped*); accuracy and the "
        "confidence columns count those sites. A code "
        "is right when it has the same meaningful words as the label; *exact* is the same slug.",
        "",
        *half_report("Tuning half", tuning),
        *half_report("Holdout", holdout),
    ]
    return "\n".join(lines).rstrip() + "\n"


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Per half and field, each figure as [part, whole]: what the floor test pins."""
    halves = {
        "tuning": [o for o in outcomes if not o.label.holdout],
        "holdout": [o for o in outcomes if o.label.holdout],
    }
    result: dict[str, dict[str, dict[str, list[int]]]] = {}
    for half, chosen in halves.items():
        result[half] = {}
        for name in FIELDS:
            t = tally(chosen, name)
            result[half][name] = {
                "coverage": [t.found, t.labelled],
                "accuracy": [t.right, t.found],
                "high_right": [t.high_right, t.high],
                "wrong_low": [t.wrong_low, t.wrong],
            }
    return result


def write_doc(figures: str, doc: Path = DOC) -> None:
    text = doc.read_text(encoding="utf-8")
    block = f"{START}\n{figures}{END}"
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text, encoding="utf-8")


def measure(
    packages: dict[str, tuple[Pin, list[str]]], labels: list[Label], unsentinel: str
) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for key, (pin, list_names) in sorted(packages.items()):
        mine = [label for label in labels if label.package == key]
        print(f"{pin}: {len(mine)} labelled sites", file=sys.stderr)
        outcomes.extend(match(mine, plan_package(pin, list_names, mine, unsentinel), fetch(pin)))
    return outcomes


def load_dump(path: Path) -> list[Outcome]:
    """The outcomes an earlier run wrote with ``--dump`` (labels as they were then)."""
    entries = json.loads(path.read_text(encoding="utf-8"))
    return [Outcome(Label(**entry["label"]), entry["site"]) for entry in entries]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--write-doc",
        action="store_true",
        help="write the figures into docs/inference.md and benchmarks/inference_figures.json",
    )
    parser.add_argument(
        "--unsentinel", default=str(UNSENTINEL), help="the unsentinel command to run"
    )
    parser.add_argument("--dump", type=Path, help="also write every site's comparison as JSON here")
    parser.add_argument(
        "--from-dump",
        type=Path,
        metavar="FILE",
        help="report (and with --write-doc, write) the figures of an earlier run's --dump",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="measure only this package (repeatable; a quick look, never written as figures)",
    )
    args = parser.parse_args()
    if args.only and args.write_doc:
        parser.error("--write-doc needs every package: the figures are the whole set's")
    packages, labels = load_labels()
    if args.only:
        packages = {k: v for k, v in packages.items() if v[0].name in args.only}
    if args.from_dump:
        outcomes = load_dump(args.from_dump)
    else:
        outcomes = measure(packages, labels, args.unsentinel)
    figures = report(outcomes, len({outcome.label.package for outcome in outcomes}))
    print(figures)
    if args.dump:
        args.dump.write_text(
            json.dumps([{"label": o.label.__dict__, "site": o.site} for o in outcomes], indent=1)
        )
    if args.write_doc:
        write_doc(figures)
        FIGURES.write_text(json.dumps(summary(outcomes), indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
