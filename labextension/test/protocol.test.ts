// The page's rules (src/protocol.ts) on a real shared notebook model (@jupyter/ydoc's YNotebook,
// the class JupyterLab's notebook model holds): edits by id, stale and missing targets, one undo
// step per edit, bounded reads, checked requests.
import { YNotebook } from '@jupyter/ydoc';
import { describe, expect, it } from 'vitest';
import { LIMITS, applyEdit, parseEdit, readCells, type IEdit } from '../src/protocol';

function notebook(): YNotebook {
  const nb = YNotebook.create({ disableDocumentWideUndoRedo: false });
  nb.insertCells(0, [
    { id: 'p', cell_type: 'code', source: 'await session.prompt("add")' },
    { id: 'b', cell_type: 'markdown', source: '# notes' }
  ]);
  nb.undoManager.clear();
  return nb;
}

function edit(fields: Partial<IEdit>): IEdit {
  return { mode: 'insert', cell_id: 'p', source: 'x = 1', cell_type: 'code', expected_source: null, run: false,
    prompt_cell_id: 'p', ...fields };
}

const sources = (nb: YNotebook): string[] => nb.cells.map(c => c.getSource());

describe('applyEdit', () => {
  it('inserts after a cell, replaces and deletes by id, reading each back', () => {
    const nb = notebook();
    const inserted = applyEdit(nb, edit({}));
    expect(inserted.outcome).toBe('applied');
    expect(nb.cells[1].id).toBe(inserted.cell_id);
    expect(applyEdit(nb, edit({ mode: 'insert', cell_id: null, source: 'top' })).outcome).toBe('applied');
    expect(applyEdit(nb, edit({ mode: 'replace', cell_id: 'b', source: '## notes', cell_type: 'markdown',
      expected_source: '# notes' }))).toEqual({ outcome: 'applied', cell_id: 'b', source: '## notes', reason: '' });
    expect(sources(nb)).toEqual(['top', 'await session.prompt("add")', 'x = 1', '## notes']);
    expect(applyEdit(nb, edit({ mode: 'delete', cell_id: 'b' })).outcome).toBe('applied');
    expect(nb.cells.map(c => c.id)).not.toContain('b');
  });

  it('replaces a cell by one of another type, keeping its id and place', () => {
    const nb = notebook();
    const result = applyEdit(nb, edit({ mode: 'replace', cell_id: 'b', source: 'y = 2', cell_type: 'code' }));
    expect(result).toEqual({ outcome: 'applied', cell_id: 'b', source: 'y = 2', reason: '' });
    expect(nb.cells[1].cell_type).toBe('code');
    expect(nb.cells[1].id).toBe('b');
  });

  it('changes nothing for a stale or missing target', () => {
    const nb = notebook();
    const stale = applyEdit(nb, edit({ mode: 'replace', cell_id: 'b', source: 'z', expected_source: '# old' }));
    expect(stale.outcome).toBe('stale');
    const missing = applyEdit(nb, edit({ mode: 'delete', cell_id: 'gone' }));
    expect(missing.outcome).toBe('not_applied');
    expect(sources(nb)).toEqual(['await session.prompt("add")', '# notes']);
    expect(nb.undoManager.undoStack.length).toBe(0);
  });

  it('makes each edit its own undo step', () => {
    const nb = notebook();
    applyEdit(nb, edit({}));
    applyEdit(nb, edit({ mode: 'replace', cell_id: 'b', source: 'changed', cell_type: 'markdown' }));
    nb.undo();
    expect(sources(nb)).toEqual(['await session.prompt("add")', 'x = 1', '# notes']);
    nb.undo();
    expect(sources(nb)).toEqual(['await session.prompt("add")', '# notes']);
  });
});

describe('parseEdit and readCells', () => {
  it('refuses malformed requests with a reason', () => {
    const good = { mode: 'insert', cell_id: 'p', source: 'x', cell_type: 'code', expected_source: null, run: false,
      prompt_cell_id: 'p' };
    expect(typeof parseEdit(good)).toBe('object');
    expect(parseEdit({ ...good, mode: 'move' })).toMatch(/unknown edit mode/);
    expect(parseEdit({ ...good, cell_type: 'html' })).toMatch(/unknown cell type/);
    expect(parseEdit({ ...good, source: 'x'.repeat(LIMITS.source + 1) })).toMatch(/at most/);
    expect(parseEdit({ ...good, cell_id: 'x'.repeat(LIMITS.id + 1) })).toMatch(/cell id/);
    expect(parseEdit({ ...good, run: 'yes' })).toMatch(/boolean/);
    expect(parseEdit({ ...good, mode: 'replace', cell_id: null })).toMatch(/needs a cell id/);
    expect(parseEdit({ ...good, mode: 'delete' })).toMatch(/prompt cell/);
  });

  it('reads every cell with a bounded plain-text outputs summary', () => {
    const nb = notebook();
    nb.insertCell(2, { cell_type: 'code', source: 'print(1)', execution_count: 3, outputs: [
      { output_type: 'stream', name: 'stdout', text: 'y'.repeat(LIMITS.outputs + 50) },
      { output_type: 'display_data', data: { 'text/html': '<b>x</b>' }, metadata: {} }
    ] });
    const cells = readCells(nb);
    expect(Array.isArray(cells)).toBe(true);
    const last = (cells as Exclude<typeof cells, string>)[2];
    expect(last.execution_count).toBe(3);
    expect(last.outputs.length).toBeLessThan(LIMITS.outputs + 40);
    expect(last.outputs).not.toContain('<b>');
  });
});
