"""The person at the terminal, for the guided procedures (``calibrate
matrix``, ``doctor``).

A procedure talks through a :class:`Console`: :meth:`~Console.say` informs,
:meth:`~Console.ask` waits for the person to do something and returns what
they typed.  Each :class:`Prompt` also says, as data, what the person is
asked to do (``action`` and ``squares``), so a test can play the person on
a simulated board without reading the text.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Protocol, TextIO

__all__ = ["Console", "Prompt", "TerminalConsole"]


@dataclass(frozen=True)
class Prompt:
    """``action``: ``"clear"`` (take every piece off), ``"place"`` (pieces
    on exactly ``squares``), or ``"enter"`` (just go on)."""

    text: str
    action: str = "enter"
    squares: tuple[int, ...] = ()


class Console(Protocol):
    def say(self, text: str) -> None: ...

    def ask(self, prompt: Prompt) -> str: ...


class TerminalConsole:
    """Standard input and output (or any text streams)."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: Prompt) -> str:
        self.stdout.write(prompt.text + " ")
        self.stdout.flush()
        line = self.stdin.readline()
        return line.strip() if line else "q"  # end of input: quit
