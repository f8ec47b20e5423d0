"""What was recorded: cuda.lock, the managed entries a plan asks the backends to write, the
check of the resolver's lock against the plan, and the transaction (with its handling of
SIGINT and SIGTERM) that makes `lock` all or nothing."""
