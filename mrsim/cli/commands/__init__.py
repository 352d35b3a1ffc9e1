"""One module per ``mrsim`` subcommand (see :mod:`mrsim.cli`)."""
