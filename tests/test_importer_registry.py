"""The importer registry (pipeline/importers/registry.py): params take their formats from it, the stages
dispatch through it, and every stage that reads an import runs (so lists in dvc.yaml) its readers."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
import yaml

from pipeline import dvc_deps
from pipeline import params as params_mod
from pipeline.code_version import closure
from pipeline.importers import registry
from pipeline.params import ParamsError, QaImportParams
from pipeline.records import QA, Passage

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("decisions.documents", "corpus.qa_import", "generate.import_candidates", "train.external_pairs")


def section_class(section: str) -> type:
    """The params dataclass at the dotted `section` of Params."""
    cls = params_mod.Params
    for part in section.split("."):
        cls = typing.get_type_hints(cls)[part]
    return cls


@pytest.mark.parametrize("section", SECTIONS)
def test_params_allow_exactly_the_registered_formats(section):
    cls = section_class(section)
    assert typing.get_args(typing.get_type_hints(cls)["format"]) == registry.formats(section)
    assert {e.params for e in registry.IMPORTERS if e.section == section} == {cls.__name__}


def test_an_unknown_format_is_a_one_line_params_error_naming_the_allowed_ones():
    with pytest.raises(ParamsError) as err:
        params_mod.from_dict({"corpus": {"qa_import": {"format": "csv"}}})
    assert str(err.value) == "params: corpus.qa_import.format: expected one of ['none', 'squad'], got 'csv'"
    with pytest.raises(ValueError, match=r"^decisions.documents.format: expected one of \['records', 'jsonl', "
                                         r"'json_folder'\], got 'csv'$"):
        registry.importer("decisions.documents", "csv")


def test_every_entry_names_a_reader_that_exists():
    seen = set()
    for entry in registry.IMPORTERS:
        assert callable(entry.reader()), entry
        assert (entry.section, entry.format) not in seen, entry
        seen.add((entry.section, entry.format))
    assert registry.reader("decisions.import_path", "records").__name__ == "load_records"


def stages_reading(section: str) -> dict[str, str]:
    """dvc.yaml stages (name -> the module they run) that read the import at `section`: their deps name
    `${<section>.path}`; decisions.import_path lives under data/external, which the decisions stage lists."""
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    key = "${decisions.documents.path}" if section == "decisions.import_path" else f"${{{section}.path}}"
    out = {}
    for name, stage in spec.items():
        stage = stage.get("do", stage)
        if key in stage.get("deps", []):
            out[name] = re.search(r"python -m (\S+)", stage["cmd"]).group(1)
    return out


@pytest.mark.parametrize("entry", registry.IMPORTERS, ids=lambda e: f"{e.section}:{e.format}")
def test_every_stage_reading_an_import_counts_its_readers_as_its_code(entry):
    """The registry resolves readers by name at run time, which an import graph does not see; the dvc.yaml
    deps check (pipeline/dvc_deps.py) follows each `reader("<section>", ...)` call to the modules registered
    for that section, so a new format's module is one of its stages' code without any import line."""
    stages = stages_reading(entry.section)
    assert stages, f"no dvc.yaml stage lists ${{{entry.section}.path}}"
    module = entry.module.replace(".", "/") + ".py"
    for stage, runs in stages.items():
        if stage == "data_report":  # reads outside pairs for its counts without the registry (not dispatched)
            continue
        assert "pipeline/importers/registry.py" in closure(runs), f"stage {stage} does not dispatch through the registry"
        assert module in dvc_deps.needed(runs), f"stage {stage} ({runs}) calls {entry.module} but does not count it"


def test_a_new_format_is_its_module_and_one_registry_line(tmp_path, monkeypatch):
    """A reader module the stages never import becomes code of every stage reading its section once one
    registry entry names it."""
    entry = registry.Importer("corpus.qa_import", "csv", "pipeline.importers.pairs", "read_outside_pairs", "QaImportParams")
    assert "pipeline/importers/pairs.py" not in dvc_deps.needed("pipeline.stages.corpus")
    monkeypatch.setattr(registry, "IMPORTERS", (*registry.IMPORTERS, entry))
    assert "pipeline/importers/pairs.py" in dvc_deps.needed("pipeline.stages.corpus")


# ------------------------------------------------------------------------------------- dispatch
def fake_qa_reader(cfg, root, skips):
    """A stand-in reader: one passage and one question, whatever the file."""
    passage = Passage(id="fake-p1", decision_id="fake", family="fake", heading="Facts", text="租金为500元。")
    qa = QA(id="fake-q1", question="租金是多少？", answer="500元", gold_passage_id="fake-p1", family="fake",
            kind="factual", facts=["500元"], qualifiers=[])
    return [passage], [qa]


def test_the_corpus_stage_reads_whatever_the_registry_names(monkeypatch):
    """A format is one entry: the corpus stage calls the registered reader of corpus.qa_import.format, with
    the section's arguments, and has no branch of its own per format."""
    from pipeline.stages import corpus as corpus_stage

    entries = tuple(registry.Importer(e.section, e.format, "test_importer_registry", "fake_qa_reader", e.params)
                    if e.section == "corpus.qa_import" else e for e in registry.IMPORTERS)
    monkeypatch.setattr(registry, "IMPORTERS", entries)
    p = params_mod.from_dict({"corpus": {"questions_per_decision": 1,
                                         "qa_import": QaImportParams(format="squad").__dict__}})
    passages, qas = corpus_stage.build([], p)
    assert [x.id for x in passages] == ["fake-p1"] and [q.id for q in qas] == ["fake-q1"]
