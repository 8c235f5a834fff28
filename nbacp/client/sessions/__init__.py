"""Sessions: where prompts are sent, and what a session keeps between its turns.

``session.py`` is the ``Session`` a person prompts; ``controls.py`` what they set on it between
turns (mode, config options, model) and closing it, over the agent's ``settings.py`` (modes,
config options and models as the agent last said); ``header.py`` the facts shown once per
session; ``system_prompt.py`` what nbacp tells an agent about the notebook.
"""
