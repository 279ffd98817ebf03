"""Structured replies: one JSON schema per reply kind (schemas.py), enforced while a local model decodes
(hf.py), asked of servers as response_format (pipeline/backends/openai.py) and checked on every reply."""
