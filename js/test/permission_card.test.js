// @vitest-environment jsdom
import { afterEach, describe, expect, test } from "vitest";
import { render } from "../src/base.js";
import { diffSize, permissionBody } from "../src/permission_card.js";
import { fakeModel } from "./fake_model.js";

afterEach(() => document.body.replaceChildren());

const XSS = "<img src=x onerror=alert(1)>";

function spec(over = {}) {
  return {
    kind: "permission",
    header: "coder asks to run a command",
    title: "pytest -q",
    command: { text: "pytest -q tests/", cwd: "/repo" },
    locations: ["src/app.py:2"],
    diffs: [
      { path: "src/app.py", new_file: false, added: 1, removed: 1, more: 0,
        lines: [["@", "@@ -1,2 +1,2 @@"], [" ", "a = 1"], ["-", "b = 2"], ["+", "b = 3"]] },
    ],
    content: [{ kind: "text", text: "Print two lines" }, { kind: "note", text: "Terminal: t-1" }],
    args: [{ key: "command", value: "pytest -q tests/", full: null }, { key: "env", value: "one…", full: "one\ntwo" }],
    args_more: 2,
    raw_json: '{\n  "command": "pytest -q tests/"\n}',
    details: [["id", "call-7"], ["status", "pending"], ["kind", "execute"]],
    actions: [
      { event: "option", data: { option_id: "allow" }, label: "Allow once", style: "allow", hint: "Allow this time" },
      { event: "option", data: { option_id: "reject" }, label: "Reject", style: "reject", hint: "Reject this time" },
    ],
    ...over,
  };
}

function mount(s) {
  const model = fakeModel({ spec: s, draft: {}, errors: {}, handled: 0, phase: "open", summary: "" });
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = render({ model, el });
  return { model, el, cleanup, q: (sel) => el.querySelector(sel), all: (sel) => [...el.querySelectorAll(sel)] };
}

describe("permission body", () => {
  test("the command is code, with its directory", () => {
    const c = mount(spec());
    expect(c.q("pre.nbacp-perm-command code").textContent).toBe("pytest -q tests/");
    expect(c.q(".nbacp-perm-cwd code").textContent).toBe("/repo");
    expect(c.q(".nbacp-perm-title").textContent).toBe("pytest -q");
  });

  test("a diff is one element per line, coloured by its tag, with its size", () => {
    const c = mount(spec());
    const lines = c.all(".nbacp-diff-line");
    expect(lines.map((l) => l.className.split(" ")[1])).toEqual(["nbacp-diff-hunk", "nbacp-diff-ctx", "nbacp-diff-del", "nbacp-diff-add"]);
    expect(lines.map((l) => l.querySelector(".nbacp-diff-text").textContent)).toEqual(["@@ -1,2 +1,2 @@", "a = 1", "b = 2", "b = 3"]);
    expect(c.q(".nbacp-diff-size").textContent).toBe("+1 \u22121");
    expect(c.q(".nbacp-diff-path").textContent).toBe("src/app.py");
    expect(diffSize({ added: 12, removed: 0 })).toBe("+12 \u22120");
  });

  test("a bounded diff says how many lines are left out; a new file is badged", () => {
    const body = permissionBody(spec({ diffs: [{ path: "n.txt", new_file: true, added: 900, removed: 0, more: 500, lines: [["+", "x"]] }] }));
    expect(body.querySelector(".nbacp-diff-more").textContent).toBe("… 500 more lines");
    expect(body.querySelector(".nbacp-badge").textContent).toBe("new file");
  });

  test("arguments are a table, long values folded, raw JSON and ids one click away", () => {
    const c = mount(spec());
    const rows = c.all("table.nbacp-args tbody tr");
    expect(rows.map((r) => r.querySelector("th")?.textContent ?? null)).toEqual(["command", "env", null]);
    const folded = rows[1].querySelector("details");
    expect(folded.open).toBe(false);
    expect(folded.querySelector("summary").textContent).toBe("one…");
    expect(folded.querySelector("pre").textContent).toBe("one\ntwo");
    expect(rows[2].textContent).toBe("… 2 more arguments");
    const raw = c.q("details.nbacp-raw");
    expect(raw.open).toBe(false);
    expect(raw.querySelector("pre").textContent).toContain('"command"');
    const facts = c.q("details.nbacp-perm-details");
    expect(facts.open).toBe(false);
    expect([...facts.querySelectorAll("dt")].map((d) => d.textContent)).toEqual(["id", "status", "kind"]);
    // nothing about ids or status outside the fold
    const outside = [...c.el.querySelectorAll(".nbacp-perm > :not(details)")].map((n) => n.textContent).join(" ");
    expect(outside).not.toContain("call-7");
  });

  test("the options are the card's buttons; a click sends the option id with a seq", () => {
    const c = mount(spec());
    const buttons = c.all(".nbacp-actions button");
    expect(buttons.map((b) => b.textContent)).toEqual(["Allow once", "Reject"]);
    expect(buttons.map((b) => b.title)).toEqual(["Allow this time", "Reject this time"]);
    expect(buttons[0].classList.contains("nbacp-btn-allow")).toBe(true);
    buttons[1].click();
    expect(c.model.sent).toEqual([{ option_id: "reject", event: "option", seq: 1 }]);
  });

  test("agent text is only ever text", () => {
    const c = mount(spec({
      title: XSS, command: { text: XSS, cwd: XSS }, locations: [XSS],
      diffs: [{ path: XSS, new_file: false, added: 1, removed: 0, more: 0, lines: [["+", XSS]] }],
      content: [{ kind: "text", text: XSS }], args: [{ key: XSS, value: XSS, full: XSS }], raw_json: XSS,
      details: [["id", XSS]], actions: [{ event: "option", data: { option_id: "o" }, label: XSS }],
    }));
    expect(c.el.querySelector("img")).toBeNull();
    expect(c.el.textContent).toContain(XSS);
  });

  test("a spec with only a title still renders", () => {
    const body = permissionBody({ kind: "permission", title: "t" });
    expect(body.textContent).toBe("t");
  });
});
