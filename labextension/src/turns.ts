/**
 * A page that arrives while a turn runs gets it back (docs/reload.md, 'A reload without saving').
 *
 * A page reloaded without saving read the notebook from disk, without the running cell's
 * outputs, and JupyterLab sends the running cell's outputs only to the page that started it.
 * So on every kernel connection of every notebook, once its document is loaded, this page opens
 * a comm to the kernel's `nbacp:turns` target and says `hello` with its cell ids; the kernel
 * answers `show_turn` for each running turn in one of them, and the cell gets the turn's live
 * view (the widget model the kernel holds: the pending cards, their drafts, every later change).
 * At the turn's end the kernel's `end_turn` replaces that view with the record, so what this page
 * saves is static. A kernel without nbacp's turns closes the comm, and nothing changes.
 *
 * Outputs change through the cell's output model, as kernel outputs do (kept in step with the
 * shared model, outside the undo history). Every kernel message is checked (src/turnsProtocol.ts).
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';
import {
  helloMessage,
  outputsToEnd,
  outputsToShow,
  parseTurnMessage,
  recordOutput,
  type IEndTurn,
  type IOutputJSON,
  type IShowTurn
} from './turnsProtocol';

export const TURNS_TARGET = 'nbacp:turns';

/** The code cells with id `cellId` in the notebooks of this page that run `kernelId` (one per model). */
function cellsOf(tracker: INotebookTracker, kernelId: string, cellId: string): ICodeCellModel[] {
  const found: ICodeCellModel[] = [];
  const models = new Set<object>();
  tracker.forEach(panel => {
    const model = panel.model;
    if (model === null || models.has(model) || panel.sessionContext.session?.kernel?.id !== kernelId) {
      return;
    }
    models.add(model);
    for (const cell of model.cells) {
      if (cell.id === cellId && cell.type === 'code') {
        found.push(cell as ICodeCellModel);
      }
    }
  });
  return found;
}

function show(cell: ICodeCellModel, turn: IShowTurn): void {
  const outputs = outputsToShow(cell.outputs.toJSON() as unknown as IOutputJSON[], turn);
  if (outputs === null) {
    return; // this page shows it already
  }
  cell.outputs.clear();
  // The outputs are the kernel's own, as when the cell runs (JupyterLab trusts a cell it runs):
  // untrusted, the widget view would show as its text/plain only.
  cell.trusted = true;
  for (const output of outputs) {
    cell.outputs.add(output as unknown as nbformat.IOutput);
  }
}

function end(cell: ICodeCellModel, ended: IEndTurn): void {
  const record = recordOutput(ended);
  if (record === null) {
    return; // too large to send: the live view's model shows the record itself
  }
  for (const index of outputsToEnd(cell.outputs.toJSON() as unknown as IOutputJSON[], ended)) {
    cell.outputs.set(index, record as unknown as nbformat.IOutput);
  }
}

function onMessage(tracker: INotebookTracker, kernelId: string, data: JSONObject): void {
  const message = parseTurnMessage(data);
  if (typeof message === 'string') {
    console.warn(`nbacp: ignored a malformed turns message (${message})`);
    return;
  }
  for (const cell of cellsOf(tracker, kernelId, message.prompt_cell_id)) {
    if (message.type === 'show_turn') {
      show(cell, message);
    } else {
      end(cell, message);
    }
  }
}

/** Say hello once per kernel connection and notebook model, once the document is loaded. */
async function hello(tracker: INotebookTracker, panel: NotebookPanel, said: WeakMap<object, WeakSet<object>>): Promise<void> {
  await panel.context.ready;
  await panel.sessionContext.ready;
  const kernel: Kernel.IKernelConnection | null | undefined = panel.sessionContext.session?.kernel;
  const model = panel.model;
  if (!kernel || kernel.isDisposed || model === null) {
    return;
  }
  const models = said.get(kernel) ?? new WeakSet<object>();
  said.set(kernel, models);
  if (models.has(model)) {
    return;
  }
  models.add(model);
  const ids: string[] = [];
  for (const cell of model.cells) {
    ids.push(cell.id);
  }
  const comm = kernel.createComm(TURNS_TARGET);
  comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => onMessage(tracker, kernel.id, msg.content.data);
  comm.open(helloMessage(ids) as unknown as JSONObject);
}

/** Watch every notebook of this page (called once by the `nbacp:notebook` plugin). */
export function watchTurns(tracker: INotebookTracker): void {
  const said = new WeakMap<object, WeakSet<object>>();
  const greet = (panel: NotebookPanel): void => {
    void hello(tracker, panel, said).catch(error => console.warn('nbacp: could not ask the kernel for its turns', error));
  };
  const watch = (panel: NotebookPanel): void => {
    greet(panel);
    panel.sessionContext.kernelChanged.connect(() => greet(panel));
  };
  tracker.widgetAdded.connect((_sender, panel) => watch(panel));
  tracker.forEach(watch);
}
