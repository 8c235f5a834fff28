"""The plain-text record that nbval stores and terminals show."""

from nbacp.render.turn_record_text import record_text


def test_plain_record_lists_prompt_text_answers_and_stop() -> None:
    text = record_text(
        "deploy it",
        "Done.\n",
        [("question", "Which target?", "Accepted: Target = Preview"), ("permission", "Write x", "Allow once")],
        "end_turn",
    )
    assert text.splitlines() == [
        "You: deploy it",
        "Agent: Done.",
        "Question: Which target?",
        "  Answer: Accepted: Target = Preview",
        "Permission: Write x",
        "  Decision: Allow once",
        "Stop reason: end_turn",
    ]


def test_plain_record_drops_control_characters_and_marks_unfinished() -> None:
    text = record_text("a\x1b[31m", "", [], None)
    assert "\x1b" not in text
    assert text.endswith("Stop reason: not finished")
    assert "(no message text)" in text
