// @vitest-environment jsdom
import { afterEach, describe, expect, test } from "vitest";
import { render } from "../src/base.js";
import "../src/auth_card.js";
import { fakeModel } from "./fake_model.js";

afterEach(() => document.body.replaceChildren());

function mount(over = {}) {
  const spec = {
    kind: "auth",
    header: "Codex needs you to sign in before it can go on",
    message: "The agent answered: Authentication required",
    methods: [
      { id: "api-key", name: "API key", description: "Use OPENAI_API_KEY", vars: [{ name: "OPENAI_API_KEY", optional: false }, { name: "OPENAI_BASE_URL", optional: true }], link: "https://platform.example/keys", usable: true },
      { id: "login", name: "ChatGPT login", description: "Sign in in a terminal", vars: [], usable: false, note: "Terminal sign-in is not supported in the notebook." },
    ],
    actions: [{ event: "cancel", label: "Cancel", hint: "Do not authenticate; the request fails" }],
    ...over,
  };
  const model = fakeModel({ spec, draft: {}, errors: {}, handled: 0, phase: "open", summary: "" });
  const el = document.createElement("div");
  document.body.append(el);
  render({ model, el });
  return { model, el, q: (s) => el.querySelector(s), all: (s) => [...el.querySelectorAll(s)] };
}

describe("auth body", () => {
  test("each method with its description and the variables it reads; never a password box", () => {
    const c = mount();
    expect(c.all(".nbacp-auth-method").map((b) => b.textContent)).toEqual(["API key", "ChatGPT login"]);
    expect(c.all(".nbacp-auth-vars code").map((n) => n.textContent)).toEqual(["OPENAI_API_KEY", "OPENAI_BASE_URL"]);
    expect(c.q(".nbacp-auth-vars").textContent).toContain("OPENAI_BASE_URL (optional)");
    expect(c.q(".nbacp-auth-description").textContent).toBe("Use OPENAI_API_KEY");
    expect(c.el.querySelector("input")).toBeNull();
  });

  test("a method's click sends its id; an unusable method is disabled and sends nothing", () => {
    const c = mount();
    const [key, login] = c.all(".nbacp-auth-method");
    expect(login.disabled).toBe(true);
    login.click();
    expect(c.model.sent).toEqual([]);
    key.click();
    expect(c.model.sent).toEqual([{ method_id: "api-key", event: "authenticate", seq: 1 }]);
  });

  test("Cancel is the card's button and Escape", () => {
    const c = mount();
    c.q('.nbacp-actions button[data-event="cancel"]').click();
    expect(c.model.sent).toEqual([{ event: "cancel", seq: 1 }]);
  });

  test("no methods: says so", () => {
    const c = mount({ methods: [] });
    expect(c.el.textContent).toContain("offered no authentication methods");
  });
});
