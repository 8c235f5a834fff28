/**
 * The page's half of the `nbacp:turns` comm (docs/reload.md, 'The front-end contract'): what a
 * page says when it connects to a kernel (`hello`), and the kernel's `show_turn` / `end_turn`
 * checked field by field before anything in the notebook changes. Pure functions over plain
 * output JSON, so the rules live apart from the JupyterLab wiring (src/turns.ts).
 */
import { LIMITS } from './protocol';

export const TURNS_VERSION = 1;
/** A record's bundle larger than this is refused (nbacp/kernel/turn_pages.py's RECORD_CHARS). */
export const RECORD_CHARS = LIMITS.readChars;
const LABEL_CHARS = 200;
/** ipywidgets model ids are uuid4 hex; anything else is not a model this page should render. */
const MODEL_ID = /^[0-9A-Za-z_-]{1,64}$/;
export const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';

export interface IShowTurn {
  type: 'show_turn';
  prompt_cell_id: string;
  model_id: string;
  label: string;
}

export interface IEndTurn {
  type: 'end_turn';
  prompt_cell_id: string;
  model_id: string;
  bundle: { 'text/html': string; 'text/plain': string } | null;
}

/** The display_data output JSON the page reads and writes (nbformat's shape). */
export interface IOutputJSON {
  output_type: string;
  data?: unknown;
  metadata?: unknown;
  [key: string]: unknown;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= LIMITS.id;
}

/** The page's hello: the ids of the cells it holds (at most LIMITS.cells of them). */
export function helloMessage(cellIds: readonly string[]): { v: number; type: 'hello'; cells: string[] } {
  return { v: TURNS_VERSION, type: 'hello', cells: cellIds.filter(isId).slice(0, LIMITS.cells) };
}

/** A kernel message checked field by field; a string says what is wrong with it. */
export function parseTurnMessage(data: unknown): IShowTurn | IEndTurn | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return 'not an object';
  }
  const d = data as Record<string, unknown>;
  if (d.v !== TURNS_VERSION) {
    return 'not version 1';
  }
  if (!isId(d.prompt_cell_id)) {
    return `prompt_cell_id must be a string of 1 to ${LIMITS.id} characters`;
  }
  if (typeof d.model_id !== 'string' || !MODEL_ID.test(d.model_id)) {
    return 'model_id is not a widget model id';
  }
  if (d.type === 'show_turn') {
    if (typeof d.label !== 'string' || d.label.length > LABEL_CHARS) {
      return `label must be a string of at most ${LABEL_CHARS} characters`;
    }
    return { type: 'show_turn', prompt_cell_id: d.prompt_cell_id, model_id: d.model_id, label: d.label };
  }
  if (d.type === 'end_turn') {
    const bundle = d.bundle;
    if (bundle === null) {
      return { type: 'end_turn', prompt_cell_id: d.prompt_cell_id, model_id: d.model_id, bundle: null };
    }
    if (typeof bundle !== 'object' || Array.isArray(bundle)) {
      return 'bundle must be an object or null';
    }
    const html = (bundle as Record<string, unknown>)['text/html'];
    const text = (bundle as Record<string, unknown>)['text/plain'];
    if (typeof html !== 'string' || typeof text !== 'string') {
      return 'bundle must hold text/html and text/plain strings';
    }
    if (html.length + text.length > RECORD_CHARS) {
      return `bundle must be at most ${RECORD_CHARS} characters`;
    }
    return { type: 'end_turn', prompt_cell_id: d.prompt_cell_id, model_id: d.model_id,
      bundle: { 'text/html': html, 'text/plain': text } };
  }
  return `unknown message type ${JSON.stringify(String(d.type)).slice(0, 40)}`;
}

/** Whether `output` shows the widget model `modelId`. */
export function showsModel(output: IOutputJSON, modelId: string): boolean {
  if (output.output_type !== 'display_data' && output.output_type !== 'execute_result') {
    return false;
  }
  const data = output.data;
  if (typeof data !== 'object' || data === null) {
    return false;
  }
  const view = (data as Record<string, unknown>)[WIDGET_VIEW];
  return typeof view === 'object' && view !== null && (view as Record<string, unknown>).model_id === modelId;
}

/** The output that shows a running turn's live view (what the cell held in the page that started it). */
export function viewOutput(turn: IShowTurn): IOutputJSON {
  return {
    output_type: 'display_data',
    data: {
      [WIDGET_VIEW]: { model_id: turn.model_id, version_major: 2, version_minor: 0 },
      'text/plain': turn.label
    },
    metadata: {}
  };
}

/** The output that takes the live view's place when the turn ends. */
export function recordOutput(end: IEndTurn): IOutputJSON | null {
  return end.bundle === null ? null : { output_type: 'display_data', data: { ...end.bundle }, metadata: {} };
}

/**
 * What a cell holding `outputs` needs for `show_turn`: nothing when an output already shows the
 * model (a saved reload, a second tab, another view of the same notebook), else its outputs
 * become the live view alone (what the cell shows in the page that started the turn: the run
 * cleared the outputs on disk, which belong to an earlier run).
 */
export function outputsToShow(outputs: readonly IOutputJSON[], turn: IShowTurn): IOutputJSON[] | null {
  return outputs.some(o => showsModel(o, turn.model_id)) ? null : [viewOutput(turn)];
}

/** The indices of the outputs that show the ended turn's live view (each becomes the record). */
export function outputsToEnd(outputs: readonly IOutputJSON[], end: IEndTurn): number[] {
  return outputs.flatMap((o, i) => (showsModel(o, end.model_id) ? [i] : []));
}
