"""How a pair's prompt and responses become model text: one rendering shared by training and scoring.

The prompt is rendered with the tokenizer's chat template when it has one (docs/method.md §9), as a single user
turn followed by the assistant header. Responses are scored/trained as the plain response text followed
by EOS (TRL appends EOS the same way), so "finished answer" is part of what the model judges.
"""

from __future__ import annotations

from transformers import PreTrainedTokenizerBase

# Models without a chat template (plain causal LMs) see the prompt then this cue.
PLAIN_SUFFIX = "\n\nAnswer: "


def render_prompt(tokenizer: PreTrainedTokenizerBase, prompt: str) -> str:
    """The text a model is conditioned on for `prompt` (chat template when available)."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
    return prompt + PLAIN_SUFFIX


def render_response(tokenizer: PreTrainedTokenizerBase, response: str) -> str:
    """A response as trained and scored: its text followed by EOS (when the tokenizer has one)."""
    eos = tokenizer.eos_token or ""
    return response if response.endswith(eos) else response + eos
