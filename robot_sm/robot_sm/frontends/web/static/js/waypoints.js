// The waypoint table: index, status, position, routine (a choice that sets it) and delete.
// A row's waypoint is named by its id in every call, never by its index. An update changes the
// rows in place, by id: a cell's text only when it changed, a routine choice only when its
// routine or the routines changed, and never while the operator has it open (focused), so an
// open choice survives every update; rows come and go as waypoints do.

export class WaypointTable {
  constructor(table, empty, handlers) {
    this.body = table.querySelector('tbody');
    this.empty = empty;
    this.handlers = handlers;
    this.routines = [];
    this.rows = [];
    this.selected = null;
    this.shown = new Map(); // id -> <tr>
  }

  setRoutines(routines) {
    this.routines = routines;
    this.render();
  }

  setWaypoints(rows) {
    this.rows = rows;
    this.render();
  }

  select(id) {
    this.selected = id;
    for (const tr of this.body.children) {
      tr.classList.toggle('selected', Number(tr.dataset.id) === id);
    }
  }

  routineChoice(tr) {
    const choice = document.createElement('select');
    choice.className = 'operator-control';
    choice.addEventListener('change', () => {
      this.handlers.onRoutine(Number(tr.dataset.id), choice.value);
    });
    return choice;
  }

  // The choice's options: none, the routines, and the waypoint's own if it is not among them.
  fillChoice(choice, waypoint) {
    const names = ['', ...this.routines];
    if (!names.includes(waypoint.routine)) {
      names.push(waypoint.routine);
    }
    const key = names.join('\n');
    if (choice.dataset.options !== key) {
      choice.replaceChildren(...names.map((name) => {
        const option = document.createElement('option');
        option.value = name;
        option.textContent = name || 'none';
        return option;
      }));
      choice.dataset.options = key;
    }
    choice.value = waypoint.routine;
    choice.dataset.routine = waypoint.routine;
  }

  makeRow(w) {
    const tr = document.createElement('tr');
    tr.dataset.id = String(w.id);
    for (const name of ['index', 'status', 'x', 'y']) {
      const td = document.createElement('td');
      td.className = name;
      tr.append(td);
    }
    const routine = document.createElement('td');
    routine.className = 'routine';
    routine.append(this.routineChoice(tr));
    const remove = document.createElement('td');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = '✕';
    button.className = 'delete operator-control';
    button.addEventListener('click', () => this.handlers.onDelete(Number(tr.dataset.id)));
    remove.append(button);
    tr.append(routine, remove);
    tr.addEventListener('click', (event) => {
      if (event.target === tr || event.target.tagName === 'TD') {
        this.handlers.onSelect(Number(tr.dataset.id));
      }
    });
    return tr;
  }

  update(tr, w) {
    const set = (name, text, extra = '') => {
      const td = tr.querySelector(`td.${name}`);
      if (td.textContent !== text) {
        td.textContent = text;
      }
      const wanted = `${name}${extra ? ` ${extra}` : ''}`;
      if (td.className !== wanted) {
        td.className = wanted;
      }
    };
    set('index', String(w.index));
    set('status', w.status, w.status);
    set('x', w.x.toFixed(2));
    set('y', w.y.toFixed(2));
    const choice = tr.querySelector('select');
    choice.setAttribute('aria-label', `routine of waypoint ${w.index}`);
    tr.querySelector('button.delete').setAttribute('aria-label', `delete waypoint ${w.index}`);
    if (document.activeElement !== choice) { // an open choice is the operator's
      this.fillChoice(choice, w);
    }
    tr.classList.toggle('selected', w.id === this.selected);
  }

  render() {
    const wanted = new Set(this.rows.map((w) => w.id));
    for (const [id, tr] of this.shown) {
      if (!wanted.has(id)) {
        tr.remove();
        this.shown.delete(id);
      }
    }
    let previous = null;
    for (const w of this.rows) {
      let tr = this.shown.get(w.id);
      if (tr === undefined) {
        tr = this.makeRow(w);
        this.shown.set(w.id, tr);
      }
      this.update(tr, w);
      const place = previous === null ? this.body.firstElementChild : previous.nextElementSibling;
      if (place !== tr) {
        this.body.insertBefore(tr, place); // moving a row keeps its elements (and an open choice)
      }
      previous = tr;
    }
    this.empty.hidden = this.rows.length > 0;
  }
}
