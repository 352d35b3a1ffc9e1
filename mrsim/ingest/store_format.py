"""The trace store's format name and version, apart from :mod:`mrsim.ingest.store` so that the trace cache's keys
(:func:`mrsim.ingest.cache.entry_key`) can be computed without importing numpy and the store's readers (the early
read decides from one, :mod:`mrsim.ingest.early_read`)."""

FORMAT_NAME = "mrsim-trace-store"
FORMAT_VERSION = 2
