/**
 * nbacp's front-end piece (plugin `nbacp:notebook`): a comm target `nbacp:notebook` on the
 * kernel of every open notebook, through which nbacp in the kernel reads the notebook that holds
 * its prompt cell and applies the edits the person accepted, in the notebook's own shared model
 * (live, undoable, with or without real-time collaboration). The protocol is docs/notebook-edits.md.
 *
 * Every page that runs this notebook's kernel answers the kernel's `who` with a `hello`; the
 * kernel then addresses one page by its id, and the others ignore the message, so an edit is
 * applied once however many tabs show the notebook. Views of one notebook in one page share
 * one model, which is edited once.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookActions, type NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';
import { LIMITS, applyEdit, holds, parseEdit, readCells, type IEditResult } from './protocol';
import { watchTurns } from './turns';

export const TARGET = 'nbacp:notebook';
const VERSION = 1;

/** This page's id: the kernel names it in every read and edit meant for this page. */
const PAGE_ID = Array.from({ length: 4 }, () => Math.random().toString(16).slice(2, 10)).join('');

/**
 * Requests this page answered. Two notebooks on one kernel in one page have a kernel connection
 * each, and each receives the kernel's messages: the request is handled by the first only.
 */
const handled: string[] = [];

function firstTime(request: string): boolean {
  if (handled.includes(request)) {
    return false;
  }
  handled.push(request);
  handled.splice(0, Math.max(0, handled.length - 256));
  return true;
}

/** The notebooks of this page that run `kernelId`, one panel per model (views share a model). */
function panelsOf(tracker: INotebookTracker, kernelId: string): NotebookPanel[] {
  const found: NotebookPanel[] = [];
  tracker.forEach(panel => {
    if (panel.sessionContext.session?.kernel?.id === kernelId && panel.model) {
      if (!found.some(p => p.model === panel.model)) {
        found.push(panel);
      }
    }
  });
  return found;
}

function promptPanel(tracker: INotebookTracker, kernelId: string, promptCellId: string | null): NotebookPanel | null {
  return panelsOf(tracker, kernelId).find(p => p.model !== null && holds(p.model.sharedModel, promptCellId)) ?? null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length <= LIMITS.id ? value : null;
}

async function runInserted(panel: NotebookPanel, cellId: string): Promise<void> {
  const notebook = panel.content;
  const index = notebook.widgets.findIndex(w => w.model.id === cellId);
  if (index < 0) {
    return;
  }
  const actions = NotebookActions as unknown as {
    runCells?: (n: typeof notebook, cells: readonly unknown[], s: typeof panel.sessionContext) => Promise<boolean>;
  };
  if (actions.runCells) {
    await actions.runCells(notebook, [notebook.widgets[index]], panel.sessionContext);
  } else {
    notebook.activeCellIndex = index;
    await NotebookActions.run(notebook, panel.sessionContext);
  }
}

/** Answer one message of the kernel on `comm` (ignoring those meant for another page). */
function handle(tracker: INotebookTracker, kernelId: string, comm: Kernel.IComm, data: JSONObject): void {
  const type = data.type;
  const request = stringOrNull(data.request);
  const promptCellId = stringOrNull(data.prompt_cell_id);
  const send = (reply: JSONObject): void => {
    if (!comm.isDisposed) {
      comm.send({ v: VERSION, page: PAGE_ID, request, ...reply });
    }
  };
  if (type === 'who') {
    const panels = panelsOf(tracker, kernelId);
    const panel = promptPanel(tracker, kernelId, promptCellId);
    send({ type: 'hello', path: (panel ?? panels[0])?.context.path ?? null, holds: panel !== null, notebooks: panels.length });
    return;
  }
  if (data.page !== PAGE_ID || (type !== 'read' && type !== 'edit') || request === null || !firstTime(request)) {
    return; // another page's, not ours to answer, or answered on another connection of this page
  }
  const panel = promptPanel(tracker, kernelId, promptCellId);
  if (panel === null || panel.model === null) {
    const reason = 'no notebook in this page holds the prompt cell any more (closed, or the cell deleted)';
    send(type === 'read' ? { type: 'read_reply', error: reason } : { type: 'edit_reply', outcome: 'not_applied', cell_id: null, source: null, reason });
    return;
  }
  const path = panel.context.path;
  if (type === 'read') {
    const cells = readCells(panel.model.sharedModel);
    send(typeof cells === 'string' ? { type: 'read_reply', error: cells } : { type: 'read_reply', path, cells: cells as unknown as JSONObject[] });
    return;
  }
  const edit = parseEdit(data as Record<string, unknown>);
  if (typeof edit === 'string') {
    send({ type: 'edit_reply', outcome: 'not_applied', cell_id: null, source: null, reason: edit, path });
    return;
  }
  let result: IEditResult;
  try {
    result = applyEdit(panel.model.sharedModel, edit);
  } catch (error) {
    result = { outcome: 'not_applied', cell_id: null, source: null, reason: `the page could not apply it: ${String(error).slice(0, 200)}` };
  }
  if (result.outcome === 'applied' && edit.run && result.cell_id !== null && edit.cell_type === 'code') {
    void runInserted(panel, result.cell_id).catch(error => console.warn('nbacp: could not run the cell', error));
  }
  send({ type: 'edit_reply', path, ...result });
}

function register(tracker: INotebookTracker, kernel: Kernel.IKernelConnection | null | undefined, done: WeakSet<object>): void {
  if (!kernel || kernel.isDisposed || done.has(kernel)) {
    return;
  }
  done.add(kernel);
  // The registry lives as long as the connection, across kernel restarts.
  kernel.registerCommTarget(TARGET, (comm: Kernel.IComm, open: KernelMessage.ICommOpenMsg) => {
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => handle(tracker, kernel.id, comm, msg.content.data);
    handle(tracker, kernel.id, comm, open.content.data);
  });
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'nbacp:notebook',
  description: 'Lets nbacp in the kernel read the open notebook and apply the edits the person accepted.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker): void => {
    const done = new WeakSet<object>();
    tracker.widgetAdded.connect((_sender, panel) => {
      const context = panel.sessionContext;
      register(tracker, context.session?.kernel, done);
      context.kernelChanged.connect((_ctx, change) => register(tracker, change.newValue, done));
    });
    tracker.forEach(panel => register(tracker, panel.sessionContext.session?.kernel, done));
    watchTurns(tracker); // a page that arrives while a turn runs gets it back (docs/reload.md)
  }
};

export default plugin;
