"""The client's incoming methods, one small handler per family.

``NotebookClient`` (``nbacp.client.notebook_client``) is the table: each ``acp.Client`` method
is one line there that names the family answering it.

- ``questions``: ``elicitation/create``, ``elicitation/complete``, ``session/request_permission``,
  ``$/cancel_request``: cards, the headless policy, the replies;
- ``updates``: ``session/update``;
- ``fs``: ``fs/read_text_file``, ``fs/write_text_file``;
- ``terminal``: ``terminal/create``, ``output``, ``wait_for_exit``, ``kill``, ``release``;
- ``extension_notes``: extension notifications.

Each talks to the place the person looks through ``nbacp.client.surface.Surface`` only.
"""
