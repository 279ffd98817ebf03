"""Which reader imports each format of each import, and the one way a stage calls it.

An import is a params section with a `format` key ("none": off). Each entry below names the section,
the format, the reader (module and function, imported only when that import runs, so a stage loads the
readers of its own imports alone) and the class of pipeline.params that holds the reader's settings.
pipeline/params.py takes each section's allowed formats from here, so an unknown format stops at
params time with the allowed names; the stages look their reader up here and never name a format.

A new format is its module in pipeline/importers/ and one entry below (and its section of
data/external/README.md). No stage imports a reader: `python -m pipeline.dvc_deps --write` follows each
stage's `reader("<section>", ...)` call to the modules registered here and lists them among its deps.

Every reader of a section is called alike, whatever its format:
  decisions.documents         reader(cfg, root, taken_ids, skips) -> list[Decision]
  corpus.qa_import            reader(cfg, root, skips) -> (passages, questions)
  generate.import_candidates  reader(path, context_index, taken_ids, skips) -> list[Candidate]
  train.external_pairs        reader(path, skips) -> list[OutsidePairRecord]
decisions.import_path, the older key for decisions in the records format, reaches the records reader
of decisions.documents through its own entry, so its messages keep naming that key:
  decisions.import_path       reader(path, taken_ids) -> list[Decision]
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

OFF = "none"


@dataclass(frozen=True)
class Importer:
    section: str  # the params section (dotted) whose `format` selects this reader
    format: str
    module: str
    function: str
    params: str | None  # the pipeline.params class of the section; None for a bare path key

    def reader(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.function)


IMPORTERS: tuple[Importer, ...] = (
    Importer("decisions.documents", "records", "pipeline.importers.documents", "load_documents", "DocumentsImportParams"),
    Importer("decisions.documents", "jsonl", "pipeline.importers.documents", "load_documents", "DocumentsImportParams"),
    Importer("decisions.documents", "json_folder", "pipeline.importers.documents", "load_documents",
             "DocumentsImportParams"),
    Importer("decisions.import_path", "records", "pipeline.importers.checks", "load_records", None),
    Importer("corpus.qa_import", "squad", "pipeline.importers.squad", "load_squad", "QaImportParams"),
    Importer("generate.import_candidates", "jsonl", "pipeline.importers.candidates", "load_candidates",
             "CandidatesImportParams"),
    Importer("train.external_pairs", "jsonl", "pipeline.importers.pairs", "read_outside_pairs", "ExternalPairsParams"),
)


def formats(section: str) -> tuple[str, ...]:
    """The values `<section>.format` may take: "none" (off), then the registered formats in entry order."""
    return (OFF, *(i.format for i in IMPORTERS if i.section == section))


def importer(section: str, fmt: str) -> Importer:
    for entry in IMPORTERS:
        if entry.section == section and entry.format == fmt:
            return entry
    raise ValueError(f"{section}.format: expected one of {list(formats(section))[1:]}, got {fmt!r}")


def reader(section: str, fmt: str) -> Callable[..., Any]:
    """The reader of `fmt` for `section` (see the module docstring for how each section calls it)."""
    return importer(section, fmt).reader()
