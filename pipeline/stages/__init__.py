"""One module per DVC stage; each `main()` reads params and files, calls a pure core, writes files."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any


def start(
    doc: str | None, argv: Sequence[str] | None, add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
) -> tuple[argparse.Namespace, Any]:
    """The opening every stage shares: parse `--params` (and the stage's own options), set up logging,
    load the params. Returns (parsed arguments, Params)."""
    from pipeline import params as params_mod

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", default=str(params_mod.DEFAULT_PATH))
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    return args, params_mod.load(args.params)


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
