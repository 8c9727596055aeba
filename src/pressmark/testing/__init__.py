"""pressmark.testing (being built)."""

__all__: list[str] = []
