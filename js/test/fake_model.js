// A small stand-in for the anywidget model: Backbone-like get/set with synchronous
// change:<key> events, save_changes recording what would travel to Python, and send().

export function fakeModel(state) {
  const data = { draft: {}, errors: {}, handled: 0, phase: "open", summary: "", ...state };
  const handlers = new Map();
  const model = {
    saved: [], // snapshot of `draft` at every save_changes
    sent: [], // messages passed to send()
    get: (key) => data[key],
    set(key, value) {
      const changed = JSON.stringify(data[key]) !== JSON.stringify(value);
      data[key] = value;
      if (changed) model.emit(`change:${key}`);
    },
    save_changes() {
      model.saved.push(structuredClone(data.draft));
    },
    on(name, fn) {
      if (!handlers.has(name)) handlers.set(name, new Set());
      handlers.get(name).add(fn);
    },
    off(name, fn) {
      handlers.get(name)?.delete(fn);
    },
    send(msg) {
      model.sent.push(msg);
    },
    emit(name, ...args) {
      for (const fn of [...(handlers.get(name) ?? [])]) fn(...args);
    },
    /** What Python does: assign a new value, which syncs down and fires change. */
    fromPython(key, value) {
      model.set(key, value);
    },
    listenerCount: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
  };
  return model;
}
