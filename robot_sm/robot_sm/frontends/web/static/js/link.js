// The page's link to the console: one WebSocket, pings both ways, calls with answers.
//
// The page pings every 100 ms; an operator page's pings are the robot's operator heartbeat, so
// when this page closes, sleeps or loses its network, the heartbeat ends with it. The server
// answers every ping: when nothing has come from it for SILENCE_MS the link is shown as lost,
// the socket is closed (so that nothing typed meanwhile is sent later) and a new one is opened.
// The silence is judged after what has already arrived: a page held up (a busy or sleeping tab)
// finds the messages that came meanwhile queued behind its tick, and takes them first.
// Nothing is ever sent by itself after a reconnect but the robot the page shows: no mode, no
// release. The page's scripts never see the token; the session cookie (HttpOnly) goes along.
// Before a reconnect the page asks whether its session still holds: logged out (401) ends the
// retries, a refusal (429, or anything else) is waited out, never taken for a yes.

const PING_MS = 100;
const SILENCE_MS = 700;
const CALL_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 3000;
const RETRY_MS = [250, 500, 1000, 2000];

export class Link {
  constructor() {
    this.ws = null;
    this.state = 'connecting';
    this.role = null;
    this.operator = ''; // who this page's commands are given as (its login session says)
    this.driveSeq = 0;
    this.namespace = sessionStorage.getItem('robot_sm.robot') || '';
    this.seq = 0;
    this.callId = 0;
    this.pending = new Map();
    this.lastHeard = 0;
    this.judging = false;
    this.retries = 0;
    this.retryAt = 0;
    this.handlers = { update: [], map: [], state: [], hello: [], robot: [], events: [] };
    this.mapMeta = null;
    // The newest of everything heard, for handlers added later (modules load in any order);
    // of the timeline's events, every batch until a handler takes them.
    this.latest = { update: new Map(), map: null, state: null, hello: null, robot: null,
                    events: [] };
  }

  on(kind, handler) {
    this.handlers[kind].push(handler);
    const latest = this.latest[kind];
    if (kind === 'update') {
      for (const [key, args] of latest) {
        handler(key, ...args);
      }
    } else if (kind === 'events') {
      for (const args of latest) {
        handler(...args);
      }
      latest.length = 0;
    } else if (latest !== null) {
      handler(...latest);
    }
  }

  emit(kind, ...args) {
    if (kind === 'update') {
      this.latest.update.set(args[0], args.slice(1));
    } else if (kind === 'events') {
      if (this.handlers.events.length === 0) {
        this.latest.events.push(args);
      }
    } else {
      this.latest[kind] = args;
    }
    for (const handler of this.handlers[kind]) {
      try {
        handler(...args);
      } catch (error) {
        console.error(error);
      }
    }
  }

  start() {
    this.connect();
    setInterval(() => this.tick(), PING_MS);
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN && this.state === 'open';
  }

  setState(state, detail = '') {
    this.state = state;
    this.emit('state', state, detail);
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = this.namespace ? `?robot=${encodeURIComponent(this.namespace)}` : '';
    const ws = new WebSocket(`${scheme}://${location.host}/ws${query}`);
    ws.binaryType = 'blob';
    ws.onopen = () => {
      this.lastHeard = performance.now();
      this.retries = 0;
      this.setState('open');
      this.ping();
    };
    ws.onmessage = (event) => {
      if (ws === this.ws) {
        this.receive(event);
      }
    };
    ws.onclose = () => {
      if (ws === this.ws) {
        this.lost('the connection was closed');
      }
    };
    this.ws = ws;
    if (this.state !== 'lost') {
      this.setState('connecting');
    }
  }

  tick() {
    const now = performance.now();
    if (this.open) {
      this.ping();
      if (now - this.lastHeard > SILENCE_MS && !this.judging) {
        // A task queued now runs after the messages already waiting for this page.
        this.judging = true;
        setTimeout(() => this.judgeSilence(), 0);
      }
    } else if (this.ws === null && this.state !== 'login' && now >= this.retryAt) {
      this.reconnect();
    }
  }

  judgeSilence() {
    this.judging = false;
    const silence = performance.now() - this.lastHeard;
    if (this.open && silence > SILENCE_MS) {
      this.lost(`nothing from the robot's console for ${(silence / 1000).toFixed(1)} s`);
    }
  }

  ping() {
    this.seq += 1;
    this.ws.send(JSON.stringify({ type: 'ping', seq: this.seq }));
  }

  lost(why) {
    const ws = this.ws;
    this.ws = null;
    if (ws !== null) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close();
    }
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error(`connection lost: ${why}`));
    }
    this.pending.clear();
    this.retryAt = performance.now() + RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
    this.retries += 1;
    this.setState('lost', why);
  }

  async reconnect() {
    this.retryAt = Infinity;
    let answer;
    try {
      answer = await fetch('/api/session', { cache: 'no-store' });
    } catch (error) {
      // The network is still down: try again later.
      this.retryAt = performance.now() + RETRY_MS[RETRY_MS.length - 1];
      return;
    }
    if (answer.status === 401) {
      this.setState('login', 'this page is logged out: open the address robot-sm web printed');
      return;
    }
    if (!answer.ok) {
      // Refused for now (429: too many failed attempts from this address), or the console
      // is in trouble: not logged in, so wait as long as it asks, then ask again.
      const wait = Number(answer.headers.get('Retry-After')) || RETRY_MS[RETRY_MS.length - 1] / 1000;
      this.retryAt = performance.now() + 1000 * Math.min(wait, 60);
      this.setState('lost', `the console refused to reconnect (HTTP ${answer.status}); `
                    + `trying again in ${Math.round(Math.min(wait, 60))} s`);
      return;
    }
    this.connect();
  }

  // Log out: the console ends this page's session (and closes its socket); the login follows.
  async logout() {
    this.retryAt = Infinity;
    try {
      await fetch('/logout', { method: 'POST', cache: 'no-store' });
    } finally {
      location.replace('/login');
    }
  }

  receive(event) {
    this.lastHeard = performance.now();
    if (typeof event.data !== 'string') {
      if (this.mapMeta !== null) {
        this.emit('map', this.mapMeta, event.data);
        this.mapMeta = null;
      }
      return;
    }
    const message = JSON.parse(event.data);
    switch (message.type) {
      case 'pong':
        break;
      case 'hello':
        this.role = message.role;
        this.operator = message.operator || '';
        this.namespace = message.namespace;
        this.emit('hello', message);
        break;
      case 'robot':
        this.namespace = message.namespace;
        sessionStorage.setItem('robot_sm.robot', message.namespace);
        this.emit('robot', message.namespace);
        break;
      case 'update':
        this.emit('update', message.kind, message.value);
        break;
      case 'map':
        this.mapMeta = message;
        break;
      case 'events':
        this.emit('events', message);
        break;
      case 'result':
      case 'error':
        this.settle(message);
        break;
      default:
        break;
    }
  }

  settle(message) {
    const pending = this.pending.get(message.id);
    if (pending === undefined) {
      if (message.type === 'error') {
        this.emit('update', 'error', message);
      }
      return;
    }
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    pending.resolve({ success: message.type === 'result' && message.success,
                      message: message.message });
  }

  // Send one control; resolves to the suite's answer {success, message}.
  call(action, args = {}) {
    if (!this.open) {
      return Promise.resolve({ success: false, message: 'not connected to the robot' });
    }
    this.callId += 1;
    const id = this.callId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ success: false, message: 'no answer from the console' });
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ type: 'call', id, action, args }));
    }).catch((error) => ({ success: false, message: error.message }));
  }

  // A velocity of the joystick (m/s forward, rad/s to the left); not answered. Returns whether
  // it was sent (the socket is open).
  drive(linear, angular) {
    if (!this.open) {
      return false;
    }
    this.driveSeq += 1;
    this.ws.send(JSON.stringify({ type: 'drive', seq: this.driveSeq, linear, angular }));
    return true;
  }

  // The Software Stop: over the socket when it is open, else (and also when the socket does
  // not answer within a second) as an HTTP request of its own.
  async stop() {
    if (this.open) {
      const overSocket = this.call('stop');
      const late = new Promise((resolve) => setTimeout(() => resolve(null), 1000));
      const answer = await Promise.race([overSocket, late]);
      if (answer !== null && answer.success) {
        return answer;
      }
    }
    return this.stopOverHttp();
  }

  async stopOverHttp() {
    try {
      const answer = await fetch('/api/stop', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ namespace: this.namespace }),
        cache: 'no-store',
        signal: AbortSignal.timeout(STOP_TIMEOUT_MS),
      });
      const text = await answer.text();
      let body = null;
      try {
        body = JSON.parse(text);
      } catch (error) {
        // Not the console's answer to a stop (a refusal of the door): say what it was.
      }
      if (body === null || typeof body !== 'object') {
        return { success: false, message: `HTTP ${answer.status}: ${text.trim()}` };
      }
      return { success: Boolean(body.success), message: body.message || `HTTP ${answer.status}` };
    } catch (error) {
      const why = error.name === 'TimeoutError'
        ? `no answer within ${STOP_TIMEOUT_MS / 1000} s` : error.message;
      return { success: false, message: `the stop did not reach the robot's console: ${why}` };
    }
  }

  selectRobot(namespace) {
    sessionStorage.setItem('robot_sm.robot', namespace);
    return this.call('select_robot', { namespace });
  }
}

export const link = new Link();
