"""From the physical board's sensors to the game: sensor logs, the
reconciler that turns readings into moves, and a simulator of people
playing on the board."""
