"""Studies built on mrsim: geo-distributed and federated scheduling, LoTES, the fluid model for size-based scheduling,
SimMR deadlines. Each has its docs/*.md page and its CLI command.
"""
