"""Type stub of the engine's search in C (controller/engine/_csearch.c)."""

Act = tuple[int, int, int, bool]

def evaluate(game: object, weights: tuple[int, ...], flags: tuple[bool, bool, bool], /) -> int: ...
def search(
    game: object,
    weights: tuple[int, ...],
    flags: tuple[bool, bool, bool],
    seconds: float,
    max_depth: int,
    max_nodes: int,
    use_tt: bool,
    selective: bool,
    qdepth: int,
    threads: int,
    /,
) -> tuple[Act | None, int, list[Act], int, int, float]: ...
