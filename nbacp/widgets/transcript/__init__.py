"""The transcript view of a turn: live widgets plus a static record (docs/notebooks.md)."""

from nbacp.widgets.transcript.view import FRAME, Transcript

__all__ = ["FRAME", "Transcript"]
