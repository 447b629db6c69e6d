"""`python -m tfce_eval` and the `tfce-eval` script: the command line, hearing Ctrl-C and
SIGTERM from its first moment."""

from __future__ import annotations


def console() -> None:
    """Run the command line. A signal while it loads is noted, not raised inside an
    import (a traceback): the command then stops at once with its one line."""
    from tfce_eval import stopping

    stopping.hear_early()
    from tfce_eval.cli import main

    main()


if __name__ == "__main__":
    console()
