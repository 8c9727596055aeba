"""pressmark.markdown (being built)."""

__all__: list[str] = []
