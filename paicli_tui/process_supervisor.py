"""Runs one shell command or MCP server for the app and makes sure nothing it started
outlives it.

Started as a plain script (``python -I -S process_supervisor.py LIFELINE SHELL COMMAND``, or
``… --parent APP_PID PROGRAM ARGS…`` for an MCP server: no package import, so it costs a few
milliseconds), in its own session. It runs the shell (or the server) in a process group of
its own and becomes the "subreaper" of everything below it (Linux), so even a child that
calls ``setsid`` to escape the group is re-parented here and found.

- When the shell exits, whatever it left running (``sleep 31 &``, a daemon) is killed, one
  line says so, and the shell's exit code is passed on: a background child holding the output
  pipe can no longer hold up the result.
- ``LIFELINE`` is the read end of a pipe whose write end only the app holds. It reads as
  end-of-file the moment the app closes it (turn cancelled, timeout) or dies in any way,
  SIGKILL included; then everything is killed and the supervisor exits with 137.
- An MCP server is started by the SDK, which passes no file descriptor but the server's
  stdin/stdout/stderr, so its lifeline is the app process itself (``--parent APP_PID``): when
  the app dies, SIGKILL included, the supervisor is re-parented and kills the server's tree.
  Linux says so at once (``PR_SET_PDEATHSIG``); elsewhere the parent is looked at every
  second. The server keeps stdin and stdout to itself (the supervisor's own are closed), and
  the line about processes left running goes to stderr, the server's log.

Without Linux's ``/proc`` and subreaper (macOS, the BSDs) only the command's process group can
be found: it is killed until no member is left (``killpg(group, 0)`` says whether one is), so
``sleep 31 &`` and everything else in the group still ends with the command; a child that
leaves the group (``setsid``, a daemon that double-forks) is not found there and may outlive
it. That limit is the platform's: no portable call lists a process's descendants.
"""

import os
import select
import signal
import subprocess
import sys
import time

SOME = -1
"""What :func:`_kill_everything` reports when processes were left but cannot be counted."""


def _children_of_interest(me: int, group: int) -> list[int] | None:
    """Processes in the command's group, and orphans re-parented to this supervisor; None
    where there is no ``/proc`` to list them from."""
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        state, ppid, pgrp = fields[0], int(fields[1]), int(fields[2])
        if state == b"Z":
            continue
        if pgrp == group or ppid == me:
            found.append(int(name))
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _group_exists(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member we may not signal: it exists
        return True
    return True


def _kill_group_only(group: int) -> int:
    """Without ``/proc``: kill the group until no member is left (killed members linger as
    zombies until their new parent reaps them, so look again for up to about a second)."""
    found = False
    for attempt in range(50):
        if not _group_exists(group):
            break
        found = True
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
        _reap()
        time.sleep(0.002 * attempt)
    return SOME if found else 0


def _kill_everything(group: int) -> int:
    """Kill the command's group and every orphan re-parented here; how many were left
    (``SOME`` when they cannot be counted)."""
    me = os.getpid()
    stopped: set[int] = set()
    for _ in range(50):
        left = _children_of_interest(me, group)
        if left is None:
            return _kill_group_only(group)
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        stopped.update(left)
        _reap()
        if not left:
            break
    return len(stopped)


PARENT_LIFELINE = "--parent"
"""First argument of the MCP-server form: the app's pid follows, then the program."""
SCRIPT = os.path.abspath(__file__)
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _parse(argv: list[str]) -> tuple[int | None, int | None, list[str], int]:
    """(lifeline fd, app pid, the program's argv, where the closing note goes)."""
    if argv[0] == PARENT_LIFELINE:
        return None, int(argv[1]), argv[2:], 2
    return int(argv[0]), None, [argv[1], "-c", argv[2]], 1


STOP_GRACE_S = 1.0
"""How long an MCP server has to end on SIGTERM before it is killed: under the SDK's own
2 s between its SIGTERM and its SIGKILL, which reach only the supervisor's group."""


def _let_the_server_stop(child: subprocess.Popen, group: int) -> None:
    """Pass a stop on to the server's group and give it :data:`STOP_GRACE_S` to end. The SDK
    closes a server by SIGTERM to the process it started, which is this supervisor; the
    server (a group of its own) was killed outright, and one that tidies up on SIGTERM (a
    lock file, a database it writes) never could."""
    try:
        os.killpg(group, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + STOP_GRACE_S
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


MAX_SERVER_LOG_BYTES = 10_000_000
"""What an MCP server's stderr may write to its log in one run: a server logging without end
(a debug level left on, a loop) filled the disk, its stderr being the log file itself."""


MASKED_ENV = "PAICLI_MASKED_ENV"
"""Names (comma-separated) of the environment variables whose values an MCP server's log must
never hold: the ``env`` the person configured for it (a token the server prints when it fails
to log in). Read here and removed before the server starts; the values are never passed."""
MIN_MASKED_CHARS = 6
"""Shorter values ("1", "true") are not secrets and would be masked all over the log."""
MASK = b"****"


def _masked_values() -> list[bytes]:
    names = os.environ.pop(MASKED_ENV, "")
    values = {os.environ.get(name, "") for name in names.split(",") if name}
    return sorted((v.encode() for v in values if len(v) >= MIN_MASKED_CHARS),
                  key=len, reverse=True)


class _CappedLog:
    """Copies an MCP server's stderr (a pipe) to this process's stderr (the server's log) up
    to MAX_SERVER_LOG_BYTES, then says so once and drops the rest (still read, so the server
    never blocks on a full pipe). The values of ``secrets`` are masked on the way, a value
    cut between two reads too: the last bytes that could start one wait for the next read."""

    def __init__(self, source: int, secrets: list[bytes] | None = None) -> None:
        self.source = source
        self.written = 0
        self.secrets = secrets or []
        self.held = b""
        os.set_blocking(source, False)

    def pump(self) -> bool:
        """Copy what is there now; False once the pipe is at its end."""
        try:
            data = os.read(self.source, 1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            self.flush()
            return False
        if not data:
            self.flush()
            return False
        self._copy(data)
        return True

    def flush(self) -> None:
        """Write what was held back (the pipe's end, or the server gone)."""
        held, self.held = self.held, b""
        if held:
            self._write(held)

    def _copy(self, data: bytes) -> None:
        if not self.secrets:
            self._write(data)
            return
        data = self.held + data
        for value in self.secrets:
            data = data.replace(value, MASK)
        # the longest value's start may end this read: those bytes wait for the next one
        cut = max(0, len(data) - (len(self.secrets[0]) - 1))
        self.held = data[cut:]
        self._write(data[:cut])

    def _write(self, data: bytes) -> None:
        room = MAX_SERVER_LOG_BYTES - self.written
        if room > 0:
            kept = data[:room]
            if len(kept) < len(data):
                kept += (f"\n[the MCP server wrote more than {MAX_SERVER_LOG_BYTES:,} bytes to "
                         "stderr in this run; the rest is not kept]\n").encode()
            _write_all(2, kept)
        self.written += len(data)

    def drain(self) -> None:
        """Copy what is left once the server is gone (never waiting for more)."""
        while self.pump():
            try:
                if not select.select([self.source], [], [], 0)[0]:
                    break
            except (OSError, ValueError):
                break
        self.flush()


def _write_all(fd: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass


def _orphaned(app: int | None) -> bool:
    """True when the app this supervisor belongs to has died (it was re-parented)."""
    return app is not None and os.getppid() != app


def main() -> int:
    lifeline, app, program, notes = _parse(sys.argv[1:])
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    stop: list[int] = []
    signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes select through the wake-up pipe
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, lambda signum, _frame: stop.append(signum))
    if app is not None:
        # The parent's death wakes select; only a new parent proves it (the signal also
        # comes when the thread that started this process ends, the app still running).
        signal.signal(signal.SIGUSR1, lambda *_: None)
        _prctl(PR_SET_PDEATHSIG, signal.SIGUSR1)
        if _orphaned(app):  # died before the line above: nothing is started
            return 137
    secrets = _masked_values()  # before the server starts: it must not see the names either
    try:  # a server's stderr comes through here, to be cut at MAX_SERVER_LOG_BYTES
        child = subprocess.Popen(program, process_group=0,
                                 stderr=subprocess.PIPE if app is not None else None)
    except OSError as exc:
        os.write(2, f"cannot start {program[0]}: {exc}\n".encode())
        return 127
    log = _CappedLog(child.stderr.fileno(), secrets) if child.stderr is not None else None
    if app is not None:  # the server alone holds the pipes: its exit is their end-of-file
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
    group = child.pid
    watched = [wake_r] if lifeline is None else [lifeline, wake_r]
    if log is not None:
        watched.append(log.source)
    while child.poll() is None:
        try:
            ready, _, _ = select.select(watched, [], [], 1.0)
        except InterruptedError:
            continue
        if log is not None and log.source in ready and not log.pump():
            watched.remove(log.source)  # its end: the server is about to exit
        if wake_r in ready:
            try:
                os.read(wake_r, 512)
            except BlockingIOError:
                pass
        if lifeline in ready or stop or _orphaned(app):  # the app is gone: nothing may stay
            if app is not None and stop and not _orphaned(app):
                _let_the_server_stop(child, group)
            _kill_everything(group)
            if log is not None:
                log.drain()
            return 137
    code = child.returncode
    left = _kill_everything(group)
    if log is not None:
        log.drain()
    if left:
        count = "background processes" if left == SOME else f"{left} background process{'' if left == 1 else 'es'}"
        what = "command" if app is None else "MCP server"
        note = f"\n[the {what} left {count} running; they were stopped when it finished]\n"
        try:
            os.write(notes, note.encode())
        except OSError:
            pass
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
