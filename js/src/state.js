// Pure answer logic shared by the view; mirrors nbacp/widgets/choice_card.py so that a click
// and a Python-side pick produce the same `answer` dict.

/** Coerce whatever is in the trait into {picked: string[], custom: string}. */
export function normalizeAnswer(answer) {
  const raw = answer && typeof answer === "object" ? answer : {};
  const picked = Array.isArray(raw.picked) ? raw.picked.filter((v) => typeof v === "string") : [];
  const custom = typeof raw.custom === "string" ? raw.custom : "";
  return { picked, custom };
}

/** Keep picks in option order and unique, so the state has one canonical form. */
export function inOptionOrder(options, values) {
  const wanted = new Set(values);
  return options.map((o) => o.value).filter((v) => wanted.has(v));
}

/**
 * The answer after a click on `value`: multi toggles it, single selects it. Custom text is
 * kept untouched either way (picking never clears typed text).
 */
export function toggled(spec, answer, value) {
  const options = spec.options || [];
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

/** The answer after typing: picks are kept untouched (typing never clears picks). */
export function typed(answer, text) {
  return { picked: [...answer.picked], custom: text };
}

/** A note box annotates the pick (both are sent); an Other box on a single-select replaces it. */
export function isNote(spec) {
  return Boolean(spec.custom && spec.custom.mode === "note");
}

/** Single-select with non-blank Other text: the pending pick is overridden, not lost. */
export function isOverridden(spec, answer) {
  return !spec.multi && !isNote(spec) && answer.custom.trim() !== "";
}

/** Case-insensitive substring match on label + description; blank query matches all. */
export function matchesFilter(option, query) {
  const q = query.trim().toLowerCase();
  if (q === "") return true;
  const hay = `${option.label ?? option.value ?? ""} ${option.description ?? ""}`.toLowerCase();
  return hay.includes(q);
}

/** A short hint from min_items / max_items; the form model does the validating. */
export function countHint(spec) {
  if (!spec.multi) return "";
  const min = Number.isInteger(spec.min_items) ? spec.min_items : null;
  const max = Number.isInteger(spec.max_items) ? spec.max_items : null;
  if (min !== null && max !== null) return min === max ? `Choose ${min}.` : `Choose ${min} to ${max}.`;
  if (min !== null && min > 0) return `Choose at least ${min}.`;
  if (max !== null) return `Choose up to ${max}.`;
  return "Choose any that apply.";
}
