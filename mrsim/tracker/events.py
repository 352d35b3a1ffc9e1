"""Event kinds (the kernel's handler-table index) and same-instant order values of the replay engine.

At one instant events run in this order: scheduler timers, job arrivals and initialisations, task completions
(including setup/cleanup and speculative backups; YARN mode's container exits), YARN mode's ApplicationMaster
events (``ORDER_APP_MASTER``: AM starts, allocates, job commits; no MR1 event uses it), then heartbeats in tracker
order (``ORDER_HEARTBEAT + index``; NodeManager heartbeats in YARN mode).
Kinds from ``EV_FIRST_FEATURE`` on are handed out by ``JobTracker.register_event`` to features (contention,
speculation, job overheads, background); a kind's number never affects the order of events.
"""

from typing import Final

# Final: the compiled core inlines them (a plain module attribute costs a dict lookup at every use)
EV_JOB_ARRIVAL: Final = 0
EV_TASK_DONE: Final = 1
EV_HEARTBEAT: Final = 2
EV_TIMER: Final = 3  # 4 to 7: unused (were features' kinds)
ORDER_TIMER: Final = -1
ORDER_JOB_ARRIVAL: Final = 0
ORDER_TASK_DONE: Final = 1
ORDER_APP_MASTER: Final = 2
ORDER_HEARTBEAT: Final = 3
EV_FIRST_FEATURE: Final = 32  # JobTracker.register_event hands out kinds from here
