"""What-if semantics: what a replay on another cluster, scheduler or load keeps of what the trace taught, and what
it re-derives (``docs/what-if.md`` holds the table of rules, :mod:`mrsim.whatif.rules` the same as data)."""
