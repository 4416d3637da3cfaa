"""Keep this process's own environment out of reach of the commands it starts.

Commands the agent runs get an environment without the provider keys (see
``core/agent/tools/command_env``), but the app's own environment, where the person exported
the key, stays readable at ``/proc/<pid>/environ`` by every process of the same user: a
command finds it in two steps (``awk '{print $4}' /proc/$PPID/stat`` is the app's pid), and
``gzip | base64`` gets it past the output redaction. An MCP server or a project script could
do the same. On Linux the process is therefore marked not dumpable at start, as ssh-agent
and gpg-agent do: its ``/proc`` files (environ, mem, maps) then belong to root and no other
process of the user may read them or attach a debugger; no core file is written. The mark is
not inherited through ``exec``, so commands and servers run as usual.
"""

from __future__ import annotations

import sys

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3


def keep_environment_private() -> bool:
    """Mark this process not dumpable (Linux); True when the mark is set."""
    if not sys.platform.startswith("linux"):
        return False  # no /proc/<pid>/environ to protect; macOS `ps -E` is a documented limit
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc prctl: nothing else can be done
        return False
