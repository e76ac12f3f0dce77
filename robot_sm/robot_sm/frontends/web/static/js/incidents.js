// The incidents the recorder kept, newest first: when, what and why, and how the stop went
// (the speed at the trigger, the time to the first zero command, the time until the robot was
// at rest, the distance travelled). The console reads them from the recorder's folder when it
// runs on the robot; when it cannot, the page says so.

function figure(value, unit, scale = 1, digits = 2) {
  return value === null || value === undefined ? '–' : `${(value * scale).toFixed(digits)} ${unit}`;
}

function when(text) {
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? text
    : `${time.toLocaleDateString('en-CA')} ${time.toLocaleTimeString('en-GB', { hour12: false })}`;
}

export class IncidentList {
  constructor(list, note, count) {
    this.list = list;
    this.note = note;
    this.count = count;
  }

  set(view) {
    this.note.textContent = view.note || '';
    this.note.hidden = !view.note;
    this.count.textContent = view.readable ? `(${view.count} kept)` : '';
    this.list.dataset.readable = String(view.readable);
    this.list.replaceChildren(...view.incidents.map((incident) => this.row(incident)));
  }

  row(incident) {
    const li = document.createElement('li');
    li.dataset.id = String(incident.id);
    const head = document.createElement('div');
    head.className = 'incident-head';
    const time = document.createElement('time');
    time.textContent = when(incident.time);
    time.dateTime = incident.time;
    const what = document.createElement('span');
    what.className = 'incident-cause';
    what.textContent = `#${incident.id} ${incident.kind}: ${incident.cause}`
      + (incident.operator ? ` (${incident.operator})` : '');
    head.append(time, what);
    const figures = document.createElement('div');
    figures.className = 'figures';
    const parts = [['speed', figure(incident.speed, 'm/s')],
                   ['to-zero', `zero after ${figure(incident.time_to_zero, 'ms', 1000, 0)}`],
                   ['to-rest', `at rest after ${figure(incident.time_to_rest, 's')}`],
                   ['distance', `travelled ${figure(incident.distance, 'm')}`]];
    figures.append(...parts.map(([name, text]) => {
      const span = document.createElement('span');
      span.className = name;
      span.textContent = text;
      return span;
    }));
    li.append(head, figures);
    return li;
  }
}
