// The URL consent card's body (docs/consent-cards.md, 'URL consent card'): the site, the full URL with
// its host marked, the warnings, and the Open link. Open is a real link (<a target=_blank>) so
// the new tab is the person's own gesture in their own browser; the click also sends
// {event: "open"} (consent). The href is re-checked here: only http(s), whatever Python sent.
import { registerKind } from "./base.js";
import { h, list } from "./dom.js";

const SAFE = new Set(["http:", "https:"]);

/**
 * The URL as an href when it is http(s), else null (never a javascript: or data: link).
 * @param {unknown} text
 */
export function safeHref(text) {
  if (typeof text !== "string" || !text) return null;
  try {
    const url = new URL(text);
    return SAFE.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The body's DOM; `onOpen` runs on a click of the enabled link. `paint(off)` enables the link
 * unless `off` (or the spec says it may not be opened).
 * @param {import("./types.js").UrlSpec} spec
 * @param {() => void} onOpen
 * @returns {{node: HTMLDivElement, link: HTMLAnchorElement | null, paint: (off: boolean) => void}}
 */
export function urlBody(spec, onOpen) {
  const parts = [];
  if (spec.site) {
    parts.push(h("div", { class: "nbacp-url-site" }, [h("span", { class: "nbacp-muted", text: "Site: " }), h("strong", { class: "nbacp-host", text: spec.site })]));
  }
  if (spec.reads_as) {
    parts.push(h("div", { class: "nbacp-url-reads" }, [h("span", { class: "nbacp-muted", text: "Reads as: " }), h("strong", { text: spec.reads_as })]));
  }
  const url = spec.url && typeof spec.url === "object" ? spec.url : { before: String(spec.url || ""), host: "", after: "" };
  parts.push(
    h("div", { class: "nbacp-url" }, [
      h("span", { text: url.before || "" }),
      url.host ? h("mark", { class: "nbacp-url-host", text: url.host }) : null,
      h("span", { text: url.after || "" }),
    ]),
  );
  const warnings = list(spec.warnings);
  if (warnings.length) {
    parts.push(h("ul", { class: "nbacp-warnings", "aria-label": "Warnings" }, warnings.map((w) => h("li", { text: w }))));
  }
  if (spec.refusal) parts.push(h("div", { class: "nbacp-refusal", role: "alert", text: `Cannot open: ${spec.refusal}` }));
  /** @type {HTMLAnchorElement | null} */
  let link = null;
  const href = safeHref(spec.href);
  if (href !== null && !spec.refusal) {
    const a = h("a", {
      class: "nbacp-btn nbacp-btn-primary nbacp-open-link",
      target: "_blank",
      rel: "noopener noreferrer",
      referrerpolicy: "no-referrer",
      role: "button",
      "data-event": "open",
      text: spec.link_label || "Open",
    });
    a.addEventListener("click", (event) => {
      if (!a.hasAttribute("href")) {
        event.preventDefault();
        return;
      }
      onOpen();
    });
    parts.push(h("div", { class: "nbacp-url-open" }, [a]));
    link = a;
  }
  if (spec.status) parts.push(h("div", { class: "nbacp-url-status", role: "status", text: spec.status }));
  /** @param {boolean} off */
  const paint = (off) => {
    if (!link || href === null) return;
    const enabled = !off && spec.link_enabled !== false;
    if (enabled) {
      link.setAttribute("href", href);
      link.title = href;
      link.tabIndex = 0;
      link.removeAttribute("aria-disabled");
    } else {
      link.removeAttribute("href");
      link.removeAttribute("title");
      link.tabIndex = -1;
      link.setAttribute("aria-disabled", "true");
    }
  };
  paint(false);
  return { node: h("div", { class: "nbacp-url-body" }, parts), link, paint };
}

registerKind("url", (ctx) => {
  const body = urlBody(ctx.spec, () => ctx.act({ event: "open" }));
  ctx.body.append(body.node);
  return { paint: ({ disabled }) => body.paint(disabled) };
});
