"""Cluster calibration: the overheads a real Hadoop cluster adds around each task, measured from its logs.

:mod:`~mrsim.calibration.model` holds the frozen :class:`Calibration` (distributions of launch and report lags per
task kind, the heartbeat interval the JobTracker ran at, JVM reuse, outlier TaskTrackers) and its TOML form;
:mod:`~mrsim.calibration.extract` measures one from Rumen ``LoggedJob`` records; :mod:`~mrsim.calibration.feature`
attaches it to the replay engine's hooks; :mod:`~mrsim.calibration.background` estimates the slots held by work
that is missing from a trace. ``docs/calibration.md`` explains every term and where each default comes from.
"""
