"""Schedulers bundled with mrsim: one plug-in per file, registered through the ``mrsim.schedulers`` entry-point group."""
