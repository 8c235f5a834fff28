// nbacp cards and turn views (docs/cards.md, docs/turn-view.md). anywidget ESM entry point.
// As the shared module (nbacp's CardCode, sent once per kernel) `initialize` hands `render` to
// every card and `renderTurn` to every turn view through anywidget's host API; `render` also
// works directly (anywidget 0.9, where each model carries this bundle): a turn view's model is
// told apart by its `ended` trait.
import { render as renderCard } from "./base.js";
import "./kinds.js";
import { renderTurn } from "./turn_view.js";

/**
 * A card's view, or a turn view's (a model with an `ended` trait) where the bundle is the model's own module.
 * @param {any} ctx anywidget's render props
 */
function render(ctx) {
  if (typeof ctx.model.get("ended") === "boolean") {
    return renderTurn({ model: ctx.model, el: ctx.el, host: ctx.host, cardRender: (c) => renderCard(/** @type {any} */ (c)) });
  }
  return renderCard(ctx);
}

/** @type {{initialize: () => {render: typeof renderCard, renderTurn: typeof renderTurn}, render: typeof render}} */
export default {
  initialize() {
    return { render: renderCard, renderTurn };
  },
  render,
};
