"""The page-side helper every card carries (through the shared CardStyle model): keyboard focus.

When a card is answered its controls close, so the button that answered it leaves the page
and the browser drops the focus to ``<body>``: JupyterLab's notebook then ignores Shift+Enter
until the person clicks a cell. This module's ESM (installed once per page) remembers which
cell was active when the pointer first went down inside a card (JupyterLab makes the card's
own cell active on that click) and, once the answering control is gone while nothing else has
the focus, makes that cell active again and gives the notebook the focus (command mode): the
next Shift+Enter runs the cell the person was heading to.
"""

from __future__ import annotations

FOCUS_ESM = """
function install() {
  if (window.__nbacpFocusKeeper) return;
  window.__nbacpFocusKeeper = true;
  let before = null;
  document.addEventListener("pointerdown", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target || !target.closest(".nbacp-card")) return;
    const notebook = target.closest(".jp-Notebook");
    const active = notebook ? notebook.querySelector(".jp-Cell.jp-mod-active") : null;
    // the first click into a card made its own cell active: later clicks keep the earlier cell
    if (active && active !== target.closest(".jp-Cell")) before = active;
  }, true);
  const watch = (origin) => {
    const notebook = origin.closest(".jp-Notebook");
    if (!notebook) return;
    const cell = before;
    const started = Date.now();
    const check = () => {
      if (origin.isConnected) {
        if (Date.now() - started < 10000) setTimeout(check, 50);
        return;
      }
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected) return;
      if (!notebook.isConnected) return;
      if (cell && cell.isConnected && !cell.classList.contains("jp-mod-active")) {
        cell.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, cancelable: true, button: 0 }));
        document.dispatchEvent(new MouseEvent("mouseup", { bubbles: true, button: 0 }));
      }
      notebook.focus();
    };
    setTimeout(check, 50);
  };
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const control = target && target.closest(".nbacp-card button, .nbacp-card a");
    if (control) watch(control);
  }, true);
  document.addEventListener("keydown", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (target && target.closest(".nbacp-card") && (event.key === "Enter" || event.key === "Escape")) watch(target);
  }, true);
}
export default { initialize() { install(); }, render() { install(); } };
"""
