"""Run the command line as ``python -m controller``."""

from controller.cli import main

raise SystemExit(main())
