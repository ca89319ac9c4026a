"""A clock a test sets by hand: ``clock.t`` is the time the code under test reads."""


class FakeClock:
    """A callable clock that stands still until the test moves ``t``."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t
