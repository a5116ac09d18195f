#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a device's cache flushes came from, call by call.

usage: bench/flushorigin.py TRACE MAJOR,MINOR

TRACE is the text of the kernel's trace buffer (/sys/kernel/tracing/trace)
recorded with the events that bench/aptinstall.sh -T turns on: every bio
with a preflush or FUA queued (block:block_bio_queue, with its stack), the
sync system calls' entries and exits (fsync, fdatasync, syncfs, sync,
sync_file_range, msync), and the lines the dpkg wrapper writes to
trace_marker around each call ("dpkg-calls start", "dpkg-calls end").

For each call, in order, one line: its index (from 1), the flush requests
of the device MAJOR,MINOR in it, how many of them a sync system call
caused, and how many the filesystem made on its own.  A flush counts as
a sync's when its bio was queued from a system call, or while any process
was inside one of those sync calls (whoever it was: the count leans
towards the syncs); else it is the filesystem's own (xfs's log-tail
pushing, a timed jbd2 or btrfs commit, writeback).  A bio asks for one
flush for its preflush and one for its FUA (a loop device emulates FUA
with a flush after the write), as field 16 of the device's stat counts
them.  A last line, "all N", gives the flushes of the whole trace, to be
checked against the stat.
"""

import re
import sys

LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[\d+\]\s+\S+\s+[\d.]+: (.*)$")
SYNCS = ("fsync", "fdatasync", "syncfs", "sync", "sync_file_range", "msync")
SYSCALL = re.compile(r"^sys_(\w+)(\(| ->)")


def flushes(rwbs):
    """Flush requests of one bio: its preflush, and its FUA."""
    m = re.match(r"^(F?)[A-Z](F?)", rwbs)
    if m is None:
        return 0
    return (m.group(1) == "F") + (m.group(2) == "F")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: flushorigin.py TRACE MAJOR,MINOR\n")
        return 2
    dev = argv[2]
    insync = set()          # pids inside a sync call
    calls = []              # [total, syncs, fs] per finished call
    cur = None              # the call under way
    pending = None          # a flush bio whose stack may follow
    total = 0

    def settle(bio):
        nonlocal total
        n, insys = bio
        total += n
        if cur is not None:
            cur[0] += n
            cur[1 if insys else 2] += n

    with open(argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(" => "):
                if pending is not None and "__x64_sys_" in line:
                    pending[1] = True
                continue
            if "<stack trace>" in line:
                continue
            m = LINE.match(line)
            if m is None:
                continue
            if pending is not None:
                settle(pending)
                pending = None
            pid, text = m.group(2), m.group(3)
            s = SYSCALL.match(text)
            if s is not None and s.group(1) in SYNCS:
                if s.group(2) == "(":
                    insync.add(pid)
                else:
                    insync.discard(pid)
                continue
            if text.startswith("tracing_mark_write: dpkg-calls start"):
                cur = [0, 0, 0]
            elif text.startswith("tracing_mark_write: dpkg-calls end"):
                if cur is not None:
                    calls.append(cur)
                cur = None
            elif text.startswith("block_bio_queue: "):
                fields = text.split()
                if len(fields) < 3 or fields[1] != dev:
                    continue
                n = flushes(fields[2])
                if n:
                    pending = [n, bool(insync)]
    if pending is not None:
        settle(pending)
    for i, (t, s, o) in enumerate(calls, 1):
        print(i, t, s, o)
    print("all", total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
