"""The set_next_input fallback (nbacp/kernel/next_input.py) in real kernels, the oldest (Colab's
ipykernel 6.17.1 + IPython 7.34) and the newest of the matrix: an accepted insert becomes one
``set_next_input`` payload of the prompt cell's execute_reply, and is never reported as applied."""

from __future__ import annotations

import json
import textwrap

import pytest
from support.kernel_support import KernelHarness

pytestmark = pytest.mark.kernel

APPLY = textwrap.dedent("""
    import json, dataclasses
    from nbacp.kernel.next_input import NextInputLink
    from nbacp.kernel.notebook_edits import CellEdit
    link = NextInputLink("no front-end piece answered")
    def edit(**fields):
        return CellEdit(**({"cell_id": None, "cell_type": "code", "expected_source": None} | fields))
    results = [await link.apply(edit(mode="insert", source="df.plot()")),
               await link.apply(edit(mode="insert", source="second = 2")),
               await link.apply(edit(mode="replace", cell_id="abc", source="x = 1")),
               await link.apply(edit(mode="insert", source="# notes", cell_type="markdown"))]
    print(json.dumps([dataclasses.asdict(r) for r in results]))
""")


def test_one_insert_arrives_as_the_prompt_cells_payload(oldest_newest_kernel: KernelHarness) -> None:
    kernel = oldest_newest_kernel
    msg_id = kernel.execute(APPLY)
    kernel.wait_idle(msg_id, 60)
    assert kernel.error(msg_id) is None, kernel.error(msg_id)
    first, second, replace, markdown = json.loads(kernel.stream_text(msg_id).strip().splitlines()[-1])
    assert first["outcome"] == "not_applied" and "set_next_input" in first["reason"]
    assert "no front-end piece answered" in first["reason"]
    assert second["outcome"] == "not_applied" and "queued already" in second["reason"]
    assert replace["outcome"] == "not_applied" and "copy it from the card" in replace["reason"]
    assert markdown["outcome"] == "not_applied" and "code cell" in markdown["reason"]
    payloads = kernel.reply(msg_id)["content"]["payload"]
    assert payloads == [{"source": "set_next_input", "text": "df.plot()", "replace": False}]

    later = kernel.execute('r = await link.apply(edit(mode="insert", source="late = 1"))\nprint(r.reason)')
    kernel.wait_idle(later, 60)
    assert "prompt cell has finished" in kernel.stream_text(later)
    assert kernel.reply(later)["content"]["payload"] == []
