// Native inputs for the plain fields of a form card. Each field's draft value is what the
// person typed, as text (numbers too: the kernel parses them), so nothing they did not type
// is ever sent; booleans are true/false, and null while a tri-state is unanswered.
import { attr, h } from "./dom.js";

/** @typedef {import("./types.js").PlainFieldSpec} PlainFieldSpec */

/**
 * One plain field's control: `input` is what the form places (and labels), `paint` shows the
 * draft's value (not while `focused`: the person's own text is the draft), `disable` follows
 * the card.
 * @typedef {object} FieldControl
 * @property {HTMLElement} input
 * @property {() => boolean | void} focus false: nothing to focus
 * @property {(value: unknown, focused: boolean) => void} paint
 * @property {(off: boolean) => void} disable
 */

/** A browser that cannot parse what was typed (a half-typed date, "1e") reports "" : say so instead. */
const BAD_INPUT = { bad_input: true };

/** @param {number} n */
function pad(n) {
  return String(n).padStart(2, "0");
}

/**
 * "+02:00" for the browser's zone at that local time.
 * @param {Date} date
 */
export function offsetOf(date) {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/**
 * datetime-local's "YYYY-MM-DDTHH:MM[:SS]" -> RFC 3339 with the browser's offset ("" stays "").
 * @param {string} value
 */
export function localToRfc3339(value) {
  if (!value) return "";
  const date = new Date(value); // parsed as local time
  if (Number.isNaN(date.getTime())) return value;
  const seconds = value.length === 16 ? `${value}:00` : value;
  return `${seconds}${offsetOf(date)}`;
}

/**
 * RFC 3339 -> the datetime-local value in the browser's zone ("" when not parseable).
 * @param {unknown} value
 */
export function rfc3339ToLocal(value) {
  if (typeof value !== "string" || !value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** @type {Partial<Record<import("./types.js").PlainKind, string>>} */
const INPUT_TYPES = { text: "text", email: "email", url: "url", date: "date", datetime: "datetime-local", number: "number", integer: "number", secret: "password" };

/**
 * Build one plain field; `onEdit(value)` is called with the field's new draft value on every input.
 * @param {PlainFieldSpec} field
 * @param {{input: string}} ids
 * @param {(value: unknown) => void} onEdit
 * @returns {FieldControl}
 */
export function buildField(field, ids, onEdit) {
  const kind = field.kind;
  if (kind === "boolean") {
    const input = h("input", { type: "checkbox", id: ids.input, class: "nbacp-checkbox", "data-lm-suppress-shortcuts": "true" });
    input.addEventListener("change", () => onEdit(input.checked));
    return {
      input,
      focus: () => input.focus(),
      paint(value) {
        input.checked = value === true;
      },
      disable(off) {
        input.disabled = off;
      },
    };
  }
  if (kind === "tristate") {
    const group = h("div", { role: "radiogroup", id: ids.input });
    /** @type {[boolean, string][]} */
    const choices = [
      [true, "Yes"],
      [false, "No"],
    ];
    /** @type {boolean | null} */
    let current = null;
    const buttons = choices.map(([v, label]) => {
      const b = h("button", { type: "button", role: "radio", class: "nbacp-segment", "aria-checked": "false", "data-lm-suppress-shortcuts": "true", text: label });
      // A second click clears the answer: an optional yes/no can go back to "not answered".
      b.addEventListener("click", () => onEdit(current === v ? null : v));
      group.append(b);
      return b;
    });
    return {
      input: group,
      focus: () => buttons[0].focus(),
      paint(value) {
        current = value === true || value === false ? value : null;
        buttons.forEach((b, i) => attr(b, "aria-checked", choices[i][0] === current ? "true" : "false"));
      },
      disable(off) {
        for (const b of buttons) b.disabled = off;
      },
    };
  }
  if (kind === "unsupported") {
    const node = h("div", { class: "nbacp-unsupported", id: ids.input, text: field.note || `unsupported field type` });
    return { input: node, focus: () => false, paint() {}, disable() {} };
  }
  const multiline = kind === "textarea";
  const input = h(multiline ? "textarea" : "input", {
    id: ids.input,
    class: "nbacp-input",
    type: multiline ? null : INPUT_TYPES[kind] || "text",
    rows: multiline ? 3 : null,
    placeholder: field.placeholder || null,
    min: field.min ?? null,
    max: field.max ?? null,
    step: kind === "integer" ? 1 : kind === "number" ? "any" : null,
    minlength: field.min_length ?? null,
    maxlength: field.max_length ?? null,
    autocomplete: kind === "secret" ? "off" : null,
    inputmode: kind === "integer" ? "numeric" : kind === "number" ? "decimal" : null,
    "data-lm-suppress-shortcuts": "true",
  });
  const read = () => {
    if (input.validity && input.validity.badInput) return { ...BAD_INPUT };
    return kind === "datetime" ? localToRfc3339(input.value) : input.value;
  };
  input.addEventListener("input", () => onEdit(read()));
  return {
    input,
    focus: () => input.focus(),
    paint(value, focused) {
      if (focused) return; // the person is typing here: the page's own text is the draft
      if (value && typeof value === "object") return; // bad input: keep what the browser shows
      const shown = kind === "datetime" ? rfc3339ToLocal(value) : value == null ? "" : String(value);
      if (input.value !== shown) input.value = shown;
    },
    disable(off) {
      input.disabled = off;
    },
  };
}
