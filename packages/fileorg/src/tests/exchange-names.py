"""Exchanges two names atomically (renameat2 RENAME_EXCHANGE), as fast as it can, until SIGTERM.

Used by confinement-race.test.ts to race apply: the first name is a real folder inside the roots, the
second a symlink to a folder outside. Prints "ready" once an exchange (and back) succeeded, then waits
until something appears in the first folder (apply's checks of the folder are over and its moves have
begun), then exchanges without pause. On SIGTERM it stops, exchanges once more if needed so that the
first name is the real folder again, and prints the count.
Plain python3 with ctypes: no compiler needed.
"""
import ctypes
import os
import platform
import signal
import sys

AT_FDCWD = -100
RENAME_EXCHANGE = 2
# renameat2's syscall number where glibc has no wrapper (older than 2.28).
SYSCALLS = {"x86_64": 316, "aarch64": 276}

libc = ctypes.CDLL(None, use_errno=True)
first, second = (os.fsencode(p) for p in sys.argv[1:3])

try:
    renameat2 = libc.renameat2

    def exchange():
        return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE)

except AttributeError:
    number = SYSCALLS[platform.machine()]

    def exchange():
        return libc.syscall(number, AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE)


def checked():
    if exchange() != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


stop = False


def on_term(_signum, _frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
checked()
checked()
print("ready", flush=True)
while not stop and not os.listdir(first):
    pass
count = 0
while not stop:
    checked()
    count += 1
if os.path.islink(first):
    checked()
    count += 1
print("stopped", count, flush=True)
