"""The data model: job templates and workloads, clusters, demands, the Hadoop configuration, warnings on suspicious
inputs, and the ARIA completion-time model. Imports no engine.
"""
