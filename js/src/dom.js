// DOM construction without HTML parsing: every string goes through textContent or
// setAttribute, so agent-supplied text can never become markup.

/** @typedef {string | number | boolean | null | undefined} AttrValue null, undefined and false: no attribute */
/** @typedef {Node | string | null | undefined | false} Child null, undefined and false: nothing */

/**
 * Create an element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttrValue>} [attrs]
 *   attributes; `class` and `text` are special (className / textContent); null/false skip.
 * @param {Child[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * Set or remove one attribute; keeps update code short and idempotent.
 * @param {Element} node
 * @param {string} name
 * @param {AttrValue} value true: "true"; null, undefined or false: removed
 */
export function attr(node, name, value) {
  if (value === null || value === undefined || value === false) node.removeAttribute(name);
  else node.setAttribute(name, value === true ? "true" : String(value));
}

/**
 * Attach `node` to `parent` (before `before`, or last) while `present`, detach it otherwise:
 * an element that exists only while it has something to show, so an untouched card carries
 * no empty error lists or status lines (docs/cards.md, 'DOM budget').
 * @param {Node} parent
 * @param {ChildNode} node
 * @param {boolean} shown
 * @param {Node | null} [before]
 */
export function present(parent, node, shown, before = null) {
  if (shown && node.parentNode !== parent) parent.insertBefore(node, before && before.parentNode === parent ? before : null);
  else if (!shown && node.parentNode) node.remove();
}

/**
 * `value` when it is an array, else []: a list of the spec that may be missing.
 * @template T
 * @param {T[] | null | undefined} value
 * @returns {T[]}
 */
export function list(value) {
  return Array.isArray(value) ? value : [];
}

let counter = 0;

/**
 * A page-unique id prefix: one model can be rendered in several views at once.
 * @returns {string}
 */
export function uid() {
  counter += 1;
  return `nbacp-cc-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}
