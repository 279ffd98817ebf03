"""Stage `report`: reports/report.md, reports/metrics.json (headline numbers for `dvc metrics`),
reports/report_details.json (every accuracy, interval and test), reports/plots/*.csv and reports/figures/*.png.

Reads the Score records of every model (data/scores), the pairs (split, dimension, variant, texts for the
passage-blind rule), the data report's length diagnostics, the adapters' train_meta.json (run identity
and counts) and the training curves (reports/training). The numbers come from pipeline.reporting.analysis,
the markdown from pipeline.reporting.markdown, the inputs from pipeline.reporting.report_inputs and the
other tables from pipeline.reporting.report_render; this module only reads and writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline import paths
from pipeline.io import InputError, csv_text, write_json, write_text
from pipeline.records import PAIR_DIMENSIONS
from pipeline.reporting import markdown
from pipeline.reporting.analysis import analyse
from pipeline.reporting.optional import json_or
from pipeline.reporting.report_inputs import load_inputs, load_runs, pair_info, read_curves  # noqa: F401 (tests)
from pipeline.reporting.report_render import (  # noqa: F401 (tests/test_report.py reads them here)
    _significant,
    details_json,
    header_lines,
    headline_json,
    margin_scale,
    plot_rows,
    worst_cases,
)
from pipeline.stages import path_options, run, start


# -------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    rp = prm.report
    meta, models, info, scored = load_inputs(Path(args.scores), Path(args.pairs_root), prm.generate.refusal_by_language(),
                                             prm.train.external_pairs, prm.train)
    if rp.baseline not in models:
        raise InputError(Path(args.scores) / "meta.json", None, "models",
                         f"baseline {rp.baseline!r} was not scored (models: {models})")
    runs, run_meta = load_runs(Path(args.adapters), models)
    res = analyse(scored, info, models, runs, rp)
    reports = Path(args.reports)
    data_metrics = json_or(reports / "data_details.json", {})
    base_meta = json_or(paths.BASE_META, {})
    augment_meta = json_or(Path(args.pairs_root) / paths.AUGMENT_META.relative_to(paths.PROCESSED), {})
    ctx = {"params": prm, "scores_meta": meta, "runs": run_meta, "data_metrics": data_metrics,
           "augment_meta": augment_meta,
           "scale": margin_scale(scored, info, models, rp.baseline, rp.main_split)}
    header = header_lines(prm, base_meta, meta, data_metrics)
    from pipeline import plots

    order = markdown.system_order(models, rp.baseline)
    rows = plot_rows(res)
    plots.accuracy_figure([r for r in rows if r["scoring"] == rp.main_scoring], reports / "figures" / "accuracy.png",
                          order)
    plots.dimension_figure({k: v for k, v in res["tables"].items() if k.endswith(f"/{rp.main_scoring}")},
                           reports / "figures" / "dimensions.png", order, PAIR_DIMENSIONS)
    plots.training_figure(read_curves(Path(args.curves), sorted(runs)), reports / "figures" / "training.png")
    write_text(reports / "plots" / "accuracy.csv", csv_text(rows, list(rows[0]) if rows else ["system"]))
    details = details_json(res, rp.main_scoring)
    write_json(reports / "report_details.json", details)
    write_json(reports / "metrics.json", headline_json(details, rp.main_scoring))
    worst = worst_cases(scored, info, markdown.system_order(models, rp.baseline), rp.baseline, rp.main_split,
                        rp.main_scoring)
    write_text(reports / "report.md", markdown.render(res, models, header, ctx).rstrip("\n") + "\n\n"
               + "\n".join(worst))
    lead = [r for r in rows if r["scoring"] == rp.main_scoring and r["model"] in models]
    best = max(lead, key=lambda r: r["accuracy"] or -1)
    print(f"report: {len(models)} models x {len(info)} corpora -> {reports / 'report.md'} "
          f"(best on {rp.main_split}, {rp.main_scoring}: {best['system']} {best['accuracy']})")


def _arguments(parser: argparse.ArgumentParser) -> None:
    path_options(scores=paths.SCORES, pairs_root=paths.PROCESSED, adapters=paths.ADAPTERS,
                 curves=paths.TRAINING_CURVES, reports=paths.REPORTS)(parser)


if __name__ == "__main__":
    run(main)
