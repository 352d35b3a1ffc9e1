"""Engine features that attach to the JobTracker: resource vectors and high-RAM tasks, TDAM contention,
setup/cleanup tasks and failed-attempt replay, speculative execution, reducer preemption (docs/architecture.md,
'The engine's hooks').
"""
