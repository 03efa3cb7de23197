"""Rendering results for people and tools: one module per format, all streams chosen here."""
