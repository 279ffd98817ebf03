"""One module per DVC stage; each `main()` reads params and files, calls a pure core, writes files."""

from __future__ import annotations

import sys
from collections.abc import Callable


def run(main: Callable[..., None]) -> None:
    """Run a stage's main; bad input or params end it with their one-line message, not a traceback."""
    from pipeline.io import InputError
    from pipeline.params import ParamsError

    try:
        main()
    except (InputError, ParamsError) as exc:
        # Under `python -m` the module is "__main__"; its spec still has the real name.
        module = getattr(main.__globals__.get("__spec__"), "name", None) or main.__module__
        stage = module.rsplit(".", 1)[-1]
        sys.exit(f"{stage}: error: {exc}")
