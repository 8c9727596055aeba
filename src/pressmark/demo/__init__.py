"""pressmark.demo (being built)."""

__all__: list[str] = []
