// Control of the robot, and Pause / Continue. The control line says who holds control: nobody,
// you, or another operator since when (stale when they fell silent), and "Control taken by X
// at T" when it was taken from this page. Take control acquires it when it is free or its
// holder stale; from an operator who holds it and is not stale, it asks first (a second tap
// within four seconds takes it over, and they are told). Give up hands it back. While another operator holds control, every
// control that needs it is greyed with the holder's name; STOP never is. Pause pauses the
// running activity, Continue continues the paused one, showing where it will go on.
import { link } from './link.js';
import {
  act, clock, greyedBecause, heldBy, mine, operating, robot, say, show,
} from './operate.js';

const $ = (id) => document.getElementById(id);
const CONFIRM_MS = 4000;
// What pause can hold: the activities a run of which an operator started.
const PAUSABLE = new Set(['waypoint_following', 'exploration', 'simple_goal', 'plugin']);

function controlText(control) {
  if (control === null) {
    return 'Control: not known yet';
  }
  const me = link.operator;
  const taken = control.taken_from && control.taken_from === me && control.holder !== me
    ? `taken by ${control.holder || 'another operator'} at ${clock(control.taken_at)}`
    : '';
  if (!control.held) {
    return 'Control: free (your first command takes it)';
  }
  if (control.holder === me) {
    return `Control: you (${me}) since ${clock(control.since)}`;
  }
  if (taken) {
    return `Control ${taken}`;
  }
  const surface = control.surface ? ` (${control.surface})` : '';
  const holder = `${control.holder}${surface} since ${clock(control.since)}`;
  return control.stale ? `Control: ${holder}, stale (silent): Take control to operate`
    : `Control: ${holder}`;
}

function showControl() {
  const control = robot.control;
  const line = $('control-line');
  show('control-line', controlText(control));
  const taken = control !== null && control.taken_from === link.operator && control.held
    && control.holder !== link.operator;
  line.classList.remove('mine', 'other', 'free', 'taken');
  line.classList.add(mine() ? 'mine' : heldBy() ? 'other' : 'free');
  line.classList.toggle('taken', taken);
  line.dataset.holder = control && control.held ? control.holder : '';
  $('give-up').disabled = !mine();
  $('take-control').disabled = mine();
  if (!heldBy()) {
    disarmTake();
  }
  // Greyed, not hidden: each control that needs control says who holds it.
  const greyed = greyedBecause();
  document.body.classList.toggle('held-by-other', Boolean(greyed));
  for (const element of document.querySelectorAll('.needs-control, .operator-control')) {
    if (greyed) {
      element.title = greyed;
      element.setAttribute('aria-disabled', 'true');
    } else if (element.getAttribute('aria-disabled') === 'true') {
      element.removeAttribute('aria-disabled');
      element.title = '';
    }
  }
  showPause();
}

// ---- take and give up --------------------------------------------------------------------

let takeArmed = null;

function disarmTake() {
  clearTimeout(takeArmed);
  takeArmed = null;
  $('take-control').textContent = 'Take control';
  $('take-control').classList.remove('armed');
}

$('take-control').addEventListener('click', async () => {
  if (!operating()) {
    return;
  }
  const holder = heldBy();
  if (holder && !robot.control.stale && takeArmed === null) {
    $('take-control').textContent = `Take it from ${holder}? Tap again`;
    $('take-control').classList.add('armed');
    takeArmed = setTimeout(disarmTake, CONFIRM_MS);
    return;
  }
  disarmTake();
  say('take control', await link.call('take_control'));
});

$('give-up').addEventListener('click', async () => {
  if (operating()) {
    say('give up control', await link.call('give_up_control'));
  }
});

// ---- pause and continue ------------------------------------------------------------------

function showPause() {
  const state = robot.state;
  const button = $('pause');
  if (state === null) {
    return;
  }
  const paused = state.paused === true;
  button.textContent = paused ? 'Continue' : 'Pause';
  button.dataset.action = paused ? 'continue' : 'pause';
  button.disabled = !operating() || !(paused || PAUSABLE.has(state.activity));
  show('resumable', paused ? `continues: ${state.resumable || state.paused_activity}`
    : PAUSABLE.has(state.activity) ? `pauses: ${state.activity_name || state.activity}` : '');
}

$('pause').addEventListener('click', () => {
  const action = $('pause').dataset.action;
  if (action === 'continue') {
    act('continue', 'continue');
  } else if (action === 'pause') {
    act('pause', 'pause');
  }
});

link.on('update', (kind, value) => {
  if (kind === 'control') {
    robot.control = value;
    showControl();
  } else if (kind === 'state') {
    robot.state = value;
    showPause();
  } else if (kind === 'waypoints') {
    queueMicrotask(showControl); // the table's new rows are greyed with the rest
  }
});
link.on('hello', () => showControl());
