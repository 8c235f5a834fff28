// Pure logic of one choice question on the form card (choice.js, view.js): its picks and its
// companion text box, as `{picked, custom}`. Whether typed text replaces the pick or goes with it
// is the kernel's composition rule (nbacp/form/model.py, `FormQuestion.exclusive` in
// nbacp/form/fields.py), shown on the page from the box's `mode` (nbacp/widgets/form_spec.py,
// `companion_spec`): the page marks a pick "overridden" exactly when the kernel would not send it.

/** @typedef {import("./types.js").Answer} Answer */
/** @typedef {import("./types.js").ChoiceOption} ChoiceOption */
/** @typedef {import("./types.js").ChoiceSpec} ChoiceSpec */

/**
 * Keep picks in option order and unique, so the state has one canonical form.
 * @param {ChoiceOption[]} options
 * @param {string[]} values
 */
function inOptionOrder(options, values) {
  const wanted = new Set(values);
  return options.map((o) => o.value).filter((v) => wanted.has(v));
}

/**
 * The answer after a click on `value`: multi toggles it, single selects it. Custom text is
 * kept untouched either way (picking never clears typed text).
 * @param {ChoiceSpec} spec
 * @param {Answer} answer
 * @param {string} value
 * @returns {Answer}
 */
export function toggled(spec, answer, value) {
  const options = spec.options || [];
  /** @type {string[]} */
  let picked;
  if (spec.multi) {
    picked = answer.picked.includes(value)
      ? answer.picked.filter((v) => v !== value)
      : inOptionOrder(options, [...answer.picked, value]);
  } else {
    picked = [value];
  }
  return { picked, custom: answer.custom };
}

/**
 * The answer after typing: picks are kept untouched (typing never clears picks).
 * @param {Answer} answer
 * @param {string} text
 * @returns {Answer}
 */
export function typed(answer, text) {
  return { picked: [...answer.picked], custom: text };
}

/**
 * A note box annotates the pick (both are sent); an Other box on a single-select replaces it.
 * @param {ChoiceSpec} spec
 */
export function isNote(spec) {
  return Boolean(spec.custom && spec.custom.mode === "note");
}

/**
 * Single-select with non-blank Other text: the pending pick is overridden, not lost.
 * @param {ChoiceSpec} spec
 * @param {Answer} answer
 */
export function isOverridden(spec, answer) {
  return !spec.multi && !isNote(spec) && answer.custom.trim() !== "";
}

/**
 * Case-insensitive substring match on label + description; blank query matches all.
 * @param {ChoiceOption} option
 * @param {string} query
 */
export function matchesFilter(option, query) {
  const q = query.trim().toLowerCase();
  if (q === "") return true;
  const hay = `${option.label ?? option.value ?? ""} ${option.description ?? ""}`.toLowerCase();
  return hay.includes(q);
}

/**
 * A short hint from min_items / max_items; the form model does the validating.
 * @param {ChoiceSpec} spec
 */
export function countHint(spec) {
  if (!spec.multi) return "";
  const min = Number.isInteger(spec.min_items) ? spec.min_items : null;
  const max = Number.isInteger(spec.max_items) ? spec.max_items : null;
  if (min !== null && max !== null) return min === max ? `Choose ${min}.` : `Choose ${min} to ${max}.`;
  if (min !== null && min > 0) return `Choose at least ${min}.`;
  if (max !== null) return `Choose up to ${max}.`;
  return "Choose any that apply.";
}
