// @vitest-environment jsdom
// The form card's plain fields: native inputs, one look, errors where the field is, and the
// draft as the page holds it (docs/cards.md, 'The form card').
import { afterEach, describe, expect, test, vi } from "vitest";
import { clock } from "../src/base.js";
import { localToRfc3339, offsetOf, rfc3339ToLocal } from "../src/fields.js";
import { formSpec, key, makeSpec, mountSpec, type } from "./helpers.js";

afterEach(() => {
  document.body.replaceChildren();
  vi.useRealTimers();
});

const FIELDS = [
  { name: "name", kind: "text", title: "Name", description: "Your full name", required: true, max_length: 40 },
  { name: "notes", kind: "textarea", title: "Notes", description: null, required: false },
  { name: "email", kind: "email", title: "Email", description: null, required: false },
  { name: "site", kind: "url", title: "Site", description: null, required: false },
  { name: "day", kind: "date", title: "Day", description: null, required: false },
  { name: "when", kind: "datetime", title: "When", description: null, required: false },
  { name: "count", kind: "integer", title: "Count", description: null, required: false, min: 1, max: 5, placeholder: "a whole number, 1 to 5" },
  { name: "ratio", kind: "number", title: "Ratio", description: null, required: false, min: 0, max: 1 },
  { name: "verbose", kind: "boolean", title: "Verbose", description: null, required: false },
  { name: "agree", kind: "tristate", title: "Agree", description: null, required: true },
  { name: "token", kind: "secret", title: "Token", description: null, required: false },
];
const DRAFT = { name: "", notes: "", email: "", site: "", day: "", when: "", count: "", ratio: "", verbose: true, agree: null };

function mountForm(over = {}, state = {}) {
  const c = mountSpec(formSpec(FIELDS, { secret: ["token"], ...over }), { draft: { ...DRAFT }, ...state });
  // a label names its input by `for`, or holds it (the checkbox)
  const input = (label) => {
    const l = [...c.el.querySelectorAll("label")].find((x) => x.textContent.startsWith(label));
    return l.htmlFor ? c.el.querySelector(`#${l.htmlFor}`) : l.querySelector("input");
  };
  return { ...c, input };
}

describe("one look", () => {
  test("every kind is a native input; numbers are number boxes with min/max/step, never a slider", () => {
    const c = mountForm();
    const kinds = Object.fromEntries(["Name", "Email", "Site", "Day", "When", "Count", "Ratio", "Verbose", "Token"]
      .map((l) => [l, `${c.input(l).tagName.toLowerCase()}:${c.input(l).type}`]));
    expect(kinds).toEqual({
      Name: "input:text", Email: "input:email", Site: "input:url", Day: "input:date", When: "input:datetime-local",
      Count: "input:number", Ratio: "input:number", Verbose: "input:checkbox", Token: "input:password",
    });
    expect(c.input("Notes").tagName).toBe("TEXTAREA");
    const count = c.input("Count");
    expect([count.min, count.max, count.step]).toEqual(["1", "5", "1"]);
    expect(c.input("Ratio").step).toBe("any");
    expect(c.el.querySelector('input[type="range"]')).toBeNull();
    expect(c.el.querySelector('[role="radiogroup"] [role="radio"]').textContent).toBe("Yes"); // the tri-state
  });

  test("one required marker per required field, each description once, never as a placeholder too", () => {
    const c = mountForm();
    expect([...c.el.querySelectorAll(".nbacp-required")].length).toBe(2); // Name, Agree
    expect(c.el.textContent.split("Your full name").length - 1).toBe(1);
    expect(c.input("Name").placeholder).toBe("");
    expect(c.input("Name").getAttribute("aria-describedby")).toBe(c.el.querySelector(".nbacp-field-desc").id);
    expect(c.input("Count").placeholder).toBe("a whole number, 1 to 5");
  });

  test("the same three buttons in the same order, Accept first and primary", () => {
    const c = mountForm();
    const buttons = [...c.el.querySelectorAll(".nbacp-actions button")];
    expect(buttons.map((b) => [b.textContent, b.className])).toEqual([
      ["Accept", "nbacp-btn nbacp-btn-primary"], ["Decline", "nbacp-btn nbacp-btn-default"], ["Cancel", "nbacp-btn nbacp-btn-default"],
    ]);
    const tabbable = [...c.el.querySelectorAll("input, textarea, button")].filter((n) => n.tabIndex >= 0 && !n.disabled);
    expect(tabbable.slice(-3)).toEqual(buttons); // the buttons come last in the Tab order
  });
});

describe("the draft", () => {
  test("typing writes the field's text into the draft; the accept message carries the whole draft", () => {
    const c = mountForm();
    type(c.input("Name"), "Ann");
    type(c.input("Count"), "4");
    c.input("Verbose").click();
    c.el.querySelector('[role="radio"]').click(); // Agree: Yes
    type(c.input("Token"), "s3cr3t");
    expect(c.model.get("draft")).toEqual({ ...DRAFT, name: "Ann", count: "4", verbose: false, agree: true });
    expect(JSON.stringify(c.model.saved)).not.toContain("s3cr3t"); // a secret never enters the synced state
    c.button("Accept").click();
    expect(c.model.sent).toEqual([{ event: "accept", seq: 1,
      draft: { ...DRAFT, name: "Ann", count: "4", verbose: false, agree: true, token: "s3cr3t" } }]);
  });

  test("a second click on the chosen answer of a yes/no clears it", () => {
    const c = mountForm();
    const yes = c.el.querySelector('[role="radio"]');
    yes.click();
    yes.click();
    expect(c.model.get("draft").agree).toBe(null);
  });

  test("input the browser cannot read is sent as such, never as empty", () => {
    const c = mountForm();
    const count = c.input("Count");
    Object.defineProperty(count, "validity", { value: { badInput: true } });
    type(count, "");
    expect(c.model.get("draft").count).toEqual({ bad_input: true });
  });

  test("a date and time goes out with the browser's offset, and comes back in its zone", () => {
    const local = "2024-07-01T12:30";
    const sent = localToRfc3339(local);
    expect(sent).toBe(`2024-07-01T12:30:00${offsetOf(new Date(local))}`);
    expect(rfc3339ToLocal(sent)).toBe(local);
    expect(localToRfc3339("")).toBe("");
    const c = mountForm();
    type(c.input("When"), local);
    expect(c.model.get("draft").when).toBe(sent);
  });

  test("Python's fill reaches the inputs, but never under the person's cursor", () => {
    const c = mountForm();
    c.model.fromPython("draft", { ...DRAFT, name: "From Python", count: "3" });
    expect(c.input("Name").value).toBe("From Python");
    type(c.input("Name"), "Mine");
    c.model.fromPython("draft", { ...DRAFT, name: "Stale" });
    expect(c.input("Name").value).toBe("Mine");
  });
});

describe("keys", () => {
  test("Enter in a field accepts, not in a multi-line box (Ctrl+Enter does); Escape cancels", () => {
    const c = mountForm();
    key(c.input("Notes"), "Enter");
    expect(c.model.sent).toEqual([]);
    key(c.input("Notes"), "Enter", { ctrlKey: true });
    expect(c.model.sent.map((m) => m.event)).toEqual(["accept"]);
    c.model.fromPython("handled", 1);
    key(c.input("Name"), "Escape");
    expect(c.model.sent.map((m) => m.event)).toEqual(["accept", "cancel"]);
  });
});

describe("errors", () => {
  test("an invalid field is marked where it is, and focus goes to the first one", () => {
    const c = mountForm();
    c.button("Accept").click();
    c.model.fromPython("errors", { count: ["Must be at most 5."], agree: ["This field is required."], "": ["Not sent: too large"] });
    c.model.fromPython("handled", 1);
    const count = c.input("Count");
    const field = count.closest(".nbacp-field");
    expect(field.classList.contains("nbacp-invalid")).toBe(true);
    expect(count.getAttribute("aria-invalid")).toBe("true");
    const message = field.querySelector(".nbacp-field-error");
    expect(message.textContent).toBe("Must be at most 5.");
    expect(count.getAttribute("aria-describedby")).toContain(message.id);
    expect(document.activeElement).toBe(count); // Count comes before Agree
    expect(c.el.querySelector(".nbacp-card-errors").textContent).toBe("Not sent: too large");
    expect(c.input("Name").getAttribute("aria-invalid")).toBe(null);
    c.model.fromPython("errors", {});
    expect(count.getAttribute("aria-invalid")).toBe(null);
    expect(message.textContent).toBe("");
  });
});

describe("countdown", () => {
  test("a deadline shows the time left, live", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date(2026, 0, 1, 12, 0, 0));
    const c = mountForm({ deadline_at: Date.now() + 65_000 });
    const timer = c.el.querySelector('[role="timer"]');
    expect(timer.textContent).toBe("Answer within 1:05");
    vi.advanceTimersByTime(60_000);
    expect(timer.textContent).toBe("Answer within 0:05");
    vi.advanceTimersByTime(6_000);
    expect(timer.textContent).toContain("Time is up");
    expect(clock(0)).toBe("0:00");
    c.cleanup();
  });
});

describe("one choice question among fields", () => {
  test("choice rows and plain fields share one draft and one accept", () => {
    const c = mountSpec(formSpec([makeSpec({ multi: true }), FIELDS[0]]), {
      draft: { question_0: [], question_0_custom: "", name: "" },
    });
    [...c.el.querySelectorAll('[role="checkbox"]')][1].click();
    type(c.el.querySelector(".nbacp-cc-other-input"), "Go");
    type(c.el.querySelector("input.nbacp-input"), "Ann");
    key(c.el.querySelector("input.nbacp-input"), "Enter");
    expect(c.model.sent).toEqual([{ event: "accept", seq: 1, draft: { question_0: ["b"], question_0_custom: "Go", name: "Ann" } }]);
  });
});
