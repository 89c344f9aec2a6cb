"""EvoChamber sandbox: which sources of nondeterminism a candidate's process touched.

A candidate runs with PYTHONHASHSEED=0 and `random` seeded with 0 (sandbox_policy.confine), so most
programs get the same verdict on every run. What is left to vary: the clock, the kernel's random
bytes, the process id, and threads. `Watch` notes the first use of each, so the grader runs a
program twice only when its first run touched one of them (code-grader.ts), and a program whose
verdict then differs between the two runs is marked flaky and never cached.

What is noted (the source's name in brackets, as the grader reports it):
- [time]     time.time/perf_counter/monotonic/process_time/thread_time/clock_gettime (and their
             _ns forms), time.localtime/gmtime/ctime/asctime/strftime without a time argument, os.times
- [urandom]  os.urandom, os.getrandom, an unseeded random.seed() or random.Random() (seeded by the
             kernel), random.SystemRandom and `secrets` (through random's own urandom), uuid4,
             tempfile's names, an open of /dev/urandom or /dev/random (an audit hook that only looks)
- [pid]      os.getpid, os.getppid (a pid differs between runs)
- [threads]  threading.Thread.start, _thread.start_new_thread (their interleaving may differ)

What is not (docs/sandbox-threat-model.md, "Determinism", says what the grader does about it):
C code that reads the clock itself (datetime.now, date.today, uuid1 through libuuid), id() and the
default hash of objects (addresses), a name bound to an original before the watch started (a
module preloaded by the worker that did `from time import monotonic`; only the worker's own
modules can have done so). These are left to a scan of the program's source on the Node side.

This is the candidate's own report, read from its own process: a program that means to hide what it
touched can. It gains nothing by that: its verdict is then one draw, kept, which is what any single
run would have given it.
"""
import functools
import os
import random
import sys
import threading
import _thread
import time

CLOCKS = ('time', 'time_ns', 'perf_counter', 'perf_counter_ns', 'monotonic', 'monotonic_ns', 'process_time',
          'process_time_ns', 'thread_time', 'thread_time_ns', 'clock_gettime', 'clock_gettime_ns')
# Read the clock only when called without the time they format (`localtime()`, `strftime('%H')`).
CLOCK_DEFAULTS = (('localtime', 0), ('gmtime', 0), ('ctime', 0), ('asctime', 0), ('strftime', 1))
DEVICES = ('/dev/urandom', '/dev/random', b'/dev/urandom', b'/dev/random')


class Watch:
    """Notes the sources a process touched. `hook` must be added as an audit hook while hooks may
    still be added (before the sandbox's guard); `start` wraps the functions, right before the
    candidate's code runs, so nothing the harness did before counts."""

    def __init__(self):
        self._touched = set()
        touched, devices = self._touched, DEVICES

        def hook(event, args):
            if event == 'open' and args and args[0] in devices:
                touched.add('urandom')

        self.hook = hook

    def touched(self):
        return sorted(self._touched)

    def _wrap(self, owner, name, source, when=None):
        original = getattr(owner, name, None)
        if original is None:
            return
        touched = self._touched

        @functools.wraps(original)
        def watched(*args, **kwargs):
            if when is None or when(args):
                touched.add(source)
            return original(*args, **kwargs)

        setattr(owner, name, watched)

    def start(self):
        for name in CLOCKS:
            self._wrap(time, name, 'time')
        for name, given in CLOCK_DEFAULTS:
            self._wrap(time, name, 'time', lambda args, given=given: len(args) <= given)
        posix = sys.modules.get(os.name)
        for owner in {os, posix} - {None}:
            self._wrap(owner, 'times', 'time')
            for name in ('urandom', 'getrandom'):
                self._wrap(owner, name, 'urandom')
            for name in ('getpid', 'getppid'):
                self._wrap(owner, name, 'pid')
        # random bound os.urandom at import, and seed() without a seed asks the kernel.
        self._wrap(random, '_urandom', 'urandom')
        self._wrap(random.Random, 'seed', 'urandom', lambda args: len(args) < 2 or args[1] is None)
        self._wrap(random, 'seed', 'urandom', lambda args: len(args) < 1 or args[0] is None)
        self._wrap(threading.Thread, 'start', 'threads')
        for name in ('start_new_thread', 'start_new'):
            self._wrap(_thread, name, 'threads')
