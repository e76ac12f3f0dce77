// The console page: what the robot says, shown as it changes, and the controls, each one call
// of the suite whose answer (or refusal) is shown on the answer line, in the suite's words. The
// Software Stop lives in stop.js, the connection in link.js, what the controls share in
// operate.js, control and Pause in control.js, driving in drive.js, the map in map_view.js, the
// table in waypoints.js, the cycle, the timeline, the incidents and the arm in panels.js.
import { link } from './link.js';
import { MapView } from './map_view.js';
import { act, operating, robot, say, show } from './operate.js';
import { WaypointTable } from './waypoints.js';

const $ = (id) => document.getElementById(id);
const shown = { emergencyStop: null, state: '', activity: '', interrupt: null, reverse: null, known: null,
                goals: 0, robot: null, following: null, reverse_order: null };

// The answer line is cut to three lines, a status line to one, the e-stop's cause to two: a tap
// on one shows it whole (over what follows, which does not move), another cuts it again.
$('answer').addEventListener('click', () => $('answer').classList.toggle('whole'));
for (const line of document.querySelectorAll('.openable')) {
  line.addEventListener('click', () => line.classList.toggle('whole'));
}

// ---- the map and the table --------------------------------------------------------------

const table = new WaypointTable($('waypoints'), $('no-waypoints'), {
  onRoutine: (id, routine) => act('routine', 'waypoint_routine', { id, routine }),
  onDelete: (id) => act('delete waypoint', 'waypoint_remove', { id }),
  onSelect: (id) => selectWaypoint(id),
});

const map = new MapView($('map'), {
  onTap: (x, y) => act('add waypoint', 'waypoint_add', { x, y }),
  onMove: async (id, x, y) => {
    const answer = await act('move waypoint', 'waypoint_move', { id, x, y });
    if (!answer.success) {
      map.setWaypoints(table.rows); // back where the suite has it
    }
  },
  onSelect: (id) => selectWaypoint(id),
  onLongPress: (x, y) => askGoal(x, y),
});

// A long press only proposes a goal: it is sent after "Go there" (a finger resting on the map
// sends nothing). The proposal ends by itself after GOAL_ASK_MS.
const GOAL_ASK_MS = 8000;
let goalAsked = null;

function askGoal(x, y) {
  if (!operating()) {
    return;
  }
  clearTimeout(goalAsked?.timer);
  const robot = map.robot;
  const yaw = robot ? Math.atan2(y - robot.y, x - robot.x) : 0;
  goalAsked = { x, y, yaw, timer: setTimeout(dismissGoal, GOAL_ASK_MS) };
  map.setProposal({ x, y });
  $('goal-where').textContent = `Send the robot to (${x.toFixed(2)}, ${y.toFixed(2)})?`;
  $('goal-confirm').hidden = false;
}

function dismissGoal() {
  clearTimeout(goalAsked?.timer);
  goalAsked = null;
  map.setProposal(null);
  $('goal-confirm').hidden = true;
}

$('goal-send').addEventListener('click', () => {
  const goal = goalAsked;
  dismissGoal();
  if (goal !== null) {
    act('goal', 'goal', { x: goal.x, y: goal.y, yaw: goal.yaw });
  }
});
$('goal-dismiss').addEventListener('click', dismissGoal);
$('logout').addEventListener('click', () => link.logout());

function selectWaypoint(id) {
  map.select(id);
  table.select(id);
}

$('zoom-in').addEventListener('click', () => map.zoom(1.4));
$('zoom-out').addEventListener('click', () => map.zoom(1 / 1.4));
$('fit').addEventListener('click', () => map.fit());

// ---- the controls -----------------------------------------------------------------------

for (const button of document.querySelectorAll('button.mode')) {
  button.addEventListener('click', () => act(`mode ${button.dataset.mode}`, 'mode',
                                             { mode: button.dataset.mode }));
}
$('follow-start').addEventListener('click', () => act('start following', 'follow_start', {
  mode: $('follow-mode').value, reverse: $('follow-reverse').checked }));
$('follow-stop').addEventListener('click', () => act('stop following', 'follow_stop'));
$('waypoints-reset').addEventListener('click', () => act('reset waypoints', 'waypoints_reset'));
$('explore-start').addEventListener('click', () => act('start exploring', 'explore_start', {
  interrupt: $('explore-mode').value === 'interrupt' }));
$('explore-stop').addEventListener('click', () => act('stop exploring', 'explore_stop'));
$('goal-cancel').addEventListener('click', () => act('cancel goal', 'goal_cancel'));
$('reverse').addEventListener('click', () => act('driving direction', 'reverse',
                                                 { on: !shown.reverse }));
$('robot').addEventListener('change', async () => {
  say('robot', await link.selectRobot($('robot').value));
});

// Release is deliberate: a first tap arms it for four seconds, a second one releases.
let releaseArmed = null;
$('release').addEventListener('click', () => {
  const button = $('release');
  if (releaseArmed === null) {
    button.textContent = 'Tap again to release';
    button.classList.add('armed');
    releaseArmed = setTimeout(disarmRelease, 4000);
    return;
  }
  disarmRelease();
  act('release', 'release');
});

function disarmRelease() {
  clearTimeout(releaseArmed);
  releaseArmed = null;
  $('release').textContent = 'Release…';
  $('release').classList.remove('armed');
}

// ---- what the robot says -----------------------------------------------------------------

function showExploration() {
  const parts = [];
  if (shown.activity === 'exploration') {
    parts.push(`exploring (${shown.interrupt ? 'interrupt' : 'finish'} goals)`);
  }
  if (shown.known !== null) {
    parts.push(`map known ${Math.round(100 * shown.known)} %`);
  }
  if (shown.activity === 'exploration' || shown.goals > 0) {
    parts.push(`${shown.goals} frontier goal${shown.goals === 1 ? '' : 's'}`);
  }
  show('exploration', parts.join(', ') || '–');
}

function showMode(value) {
  robot.mode = value.mode ?? null;
  robot.emergencyStop = value.emergency_stop;
  show('mode', value.mode ?? '?');
  show('input', value.input ?? '?');
  show('held', value.held || '–');
  for (const button of document.querySelectorAll('button.mode')) {
    button.setAttribute('aria-pressed', String(button.dataset.mode === value.mode));
    button.disabled = value.emergency_stop === true;
  }
  shown.emergencyStop = value.emergency_stop;
  $('estop').hidden = value.emergency_stop !== true;
  $('estop-line').classList.remove('whole');
  $('estop-off').hidden = value.emergency_stop === true;
  $('estop-off').textContent = value.emergency_stop === false ? 'E-stop released'
    : 'E-stop: not known yet';
  document.body.classList.toggle('stopped', value.emergency_stop === true);
  if (value.emergency_stop !== true) {
    disarmRelease();
  }
}

// The robots last heard of: shown again for the page's robot when the link (re)opens or the
// page shows another robot (a handler added after the first messages replays them in any order).
let fleetHeard = [];

function showFleet(robots) {
  fleetHeard = robots;
  const choice = $('robot');
  const names = robots.map((r) => r.namespace);
  if (!names.includes(link.namespace)) {
    names.unshift(link.namespace);
  }
  const options = names.map((name) => {
    const robot = robots.find((r) => r.namespace === name);
    const option = document.createElement('option');
    option.value = name;
    const estop = robot && robot.emergency_stop ? ' · E-STOP' : '';
    const missing = robot && robot.found === false;
    // A robot expected (fleet file, seen before) but not on the domain: shown, not choosable.
    option.textContent = missing ? `${name} · NOT FOUND`
      : robot ? `${name} · ${robot.state ?? '?'}${estop}` : name;
    option.disabled = missing && name !== link.namespace;
    option.classList.toggle('missing', missing);
    option.selected = name === link.namespace;
    return option;
  });
  choice.replaceChildren(...options);
  choice.disabled = names.length < 2;
}

// The buttons of the activities follow the suite's typed activity (its code), never the names
// of its states: a robot package's own states (W: Nav2Drive) are shown as they are.
const RUNNING = [['waypoint_following', 'follow-start', 'following-running'],
                 ['exploration', 'explore-start', 'exploring-running'],
                 ['simple_goal', 'goal-cancel', 'goal-running']];

function showActivity(v) {
  for (const [activity, button, note] of RUNNING) {
    const running = v.activity === activity;
    const paused = v.paused && v.paused_activity === activity;
    $(button).setAttribute('aria-pressed', String(running && !paused));
    $(note).textContent = paused ? '· paused' : running ? '· running' : '';
  }
  document.body.dataset.activity = v.activity || 'none';
  document.body.classList.toggle('following', v.activity === 'waypoint_following');
  document.body.classList.toggle('exploring', v.activity === 'exploration');
}

const UPDATES = {
  state: (v) => {
    robot.state = v;
    shown.state = v.state ?? '';
    shown.activity = v.activity ?? '';
    show('state', v.state ?? '?');
    show('outcome', v.outcome || '–');
    showActivity(v);
    showExploration();
  },
  mode: showMode,
  estop_reason: (v) => show('estop-reason', v.reason || 'engaged'),
  presence: (v) => {
    show('presence', v.text);
    $('presence').className = `presence ${v.presence.replace(' ', '-')}`;
  },
  waypoints: (v) => {
    table.setWaypoints(v.waypoints);
    map.setWaypoints(v.waypoints);
    $('following').textContent = `${v.mode}${v.reverse ? ', reverse' : ''}`;
    if (v.mode !== shown.following || v.reverse !== shown.reverse_order) {
      // The suite's following mode changed (here or elsewhere): the choices show it.
      shown.following = v.mode;
      shown.reverse_order = v.reverse;
      $('follow-mode').value = v.mode;
      $('follow-reverse').checked = v.reverse;
    }
  },
  routines: (v) => table.setRoutines(v.routines),
  settings: (v) => {
    shown.interrupt = v.interrupt;
    shown.reverse = v.reverse;
    if (shown.activity !== 'exploration' && v.interrupt !== null) {
      $('explore-mode').value = v.interrupt ? 'interrupt' : 'finish';
    }
    $('reverse').setAttribute('aria-pressed', String(v.reverse === true));
  },
  pose: (v) => map.setRobot(v),
  path: (v) => map.setPath(v.points),
  goals: (v) => {
    map.setGoals(v.points);
    shown.goals = v.count;
    showExploration();
  },
  fleet: (v) => showFleet(v.robots),
  map_error: (v) => say('map', { success: false, message: v.message }),
  error: (v) => say('console', { success: false, message: v.message }),
};

link.on('update', (kind, value) => {
  const show = UPDATES[kind];
  if (show) {
    show(value);
  }
});
link.on('map', (meta, blob) => {
  shown.known = meta.known;
  showExploration();
  map.setMap(meta, blob);
});
link.on('hello', (hello) => {
  document.body.classList.toggle('read-only', hello.role !== 'operator');
  document.body.classList.toggle('operating', hello.role === 'operator');
  $('role').textContent = hello.role === 'operator' ? ''
    : 'Watching (read-only token): the controls are off.';
  showFleet(fleetHeard);
});
link.on('robot', () => {
  map.select(null);
  showFleet(fleetHeard);
});
link.on('state', (state, detail) => {
  const line = $('link');
  const text = { open: 'connected', connecting: 'connecting…',
                 lost: `CONNECTION LOST: ${detail}; reconnecting…`, login: detail };
  line.textContent = text[state] ?? state;
  line.className = `link ${state}`;
  line.dataset.since = String(Date.now()); // when it was shown (ms since 1970)
  for (const name of ['open', 'connecting', 'lost', 'login']) {
    document.body.classList.toggle(name, name === state);
  }
});
