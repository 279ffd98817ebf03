"""Local Hugging Face transformers backend: `hf:<model id or local path>`.

AutoModelForCausalLM with safetensors only and trust_remote_code off; the prompt goes through the
tokenizer's chat template when it has one. Greedy by default and batched; a request with
temperature > 0 is sampled on its own under its seed, so its sample does not depend on its batch.
A request with a JSON schema is decoded under it (pipeline/structured/hf.py): its reply can only be an
object the schema allows, closed before max_new_tokens when the schema's string caps leave room.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from pipeline.backends.base import Request, Response
from pipeline.backends.prefix_cache import PrefixCache

log = logging.getLogger(__name__)


class HFGenerator:
    def __init__(
        self,
        model: str,
        batch_size: int = 8,
        device: str | None = None,
        revision: str | None = None,
        trust_remote_code: bool = False,
        name: str | None = None,
        version: str = "",
        prefix_cache_tokens: int = 0,
    ):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # `name` is the panel entry when it is not the folder (a packaged model); `version` names the exact
        # weights in the cache key (pipeline/backends/base.py cache_key).
        self.name = name or f"hf:{model}"
        self.version = version
        self.batch_size = batch_size
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(
            model, revision=revision, trust_remote_code=trust_remote_code
        )
        # Left padding keeps every prompt's last token next to its generated tokens in a batch.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(
            model, revision=revision, trust_remote_code=trust_remote_code, use_safetensors=True, dtype=dtype
        ).to(self.device)
        self.model.eval()
        self._grammar_tokenizer = None  # built on the first constrained request (~1 s)
        self.prefixes = PrefixCache(prefix_cache_tokens)
        log.info("loaded %s on %s", model, self.device)

    def grammar_tokenizer(self):
        from pipeline.structured.hf import GrammarTokenizer

        if self._grammar_tokenizer is None:
            self._grammar_tokenizer = GrammarTokenizer(self.tokenizer)
        return self._grammar_tokenizer

    def render(self, prompt: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
        return prompt

    def generate(self, requests: Sequence[Request]) -> list[Response]:
        out: list[Response | None] = [None] * len(requests)
        greedy: dict[tuple[int, bool], list[int]] = {}
        ids: dict[int, list[int]] = {}
        for i, r in enumerate(requests):
            if r.temperature > 0:
                out[i] = self._run([r], [self._ids(r)], sample=True)[0]
            else:
                ids[i] = self._ids(r)
                # Prompts with a stored prefix batch apart from those without: a row computing its whole
                # prompt would make every row of its batch as wide.
                reuse = self.prefixes.lookup(ids[i])[1] > 0
                greedy.setdefault((r.max_new_tokens, reuse), []).append(i)
        for (_, _), idx in sorted(greedy.items()):
            # Batches of similar length waste less on padding: on a CPU, prefill is most of the cost.
            idx = sorted(idx, key=lambda i: len(ids[i]))
            for start in range(0, len(idx), self.batch_size):
                chunk = idx[start : start + self.batch_size]
                replies = self._run([requests[i] for i in chunk], [ids[i] for i in chunk], sample=False)
                for i, resp in zip(chunk, replies, strict=True):
                    out[i] = resp
        return [r for r in out if r is not None]

    def _ids(self, request: Request) -> list[int]:
        # The chat template already holds the special tokens it wants.
        return self.tokenizer(self.render(request.prompt), add_special_tokens=False)["input_ids"]

    def _run(self, batch: Sequence[Request], prompts: Sequence[list[int]], sample: bool) -> list[Response]:
        import torch

        first = batch[0]
        kwargs: dict = {"max_new_tokens": first.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            torch.manual_seed(first.seed)
            kwargs.update(do_sample=True, temperature=first.temperature, top_p=first.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        # Looked up again, not taken from generate's grouping: an earlier batch of this call may have
        # stored a prompt this one starts with (the parties of one decision).
        found = [self.prefixes.lookup(p) if not sample else (None, 0) for p in prompts]
        inputs, mask, cache = layout(prompts, found, self.tokenizer.pad_token_id, self.model.config)
        width = inputs.shape[1]
        schemas = [r.schema for r in batch]
        if any(schemas):
            from transformers import LogitsProcessorList

            from pipeline.structured.hf import SchemaLogitsProcessor

            processor = SchemaLogitsProcessor(self.grammar_tokenizer(), schemas, width)
            kwargs["logits_processor"] = LogitsProcessorList([processor])
        if cache is not None:
            kwargs["cache"] = cache
            for _, n in found:
                if n:
                    self.prefixes.count(n)
        with torch.no_grad():
            result = self.model.generate(input_ids=inputs.to(self.device), attention_mask=mask.to(self.device),
                                         return_dict_in_generate=True, **kwargs)
        if not sample:
            self._keep(prompts, mask, result)
        new = result.sequences[:, width:]
        eos = self.tokenizer.eos_token_id
        responses = []
        for request, row in zip(batch, new.tolist(), strict=True):
            # Trailing pads after an early stop are not part of the answer.
            length = len(row)
            if eos is not None and eos in row:
                length = row.index(eos) + 1
            stopped = eos is not None and eos in row[:length]
            text = self.tokenizer.decode(row[:length], skip_special_tokens=True).strip()
            reason = "stop" if stopped or length < first.max_new_tokens else "length"
            meta = {"new_tokens": length - (1 if stopped else 0)}
            if request.schema:
                meta["constrained"] = "llguidance"
            responses.append(Response(text, reason, meta))
        return responses

    def _keep(self, prompts: Sequence[list[int]], mask, result) -> None:
        """Store each prompt's keys and values (its unpadded columns of the batch) for later prompts."""
        if not self.prefixes.max_tokens:
            return
        # `cache` since transformers 5.x renamed it (reading the old name logs a deprecation warning).
        cache = getattr(result, "cache", None) or getattr(result, "past_key_values", None)
        layers = getattr(cache, "layers", None)
        if not layers:
            return
        width = mask.shape[1]
        for i, p in enumerate(prompts):
            cols = mask[i].bool().nonzero().squeeze(1).to(layers[0].keys.device)
            self.prefixes.store(p, [layer.keys[i, :, :width].index_select(1, cols).clone() for layer in layers],
                                [layer.values[i, :, :width].index_select(1, cols).clone() for layer in layers])


def layout(prompts: Sequence[list[int]], found, pad: int, config):
    """The batch of `prompts`, each reusing the stored prefix `found` gives it (entry, length): input ids and
    attention mask [rows, cached + rest], and a cache of the cached columns (None when no row reuses one).

    Row i is [pad][its n_i cached tokens] then [pad][its other tokens]: the cached part right-aligned at the
    width of the longest cached prefix, the rest right-aligned after it, so generation continues every row
    from its own last token. Position ids come from the mask's running count (transformers does so for left
    padding), so padding in the middle leaves every token at its own position.
    """
    import torch

    cached = [n for _, n in found]
    width_cached = max(cached)
    width_rest = max(len(p) - n for p, n in zip(prompts, cached, strict=True))
    rows = len(prompts)
    inputs = torch.full((rows, width_cached + width_rest), pad, dtype=torch.long)
    mask = torch.zeros_like(inputs)
    for i, (p, n) in enumerate(zip(prompts, cached, strict=True)):
        rest = p[n:]
        inputs[i, width_cached - n : width_cached] = torch.tensor(p[:n], dtype=torch.long)
        mask[i, width_cached - n : width_cached] = 1
        inputs[i, inputs.shape[1] - len(rest) :] = torch.tensor(rest, dtype=torch.long)
        mask[i, inputs.shape[1] - len(rest) :] = 1
    if not width_cached:
        return inputs, mask, None
    from transformers import DynamicCache

    entries = [e for e, _ in found if e is not None]
    cache = DynamicCache(config=config)
    for layer in range(len(entries[0].keys)):
        like = entries[0].keys[layer]
        keys = like.new_zeros((rows, like.shape[0], width_cached, like.shape[2]))
        values = torch.zeros_like(keys)
        for i, (entry, n) in enumerate(found):
            if entry is not None and n:
                keys[i, :, width_cached - n :] = entry.keys[layer][:, :n]
                values[i, :, width_cached - n :] = entry.values[layer][:, :n]
        cache.update(keys, values, layer)
    return inputs, mask, cache
