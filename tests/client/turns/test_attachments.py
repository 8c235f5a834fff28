"""Objects in prompts: DataFrames, figures and files as ACP content blocks (nbacp.client.turns.attachments).

Conversion is pure and tested without a kernel; the end-to-end tests send the blocks to a real
pydantic-acp agent over the in-process transport and look at what its model received.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from acp.schema import AgentCapabilities, PromptCapabilities
from pydantic_acp import AdapterConfig, create_acp_agent
from pydantic_acp.prompt_capabilities import AdapterPromptCapabilities
from pydantic_ai import Agent
from pydantic_ai.messages import BinaryContent, ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from support.agents import acp_kit_agent

import nbacp
from nbacp.client.turns.attachments import convert, prompt_parts, summary_line, table_text
from nbacp.errors import AttachmentError

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

ALL = AgentCapabilities(prompt_capabilities=PromptCapabilities(image=True, embedded_context=True))
NONE = AgentCapabilities(prompt_capabilities=PromptCapabilities())


def frame(rows: int = 100) -> Any:
    return pd.DataFrame(
        {"city": [f"c{i}" for i in range(rows)], "temp": [float(i) if i % 3 else None for i in range(rows)]}
    )


def figure() -> Any:
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot([1, 2, 3])
    return fig


def test_pandas_dataframe_is_an_embedded_csv_resource_that_states_its_truncation() -> None:
    [text, table] = convert(
        ["look", frame(100)], ALL, namer=lambda o: "weather" if hasattr(o, "shape") else None, max_rows=5
    )
    assert text.kind == "text" and text.block.text == "look"
    assert table.kind == "table" and table.name == "weather"
    resource = table.block.resource
    assert resource.uri == "nbacp://variables/weather" and resource.mime_type == "text/csv"
    body = resource.text
    assert "# DataFrame weather (pandas): 100 rows x 2 columns" in body
    assert "#   city: object" in body or "#   city: str" in body
    assert "#   temp: float64" in body
    assert "# first 5 of 100 rows as CSV (truncated: 95 rows not shown)" in body
    csv_lines = body.split("CSV (truncated: 95 rows not shown)\n", 1)[1].splitlines()
    assert csv_lines[0] == ",city,temp" and len(csv_lines) == 6
    assert table.describe().startswith("weather (table, 100 rows x 2 columns, first 5 sent, ")


def test_small_frame_is_sent_whole_and_says_so() -> None:
    text = table_text(frame(3), "df", max_rows=20)
    assert "# all 3 rows as CSV" in text and "truncated" not in text


def test_character_cap_bounds_wide_rows() -> None:
    wide = pd.DataFrame({"blob": ["x" * 5000] * 50})
    text = table_text(wide, "wide", max_rows=50, max_chars=12_000)
    assert len(text) < 12_200 and text.endswith("the remaining rows are not shown\n")


def test_polars_dataframe_and_series() -> None:
    df = pl.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]})
    [table] = convert([df], ALL, max_rows=2)
    body = table.block.resource.text
    assert "(polars): 3 rows x 2 columns" in body and "#   a: Int64" in body and "#   b: String" in body
    assert "# first 2 of 3 rows as CSV" in body and "a,b\n1,x\n2,\n" in body
    [series] = convert([frame(4)["temp"]], ALL)
    assert "4 rows x 1 columns" in series.block.resource.text


def test_matplotlib_figure_and_repr_png_objects_become_images() -> None:
    [image] = convert([figure()], ALL, namer=lambda o: "fig")
    assert image.kind == "image" and image.block.mime_type == "image/png"
    png = base64.b64decode(image.block.data)
    assert png.startswith(b"\x89PNG") and image.size == len(png)

    class Drawing:
        def _repr_png_(self) -> bytes:
            return b"\x89PNG fake"

    [drawn] = convert([Drawing()], ALL)
    assert base64.b64decode(drawn.block.data) == b"\x89PNG fake" and drawn.name == "drawing_0"


def test_paths_link_or_embed(tmp_path: Path) -> None:
    small = tmp_path / "raw.csv"
    small.write_text("a,b\n1,2\n")
    big = tmp_path / "big.bin"
    big.write_bytes(b"\0" * 100_000)
    embedded, linked_big = convert([str(small), big], ALL)
    assert embedded.kind == "file" and embedded.block.resource.text == "a,b\n1,2\n"
    assert embedded.block.resource.uri == small.resolve().as_uri()
    assert linked_big.kind == "link" and linked_big.block.type == "resource_link"
    assert linked_big.block.size == 100_000 and linked_big.block.uri == big.resolve().as_uri()
    [linked] = convert([small], NONE)  # no embeddedContext: a link needs no capability
    assert linked.block.type == "resource_link" and linked.block.name == "raw.csv"
    [plain] = convert(["no/such/file.csv"], NONE)
    assert plain.kind == "text"
    with pytest.raises(AttachmentError, match="is not a file"):
        convert([tmp_path / "missing.csv"], ALL)


def test_missing_capability_is_named() -> None:
    with pytest.raises(AttachmentError, match=r"promptCapabilities\.embeddedContext"):
        convert(["x", frame()], NONE)
    with pytest.raises(AttachmentError, match=r"promptCapabilities\.image"):
        convert(["x", figure()], AgentCapabilities(prompt_capabilities=PromptCapabilities(embedded_context=True)))
    with pytest.raises(AttachmentError, match="Cannot attach 'thing' of type object"):
        convert([object()], ALL, namer=lambda o: "thing")


def test_summary_line() -> None:
    parts = prompt_parts("why", [frame(3)], ALL, namer=lambda o: "df")
    assert summary_line(parts).startswith("Attached: df (table, 3 rows x 2 columns, ")
    assert summary_line(prompt_parts("only text", [], ALL)) == ""
    assert summary_line(prompt_parts("why", ["more words"], ALL)) == "Attached: 'more words' (text, 10 B)"


# -- end to end: a real ACP agent receives the blocks ---------------------------------------
def recording_agent(seen: list[Any], capabilities: AdapterPromptCapabilities | None = None) -> Any:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        for part in request.parts:
            if isinstance(part, UserPromptPart):
                seen.extend([part.content] if isinstance(part.content, str) else part.content)
        return ModelResponse(parts=[TextPart(content="got it")])

    agent: Agent[Any, str] = Agent(FunctionModel(model), name="recorder")
    if capabilities is None:
        return acp_kit_agent(agent)

    class _Source:
        async def get_agent(self, session: Any) -> Agent[Any, str]:
            return agent

        async def get_deps(self, session: Any, agent: Any) -> Any:
            return session

    return create_acp_agent(agent_source=_Source(), config=AdapterConfig(prompt_capabilities=capabilities))


async def test_prompt_sends_objects_to_a_real_agent(tmp_path: Path) -> None:
    data = tmp_path / "raw.csv"
    data.write_text("a,b\n1,2\n")
    df, fig = frame(50), figure()
    seen: list[Any] = []
    async with nbacp.connect(recording_agent(seen)) as conn:
        session = await conn.new_session(tmp_path)
        result = await session.prompt("Why are these null?", df, fig, str(data), max_rows=10)
    assert result.stop_reason == "end_turn" and result.text == "got it"
    texts = [p for p in seen if isinstance(p, str)]
    images = [p for p in seen if isinstance(p, BinaryContent)]
    assert texts[0] == "Why are these null?"
    assert any("# first 10 of 50 rows as CSV (truncated: 40 rows not shown)" in t for t in texts)
    assert any("a,b\n1,2\n" in t for t in texts)
    assert len(images) == 1 and images[0].media_type == "image/png" and images[0].data.startswith(b"\x89PNG")
    assert session.turn is not None and session.turn.record is not None
    record = session.turn.record.text  # the plain-text record; result.record is its escaped markdown
    assert "Attached: dataframe_1 (table, 50 rows x 2 columns, first 10 sent" in record
    assert "figure_2 (image, image/png" in record and "raw.csv (file, text/csv, 8 B)" in record
    assert "Attached\\: dataframe\\_1" in result.record


async def test_missing_capability_sends_nothing() -> None:
    seen: list[Any] = []
    no_images = AdapterPromptCapabilities(image=False, embedded_context=True)
    async with nbacp.connect(recording_agent(seen, no_images)) as conn:
        session = await conn.new_session()
        with pytest.raises(AttachmentError, match=r"promptCapabilities\.image"):
            await session.prompt("look", frame(3), figure())
        assert session.turn is None and seen == []
        await session.prompt("just text", frame(3))  # the session is still usable
    assert seen[0] == "just text" and len(seen) == 2


# -- the prompt's text is text; files are read with a bound (hostile inputs) ---------------
SCRIPT = {"initialize": {"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": {"embeddedContext": True}}}}


@pytest.mark.parametrize("via", ["in-process", "stdio"])
async def test_prompt_text_that_names_a_file_stays_text(via: str, tmp_path: Path, monkeypatch: Any) -> None:
    from support.scripted_agent import report, target

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").write_text("SECRET FILE CONTENT")
    async with nbacp.connect(target(SCRIPT, via, tmp_path)) as conn:
        session = await conn.new_session(tmp_path)
        first = await session.prompt("notes", frame(2))
        second = await session.prompt("notes", "notes")
    sent = [call[1]["prompt"] for call in report(second.text)["calls"] if call[0] == "session/prompt"]
    assert sent[0][0] == {"type": "text", "text": "notes"} and sent[0][1]["type"] == "resource"
    assert "SECRET" not in str(sent[0])
    assert sent[1][0] == {"type": "text", "text": "notes"}  # the prompt: text
    assert sent[1][1]["resource"]["text"] == "SECRET FILE CONTENT"  # the object after it: the file
    assert first.record is not None and "notes (file" not in first.record
    assert session.turn is not None and session.turn.record is not None
    assert "Attached: notes (file, text/plain, 19 B)" in session.turn.record.text


def test_a_file_that_reports_size_zero_is_read_with_a_bound() -> None:
    maps = Path("/proc/self/maps")
    if not maps.is_file() or maps.stat().st_size != 0:
        pytest.skip("needs Linux /proc")
    [item] = convert([maps], ALL, embed_limit=1024)
    assert item.kind == "link" and "size not known in advance" in item.detail
    assert item.block.type == "resource_link" and item.block.size is None
    [small] = convert([Path("/proc/self/comm")], ALL)  # size 0 too, but small: embedded whole
    assert small.kind == "file" and small.block.resource.text
