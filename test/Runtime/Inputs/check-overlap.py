#!/usr/bin/env python3
"""Reads `sleeper START END` lines (microseconds, from the entries themselves)
and prints how many of the entries ran at the same time as all the others:
every start before every end means they overlapped."""
import sys

intervals = []
for line in sys.stdin:
    fields = line.split()
    if len(fields) == 3 and fields[0] == "sleeper":
        intervals.append((int(fields[1]), int(fields[2])))
    else:
        print(line, end="")
latest_start = max(start for start, _ in intervals) if intervals else 0
earliest_end = min(end for _, end in intervals) if intervals else 0
print(f"sleepers: {len(intervals)}")
print(f"all overlapped: {'yes' if intervals and latest_start < earliest_end else 'no'}")
print(f"each slept at least 200 ms: {'yes' if all(end - start >= 200000 for start, end in intervals) else 'no'}")
