"""MRProfiler: Hadoop logs and traces to job templates."""
