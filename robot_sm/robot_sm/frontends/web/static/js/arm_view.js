// The arm under teleop, to watch: shown while a teleop node runs on the robot. The teleop state,
// the clutch, the tracking error (clutch target to the end effector the arm reached) and each
// joint's position within its limits. The rows are kept and changed in place.

export class ArmView {
  constructor(panel) {
    this.panel = panel;
    this.body = panel.querySelector('tbody');
    this.rows = new Map();
  }

  set(arm) {
    this.panel.hidden = !arm.present;
    if (!arm.present) {
      return;
    }
    const $ = (id) => this.panel.querySelector(`#${id}`);
    $('arm-state').textContent = arm.state || '?';
    $('arm-state').className = `teleop ${(arm.state || '').toLowerCase()}`;
    $('arm-clutch').textContent = arm.clutch === null ? 'not known'
      : arm.clutch ? 'engaged' : 'released';
    $('arm-error').textContent = arm.error === null ? '–'
      : `${(arm.error * 1000).toFixed(1)} mm${arm.clutch ? '' : ' (clutch released)'}`;
    this.panel.dataset.note = arm.note || '';
    const names = new Set();
    for (const joint of arm.joints) {
      names.add(joint.name);
      this.joint(joint);
    }
    for (const [name, row] of this.rows) {
      if (!names.has(name)) {
        row.remove();
        this.rows.delete(name);
      }
    }
  }

  joint(joint) {
    let row = this.rows.get(joint.name);
    if (row === undefined) {
      row = document.createElement('tr');
      row.dataset.joint = joint.name;
      const name = document.createElement('td');
      name.textContent = joint.name;
      const cell = document.createElement('td');
      const bar = document.createElement('div');
      bar.className = 'limits';
      const mark = document.createElement('span');
      mark.className = 'position';
      const value = document.createElement('span');
      value.className = 'value';
      bar.append(mark);
      cell.append(bar, value);
      row.append(name, cell);
      this.body.append(row);
      this.rows.set(joint.name, row);
    }
    const limited = joint.lower !== null && joint.upper !== null;
    const span = limited ? joint.upper - joint.lower : 0;
    const share = span > 0 ? (joint.position - joint.lower) / span : 0.5;
    const clamped = Math.min(1, Math.max(0, share));
    row.querySelector('.position').style.left = `${(100 * clamped).toFixed(1)}%`;
    row.dataset.share = share.toFixed(3);
    row.classList.toggle('near-limit', share < 0.05 || share > 0.95);
    row.querySelector('.value').textContent = limited ? `${joint.position.toFixed(2)} in `
      + `[${joint.lower.toFixed(2)}, ${joint.upper.toFixed(2)}]` : `${joint.position.toFixed(2)} (no limits)`;
  }
}
