// What the page's controls share: the answer line, who holds control, and a control's call.
// Every control is one call of the suite's gateway as this page's operator; while another
// operator holds control, the controls that need it are greyed with the holder's name and a tap
// on one says so instead of calling (STOP never needs control). A holder gone stale (silent)
// still holds it: the suite refuses others' commands until one takes control (Take control,
// which asks first only when the holder is not stale).
import { link } from './link.js';

const $ = (id) => document.getElementById(id);

// The newest of what the suite says that the controls depend on.
export const robot = { control: null, mode: null, emergencyStop: null, state: null };

// A line of the page that is cut to its room keeps the whole text in its tooltip.
export function show(id, text) {
  $(id).textContent = text;
  $(id).title = text;
}

export function say(label, answer) {
  show('answer', `${label}: ${answer.message || (answer.success ? 'done' : 'refused')}`);
  $('answer').classList.toggle('refused', !answer.success);
}

// A time of day (seconds since 1970) as the operator's clock shows it: 10:22:01.
export function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString('en-GB', { hour12: false });
}

export function operating() {
  return link.role === 'operator';
}

// Whether this page's operator holds control.
export function mine() {
  const control = robot.control;
  return control !== null && control.held && control.holder === link.operator;
}

// The operator who holds control, when it is not this page's: '' when this page may operate
// (its first command acquires control when nobody holds it).
export function heldBy() {
  const control = robot.control;
  if (control === null || !control.held || control.holder === link.operator) {
    return '';
  }
  return control.holder;
}

// Why a control that needs control is greyed, naming the holder: '' when it is not.
export function greyedBecause() {
  const holder = heldBy();
  if (!holder) {
    return '';
  }
  const surface = robot.control.surface ? ` (${robot.control.surface})` : '';
  const stale = robot.control.stale ? ', stale (silent)' : '';
  return `control is held by ${holder}${surface} since ${clock(robot.control.since)}${stale}: `
    + 'Take control first';
}

export async function act(label, action, args = {}) {
  if (!operating()) {
    return { success: false, message: 'read-only' };
  }
  const greyed = greyedBecause();
  if (greyed) {
    const answer = { success: false, message: greyed };
    say(label, answer);
    return answer;
  }
  const answer = await link.call(action, args);
  say(label, answer);
  return answer;
}
