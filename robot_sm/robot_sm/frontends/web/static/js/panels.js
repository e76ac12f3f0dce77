// The panels that watch: the operating cycle (cycle_view.js), the event timeline (timeline.js),
// the incidents (incidents.js) and the arm under teleop (arm_view.js), fed by the link as the
// console sends them.
import { ArmView } from './arm_view.js';
import { CycleView } from './cycle_view.js';
import { IncidentList } from './incidents.js';
import { link } from './link.js';
import { Timeline } from './timeline.js';

const $ = (id) => document.getElementById(id);
const TRACED = 6;

const cycle = new CycleView($('cycle'), $('cycle-note'));
const timeline = new Timeline($('timeline'), $('timeline-empty'), $('timeline-level'),
                              document.querySelectorAll('#timeline-panel input.kind'));
const arm = new ArmView($('arm-panel'));
const incidents = new IncidentList($('incidents'), $('incidents-note'), $('incidents-count'));

$('cycle-in').addEventListener('click', () => cycle.panZoom.zoom(1.4));
$('cycle-out').addEventListener('click', () => cycle.panZoom.zoom(1 / 1.4));
$('cycle-fit').addEventListener('click', () => cycle.panZoom.fit());
$('cycle-current').addEventListener('click', () => cycle.showCurrent());

function traceTransitions() {
  if (link.namespace) {
    cycle.setTransitions(timeline.transitions(link.namespace, TRACED));
  }
}

timeline.onChange((namespace) => {
  if (namespace === link.namespace) {
    traceTransitions();
  }
});

link.on('update', (kind, value) => {
  if (kind === 'cycle') {
    cycle.setLayout(value);
  } else if (kind === 'state') {
    cycle.setState(value);
  } else if (kind === 'arm') {
    arm.set(value);
  } else if (kind === 'incidents') {
    incidents.set(value);
  }
});
link.on('hello', (hello) => {
  timeline.show(hello.namespace);
  traceTransitions();
});
link.on('robot', (namespace) => {
  timeline.show(namespace);
  arm.set({ present: false });
  traceTransitions();
});
link.on('events', (batch) => timeline.add(batch));
