"""How agent markdown reads: single newlines keep their line, as in chat front ends."""

from nbacp.render.markdown import render_markdown


def test_single_newline_is_a_line_break() -> None:
    html = render_markdown("Here is what I received:\nworkers = 8\nlaunch: approved")
    assert html.count("<br") == 2
    assert "workers = 8" in html


def test_paragraphs_and_code_keep_their_shape() -> None:
    html = render_markdown("one\n\n```\na\nb\n```")
    assert "<p>one</p>" in html
    assert "<pre><code>a\nb\n</code></pre>" in html
