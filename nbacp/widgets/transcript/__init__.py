"""The transcript view of a turn (issue 7): live widgets plus a static record."""

from nbacp.widgets.transcript.view import FRAME, Transcript

__all__ = ["FRAME", "Transcript"]
