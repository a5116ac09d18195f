#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/flushorigin.py, which bench/aptinstall.sh -T uses to say where each
# call's flushes came from: a trace with a flush queued from a system call,
# one queued by a worker while another process was inside fsync, one the
# filesystem made on its own, one of another device, a preflush and FUA
# bio counted twice, a bio before the first call, and one queued from a
# system call the trace saw no entry of.
. "${srcdir:-.}/tests/lib.sh"

command -v python3 > /dev/null || skip "python3 missing"

cat > "$T/trace" <<'T'
# tracer: nop
#
     kworker/0:1-10    [000] .....   10.000000: block_bio_queue: 7,1 FWFSM 8 + 8 [kworker/0:1]
      dpkg-calls-20    [001] ...1.   11.000000: tracing_mark_write: dpkg-calls start
       debunpack-21    [001] .....   11.100000: sys_fdatasync(fd: 5)
       debunpack-21    [001] .....   11.100100: block_bio_queue: 7,1 FWS 0 + 0 [debunpack]
       debunpack-21    [001] .....   11.100200: <stack trace>
 => trace_event_raw_event_block_bio
 => submit_bio_wait
 => blkdev_issue_flush
 => xfs_file_fsync
 => __x64_sys_fdatasync
 => do_syscall_64
       debunpack-21    [001] .....   11.100300: sys_fdatasync -> 0x0
       debunpack-21    [001] .....   11.200000: sys_fsync(fd: 6)
    kworker/u8:6-30    [000] .....   11.200100: block_bio_queue: 7,1 FWFSM 16 + 10 [kworker/u8:6]
    kworker/u8:6-30    [000] .....   11.200200: <stack trace>
 => trace_event_raw_event_block_bio
 => xlog_state_release_iclog
 => xlog_cil_push_work
 => worker_thread
       debunpack-21    [001] .....   11.200300: sys_fsync -> 0x0
    kworker/u8:5-31    [000] .....   11.300000: block_bio_queue: 7,1 FWSM 26 + 64 [kworker/u8:5]
    kworker/u8:5-31    [000] .....   11.300100: <stack trace>
 => trace_event_raw_event_block_bio
 => xlog_write
 => xlog_cil_push_work
 => worker_thread
    kworker/u8:5-31    [000] .....   11.400000: block_bio_queue: 254,0 FWFS 90 + 8 [kworker/u8:5]
    kworker/u8:5-31    [000] .....   11.400100: block_bio_queue: 7,1 WS 100 + 8 [kworker/u8:5]
      dpkg-calls-20    [001] ...1.   11.500000: tracing_mark_write: dpkg-calls end
      dpkg-calls-40    [001] ...1.   12.000000: tracing_mark_write: dpkg-calls start
           ldconfig-41    [000] .....   12.100000: block_bio_queue: 7,1 FWS 0 + 0 [ldconfig]
           ldconfig-41    [000] .....   12.100100: <stack trace>
 => trace_event_raw_event_block_bio
 => blkdev_issue_flush
 => ext4_sync_file
 => __x64_sys_fsync
      dpkg-calls-40    [001] ...1.   12.500000: tracing_mark_write: dpkg-calls end
T
python3 "${srcdir:-.}/bench/flushorigin.py" "$T/trace" 7,1 > "$T/out" ||
    fail "flushorigin.py failed: $(cat "$T/out")"
# Call 1: 1 (fdatasync's own flush) + 2 (the push fsync waited for) from
# syncs, 1 (a push nobody waited for) the filesystem's; call 2: a flush
# queued from a system call whose entry the trace missed; in all, the bio
# before the calls too.
printf '1 4 3 1\n2 1 1 0\nall 7\n' > "$T/want"
cmp -s "$T/want" "$T/out" || fail "origins: want $(cat "$T/want"), got $(cat "$T/out")"
python3 "${srcdir:-.}/bench/flushorigin.py" "$T/trace" > /dev/null 2>&1 &&
    fail "no device: accepted"
exit 0
