// nbacp choice card: one question's options plus an optional "Other" text box, bound to a
// single synced `answer` trait ({picked, custom}) so a pick and typed text can never race.
// anywidget ESM entry point: default export {initialize, render}.
import { h } from "./dom.js";
import * as S from "./state.js";
import { CSS } from "./styles.js";
import { applyFilter, buildView, paint } from "./view.js";

function readSpec(model) {
  const spec = model.get("spec");
  return spec && typeof spec === "object" ? spec : {};
}

/** Wire one built view to the model; returns a teardown function. */
function mount(model, el) {
  const spec = readSpec(model);
  const root = h("div");
  const view = buildView(spec, root);
  el.replaceChildren(h("style", { text: CSS }), root);

  let active = 0; // roving tabindex: the one row reachable by Tab
  let touched = false; // the person moved focus: keep their row instead of following picks
  const answer = () => S.normalizeAnswer(model.get("answer"));
  const disabled = () => Boolean(model.get("disabled"));
  const visible = () => view.rows.filter((r) => !r.node.hidden);

  const write = (next) => {
    if (disabled()) return;
    model.set("answer", next);
    model.save_changes();
  };
  const send = (event) => {
    if (!disabled()) model.send({ event });
  };

  const setActive = (row, focus) => {
    const i = view.rows.indexOf(row);
    if (i < 0) return;
    active = i;
    if (focus) {
      touched = true;
      row.node.focus();
    }
    syncTabindex();
  };
  const syncTabindex = () => {
    const shown = visible();
    const off = disabled();
    if (!touched) {
      const a = answer();
      const picked = shown.find((r) => a.picked.includes(r.option.value));
      if (picked) active = view.rows.indexOf(picked);
    }
    if (!shown.includes(view.rows[active]) && shown.length) active = view.rows.indexOf(shown[0]);
    for (const [i, r] of view.rows.entries()) r.node.tabIndex = !off && i === active && !r.node.hidden ? 0 : -1;
  };

  const update = () => {
    const a = answer();
    const errors = (model.get("errors") || []).filter((m) => typeof m === "string");
    const off = disabled();
    root.setAttribute("aria-disabled", off ? "true" : "false");
    paint(view, a, errors, off);
    if (view.filter) applyFilter(view, view.filter.value, a);
    syncTabindex();
  };

  const move = (row, key) => {
    const shown = visible();
    const i = shown.indexOf(row);
    if (!shown.length) return;
    let j = i;
    if (key === "ArrowDown" || key === "ArrowRight") j = (i + 1) % shown.length;
    else if (key === "ArrowUp" || key === "ArrowLeft") j = (i - 1 + shown.length) % shown.length;
    else if (key === "Home") j = 0;
    else if (key === "End") j = shown.length - 1;
    setActive(shown[j], true);
    // A single-select is a radio group: arrows check the row they move to (WAI-ARIA radio
    // pattern); Home/End only move. A multi-select's arrows only move (Space toggles).
    if (!spec.multi && key.startsWith("Arrow")) write(S.toggled(spec, answer(), shown[j].option.value));
  };

  const pick = (row) => write(S.toggled(spec, answer(), row.option.value));

  for (const row of view.rows) {
    row.node.addEventListener("click", () => {
      if (disabled()) return;
      setActive(row, true);
      pick(row);
    });
  }

  root.addEventListener("keydown", (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const row = view.rows.find((r) => r.node === target);
    const inFilter = view.filter && target === view.filter;
    const inOther = view.other && target === view.other.input;
    if (!row && !inFilter && !inOther) return;
    let handled = true;
    if (disabled()) {
      handled = false;
    } else if (row && ["ArrowDown", "ArrowRight", "ArrowUp", "ArrowLeft", "Home", "End"].includes(event.key)) {
      move(row, event.key);
    } else if (row && event.key === " ") {
      pick(row);
    } else if (inFilter && (event.key === "ArrowDown" || event.key === "Enter")) {
      // Enter in the filter jumps to the matches instead of sending a half-made answer.
      const first = visible()[0];
      if (first) setActive(first, true);
    } else if (inFilter && event.key === "Escape" && view.filter.value !== "") {
      view.filter.value = "";
      applyFilter(view, "", answer());
      syncTabindex();
    } else if (event.key === "Enter" && !event.shiftKey) {
      send("submit");
    } else if (event.key === "Escape") {
      send("cancel");
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  });

  if (view.filter) {
    view.filter.addEventListener("input", () => {
      applyFilter(view, view.filter.value, answer());
      syncTabindex();
    });
  }
  if (view.other) {
    const input = view.other.input;
    input.addEventListener("input", () => write(S.typed(answer(), input.value)));
  }

  update();
  const events = ["change:answer", "change:errors", "change:disabled"];
  for (const e of events) model.on(e, update);
  return () => {
    for (const e of events) model.off(e, update);
  };
}

function render({ model, el }) {
  let teardown = mount(model, el);
  const rebuild = () => {
    teardown();
    teardown = mount(model, el);
  };
  model.on("change:spec", rebuild);
  return () => {
    model.off("change:spec", rebuild);
    teardown();
  };
}

// As a shared module (nbacp's ChoiceCardCode, sent once per kernel) `initialize` hands
// `render` to every card through anywidget's host API; `render` also works directly.
export default {
  initialize() {
    return { render };
  },
  render,
};
