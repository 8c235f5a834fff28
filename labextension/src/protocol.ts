/**
 * The page's half of the `nbacp:notebook` comm (docs/notebook-edits.md): reading the notebook
 * and applying one accepted edit to its shared model. Pure functions over `ISharedNotebook`, so
 * the rules (validation, stale check, read back) live apart from the JupyterLab wiring.
 */
import type { ISharedCell, ISharedNotebook } from '@jupyter/ydoc';

/** Limits on what crosses the comm; the kernel side (nbacp/kernel/notebook_link.py) holds the same. */
export const LIMITS = {
  id: 128,
  source: 200_000,
  outputs: 2_000,
  cells: 5_000,
  readChars: 4_000_000
} as const;

const CELL_TYPES = ['code', 'markdown', 'raw'] as const;
const MODES = ['insert', 'replace', 'delete'] as const;
type CellType = (typeof CELL_TYPES)[number];
type Mode = (typeof MODES)[number];

export interface IReadCell {
  id: string;
  cell_type: CellType;
  source: string;
  execution_count: number | null;
  outputs: string;
}

export interface IEdit {
  mode: Mode;
  cell_id: string | null;
  source: string;
  cell_type: CellType;
  expected_source: string | null;
  run: boolean;
  prompt_cell_id: string | null;
}

export interface IEditResult {
  outcome: 'applied' | 'stale' | 'not_applied';
  cell_id: string | null;
  source: string | null;
  reason: string;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= LIMITS.id;
}

/** An edit request checked field by field; a string says what is wrong with it. */
export function parseEdit(data: Record<string, unknown>): IEdit | string {
  const { mode, cell_id, source, cell_type, expected_source, run, prompt_cell_id } = data;
  if (!MODES.includes(mode as Mode)) {
    return `unknown edit mode ${JSON.stringify(String(mode)).slice(0, 40)}`;
  }
  if (!CELL_TYPES.includes(cell_type as CellType)) {
    return `unknown cell type ${JSON.stringify(String(cell_type)).slice(0, 40)}`;
  }
  if (cell_id !== null && !isId(cell_id)) {
    return 'the cell id is not a short string';
  }
  if (prompt_cell_id !== null && !isId(prompt_cell_id)) {
    return 'the prompt cell id is not a short string';
  }
  if (typeof source !== 'string' || source.length > LIMITS.source) {
    return `the source is not a string of at most ${LIMITS.source} characters`;
  }
  if (expected_source !== null && (typeof expected_source !== 'string' || expected_source.length > LIMITS.source)) {
    return 'the expected source is not a string of bounded length';
  }
  if (typeof run !== 'boolean') {
    return 'run is not a boolean';
  }
  if (mode !== 'insert' && cell_id === null) {
    return `a ${mode} needs a cell id`;
  }
  if (mode === 'delete' && cell_id !== null && cell_id === prompt_cell_id) {
    return 'the prompt cell itself cannot be deleted';
  }
  return {
    mode: mode as Mode,
    cell_id: cell_id as string | null,
    source,
    cell_type: cell_type as CellType,
    expected_source: expected_source as string | null,
    run,
    prompt_cell_id: prompt_cell_id as string | null
  };
}

function indexOf(notebook: ISharedNotebook, id: string): number {
  return notebook.cells.findIndex(cell => cell.id === id);
}

/** Whether this notebook holds the cell `id`. */
export function holds(notebook: ISharedNotebook, id: string | null): boolean {
  return id !== null && indexOf(notebook, id) >= 0;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return Array.isArray(value) ? value.filter(v => typeof v === 'string').join('') : '';
}

/** A bounded plain-text summary of a cell's outputs: streams, text/plain, errors; never HTML. */
export function summariseOutputs(cell: ISharedCell): string {
  if (cell.cell_type !== 'code') {
    return '';
  }
  const parts: string[] = [];
  for (const output of (cell as unknown as { getOutputs(): Record<string, unknown>[] }).getOutputs()) {
    const kind = output.output_type;
    if (kind === 'stream') {
      parts.push(textOf(output.text));
    } else if (kind === 'error') {
      parts.push(`${textOf(output.ename)}: ${textOf(output.evalue)}`);
    } else if (kind === 'execute_result' || kind === 'display_data') {
      const data = (output.data ?? {}) as Record<string, unknown>;
      const plain = textOf(data['text/plain']);
      const others = Object.keys(data).filter(k => k !== 'text/plain');
      parts.push(plain || (others.length ? `[${others.join(', ')}]` : ''));
    }
  }
  const text = parts.filter(p => p).join('\n');
  return text.length > LIMITS.outputs ? `${text.slice(0, LIMITS.outputs)}… (${text.length} characters)` : text;
}

function readCell(cell: ISharedCell): IReadCell {
  const count = cell.cell_type === 'code' ? (cell as unknown as { execution_count: unknown }).execution_count : null;
  return {
    id: cell.id,
    cell_type: cell.cell_type as CellType,
    source: cell.getSource(),
    execution_count: typeof count === 'number' ? count : null,
    outputs: summariseOutputs(cell)
  };
}

/** Every cell, in order, or a string saying why the notebook is too large to send. */
export function readCells(notebook: ISharedNotebook): IReadCell[] | string {
  if (notebook.cells.length > LIMITS.cells) {
    return `the notebook has ${notebook.cells.length} cells (more than ${LIMITS.cells})`;
  }
  const cells = notebook.cells.map(readCell);
  const size = cells.reduce((n, c) => n + c.source.length + c.outputs.length, 0);
  return size > LIMITS.readChars ? `the notebook holds ${size} characters (more than ${LIMITS.readChars})` : cells;
}

/**
 * Apply `edit` in one undoable transaction of the notebook's own model, then read it back.
 * Stale (the target's source is not what the agent read) and missing targets change nothing.
 * The transaction is its own undo step: captures before and after it are closed.
 */
export function applyEdit(notebook: ISharedNotebook, edit: IEdit): IEditResult {
  const notApplied = (reason: string): IEditResult => ({ outcome: 'not_applied', cell_id: null, source: null, reason });
  const target = edit.cell_id === null ? -1 : indexOf(notebook, edit.cell_id);
  if (edit.cell_id !== null && target < 0) {
    return notApplied(`no cell with id ${edit.cell_id} in the notebook`);
  }
  if (target >= 0 && edit.expected_source !== null) {
    const now = notebook.cells[target].getSource();
    if (now !== edit.expected_source) {
      return {
        outcome: 'stale',
        cell_id: null,
        source: null,
        reason: `cell ${edit.cell_id} changed since it was read: nothing applied`
      };
    }
  }
  let resultId: string | null = null;
  const undo = (notebook as unknown as { undoManager?: { stopCapturing(): void } }).undoManager;
  undo?.stopCapturing();
  notebook.transact(() => {
    if (edit.mode === 'insert') {
      resultId = notebook.insertCell(target + 1, { cell_type: edit.cell_type, source: edit.source }).id;
    } else if (edit.mode === 'delete') {
      notebook.deleteCell(target);
    } else if (notebook.cells[target].cell_type === edit.cell_type) {
      notebook.cells[target].setSource(edit.source);
      resultId = edit.cell_id;
    } else {
      // Another type is another cell object: the same id, in the same place.
      const id = edit.cell_id as string;
      notebook.deleteCell(target);
      resultId = notebook.insertCell(target, { id, cell_type: edit.cell_type, source: edit.source }).id;
    }
  });
  undo?.stopCapturing();
  if (edit.mode === 'delete') {
    return holds(notebook, edit.cell_id)
      ? notApplied(`cell ${edit.cell_id} is still in the notebook after the delete`)
      : { outcome: 'applied', cell_id: null, source: null, reason: '' };
  }
  const at = resultId === null ? -1 : indexOf(notebook, resultId);
  if (at < 0) {
    return notApplied('the cell was not found in the notebook after the edit');
  }
  const source = notebook.cells[at].getSource();
  return { outcome: 'applied', cell_id: resultId, source, reason: '' };
}
