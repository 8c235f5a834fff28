"""Pure text rendering for nbacp: safe markdown to HTML, the turn record, safe text, URL checks.

Rule: no ipywidgets and no protocol (acp) import here, so the record, the sanitizer and the
URL checks can be used and tested alone.
"""

from nbacp.render.markdown import render_code, render_markdown, safe_href
from nbacp.render.turn_record_text import inert_markdown, record_markdown

__all__ = ["inert_markdown", "record_markdown", "render_code", "render_markdown", "safe_href"]
