"""The trace store's format name and version, apart from :mod:`mrsim.profiler.store` so that the trace cache's keys
(:func:`mrsim.profiler.cache.entry_key`) can be computed without importing numpy and the store's readers (the early
read decides from one, :mod:`mrsim.profiler.early_read`)."""

FORMAT_NAME = "mrsim-trace-store"
FORMAT_VERSION = 3
