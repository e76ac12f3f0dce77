// The waypoint table: index, status, position, routine (a choice that sets it) and delete.
// A row's waypoint is named by its id in every call, never by its index.

export class WaypointTable {
  constructor(table, empty, handlers) {
    this.body = table.querySelector('tbody');
    this.empty = empty;
    this.handlers = handlers;
    this.routines = [];
    this.rows = [];
    this.selected = null;
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

  routineChoice(waypoint) {
    const choice = document.createElement('select');
    choice.setAttribute('aria-label', `routine of waypoint ${waypoint.index}`);
    choice.className = 'operator-control';
    const names = ['', ...this.routines];
    if (!names.includes(waypoint.routine)) {
      names.push(waypoint.routine);
    }
    for (const name of names) {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = name || 'none';
      option.selected = name === waypoint.routine;
      choice.append(option);
    }
    choice.addEventListener('change', () => this.handlers.onRoutine(waypoint.id, choice.value));
    return choice;
  }

  render() {
    const rows = this.rows.map((w) => {
      const tr = document.createElement('tr');
      tr.dataset.id = String(w.id);
      tr.classList.toggle('selected', w.id === this.selected);
      const cells = [String(w.index), w.status, w.x.toFixed(2), w.y.toFixed(2)];
      for (const [column, text] of cells.entries()) {
        const td = document.createElement('td');
        td.textContent = text;
        if (column === 1) {
          td.className = `status ${w.status}`;
        }
        tr.append(td);
      }
      const routine = document.createElement('td');
      routine.append(this.routineChoice(w));
      const remove = document.createElement('td');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = '✕';
      button.className = 'delete operator-control';
      button.setAttribute('aria-label', `delete waypoint ${w.index}`);
      button.addEventListener('click', () => this.handlers.onDelete(w.id));
      remove.append(button);
      tr.append(routine, remove);
      tr.addEventListener('click', (event) => {
        if (event.target === tr || event.target.tagName === 'TD') {
          this.handlers.onSelect(w.id);
        }
      });
      return tr;
    });
    this.body.replaceChildren(...rows);
    this.empty.hidden = this.rows.length > 0;
  }
}
