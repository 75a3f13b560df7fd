"""One module per command: plain functions taking options and returning an exit code."""
