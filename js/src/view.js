// The card's DOM and its update-in-place logic. Built once per spec; every later change
// (answer, errors, disabled) only toggles attributes and text so focus and caret survive.
import { attr, h, present, uid } from "./dom.js";
import * as S from "./state.js";

/** @typedef {import("./types.js").Answer} Answer */
/** @typedef {import("./types.js").ChoiceOption} ChoiceOption */
/** @typedef {import("./types.js").ChoiceSpec} ChoiceSpec */

/**
 * One option's row and the note shown while typed text overrides its pick.
 * @typedef {object} Row
 * @property {ChoiceOption} option
 * @property {HTMLDivElement} node
 * @property {HTMLSpanElement} note
 * @property {string} described the ids of the row's description and preview
 * @property {string} noteId
 */

/**
 * The question's DOM, built once per spec (buildView) and painted in place.
 * @typedef {object} View
 * @property {ChoiceSpec} spec
 * @property {HTMLElement} root
 * @property {Row[]} rows
 * @property {HTMLDivElement | null} list
 * @property {HTMLInputElement | null} filter shown past FILTER_THRESHOLD options
 * @property {HTMLDivElement | null} status what the filter hides
 * @property {{input: HTMLInputElement, box: HTMLDivElement} | null} other the companion text box
 * @property {HTMLUListElement} errorList
 * @property {string} errorsId
 */

const FILTER_THRESHOLD = 8;

/**
 * @param {ChoiceSpec} spec
 * @param {ChoiceOption} option
 * @param {{row: string, desc: string, preview: string, note: string}} ids
 * @returns {Row}
 */
function optionRow(spec, option, ids) {
  const multi = Boolean(spec.multi);
  const labelText = String(option.label ?? option.value);
  const badge = option.recommended
    ? h("span", { class: "nbacp-cc-badge", "aria-hidden": "true", text: "Recommended" })
    : null;
  const desc = option.description
    ? h("span", { class: "nbacp-cc-opt-desc", id: ids.desc, text: option.description })
    : null;
  const preview = option.preview
    ? h("pre", { class: "nbacp-cc-preview", id: ids.preview, text: option.preview })
    : null;
  // One element per plain row: the label is the row's first (text) node, the box or circle its
  // ::before (card.css); a row with extras names itself with aria-label so they are not its name.
  const node = h(
    "div",
    {
      class: `nbacp-cc-row ${multi ? "nbacp-cc-check" : "nbacp-cc-radio"}`,
      role: multi ? "checkbox" : "radio",
      id: ids.row,
      tabindex: "-1",
      "aria-checked": "false",
      "aria-label": badge ? `${labelText}, recommended` : desc || preview ? labelText : null,
      // Lumino tests shortcut selectors on the focused element itself before its ancestors,
      // so the suppression has to sit on every focusable node, not only on the root.
      "data-lm-suppress-shortcuts": "true",
    },
    [labelText, badge, desc, preview],
  );
  // Shown (attached) only while the pick is overridden by typed text.
  const note = h("span", { class: "nbacp-cc-note", id: ids.note, text: "overridden by your answer" });
  const described = [desc && ids.desc, preview && ids.preview].filter(Boolean).join(" ");
  return { option, node, note, described, noteId: ids.note };
}

/**
 * The label a row shows (its first text node): what a person reads and a test looks for.
 * @param {Element} node
 */
export function rowLabel(node) {
  const first = node.firstChild;
  return first && first.nodeType === 3 ? first.textContent : "";
}

/**
 * Build the question into `root` and return the handles the controller needs.
 * @param {ChoiceSpec} spec
 * @param {HTMLElement} root
 * @returns {View}
 */
export function buildView(spec, root) {
  const base = uid();
  const options = Array.isArray(spec.options) ? spec.options : [];
  const multi = Boolean(spec.multi);
  const name = spec.title || spec.name || "Choice";
  const ids = { title: `${base}-title`, desc: `${base}-desc`, hint: `${base}-hint`, errors: `${base}-errors` };

  root.classList.add("nbacp-cc");
  // JupyterLab: keep notebook command-mode shortcuts (a, b, d d, arrows, Enter) out of the card.
  root.setAttribute("data-lm-suppress-shortcuts", "true");

  if (spec.title) {
    // the required marker is the title's ::after (card.css), not an element
    root.append(h("div", { class: `nbacp-field-title nbacp-cc-title${spec.required ? " nbacp-required" : ""}`, id: ids.title, text: spec.title }));
  }
  if (spec.description) root.append(h("div", { class: "nbacp-field-desc", id: ids.desc, text: spec.description }));
  const hintText = S.countHint(spec);
  if (hintText && options.length) root.append(h("div", { class: "nbacp-cc-hint", id: ids.hint, text: hintText }));

  /** @type {HTMLInputElement | null} */
  let filter = null;
  /** @type {HTMLDivElement | null} */
  let status = null;
  if (options.length > FILTER_THRESHOLD) {
    filter = h("input", {
      class: "nbacp-cc-filter",
      type: "search",
      placeholder: "Filter options",
      "aria-label": `Filter options of ${name}`,
      "aria-controls": `${base}-list`,
      autocomplete: "off",
      spellcheck: "false",
      "data-lm-suppress-shortcuts": "true",
    });
    status = h("div", { class: "nbacp-cc-status", role: "status", "aria-live": "polite" });
    root.append(filter, status);
  }

  const rows = options.map((option, i) =>
    optionRow(spec, option, {
      row: `${base}-opt-${i}`,
      desc: `${base}-opt-${i}-desc`,
      preview: `${base}-opt-${i}-preview`,
      note: `${base}-opt-${i}-note`,
    }),
  );
  /** @type {HTMLDivElement | null} */
  let list = null;
  if (rows.length) {
    const groupDescribed = [spec.description && ids.desc, hintText && ids.hint].filter(Boolean);
    list = h(
      "div",
      {
        class: `nbacp-cc-list${filter ? " nbacp-cc-scroll" : ""}`,
        id: `${base}-list`,
        role: multi ? "group" : "radiogroup",
        "aria-label": spec.required ? `${name} (required)` : name,
        "aria-required": !multi && spec.required ? "true" : null,
      },
      rows.map((r) => r.node),
    );
    list.dataset.describedBase = groupDescribed.join(" ");
    root.append(list);
  }

  /** @type {View["other"]} */
  let other = null;
  if (spec.custom) {
    const c = spec.custom;
    const inputId = `${base}-other`;
    const cdescId = `${base}-other-desc`;
    const input = h("input", {
      class: "nbacp-cc-other-input",
      type: "text",
      id: inputId,
      placeholder: c.placeholder || null,
      autocomplete: "off",
      "data-lm-suppress-shortcuts": "true",
    });
    // One line says what the box does: its label ("Other (replaces your choice)", "Note on your
    // choice"); the agent's own description only when it says something else (docs/design.md).
    const described = [c.description && cdescId].filter(Boolean);
    input.dataset.describedBase = described.join(" ");
    other = {
      input,
      box: h("div", { class: "nbacp-cc-other" }, [
        h("label", { class: "nbacp-cc-other-label", for: inputId, text: c.title || c.name || "Other" }),
        c.description ? h("div", { class: "nbacp-cc-desc", id: cdescId, text: c.description }) : null,
        input,
      ]),
    };
    root.append(other.box);
  }

  // attached only while there are errors (paint)
  const errorList = h("ul", { class: "nbacp-cc-errors", id: ids.errors, role: "alert" });

  return { spec, root, rows, list, filter, status, other, errorList, errorsId: ids.errors };
}

/**
 * Reflect the model's answer / errors / disabled into the DOM without rebuilding it.
 * @param {View} view
 * @param {Answer} answer
 * @param {string[]} errors the question's messages
 * @param {boolean} disabled
 */
export function paint(view, answer, errors, disabled) {
  const overridden = S.isOverridden(view.spec, answer);
  const invalid = errors.length > 0;
  for (const r of view.rows) {
    const checked = answer.picked.includes(r.option.value);
    const ovr = checked && overridden;
    attr(r.node, "aria-checked", checked ? "true" : "false");
    attr(r.node, "aria-disabled", disabled);
    r.node.classList.toggle("nbacp-cc-overridden", ovr);
    present(r.node, r.note, ovr);
    attr(r.node, "aria-describedby", [r.described, ovr && r.noteId].filter(Boolean).join(" ") || null);
  }
  if (view.list) {
    attr(view.list, "aria-invalid", invalid ? "true" : null);
    attr(view.list, "aria-disabled", disabled);
    const d = [view.list.dataset.describedBase, invalid && view.errorsId].filter(Boolean).join(" ");
    attr(view.list, "aria-describedby", d || null);
  }
  if (view.filter) view.filter.disabled = disabled;
  if (view.other) {
    const input = view.other.input;
    input.disabled = disabled;
    attr(input, "aria-invalid", invalid ? "true" : null);
    const d = [input.dataset.describedBase, invalid && view.errorsId].filter(Boolean).join(" ");
    attr(input, "aria-describedby", d || null);
    if (input.value !== answer.custom) {
      // Only an outside change (Python) lands here; keep the caret where it was, clamped.
      const focused = input.ownerDocument.activeElement === input;
      const start = input.selectionStart;
      const end = input.selectionEnd;
      input.value = answer.custom;
      if (focused && start !== null && end !== null) {
        const n = answer.custom.length;
        input.setSelectionRange(Math.min(start, n), Math.min(end, n));
      }
    }
  }
  view.errorList.replaceChildren(...errors.map((m) => h("li", { text: m })));
  present(view.root, view.errorList, errors.length > 0);
}

/**
 * Hide rows that do not match `query`; returns how many are shown and how many picks hide.
 * @param {View} view
 * @param {string} query
 * @param {Answer} answer
 */
export function applyFilter(view, query, answer) {
  let shown = 0;
  let hiddenPicks = 0;
  for (const r of view.rows) {
    const match = S.matchesFilter(r.option, query);
    r.node.hidden = !match;
    if (match) shown += 1;
    else if (answer.picked.includes(r.option.value)) hiddenPicks += 1;
  }
  if (view.status) {
    const total = view.rows.length;
    let text = query.trim() === "" ? "" : shown === 0 ? "No options match." : `${shown} of ${total} shown.`;
    if (text && hiddenPicks) text += ` ${hiddenPicks} selected option${hiddenPicks > 1 ? "s" : ""} hidden.`;
    view.status.textContent = text;
  }
  return { shown, hiddenPicks };
}
