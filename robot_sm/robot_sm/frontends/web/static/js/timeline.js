// The event timeline: what happened on the robot the page shows, newest first, kept for the
// page's life (the newest KEEP of each robot): operators' actions from the audit log, the
// suite's warnings and errors, state transitions with how activities ended, e-stops with their
// cause. Filtered by kind and by the least level shown. Each robot's events are numbered by the
// console (seq, within a log of one epoch), so a reconnect's repeats are not shown twice.

const KEEP = 5000;
const LEVELS = ['info', 'warn', 'error'];
const KINDS = { operator: 'operator', state: 'state', estop: 'e-stop', log: 'suite log' };

function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour12: false });
}

export class Timeline {
  constructor(list, empty, level, kinds) {
    this.list = list;
    this.empty = empty;
    this.level = level;
    this.kinds = kinds;
    this.robots = new Map(); // namespace -> {epoch, last, events}
    this.namespace = null;
    this.listeners = [];
    level.addEventListener('change', () => this.filter());
    for (const box of kinds) {
      box.addEventListener('change', () => this.filter());
    }
  }

  onChange(listener) {
    this.listeners.push(listener);
  }

  robot(namespace) {
    if (!this.robots.has(namespace)) {
      this.robots.set(namespace, { epoch: null, last: 0, events: [] });
    }
    return this.robots.get(namespace);
  }

  // A batch from the console: {namespace, epoch, events: [...]}, oldest first.
  add(batch) {
    const kept = this.robot(batch.namespace);
    if (kept.epoch !== batch.epoch) {
      kept.epoch = batch.epoch; // another log of this robot: its numbers start again
      kept.last = 0;
    }
    const fresh = batch.events.filter((e) => e.seq > kept.last);
    if (fresh.length === 0) {
      return;
    }
    kept.last = fresh[fresh.length - 1].seq;
    kept.events.push(...fresh);
    kept.events.splice(0, Math.max(0, kept.events.length - KEEP));
    if (batch.namespace === this.namespace) {
      for (const e of fresh) {
        this.list.prepend(this.row(e));
      }
      while (this.list.children.length > KEEP) {
        this.list.lastElementChild.remove();
      }
      this.filter();
    }
    for (const listener of this.listeners) {
      listener(batch.namespace);
    }
  }

  show(namespace) {
    this.namespace = namespace;
    const kept = this.robot(namespace);
    this.list.replaceChildren(...kept.events.slice().reverse().map((e) => this.row(e)));
    this.filter();
  }

  // The newest state transitions of a robot, newest first: [{from, to}, ...].
  transitions(namespace, count) {
    const found = [];
    const events = this.robot(namespace).events;
    for (let i = events.length - 1; i >= 0 && found.length < count; i -= 1) {
      if (events[i].kind === 'state' && events[i].to && events[i].from) {
        found.push({ from: events[i].from, to: events[i].to });
      }
    }
    return found;
  }

  row(e) {
    const item = document.createElement('li');
    item.className = 'event';
    item.dataset.kind = e.kind;
    item.dataset.level = e.level;
    const parts = [['time', clock(e.time)], ['kind', KINDS[e.kind] || e.kind]];
    if (e.by) {
      parts.push(['by', e.by]);
    }
    parts.push(['text', e.text]);
    for (const [name, text] of parts) {
      const span = document.createElement(name === 'time' ? 'time' : 'span');
      span.className = name;
      span.textContent = text;
      item.append(span);
    }
    return item;
  }

  filter() {
    const least = LEVELS.indexOf(this.level.value);
    const kinds = new Set([...this.kinds].filter((b) => b.checked).map((b) => b.value));
    let shown = 0;
    for (const item of this.list.children) {
      item.hidden = !kinds.has(item.dataset.kind) || LEVELS.indexOf(item.dataset.level) < least;
      shown += item.hidden ? 0 : 1;
    }
    this.empty.hidden = shown > 0;
    this.empty.textContent = this.list.children.length ? 'Nothing of what is chosen.'
      : 'Nothing yet.';
  }
}
