"""`python -m tfce_eval` and the `tfce-eval` script: the command line, hearing Ctrl-C and
SIGTERM from its first moment."""

from __future__ import annotations

import signal


def console() -> None:
    """Run the command line. A signal while it loads is noted, not raised inside an
    import (a traceback): the command then stops at once with its one line. The first
    handler needs nothing but `signal`, so that nothing is loaded before it."""
    noted: list[int] = []

    def note(signum: int, frame: object) -> None:
        if not noted:
            noted.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:  # a background job's stays
            try:
                signal.signal(sig, note)
            except ValueError:  # not the main thread, which alone hears signals
                break
    from tfce_eval import stopping

    stopping.hear_early(noted)  # `note` goes on hearing until the command listens
    from tfce_eval.cli import main

    main()


if __name__ == "__main__":
    console()
