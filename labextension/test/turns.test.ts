// The page's rules for the `nbacp:turns` comm (src/turnsProtocol.ts): what a page says, which
// kernel messages it believes, and which outputs of a cell change for `show_turn` / `end_turn`.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../src/protocol';
import {
  RECORD_CHARS,
  WIDGET_VIEW,
  helloMessage,
  outputsToEnd,
  outputsToShow,
  parseTurnMessage,
  recordOutput,
  type IEndTurn,
  type IOutputJSON,
  type IShowTurn
} from '../src/turnsProtocol';

const MODEL = '0123456789abcdef0123456789abcdef';
const show = { v: 1, type: 'show_turn', prompt_cell_id: 'p', model_id: MODEL, label: "<nbacp turn: 'quick'>" };
const end = { v: 1, type: 'end_turn', prompt_cell_id: 'p', model_id: MODEL,
  bundle: { 'text/html': '<div class="nbacp-record">done</div>', 'text/plain': 'done' } };

function view(modelId: string): IOutputJSON {
  return { output_type: 'display_data', data: { [WIDGET_VIEW]: { model_id: modelId, version_major: 2, version_minor: 0 },
    'text/plain': 'x' }, metadata: {} };
}

const header: IOutputJSON = { output_type: 'display_data', data: { 'text/html': 'Session' }, metadata: {} };
const stream: IOutputJSON = { output_type: 'stream', name: 'stdout', text: MODEL };

describe('helloMessage', () => {
  it('names the cells the page holds, bounded and checked', () => {
    expect(helloMessage(['a', 'b'])).toEqual({ v: 1, type: 'hello', cells: ['a', 'b'] });
    expect(helloMessage(['', 'x'.repeat(LIMITS.id + 1), 'ok']).cells).toEqual(['ok']);
    expect(helloMessage(Array.from({ length: LIMITS.cells + 3 }, (_, i) => `c${i}`)).cells.length).toBe(LIMITS.cells);
  });
});

describe('parseTurnMessage', () => {
  it('takes well-formed show_turn and end_turn', () => {
    expect(parseTurnMessage(show)).toEqual({ type: 'show_turn', prompt_cell_id: 'p', model_id: MODEL, label: show.label });
    expect(parseTurnMessage(end)).toEqual({ type: 'end_turn', prompt_cell_id: 'p', model_id: MODEL, bundle: end.bundle });
    expect(parseTurnMessage({ ...end, bundle: null })).toMatchObject({ type: 'end_turn', bundle: null });
  });

  it('refuses anything malformed with a reason', () => {
    expect(parseTurnMessage(null)).toMatch(/object/);
    expect(parseTurnMessage([show])).toMatch(/object/);
    expect(parseTurnMessage({ ...show, v: 2 })).toMatch(/version/);
    expect(parseTurnMessage({ ...show, type: 'run_code' })).toMatch(/unknown message type/);
    expect(parseTurnMessage({ ...show, prompt_cell_id: 'x'.repeat(LIMITS.id + 1) })).toMatch(/prompt_cell_id/);
    expect(parseTurnMessage({ ...show, prompt_cell_id: 7 })).toMatch(/prompt_cell_id/);
    expect(parseTurnMessage({ ...show, model_id: '"><img src=x>' })).toMatch(/model_id/);
    expect(parseTurnMessage({ ...show, model_id: 'a'.repeat(65) })).toMatch(/model_id/);
    expect(parseTurnMessage({ ...show, label: 'x'.repeat(201) })).toMatch(/label/);
    expect(parseTurnMessage({ ...end, bundle: 'html' })).toMatch(/bundle/);
    expect(parseTurnMessage({ ...end, bundle: { 'text/html': 1, 'text/plain': '' } })).toMatch(/bundle/);
    expect(parseTurnMessage({ ...end, bundle: { 'text/html': 'x'.repeat(RECORD_CHARS), 'text/plain': 'y' } }))
      .toMatch(/at most/);
  });
});

describe('outputsToShow and outputsToEnd', () => {
  const turn = parseTurnMessage(show) as IShowTurn;
  const ended = parseTurnMessage(end) as IEndTurn;

  it('shows the live view alone in a cell that lacks it, nothing where it is shown already', () => {
    expect(outputsToShow([], turn)).toEqual([
      { output_type: 'display_data', data: { [WIDGET_VIEW]: { model_id: MODEL, version_major: 2, version_minor: 0 },
        'text/plain': show.label }, metadata: {} }
    ]);
    expect(outputsToShow([header, { ...view('other'), output_type: 'display_data' }], turn)).toHaveLength(1);
    expect(outputsToShow([header, view(MODEL), stream], turn)).toBeNull(); // a saved reload, a second tab
    expect(outputsToShow([stream], turn)).not.toBeNull(); // the model id in a stream's text is not a view
  });

  it('replaces every view of the ended model, and only those', () => {
    expect(outputsToEnd([header, view(MODEL), stream, view('other'), view(MODEL)], ended)).toEqual([1, 4]);
    expect(outputsToEnd([header, stream], ended)).toEqual([]); // the page that started it: the display id did it
    expect(recordOutput(ended)).toEqual({ output_type: 'display_data', data: end.bundle, metadata: {} });
    expect(recordOutput({ ...ended, bundle: null })).toBeNull();
  });
});
