"""Package-manager glue: run a backend's own lock and read what it locked."""
