"""Connecting to an agent: ``connect()``, the live ``Connection``, and its sessions' life.

``connect.py`` opens one of the three transports and says ``initialize``; ``live.py`` is the
connection a person holds; ``lifecycle.py`` its session calls (new, list, load, resume, fork,
close, delete, logout), refused early by ``capabilities.py`` where the agent did not advertise
them; ``inbox.py`` what arrives outside any turn. The top of the client: nothing in
``nbacp.client`` imports this folder at run time.
"""
