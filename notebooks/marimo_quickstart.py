import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import marimo as mo

    mo.md(
        """
        # nbacp in marimo

        The README's lines in one cell: the demo agent asks its questions as cards in the cell's
        output, you answer by clicking, and `result` holds the typed answers for the next cell.
        The stop button cancels the turn (the agent is told). With `NBACP_ANSWERS` set (tests,
        `marimo export html`), the cards answer themselves from `answers/quickstart.json`.
        """
    )
    return


@app.cell
async def _():
    import nbacp
    import nbacp.answers
    from nbacp.demo import demo_agent

    conn = await nbacp.connect(demo_agent(), answers=nbacp.answers.from_env("quickstart"))
    session = await conn.new_session(cwd=".")
    result = await session.prompt("full")
    print(result.stop_reason, result.text)
    return (result,)


@app.cell
def _(result):
    answered = [answer for _, _, answer in result.answers]
    answered
    return


if __name__ == "__main__":
    app.run()
