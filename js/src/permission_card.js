// The permission card's body (docs/consent-cards.md, 'Permission card'): the tool title, the command as
// code, the files, each diff coloured by line with its size, the arguments as a bounded
// key/value table (long values folded, the raw JSON one click away) and, under a fold, the
// ids. The options are the card's action buttons (the base draws them from spec.actions).
// Every string is agent text already made safe by the kernel (nbacp.render.permission);
// it only ever goes through textContent.
import { registerKind } from "./base.js";
import { h, list } from "./dom.js";

/** @typedef {import("./types.js").FileDiff} FileDiff */

/** @type {Record<string, string>} */
const TAGS = { "+": "add", "-": "del", "@": "hunk", " ": "ctx" };

/**
 * @param {string} summary
 * @param {HTMLElement} content
 * @param {string} cls
 */
function fold(summary, content, cls) {
  return h("details", { class: cls }, [h("summary", { text: summary }), content]);
}

/**
 * "+3 −1" (the minus sign, not a hyphen, so it cannot be read as "-1").
 * @param {Pick<FileDiff, "added" | "removed">} diff
 */
export function diffSize(diff) {
  return `+${Number(diff.added) || 0} \u2212${Number(diff.removed) || 0}`;
}

/** @param {FileDiff} diff */
function diffBlock(diff) {
  const head = h("div", { class: "nbacp-diff-head" }, [
    h("code", { class: "nbacp-diff-path", text: diff.path || "" }),
    diff.new_file ? h("span", { class: "nbacp-badge", text: "new file" }) : null,
    h("span", { class: "nbacp-diff-size", text: diffSize(diff) }, []),
  ]);
  const lines = list(diff.lines).map(([tag, text]) =>
    h("div", { class: `nbacp-diff-line nbacp-diff-${TAGS[tag] || "ctx"}`, "data-tag": tag }, [
      h("span", { class: "nbacp-diff-mark", "aria-hidden": "true", text: tag === "@" ? "" : tag }),
      h("span", { class: "nbacp-diff-text", text: String(text) }),
    ]),
  );
  if (!lines.length) lines.push(h("div", { class: "nbacp-diff-line nbacp-diff-ctx", text: "(no changes)" }));
  if (diff.more) lines.push(h("div", { class: "nbacp-diff-more", text: `… ${diff.more} more lines` }));
  return h("div", { class: "nbacp-diff" }, [head, h("div", { class: "nbacp-diff-body", role: "group" }, lines)]);
}

/** @param {import("./types.js").PermissionSpec} spec */
function argsTable(spec) {
  const rows = list(spec.args).map((row) =>
    h("tr", {}, [
      h("th", { scope: "row", text: row.key }),
      h("td", {}, [
        row.full === null || row.full === undefined
          ? h("span", { class: "nbacp-arg-value", text: row.value })
          : fold(row.value, h("pre", { class: "nbacp-arg-full", text: row.full }), "nbacp-arg-fold"),
      ]),
    ]),
  );
  if (spec.args_more) {
    rows.push(h("tr", {}, [h("td", { colspan: "2", class: "nbacp-muted", text: `… ${spec.args_more} more arguments` })]));
  }
  return h("table", { class: "nbacp-args" }, [
    h("caption", { text: "Arguments" }),
    h("tbody", {}, rows),
  ]);
}

/**
 * The body's DOM for a permission spec (pure: no model, no events).
 * @param {import("./types.js").PermissionSpec} spec
 */
export function permissionBody(spec) {
  /** @type {HTMLElement[]} */
  const parts = [];
  if (spec.title) parts.push(h("div", { class: "nbacp-perm-title", text: spec.title }));
  const command = spec.command;
  if (command && typeof command === "object") {
    parts.push(h("pre", { class: "nbacp-perm-command", "aria-label": "Command" }, [h("code", { text: command.text })]));
    if (command.cwd) {
      parts.push(h("div", { class: "nbacp-perm-cwd" }, [h("span", { text: "in " }), h("code", { text: command.cwd })]));
    }
  }
  const locations = list(spec.locations);
  if (locations.length) {
    parts.push(
      h("div", { class: "nbacp-perm-files" }, [
        h("span", { class: "nbacp-muted", text: locations.length > 1 ? "Files: " : "File: " }),
        ...locations.flatMap((path, i) => [i ? ", " : null, h("code", { text: path })]),
      ]),
    );
  }
  for (const diff of list(spec.diffs)) parts.push(diffBlock(diff));
  for (const item of list(spec.content)) {
    parts.push(
      item.kind === "text"
        ? h("pre", { class: "nbacp-perm-text", text: item.text })
        : h("div", { class: "nbacp-perm-note nbacp-muted", text: item.text }),
    );
  }
  if (list(spec.args).length) parts.push(argsTable(spec));
  if (spec.raw_json) parts.push(fold("Raw JSON", h("pre", { class: "nbacp-raw-json", text: spec.raw_json }), "nbacp-raw"));
  const details = list(spec.details);
  if (details.length) {
    const dl = h("dl", { class: "nbacp-perm-facts" }, details.flatMap(([k, v]) => [h("dt", { text: k }), h("dd", { text: v })]));
    parts.push(fold("Details", dl, "nbacp-perm-details"));
  }
  return h("div", { class: "nbacp-perm" }, parts);
}

registerKind("permission", (ctx) => {
  ctx.body.append(permissionBody(ctx.spec));
  return {};
});
