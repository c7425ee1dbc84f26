"""Runs a program as a launcher that logs its output does: python3 -u
wrapper.py PROGRAM ARGS...

Each line the program prints, on standard output or error, is printed as
"[WARNING] stderr: LINE", flushed at once; the wrapper then exits with the
program's status, or dies of the signal that killed it.
"""

import os
import signal
import subprocess
import sys

child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
for line in iter(child.stdout.readline, b""):
    sys.stdout.buffer.write(b"[WARNING] stderr: " + line.rstrip(b"\r\n") + b"\n")
    sys.stdout.buffer.flush()
status = child.wait()
if status < 0:
    signal.signal(-status, signal.SIG_DFL)
    os.kill(os.getpid(), -status)
sys.exit(status)
