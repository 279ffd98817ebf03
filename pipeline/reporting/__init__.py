"""The reports' numbers and markdown. Reward-model report: `analysis` computes every number from aligned
score arrays, `baselines` holds the rules that never read the passages, `markdown` renders tables. Data
report: `data_analysis` and `data_languages` compute, `data_render` renders. `provenance` counts what data
ran for every header. The stages (pipeline.stages.report, .data_report) read the files and write the
outputs."""
