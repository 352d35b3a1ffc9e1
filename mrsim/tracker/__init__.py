"""Event kernel and the emulated JobTracker / TaskTracker heartbeat layer."""
