"""Document loaders for RAG frameworks: one document per citable chunk.

* :mod:`pressmark.integrations.langchain`: ``PressmarkLoader`` (a LangChain
  ``BaseLoader``), extra ``pressmark[langchain]``;
* :mod:`pressmark.integrations.llamaindex`: ``PressmarkReader`` (a LlamaIndex
  ``BaseReader``), extra ``pressmark[llamaindex]``.

Each runs a guarded crawl (or reads an existing crawl output directory) and yields one
document per chunk (:func:`pressmark.cite.chunk`) with ``source_ref``, ``chunk_id``,
``url``, ``fetched_at``, ``title`` and ``validation`` in its metadata. This package
imports neither framework: each module imports its own, so installing one is enough.
``docs/citations.md`` is the user's guide.
"""
