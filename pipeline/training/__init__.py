"""Reward-model training (docs/method.md §8): pairs -> tokenized examples (data), DPO with our log-prob kernel (dpo),
one LoRA run with TRL's DPO or SFT trainer (run). The train stage wires these to files."""
