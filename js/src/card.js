// nbacp cards: one anywidget model per card (docs/cards.md). anywidget ESM entry point.
// As the shared module (nbacp's CardCode, sent once per kernel) `initialize` hands `render`
// to every card through anywidget's host API; `render` also works directly (anywidget 0.9).
import { render } from "./base.js";
import "./kinds.js";

/** @type {{initialize: import("@anywidget/types").Initialize<import("./types.js").CardState>, render: typeof render}} */
export default {
  initialize() {
    return { render };
  },
  render,
};
