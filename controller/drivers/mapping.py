"""Where each reed switch and each LED sits on the board.

Squares are numbered as in the sensor log: a1, b1, .., g1, a2, .., g7 (index
``rank * size + file``).  Switches are numbered ``row * size + column`` in
the matrix's own wiring.

The mapping is given either by the board's orientation or, after
``kharbga-board calibrate matrix``, by explicit tables:

- switches: ``a1`` names the matrix corner under square a1 (``"r0c0"``,
  ``"r0c6"``, ``"r6c0"`` or ``"r6c6"`` on a 7x7 board) and ``files`` says
  whether stepping from a1 to b1 moves along the matrix ``"columns"`` (the
  column number changes) or ``"rows"``; ``switches``, when given, lists the
  square of every switch in switch order and overrides both;
- LEDs: the chain starts ``led_offset`` LEDs before the board (a spare pixel
  used as a level shifter, say), then its first board LED lies under
  ``led_first`` (a corner square), runs along ``led_runs`` (``"ranks"``:
  a1, b1, ..; ``"files"``: a1, a2, ..), and with ``led_serpentine`` every
  other run comes back the other way, as a strip snaking under the board
  does; ``leds``, when given, lists the square above each board LED and
  overrides the rest.

The mapping is a frozen dataclass, read from and written to the TOML table
``[gpio.mapping]``; anything off raises :class:`ConfigError`, one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.board.geometry import points, remap

from .config_table import ConfigError, Table

__all__ = [
    "BoardMapping",
    "ConfigError",
    "FILES",
    "parse_square",
    "points",
    "square_name",
    "switch_name",
    "orientations",
]

FILES = "abcdefghi"
SIZES = (5, 7)
WHERE = "gpio.mapping"


def square_name(index: int, size: int = 7) -> str:
    """``0`` -> ``"a1"``, ``8`` -> ``"b2"`` on a 7x7 board."""
    return f"{FILES[index % size]}{index // size + 1}"


def parse_square(name: str, size: int = 7) -> int:
    """``"b2"`` -> ``8`` on a 7x7 board; ``ValueError`` for a bad name."""
    text = name.strip().lower()
    if len(text) >= 2 and text[0] in FILES[:size] and text[1:].isdigit():
        rank = int(text[1:])
        if 1 <= rank <= size:
            return (rank - 1) * size + FILES.index(text[0])
    last = f"{FILES[size - 1]}{size}"
    raise ConfigError(f"{name!r} is not a square of the {size}x{size} board (a1 to {last})")


def switch_name(index: int, size: int = 7) -> str:
    """``"r2c3"``: the switch in matrix row 2, column 3."""
    return f"r{index // size}c{index % size}"


def _corners(size: int) -> tuple[str, ...]:
    n = size - 1
    return ("r0c0", f"r0c{n}", f"r{n}c0", f"r{n}c{n}")


def _square_corners(size: int) -> tuple[str, ...]:
    last = FILES[size - 1]
    return ("a1", f"{last}1", f"a{size}", f"{last}{size}")


def orientations(size: int = 7) -> list[tuple[str, str]]:
    """The eight ``(a1, files)`` orientations of a square matrix."""
    return [(corner, files) for corner in _corners(size) for files in ("columns", "rows")]


@dataclass(frozen=True)
class BoardMapping:
    """Switch (row, column) and LED index to square, and back."""

    size: int = 7
    a1: str = "r0c0"
    files: str = "columns"
    switches: tuple[str, ...] = ()
    led_first: str = "a1"
    led_runs: str = "ranks"
    led_serpentine: bool = True
    led_offset: int = 0
    leds: tuple[str, ...] = ()
    # Derived tables, filled in by __post_init__.
    _switch_square: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _square_switch: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _led_square: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _square_led: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check(WHERE)
        sw = self._explicit(self.switches, "switches") or self._oriented_switches()
        led = self._explicit(self.leds, "leds") or self._chain()
        n = self.size * self.size
        inv_sw = [0] * n
        inv_led = [0] * n
        for i, sq in enumerate(sw):
            inv_sw[sq] = i
        for i, sq in enumerate(led):
            inv_led[sq] = i + self.led_offset
        object.__setattr__(self, "_switch_square", tuple(sw))
        object.__setattr__(self, "_square_switch", tuple(inv_sw))
        object.__setattr__(self, "_led_square", tuple(led))
        object.__setattr__(self, "_square_led", tuple(inv_led))

    # -- validation ---------------------------------------------------------

    def _check(self, where: str) -> None:
        if self.size not in SIZES:
            raise ConfigError(f"{where}.size: must be 5 or 7, not {self.size}")
        corners = _corners(self.size)
        if self.a1 not in corners:
            raise ConfigError(
                f"{where}.a1: {self.a1!r} is not a corner of the {self.size}x{self.size} "
                f"switch matrix ({', '.join(corners)})"
            )
        if self.files not in ("columns", "rows"):
            raise ConfigError(f'{where}.files: must be "columns" or "rows", not {self.files!r}')
        squares = _square_corners(self.size)
        if self.led_first not in squares:
            raise ConfigError(
                f"{where}.led_first: {self.led_first!r} is not a corner square "
                f"({', '.join(squares)})"
            )
        if self.led_runs not in ("ranks", "files"):
            raise ConfigError(
                f'{where}.led_runs: must be "ranks" or "files", not {self.led_runs!r}'
            )
        if not 0 <= self.led_offset <= 1000:
            raise ConfigError(f"{where}.led_offset: must be 0 to 1000, not {self.led_offset}")

    def _explicit(self, names: tuple[str, ...], key: str) -> list[int]:
        if not names:
            return []
        n = self.size * self.size
        where = f"{WHERE}.{key}"
        if len(names) != n:
            raise ConfigError(f"{where}: needs {n} squares, one per {key[:-1]}, got {len(names)}")
        out: list[int] = []
        seen: dict[int, int] = {}
        for i, name in enumerate(names):
            try:
                sq = parse_square(name, self.size)
            except ConfigError as exc:
                raise ConfigError(f"{where}: item {i + 1}: {exc}") from None
            if sq in seen:
                raise ConfigError(
                    f"{where}: square {square_name(sq, self.size)} appears twice "
                    f"(items {seen[sq] + 1} and {i + 1})"
                )
            seen[sq] = i
            out.append(sq)
        return out

    # -- the parametric forms ----------------------------------------------

    def _oriented_switches(self) -> list[int]:
        return oriented_switches(self.size, self.a1, self.files)

    def _chain(self) -> list[int]:
        size = self.size
        f0 = 0 if self.led_first[0] == "a" else size - 1
        k0 = 0 if self.led_first[1:] == "1" else size - 1
        df = 1 if f0 == 0 else -1
        dk = 1 if k0 == 0 else -1
        out = []
        for j in range(size * size):
            run, pos = divmod(j, size)
            if self.led_serpentine and run % 2:
                pos = size - 1 - pos
            if self.led_runs == "ranks":
                f, k = f0 + pos * df, k0 + run * dk
            else:
                f, k = f0 + run * df, k0 + pos * dk
            out.append(k * size + f)
        return out

    # -- lookups -------------------------------------------------------------

    @property
    def squares(self) -> int:
        return self.size * self.size

    @property
    def led_count(self) -> int:
        """LEDs in the chain, spare ones before the board included."""
        return self.led_offset + self.squares

    def square_of_switch(self, row: int, column: int) -> int:
        return self._switch_square[row * self.size + column]

    def switch_of_square(self, square: int) -> tuple[int, int]:
        return divmod(self._square_switch[square], self.size)

    def square_of_switch_index(self, index: int) -> int:
        return self._switch_square[index]

    def switch_index_of_square(self, square: int) -> int:
        return self._square_switch[square]

    def led_of_square(self, square: int) -> int:
        return self._square_led[square]

    def square_of_led(self, index: int) -> int | None:
        """The square above LED ``index`` (None for a spare LED)."""
        j = index - self.led_offset
        return self._led_square[j] if 0 <= j < self.squares else None

    def name(self, square: int) -> str:
        return square_name(square, self.size)

    def switch_label(self, index: int) -> str:
        return switch_name(index, self.size)

    def switches_to_squares(self, closed: int) -> int:
        """A bitmask of closed switches as a bitboard of squares."""
        return remap(closed, self._switch_square)

    def squares_to_switches(self, occupied: int) -> int:
        """A bitboard of squares as the bitmask of their switches."""
        return remap(occupied, self._square_switch)

    def with_switch_table(self, switch_squares: list[int]) -> BoardMapping:
        """This mapping with the switches given square by square (in switch
        order); written as an orientation when it is one."""
        return self._replace_tables(switch_squares, None)

    def with_led_table(self, led_squares: list[int]) -> BoardMapping:
        """This mapping with the LEDs given square by square (board LEDs in
        chain order)."""
        return self._replace_tables(None, led_squares)

    def _replace_tables(
        self, switch_squares: list[int] | None, led_squares: list[int] | None
    ) -> BoardMapping:
        fields: dict[str, Any] = self.to_table()
        if switch_squares is not None:
            fields.pop("switches", None)
            for corner, files in orientations(self.size):
                if oriented_switches(self.size, corner, files) == list(switch_squares):
                    fields["a1"], fields["files"] = corner, files
                    break
            else:
                fields["switches"] = [square_name(s, self.size) for s in switch_squares]
        if led_squares is not None:
            fields.pop("leds", None)
            for first in _square_corners(self.size):
                for runs in ("ranks", "files"):
                    for serp in (True, False):
                        trial = BoardMapping(
                            self.size, led_first=first, led_runs=runs, led_serpentine=serp
                        )
                        if list(trial._led_square) == list(led_squares):
                            fields["led_first"] = first
                            fields["led_runs"] = runs
                            fields["led_serpentine"] = serp
                            return BoardMapping.from_table(fields)
            fields["leds"] = [square_name(s, self.size) for s in led_squares]
        return BoardMapping.from_table(fields)

    # -- TOML ------------------------------------------------------------------

    @classmethod
    def from_table(cls, data: Mapping[str, object] | None) -> BoardMapping:
        """The mapping from its TOML table (absent keys take the defaults)."""
        t = Table(data, WHERE)
        d = cls()
        mapping = cls(
            size=t.get_int("size", d.size),
            a1=t.get_str("a1", d.a1),
            files=t.get_str("files", d.files),
            switches=t.get_str_list("switches", ()),
            led_first=t.get_str("led_first", d.led_first),
            led_runs=t.get_str("led_runs", d.led_runs),
            led_serpentine=t.get_bool("led_serpentine", d.led_serpentine),
            led_offset=t.get_int("led_offset", d.led_offset, 0, 1000),
            leds=t.get_str_list("leds", ()),
        )
        t.done()
        return mapping

    def to_table(self) -> dict[str, object]:
        out: dict[str, object] = {
            "size": self.size,
            "a1": self.a1,
            "files": self.files,
            "led_first": self.led_first,
            "led_runs": self.led_runs,
            "led_serpentine": self.led_serpentine,
            "led_offset": self.led_offset,
        }
        if self.switches:
            out["switches"] = list(self.switches)
        if self.leds:
            out["leds"] = list(self.leds)
        return out


def oriented_switches(size: int, a1: str, files: str) -> list[int]:
    """The square of every switch (in switch order) for an orientation."""
    r0 = int(a1[1 : a1.index("c")])
    c0 = int(a1[a1.index("c") + 1 :])
    dr = 1 if r0 == 0 else -1
    dc = 1 if c0 == 0 else -1
    out = [0] * (size * size)
    for k in range(size):  # rank
        for f in range(size):  # file
            if files == "columns":
                r, c = r0 + k * dr, c0 + f * dc
            else:
                r, c = r0 + f * dr, c0 + k * dc
            out[r * size + c] = k * size + f
    return out
