"""Stage `pretrain`: the base model the reward models start from.

params.pretrain.base_model == "builtin": train a byte-level BPE tokenizer and a small Llama model on the
passages and QA (pipeline.models.builtin) and save both in Hugging Face format under models/base/.
QA of questions that appear in val/test pairs are held out of pretraining (no peeking at evaluation
answers). A packaged model's name (pipeline/models/packaged.py, e.g. smollm2-135m-instruct): convert the
GGUF its Python package ships into models/base/ (safetensors, tokenizer, chat template), checked against
its sha256. Anything else is a Hugging Face id or path: only models/base/meta.json is written, recording
it and its revision; later stages load it from there.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import logging
import time
from pathlib import Path

import torch
from transformers import GenerationConfig

from pipeline import paths
from pipeline.io import atomic_dir, read_records, write_json, write_run_log, write_text
from pipeline.models.builtin import pretrain
from pipeline.models.loading import META
from pipeline.models.packaged import PACKAGED, convert
from pipeline.records import QA, Passage
from pipeline.stages import path_options, run, start

log = logging.getLogger("pipeline.stages.pretrain")

EVAL_SPLITS = ("val", "test")


def held_out_questions(pairs_dir: Path = paths.PAIRS) -> set[str]:
    """QA ids of the evaluation pairs (the augmented corpus rewrites the same questions' pairs)."""
    return {p.qa_id for p in paths.read_pairs(pairs_dir, EVAL_SPLITS)}


def curve_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["step", "loss", "lr"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({"step": row["step"], "loss": f"{row['loss']:.6f}", "lr": f"{row['lr']:.6g}"})
    return buf.getvalue()


def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    p = prm.pretrain
    out = Path(args.out)

    if p.base_model in PACKAGED:
        started = time.perf_counter()
        meta = convert(p.base_model, out)
        write_text(paths.PRETRAIN_CURVE, "step,loss,lr\n")
        write_run_log("pretrain", {"wall_time_s": round(time.perf_counter() - started, 2)})
        print(f"pretrain: converted the packaged {p.base_model} ({meta['package']} {meta['package_version']}, "
              f"GGUF sha256 {meta['gguf_sha256'][:12]}...) -> {out} as {meta['portable_id']}")
        return
    if p.base_model != "builtin":
        with atomic_dir(out) as tmp:
            write_json(tmp / META, {"base_model": p.base_model, "revision": p.revision, "profile": prm.profile})
        write_text(paths.PRETRAIN_CURVE, "step,loss,lr\n")
        print(f"pretrain: recorded external base model {p.base_model} (revision {p.revision})")
        return

    passages = read_records(paths.PASSAGES, Passage)
    qas = read_records(paths.QAS, QA)
    held_out = held_out_questions()
    started = time.perf_counter()
    result = pretrain(passages, qas, p, seed=prm.seed, held_out=held_out, progress=True)
    wall = time.perf_counter() - started
    meta = {
        "base_model": "builtin",
        "revision": None,
        "params": dataclasses.asdict(p),
        "seed": prm.seed,
        "n_params": result.n_params,
        "n_train_tokens": result.n_tokens,
        "qa_used": result.n_qa,
        "qa_held_out": len(qas) - result.n_qa,
        "vocab_size": len(result.tokenizer),
        "steps": p.steps,
        "tokens_seen": p.steps * p.batch_size * p.seq_len,
        "final_loss": round(result.final_loss, 6),
    }
    with atomic_dir(out) as tmp:
        result.model.save_pretrained(tmp, safe_serialization=True)
        result.tokenizer.save_pretrained(tmp)
        GenerationConfig(
            bos_token_id=result.tokenizer.bos_token_id,
            eos_token_id=result.tokenizer.eos_token_id,
            pad_token_id=result.tokenizer.pad_token_id,
            do_sample=False,
        ).save_pretrained(tmp)
        write_json(tmp / META, meta)
    write_text(paths.PRETRAIN_CURVE, curve_csv(result.curve))
    write_run_log("pretrain", {"wall_time_s": round(wall, 2), "torch_threads": torch.get_num_threads()})
    print(
        f"pretrain: {result.n_params / 1e6:.2f}M params, {p.steps} steps on {result.n_tokens} tokens, "
        f"final loss {result.final_loss:.3f}, {wall:.1f}s -> {out}"
    )


_arguments = path_options(out=paths.BASE)


if __name__ == "__main__":
    run(main)
