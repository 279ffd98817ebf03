"""Legal reward models for grounding and abstention: the DVC pipeline's stages and the pieces they share."""
