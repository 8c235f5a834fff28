"""The transcript view of a turn: live widgets plus a static record (docs/notebooks.md)."""

from nbacp.widgets.transcript.frames import FRAME
from nbacp.widgets.transcript.view import Transcript

__all__ = ["FRAME", "Transcript"]
