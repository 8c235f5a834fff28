// @vitest-environment jsdom
import { afterEach, describe, expect, test } from "vitest";
import { render } from "../src/base.js";
import { safeHref, urlBody } from "../src/url_card.js";
import { fakeModel } from "./fake_model.js";

afterEach(() => document.body.replaceChildren());

function spec(over = {}) {
  return {
    kind: "url",
    header: "helper asks you to open a web page",
    message: "Sign in",
    site: "evil.example",
    reads_as: "",
    url: { before: "https://bank.example@", host: "evil.example", after: "/login" },
    href: "https://bank.example@evil.example/login",
    warnings: ["The link has text before '@' in its address; the site it opens is 'evil.example'."],
    refusal: null,
    link_label: "Open",
    link_enabled: true,
    status: "",
    actions: [{ event: "decline", label: "Decline", style: "decline" }, { event: "cancel", label: "Cancel" }],
    ...over,
  };
}

function mount(s, phase = "open") {
  const model = fakeModel({ spec: s, draft: {}, errors: {}, handled: 0, phase, summary: "Consented to open evil.example" });
  const el = document.createElement("div");
  document.body.append(el);
  render({ model, el });
  return { model, el, q: (sel) => el.querySelector(sel) };
}

describe("url consent body", () => {
  test("the whole URL is shown with its host marked, and the warnings", () => {
    const c = mount(spec());
    expect(c.q(".nbacp-url").textContent).toBe("https://bank.example@evil.example/login");
    expect(c.q(".nbacp-url mark.nbacp-url-host").textContent).toBe("evil.example");
    expect(c.q(".nbacp-host").textContent).toBe("evil.example");
    expect([...c.el.querySelectorAll(".nbacp-warnings li")].length).toBe(1);
  });

  test("Open is a real new-tab link that also sends consent", () => {
    const c = mount(spec());
    const link = c.q("a.nbacp-open-link");
    expect(link.getAttribute("href")).toBe("https://bank.example@evil.example/login");
    expect(link.rel).toBe("noopener noreferrer");
    expect(link.target).toBe("_blank");
    link.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    expect(c.model.sent).toEqual([{ event: "open", seq: 1 }]);
  });

  test("a disabled link, or a non-http href, opens nothing and sends nothing", () => {
    for (const over of [{ link_enabled: false }, { href: "javascript:alert(1)" }, { href: "data:text/html,x" }]) {
      const c = mount(spec(over));
      const link = c.q("a.nbacp-open-link");
      if (link) {
        expect(link.hasAttribute("href")).toBe(false);
        link.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
      }
      expect(c.model.sent).toEqual([]);
      document.body.replaceChildren();
    }
    expect(safeHref("JAVASCRIPT:alert(1)")).toBeNull();
    expect(safeHref("https://x.example/a b")).toBe("https://x.example/a%20b");
  });

  test("a refused URL has no link, says why, and keeps Decline", () => {
    const c = mount(spec({ refusal: "Only http and https links can be opened; this one has 'javascript:'.", href: "" }));
    expect(c.q("a")).toBeNull();
    expect(c.q(".nbacp-refusal").textContent).toMatch(/^Cannot open: Only http/);
    c.q('.nbacp-actions button[data-event="decline"]').click();
    expect(c.model.sent).toEqual([{ event: "decline", seq: 1 }]);
  });

  test("a sent card (consent given, waiting for the agent) keeps its body and its Retry / Cancel", () => {
    const waiting = [{ event: "retry", label: "Retry" }, { event: "stop", label: "Cancel" }];
    const c = mount(spec({ link_enabled: false, status: "Waiting for the agent to finish...", actions: waiting }), "sent");
    expect(c.q(".nbacp-summary")).toBeNull();
    expect(c.q(".nbacp-url").textContent).toBe("https://bank.example@evil.example/login");
    const buttons = [...c.el.querySelectorAll(".nbacp-actions button")];
    expect(buttons.map((b) => [b.textContent, b.disabled])).toEqual([["Retry", false], ["Cancel", false]]);
    buttons[0].click();
    expect(c.model.sent).toEqual([{ event: "retry", seq: 1 }]);
    c.model.fromPython("phase", "answered");
    expect(c.q(".nbacp-summary").textContent).toBe("Consented to open evil.example");
  });

  test("Escape cancels", () => {
    const c = mount(spec());
    c.q(".nbacp-url").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    expect(c.model.sent).toEqual([{ event: "cancel", seq: 1 }]);
  });

  test("markup in the URL or message stays text", () => {
    const x = "<img src=x onerror=alert(1)>";
    const body = urlBody(spec({ url: { before: x, host: x, after: x }, warnings: [x], site: x }), () => {});
    expect(body.node.querySelector("img")).toBeNull();
    expect(body.node.textContent).toContain(x);
  });
});
