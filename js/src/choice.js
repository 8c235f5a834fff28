// One choice question inside a card: option rows (radio or checkbox) plus the Other/note box.
// Its part of the card's draft is `{[name]: picks in option order, [custom.name]: text}`.
// The rows keep one focusable row (roving tabindex) and answer arrows, Space and the filter box.
import * as S from "./state.js";
import { applyFilter, buildView, paint } from "./view.js";

/** @typedef {import("./types.js").Answer} Answer */
/** @typedef {import("./view.js").Row} Row */

/**
 * How a question reads and writes its part of the card's draft.
 * @typedef {object} ChoiceIO
 * @property {() => Answer} answer
 * @property {(next: Answer) => void} write
 * @property {() => boolean} disabled
 */

/**
 * A mounted question: `update` paints it, `focus` moves the focus into it (false: nothing to focus).
 * @typedef {object} Choice
 * @property {import("./view.js").View} view
 * @property {(answer: Answer, errors: string[], disabled: boolean) => void} update
 * @property {() => boolean} focus
 */

/**
 * Mount one question into `root`.
 * @param {import("./types.js").ChoiceSpec} spec
 * @param {HTMLElement} root
 * @param {ChoiceIO} io
 * @returns {Choice}
 */
export function mountChoice(spec, root, io) {
  const view = buildView(spec, root);
  let active = 0; // roving tabindex: the one row reachable by Tab
  let touched = false; // the person moved focus: keep their row instead of following picks
  const visible = () => view.rows.filter((r) => !r.node.hidden);

  /** @param {Answer} next */
  const write = (next) => {
    if (!io.disabled()) io.write(next);
  };
  /**
   * @param {Row} row
   * @param {boolean} focus
   */
  const setActive = (row, focus) => {
    const i = view.rows.indexOf(row);
    if (i < 0) return;
    active = i;
    if (focus) {
      touched = true;
      row.node.focus();
    }
    syncTabindex();
  };
  const syncTabindex = () => {
    const shown = visible();
    const off = io.disabled();
    if (!touched) {
      const a = io.answer();
      const picked = shown.find((r) => a.picked.includes(r.option.value));
      if (picked) active = view.rows.indexOf(picked);
    }
    if (!shown.includes(view.rows[active]) && shown.length) active = view.rows.indexOf(shown[0]);
    for (const [i, r] of view.rows.entries()) r.node.tabIndex = !off && i === active && !r.node.hidden ? 0 : -1;
  };
  /**
   * @param {Row} row
   * @param {string} key
   */
  const move = (row, key) => {
    const shown = visible();
    const i = shown.indexOf(row);
    if (!shown.length) return;
    let j = i;
    if (key === "ArrowDown" || key === "ArrowRight") j = (i + 1) % shown.length;
    else if (key === "ArrowUp" || key === "ArrowLeft") j = (i - 1 + shown.length) % shown.length;
    else if (key === "Home") j = 0;
    else if (key === "End") j = shown.length - 1;
    setActive(shown[j], true);
    // A single-select is a radio group: arrows check the row they move to (WAI-ARIA radio
    // pattern); Home/End only move. A multi-select's arrows only move (Space toggles).
    if (!spec.multi && key.startsWith("Arrow")) write(S.toggled(spec, io.answer(), shown[j].option.value));
  };
  /** @param {Row} row */
  const pick = (row) => write(S.toggled(spec, io.answer(), row.option.value));

  for (const row of view.rows) {
    row.node.addEventListener("click", () => {
      if (io.disabled()) return;
      setActive(row, true);
      pick(row);
    });
  }
  root.addEventListener("keydown", (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const row = view.rows.find((r) => r.node === target);
    const inFilter = view.filter && target === view.filter;
    if (!row && !inFilter) return; // Enter / Escape elsewhere: the card's own keys
    let handled = true;
    if (io.disabled()) handled = false;
    else if (row && ["ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft", "Home", "End"].includes(event.key)) move(row, event.key);
    else if (row && event.key === " ") pick(row);
    else if (inFilter && (event.key === "ArrowDown" || event.key === "Enter")) {
      // Enter in the filter jumps to the matches instead of sending a half-made answer.
      const first = visible()[0];
      if (first) setActive(first, true);
    } else if (inFilter && view.filter && event.key === "Escape" && view.filter.value !== "") {
      view.filter.value = "";
      applyFilter(view, "", io.answer());
      syncTabindex();
    } else handled = false;
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
  const filter = view.filter;
  if (filter) {
    filter.addEventListener("input", () => {
      applyFilter(view, filter.value, io.answer());
      syncTabindex();
    });
  }
  if (view.other) {
    const input = view.other.input;
    input.addEventListener("input", () => write(S.typed(io.answer(), input.value)));
  }

  /** @type {Choice["update"]} */
  const update = (answer, errors, disabled) => {
    root.setAttribute("aria-disabled", disabled ? "true" : "false");
    paint(view, answer, errors, disabled);
    if (view.filter) applyFilter(view, view.filter.value, answer);
    syncTabindex();
  };
  const focus = () => {
    const row = view.rows[active] || view.rows[0];
    const target = row && !row.node.hidden ? row.node : view.other ? view.other.input : null;
    if (target) target.focus();
    return Boolean(target);
  };
  return { view, update, focus };
}
