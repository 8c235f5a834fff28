// The frame every card shares (docs/cards.md): header, the kind's body, form-level messages,
// a countdown, and the same Accept / Decline / Cancel (or option) buttons on every card.
// The draft lives in the model's `draft`; an action is ONE custom message that carries it, so
// the kernel answers from what this page showed at the click, whatever the link's delay.
import { h, present, uid } from "./dom.js";

/** @typedef {import("./types.js").CardAction} CardAction */
/** @typedef {import("./types.js").CardModel} CardModel */
/** @typedef {import("./types.js").CardSpec} CardSpec */
/** @typedef {import("./types.js").Draft} Draft */
/** @typedef {import("./types.js").Errors} Errors */
/** @typedef {import("./types.js").KindSpecs} KindSpecs */
/** @typedef {import("./types.js").KindView} KindView */
/**
 * @template {CardSpec} S
 * @typedef {import("./types.js").KindContext<S>} KindContext
 */
/** @typedef {(ctx: KindContext<CardSpec>) => KindView} Renderer */

/**
 * The card's body renderers by `spec.kind`.
 * @type {Map<string, Renderer>}
 */
const KINDS = new Map();

/**
 * Register the body renderer of one kind of card (each kind's module does, on import).
 * @template {keyof KindSpecs} K
 * @param {K} kind
 * @param {(ctx: KindContext<KindSpecs[K]>) => KindView} renderer
 */
export function registerKind(kind, renderer) {
  // Looked up by the spec's own `kind`, so a renderer only ever gets a spec of its kind.
  KINDS.set(kind, /** @type {Renderer} */ (renderer));
}

/**
 * @param {CardModel} model
 * @returns {CardSpec}
 */
function readSpec(model) {
  const spec = model.get("spec");
  return spec && typeof spec === "object" ? spec : {};
}

/**
 * @param {unknown} value
 * @returns {Record<string, unknown>}
 */
function objectOr(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? /** @type {Record<string, unknown>} */ (value) : {};
}

/**
 * "1:05" from milliseconds left (never negative).
 * @param {number} ms
 */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * Build the card for the model's current spec into `el`; returns a teardown.
 * @param {CardModel} model
 * @param {HTMLElement} el
 * @returns {() => void}
 */
function mount(model, el) {
  const spec = readSpec(model);
  const base = uid();
  const phase = () => model.get("phase") || "open";
  // "open": answerable; "sent": answered but still reporting (a URL card waiting for the agent's
  // completion keeps its body and its own actions, Retry / Cancel); "answered": the summary only,
  // drawn as one line of text (no frame), so a transcript keeps the card in its place.
  const live = () => phase() === "open" || phase() === "sent";
  const kindClass = `nbacp-kind-${String(spec.kind || "none").replace(/[^a-z]/g, "")}`;
  const root = h("div", {
    class: live() ? `nbacp-card ${kindClass}` : `nbacp-card ${kindClass} nbacp-answered`,
    // JupyterLab: keep notebook command-mode shortcuts (a, b, d d, arrows, Enter) out of the card.
    "data-lm-suppress-shortcuts": "true",
  });
  el.replaceChildren(root);
  if (!live()) {
    root.append(h("div", { class: "nbacp-summary", role: "status", text: model.get("summary") || "" }));
    root.dataset.ready = "true";
    const summary = /** @type {HTMLElement} */ (root.firstChild);
    const repaint = () => {
      summary.textContent = model.get("summary") || "";
    };
    model.on("change:summary", repaint);
    return () => model.off("change:summary", repaint);
  }

  let seq = 0; // this view's last action; frozen until the kernel handled it (docs/cards.md, 'Two views')
  let frozen = false;
  /** @type {Draft} */
  const secrets = {}; // secret fields: never in the synced state, only in the accept message
  const secretNames = new Set(Array.isArray(spec.secret) ? spec.secret : []);

  /** @returns {Draft} */
  const draft = () => ({ ...objectOr(model.get("draft")), ...secrets });
  const open = () => live() && !frozen;
  /** @param {Draft} patch */
  const edit = (patch) => {
    if (!open() || phase() !== "open") return; // a sent answer's draft never changes
    const synced = { ...objectOr(model.get("draft")) };
    for (const [k, v] of Object.entries(patch)) {
      if (secretNames.has(k)) secrets[k] = v;
      else synced[k] = v;
    }
    model.set("draft", synced);
    model.save_changes(); // may be held by ipywidgets until the previous update is confirmed: fine
    paintFrame();
  };
  const actions = Array.isArray(spec.actions) ? spec.actions : [];
  /** @param {CardAction | undefined} action */
  const act = (action) => {
    if (!open() || !action) return;
    // Past every action the kernel handled, this view's or another's (a second tab, a reloaded
    // page): a view that counted from 0 would read another view's `handled` as its own reply.
    seq = Math.max(seq, Number(model.get("handled")) || 0) + 1;
    /** @type {Record<string, unknown>} */
    const message = { ...objectOr(action.data), event: action.event, seq };
    if (action.draft) {
      const d = draft();
      // The page's own state agrees with what it sends (a held update may follow; the kernel ignores it).
      const synced = Object.fromEntries(Object.entries(d).filter(([k]) => !secretNames.has(k)));
      model.set("draft", synced);
      model.save_changes();
      message.draft = d;
      frozen = true; // no edit after the click can differ from what was sent
    }
    model.send(message);
    paintFrame();
  };
  /** @param {string} event */
  const byEvent = (event) => actions.find((a) => a.event === event);
  const submit = () => act(actions.find((a) => a.default) || byEvent("accept"));
  const cancel = () => act(byEvent("cancel"));

  // header
  const header = h("div", { class: "nbacp-card-header", id: `${base}-header`, text: spec.header || "The agent asks" });
  root.append(header);
  if (spec.message) root.append(h("div", { class: "nbacp-card-message", text: spec.message }));
  const countdown = spec.deadline_at ? h("div", { class: "nbacp-countdown", role: "timer", "aria-live": "off" }) : null;
  if (countdown) root.append(countdown);

  // The kind renders straight into the card (no body wrapper): every element a card has is one
  // a person sees (docs/cards.md, 'DOM budget').
  const renderer = KINDS.get(spec.kind || "");
  /** @type {KindContext<CardSpec>} */
  const ctx = { spec, body: root, base, draft, edit, act, submit, cancel, open, model };
  const kind = renderer ? renderer(ctx) : null;
  if (!renderer) root.append(h("div", { class: "nbacp-card-message", text: `Unknown card kind ${spec.kind}` }));

  // card-level messages and "Sending…": attached only while they have something to say
  const general = h("ul", { class: "nbacp-card-errors", id: `${base}-errors`, role: "alert", tabindex: "-1" });
  const status = h("div", { class: "nbacp-card-status", role: "status" });
  const buttons = actions.map((a) =>
    h("button", {
      type: "button",
      class: `nbacp-btn nbacp-btn-${a.style || "default"}`,
      "data-event": a.event,
      title: a.hint || null,
      "data-lm-suppress-shortcuts": "true",
      text: a.label || a.event,
    }),
  );
  buttons.forEach((b, i) => b.addEventListener("click", () => act(actions[i])));
  const bar = h("div", { class: "nbacp-actions" }, buttons);
  root.append(bar);

  root.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing || event.altKey || event.metaKey) return;
    const target = event.target instanceof Element ? event.target : null;
    const multiline = target && target.tagName === "TEXTAREA";
    let handled = true;
    if (event.key === "Escape") cancel();
    else if (event.key === "Enter" && target && target.tagName === "BUTTON") handled = false; // the button's own click
    else if (event.key === "Enter" && !event.shiftKey && (!multiline || event.ctrlKey)) submit();
    else {
      handled = false;
      // Enter in a multi-line box is a new line: JupyterLab's own Enter (command mode: edit the
      // cell), handled as the keydown bubbles to the document, would take it and the line be lost.
      if (event.key === "Enter" && multiline && !event.ctrlKey) event.stopPropagation();
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  });

  let focusAfter = 0; // focus the first invalid field once the kernel refused this seq
  const paintFrame = () => {
    const errors = /** @type {Errors} */ (objectOr(model.get("errors")));
    const handled = model.get("handled") || 0;
    if (frozen && handled >= seq) {
      frozen = false;
      focusAfter = seq;
    }
    const off = !open();
    root.setAttribute("aria-busy", frozen ? "true" : "false");
    status.textContent = frozen ? "Sending…" : "";
    present(root, status, frozen, bar);
    buttons.forEach((b, i) => {
      b.disabled = off || Boolean(actions[i].disabled);
    });
    const messages = Array.isArray(errors[""]) ? errors[""].filter((m) => typeof m === "string") : [];
    general.replaceChildren(...messages.map((m) => h("li", { text: m })));
    present(root, general, messages.length > 0, status.parentNode ? status : bar);
    if (kind && kind.paint) kind.paint({ draft: draft(), errors, disabled: off });
    if (focusAfter && !frozen) {
      focusAfter = 0;
      const invalid = Object.keys(errors).some((k) => k !== "" && Array.isArray(errors[k]) && errors[k].length);
      if (!(invalid && kind && kind.focusInvalid && kind.focusInvalid(errors)) && messages.length) general.focus();
    }
  };

  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  if (countdown) {
    const tick = () => {
      const left = Number(spec.deadline_at) - Date.now();
      countdown.textContent = left > 0 ? `Answer within ${clock(left)}` : "Time is up: the agent may no longer wait.";
      countdown.classList.toggle("nbacp-countdown-late", left <= 10_000);
      if (left <= 0 && timer) clearInterval(timer);
    };
    tick();
    timer = setInterval(tick, 1000);
  }

  paintFrame();
  root.dataset.ready = "true";
  const events = /** @type {const} */ (["change:draft", "change:errors", "change:handled"]);
  for (const e of events) model.on(e, paintFrame);
  return () => {
    for (const e of events) model.off(e, paintFrame);
    if (timer) clearInterval(timer);
    if (kind && kind.dispose) kind.dispose();
  };
}

/**
 * The cell that was active when the pointer first went down in this card (JupyterLab makes the
 * card's own cell active on that click): where the notebook's focus goes back once the answer
 * removed the control that had it, so the next Shift+Enter runs the cell the person was heading to.
 * Every card has one, inside a transcript or not: it is the only focus keeper of the page.
 * @param {HTMLElement} el
 */
function focusKeeper(el) {
  /** @type {Element | null} */
  let before = null;
  let inside = false; // the focus is (or was, until a control it was on got disabled) in the card
  const down = () => {
    const notebook = el.closest(".jp-Notebook");
    const active = notebook ? notebook.querySelector(".jp-Cell.jp-mod-active") : null;
    if (active && active !== el.closest(".jp-Cell")) before = active;
  };
  const focusin = () => {
    inside = true;
  };
  /** @param {FocusEvent} event */
  const focusout = (event) => {
    if (event.relatedTarget instanceof Node && !el.contains(event.relatedTarget)) inside = false;
  };
  el.addEventListener("pointerdown", down, true);
  el.addEventListener("focusin", focusin);
  el.addEventListener("focusout", focusout);
  return {
    hadFocus() {
      const active = el.ownerDocument.activeElement;
      return inside && (!active || active === el.ownerDocument.body || el.contains(active));
    },
    restore() {
      const notebook = el.closest(".jp-Notebook");
      if (!(notebook instanceof HTMLElement)) return;
      if (before && before.isConnected && !before.classList.contains("jp-mod-active")) {
        before.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, cancelable: true, button: 0 }));
        document.dispatchEvent(new MouseEvent("mouseup", { bubbles: true, button: 0 }));
      }
      notebook.focus();
    },
    dispose() {
      el.removeEventListener("pointerdown", down, true);
      el.removeEventListener("focusin", focusin);
      el.removeEventListener("focusout", focusout);
    },
  };
}

/**
 * anywidget's render: rebuilt when the spec or the phase changes (answered: the summary only).
 * @type {import("@anywidget/types").Render<import("./types.js").CardState>}
 */
export function render({ model, el }) {
  const keeper = focusKeeper(el);
  let teardown = mount(model, el);
  const rebuild = () => {
    const hadFocus = keeper.hadFocus();
    teardown();
    teardown = mount(model, el);
    if (hadFocus && (model.get("phase") || "open") !== "open") keeper.restore();
  };
  model.on("change:spec", rebuild);
  model.on("change:phase", rebuild);
  return () => {
    model.off("change:spec", rebuild);
    model.off("change:phase", rebuild);
    keeper.dispose();
    teardown();
  };
}

