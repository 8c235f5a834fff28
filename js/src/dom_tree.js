// Build sanitized HTML sent as a tree of plain values (nbacp/render/html_tree.py) without
// parsing markup: elements through createElement, text through text nodes. Only the tags and
// attributes below are built (the sanitizing render's own set, checked again here): any other
// element is left out and its children go in its place; any other attribute is dropped.

/** @typedef {import("./types.js").HtmlTree} HtmlTree */

const TAGS = new Set(
  (
    "p em strong code pre ul ol li a blockquote h1 h2 h3 h4 h5 h6 hr br table thead tbody tr th td " +
    "div span details summary del s"
  ).split(" "),
);
const LINK = /^(?:https?:\/\/|mailto:)/i;
const CLASS = /^[\w-]{1,64}$/;

/**
 * @param {HTMLElement} el
 * @param {string} tag
 * @param {Record<string, unknown>} attrs
 */
function setAttributes(el, tag, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value !== "string") continue;
    if (name === "class") {
      const names = value.split(/\s+/).filter((c) => CLASS.test(c));
      if (names.length) el.className = names.join(" ");
    } else if (name === "href" && tag === "a" && LINK.test(value)) {
      el.setAttribute("href", value);
      el.setAttribute("rel", "nofollow noopener noreferrer");
      el.setAttribute("target", "_blank");
    } else if (name === "start" && tag === "ol" && /^\d{1,9}$/.test(value)) {
      el.setAttribute("start", value);
    } else if (name === "open" && tag === "details") {
      el.setAttribute("open", "");
    }
  }
}

/**
 * Append the nodes `items` describe to `into`.
 * @param {Node} into
 * @param {unknown} items the children: strings (text) and `[tag, attributes, ...children]`
 * @param {number} [depth]
 */
export function buildInto(into, items, depth = 0) {
  if (!Array.isArray(items) || depth > 64) return;
  for (const item of items) {
    if (typeof item === "string") {
      into.appendChild(document.createTextNode(item));
    } else if (Array.isArray(item) && typeof item[0] === "string") {
      const tag = item[0].toLowerCase();
      if (!TAGS.has(tag)) {
        buildInto(into, item.slice(2), depth + 1);
        continue;
      }
      const el = document.createElement(tag);
      const attrs = item[1];
      if (attrs && typeof attrs === "object" && !Array.isArray(attrs)) {
        setAttributes(el, tag, /** @type {Record<string, unknown>} */ (attrs));
      }
      buildInto(el, item.slice(2), depth + 1);
      into.appendChild(el);
    }
  }
}

/**
 * Replace `el`'s content with what `items` describe.
 * @param {HTMLElement} el
 * @param {unknown} items
 */
export function buildTree(el, items) {
  el.replaceChildren();
  buildInto(el, items);
}
