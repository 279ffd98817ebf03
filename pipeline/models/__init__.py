"""Base model and adapters: what the train and score stages load, and how prompts become model text.

Stable API (other stages import these; signatures do not change):

- `load_base(path="models/base", dtype=None, device=None, trust_remote_code=False) -> (model, tokenizer)`
  The base causal LM in eval mode (float32 on CPU, bfloat16 on CUDA by default) and its tokenizer (pad
  token always set). Reads models/base/meta.json: the built-in model loads from models/base/ (safetensors),
  a Hugging Face id/path loads from there at the recorded revision.
- `load_with_adapter(base, adapter_dir, name=None, trainable=False) -> PeftModel`
  Attaches a PEFT adapter (models/adapters/<objective>-<corpus>-s<seed>/) and activates it. Passing a
  PeftModel as `base` adds another adapter under `name` (default: folder name) to the same model.
  `with peft_model.disable_adapter():` is the reference (= base) model.
- `render_prompt(tokenizer, prompt) -> str`: the conditioning text for a pair's prompt: the chat template
  (one user turn + assistant header) when the tokenizer has one, else prompt + "\\n\\nAnswer: ".
- `render_response(tokenizer, response) -> str`: response text + EOS, exactly as training sees it.
  Tokenize both with `add_special_tokens=False` (the template already holds BOS); the response tokens are
  those of render_prompt(...)+render_response(...) after the prompt's tokens.
- `base_info(path="models/base") -> dict`: models/base/meta.json (base_model, revision, n_params, ...).
"""

from pipeline.models.loading import base_info, load_base, load_with_adapter
from pipeline.models.prompting import render_prompt, render_response

__all__ = ["base_info", "load_base", "load_with_adapter", "render_prompt", "render_response"]
