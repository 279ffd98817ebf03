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
        greedy: dict[tuple[int], list[int]] = {}
        for i, r in enumerate(requests):
            if r.temperature > 0:
                out[i] = self._run([r], sample=True)[0]
            else:
                greedy.setdefault((r.max_new_tokens,), []).append(i)
        for (_,), idx in sorted(greedy.items()):
            # Batches of similar length waste less on padding: on a CPU, prefill is most of the cost.
            idx = sorted(idx, key=lambda i: len(requests[i].prompt))
            for start in range(0, len(idx), self.batch_size):
                chunk = idx[start : start + self.batch_size]
                for i, resp in zip(chunk, self._run([requests[i] for i in chunk], sample=False), strict=True):
                    out[i] = resp
        return [r for r in out if r is not None]

    def _run(self, batch: Sequence[Request], sample: bool) -> list[Response]:
        import torch

        texts = [self.render(r.prompt) for r in batch]
        # The chat template already holds the special tokens it wants.
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(
            self.device
        )
        first = batch[0]
        kwargs = {"max_new_tokens": first.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if sample:
            torch.manual_seed(first.seed)
            kwargs.update(do_sample=True, temperature=first.temperature, top_p=first.top_p)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        schemas = [r.schema for r in batch]
        if any(schemas):
            from transformers import LogitsProcessorList

            from pipeline.structured.hf import SchemaLogitsProcessor

            processor = SchemaLogitsProcessor(self.grammar_tokenizer(), schemas, enc["input_ids"].shape[1])
            kwargs["logits_processor"] = LogitsProcessorList([processor])
        with torch.no_grad():
            generated = self.model.generate(**enc, **kwargs)
        new = generated[:, enc["input_ids"].shape[1] :]
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
