// @vitest-environment jsdom
// Keyboard, long lists (filter), disabled state and the no-HTML guarantee.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { documentKeys, key, makeSpec, mountCard, opts, rowLabel, type } from "./helpers.js";

afterEach(() => document.body.replaceChildren());

describe("keyboard", () => {
  test("single-select arrows select the row they move to, as a radio group does; Home/End only move", () => {
    const c = mountCard(makeSpec());
    const [a, b, g] = c.rows();
    a.focus();
    key(a, "ArrowDown");
    expect(document.activeElement).toBe(b);
    expect(c.answer()).toEqual({ picked: ["b"], custom: "" });
    expect(b.getAttribute("aria-checked")).toBe("true");
    key(b, "ArrowUp");
    key(a, "ArrowLeft");
    expect(document.activeElement).toBe(g);
    expect(c.answer().picked).toEqual(["c"]);
    key(g, "Home");
    expect(document.activeElement).toBe(a);
    expect(c.answer().picked).toEqual(["c"]);
  });

  test("multi-select: arrows move focus with wrap-around, Home/End jump, nothing is toggled", () => {
    const c = mountCard(makeSpec({ multi: true }));
    const [a, b, g] = c.rows();
    expect(c.rows().map((r) => r.tabIndex)).toEqual([0, -1, -1]);
    a.focus();
    key(a, "ArrowDown");
    expect(document.activeElement).toBe(b);
    expect(c.rows().map((r) => r.tabIndex)).toEqual([-1, 0, -1]);
    key(b, "ArrowRight");
    expect(document.activeElement).toBe(g);
    key(g, "ArrowDown");
    expect(document.activeElement).toBe(a);
    key(a, "ArrowUp");
    expect(document.activeElement).toBe(g);
    key(g, "Home");
    expect(document.activeElement).toBe(a);
    key(a, "End");
    expect(document.activeElement).toBe(g);
    expect(c.answer()).toEqual({ picked: [], custom: "" });
  });

  test("the picked row is the tab stop", () => {
    const c = mountCard(makeSpec(), { answer: { picked: ["c"], custom: "" } });
    expect(c.rows().map((r) => r.tabIndex)).toEqual([-1, -1, 0]);
  });

  test("Space selects (single) and toggles (multi)", () => {
    const s = mountCard(makeSpec());
    const ev = key(s.row("Beta"), " ");
    expect(ev.defaultPrevented).toBe(true);
    expect(s.answer().picked).toEqual(["b"]);
    document.body.replaceChildren();
    const m = mountCard(makeSpec({ multi: true }));
    key(m.row("Alpha"), " ");
    key(m.row("Gamma"), " ");
    key(m.row("Alpha"), " ");
    expect(m.answer().picked).toEqual(["c"]);
  });

  test("Enter on a row or in the Other box accepts with the draft; Escape cancels; nothing else is sent", () => {
    const c = mountCard(makeSpec());
    key(c.row("Alpha"), "Enter");
    expect(c.model.sent).toEqual([{ event: "accept", seq: 1, draft: { question_0: [], question_0_custom: "" } }]);
    c.model.fromPython("handled", 1); // the kernel refused it (nothing picked): the card unfreezes
    type(c.other(), "x");
    key(c.other(), "Enter", { isComposing: true }); // IME composition: no accept
    key(c.row("Alpha"), "a");
    expect(c.model.sent.length).toBe(1);
    key(c.other(), "Enter");
    expect(c.model.sent[1]).toEqual({ event: "accept", seq: 2, draft: { question_0: [], question_0_custom: "x" } });
    key(c.other(), "Escape"); // frozen until the kernel handled seq 2
    expect(c.model.sent.length).toBe(2);
    c.model.fromPython("handled", 2);
    key(c.row("Gamma"), "Escape");
    expect(c.model.sent[2]).toEqual({ event: "cancel", seq: 3 });
    expect(c.answer()).toEqual({ picked: [], custom: "x" });
  });

  test("handled keys do not reach the notebook's shortcut handler; the card suppresses shortcuts", () => {
    const c = mountCard(makeSpec());
    const doc = documentKeys();
    key(c.row("Alpha"), "ArrowDown");
    key(c.row("Beta"), " ");
    key(c.row("Beta"), "Enter");
    key(c.row("Beta"), "d");
    doc.stop();
    expect(doc.seen).toEqual(["d"]);
    // Lumino matches selectors on the focused node first, so every focusable node carries it.
    for (const node of [...c.rows(), c.other()]) expect(node.getAttribute("data-lm-suppress-shortcuts")).toBe("true");
  });
});

describe("many options", () => {
  const many = () =>
    makeSpec({
      multi: true,
      options: [
        ...opts(9),
        { value: "z", label: "Zebra", description: "striped horse", preview: null, recommended: false },
      ],
    });

  test("exactly 8 options: no filter, no scrolling", () => {
    const c = mountCard(makeSpec({ options: opts(8) }));
    expect(c.filter()).toBeNull();
    expect(c.group().classList.contains("nbacp-cc-scroll")).toBe(false);
  });

  test("more than 8: the list scrolls and the filter hides non-matching rows without changing picks", () => {
    const c = mountCard(many());
    expect(c.group().classList.contains("nbacp-cc-scroll")).toBe(true);
    const filter = c.filter();
    expect(filter.getAttribute("aria-controls")).toBe(c.group().id);
    c.row("Option 2").click();
    c.row("Zebra").click();
    type(filter, "HORSE");
    const shown = () => c.rows().filter((r) => !r.hidden).map((r) => rowLabel(r));
    expect(shown()).toEqual(["Zebra"]);
    expect(c.el.querySelector('[role="status"]').textContent).toBe("1 of 10 shown. 1 selected option hidden.");
    expect(c.answer()).toEqual({ picked: ["v2", "z"], custom: "" });
    expect(c.rows().map((r) => r.tabIndex).filter((t) => t === 0).length).toBe(1);
    expect(c.row("Zebra").tabIndex).toBe(0);
    type(filter, "option 1");
    expect(shown()).toEqual(["Option 1"]);
    type(filter, "nothing like it");
    expect(shown()).toEqual([]);
    expect(c.el.querySelector('[role="status"]').textContent).toContain("No options match.");
    type(filter, "");
    expect(shown().length).toBe(10);
    expect(c.answer()).toEqual({ picked: ["v2", "z"], custom: "" });
    expect(c.saved().length).toBe(2);
  });

  test("arrows skip hidden rows; Enter and ArrowDown in the filter go to the first match; Escape clears it", () => {
    const c = mountCard(many());
    const filter = c.filter();
    type(filter, "option");
    key(filter, "Enter");
    expect(document.activeElement).toBe(c.row("Option 0"));
    expect(c.model.sent).toEqual([]);
    key(c.row("Option 0"), "ArrowUp");
    expect(document.activeElement).toBe(c.row("Option 8"));
    filter.focus();
    key(filter, "ArrowDown");
    expect(document.activeElement).toBe(c.row("Option 0"));
    key(filter, "Escape");
    expect(filter.value).toBe("");
    expect(c.rows().every((r) => !r.hidden)).toBe(true);
    expect(c.model.sent).toEqual([]);
    key(filter, "Escape");
    expect(c.model.sent).toEqual([{ event: "cancel", seq: 1 }]);
  });
});

describe("frozen while an answer is on its way", () => {
  test("after Accept nothing is written or sent until the kernel handled it; then the card is live again", () => {
    const c = mountCard(makeSpec({ options: [...makeSpec().options, ...opts(7)] }), {
      answer: { picked: ["a"], custom: "kept" },
    });
    c.button("Accept").click();
    expect(c.model.sent).toEqual([{ event: "accept", seq: 1, draft: { question_0: ["a"], question_0_custom: "kept" } }]);
    const saved = c.saved().length;
    expect(c.el.querySelector(".nbacp-cc").getAttribute("aria-disabled")).toBe("true");
    expect(c.rows().every((r) => r.getAttribute("aria-disabled") === "true" && r.tabIndex === -1)).toBe(true);
    expect(c.other().disabled && c.filter().disabled && c.button("Accept").disabled).toBe(true);
    expect(c.el.querySelector(".nbacp-card-status").textContent).toBe("Sending…");
    c.row("Beta").click();
    key(c.row("Beta"), " ");
    key(c.row("Beta"), "Enter");
    key(c.row("Beta"), "Escape");
    c.other().value = "changed";
    c.other().dispatchEvent(new Event("input", { bubbles: true }));
    key(c.other(), "Enter");
    expect(c.saved().length).toBe(saved);
    expect(c.model.sent.length).toBe(1);
    expect(c.answer()).toEqual({ picked: ["a"], custom: "kept" });
    c.model.fromPython("errors", { question_0_custom: ["Too short."] });
    c.model.fromPython("handled", 1);
    expect(c.other().disabled).toBe(false);
    expect(document.activeElement).toBe(c.other()); // focus goes to the first invalid field
    expect(c.errors()).toEqual(["Too short."]);
  });

  test("an answered card shows only its summary, as a line", () => {
    const c = mountCard(makeSpec());
    expect(c.el.querySelector(".nbacp-card").classList.contains("nbacp-answered")).toBe(false);
    c.row("Alpha").click();
    c.model.fromPython("summary", "Accepted: Alpha");
    c.model.fromPython("phase", "answered");
    expect(c.rows()).toEqual([]);
    expect(c.el.querySelector(".nbacp-summary").textContent).toBe("Accepted: Alpha");
    expect(c.el.querySelectorAll("button").length).toBe(0);
    // the card draws its own answered line (a transcript keeps it in its place): two elements
    const root = c.el.querySelector(".nbacp-card");
    expect(root.classList.contains("nbacp-answered")).toBe(true);
    expect(c.el.querySelectorAll("*").length).toBe(2);
    c.model.fromPython("summary", "Accepted: Beta");
    expect(c.el.querySelector(".nbacp-summary").textContent).toBe("Accepted: Beta");
  });
});

describe("agent text is never HTML", () => {
  const payload = "<img src=x onerror=alert(1)>";
  test("labels, descriptions, previews, titles and placeholders end up as text", () => {
    const c = mountCard({
      name: payload,
      kind: "choice",
      title: payload,
      description: payload,
      required: true,
      multi: false,
      options: [
        { value: payload, label: payload, description: payload, preview: payload, recommended: true },
        ...opts(9, { label: `<b>bold</b>`, description: `<script>alert(2)</script>` }).map((o, i) => ({ ...o, value: `x${i}` })),
      ],
      custom: { name: `${payload}_custom`, title: payload, description: payload, placeholder: payload },
      min_items: null,
      max_items: null,
    });
    c.setErrors([payload]);
    c.fromPython({ picked: [payload], custom: payload });
    for (const tag of ["img", "script", "b"]) expect(c.el.querySelector(tag)).toBeNull();
    const row = c.rows()[0];
    expect(rowLabel(row)).toBe(payload);
    expect(row.querySelector(".nbacp-cc-opt-desc").textContent).toBe(payload);
    expect(row.querySelector("pre").textContent).toBe(payload);
    expect(c.el.querySelector(".nbacp-cc-title").firstChild.textContent).toBe(payload);
    expect(c.el.querySelector(".nbacp-cc-errors li").textContent).toBe(payload);
    expect(c.el.querySelector(".nbacp-cc-other-label").textContent).toBe(payload);
    expect(c.other().placeholder).toBe(payload);
    expect(c.other().value).toBe(payload);
    expect(c.errors()).toEqual([payload]);
    expect(c.group().getAttribute("aria-label")).toBe(`${payload} (required)`);
    expect(c.checked()).toEqual([payload]);
    expect(c.overridden()).toEqual([payload]);
    expect(rowLabel(c.rows()[1])).toBe("<b>bold</b>");
  });

  test("the source never parses markup", () => {
    const dir = join(process.cwd(), "src"); // vitest runs from js/
    const files = readdirSync(dir).filter((f) => f.endsWith(".js"));
    expect(files).toContain("card.js");
    for (const f of files) {
      expect(readFileSync(join(dir, f), "utf8")).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|DOMParser|document\.write/);
    }
  });
});
