"""Runs a command in a pseudo-terminal, relaying our stdin to it and its output to our stdout.

    python3 run_in_pty.py COLUMNS ROWS -- COMMAND [ARGS...]

The command gets a real terminal (stdin, stdout and stderr on the pty slave, which is its
controlling terminal), so Ctrl-C typed as \\x03 reaches it as SIGINT through the line discipline.
Exits with the command's exit code (128 + signal when it was killed).
"""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios


def main() -> int:
    cols, rows = int(sys.argv[1]), int(sys.argv[2])
    argv = sys.argv[sys.argv.index("--") + 1 :]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def become_terminal_owner() -> None:
        # start_new_session made us a session leader: adopt the pty as controlling terminal.
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=become_terminal_owner,
        close_fds=True,
    )
    os.close(slave)
    stdin_open = True
    while True:
        fds = [master] + ([0] if stdin_open else [])
        try:
            readable, _, _ = select.select(fds, [], [], 0.5)
        except InterruptedError:
            continue
        if master in readable:
            try:
                data = os.read(master, 65536)
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                break  # every holder of the slave closed it: the command is gone
            os.write(1, data)
        if stdin_open and 0 in readable:
            data = os.read(0, 65536)
            if data:
                os.write(master, data)
            else:
                stdin_open = False
        if child.poll() is not None and master not in readable:
            # Exited; drain what is left without blocking.
            try:
                while True:
                    r, _, _ = select.select([master], [], [], 0.05)
                    if not r:
                        break
                    data = os.read(master, 65536)
                    if not data:
                        break
                    os.write(1, data)
            except OSError:
                pass
            break
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(main())
