// @vitest-environment jsdom
// One choice question on the form card: its rows as rendered, picks and typed text composing, and
// changes that come from the kernel. Keyboard, long lists and no-HTML: form_choice_keys.test.js.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formSpec, makeSpec, mountCard, type } from "./helpers.js";

afterEach(() => document.body.replaceChildren());

describe("rendering", () => {
  test("single-select rows are radios in a labelled radiogroup with descriptions, badge and preview", () => {
    const c = mountCard(makeSpec({ required: true }));
    const group = c.group();
    expect(group.getAttribute("role")).toBe("radiogroup");
    expect(group.getAttribute("aria-label")).toBe("Which ones? (required)");
    expect(group.getAttribute("aria-required")).toBe("true");
    expect(c.rows().map((r) => r.getAttribute("role"))).toEqual(["radio", "radio", "radio"]);
    expect(c.rows().every((r) => r.getAttribute("aria-checked") === "false")).toBe(true);
    const alpha = c.row("Alpha");
    expect(alpha.querySelector(".nbacp-cc-badge").textContent).toBe("Recommended");
    expect(c.row("Beta").querySelector(".nbacp-cc-badge")).toBeNull();
    const descId = alpha.getAttribute("aria-describedby");
    expect(document.getElementById(descId).textContent).toBe("first letter");
    const pre = c.row("Beta").querySelector("pre");
    expect(pre.textContent).toBe("line 1\nline 2");
    expect(c.row("Beta").getAttribute("aria-describedby")).toBe(pre.id);
    const label = c.el.querySelector(`label[for="${c.other().id}"]`);
    expect(label.textContent).toBe("Other");
    expect(c.other().type).toBe("text");
    expect(c.other().placeholder).toBe("Type your own");
  });

  test("multi-select rows are checkboxes in a group; no filter for few options", () => {
    const c = mountCard(makeSpec({ multi: true, min_items: 1, max_items: 2 }));
    expect(c.group().getAttribute("role")).toBe("group");
    expect(c.rows().map((r) => r.getAttribute("role"))).toEqual(["checkbox", "checkbox", "checkbox"]);
    expect(c.filter()).toBeNull();
    expect(c.el.querySelector(".nbacp-cc-hint").textContent).toBe("Choose 1 to 2.");
  });

  test("no Other box without spec.custom; an optionless question is only the Other box", () => {
    expect(mountCard(makeSpec({ custom: null })).other()).toBeNull();
    document.body.replaceChildren();
    const c = mountCard(makeSpec({ options: [] }));
    expect(c.group()).toBeNull();
    expect(c.other()).not.toBeNull();
  });

  test("no <style> per card: the one stylesheet (the code model's _css) uses JupyterLab variables", () => {
    const c = mountCard(makeSpec());
    expect(c.el.querySelectorAll("style").length).toBe(0);
    const css = readFileSync(join(process.cwd(), "src", "card.css"), "utf8"); // vitest runs from js/
    expect(css).toContain("var(--jp-layout-color1");
    expect(css).toContain("var(--jp-error-color1"); // the one red required marker
  });
});

describe("picking and typing compose", () => {
  test("single-select: a click selects, another click moves the selection", () => {
    const c = mountCard(makeSpec());
    c.row("Alpha").click();
    expect(c.answer()).toEqual({ picked: ["a"], custom: "" });
    c.row("Beta").click();
    expect(c.answer()).toEqual({ picked: ["b"], custom: "" });
    c.row("Beta").click();
    expect(c.answer()).toEqual({ picked: ["b"], custom: "" });
    expect(c.checked()).toEqual(["Beta"]);
    expect(c.saved()).toEqual([
      { picked: ["a"], custom: "" },
      { picked: ["b"], custom: "" },
      { picked: ["b"], custom: "" },
    ]);
  });

  test("multi-select toggles and keeps option order", () => {
    const c = mountCard(makeSpec({ multi: true }));
    c.row("Gamma").click();
    c.row("Alpha").click();
    expect(c.answer().picked).toEqual(["a", "c"]);
    c.row("Gamma").click();
    expect(c.answer().picked).toEqual(["a"]);
    expect(c.checked()).toEqual(["Alpha"]);
  });

  test("multi: pick then type keeps both", () => {
    const c = mountCard(makeSpec({ multi: true }));
    c.row("Alpha").click();
    c.row("Gamma").click();
    type(c.other(), "delta");
    expect(c.answer()).toEqual({ picked: ["a", "c"], custom: "delta" });
    expect(c.checked()).toEqual(["Alpha", "Gamma"]);
    expect(c.overridden()).toEqual([]);
  });

  test("multi: type then pick keeps both", () => {
    const c = mountCard(makeSpec({ multi: true }));
    type(c.other(), "delta");
    c.row("Beta").click();
    expect(c.answer()).toEqual({ picked: ["b"], custom: "delta" });
    expect(c.other().value).toBe("delta");
    c.row("Beta").click();
    expect(c.answer()).toEqual({ picked: [], custom: "delta" });
  });

  test("single: pick then type shows the pick overridden; clearing restores it", () => {
    const c = mountCard(makeSpec());
    c.row("Beta").click();
    type(c.other(), "my own");
    expect(c.answer()).toEqual({ picked: ["b"], custom: "my own" });
    expect(c.checked()).toEqual(["Beta"]);
    expect(c.overridden()).toEqual(["Beta"]);
    const note = c.row("Beta").querySelector(".nbacp-cc-note");
    expect(note.isConnected).toBe(true);
    expect(note.textContent).toBe("overridden by your answer");
    expect(c.row("Beta").getAttribute("aria-describedby").split(" ")).toContain(note.id);
    type(c.other(), "");
    expect(c.answer()).toEqual({ picked: ["b"], custom: "" });
    expect(c.overridden()).toEqual([]);
    expect(note.isConnected).toBe(false); // no hidden note left in the row
    expect(c.row("Beta").getAttribute("aria-describedby").split(" ")).not.toContain(note.id);
    expect(c.checked()).toEqual(["Beta"]);
  });

  test("single: type then pick keeps the text and shows the new pick overridden", () => {
    const c = mountCard(makeSpec());
    type(c.other(), "mine");
    expect(c.overridden()).toEqual([]);
    c.row("Alpha").click();
    expect(c.answer()).toEqual({ picked: ["a"], custom: "mine" });
    expect(c.other().value).toBe("mine");
    expect(c.overridden()).toEqual(["Alpha"]);
  });

  test("whitespace-only text does not override", () => {
    const c = mountCard(makeSpec());
    c.row("Alpha").click();
    type(c.other(), "   \t ");
    expect(c.answer()).toEqual({ picked: ["a"], custom: "   \t " });
    expect(c.overridden()).toEqual([]);
  });

  test("typing keeps focus and caret in the Other box across the re-render", () => {
    const c = mountCard(makeSpec());
    c.row("Alpha").click();
    const input = c.other();
    type(input, "ab");
    type(input, "aXb", 2);
    expect(document.activeElement).toBe(input);
    expect(input.selectionStart).toBe(2);
    expect(c.other()).toBe(input);
    expect(c.answer().custom).toBe("aXb");
  });
});

describe("changes from Python", () => {
  test("a new answer dict re-renders picks, text and overridden state", () => {
    const c = mountCard(makeSpec());
    const rowsBefore = c.rows();
    c.fromPython({ picked: ["c"], custom: "" });
    expect(c.checked()).toEqual(["Gamma"]);
    c.fromPython({ picked: ["c"], custom: "py text" });
    expect(c.other().value).toBe("py text");
    expect(c.overridden()).toEqual(["Gamma"]);
    expect(c.rows()).toEqual(rowsBefore);
    expect(c.saved()).toEqual([]);
  });

  test("an outside text change while the user types clamps the caret and keeps focus", () => {
    const c = mountCard(makeSpec());
    const input = c.other();
    type(input, "abcdef", 5);
    c.fromPython({ picked: [], custom: "abc" });
    expect(input.value).toBe("abc");
    expect(document.activeElement).toBe(input);
    expect(input.selectionStart).toBe(3);
  });

  test("errors render in the alert region and mark the group and input invalid", () => {
    const c = mountCard(makeSpec());
    expect(c.group().hasAttribute("aria-invalid")).toBe(false);
    c.setErrors(["Pick one option.", "Too long."]);
    expect(c.errors()).toEqual(["Pick one option.", "Too long."]);
    const region = c.el.querySelector('[role="alert"]');
    expect(c.group().getAttribute("aria-invalid")).toBe("true");
    expect(c.group().getAttribute("aria-describedby").split(" ")).toContain(region.id);
    expect(c.other().getAttribute("aria-invalid")).toBe("true");
    c.setErrors([]);
    expect(c.errors()).toEqual([]);
    expect(c.group().hasAttribute("aria-invalid")).toBe(false);
  });

  test("malformed answer values are tolerated", () => {
    const c = mountCard(makeSpec(), { answer: { picked: "a", custom: 3 } });
    expect(c.checked()).toEqual([]);
    expect(c.other().value).toBe("");
    c.row("Alpha").click();
    expect(c.answer()).toEqual({ picked: ["a"], custom: "" });
  });

  test("the teardown removes every listener", () => {
    const c = mountCard(makeSpec());
    expect(c.model.listenerCount()).toBeGreaterThan(0);
    c.cleanup();
    expect(c.model.listenerCount()).toBe(0);
  });

  test("a new spec rebuilds the card", () => {
    const c = mountCard(makeSpec());
    c.model.fromPython("spec", formSpec([makeSpec({ multi: true, title: "Now many" })]));
    expect(c.group().getAttribute("role")).toBe("group");
    expect(c.el.querySelectorAll(".nbacp-cc").length).toBe(1);
    c.row("Alpha").click();
    expect(c.answer().picked).toEqual(["a"]);
  });
});
