"""The session's workspace through the kernel: the agent's files and terminals, inside its folders.

``files.py`` reads and writes inside the session's folders and ``fs_handler.py`` answers
``fs/read_text_file`` / ``fs/write_text_file`` with it; ``terminals.py`` runs the agent's
commands and ``terminal_handler.py`` answers ``terminal/*``; ``open_notebooks.py`` names the
notebooks no write may replace (the one this kernel runs, and every one open in its server).
"""
