// @vitest-environment jsdom
// Two views of one card (a second tab, a reloaded page): one model, so one draft, one `handled`
// and one answer (docs/cards.md, 'Two views of one card').
import { afterEach, expect, test } from "vitest";
import card from "../src/card.js";
import { formSpec, type } from "./helpers.js";
import { fakeModel } from "./fake_model.js";

afterEach(() => document.body.replaceChildren());

const FIELDS = [{ name: "name", kind: "text", title: "Name", description: null, required: true }];

function view(model) {
  const el = document.createElement("div");
  document.body.append(el);
  card.render({ model, el });
  const button = (label) => [...el.querySelectorAll("button.nbacp-btn")].find((b) => b.textContent === label);
  return { el, button, input: () => el.querySelector("input") };
}

test("a view's action never takes another view's handled action for its own reply", () => {
  const model = fakeModel({ spec: formSpec(FIELDS), draft: { name: "" } });
  const first = view(model);
  const second = view(model);
  first.button("Accept").click(); // refused by the kernel (the name is required)
  model.fromPython("errors", { name: ["This field is required."] });
  model.fromPython("handled", 1);
  type(second.input(), "Ada");
  second.button("Accept").click();
  expect(model.sent.map((m) => m.seq)).toEqual([1, 2]);
  expect(model.sent[1].draft).toEqual({ name: "Ada" });
  // frozen until the kernel handled ITS message: no edit after the click can differ from what was sent
  expect(second.el.querySelector(".nbacp-card").getAttribute("aria-busy")).toBe("true");
  expect(second.input().disabled).toBe(true);
  model.fromPython("handled", 2);
  expect(second.el.querySelector(".nbacp-card").getAttribute("aria-busy")).toBe("false");
  first.button("Decline").click(); // and the first view counts on from there
  expect(model.sent.map((m) => m.seq)).toEqual([1, 2, 3]);
});

test("an edit in one view shows in the other; the answer shows in both", () => {
  const model = fakeModel({ spec: formSpec(FIELDS), draft: { name: "" } });
  const first = view(model);
  const second = view(model);
  type(first.input(), "Ada");
  expect(second.input().value).toBe("Ada");
  model.fromPython("summary", "Accepted: Name = Ada");
  model.fromPython("phase", "answered");
  for (const v of [first, second]) {
    expect(v.el.querySelector(".nbacp-summary").textContent).toBe("Accepted: Name = Ada");
    expect(v.button("Accept")).toBeUndefined();
  }
});
