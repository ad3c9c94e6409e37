"""forkpipe.receive_launch leaves the template with stdin, stdout and stderr open.

It points fds 0-2 at /dev/null and closes the /dev/null descriptor it opened. When the run that
forked the template had closed its stdin, that descriptor *was* fd 0, and closing it left the
reference without a stdin: the next file or socket it opened became fd 0. (Before forkpipe, the
mutation fork server never closed it; the project tests' fork server had the same close.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import forkpipe


def test_stdin_stays_open_when_the_run_had_none(tmp_path: Path) -> None:
    log = tmp_path / "reference.log"
    log.write_bytes(b"")
    launch_read, launch_write = os.pipe()
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the template, forked from a run without a stdin
        code = 1
        try:
            os.close(launch_write)
            os.close(report_read)
            os.close(0)
            forkpipe.receive_launch(launch_read)
            open_fds = [fd for fd in (0, 1, 2) if _is_open(fd)]
            os.write(report_write, json.dumps(open_fds).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(launch_read)
    os.close(report_write)
    request = {"argv": [], "log": str(log), "cwd": str(tmp_path), "env": {}}
    with os.fdopen(launch_write, "wb") as pipe:
        pipe.write(json.dumps(request).encode())
    with os.fdopen(report_read, "rb") as report:
        seen = report.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert json.loads(seen) == [0, 1, 2], "a standard stream of the template was left closed"


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
