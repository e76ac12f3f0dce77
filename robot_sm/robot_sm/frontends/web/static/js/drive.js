// Driving from the page: an on-screen joystick (touch or mouse), the arrow keys or WASD, and a
// gamepad whose enable button (LB) must be held. While one of them drives, the page sends its
// velocity 20 times a second; the console publishes it on the operators' own stream as this
// page's operator, and the mux drives with it in TELEOPERATION while that operator holds
// control. Driving needs control: the first drive selects Teleop through the gateway (which
// acquires control when nobody holds it) and says so. A zero goes at once when the thumb lifts,
// the keys are released, the enable button is let go, the page is hidden or loses the focus, or
// the link or control is lost, or the page was held up; after that, the input must press anew.
// The console itself sends a zero when a driving page falls silent or goes.
import { link } from './link.js';
import { heldBy, mine, operating, robot, say } from './operate.js';

const $ = (id) => document.getElementById(id);
const SEND_MS = 50; // 20 Hz
// A page held up longer than this while driving (a busy phone) does not drive on by itself
// when it wakes: the console has sent the zero meanwhile, and the input must press anew.
const HELD_UP_MS = 250;
const DEADZONE = 0.12; // of a gamepad's stick
const ENABLE_BUTTON = 4; // the standard mapping's left bumper (LB, L1)
const AXIS_TURN = 0;
const AXIS_FORWARD = 1;
// Keys: [right, back] as the joystick's axes give them.
const KEYS = { ArrowUp: [0, -1], KeyW: [0, -1], ArrowDown: [0, 1], KeyS: [0, 1],
               ArrowLeft: [-1, 0], KeyA: [-1, 0], ArrowRight: [1, 0], KeyD: [1, 0] };

const pad = $('joystick');
let limits = { max_linear: 0.5, max_angular: 1.0, from_mux: false, known: false };
// What each input asks for now: null when not driving, else {x: right, y: back} within -1..1.
const sources = { pointer: null, gamepad: null, keys: null };
const keysDown = new Set();
let pointerId = null;
let gamepadHeld = false; // the enable button was held at the last look
let gamepadRearm = false; // a drive of the gamepad was cut: its enable button must be let go
let sender = null;
let sentAt = 0;
let driving = false;
let selected = false; // Teleop was asked for in this drive
let answered = false; // and the suite said yes: this page's operator holds control
let moved = false; // a velocity went out since the last zero

// Why the page may not drive now ('' when it may).
function blockedWhy() {
  if (!operating()) {
    return 'read-only';
  }
  if (!link.open) {
    return 'not connected';
  }
  if (robot.emergencyStop === true) {
    return 'e-stop engaged: release it first';
  }
  const holder = heldBy();
  return !holder ? '' : robot.control.stale ? `${holder} holds control (stale)`
    : `${holder} holds control`;
}

function wanted() {
  return sources.pointer || sources.gamepad || sources.keys;
}

function velocity(v) {
  const share = Number($('speed').value);
  return { linear: -v.y * share * limits.max_linear, angular: -v.x * share * limits.max_angular };
}

function send() {
  const v = wanted();
  if (v === null) {
    stop();
    return;
  }
  const now = performance.now();
  if (sentAt && now - sentAt > HELD_UP_MS) {
    say('drive', { success: false, message: `this page was held up for ${Math.round(now - sentAt)}`
                   + ' ms while driving: stopped; press again to drive' });
    cut();
    return;
  }
  sentAt = now;
  // Teleop is asked for once a drive: at its start, or when the mode left it under a held stick
  // (the teleop idle fallback as the drive began, before this page heard of it).
  if (!selected && (!mine() || robot.mode !== 'teleop')) {
    selectTeleop();
  }
  if (!mine() && !answered) {
    return; // not before control is this page's: the mux would drop it (and warn)
  }
  const { linear, angular } = velocity(v);
  if (link.drive(linear, angular)) {
    moved = true;
    pad.dataset.sent = `${linear.toFixed(3)},${angular.toFixed(3)}`;
  }
}

// A zero at once, and nothing more until an input drives again.
function stop() {
  clearInterval(sender);
  sender = null;
  sentAt = 0;
  selected = false;
  answered = false;
  driving = false;
  if (moved) {
    moved = false;
    link.drive(0, 0);
    pad.dataset.sent = '0.000,0.000';
  }
  showPad();
}

function cut() {
  if (pointerId !== null && pad.hasPointerCapture(pointerId)) {
    pad.releasePointerCapture(pointerId);
  }
  pointerId = null; // the finger still down drives no more: it must lift and press again
  sources.pointer = null;
  sources.keys = null;
  keysDown.clear();
  if (sources.gamepad !== null || gamepadHeld) {
    gamepadRearm = true;
  }
  sources.gamepad = null;
  stop();
}

async function selectTeleop() {
  selected = true;
  const answer = await link.call('mode', { mode: 'teleop' });
  if (answer.success) {
    answered = selected; // (not if this drive has stopped meanwhile)
    say('drive', { success: true, message: `Teleop selected to drive (${answer.message})` });
    if (sender !== null) {
      send(); // at once: what was sent before the mode was TELEOPERATION did not drive
    }
  } else {
    say('drive', answer);
    cut();
  }
}

// An input began to drive, or changed: drive (at once, then 20 times a second) or stop.
function update() {
  if (wanted() === null) {
    stop();
    return;
  }
  if (blockedWhy()) {
    cut();
    return;
  }
  driving = true;
  if (sender === null) {
    send();
    sender = setInterval(send, SEND_MS);
  }
  showPad();
}

function showPad() {
  const why = blockedWhy();
  pad.classList.toggle('greyed', Boolean(why));
  pad.dataset.state = why ? 'off' : driving ? 'driving' : 'ready';
  pad.dataset.holder = heldBy();
  $('joystick-note').textContent = why === 'read-only' ? '' : why;
  const v = sources.pointer || { x: 0, y: 0 };
  const reach = pad.clientWidth / 2 - $('joystick-knob').offsetWidth / 2;
  $('joystick-knob').style.transform = `translate(${v.x * reach}px, ${v.y * reach}px)`;
}

function showSpeed() {
  const share = Number($('speed').value);
  const text = `${(share * limits.max_linear).toFixed(2)} m/s · `
    + `${(share * limits.max_angular).toFixed(1)} rad/s`;
  $('speed-text').textContent = text;
  $('speed').title = limits.from_mux ? `up to the robot's limits: ${limits.max_linear} m/s, `
    + `${limits.max_angular} rad/s` : 'the robot sets no limit: up to the page\'s own';
}

// ---- the joystick ------------------------------------------------------------------------

function at(event) {
  const box = pad.getBoundingClientRect();
  const reach = box.width / 2 - $('joystick-knob').offsetWidth / 2;
  let x = (event.clientX - (box.left + box.width / 2)) / reach;
  let y = (event.clientY - (box.top + box.height / 2)) / reach;
  const length = Math.hypot(x, y);
  if (length > 1) {
    x /= length;
    y /= length;
  }
  return { x, y };
}

pad.addEventListener('pointerdown', (event) => {
  event.preventDefault();
  if (pointerId !== null || blockedWhy()) {
    showPad();
    return;
  }
  pointerId = event.pointerId;
  pad.setPointerCapture(event.pointerId);
  sources.pointer = at(event);
  update();
});
pad.addEventListener('pointermove', (event) => {
  if (event.pointerId === pointerId) {
    sources.pointer = at(event);
    showPad();
  }
});
for (const name of ['pointerup', 'pointercancel', 'lostpointercapture']) {
  pad.addEventListener(name, (event) => {
    if (event.pointerId === pointerId) {
      pointerId = null;
      sources.pointer = null;
      update();
    }
  });
}

// ---- keys -----------------------------------------------------------------------------------

function typing(event) {
  return event.target.closest && event.target.closest('input, select, textarea');
}

function keysVector() {
  let x = 0;
  let y = 0;
  for (const code of keysDown) {
    x += KEYS[code][0];
    y += KEYS[code][1];
  }
  const length = Math.hypot(x, y);
  return keysDown.size === 0 ? null : length > 1 ? { x: x / length, y: y / length } : { x, y };
}

window.addEventListener('keydown', (event) => {
  if (!(event.code in KEYS) || typing(event) || event.ctrlKey || event.metaKey || event.altKey
      || !operating()) {
    return;
  }
  event.preventDefault();
  if (!event.repeat && !keysDown.has(event.code)) {
    keysDown.add(event.code);
    sources.keys = keysVector();
    update();
  }
});
window.addEventListener('keyup', (event) => {
  if (keysDown.delete(event.code)) {
    sources.keys = keysVector();
    update();
  }
});

// ---- a gamepad ------------------------------------------------------------------------------

function deadzone(value) {
  return Math.abs(value || 0) < DEADZONE ? 0 : Math.max(-1, Math.min(1, value));
}

function lookAtGamepads() {
  pad.gamepadLooks = (pad.gamepadLooks || 0) + 1; // (the tests count the looks)
  const pads = navigator.getGamepads ? Array.from(navigator.getGamepads()) : [];
  const held = pads.find((p) => p && p.connected !== false && p.buttons[ENABLE_BUTTON]
                         && p.buttons[ENABLE_BUTTON].pressed);
  gamepadHeld = held !== undefined;
  if (!gamepadHeld) {
    gamepadRearm = false;
  }
  const was = sources.gamepad;
  sources.gamepad = gamepadHeld && !gamepadRearm
    ? { x: deadzone(held.axes[AXIS_TURN]), y: deadzone(held.axes[AXIS_FORWARD]) } : null;
  if (was !== null || sources.gamepad !== null) {
    update();
  }
}

setInterval(lookAtGamepads, SEND_MS);
window.addEventListener('gamepaddisconnected', lookAtGamepads);

// ---- what stops it --------------------------------------------------------------------------

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') {
    cut();
  }
});
window.addEventListener('blur', cut);
window.addEventListener('pagehide', cut);
$('speed').addEventListener('input', showSpeed);

link.on('update', (kind, value) => {
  if (kind === 'drive_limits') {
    limits = value;
    showSpeed();
  } else if (kind === 'control' || kind === 'mode') {
    queueMicrotask(() => (blockedWhy() && driving ? cut() : showPad()));
  }
});
link.on('state', (state) => {
  if (state !== 'open') {
    cut();
  } else {
    showPad();
  }
});
link.on('hello', () => showPad());
showSpeed();
