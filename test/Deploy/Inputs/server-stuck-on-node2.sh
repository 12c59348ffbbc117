#!/bin/sh
# An executor-server that never starts on node2, where it sleeps instead;
# elsewhere $REAL_EXECUTOR_SERVER (the job's environment has it).
[ "$SLURMD_NODENAME" = node2 ] && exec sleep 600
exec "$REAL_EXECUTOR_SERVER" "$@"
