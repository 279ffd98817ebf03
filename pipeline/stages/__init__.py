"""One module per DVC stage; each `main()` reads params and files, calls a pure core, writes files."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline import cpu_pin

# Before any stage module imports torch or numpy: the CPU code paths every stage's floats come from.
try:
    cpu_pin.pin()
except ValueError as _bad_switch:
    sys.exit(f"error: {_bad_switch}")


def start(
    doc: str | None, argv: Sequence[str] | None, add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
) -> tuple[argparse.Namespace, Any]:
    """The opening every stage shares: parse `--params` (and the stage's own options), set up logging,
    load the params. Returns (parsed arguments, Params)."""
    from pipeline import params as params_mod

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", default=str(params_mod.DEFAULT_PATH))
    parser.add_argument("--debug", action="store_true", help=f"show the traceback of a failure (or {DEBUG}=1)")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args(argv)
    if args.debug:
        os.environ[DEBUG] = "1"
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    logging.getLogger("pipeline.stages").info(cpu_pin.summary())
    quiet_library_warnings()
    return args, params_mod.load(args.params)


def path_options(**defaults: Path) -> Callable[[argparse.ArgumentParser], None]:
    """Options naming a stage's files, --<name> (underscores written as dashes), each defaulting to its
    pipeline.paths entry: tests and other working folders point a stage elsewhere without new code."""

    def add(parser: argparse.ArgumentParser) -> None:
        for name, default in defaults.items():
            parser.add_argument(f"--{name.replace('_', '-')}", default=str(default))

    return add


# Warnings a user can do nothing about: TRL and PEFT call transformers APIs that transformers has renamed
# (gradient_checkpointing -> activation_checkpointing). They would print on every train and score run.
_NOT_ACTIONABLE = (r"`(is_)?gradient_checkpointing` is deprecated",)


def quiet_library_warnings() -> None:
    import warnings

    for message in _NOT_ACTIONABLE:
        warnings.filterwarnings("ignore", message=message, category=FutureWarning)


# Set to 1 (or pass --debug) to see the full traceback of a failure a stage reports in one line.
DEBUG = "LRP_DEBUG"

# What to lower when a stage runs out of memory.
_MEMORY_HINTS = {
    "train": "lower train.batch_size (raise train.grad_accum to keep the effective batch) or train.max_length",
    "score": "lower score.batch_tokens or score.max_length",
    "pretrain": "lower pretrain.batch_size or pretrain.seq_len",
    "contexts": "lower contexts.embed_batch_size",
    "generate": "lower generate.batch_size or generate.decoding.max_new_tokens",
    "judge": "lower generate.batch_size or judge.decoding.max_new_tokens",
    "augment": "lower generate.batch_size or augment.max_new_tokens",
    "irac": "lower generate.batch_size or irac.decoding.max_new_tokens",
}
_TRACEBACK = f" [{DEBUG}=1 shows the traceback]"
# Failures whose message already names the place (file, line and field; dotted key; model and pair).
_SAYS_WHAT_TO_DO = (("pipeline.io", "InputError"), ("pipeline.params", "ParamsError"),
                    ("pipeline.io", "NonFiniteError"), ("pipeline.retrieval.coverage", "CoverageError"),
                    ("pipeline.models.packaged", "PackagedModelError"))


def run(main: Callable[..., None]) -> None:
    """Run a stage's main. An expected failure (bad input or params, a non-finite result, an endpoint
    that fails, no memory, an unreadable model or file) ends it with one line that says what to do, and
    exit status 1; anything else is a bug and keeps its traceback, as does every failure under --debug
    or LRP_DEBUG=1."""
    # Under `python -m` the module is "__main__"; its spec still has the real name.
    module = getattr(main.__globals__.get("__spec__"), "name", None) or main.__module__
    stage = module.rsplit(".", 1)[-1]
    try:
        main()
    except SystemExit as exc:
        # A stage's own one-line stop may quote data too.
        if isinstance(exc.code, str):
            raise SystemExit(printable(exc.code)) from None
        raise
    except Exception as exc:
        message = explain(exc, stage)
        if message is None or os.environ.get(DEBUG) == "1":
            raise
        sys.exit(printable(f"{stage}: error: {' '.join(message.split())}"))


def printable(text: str) -> str:
    """`text` with the control characters a message may quote from the data (an escape sequence that
    recolours or clears the terminal, a NUL, a bidirectional override that reorders what is shown)
    written as escapes, so the terminal shows the message as it is."""
    return "".join(_escape(ch) if _is_control(ch) else ch for ch in text)


def _is_control(ch: str) -> bool:
    return ch not in "\n\t" and (unicodedata.category(ch) == "Cc" or unicodedata.bidirectional(ch) in _BIDI_CONTROLS)


# Bidirectional embeddings, overrides and isolates (Unicode UAX #9): invisible, and they reorder the text after them.
_BIDI_CONTROLS = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def explain(exc: Exception, stage: str) -> str | None:
    """The one-line message for an expected failure of `stage`, or None for a bug."""
    if any(_is(exc, module, name) for module, name in _SAYS_WHAT_TO_DO):
        return str(exc)
    if _is(exc, "pipeline.backends.base", "BackendError"):
        return (f"{exc}: check that the server is up and its URL and model in params are right "
                f"(generate.panel, judge.judges, augment.rewriter, irac.systems){_TRACEBACK}")
    if _out_of_memory(exc):
        first = next(iter(str(exc).splitlines()), "") or type(exc).__name__
        hint = _MEMORY_HINTS.get(stage, "use smaller batches or a smaller model")
        return f"out of memory ({first[:200]}): {hint}{_TRACEBACK}"
    if _is(exc, "pipeline.models.loading", "ModelLoadError"):
        return (f"{exc}: re-run the stage that writes it (pretrain, train) or check pretrain.base_model and "
                f"that its files are readable{_TRACEBACK}")
    if isinstance(exc, OSError):
        return f"{exc} (check the path, its permissions and the free disk space){_TRACEBACK}"
    return None


def _is(exc: Exception, module: str, name: str) -> bool:
    """isinstance(exc, module.name), without importing the module (torch, transformers and scipy take
    seconds to load): an exception of a class whose module was never loaded cannot be one."""
    cls = getattr(sys.modules.get(module), name, None)
    return cls is not None and isinstance(exc, cls)


def _out_of_memory(exc: Exception) -> bool:
    if isinstance(exc, MemoryError) or _is(exc, "torch.cuda", "OutOfMemoryError"):
        return True
    # The CPU allocator and some CUDA paths raise a plain RuntimeError.
    text = str(exc).lower()
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)
