// The review card's body (docs/cards.md, 'The review card'): one proposed cell edit as a diff
// (a new cell in full, a replaced cell's changed lines with +N / −M, a deleted cell struck
// through), a note when the edit cannot reach the open notebook directly, and the editable
// source: the person's version is `draft.source`, which Accept and Accept & run carry. While
// several review cards of the session are open, Accept all / Reject all answer every one.
// Every string is agent or notebook text already made safe by the kernel; only textContent.
import { registerKind } from "./base.js";
import { attr, h, list, present } from "./dom.js";
import { diffSize } from "./permission_card.js";

/** @type {Record<string, string>} */
const TAGS = { "+": "add", "-": "del", "@": "hunk", " ": "ctx" };

/**
 * The diff's DOM (pure: no model, no events).
 * @param {import("./types.js").ReviewSpec} spec
 */
export function reviewDiff(spec) {
  const diff = spec.diff || { lines: [], added: 0, removed: 0, more: 0 };
  const what = spec.mode === "insert" ? "new cell" : spec.mode === "delete" ? "deleted cell" : "changed cell";
  // The id is for matching the agent's words ("cell b7c1"); the header names the cell as the person sees it.
  const id = spec.target ? h("span", { class: "nbacp-review-id", text: `${spec.mode === "insert" ? "after " : ""}id ${spec.target}` }) : null;
  const head = h("div", { class: "nbacp-diff-head" }, [
    h("span", { class: "nbacp-diff-path" }, [`${spec.cell_type || "code"} · ${what}`, ...(id ? [" · ", id] : [])]),
    h("span", { class: "nbacp-diff-size", text: diffSize(diff) }),
  ]);
  const lines = list(diff.lines).map(([tag, text]) =>
    h("div", { class: `nbacp-diff-line nbacp-diff-${TAGS[tag] || "ctx"}`, "data-tag": tag }, [
      h("span", { class: "nbacp-diff-mark", "aria-hidden": "true", text: tag === "@" ? "" : tag }),
      spec.mode === "delete"
        ? h("del", { class: "nbacp-diff-text", text: String(text) })
        : h("span", { class: "nbacp-diff-text", text: String(text) }),
    ]),
  );
  if (!lines.length) lines.push(h("div", { class: "nbacp-diff-line nbacp-diff-ctx", text: "(empty cell)" }));
  if (diff.more) lines.push(h("div", { class: "nbacp-diff-more", text: `… ${diff.more} more lines` }));
  const label = spec.mode === "delete" ? "Cell to delete" : spec.mode === "insert" ? "New cell" : "Changes";
  return h("div", { class: `nbacp-diff nbacp-review-${spec.mode}` }, [
    head,
    h("div", { class: "nbacp-diff-body", role: "group", "aria-label": label }, lines),
  ]);
}

/**
 * The accepted source that did not go in, selectable, with a Copy button (where the page may
 * write the clipboard): what the person accepted is never lost with the card.
 * @param {string} source
 */
export function copyBlock(source) {
  const pre = h("pre", { class: "nbacp-review-copy", "aria-label": "Your cell, to copy", text: source });
  const button = h("button", { type: "button", class: "nbacp-btn nbacp-btn-default", "data-event": "copy",
    "data-lm-suppress-shortcuts": "true", text: "Copy" });
  const clipboard = typeof navigator !== "undefined" ? navigator.clipboard : undefined;
  if (!clipboard) return [pre];
  button.addEventListener("click", () => {
    clipboard.writeText(source).then(
      () => { button.textContent = "Copied"; },
      () => { button.textContent = "Copy failed: select the text"; },
    );
  });
  return [pre, h("div", { class: "nbacp-actions" }, [button])];
}

/**
 * The header with the cell's first line as code: the kernel's header ends with it in backticks.
 * @param {HTMLElement} header
 * @param {import("./types.js").ReviewSpec} spec
 */
export function codeInHeader(header, spec) {
  const text = String(spec.header || "");
  const line = spec.target_line || "";
  if (!line || !text.endsWith(`\`${line}\``)) return;
  header.replaceChildren(text.slice(0, text.length - line.length - 2), h("code", { class: "nbacp-review-line", text: line }));
}

registerKind("review", (ctx) => {
  const { spec, model } = ctx;
  const header = ctx.body.querySelector(".nbacp-card-header");
  if (header instanceof HTMLElement) codeInHeader(header, spec);
  ctx.body.append(reviewDiff(spec));
  if (!spec.live) {
    ctx.body.append(
      h("div", { class: "nbacp-review-notlive", role: "note" }, [
        h("strong", { text: "Not applied live: " }),
        `${spec.why_not_live} ${spec.instead}`.trim(),
      ]),
    );
  }
  const status = h("div", { class: "nbacp-card-status", role: "status", text: spec.status || "" });
  if (spec.status) ctx.body.append(status);
  if (typeof spec.copy === "string") ctx.body.append(...copyBlock(spec.copy));

  /** @type {HTMLTextAreaElement | null} */
  let box = null;
  const edited = h("span", { class: "nbacp-badge", text: "edited" });
  const error = h("div", { class: "nbacp-field-error", id: `${ctx.base}-source-error` });
  let title = null;
  if (spec.editable && !spec.status) {
    title = h("label", { class: "nbacp-field-title", for: `${ctx.base}-source`, text: "Your version (edit before accepting) " });
    const rows = Math.min(20, Math.max(3, String(spec.proposed || "").split("\n").length + 1));
    box = h("textarea", {
      class: "nbacp-input nbacp-review-source",
      id: `${ctx.base}-source`,
      rows,
      spellcheck: "false",
      "aria-describedby": `${ctx.base}-source-error`,
      "data-lm-suppress-shortcuts": "true",
    });
    const source = box;
    source.value = String(ctx.draft().source ?? spec.proposed ?? "");
    source.addEventListener("input", () => ctx.edit({ source: source.value }));
    ctx.body.append(title, source);
  }

  // Accept all / Reject all: attached only while other review cards of the session are open.
  const allBar = h("div", { class: "nbacp-actions nbacp-review-all" }, [
    h("button", { type: "button", class: "nbacp-btn nbacp-btn-default", "data-event": "accept_all", "data-lm-suppress-shortcuts": "true" }),
    h("button", { type: "button", class: "nbacp-btn nbacp-btn-default", "data-event": "reject_all", "data-lm-suppress-shortcuts": "true", text: "Reject all" }),
  ]);
  const [acceptAll, rejectAll] = /** @type {HTMLButtonElement[]} */ ([...allBar.children]);
  acceptAll.title = "Accept every open proposal of this turn, each with its source as shown on its card";
  rejectAll.title = "Reject every open proposal of this turn";
  acceptAll.addEventListener("click", () => ctx.act({ event: "accept_all", draft: true }));
  rejectAll.addEventListener("click", () => ctx.act({ event: "reject_all" }));
  let disabled = false;
  const paintAll = () => {
    const pending = Number(model.get("pending")) || 1;
    acceptAll.textContent = `Accept all (${pending})`;
    acceptAll.disabled = rejectAll.disabled = disabled;
    present(ctx.body, allBar, pending > 1 && !spec.status);
  };
  paintAll();
  model.on("change:pending", paintAll);

  return {
    paint: ({ draft, errors, disabled: off }) => {
      disabled = off;
      paintAll();
      if (!box || !title) return;
      const value = typeof draft.source === "string" ? draft.source : "";
      if (box.value !== value && document.activeElement !== box) box.value = value;
      box.disabled = off;
      present(title, edited, value !== spec.proposed);
      const messages = list(errors.source);
      error.textContent = messages.join(" ");
      attr(box, "aria-invalid", messages.length > 0);
      present(ctx.body, error, messages.length > 0, box.nextSibling);
    },
    focusInvalid: (errors) => {
      if (!box || !list(errors.source).length) return false;
      box.focus();
      return true;
    },
    dispose: () => model.off("change:pending", paintAll),
  };
});
