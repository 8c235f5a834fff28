// Render a form card holding one choice question (the choice rows' tests) or any fields into a
// fresh container attached to the document (focus needs a document).
import card from "../src/card.js";
import { fakeModel } from "./fake_model.js";
import { rowLabel } from "../src/view.js";

export { rowLabel };

export const ACTIONS = [
  { event: "accept", label: "Accept", style: "primary", draft: true, default: true },
  { event: "decline", label: "Decline", style: "default" },
  { event: "cancel", label: "Cancel", style: "default" },
];

export function opts(n, extra = {}) {
  return Array.from({ length: n }, (_, i) => ({
    value: `v${i}`,
    label: `Option ${i}`,
    description: null,
    preview: null,
    recommended: false,
    ...extra,
  }));
}

/** One choice question's spec, as nbacp.widgets.form_spec.question_spec makes it. */
export function makeSpec(over = {}) {
  return {
    name: "question_0",
    kind: "choice",
    title: "Which ones?",
    description: "Pick what applies",
    required: false,
    multi: false,
    options: [
      { value: "a", label: "Alpha", description: "first letter", preview: null, recommended: true },
      { value: "b", label: "Beta", description: null, preview: "line 1\nline 2", recommended: false },
      { value: "c", label: "Gamma", description: "third", preview: null, recommended: false },
    ],
    custom: { name: "question_0_custom", title: "Other", description: null, placeholder: "Type your own" },
    min_items: null,
    max_items: null,
    ...over,
  };
}

export function formSpec(fields, over = {}) {
  return { kind: "form", header: "The agent asks", message: "m", notes: [], fields, actions: ACTIONS, secret: [], ...over };
}

/** A card of any spec; `state` is the model's other keys (draft, errors, phase...). */
export function mountSpec(spec, state = {}) {
  const model = fakeModel({ spec, ...state });
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = card.render({ model, el });
  const button = (label) => [...el.querySelectorAll("button.nbacp-btn")].find((b) => b.textContent === label);
  return { model, el, cleanup, button, q: (sel) => el.querySelector(sel) };
}

/** A card of one choice question; `state.answer` ({picked, custom}) is its starting draft. */
export function mountCard(choice, state = {}) {
  const { answer, ...rest } = state;
  const names = { pick: choice.name, custom: choice.custom ? choice.custom.name : null };
  const toDraft = (a) => {
    const d = { [names.pick]: a.picked };
    if (names.custom) d[names.custom] = a.custom;
    return d;
  };
  const draft = answer ? toDraft(answer) : toDraft({ picked: [], custom: "" });
  const c = mountSpec(formSpec([choice]), { draft, ...rest });
  const q = c.q;
  const el = c.el;
  const fromDraft = (d) => ({ picked: d[names.pick], custom: names.custom ? d[names.custom] : "" });
  const rows = () => [...el.querySelectorAll('[role="radio"], [role="checkbox"]')];
  const row = (label) => rows().find((r) => rowLabel(r) === label);
  return {
    ...c,
    rows,
    row,
    other: () => q(".nbacp-cc-other-input"),
    filter: () => q(".nbacp-cc-filter"),
    group: () => q('[role="radiogroup"], [role="group"]'),
    errors: () => [...el.querySelectorAll(".nbacp-cc-errors li")].map((li) => li.textContent),
    answer: () => fromDraft(c.model.get("draft")),
    saved: () => c.model.saved.map(fromDraft),
    fromPython: (a) => c.model.fromPython("draft", toDraft(a)),
    setErrors: (messages) => c.model.fromPython("errors", messages.length ? { [names.pick]: messages } : {}),
    checked: () => rows().filter((r) => r.getAttribute("aria-checked") === "true").map((r) => rowLabel(r)),
    overridden: () => rows().filter((r) => r.classList.contains("nbacp-cc-overridden")).map((r) => rowLabel(r)),
  };
}

export function type(input, value, caret = value.length) {
  input.focus();
  input.value = value;
  if (["text", "search", "password", "url", "textarea", "email"].includes(input.type)) input.setSelectionRange(caret, caret);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

export function key(target, k, init = {}) {
  const event = new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

/** A document-level listener standing in for JupyterLab's bubbling shortcut handler. */
export function documentKeys() {
  const seen = [];
  const fn = (e) => seen.push(e.key);
  document.addEventListener("keydown", fn);
  return { seen, stop: () => document.removeEventListener("keydown", fn) };
}
