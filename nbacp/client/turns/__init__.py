"""Turns: one prompt, what the agent streams back into the prompting cell, and the record it leaves.

``turn.py`` is the ``Turn`` and its ``PromptResult``; ``attachments.py`` and ``namespace.py``
turn the person's objects (DataFrames, figures, files, variable names) into content blocks;
``updates_handler.py`` answers ``session/update`` and ``extension_notes.py`` the agent's extension
notifications, both families of the client's table (``nbacp.client.notebook_client``).
"""
