"""pipeline/training/dpo.py overrides two private methods of TRL's DPOTrainer and reads attributes TRL sets.
Private names may change in any TRL release without notice; these tests fail, naming what changed, when
the installed TRL no longer has them as KernelDPOTrainer was written against (TRL 1.16.0), instead of
letting a renamed method silently bypass the override (training would then run TRL's own log-probs)."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import re

import pytest
from trl import DPOTrainer

from pipeline.training.dpo import KernelDPOTrainer

TRL = importlib.metadata.version("trl")
# What each override was checked against: its parameters in TRL 1.16.0, and the TRL method that calls it.
OVERRIDES = {
    "_prepare_dataset": (["self", "dataset", "processing_class", "args", "dataset_name"], "__init__"),
    "_compute_loss": (["self", "model", "inputs", "return_outputs"], "compute_loss"),
}
RECHECK = "re-check KernelDPOTrainer in pipeline/training/dpo.py against this TRL (written for TRL 1.16.0)"


@pytest.mark.parametrize("name", OVERRIDES)
def test_trl_still_has_the_private_methods_we_override(name):
    params, _ = OVERRIDES[name]
    assert name in DPOTrainer.__dict__, f"TRL {TRL}: DPOTrainer.{name} is gone; {RECHECK}"
    theirs = list(inspect.signature(DPOTrainer.__dict__[name]).parameters)
    assert theirs == params, f"TRL {TRL}: DPOTrainer.{name}{tuple(theirs)} was {tuple(params)}; {RECHECK}"
    ours = list(inspect.signature(KernelDPOTrainer.__dict__[name]).parameters)
    assert ours == theirs, f"KernelDPOTrainer.{name}{tuple(ours)} differs from TRL's {tuple(theirs)}"


@pytest.mark.parametrize("name", OVERRIDES)
def test_trl_still_calls_them(name):
    """An override nobody calls does nothing: TRL's own method must still go through it."""
    _, caller = OVERRIDES[name]
    source = inspect.getsource(getattr(DPOTrainer, caller))
    assert f"self.{name}(" in source, f"TRL {TRL}: DPOTrainer.{caller} no longer calls self.{name}; {RECHECK}"


def test_trl_still_sets_the_attributes_the_overrides_read():
    tree = ast.parse(inspect.getsource(KernelDPOTrainer))
    own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    own |= {t.attr for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Attribute)}
    read = {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}
    # DPOTrainer and transformers' Trainer above it set these (in __init__ or while setting up).
    theirs = "".join(inspect.getsource(c) for c in DPOTrainer.__mro__
                     if c.__module__.startswith(("trl.", "transformers.")))
    unset = sorted(a for a in read - own
                   if not hasattr(DPOTrainer, a) and not re.search(rf"self\.{a}\s*(:[^=\n]+)?\+?=", theirs))
    assert not unset, f"TRL {TRL}: DPOTrainer no longer sets {unset}, which KernelDPOTrainer reads; {RECHECK}"
    assert {"loss_types", "beta", "_metrics", "_total_train_tokens", "ref_model"} <= read - own  # the check sees them
