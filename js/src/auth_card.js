// The authentication card's body (docs/consent-cards.md, 'Authentication card'): one row per method
// of the agent, with its description and, for an env-var method, the variables it reads.
// It never asks for a secret: there is no password box (a typed key would travel in widget
// state and be saved with the notebook). A method's button sends {event: "authenticate",
// method_id}; Cancel is the card's action button.
import { registerKind } from "./base.js";
import { h, list } from "./dom.js";

/**
 * The body's DOM; `choose(methodId)` runs on a method's click.
 * @param {import("./types.js").AuthSpec} spec
 * @param {(methodId: string) => void} choose
 */
function authBody(spec, choose) {
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  const rows = list(spec.methods).map((method) => {
    const button = h("button", {
      type: "button",
      class: "nbacp-btn nbacp-btn-primary nbacp-auth-method",
      "data-method": method.id,
      "data-lm-suppress-shortcuts": "true",
      text: method.name,
    });
    button.dataset.usable = method.usable === false ? "false" : "true";
    button.addEventListener("click", () => {
      if (button.dataset.usable === "true") choose(method.id);
    });
    buttons.push(button);
    /** @type {HTMLElement[]} */
    const parts = [button];
    if (method.description) parts.push(h("div", { class: "nbacp-auth-description", text: method.description }));
    const vars = list(method.vars);
    if (vars.length) {
      parts.push(
        h("div", { class: "nbacp-auth-vars" }, [
          h("span", { text: "Reads " }),
          ...vars.flatMap((v, i) => [i ? ", " : null, h("code", { text: v.name }), v.optional ? " (optional)" : null]),
          h("span", { text: " from the agent's environment: set it in the kernel (os.environ) or pass connect(env={...}), then choose this." }),
        ]),
      );
    }
    if (method.link) parts.push(h("div", { class: "nbacp-auth-link nbacp-muted", text: `Get credentials at: ${method.link}` }));
    if (method.note) parts.push(h("div", { class: "nbacp-auth-note nbacp-muted", text: method.note }));
    return h("div", { class: "nbacp-auth-row", role: "group" }, parts);
  });
  for (const note of list(spec.notes)) rows.push(h("div", { class: "nbacp-auth-repeated nbacp-muted", text: note }));
  if (!list(spec.methods).length) rows.push(h("div", { class: "nbacp-muted", text: "The agent offered no authentication methods; only cancelling closes this." }));
  return { node: h("div", { class: "nbacp-auth" }, rows), buttons };
}

registerKind("auth", (ctx) => {
  const body = authBody(ctx.spec, (methodId) => ctx.act({ event: "authenticate", data: { method_id: methodId } }));
  ctx.body.append(body.node);
  return {
    paint: ({ disabled }) => {
      for (const b of body.buttons) b.disabled = disabled || b.dataset.usable !== "true";
    },
  };
});
