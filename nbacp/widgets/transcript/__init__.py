"""The transcript view of a turn: one anywidget model, live, then its record (docs/turn-view.md)."""

from nbacp.widgets.transcript.frames import FRAME
from nbacp.widgets.transcript.view import Transcript

__all__ = ["FRAME", "Transcript"]
