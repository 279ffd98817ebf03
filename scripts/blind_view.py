"""Render drawn validation items for a blind reader: what the generator saw (the numbered passages with
their headings, the question), the reference with its facts and qualifiers, the answer, whether it was cut
off, and the refusal sentence of its language. No label, note or judge output is shown.

    python scripts/blind_view.py items.jsonl > items.md

The reader writes one JSON line per item (id, behaviour, faithfulness, correctness, completeness, note),
as data/validation/second_reader/labels.jsonl holds them (data/validation/README.md).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence


def render(item: dict) -> str:
    qa, cand = item["qa"], item["candidate"]
    lines = [
        f"## {item['id']}",
        "",
        f"Question: {qa['question']}",
        f"Reference: {qa['answer'] or '(none: the set marks the question impossible)'}",
        f"Facts: {qa['facts']}  Qualifiers: {qa['qualifiers']}",
        "",
    ]
    for n, passage in enumerate(item["passages"], 1):
        lines.append(f"[{n}] ({passage.get('heading', '')}) {passage['text']}")
    cut = cand["finish_reason"] == "length"
    lines += [
        "",
        f"Refusal sentence: {item['refusal']}",
        f"Answer{' (cut off at the token cap)' if cut else ''}: {cand['text']}",
        "",
    ]
    return "\n".join(lines)


def render_all(items: Iterable[dict]) -> str:
    return "\n".join(render(i) for i in items)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] in ("-h", "--help"):
        raise SystemExit(__doc__)
    with open(args[0], encoding="utf-8") as fh:
        items = [json.loads(line) for line in fh if line.strip()]
    if any(i.get("gold") for i in items):
        raise SystemExit(f"{args[0]}: items carry labels; a blind view shows none")
    if any(isinstance(p, str) for i in items for p in i["passages"]):
        raise SystemExit(f"{args[0]}: passages are table keys; render items as drawn, before compacting")
    sys.stdout.write(render_all(items))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
