"""pressmark.crawl (being built)."""

__all__: list[str] = []
