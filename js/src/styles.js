// A constant stylesheet (no agent data ever reaches it). JupyterLab theme variables with
// fallbacks keep the card readable in light and dark themes and outside JupyterLab.
export const CSS = `
.nbacp-cc {
  font-family: var(--jp-ui-font-family, system-ui, sans-serif);
  font-size: var(--jp-ui-font-size1, 13px);
  color: var(--jp-ui-font-color1, inherit);
  background: var(--jp-layout-color1, transparent);
  border: 1px solid var(--jp-border-color2, rgba(128,128,128,.4));
  border-radius: 4px;
  padding: 8px 10px;
  max-width: 720px;
  box-sizing: border-box;
}
.nbacp-cc-title { font-weight: 600; margin: 0 0 2px 0; font-size: var(--jp-ui-font-size2, 14px); }
.nbacp-cc-required { color: var(--jp-error-color1, #c62828); margin-left: 2px; }
.nbacp-cc-desc, .nbacp-cc-hint, .nbacp-cc-status {
  color: var(--jp-ui-font-color2, inherit); opacity: .9; margin: 0 0 4px 0; white-space: pre-wrap;
}
.nbacp-cc-hint, .nbacp-cc-status { font-size: var(--jp-ui-font-size0, 11px); }
.nbacp-cc-filter, .nbacp-cc-other-input {
  width: 100%; box-sizing: border-box; padding: 4px 6px; margin: 2px 0 6px 0;
  color: var(--jp-ui-font-color1, inherit);
  background: var(--jp-input-background, var(--jp-layout-color1, transparent));
  border: 1px solid var(--jp-border-color1, rgba(128,128,128,.6)); border-radius: 3px;
  font: inherit;
}
.nbacp-cc-list { display: flex; flex-direction: column; gap: 2px; }
.nbacp-cc-list.nbacp-cc-scroll { max-height: 320px; overflow-y: auto; padding-right: 2px; }
.nbacp-cc-row {
  display: flex; gap: 8px; align-items: flex-start; padding: 4px 6px; border-radius: 3px;
  cursor: pointer; border: 1px solid transparent; outline: none;
}
.nbacp-cc-row:hover { background: var(--jp-layout-color2, rgba(128,128,128,.12)); }
.nbacp-cc-row:focus-visible, .nbacp-cc-row:focus {
  border-color: var(--jp-brand-color1, #1976d2);
  box-shadow: 0 0 0 1px var(--jp-brand-color1, #1976d2);
}
.nbacp-cc-row[aria-checked="true"] { background: var(--jp-layout-color2, rgba(25,118,210,.10)); }
.nbacp-cc-row[hidden] { display: none; }
.nbacp-cc-mark {
  flex: none; width: 14px; height: 14px; margin-top: 2px; box-sizing: border-box;
  border: 2px solid var(--jp-ui-font-color2, #777); background: transparent;
}
.nbacp-cc-radio .nbacp-cc-mark { border-radius: 50%; }
.nbacp-cc-check .nbacp-cc-mark { border-radius: 2px; }
.nbacp-cc-row[aria-checked="true"] .nbacp-cc-mark {
  border-color: var(--jp-brand-color1, #1976d2);
  background: var(--jp-brand-color1, #1976d2);
  box-shadow: inset 0 0 0 2px var(--jp-layout-color1, #fff);
}
.nbacp-cc-body { flex: 1; min-width: 0; }
.nbacp-cc-label { font-weight: 500; overflow-wrap: anywhere; }
.nbacp-cc-badge {
  display: inline-block; margin-left: 6px; padding: 0 5px; border-radius: 8px;
  font-size: var(--jp-ui-font-size0, 11px); vertical-align: 1px;
  color: var(--jp-ui-inverse-font-color1, #fff); background: var(--jp-success-color1, #2e7d32);
}
.nbacp-cc-opt-desc { color: var(--jp-ui-font-color2, inherit); white-space: pre-wrap; overflow-wrap: anywhere; }
.nbacp-cc-preview {
  margin: 4px 0 0 0; padding: 4px 6px; max-height: 160px; overflow: auto; white-space: pre;
  font-family: var(--jp-code-font-family, monospace); font-size: var(--jp-code-font-size, 12px);
  background: var(--jp-cell-editor-background, rgba(128,128,128,.08));
  border: 1px solid var(--jp-border-color2, rgba(128,128,128,.3)); border-radius: 3px;
}
.nbacp-cc-row.nbacp-cc-overridden .nbacp-cc-label { text-decoration: line-through; }
.nbacp-cc-row.nbacp-cc-overridden .nbacp-cc-body, .nbacp-cc-row.nbacp-cc-overridden .nbacp-cc-mark { opacity: .55; }
.nbacp-cc-note { font-size: var(--jp-ui-font-size0, 11px); font-style: italic; color: var(--jp-warn-color1, #b26a00); }
.nbacp-cc-other { margin-top: 6px; }
.nbacp-cc-other-label { display: block; font-weight: 500; margin-bottom: 2px; }
.nbacp-cc-errors { color: var(--jp-error-color1, #c62828); margin: 4px 0 0 0; padding-left: 18px; }
.nbacp-cc-errors:empty { display: none; }
.nbacp-cc[aria-disabled="true"] { opacity: .75; }
.nbacp-cc[aria-disabled="true"] .nbacp-cc-row { cursor: default; }
.nbacp-cc[aria-disabled="true"] .nbacp-cc-row:hover { background: transparent; }
.nbacp-cc[aria-disabled="true"] .nbacp-cc-row[aria-checked="true"] { background: var(--jp-layout-color2, rgba(25,118,210,.10)); }
`;
