"""Engine features that attach to the JobTracker: TDAM contention, setup/cleanup tasks and failed-attempt replay,
speculative execution (docs/architecture.md, 'The engine's hooks').
"""
