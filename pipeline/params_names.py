"""Names in params that must match something, checked when the params are read, before any work.

A name nothing matches is worse than a wrong number: a misspelt variant of pairs.variants was simply
never paired (391 pairs became 80, and the caches were compacted to the survivors), a misspelt judge or
loss type ended in a traceback minutes into a run. Each check here names the dotted key, the value and
the allowed names. Like pipeline/ranges.py, it only refuses values: what a stage computes from the values
it accepts does not depend on this module (tests/test_dvc_deps.py).

The lists of allowed names are imported from where the names are defined (the variant table, the
offline answerers, the judges), lazily, so reading params stays light and free of import cycles.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pipeline import typed
from pipeline.ranges import Range, format_number
from pipeline.typed import shown

# TRL's DPO loss types (trl DPOConfig.loss_type); tests/test_params_names.py holds it to TRL's own list.
DPO_LOSS_TYPES = ("sigmoid", "hinge", "ipo", "exo_pair", "nca_pair", "robust", "bco_pair", "sppo_hard",
                  "aot", "aot_unpaired", "apo_zero", "apo_down", "discopop", "sft", "sigmoid_norm")
# Judges that need no model.
RULE_JUDGES = ("rule:strict", "rule:lenient")
BACKENDS = ("offline", "hf", "openai")
QA_KINDS = ("factual", "yesno", "rule")
# TRL / transformers arguments that train.trainer_kwargs may set and whose values a run would only refuse
# minutes in (or, for 0 steps, not at all): their ranges.
TRAINER_KWARG_RANGES: dict[str, tuple[type, Range]] = {
    "per_device_train_batch_size": (int, Range(1)),
    "per_device_eval_batch_size": (int, Range(1)),
    "gradient_accumulation_steps": (int, Range(1)),
    "max_steps": (int, Range(1, also=(-1,), note="-1 = epochs decide")),
    "num_train_epochs": (float, Range(0, low_open=True)),
    "learning_rate": (float, Range(0, low_open=True)),
    "weight_decay": (float, Range(0)),
    "warmup_steps": (float, Range(0)),
    "warmup_ratio": (float, Range(0, 1)),
    "logging_steps": (float, Range(0, low_open=True)),
    "max_grad_norm": (float, Range(0)),
    "seed": (int, Range(0, 2**32 - 1)),
    "data_seed": (int, Range(0, 2**32 - 1)),
    "beta": (float, Range(0, low_open=True)),
}
# The built-in tokenizer's vocabulary holds at least the 256 bytes and its 5 special tokens
# (pipeline/models/tokenizer.py SPECIAL_TOKENS); a smaller vocab_size would be ignored by the tokenizer.
BUILTIN_MIN_VOCAB = 256 + 5
# The linear layers of the built-in Llama (pipeline/models/builtin.py) that LoRA can adapt.
BUILTIN_LINEAR_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def check_names(p: Any, fail: typed.Fail) -> None:
    """Every name of params `p` that must match something; raises through `fail` (dotted key, message)."""
    _check_variants(p, fail)
    for i, kind in enumerate(p.corpus.qa_kinds):
        if kind not in QA_KINDS:
            raise fail(f"corpus.qa_kinds[{i}]", f"unknown question kind {shown(kind)} (known: {', '.join(QA_KINDS)})")
    for i, spec in enumerate(p.generate.panel):
        check_generator(spec, f"generate.panel[{i}]", fail)
    for spec in p.generate.budgets:
        if spec not in p.generate.panel:
            raise fail(f"generate.budgets.{spec}", f"is not a member of generate.panel ({', '.join(p.generate.panel)})")
    for i, spec in enumerate(p.judge.judges):
        _check_judge(spec, f"judge.judges[{i}]", fail)
    check_generator(p.augment.rewriter, "augment.rewriter", fail)
    for i, spec in enumerate(p.irac.systems):
        if spec != "rule":
            check_generator(spec, f"irac.systems[{i}]", fail, also="'rule' or ")
    if p.irac.judge:
        check_generator(p.irac.judge, "irac.judge", fail, also="'' (no judge) or ")
    if p.train.loss_type not in DPO_LOSS_TYPES:
        raise fail("train.loss_type", f"unknown DPO loss {shown(p.train.loss_type)} (known: {', '.join(DPO_LOSS_TYPES)})")
    if p.pretrain.base_model == "builtin":
        for i, module in enumerate(p.train.lora.target_modules):
            if module not in BUILTIN_LINEAR_MODULES:
                raise fail(f"train.lora.target_modules[{i}]", f"the built-in model has no layer {shown(module)} "
                                                              f"(it has {', '.join(BUILTIN_LINEAR_MODULES)})")
    _check_trainer_kwargs(p.train.trainer_kwargs, fail)
    if not ENV_NAME.match(p.generate.api_key_env):
        # An empty name read no variable, so requests went out without a key and without a word.
        raise fail("generate.api_key_env", f"{shown(p.generate.api_key_env)} is not an environment variable name "
                                           "(allowed: letters, digits and _, not starting with a digit, e.g. "
                                           "OPENAI_API_KEY; for a server that takes no key, leave that variable unset)")
    _check_id_prefixes(p, fail)


# A POSIX environment variable name.
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _check_id_prefixes(p: Any, fail: typed.Fail) -> None:
    """An id prefix starts every id an import makes: one that cannot start a record id would be blamed on
    every record of the data, so it is refused here, naming the key."""
    from pipeline.importers import is_safe_id

    for key, prefix in (("decisions.documents.id_prefix", p.decisions.documents.id_prefix),
                        ("corpus.qa_import.id_prefix", p.corpus.qa_import.id_prefix)):
        if "/" in prefix or not is_safe_id(f"{prefix}x"):
            raise fail(key, f"{shown(prefix)} cannot start a record id (allowed: letters, digits and . _ : -, "
                            "starting with a letter or digit, no '/'; e.g. doc-)")


def _check_variants(p: Any, fail: typed.Fail) -> None:
    from pipeline.retrieval.variants import VARIANTS, variant_spec

    aliases = p.contexts.dense_models
    for key in ("contexts.variants", "generate.variants", "pairs.variants"):
        section, name = key.split(".")
        for i, variant in enumerate(getattr(getattr(p, section), name)):
            try:
                spec = variant_spec(variant)
            except ValueError:
                raise fail(f"{key}[{i}]", f"unknown context variant {shown(variant)} (known: {', '.join(VARIANTS)}; a "
                                          "dense one may add '.<alias>' of contexts.dense_models)") from None
            alias = spec.source.partition(".")[2]
            if alias and alias not in aliases:
                raise fail(f"{key}[{i}]", f"{shown(variant)} names the dense model alias {shown(alias)}, which "
                                          f"contexts.dense_models does not define (it has: {sorted(aliases) or 'none'})")


def check_generator(spec: str, where: str, fail: typed.Fail, also: str = "") -> None:
    """A generator entry (`backend:model`) that make_generator can build; an `openai:` URL holds no secret."""
    from pipeline.backends.endpoints import EndpointError, check_model

    backend, sep, model = spec.partition(":")
    if not sep or not model or backend not in BACKENDS:
        raise fail(where, f"{_shown(spec)} is not a generator (allowed: {also}'<backend>:<model>' with backend "
                          f"{', '.join(BACKENDS)})")
    if backend == "offline" and model not in offline_models():
        raise fail(where, f"unknown offline model {shown(model)} (known: {', '.join(offline_models())})")
    if backend == "openai":
        try:
            check_model(model)
        except EndpointError as exc:
            raise fail(where, str(exc)) from None


def offline_models() -> tuple[str, ...]:
    """The `offline:` models: the answerer styles and the augment stage's rewriter."""
    from pipeline.augment.rewriter import REWRITER_MODEL
    from pipeline.backends.offline import STYLES

    return (*STYLES, REWRITER_MODEL)


def _check_judge(spec: str, where: str, fail: typed.Fail) -> None:
    if spec in RULE_JUDGES:
        return
    kind, _, model = spec.partition(":")
    if kind != "llm" or not model:
        raise fail(where, f"unknown judge {_shown(spec)} (allowed: {', '.join(RULE_JUDGES)} or "
                          "'llm:<generator>', e.g. llm:openai:http://localhost:8000/v1|<model>)")
    check_generator(model, where, fail)


def _check_trainer_kwargs(kwargs: dict[str, Any], fail: typed.Fail) -> None:
    for key, value in kwargs.items():
        if key not in TRAINER_KWARG_RANGES:
            continue  # the train stage checks the key against TRL's config class
        kind, allowed = TRAINER_KWARG_RANGES[key]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or (kind is int and not isinstance(value, int)) or not math.isfinite(value):
            raise fail(f"train.trainer_kwargs.{key}", f"{shown(value)} is not {'an integer' if kind is int else 'a number'}")
        if not allowed.allows(value):
            raise fail(f"train.trainer_kwargs.{key}", f"{format_number(value)} is out of range (allowed: {allowed}"
                                                      + (f"; {allowed.note}" if allowed.note else "") + ")")


def _shown(spec: str) -> str:
    """An entry as a message may repeat it: a URL's credentials left out."""
    from pipeline.backends.endpoints import shown_url

    if "://" not in spec:
        return shown(spec)
    head, _, rest = spec.partition("http")
    url, sep, model = f"http{rest}".partition("|")
    return shown(f"{head}{','.join(shown_url(u) for u in url.split(','))}{sep}{model}")
