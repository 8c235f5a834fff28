"""The three transports ``connect()`` opens, and the command agent's process.

``links.py`` opens them: in-process (``memory_link.py``, two bounded one-way links), stdio (a
command: ``process.py`` starts and stops it, ``stderr.py`` keeps a bounded tail of its stderr),
and websocket (``ws_link.py``, acpremote's wire). Part of the wire layer: nothing here imports
the session layer.
"""
