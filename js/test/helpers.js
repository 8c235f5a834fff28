// Render the card into a fresh container attached to the document (focus needs a document).
import card from "../src/choice_card.js";
import { fakeModel } from "./fake_model.js";

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

export function makeSpec(over = {}) {
  return {
    name: "question_0",
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

export function mountCard(spec, state = {}) {
  const model = fakeModel({ spec, ...state });
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = card.render({ model, el });
  const q = (sel) => el.querySelector(sel);
  const rows = () => [...el.querySelectorAll('[role="radio"], [role="checkbox"]')];
  const row = (label) => rows().find((r) => r.querySelector(".nbacp-cc-label").textContent === label);
  return {
    model,
    el,
    cleanup,
    rows,
    row,
    other: () => q(".nbacp-cc-other-input"),
    filter: () => q(".nbacp-cc-filter"),
    group: () => q('[role="radiogroup"], [role="group"]'),
    errors: () => [...el.querySelectorAll('[role="alert"] li')].map((li) => li.textContent),
    answer: () => model.get("answer"),
    checked: () => rows().filter((r) => r.getAttribute("aria-checked") === "true").map((r) => r.querySelector(".nbacp-cc-label").textContent),
    overridden: () => rows().filter((r) => r.classList.contains("nbacp-cc-overridden")).map((r) => r.querySelector(".nbacp-cc-label").textContent),
  };
}

export function type(input, value, caret = value.length) {
  input.focus();
  input.value = value;
  input.setSelectionRange(caret, caret);
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
