"""Event kinds (the kernel's handler-table index) and same-instant order values of the replay engine.

At one instant events run in this order: scheduler timers, job arrivals and initialisations, task completions
(including setup/cleanup and speculative backups; YARN mode's container exits), YARN mode's ApplicationMaster
events (``ORDER_APP_MASTER``: AM starts, allocates, job commits; no MR1 event uses it), then heartbeats in tracker
order (``ORDER_HEARTBEAT + index``; NodeManager heartbeats in YARN mode).
Kinds from ``EV_FIRST_FEATURE`` on are handed out by ``JobTracker.register_event`` to features (contention,
speculation, job overheads, background); a kind's number never affects the order of events.
"""

EV_JOB_ARRIVAL, EV_TASK_DONE, EV_HEARTBEAT, EV_TIMER = 0, 1, 2, 3  # 4 to 7: unused (were features' kinds)
ORDER_TIMER, ORDER_JOB_ARRIVAL, ORDER_TASK_DONE, ORDER_APP_MASTER, ORDER_HEARTBEAT = -1, 0, 1, 2, 3
EV_FIRST_FEATURE = 32  # JobTracker.register_event hands out kinds from here
