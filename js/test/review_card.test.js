// @vitest-environment jsdom
import { afterEach, describe, expect, test } from "vitest";
import { mountSpec } from "./helpers.js";

afterEach(() => document.body.replaceChildren());

const XSS = "<img src=x onerror=alert(1)>";
const ACCEPT = { event: "accept", label: "Accept", style: "primary", draft: true, default: true };
const RUN = { event: "accept_run", label: "Accept & run", style: "default", draft: true };
const REJECT = { event: "reject", label: "Reject", style: "default" };

function spec(over = {}) {
  return {
    kind: "review",
    header: "claude proposes to change cell 4 [5] `df = load()`",
    message: "",
    mode: "replace",
    cell_type: "code",
    target: "load",
    target_line: "df = load()",
    path: "work/a.ipynb",
    diff: { lines: [["-", "df = load()"], ["+", "df = load(fast=True)"], [" ", "df.head()"]], added: 1, removed: 1, more: 0 },
    editable: true,
    proposed: "df = load(fast=True)\ndf.head()",
    live: true,
    why_not_live: "",
    instead: "",
    status: "",
    actions: [ACCEPT, RUN, REJECT],
    ...over,
  };
}

function mount(s = spec(), state = {}) {
  return mountSpec(s, { draft: { source: s.proposed }, ...state });
}

describe("review card", () => {
  test("a replaced cell shows its changed lines with +N / −M", () => {
    const c = mount();
    const lines = [...c.el.querySelectorAll(".nbacp-diff-line")];
    expect(lines.map((l) => l.dataset.tag)).toEqual(["-", "+", " "]);
    expect(c.q(".nbacp-diff-size").textContent).toBe("+1 \u22121");
    expect(c.q(".nbacp-diff-path").textContent).toBe("code · changed cell · id load");
  });

  test("the header names the cell by place and count, its first line as code; the id stays in the details", () => {
    const c = mount();
    const header = c.q(".nbacp-card-header");
    expect(header.textContent).toBe("claude proposes to change cell 4 [5] df = load()");
    expect(c.q(".nbacp-card-header code.nbacp-review-line").textContent).toBe("df = load()");
    expect(c.q(".nbacp-review-id").textContent).toBe("id load");
    const insert = mount(spec({ mode: "insert", header: "c proposes a new code cell after cell 2 `x`", target_line: "x" }));
    expect(insert.q(".nbacp-review-id").textContent).toBe("after id load");
  });

  test("a first line is text, never markup, and a header that does not end with it stays as sent", () => {
    const c = mount(spec({ header: `c proposes to delete cell 1 \`${XSS}\``, target_line: XSS, mode: "delete" }));
    expect(c.q("img")).toBeNull();
    expect(c.q("code.nbacp-review-line").textContent).toBe(XSS);
    const other = mount(spec({ header: "c proposes to change cell 1 `a`", target_line: "b" }));
    expect(other.q(".nbacp-card-header").textContent).toBe("c proposes to change cell 1 `a`");
    expect(other.q("code.nbacp-review-line")).toBeNull();
    const top = mount(spec({ mode: "insert", target: "", target_line: "", header: "c proposes a new code cell at the top" }));
    expect(top.q(".nbacp-review-id")).toBeNull();
    expect(top.q(".nbacp-diff-path").textContent).toBe("code · new cell");
  });

  test("a deleted cell is struck through and has no source box", () => {
    const c = mount(spec({ mode: "delete", editable: false, proposed: "", diff: { lines: [["-", "x = 1"]], added: 0, removed: 1, more: 0 } }));
    expect(c.q("del.nbacp-diff-text").textContent).toBe("x = 1");
    expect(c.q("textarea")).toBeNull();
  });

  test("agent text is text, never markup", () => {
    const c = mount(spec({ diff: { lines: [["+", XSS]], added: 1, removed: 0, more: 0 } }));
    expect(c.q("img")).toBeNull();
    expect(c.q(".nbacp-diff-add .nbacp-diff-text").textContent).toBe(XSS);
  });

  test("the person's edit travels with Accept, and the card marks it edited", () => {
    const c = mount();
    const box = c.q("textarea");
    box.value = "df = load(cache=True)";
    box.dispatchEvent(new Event("input"));
    expect(c.q("label .nbacp-badge").textContent).toBe("edited");
    c.button("Accept & run").click();
    expect(c.model.sent).toEqual([{ event: "accept_run", seq: 1, draft: { source: "df = load(cache=True)" } }]);
    expect(box.disabled).toBe(true); // frozen until the kernel handled it
  });

  test("Ctrl+Enter in the source accepts; plain Enter is a new line the notebook never sees", () => {
    const c = mount();
    const box = c.q("textarea");
    const notebook = [];
    document.body.addEventListener("keydown", (e) => notebook.push(e.key));
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(c.model.sent).toEqual([]);
    expect(notebook).toEqual([]);
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    expect(c.model.sent.map((m) => m.event)).toEqual(["accept"]);
  });

  test("Reject sends no draft", () => {
    const c = mount();
    c.button("Reject").click();
    expect(c.model.sent).toEqual([{ event: "reject", seq: 1 }]);
  });

  test("Accept all / Reject all appear only while several proposals are open", () => {
    const c = mount(spec(), { pending: 1 });
    expect(c.q(".nbacp-review-all")).toBeNull();
    c.model.fromPython("pending", 3);
    expect(c.q('[data-event="accept_all"]').textContent).toBe("Accept all (3)");
    c.q('[data-event="accept_all"]').click();
    expect(c.model.sent).toEqual([{ event: "accept_all", seq: 1, draft: { source: spec().proposed } }]);
    c.model.fromPython("pending", 1);
    expect(c.q(".nbacp-review-all")).toBeNull();
  });

  test("a refused source is marked on the box and focused", () => {
    const c = mount();
    c.button("Accept").click();
    c.model.fromPython("errors", { source: ["The source holds U+202E on line 2"] });
    c.model.fromPython("handled", 1);
    const box = c.q("textarea");
    expect(box.getAttribute("aria-invalid")).toBe("true");
    expect(c.q(".nbacp-field-error").textContent).toContain("U+202E");
    expect(document.activeElement).toBe(box);
  });

  test("a link that is not live says why and what happens instead", () => {
    const c = mount(spec({ live: false, why_not_live: "No front-end piece answered.", instead: "The agent is told." }));
    expect(c.q(".nbacp-review-notlive").textContent).toBe("Not applied live: No front-end piece answered. The agent is told.");
  });

  test("accepted: the status shows and nothing more can be typed", () => {
    const c = mount(spec({ status: "Applying…", actions: [] }), { phase: "sent" });
    expect(c.q(".nbacp-card-status").textContent).toBe("Applying…");
    expect(c.q("textarea")).toBeNull();
  });

  test("a source that did not go in is shown to copy, as text", () => {
    const c = mount(spec({ status: "Not applied: no page.", actions: [], copy: XSS }), { phase: "sent" });
    expect(c.q("pre.nbacp-review-copy").textContent).toBe(XSS);
    expect(c.q("img")).toBeNull();
    expect(c.q("textarea")).toBeNull();
  });
});
