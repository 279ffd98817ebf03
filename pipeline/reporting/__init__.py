"""The reward-model report: `analysis` computes every number from aligned score arrays, `baselines` holds
the rules that never read the passages, `markdown` renders tables; the stage (pipeline.stages.report)
reads the files and writes the outputs."""
