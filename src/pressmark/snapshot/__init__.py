"""pressmark.snapshot (being built)."""

__all__: list[str] = []
