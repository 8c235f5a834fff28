// The form card's body: every field of one elicitation form, in order, in one model.
// Choice questions render as option rows (choice.js), plain fields as native inputs (fields.js).
import { registerKind } from "./base.js";
import { mountChoice } from "./choice.js";
import { attr, h, present } from "./dom.js";
import { buildField } from "./fields.js";

/** @typedef {import("./types.js").Errors} Errors */
/** @typedef {import("./types.js").PaintState} PaintState */
/** @typedef {import("./types.js").KindContext<import("./types.js").FormSpec>} FormContext */

/**
 * One field of the form, placed and painted by `renderForm`.
 * @typedef {object} FormField
 * @property {HTMLElement} node
 * @property {string[]} names the draft keys whose messages are this field's
 * @property {(state: PaintState) => void} paint
 * @property {(errors: Errors) => boolean} focus
 */

/**
 * @param {Errors} errors
 * @param {string[]} names
 */
function messagesOf(errors, names) {
  return names.flatMap((n) => (Array.isArray(errors[n]) ? errors[n].filter((m) => typeof m === "string") : []));
}

/**
 * @template {"div" | "label"} K
 * @param {K} tag
 * @param {Record<string, string>} attrs
 * @param {{name: string, title: string | null, required: boolean}} field
 */
function titleNode(tag, attrs, field) {
  // the required marker is the title's ::after (card.css), not an element
  const { class: extra, ...rest } = attrs;
  const classes = ["nbacp-field-title", field.required && "nbacp-required", extra].filter(Boolean).join(" ");
  return h(tag, { class: classes, text: field.title || field.name, ...rest });
}

/**
 * @param {FormContext} ctx
 * @param {import("./types.js").ChoiceSpec} field
 * @returns {FormField}
 */
function choiceField(ctx, field) {
  const node = h("div", { class: "nbacp-field nbacp-field-choice", "data-name": field.name });
  const names = [field.name, ...(field.custom ? [field.custom.name] : [])];
  /** @returns {import("./types.js").Answer} */
  const answer = () => {
    const d = ctx.draft();
    const picks = d[field.name];
    const picked = Array.isArray(picks) ? picks.filter((v) => typeof v === "string") : [];
    const text = field.custom ? d[field.custom.name] : "";
    const custom = typeof text === "string" ? text : "";
    return { picked, custom };
  };
  /** @param {import("./types.js").Answer} next */
  const write = (next) => {
    /** @type {import("./types.js").Draft} */
    const patch = { [field.name]: next.picked };
    if (field.custom) patch[field.custom.name] = next.custom;
    ctx.edit(patch);
  };
  const choice = mountChoice(field, node, { answer, write, disabled: () => !ctx.open() });
  return {
    node,
    names,
    paint({ errors, disabled }) {
      const messages = messagesOf(errors, names);
      node.classList.toggle("nbacp-invalid", messages.length > 0);
      choice.update(answer(), messages, disabled);
    },
    focus: (errors) => {
      // the Other box when only its text is wrong, else the options
      if (!messagesOf(errors, [field.name]).length && choice.view.other) {
        choice.view.other.input.focus();
        return true;
      }
      return choice.focus();
    },
  };
}

/**
 * @param {FormContext} ctx
 * @param {import("./types.js").PlainFieldSpec} field
 * @param {number} i
 * @returns {FormField}
 */
function plainField(ctx, field, i) {
  const ids = { input: `${ctx.base}-f${i}`, desc: `${ctx.base}-f${i}-desc`, error: `${ctx.base}-f${i}-error` };
  const control = buildField(field, ids, (value) => ctx.edit({ [field.name]: value }));
  const kind = field.kind;
  const desc = field.description ? h("div", { class: "nbacp-field-desc", id: ids.desc, text: field.description }) : null;
  const warning = field.warning ? h("div", { class: "nbacp-field-warning", text: `⚠ ${field.warning}` }) : null;
  // attached only while the field has a message (paint)
  const error = h("div", { class: "nbacp-field-error", id: ids.error, role: "alert" });
  /** @type {HTMLElement} */
  let node;
  if (kind === "tristate") {
    // the yes/no group is the field itself: its title and two buttons, no wrappers
    node = control.input;
    node.prepend(titleNode("div", { id: `${ids.input}-title` }, field));
    attr(node, "aria-labelledby", `${ids.input}-title`);
    for (const extra of [desc, warning]) if (extra) node.append(extra);
  } else if (kind === "boolean") {
    // the box inside its label: clicking the title toggles it
    const title = titleNode("label", { class: "nbacp-check-row" }, field);
    title.prepend(control.input);
    node = h("div", {}, [title, desc, warning]);
  } else {
    const title = kind === "unsupported" ? null : titleNode("label", { for: ids.input }, field);
    node = h("div", {}, [title, control.input, desc, warning]);
  }
  node.classList.add("nbacp-field", `nbacp-field-${kind}`);
  node.dataset.name = field.name;
  if (field.required && kind !== "tristate" && kind !== "unsupported") attr(control.input, "aria-required", "true");
  return {
    node,
    names: [field.name],
    paint({ draft, errors, disabled }) {
      const messages = messagesOf(errors, [field.name]);
      const invalid = messages.length > 0;
      node.classList.toggle("nbacp-invalid", invalid);
      attr(control.input, "aria-invalid", invalid ? "true" : null);
      attr(control.input, "aria-describedby", [desc && ids.desc, invalid && ids.error].filter(Boolean).join(" ") || null);
      error.textContent = messages.join(" ");
      present(node, error, invalid);
      const focused = control.input.ownerDocument.activeElement === control.input;
      control.paint(draft[field.name], focused);
      control.disable(disabled);
    },
    focus: () => {
      control.focus();
      return true;
    },
  };
}

/**
 * @param {FormContext} ctx
 * @returns {import("./types.js").KindView}
 */
function renderForm(ctx) {
  const { spec, body } = ctx;
  for (const note of Array.isArray(spec.notes) ? spec.notes : []) {
    body.append(h("div", { class: "nbacp-card-note", text: note }));
  }
  const fields = (Array.isArray(spec.fields) ? spec.fields : []).map((f, i) =>
    f.kind === "choice" ? choiceField(ctx, f) : plainField(ctx, f, i),
  );
  for (const f of fields) body.append(f.node);
  return {
    paint(state) {
      for (const f of fields) f.paint(state);
    },
    focusInvalid(errors) {
      const first = fields.find((f) => messagesOf(errors, f.names).length > 0);
      return first ? first.focus(errors) : false;
    },
  };
}

registerKind("form", renderForm);

