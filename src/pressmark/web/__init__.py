"""pressmark.web (being built)."""

__all__: list[str] = []
