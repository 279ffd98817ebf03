"""Length-balanced augmentation (docs/method.md §6): rewrite tasks, the offline rewriter and the pure core."""

from pipeline.augment.core import augment_pairs, plan
from pipeline.augment.rewriter import REWRITER_MODEL, OfflineRewriter
from pipeline.backends import make_generator, register_offline

__all__ = ["OfflineRewriter", "augment_pairs", "make_rewriter", "plan"]

register_offline(REWRITER_MODEL, lambda cfg: OfflineRewriter(f"offline:{REWRITER_MODEL}"))


def make_rewriter(spec: str, params):
    """`offline:rewriter`, or any generator backend spec (an LLM through hf:/openai:)."""
    return make_generator(spec, params.generate)
