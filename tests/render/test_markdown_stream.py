"""The streaming splitter: sealed pieces plus the live tail always show the whole text, in
order, and the tail stays short wherever the text offers a safe cut."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support.html_text import numbered_words

from nbacp.render.markdown import render_markdown
from nbacp.render.stream import MarkdownStream


def words(html: str) -> list[str]:
    return numbered_words(html)


TOKENS = ["w", " ", "\n", "\n\n", "```", "~~~", "`", "*", "- ", "> ", "    ", "1. "]


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[str], list[bool]]:
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=400))
    counter = iter(range(10_000))
    text = "".join(f"w{next(counter)}" if t == "w" else t for t in tokens)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=30)))
    chunks, last = [], 0
    for cut in [*cuts, len(text)]:
        chunks.append(text[last:cut])
        last = cut
    frames = draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)))
    return chunks, frames


@settings(max_examples=300, deadline=None)
@given(streams(), st.sampled_from([8, 40, 200]))
def test_pieces_and_tail_hold_every_word_in_order(data: tuple[list[str], list[bool]], seal_at: int) -> None:
    chunks, frames = data
    text = "".join(chunks)
    expected = words(render_markdown(text))
    stream = MarkdownStream(seal_at=seal_at)
    shown: list[str] = []
    for chunk, frame in zip(chunks, frames, strict=True):
        stream.append(chunk)
        if frame:
            shown.extend(w for piece in stream.take_sealed() for w in words(render_markdown(piece)))
            assert shown == expected[: len(shown)]  # sealed text is final: never revised later
    shown.extend(w for piece in stream.take_sealed() for w in words(render_markdown(piece)))
    assert stream.text == text
    assert shown + words(render_markdown(stream.tail)) == expected


def test_tail_stays_short_when_paragraphs_allow_cuts() -> None:
    stream = MarkdownStream(seal_at=100)
    sealed: list[str] = []
    for i in range(2_000):
        stream.append(f"w{i} " if i % 9 else f"w{i}\n\n")
        sealed.extend(stream.take_sealed())
        assert len(stream.tail) < 100 + 20
    assert len(sealed) > 100
    assert "".join(sealed) + stream.tail == stream.text


def test_a_long_fence_is_cut_into_closed_code_blocks() -> None:
    stream = MarkdownStream(seal_at=200)
    stream.append("Intro\n\n~~~~python\n")
    sealed: list[str] = []
    for i in range(300):
        stream.append(f"print('w{i}')\n")
        sealed.extend(stream.take_sealed())
    stream.append("~~~~\n\nafter w300\n")
    sealed.extend(stream.take_sealed())
    assert len(sealed) > 10
    for piece in sealed[1:]:
        assert piece.startswith("~~~~python\n") or not piece.strip().startswith("print")
        html = render_markdown(piece)
        assert html.count("<pre>") <= 1 and "~~~~" not in html
    everything = "".join(render_markdown(piece) for piece in sealed) + render_markdown(stream.tail)
    assert words(everything) == [f"w{i}" for i in range(301)]
    assert len(stream.tail) < 200


def test_one_endless_line_is_left_whole() -> None:
    stream = MarkdownStream(seal_at=50)
    stream.append("x" * 500)
    assert stream.take_sealed() == [] and stream.tail == "x" * 500


def test_blank_line_inside_a_list_item_is_not_a_cut() -> None:
    """Found by hypothesis: cutting before an indented continuation turned a fence's info string into code."""
    text = "- w0\n\n    ```w1\n" + "x" * 20 + "\n"
    stream = MarkdownStream(seal_at=8)
    stream.append(text)
    sealed = stream.take_sealed()
    assert "".join(sealed) + stream.tail == text
    assert all(not piece.startswith("    ") for piece in [*sealed[1:], stream.tail] if piece)
