"""The built-in model's tokenizer: byte-level BPE trained on the corpus, with a small chat template.

Byte-level BPE never meets an unknown character, so any text (including Chinese passages) round-trips.
The chat template marks one user turn and one assistant turn; the end-of-turn token doubles as EOS, so a
response followed by EOS is exactly a finished assistant turn, as with real instruct models.
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

BOS = "<|begin|>"
EOS = "<|end|>"
PAD = "<|pad|>"
USER = "<|user|>"
ASSISTANT = "<|assistant|>"
SPECIAL_TOKENS = [PAD, BOS, EOS, USER, ASSISTANT]

# Jinja, rendered by tokenizer.apply_chat_template. A system message, if any, is folded into the user turn
# (the built-in model never saw a system role).
CHAT_TEMPLATE = (
    "{{ '" + BOS + "' }}"
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "{{ '" + ASSISTANT + "\\n' + message['content'] + '" + EOS + "\\n' }}"
    "{% else %}"
    "{{ '" + USER + "\\n' + message['content'] + '" + EOS + "\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '" + ASSISTANT + "\\n' }}{% endif %}"
)


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """Train byte-level BPE on `texts` (order matters for determinism: pass them sorted)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return wrap(tok)


def wrap(tok: Tokenizer) -> PreTrainedTokenizerFast:
    """A transformers tokenizer around a trained `tokenizers` object, with our special tokens and template."""
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        additional_special_tokens=[USER, ASSISTANT],
        model_max_length=1_000_000,
        padding_side="right",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast
