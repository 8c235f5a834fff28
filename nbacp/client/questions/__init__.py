"""What the agent asks the person: elicitations, permission requests, and their withdrawal.

``handler.py`` answers ``elicitation/create``, ``elicitation/complete``,
``session/request_permission`` and ``$/cancel_request`` with cards (and the headless policy);
``notebook_writes.py`` warns on a permission request whose tool call would write a notebook the
person has open.
"""
