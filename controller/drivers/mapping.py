"""Where each reed switch and each LED sits on the board.

Points are numbered as in the sensor log: a1, b1, .., g1, a2, .., g7 on the
7x7 board (index ``rank * size + file``), the geometry's order on the
37-point and 8x8 boards.  Switches are numbered ``row * columns + column``
in the matrix's own wiring.  ``board`` names the board (``"7x7"`` by
default, or from ``size``; ``"5x5"``, ``"8x8"``, ``"37-point"``); the
points lie on a grid of cells (:mod:`.layout`: the 37-point board on a
5 x 9 grid, the 8x8 board with ``dark_only`` on its 32 dark squares).

The mapping is given either by the board's orientation or, after
``kharbga-board calibrate matrix``, by explicit tables:

- switches: ``a1`` names the matrix corner under the grid's a1 corner
  (``"r0c0"``, ``"r0c6"``, ``"r6c0"`` or ``"r6c6"`` on a 7x7 board;
  ``"r8c4"`` is the far corner of the 37-point board's 9 x 5 matrix) and
  ``files`` says whether stepping from a1 to b1 moves along the matrix
  ``"columns"`` (the column number changes) or ``"rows"``; ``switches``,
  when given, lists the point of every switch in switch order (``"-"``
  for a crossing with no switch) and overrides both, on a matrix of
  ``rows`` x ``columns`` (the orientation's by default);
- LEDs: the chain starts ``led_offset`` LEDs before the board (a spare pixel
  used as a level shifter, say), then its first board LED lies under
  ``led_first`` (a corner of the grid), runs along ``led_runs`` (``"ranks"``:
  a1, b1, ..; ``"files"``: a1, a2, ..), skipping cells with no point, and
  with ``led_serpentine`` every other run comes back the other way, as a
  strip snaking under the board does; ``leds``, when given, lists the
  point above each board LED in chain order (``"-"`` for an LED under no
  point: between squares, in a strip's bends; it stays dark) and overrides
  the rest.  Every sensed point (37, 49, 64, or 32 with ``dark_only``) has
  exactly one LED; the chain may have more.

The mapping is a frozen dataclass, read from and written to the TOML table
``[gpio.mapping]``; anything off raises :class:`ConfigError`, one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.board.geometry import points
from controller.board.words import place

from .config_table import ConfigError, Table
from .layout import BOARDS, Layout, layout

__all__ = [
    "BoardMapping",
    "ConfigError",
    "FILES",
    "gpio_table_for_board",
    "named_board",
    "parse_square",
    "points",
    "square_name",
    "switch_name",
    "orientations",
]

FILES = "abcdefghi"
SIZES = (5, 7, 8)
WHERE = "gpio.mapping"
UNUSED = "-"  # a crossing with no switch in ``switches``, an LED under no point in ``leds``


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
    """``"r2c3"``: the switch in matrix row 2, column 3 (``size`` columns)."""
    return f"r{index // size}c{index % size}"


def _corners(rows: int, columns: int) -> tuple[str, ...]:
    r, c = rows - 1, columns - 1
    return ("r0c0", f"r0c{c}", f"r{r}c0", f"r{r}c{c}")


def orientations(size: int = 7) -> list[tuple[str, str]]:
    """The eight ``(a1, files)`` orientations of a square matrix."""
    return [(corner, files) for corner in _corners(size, size) for files in ("columns", "rows")]


def _shape(grid: Layout, files: str) -> tuple[int, int]:
    """Matrix rows and columns of an oriented grid."""
    if files == "columns":
        return grid.height, grid.width
    return grid.width, grid.height


def oriented_table(grid: Layout, a1: str, files: str) -> list[int]:
    """The point of every switch (in switch order, -1 for none) for an
    orientation of the grid."""
    rows, columns = _shape(grid, files)
    r0 = int(a1[1 : a1.index("c")])
    c0 = int(a1[a1.index("c") + 1 :])
    dr = 1 if r0 == 0 else -1
    dc = 1 if c0 == 0 else -1
    out = [-1] * (rows * columns)
    for k in range(grid.height):
        for f in range(grid.width):
            if files == "columns":
                r, c = r0 + k * dr, c0 + f * dc
            else:
                r, c = r0 + f * dr, c0 + k * dc
            out[r * columns + c] = grid.point_at(f, k)
    return out


def oriented_switches(size: int, a1: str, files: str) -> list[int]:
    """The square of every switch (in switch order) for an orientation of
    a square board."""
    return oriented_table(layout(f"{size}x{size}"), a1, files)


def chain(grid: Layout, first: str, runs: str, serpentine: bool) -> list[int]:
    """The points of a chain's LEDs in chain order."""
    w, h = grid.width, grid.height
    start = grid.cell_of(grid.parse(first))
    assert start is not None
    f0, k0 = start
    df = 1 if f0 == 0 else -1
    dk = 1 if k0 == 0 else -1
    length, count = (w, h) if runs == "ranks" else (h, w)
    out = []
    for run in range(count):
        for j in range(length):
            pos = length - 1 - j if serpentine and run % 2 else j
            if runs == "ranks":
                f, k = f0 + pos * df, k0 + run * dk
            else:
                f, k = f0 + run * df, k0 + pos * dk
            p = grid.point_at(f, k)
            if p >= 0:
                out.append(p)
    return out


@dataclass(frozen=True)
class BoardMapping:
    """Switch (row, column) and LED index to point, and back."""

    size: int = 7
    a1: str = "r0c0"
    files: str = "columns"
    switches: tuple[str, ...] = ()
    led_first: str = "a1"
    led_runs: str = "ranks"
    led_serpentine: bool = True
    led_offset: int = 0
    leds: tuple[str, ...] = ()
    board: str = ""  # "" for the square board of ``size``
    dark_only: bool = False
    matrix_rows: int = 0  # with ``switches``: the matrix's shape (0: the orientation's)
    matrix_columns: int = 0
    # Derived tables, filled in by __post_init__.
    _grid: Any = field(default=None, init=False, repr=False, compare=False)
    _shape: tuple[int, int] = field(default=(0, 0), init=False, repr=False, compare=False)
    _switch_square: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _square_switch: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _led_square: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _square_led: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)
    _used: int = field(default=0, init=False, repr=False, compare=False)
    _sensed: int = field(default=0, init=False, repr=False, compare=False)

    @classmethod
    def for_board(cls, board: str, **options: Any) -> BoardMapping:
        """The stock mapping of a board named as in a sensor log's header."""
        if "x" in board and board.split("x")[0].isdigit():
            return cls(size=int(board.split("x")[0]), board=board, **options)
        return cls(size=0, board=board, **options)

    @classmethod
    def for_log(cls, board: str, mapping: BoardMapping | None) -> BoardMapping:
        """``mapping`` (the stock one when None) for a log of ``board``;
        ``ConfigError`` when it is another board's."""
        mapping = mapping or cls.for_board(board)
        if mapping.board != board:
            raise ConfigError(
                f"gpio.mapping.board: the mapping is for the {mapping.board} board, "
                f"the log for {board}"
            )
        return mapping

    def __post_init__(self) -> None:
        if not self.board and self.size not in SIZES:
            raise ConfigError(f"{WHERE}.size: must be 5, 7 or 8, not {self.size}")
        board = self.board or f"{self.size}x{self.size}"
        if board not in BOARDS:
            raise ConfigError(
                f"{WHERE}.board: must be one of {', '.join(BOARDS)}, not {board!r}")
        square = "x" in board
        size = int(board.split("x")[0]) if square else 0
        if self.board and self.size not in (size, 7):  # 7: the default, left as it is
            what = "is not square: leave size out" if size == 0 else f"has size {size}"
            raise ConfigError(f"{WHERE}.size: the {board} board {what}, not {self.size}")
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "board", board)
        grid = layout(board, self.dark_only)
        object.__setattr__(self, "_grid", grid)
        self._check(WHERE)
        sw = self._explicit_switches() or oriented_table(grid, self.a1, self.files)
        led = self._explicit(self.leds, "leds") or chain(
            grid, self.led_first, self.led_runs, self.led_serpentine)
        inv_sw = [-1] * grid.points
        inv_led = [-1] * grid.points
        for i, sq in enumerate(sw):
            if sq >= 0:
                inv_sw[sq] = i
        for i, sq in enumerate(led):
            if sq >= 0:
                inv_led[sq] = i + self.led_offset
        object.__setattr__(self, "_switch_square", tuple(sw))
        object.__setattr__(self, "_square_switch", tuple(inv_sw))
        object.__setattr__(self, "_led_square", tuple(led))
        object.__setattr__(self, "_square_led", tuple(inv_led))
        object.__setattr__(self, "_used", sum(1 << i for i, p in enumerate(sw) if p >= 0))
        object.__setattr__(self, "_sensed", sum(1 << p for p in grid.sensed))

    # -- validation ---------------------------------------------------------

    def _check(self, where: str) -> None:
        grid = self._grid
        if self.files not in ("columns", "rows"):
            raise ConfigError(f'{where}.files: must be "columns" or "rows", not {self.files!r}')
        shape = _shape(grid, self.files)
        object.__setattr__(self, "_shape", shape)
        corners = _corners(*shape)
        if self.a1 not in corners:
            raise ConfigError(
                f"{where}.a1: {self.a1!r} is not a corner of the {grid.board} board's "
                f"{shape[0]}x{shape[1]} switch matrix ({', '.join(corners)})"
            )
        squares = grid.corner_points()
        if self.led_first not in squares:
            raise ConfigError(
                f"{where}.led_first: {self.led_first!r} is not a corner {place(grid.board)} "
                f"({', '.join(squares)})"
            )
        if self.led_runs not in ("ranks", "files"):
            raise ConfigError(
                f'{where}.led_runs: must be "ranks" or "files", not {self.led_runs!r}'
            )
        if not 0 <= self.led_offset <= 1000:
            raise ConfigError(f"{where}.led_offset: must be 0 to 1000, not {self.led_offset}")

    def _explicit_switches(self) -> list[int]:
        if not self.switches:
            if self.matrix_rows or self.matrix_columns:
                raise ConfigError(f"{WHERE}.rows: rows and columns go with a switches table")
            return []
        rows, columns = self.matrix_rows, self.matrix_columns
        if not (rows or columns):
            rows, columns = self._shape
        if not (1 <= rows <= 16 and 1 <= columns <= 16):
            raise ConfigError(f"{WHERE}.rows: the matrix needs 1 to 16 rows and columns")
        grid = self._grid
        if rows * columns < len(grid.sensed):
            what = place(grid.board, 2)
            dark = (f" (dark_only = true senses its {len(layout(grid.board, True).sensed)} "
                    "dark squares)") if grid.board == "8x8" and not grid.dark_only else ""
            raise ConfigError(
                f"{WHERE}.rows: the {rows}x{columns} matrix has {rows * columns} crossings, "
                f"too few for the {len(grid.sensed)} {what} of the {grid.board} board{dark}")
        object.__setattr__(self, "_shape", (rows, columns))
        return self._explicit(self.switches, "switches", rows * columns)

    def _explicit(self, names: tuple[str, ...], key: str, slots: int = 0) -> list[int]:
        """The point of each switch (``slots`` crossings) or of each LED in
        the chain (as many as listed), -1 for ``"-"``: every sensed point
        once."""
        if not names:
            return []
        grid = self._grid
        sensed = grid.sensed
        where = f"{WHERE}.{key}"
        one = "switch" if key == "switches" else "LED"
        if len(names) != slots and slots and not (self.matrix_rows or self.matrix_columns):
            raise ConfigError(
                f"{where}: the {grid.board} board's {self.rows}x{self.columns} switch matrix "
                f"has {slots} crossings, one {place(grid.board)} or \"-\" each, but the table "
                f"lists {len(names)}: give rows and columns for another matrix")
        if len(names) != slots and slots:
            raise ConfigError(f"{where}: needs {slots} {place(grid.board, slots)}, one per "
                              f"{one}, got {len(names)}")
        out: list[int] = []
        seen: dict[int, int] = {}
        for i, name in enumerate(names):
            if name.strip() == UNUSED:
                out.append(-1)
                continue
            try:
                sq = grid.parse(name)
            except ConfigError as exc:
                raise ConfigError(f"{where}: item {i + 1}: {exc}") from None
            if sq in seen:
                raise ConfigError(
                    f"{where}: {place(grid.board)} {grid.names[sq]} appears twice "
                    f"(items {seen[sq] + 1} and {i + 1})"
                )
            if sq not in sensed:
                raise ConfigError(f"{where}: item {i + 1}: {grid.names[sq]} is not sensed")
            seen[sq] = i
            out.append(sq)
        missing = [grid.names[p] for p in sensed if p not in seen]
        if missing:
            more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
            raise ConfigError(f"{where}: no {one} for {', '.join(missing[:5])}{more}")
        return out

    # -- lookups -------------------------------------------------------------

    @property
    def layout(self) -> Layout:
        grid: Layout = self._grid
        return grid

    @property
    def squares(self) -> int:
        """The board's points (the characters of a sensor log's frame)."""
        return self.layout.points

    @property
    def sensed(self) -> tuple[int, ...]:
        """The points with a switch and an LED, lowest first."""
        return self.layout.sensed

    @property
    def rows(self) -> int:
        """Rows of the switch matrix."""
        return self._shape[0]

    @property
    def columns(self) -> int:
        """Columns of the switch matrix."""
        return self._shape[1]

    @property
    def switch_count(self) -> int:
        """Crossings of the matrix (with a switch or not)."""
        return self.rows * self.columns

    @property
    def led_count(self) -> int:
        """LEDs in the chain, spare ones before the board included."""
        return self.led_offset + len(self._led_square)

    def chain_beyond(self, most: int, driver: str) -> ConfigError | None:
        """The one-line error for a chain longer than ``driver`` ("the
        serial board") drives (``most`` LEDs), naming the key that makes it
        so (``leds`` when it lists LEDs under no point, else
        ``led_offset``); None when it fits."""
        count, lit, board = self.led_count, len(self.sensed), self.board
        if count <= most:
            return None
        points = f"{lit} {place(board, lit)} of the {board} board"
        if len(self.leds) > lit:
            spare = f"led_offset {self.led_offset} and " if self.led_offset else ""
            return ConfigError(
                f"{driver} drives at most {most} LEDs, and {spare}the table's {len(self.leds)} "
                f"(the {points} and {len(self.leds) - lit} under none) make {count}: "
                "cut the strip between points and wire across the gaps, or use a strip "
                "with fewer LEDs a metre", f"{WHERE}.leds")
        return ConfigError(f"{driver} drives at most {most} LEDs, and led_offset "
                           f"{self.led_offset} with the {points} makes {count}",
                           f"{WHERE}.led_offset")

    def square_of_switch(self, row: int, column: int) -> int:
        """The point over a switch, -1 for a crossing with none."""
        return self._switch_square[row * self.columns + column]

    def switch_of_square(self, square: int) -> tuple[int, int]:
        return divmod(self._square_switch[square], self.columns)

    def square_of_switch_index(self, index: int) -> int:
        return self._switch_square[index]

    def switch_index_of_square(self, square: int) -> int:
        """The switch under a point, -1 for an unsensed one."""
        return self._square_switch[square]

    def led_of_square(self, square: int) -> int:
        """The LED under a point, -1 for an unlit one."""
        return self._square_led[square]

    def square_of_led(self, index: int) -> int | None:
        """The square above LED ``index`` (None for a spare LED, or one
        under no point)."""
        j = index - self.led_offset
        square = self._led_square[j] if 0 <= j < len(self._led_square) else -1
        return square if square >= 0 else None

    def name(self, square: int) -> str:
        return self.layout.names[square]

    def parse(self, name: str) -> int:
        """A point of this board from its name (:class:`ConfigError`)."""
        return self.layout.parse(name)

    def switch_label(self, index: int) -> str:
        return switch_name(index, self.columns)

    def switch_and_point(self, index: int) -> str:
        """``"r2c3 (d3)"``: a switch and the point over it (``"(no point)"``
        for a crossing with none)."""
        square = self._switch_square[index]
        where = self.name(square) if square >= 0 else f"no {place(self.board)}"
        return f"{self.switch_label(index)} ({where})"

    def switches_to_squares(self, closed: int) -> int:
        """A bitmask of closed switches as a bitboard of squares (crossings
        with no switch left out)."""
        out = 0
        table = self._switch_square
        for i in points(closed & self._used):
            out |= 1 << table[i]
        return out

    def squares_to_switches(self, occupied: int) -> int:
        """A bitboard of squares as the bitmask of their switches
        (unsensed points left out)."""
        out = 0
        table = self._square_switch
        for p in points(occupied & self._sensed):
            out |= 1 << table[p]
        return out

    def with_switch_table(self, switch_squares: list[int]) -> BoardMapping:
        """This mapping with the switches given square by square (in switch
        order, -1 for a crossing with none); written as an orientation when
        it is one."""
        return self._replace_tables(switch_squares, None)

    def with_led_table(self, led_squares: list[int]) -> BoardMapping:
        """This mapping with the LEDs given square by square (board LEDs in
        chain order, -1 for one under no point)."""
        return self._replace_tables(None, led_squares)

    def _replace_tables(
        self, switch_squares: list[int] | None, led_squares: list[int] | None
    ) -> BoardMapping:
        fields: dict[str, Any] = self.to_table()
        grid = self.layout
        names = grid.names
        if switch_squares is not None:
            for key in ("switches", "rows", "columns"):
                fields.pop(key, None)
            for files in ("columns", "rows"):
                if _shape(grid, files) != (self.rows, self.columns):
                    continue  # the matrix as wired has this mapping's shape
                for corner in _corners(*_shape(grid, files)):
                    if oriented_table(grid, corner, files) == list(switch_squares):
                        fields["a1"], fields["files"] = corner, files
                        return self._with_leds(fields, led_squares)
            fields["switches"] = [UNUSED if s < 0 else names[s] for s in switch_squares]
            if (self.rows, self.columns) != _shape(grid, self.files):
                fields["rows"], fields["columns"] = self.rows, self.columns
        return self._with_leds(fields, led_squares)

    def _with_leds(self, fields: dict[str, Any], led_squares: list[int] | None) -> BoardMapping:
        if led_squares is not None:
            grid = self.layout
            fields.pop("leds", None)
            for first in grid.corner_points():
                for runs in ("ranks", "files"):
                    for serp in (True, False):
                        if chain(grid, first, runs, serp) == list(led_squares):
                            fields["led_first"] = first
                            fields["led_runs"] = runs
                            fields["led_serpentine"] = serp
                            return BoardMapping.from_table(fields)
            fields["leds"] = [UNUSED if s < 0 else grid.names[s] for s in led_squares]
        return BoardMapping.from_table(fields)

    # -- TOML ------------------------------------------------------------------

    @classmethod
    def from_table(cls, data: Mapping[str, object] | None) -> BoardMapping:
        """The mapping from its TOML table (absent keys take the defaults)."""
        t = Table(data, WHERE)
        d = cls()
        board = t.get_str("board", "")
        size = t.get_int("size", 0)
        if not board:
            size = size or d.size
        elif not size:
            size = int(board.split("x")[0]) if "x" in board and board in BOARDS else 0
        elif board in BOARDS and size != (int(board.split("x")[0]) if "x" in board else 0):
            what = "is not square: leave size out" if "x" not in board else \
                f"has size {board.split('x')[0]}"
            raise t.error("size", f"the {board} board {what}, not {size}")
        mapping = cls(
            size=size,
            a1=t.get_str("a1", d.a1),
            files=t.get_str("files", d.files),
            switches=_listed(t, "switches", "a1 and files set the matrix"),
            led_first=t.get_str("led_first", d.led_first),
            led_runs=t.get_str("led_runs", d.led_runs),
            led_serpentine=t.get_bool("led_serpentine", d.led_serpentine),
            led_offset=t.get_int("led_offset", d.led_offset, 0, 1000),
            leds=_listed(t, "leds", "led_first, led_runs and led_serpentine set the chain"),
            board=board,
            dark_only=t.get_bool("dark_only", False),
            matrix_rows=t.get_int("rows", 0, 0, 16),
            matrix_columns=t.get_int("columns", 0, 0, 16),
        )
        t.done()
        return mapping

    def to_table(self) -> dict[str, object]:
        out: dict[str, object] = {"board": self.board}
        if self.size:
            out["size"] = self.size
        out.update({
            "a1": self.a1,
            "files": self.files,
            "led_first": self.led_first,
            "led_runs": self.led_runs,
            "led_serpentine": self.led_serpentine,
            "led_offset": self.led_offset,
        })
        if self.dark_only:
            out["dark_only"] = True
        if self.switches:
            out["switches"] = list(self.switches)
        if self.matrix_rows or self.matrix_columns:
            out["rows"], out["columns"] = self.rows, self.columns
        if self.leds:
            out["leds"] = list(self.leds)
        return out


def _listed(t: Table, key: str, otherwise: str) -> tuple[str, ...]:
    """A list key; given empty it is a mistake, not "left out"."""
    names = t.get_str_list(key, ())
    if not names and t.has(key):
        raise t.error(key, f"an empty list: list them, or leave {key} out ({otherwise})")
    return names


def gpio_table_for_board(table: Mapping[str, object] | None,
              board: str | None) -> Mapping[str, object] | None:
    """The ``[gpio]`` table ``table`` for a game on ``board`` ("5x5",
    "37-point", ...; None: as it is): a ``[gpio.mapping]`` that names no
    board (nor ``size``) becomes that board's stock mapping.  One that
    names a board is left as it is: its reader refuses another board."""
    if board is None or not isinstance(table, Mapping | None):
        return table  # the table's reader says what is wrong with it
    given = (table or {}).get("mapping", {})
    if isinstance(given, Mapping) and not {"board", "size"} & set(given):
        return {**(table or {}), "mapping": {**given, "board": board}}
    return table


def named_board(table: Mapping[str, object] | None, board: str) -> str:
    """The board the ``[gpio.mapping]`` of ``[gpio]`` table ``table`` names
    (``board``, or ``size``: the square board of that side), ``board`` when
    it names none; a table its reader would refuse is left to that reader
    (``board`` here)."""
    given = table.get("mapping") if isinstance(table, Mapping) else None
    if not isinstance(given, Mapping):
        return board
    named, size = given.get("board"), given.get("size")
    if isinstance(named, str) and named:
        return named
    if isinstance(size, int) and not isinstance(size, bool) and size in SIZES:
        return f"{size}x{size}"
    return board
