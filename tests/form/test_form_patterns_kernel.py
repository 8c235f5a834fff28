"""Agent patterns in a real kernel: the pattern worker starts from ipykernel's interpreter, a
slow pattern costs one pass's budget, and the stop button (both interrupt modes) never reaches
the worker, which runs in its own session."""

from __future__ import annotations

import os

import pytest
from support.kernel_support import KernelHarness

pytestmark = pytest.mark.kernel

CHECK = """
from nbacp.form import Form
from nbacp.form.ecma import ENGINE
form = Form.from_schema({"properties": {
    "code": {"type": "string", "pattern": "^\\\\d{3}$"},
    "slow": {"type": "string", "pattern": "^(a|a)*$"},
}})
print(form.validate({"code": "\\u0661\\u0662\\u0663", "slow": "a" * 40 + "b"}))
print(form.validate({"code": "123", "slow": "aa"}))
print("worker", ENGINE.pid)
"""


def test_patterns_are_checked_in_a_kernel_and_the_stop_button_spares_the_worker(any_mode_kernel: KernelHarness) -> None:
    kernel = any_mode_kernel
    out = kernel.run(CHECK, timeout=60).splitlines()
    assert out[0] == (
        "{'code': ['Must match the pattern ^\\\\d{3}$.'], "
        "'slow': ['The pattern this field requires took too long to check; the value cannot be accepted.']}"
    )
    assert out[1] == "{}"
    pid = int(out[2].split()[1])
    # Short sleeps, not one long one: the kernel signals its own process group from its control
    # thread, and POSIX gives a process-directed SIGINT to any thread that does not block it. When
    # another thread takes it, one long sleep in the main thread is not woken, and the
    # KeyboardInterrupt waits for the sleep to end (seen once in CI: 20 s without an idle). Python
    # raises it at the next bytecode of the main thread, which a loop of short sleeps reaches.
    cell = kernel.execute("import time\nprint('sleeping', flush=True)\nwhile True:\n    time.sleep(0.05)")
    kernel.wait_for(lambda: "sleeping" in kernel.stream_text(cell), 20, "the cell to start sleeping")
    kernel.interrupt()
    kernel.wait_idle(cell, timeout=20)
    os.kill(pid, 0)  # still alive: the interrupt went to the kernel's process group, not to the worker
    assert kernel.run("print(form.validate({'code': '456'}), ENGINE.pid)") == f"{{}} {pid}\n"
