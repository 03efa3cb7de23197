"""``apply --interactive``: review every site before it is written, one prompt per site.

A reviewer's answers become an edited plan -- the same :class:`~unsentinel.core.decisions.Plan`
that ``apply --plan FILE`` loads -- so they are applied by the very path an edited plan
takes (fingerprints, renames, skips, all-or-nothing writing); this module writes nothing.
Accepted sites are plan entries with their (possibly edited) values, skipped sites are
``skip`` entries, and sites never reviewed (after ``q``) are in no entry: left as they are.

Input and output go through a :class:`Terminal` (a prompt-and-read function and a print
function), so tests script the answers and the CLI passes the real terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click

from unsentinel.core.decisions import DECIDABLE, Entry, Plan
from unsentinel.core.model import Action, Inferred
from unsentinel.core.plan_file import value_problem
from unsentinel.review.site_change import SiteChange

GROUP_SHOWN = 3  # sites of a skipped group named in the prompt; the rest are counted
KEYS = "[a]ccept  [s]kip  [e]dit a value  accept the rest of this [f]ile  [q]uit"
NO_TERMINAL = (
    "--interactive needs a terminal to ask on (standard input is not one); review a plan "
    "instead: `unsentinel plan PATH -o plan.toml`, edit it, `unsentinel apply --plan plan.toml`"
)


@dataclass(frozen=True)
class Terminal:
    """Where the review talks: ``ask`` shows a prompt and returns the line typed (it raises
    ``EOFError`` when input ends), ``say`` prints a line."""

    ask: Callable[[str], str]
    say: Callable[[str], None]
    color: bool = False

    def style(self, text: str, **styles: Any) -> str:
        return click.style(text, **styles) if self.color else text


def stdio_terminal(*, color: bool) -> Terminal:
    """The real terminal: prompts and the review on stderr (stdout stays for data)."""

    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    def say(text: str) -> None:
        click.echo(text, err=True, color=color)

    return Terminal(ask, say, color)


def has_terminal() -> bool:
    """Only a person at a terminal can answer: not CI, not a pipe."""
    return bool(getattr(sys.stdin, "isatty", lambda: False)())


@dataclass
class _Answer:
    accepted: bool
    because: str = ""  # why a site was decided without being asked


@dataclass
class _Review:
    changes: Sequence[SiteChange]
    terminal: Terminal
    answers: dict[tuple[str, str], _Answer] = field(default_factory=dict)
    edits: dict[tuple[str, str], dict[str, str | None]] = field(default_factory=dict)
    renames: dict[str, str] = field(default_factory=dict)  # a code is one constant
    accept_file: str | None = None

    # -- the loop ---------------------------------------------------------------------------
    def run(self) -> bool:
        """Ask about every site in turn; whether the accepted ones are to be written."""
        total = len(self.changes)
        for index, change in enumerate(self.changes, 1):
            known = self.answers.get(change.key)
            if known is not None:
                self._said_before(index, total, change, known)
            elif self.accept_file == change.path:
                self.answers[change.key] = _Answer(True, "the rest of the file")
                self._said_before(index, total, change, self.answers[change.key])
            else:
                try:
                    if not self._ask(index, total, change):
                        return self._confirm_quit()
                except EOFError:
                    self.terminal.say("input ended: nothing written")
                    return False
        self.terminal.say(self._summary())
        return any(a.accepted for a in self.answers.values())

    def _ask(self, index: int, total: int, change: SiteChange) -> bool:
        """One site: show it, read keys until it is decided; False to quit."""
        self._show(index, total, change)
        while True:
            key = self.terminal.ask(f"{KEYS} ? ").strip().lower()[:1]
            if key == "a":
                self.answers[change.key] = _Answer(True)
                return True
            if key == "s":
                self._skip(change)
                return True
            if key == "f":
                self.accept_file = change.path
                self.answers[change.key] = _Answer(True)
                return True
            if key == "q":
                return False
            if key == "e":
                self._edit(change)
                self._show_values(change)
                continue
            self.terminal.say("press a, s, e, f or q (then Enter)")

    def _said_before(self, index: int, total: int, change: SiteChange, known: _Answer) -> None:
        verdict = "accepted" if known.accepted else "skipped"
        why = known.because or "same source as a site already decided in this function"
        self.terminal.say(f"[{index}/{total}] {change.where} {verdict}: {why}")

    # -- skipping: a connected group migrates whole -------------------------------------------
    def _skip(self, change: SiteChange) -> None:
        self.answers[change.key] = _Answer(False)
        group = change.group
        if group is None:
            return
        others = [c for c in self.changes if c.group == group and c.key != change.key]
        flipped = [c for c in others if self.answers.get(c.key, _Answer(False)).accepted]
        because = f"in the group of the site skipped at {change.where}"
        for other in others:
            self.answers[other.key] = _Answer(False, because)
        if others:
            shown = ", ".join(c.where for c in others[:GROUP_SHOWN])
            more = f" and {len(others) - GROUP_SHOWN} more" if len(others) > GROUP_SHOWN else ""
            again = f"; {len(flipped)} of them accepted before, now skipped" if flipped else ""
            self.terminal.say(
                f"skipped with its connected group ({len(others)} other site(s): {shown}{more}"
                f"{again}): warnings change from str to Warning together or not at all"
            )

    # -- editing a value ------------------------------------------------------------------
    def _edit(self, change: SiteChange) -> None:
        editable = [name for name in DECIDABLE if name in change.site.inferred]
        if not editable:
            self.terminal.say("this site has no inferred value to edit")
            return
        name = self._field(editable)
        while True:
            hint = " (Enter for none)" if name == "field_path" else ""
            raw = self.terminal.ask(f"new {name}{hint} > ").strip()
            value = raw or None
            problem = _invalid(name, value)
            if problem is None:
                break
            self.terminal.say(problem)
        if name == "code":
            original = change.site.code.value if change.site.code is not None else None
            if original is not None and value is not None:
                self.renames[original] = value
                self.terminal.say(f"code {original} is one constant: every site with it follows")
            return
        self.edits.setdefault(change.key, {})[name] = value

    def _field(self, editable: list[str]) -> str:
        while True:
            raw = self.terminal.ask(f"edit which value ({' / '.join(editable)}) > ").strip()
            if raw in editable:
                return raw
            chosen = [n for n in editable if raw and n.startswith(raw)]
            if len(chosen) == 1:
                return chosen[0]
            self.terminal.say(f"one of: {', '.join(editable)}")

    def values(self, change: SiteChange) -> dict[str, str | None]:
        """The values accepting ``change`` writes: inferred, edited, codes renamed."""
        values = {name: inferred.value for name, inferred in change.site.inferred.items()}
        values.update(self.edits.get(change.key, {}))
        code = values.get("code")
        if code is not None:
            values["code"] = self.renames.get(code, code)
        return values

    # -- showing a site ---------------------------------------------------------------------
    def _show(self, index: int, total: int, change: SiteChange) -> None:
        site, say, style = change.site, self.terminal.say, self.terminal.style
        say("")
        say(style(f"[{index}/{total}] {change.where}  {site.rule}  {site.message}", bold=True))
        for line in change.before:
            say(style(f"- {line}", fg="red"))
        for line in change.after:
            say(style(f"+ {line}", fg="green"))
        for reason in site.reasons:
            say(f"  why: {reason}")
        self._show_values(change)

    def _show_values(self, change: SiteChange) -> None:
        current = self.values(change)
        for name, inferred in change.site.inferred.items():
            self.terminal.say(self._value_line(name, inferred, current.get(name)))

    def _value_line(self, name: str, inferred: Inferred, value: str | None) -> str:
        if value != inferred.value:
            how, why = "edited", f"was {inferred.value!r}"
        else:
            how, why = inferred.confidence.value, inferred.reason
        shown = self.terminal.style(how, fg="yellow" if how == "low" else None)
        return f"  {name:<10} {value!s:<28} {shown:<6}  {why}"

    # -- the end --------------------------------------------------------------------------
    def _counts(self) -> tuple[int, int, int, int]:
        accepted = {c.key for c in self.changes if self._accepted(c)}
        files = {c.path for c in self.changes if self._accepted(c)}
        skipped = {c.key for c in self.changes if c.key in self.answers} - accepted
        unreviewed = {c.key for c in self.changes if c.key not in self.answers}
        return len(accepted), len(files), len(skipped), len(unreviewed)

    def _accepted(self, change: SiteChange) -> bool:
        answer = self.answers.get(change.key)
        return answer is not None and answer.accepted

    def _summary(self) -> str:
        accepted, files, skipped, unreviewed = self._counts()
        left = f"{skipped} skipped"
        if unreviewed:
            left += f" and {unreviewed} not reviewed"
        return (
            f"{accepted} site(s) accepted in {files} file(s) will be written; "
            f"{left} are left as they are"
        )

    def _confirm_quit(self) -> bool:
        if not any(a.accepted for a in self.answers.values()):
            self.terminal.say("nothing accepted: nothing written")
            return False
        self.terminal.say(self._summary())
        try:
            answer = self.terminal.ask("write the accepted sites? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() in {"y", "yes"}:
            return True
        self.terminal.say("nothing written")
        return False

    def plan(self, paths: Sequence[str]) -> Plan:
        """The answers as an edited plan: the one ``apply --plan`` would load."""
        entries: dict[tuple[str, str], Entry] = {}
        for change in self.changes:
            answer = self.answers.get(change.key)
            if answer is None or change.key in entries:
                continue  # not reviewed: in no entry, so left as it is
            site = change.site
            name = f"{change.where}:{site.rule}"
            if not answer.accepted:
                entries[change.key] = Entry(
                    name, change.path, site.rule, change.fingerprint, 0, Action.SKIP.value
                )
                continue
            values = {k: v for k, v in self.values(change).items() if v is not None}
            entries[change.key] = Entry(
                name, change.path, site.rule, change.fingerprint, 0, values=values
            )
        return Plan(tuple(entries.values()), tuple(paths))


def review(
    changes: Sequence[SiteChange], terminal: Terminal, paths: Sequence[str] = ()
) -> Plan | None:
    """Ask about every site; the plan of what was accepted, or None to write nothing."""
    if not changes:
        terminal.say("nothing to review: no site would change")
        return None
    session = _Review(changes, terminal)
    if not session.run():
        return None
    return session.plan(paths)


def _invalid(name: str, value: str | None) -> str | None:
    """Why ``value`` cannot be ``name``, checked as a plan file's value is (None: it can)."""
    if value is None:
        return None if name == "field_path" else f"a {name} is needed"
    return value_problem(name, value)
