"""A tiny project for the reward-model tests (tests/test_reward_*.py, tests/test_rerank.py): a random two-layer
Llama with a tokenizer trained here as models/base, LoRA adapters in PEFT format as the train stage saves them
(random B, so each really changes the model), English and Chinese questions over several passages, the
pairs the score stage reads and the interim files (contexts, candidates, primary-judge labels) the rerank
stage reads. Nothing is downloaded; every file is written by the project's own writers.
"""

from __future__ import annotations

import copy
from pathlib import Path

import torch
import yaml
from conftest import ROOT, tiny_llama_config
from transformers import LlamaForCausalLM

from pipeline.io import write_json, write_records
from pipeline.judges.base import file_name
from pipeline.models.loading import portable_base
from pipeline.models.tokenizer import train_tokenizer
from pipeline.preferences import assign_splits
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import QA, Candidate, Context, Label, Pair, Passage

REFUSAL = "The provided passages do not contain enough information to answer this question."
REFUSAL_ZH = "提供的段落没有足够的信息来回答这个问题。"
EN_FACTS = [
    ("Penalty", "The Tribunal ordered Chan Tai-man to pay HK$1,200,000, three times the profit he made."),
    ("Ban", "The Tribunal barred Chan Tai-man from dealing in securities for two years."),
    ("Notice", "The lease required the tenant to give one month's notice in writing before leaving."),
    ("Costs", "The appellant was ordered to bear the costs of the appeal."),
    ("Sentence", "The court adopted a starting point of 45 months for the theft, before the discount for the plea."),
]
ZH_FACTS = [
    ("处罚", "中国证监会决定没收张某违法所得4,665,091.79元，并处以罚款。"),
    ("市场禁入", "对李某采取5年证券市场禁入措施。"),
    ("租赁", "租赁合同约定承租人须提前一个月书面通知出租人。"),
]
EN_QUESTIONS = [("How much was Chan Tai-man ordered to pay?", "HK$1,200,000, three times his profit.", 0),
                ("For how long was Chan Tai-man barred from dealing?", "Two years.", 1),
                ("How much notice did the tenant have to give?", "One month's notice in writing.", 2),
                ("Who bears the costs of the appeal?", "The appellant bears the costs.", 3),
                ("What starting point did the court adopt for the theft?", "45 months.", 4)]
ZH_QUESTIONS = [("张某的违法所得是多少？", "违法所得为4,665,091.79元。", 0),
                ("李某被采取了几年的市场禁入？", "5年。", 1),
                ("承租人须提前多久通知？", "提前一个月书面通知。", 2)]
ANSWERERS = ("offline:a", "offline:b", "offline:c", "offline:d")


def tokenizer_texts() -> list[str]:
    texts = [f"{h} {t}" for h, t in EN_FACTS + ZH_FACTS]
    texts += [q for q, _, _ in EN_QUESTIONS + ZH_QUESTIONS] + [a for _, a, _ in EN_QUESTIONS + ZH_QUESTIONS]
    texts += [REFUSAL, REFUSAL_ZH, answer_prompt_with_spans([], "Why?", REFUSAL)[0],
              answer_prompt_with_spans([], "为什么？", REFUSAL_ZH)[0]]
    return texts * 20


def write_base(folder: Path, seed: int = 0) -> None:
    tokenizer = train_tokenizer(tokenizer_texts(), 600)
    torch.manual_seed(seed)
    LlamaForCausalLM(tiny_llama_config(tokenizer)).save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    write_json(folder / "meta.json", {"base_model": "builtin"})


def write_adapter(base: Path, folder: Path, layers: list[int] | None, seed: int) -> None:
    """A LoRA adapter (q, v projections; `layers` only when given) saved as the train stage saves one."""
    from peft import LoraConfig, get_peft_model

    from pipeline.models import load_base
    from pipeline.stages.train import portable_config

    model, _ = load_base(base, device="cpu")
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], layers_to_transform=layers,
                        task_type="CAUSAL_LM")
    peft_model = get_peft_model(model, config)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.3)
    peft_model.save_pretrained(folder, safe_serialization=True)
    (folder / "README.md").unlink(missing_ok=True)
    portable_config(folder / "adapter_config.json", portable_base(base))


def passages() -> dict[str, Passage]:
    out = {}
    for lang, facts in (("en", EN_FACTS), ("zh", ZH_FACTS)):
        for k, (heading, text) in enumerate(facts):
            pid = f"{lang}-d{k}/p0"
            out[pid] = Passage(pid, f"{lang}-d{k}", f"{lang}-d{k}", heading, text)
    return out


def qas() -> dict[str, QA]:
    out = {}
    for lang, questions in (("en", EN_QUESTIONS), ("zh", ZH_QUESTIONS)):
        for i, (question, answer, gold) in enumerate(questions):
            qid = f"{lang}-q{i}"
            out[qid] = QA(qid, question, answer, f"{lang}-d{gold}/p0", f"{lang}-d{gold}", "factual", [answer], [])
    return out


def contexts(pool: dict[str, Passage], questions: dict[str, QA]) -> dict[str, Context]:
    """Per question: one answerable context (gold among the other passages of its language, at a slot that
    moves with the question) and one unanswerable one (the other passages only)."""
    out = {}
    for qid, qa in sorted(questions.items()):
        lang = qid.split("-")[0]
        others = sorted(p for p in pool if p.startswith(f"{lang}-") and p != qa.gold_passage_id)
        slot = int(qid[-1]) % (len(others) + 1)
        with_gold = others[:slot] + [qa.gold_passage_id] + others[slot:]
        out[f"{qid}/gold_plus_random"] = Context(f"{qid}/gold_plus_random", qid, "gold_plus_random", True,
                                                 with_gold, slot)
        out[f"{qid}/random_context"] = Context(f"{qid}/random_context", qid, "random_context", False, others, None)
    return out


def answers(qa: QA, context: Context, refusal: str) -> dict[str, tuple[str, Label]]:
    """The four answerers' texts and the primary judge's labels: a right answer, a refusal, a wrong answer
    and a right one with a long tail (each label as a rule judge would give it)."""
    right = qa.answer
    wrong = "Nothing was ordered." if qa.id.startswith("en") else "没有任何处罚。"
    long_right = f"{right} {qa.answer} {qa.answer}"

    def label(cid: str, behaviour: str, faithful: str | None = None, correct: str | None = None,
              complete: str | None = None) -> Label:
        return Label(cid, "rule:strict", behaviour, faithful, correct, complete, "ok")

    out = {}
    for generator, text in zip(ANSWERERS, (right, refusal, wrong, long_right), strict=True):
        cid = f"{context.id}/{generator}"
        if text == refusal:
            out[generator] = (text, label(cid, "abstained"))
        elif not context.answerable:
            out[generator] = (text, label(cid, "attempted", "unsupported", "correct" if text != wrong else "incorrect",
                                          "complete"))
        elif text == wrong:
            out[generator] = (text, label(cid, "attempted", "contradicted", "incorrect", "complete"))
        else:
            out[generator] = (text, label(cid, "attempted", "fully_supported", "correct", "complete"))
    return out


def pairs_of(pool: dict[str, Passage], questions: dict[str, QA], ctxs: dict[str, Context],
             splits: dict[str, str]) -> list[Pair]:
    """Every (first answerer, other answerer) pair of every context, the first answerer chosen."""
    out = []
    for cid, context in sorted(ctxs.items()):
        qa = questions[context.qa_id]
        refusal = REFUSAL_ZH if qa.id.startswith("zh") else REFUSAL
        prompt, spans = answer_prompt_with_spans([pool[p] for p in context.passage_ids], qa.question, refusal)
        texts = [text for text, _ in answers(qa, context, refusal).values()]
        for k, rejected in enumerate(texts[1:], start=1):
            out.append(Pair(id=f"{cid}/{k}", qa_id=qa.id, context_id=cid, variant=context.variant,
                            answerable=context.answerable, split=splits[qa.id], dimension="correctness",
                            prompt=prompt, chosen=texts[0], rejected=rejected, chosen_generator=ANSWERERS[0],
                            rejected_generator=ANSWERERS[k], chosen_tokens=len(texts[0].split()),
                            rejected_tokens=len(rejected.split()), augmented=False, source="test",
                            passage_spans=spans, gold_slot=context.gold_slot))
    return out


def params(**over: object) -> dict:
    """The smoke profile with the tiny project's settings (dotted keys in `over` on top)."""
    raw = copy.deepcopy(yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8")))
    settings = {"train.runs": {"dpo": ["pairs-s0", "pairs-s1"], "sft": []}, "score.corpora": ["pairs"],
                "score.splits": ["train", "test"], "score.max_pairs": 0, "score.train_sample": 0,
                "score.batch_tokens": 1500, "score.max_length": 512, "pairs.variants": ["gold_plus_random", "random_context"],
                "pairs.train": 0.5, "pairs.val": 0.0, "pairs.test": 0.5}
    for dotted, value in {**settings, **over}.items():
        *path, last = dotted.split(".")
        node = raw
        for part in path:
            node = node[part]
        node[last] = value
    return raw


def build(root: Path, top_layers: bool = False, **over: object) -> Path:
    """The tiny project under `root`: models/base, models/adapters/dpo-pairs-s{0,1}, data/interim/*,
    data/processed/pairs/{train,test}.jsonl and params.yaml. With top_layers the adapters adapt the top
    layer only (the score stage then scores over a shared trunk)."""
    raw = params(**over)
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    base = root / "models" / "base"
    write_base(base)
    for seed in (0, 1):
        write_adapter(base, root / "models" / "adapters" / f"dpo-pairs-s{seed}", [1] if top_layers else None, seed + 1)
    pool, questions = passages(), qas()
    ctxs = contexts(pool, questions)
    p = raw["pairs"]
    splits = assign_splits(questions, raw["seed"], (p["train"], p["val"], p["test"]))
    interim = root / "data" / "interim"
    write_records(interim / "passages.jsonl", pool.values())
    write_records(interim / "qa.jsonl", questions.values())
    write_records(interim / "contexts.jsonl", ctxs.values())
    candidates, labels = [], []
    for cid, context in sorted(ctxs.items()):
        qa = questions[context.qa_id]
        refusal = REFUSAL_ZH if qa.id.startswith("zh") else REFUSAL
        for generator, (text, label) in answers(qa, context, refusal).items():
            candidates.append(Candidate(f"{cid}/{generator}", cid, generator, text, "stop", {}))
            labels.append(label)
    write_records(interim / "candidates.jsonl", candidates)
    write_records(interim / "labels" / file_name(raw["judge"]["judges"][0]), labels)
    all_pairs = pairs_of(pool, questions, ctxs, splits)
    for split in ("train", "test"):
        write_records(root / "data" / "processed" / "pairs" / f"{split}.jsonl",
                      [q for q in all_pairs if q.split == split])
    return root
