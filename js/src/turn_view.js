// The live view of a turn: ONE anywidget model (nbacp/widgets/transcript/view.py), whose
// blocks are a tree of nodes kept in the kernel and mirrored here by patches
// (docs/turn-view.md). A view asks for the whole tree once (`{type: "sync"}`), then applies the
// patches numbered after it; cards are their own models, drawn in their place by reference.
// Agent text arrives only in text nodes (textContent); an "html" node's value is the kernel's
// sanitizing render (nbacp.render.markdown) sent as a tree and built without parsing markup
// (dom_tree.js).
import { buildTree } from "./dom_tree.js";

/** @typedef {import("./types.js").TurnModel} TurnModel */
/** @typedef {import("./types.js").TurnNode} TurnNode */
/** @typedef {import("./types.js").TurnOp} TurnOp */
/** @typedef {import("./types.js").TurnMessage} TurnMessage */
/** @typedef {import("./types.js").CardModel} CardModel */
/** @typedef {(ctx: {model: CardModel, el: HTMLElement}) => unknown} CardRender */

/**
 * @typedef {object} TurnHost what the view needs of anywidget's `host` (>= 0.11)
 * @property {(ref: string) => Promise<{render: (opts: {el: HTMLElement, signal?: AbortSignal}) => Promise<void>}>} getWidget
 * @property {(ref: string) => Promise<{get(key: string): unknown}>} [getModel]
 */

/**
 * @typedef {object} Shown one node on the page
 * @property {TurnNode} def
 * @property {HTMLElement} el the node's element
 * @property {HTMLElement} body where its children go (a fold's body; else `el`)
 * @property {HTMLElement} [title] a fold's title
 */

/** Node kinds to their element's own class. */
const BASE = /** @type {Record<string, string>} */ ({
  text: "nbacp-tv-text",
  html: "nbacp-tv-html",
  box: "nbacp-tv-box",
  fold: "nbacp-tv-fold",
});

/**
 * @param {unknown} value
 * @returns {string[]}
 */
function classList(value) {
  return Array.isArray(value) ? value.filter((c) => typeof c === "string" && /^[\w-]{1,64}$/.test(c)) : [];
}

/**
 * Draw a turn model into `el`; returns the teardown.
 * @param {{model: TurnModel, el: HTMLElement, host?: TurnHost | null, cardRender?: CardRender | null}} ctx
 * `cardRender`: draws a card from its model where there is no `host` (anywidget 0.9: not tested)
 * @returns {() => void}
 */
export function renderTurn({ model, el, host, cardRender }) {
  const controller = new AbortController();
  /** @type {Map<number, Shown>} */
  const nodes = new Map();
  /** @type {Map<string, HTMLElement>} cards by model id: drawn once per view, kept across snapshots */
  const cards = new Map();
  let seq = -1; // no snapshot yet: patches wait for it
  const live = document.createElement("div");
  live.className = "nbacp-tv-live";
  const record = document.createElement("div");
  record.className = "nbacp-tv-record nbacp-ended-record";
  el.classList.add("nbacp-tv", "mathjax_ignore", "tex2jax_ignore");
  el.replaceChildren(live, record);

  /** @param {string} id */
  function card(id) {
    let holder = cards.get(id);
    if (holder) return holder;
    holder = document.createElement("div");
    holder.className = "nbacp-tv-card";
    cards.set(id, holder);
    const into = holder;
    if (host && typeof host.getWidget === "function") {
      const ref = `anywidget:${id}`;
      // the card's own classes (ipywidgets puts them on a widget's element; here, on its place)
      host.getModel?.(ref).then((m) => into.classList.add(...classList(m.get("_dom_classes"))));
      host
        .getWidget(ref)
        .then((w) => w.render({ el: into, signal: controller.signal }))
        .catch(() => (into.textContent = "This card could not be shown: run the cell again."));
    } else {
      // anywidget without `host`: the model's widget manager, and this bundle's card renderer
      const manager = /** @type {{widget_manager?: {get_model(id: string): Promise<CardModel>}}} */ (
        /** @type {unknown} */ (model)
      ).widget_manager;
      if (manager && cardRender) {
        manager.get_model(id).then((m) => {
          into.classList.add(...classList(/** @type {{get(key: string): unknown}} */ (/** @type {unknown} */ (m)).get("_dom_classes")));
          cardRender({ model: m, el: into });
        });
      } else {
        into.textContent = "This card needs a newer anywidget to be shown here.";
      }
    }
    return holder;
  }

  /** @param {number | string} kid */
  function child(kid) {
    return typeof kid === "string" ? card(kid) : nodes.get(kid)?.el;
  }

  /**
   * @param {Shown} shown
   * @param {unknown} value
   */
  function setValue(shown, value) {
    if (shown.def.t === "html") {
      buildTree(shown.el, value);
      return;
    }
    shown.el.textContent = typeof value === "string" ? value : "";
  }

  /**
   * @param {Shown} shown
   * @param {unknown} kids
   */
  function setKids(shown, kids) {
    const list = Array.isArray(kids) ? kids : [];
    shown.def.k = list;
    /** @type {HTMLElement[]} */
    const els = [];
    for (const kid of list) {
      const found = typeof kid === "number" || typeof kid === "string" ? child(kid) : undefined;
      if (found) els.push(found);
    }
    shown.body.replaceChildren(...els);
  }

  /**
   * @param {Shown} shown
   * @param {unknown} classes
   */
  function setClasses(shown, classes) {
    shown.def.c = classList(classes);
    shown.el.className = [BASE[shown.def.t] || "nbacp-tv-box", ...shown.def.c].join(" ");
  }

  /**
   * @param {number} id
   * @param {TurnNode} def
   */
  function make(id, def) {
    const kind = def && typeof def.t === "string" && def.t in BASE ? def.t : "box";
    /** @type {Shown} */
    let shown;
    if (kind === "fold") {
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.className = "nbacp-tv-title";
      const body = document.createElement("div");
      body.className = "nbacp-tv-body";
      details.append(summary, body);
      details.open = def.o === true;
      shown = { def: { t: kind }, el: details, body, title: summary };
      summary.textContent = typeof def.T === "string" ? def.T : "";
    } else {
      const div = document.createElement("div");
      shown = { def: { t: kind }, el: div, body: div };
    }
    setClasses(shown, def.c);
    if (kind === "text" || kind === "html") setValue(shown, def.v);
    else setKids(shown, def.k);
    const old = nodes.get(id);
    nodes.set(id, shown);
    if (old && old.el.parentNode) old.el.replaceWith(shown.el);
    if (id === 0) live.replaceChildren(shown.el);
  }

  /** @param {TurnOp} op */
  function apply(op) {
    if (!Array.isArray(op)) return;
    const [code, id, value] = op;
    if (code === "n") return make(id, value);
    if (code === "x") {
      // nodes by id; an answered card by its model id (its line took its place: its element goes)
      for (const gone of Array.isArray(value) ? value : []) {
        if (typeof gone === "string") cards.delete(gone);
        else nodes.delete(gone);
      }
      return;
    }
    const shown = nodes.get(id);
    if (!shown) return;
    if (code === "v") setValue(shown, value);
    else if (code === "k") setKids(shown, value);
    else if (code === "c") setClasses(shown, value);
    else if (code === "T" && shown.title) shown.title.textContent = typeof value === "string" ? value : "";
  }

  /** @param {unknown} content */
  function onMessage(content) {
    const msg = /** @type {TurnMessage} */ (content);
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "record") {
      // the record (nbacp.render.turn_record_html) as a tree, asked for once the turn ended
      if (ended() && Array.isArray(msg.tree)) buildTree(record, msg.tree);
      return;
    }
    if (typeof msg.seq !== "number" || ended()) return;
    if (Array.isArray(msg.snap)) {
      nodes.clear();
      live.replaceChildren();
      for (const op of msg.snap) apply(op);
      seq = msg.seq;
    } else if (seq >= 0 && msg.seq > seq && Array.isArray(msg.ops)) {
      for (const op of msg.ops) apply(op);
      seq = msg.seq;
    }
  }

  function ended() {
    return model.get("ended") === true;
  }

  /** Once the turn ended the record takes the live view's place: asked for, not kept in the model. */
  function showEnd() {
    const over = ended();
    if (over) {
      live.replaceChildren();
      nodes.clear();
    }
    live.hidden = over;
    record.hidden = !over;
    if (over) model.send({ type: "sync" });
  }

  model.on("msg:custom", onMessage);
  model.on("change:ended", showEnd);
  if (ended()) showEnd();
  else {
    record.hidden = true;
    model.send({ type: "sync" });
  }
  return () => {
    controller.abort();
    model.off("msg:custom", onMessage);
    model.off("change:ended", showEnd);
  };
}
