// @vitest-environment jsdom
// A note box (spec.custom.mode === "note") annotates the pick: typing never marks the pick
// overridden and the card does not say the text replaces it. An Other box on a single-select does.
import { afterEach, describe, expect, test } from "vitest";
import { isNote, isOverridden } from "../src/state.js";
import { makeSpec, mountCard, type } from "./helpers.js";

afterEach(() => document.body.replaceChildren());

const noteSpec = () =>
  makeSpec({ custom: { name: "q_note", title: "Note on your choice", description: null, placeholder: "Add a note", mode: "note" } });
const otherSpec = () =>
  makeSpec({ custom: { name: "q_other", title: "Other (replaces your choice)", description: null, placeholder: "x", mode: "other" } });

describe("note vs Other", () => {
  test("a note keeps the pick: nothing is shown overridden and no replace hint", () => {
    const c = mountCard(noteSpec());
    c.row("Beta").click();
    type(c.other(), "only on Tuesdays");
    expect(c.answer()).toEqual({ picked: ["b"], custom: "only on Tuesdays" });
    expect(c.overridden()).toEqual([]);
    expect(c.el.textContent).not.toContain("replaces the selected option");
    expect(c.el.querySelector(`label[for="${c.other().id}"]`).textContent).toBe("Note on your choice");
  });

  test("an Other box on a single-select shows the pick overridden and says so", () => {
    const c = mountCard(otherSpec());
    c.row("Beta").click();
    type(c.other(), "Delta");
    expect(c.overridden()).toEqual(["Beta"]);
    expect(c.el.textContent).not.toContain("Text here replaces"); // the label says it, once
    expect(c.el.querySelector(`label[for="${c.other().id}"]`).textContent).toBe("Other (replaces your choice)");
  });

  test("the pure rule", () => {
    const answer = { picked: ["a"], custom: "x" };
    expect(isNote(noteSpec())).toBe(true);
    expect(isOverridden(noteSpec(), answer)).toBe(false);
    expect(isOverridden(otherSpec(), answer)).toBe(true);
    expect(isOverridden(makeSpec({ custom: null }), answer)).toBe(true);
  });
});
