"""Helpers shared by the tests in every folder: peers, fake front ends, the kernel harness.

Tests import them as ``from support.<module> import ...``: ``tests/`` is on ``sys.path``
(pyproject's ``pythonpath``), so the same name works from ``tests/client/``, ``tests/form/``
and the rest. Code that runs in another process (a kernel cell, an agent started as a
command) puts ``TESTS`` on its ``sys.path`` first and imports the same way; the agents
started as commands are the files under ``SUPPORT`` (``SUPPORT / "peers.py"``).
"""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
TESTS = SUPPORT.parent
