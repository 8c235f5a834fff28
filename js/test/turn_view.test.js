// @vitest-environment jsdom
// The turn view (docs/turn-view.md): one model, its nodes from one snapshot and numbered
// patches, agent text as text nodes only, cards drawn by reference in their place.
import { afterEach, expect, test } from "vitest";
import card from "../src/card.js";
import { fakeModel } from "./fake_model.js";

afterEach(() => document.body.replaceChildren());

/** A turn model: the shared fake model, plus what the kernel would send (custom messages, the end). */
function turnModel() {
  const model = fakeModel({ ended: false, code: "anywidget:code" });
  model.kernel = (content) => model.emit("msg:custom", content);
  model.end = () => model.set("ended", true);
  model.listeners = model.listenerCount;
  return model;
}

/** A host whose getWidget draws a stand-in for the card's own view. */
function fakeHost() {
  const asked = [];
  return {
    asked,
    async getModel(ref) {
      return { get: (key) => (key === "_dom_classes" ? ["nbacp-permission-card", "bad name"] : undefined) };
    },
    async getWidget(ref) {
      asked.push(ref);
      return {
        async render({ el }) {
          const drawn = document.createElement("div");
          drawn.className = "nbacp-card";
          drawn.textContent = `card ${ref}`;
          el.append(drawn);
        },
      };
    },
  };
}

function show(model, host = fakeHost()) {
  const el = document.createElement("div");
  document.body.append(el);
  const teardown = card.initialize().renderTurn({ model, el, host });
  return { el, host, teardown };
}

const TREE = [
  ["n", 3, { t: "text", c: ["nbacp-role"], v: "You" }],
  ["n", 4, { t: "html", c: ["nbacp-prompt"], v: [["p", {}, "hi ", ["strong", {}, "there"]]] }],
  ["n", 2, { t: "box", c: ["nbacp-you"], k: [3, 4] }],
  ["n", 1, { t: "box", c: ["nbacp-page"], k: [2] }],
  ["n", 0, { t: "box", c: ["nbacp-pages"], k: [1] }],
];

test("a view asks for the tree once, shows the snapshot, and applies only the patches after it", () => {
  const model = turnModel();
  const { el } = show(model);
  expect(model.sent).toEqual([{ type: "sync" }]);
  model.kernel({ seq: 1, ops: [["v", 3, "early"]] }); // before the snapshot: the snapshot has it
  expect(el.querySelector(".nbacp-role")).toBeNull();
  model.kernel({ seq: 2, snap: TREE });
  expect(el.querySelector(".nbacp-role").textContent).toBe("You");
  expect(el.querySelector(".nbacp-prompt strong").textContent).toBe("there"); // sanitized HTML from the kernel
  model.kernel({ seq: 2, ops: [["v", 3, "stale"]] }); // already in the snapshot
  expect(el.querySelector(".nbacp-role").textContent).toBe("You");
  model.kernel({
    seq: 3,
    ops: [
      ["n", 5, { t: "text", c: ["nbacp-tool-header"], v: "○ Run ls · pending" }],
      ["k", 1, [2, 5]],
    ],
  });
  model.kernel({ seq: 4, ops: [["v", 5, "✓ Run ls · completed"], ["c", 5, ["nbacp-tool-header", "done"]]] });
  const header = el.querySelector(".nbacp-tool-header");
  expect(header.textContent).toBe("✓ Run ls · completed");
  expect(header.classList.contains("done")).toBe(true);
  expect([...el.querySelector(".nbacp-page").children].map((c) => c.className)).toEqual([
    "nbacp-tv-box nbacp-you",
    "nbacp-tv-text nbacp-tool-header done",
  ]);
});

test("agent text is a text node: markup in it stays text, and the view is never typeset", () => {
  const model = turnModel();
  const { el } = show(model);
  const hostile = '<img src=x onerror="alert(1)"> $\\phantom{x}$ \u202etxt';
  model.kernel({
    seq: 1,
    snap: [
      ["n", 1, { t: "text", c: ["nbacp-line"], v: hostile }],
      ["n", 2, { t: "fold", c: ["nbacp-subagent"], T: "<b>title</b>", o: true, k: [] }],
      ["n", 0, { t: "box", k: [1, 2] }],
    ],
  });
  expect(el.querySelector(".nbacp-line").textContent).toBe(hostile);
  expect(el.querySelector("img")).toBeNull();
  expect(el.querySelector("summary").textContent).toBe("<b>title</b>");
  expect(el.querySelector("b")).toBeNull();
  expect(el.querySelector("details").open).toBe(true);
  expect(el.classList.contains("mathjax_ignore") && el.classList.contains("tex2jax_ignore")).toBe(true);
});

test("classes that are not plain names are dropped", () => {
  const model = turnModel();
  const { el } = show(model);
  model.kernel({ seq: 1, snap: [["n", 0, { t: "box", c: ["ok", 'x" onclick="y', "a b"] }]] });
  expect(el.querySelector(".nbacp-tv-box").className).toBe("nbacp-tv-box ok");
});

test("a card is drawn by reference in its place, once per view, and kept across snapshots", async () => {
  const model = turnModel();
  const { el, host } = show(model);
  const tree = [
    ["n", 1, { t: "box", c: ["nbacp-page"], k: [2, "abc123"] }],
    ["n", 2, { t: "text", v: "before the card" }],
    ["n", 0, { t: "box", k: [1] }],
  ];
  // the child's definition comes first in a real snapshot; a box that names an unknown child skips it
  model.kernel({ seq: 1, snap: [tree[1], tree[0], tree[2]] });
  await new Promise((r) => setTimeout(r, 0));
  expect(host.asked).toEqual(["anywidget:abc123"]);
  const page = el.querySelector(".nbacp-page");
  expect([...page.children].map((c) => c.textContent)).toEqual(["before the card", "card anywidget:abc123"]);
  const drawn = el.querySelector(".nbacp-card");
  expect(drawn.parentElement.className).toBe("nbacp-tv-card nbacp-permission-card"); // the card's own classes
  model.kernel({ seq: 2, snap: [tree[1], tree[0], tree[2]] }); // a second view asked: every view gets it
  expect(host.asked).toEqual(["anywidget:abc123"]); // not drawn again: the card's draft and focus stay
  expect(el.querySelector(".nbacp-card")).toBe(drawn);
});

test("an answered card's line takes its place and the view forgets the card's element", async () => {
  const model = turnModel();
  const { el, host } = show(model);
  model.kernel({
    seq: 1,
    snap: [
      ["n", 1, { t: "box", c: ["nbacp-page"], k: ["abc123"] }],
      ["n", 0, { t: "box", k: [1] }],
    ],
  });
  await new Promise((r) => setTimeout(r, 0));
  const page = el.querySelector(".nbacp-page");
  expect(page.textContent).toBe("card anywidget:abc123");
  model.kernel({
    seq: 2,
    ops: [
      ["n", 3, { t: "text", c: ["nbacp-summary"], v: "Accepted: Ada" }],
      ["n", 2, { t: "box", c: ["nbacp-card", "nbacp-kind-form", "nbacp-form", "nbacp-answered"], k: [3] }],
      ["k", 1, [2]],
      ["x", 0, ["abc123"]],
    ],
  });
  expect([...page.children].map((c) => c.className)).toEqual([
    "nbacp-tv-box nbacp-card nbacp-kind-form nbacp-form nbacp-answered",
  ]);
  expect(page.querySelector(".nbacp-kind-form .nbacp-summary").textContent).toBe("Accepted: Ada");
  // a later list naming the card again draws it anew: the old element was forgotten
  model.kernel({ seq: 3, ops: [["k", 1, [2, "abc123"]]] });
  await new Promise((r) => setTimeout(r, 0));
  expect(host.asked).toEqual(["anywidget:abc123", "anywidget:abc123"]);
});

test("once the turn ended the view asks for the record, which takes the live view's place", () => {
  const model = turnModel();
  const { el, teardown } = show(model);
  model.kernel({ seq: 1, snap: TREE });
  expect(el.querySelector(".nbacp-role")).not.toBeNull();
  model.end();
  expect(el.querySelector(".nbacp-role")).toBeNull(); // the live view goes at once
  expect(model.sent).toEqual([{ type: "sync" }, { type: "sync" }]); // the tree, then the record
  model.kernel({ seq: 2, snap: TREE }); // a late patch of the live view changes nothing now
  expect(el.querySelector(".nbacp-role")).toBeNull();
  const RECORD = [["div", { class: "nbacp-record" }, "Stop reason: end_turn"]];
  model.kernel({ type: "record", tree: RECORD });
  expect(el.querySelector(".nbacp-record").textContent).toBe("Stop reason: end_turn");
  teardown();
  expect(model.listeners()).toBe(0);
  const again = show(model); // a view of an ended turn (a reload, a second tab) asks for the record only
  expect(model.sent).toEqual([{ type: "sync" }, { type: "sync" }, { type: "sync" }]);
  expect(again.el.querySelector(".nbacp-tv-live").hidden).toBe(true);
  model.kernel({ type: "record", tree: RECORD });
  expect(again.el.querySelector(".nbacp-record")).not.toBeNull();
});

test("a record message before the end, or one that is not a tree, is not shown", () => {
  const model = turnModel();
  const { el } = show(model);
  model.kernel({ type: "record", tree: [["div", { class: "nbacp-record" }, "too early"]] });
  expect(el.querySelector(".nbacp-record")).toBeNull();
  model.end();
  model.kernel({ type: "record", tree: "<b>markup</b>" });
  expect(el.querySelector("b")).toBeNull();
  expect(el.querySelector(".nbacp-tv-record").textContent).toBe("");
});

test("the bundle's own render draws a turn model as a turn view (anywidget without host: each model carries the bundle)", () => {
  const model = turnModel();
  const el = document.createElement("div");
  card.render({ model, el });
  expect(model.sent).toEqual([{ type: "sync" }]);
  expect(el.classList.contains("nbacp-tv")).toBe(true);
});

test("sanitized HTML is built from its tree: allowed tags and attributes only, text as text", () => {
  const model = turnModel();
  const { el } = show(model);
  const tree = [
    ["p", { onclick: "alert(1)", class: "ok bad\"name" }, "<b>not bold</b> ", ["strong", {}, "bold"]],
    ["script", {}, "alert(2)"],
    ["a", { href: "javascript:alert(3)" }, "bad link"],
    ["a", { href: "https://example.org" }, "good link"],
    ["img", { src: "https://example.org/x.png" }],
    ["ol", { start: "3" }, ["li", {}, "three"]],
  ];
  model.kernel({ seq: 1, snap: [["n", 1, { t: "html", v: tree }], ["n", 0, { t: "box", k: [1] }]] });
  const html = el.querySelector(".nbacp-tv-html");
  const p = html.querySelector("p");
  expect(p.getAttribute("onclick")).toBeNull();
  expect(p.className).toBe("ok");
  expect(p.textContent).toBe("<b>not bold</b> bold");
  expect(html.querySelector("b")).toBeNull();
  expect(html.querySelector("script")).toBeNull();
  expect(html.textContent).toContain("alert(2)"); // a tag that is not allowed leaves its text, as text
  expect(html.querySelector("img")).toBeNull();
  const links = [...html.querySelectorAll("a")];
  expect(links.map((a) => a.getAttribute("href"))).toEqual([null, "https://example.org"]);
  expect(links[1].getAttribute("rel")).toBe("nofollow noopener noreferrer");
  expect(html.querySelector("ol").getAttribute("start")).toBe("3");
  model.kernel({ seq: 2, ops: [["v", 1, ["plain"]]] });
  expect(html.textContent).toBe("plain");
});
