// The map: the occupancy grid, the robot, its path, the waypoints and the exploration goals,
// drawn on a canvas, north up, and the gestures an operator makes on it:
//   tap on free space    -> onTap(x, y)                (add a waypoint there)
//   tap on a waypoint    -> onSelect(id)
//   drag a waypoint      -> onMove(id, x, y)           (move it)
//   long press (0.6 s)   -> onLongPress(x, y)          (a simple goal)
//   drag elsewhere, two fingers, wheel: pan and zoom (the "fit" button fits the map again)
// Positions are in the map frame, metres. The canvas carries its view in data attributes
// (data-view = "scale,centre x,centre y" in CSS pixels per metre and metres; data-robot =
// "x,y,yaw"), which tests and the demo read to know where things are on the screen.

const TAP_SLOP_PX = 8;
const LONG_PRESS_MS = 600;
const HIT_PX = 18;
const COLOURS = { pending: '#1f6feb', visited: '#1a7f37', unreachable: '#cf222e' };

export class MapView {
  constructor(canvas, handlers) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.handlers = handlers;
    this.map = null;
    this.image = null;
    this.robot = null;
    this.path = [];
    this.goals = [];
    this.waypoints = [];
    this.selected = null;
    this.scale = 50;
    this.centre = { x: 0, y: 0 };
    this.fitted = false;
    this.pointers = new Map();
    this.gesture = null;
    this.pressMark = null;
    new ResizeObserver(() => this.resize()).observe(canvas);
    canvas.addEventListener('pointerdown', (event) => this.down(event));
    canvas.addEventListener('pointermove', (event) => this.move(event));
    canvas.addEventListener('pointerup', (event) => this.up(event));
    canvas.addEventListener('pointercancel', (event) => this.cancel(event));
    canvas.addEventListener('wheel', (event) => this.wheel(event), { passive: false });
    canvas.addEventListener('contextmenu', (event) => event.preventDefault());
    this.resize();
  }

  // ---- what is shown ----------------------------------------------------------------------

  async setMap(meta, blob) {
    const image = await createImageBitmap(blob);
    const first = this.map === null;
    this.map = meta;
    this.image = image;
    if (first || !this.fitted) {
      this.fit();
    }
    this.draw();
  }

  setRobot(pose) {
    this.robot = pose && pose.known ? pose : null;
    this.canvas.dataset.robot = this.robot ? `${pose.x},${pose.y},${pose.yaw}` : '';
    this.draw();
  }

  setPath(points) {
    this.path = points;
    this.draw();
  }

  setGoals(points) {
    this.goals = points;
    this.draw();
  }

  setWaypoints(rows) {
    this.waypoints = rows;
    if (this.gesture && this.gesture.kind === 'drag') {
      return; // drawn where the finger is until it lets go
    }
    this.draw();
  }

  select(id) {
    this.selected = id;
    this.draw();
  }

  // ---- the view ---------------------------------------------------------------------------

  resize() {
    const ratio = window.devicePixelRatio || 1;
    const { width, height } = this.canvas.getBoundingClientRect();
    this.canvas.width = Math.max(1, Math.round(width * ratio));
    this.canvas.height = Math.max(1, Math.round(height * ratio));
    if (!this.fitted) {
      this.fit();
    }
    this.draw();
  }

  fit() {
    const { width, height } = this.canvas.getBoundingClientRect();
    if (this.map === null || width === 0 || height === 0) {
      return;
    }
    const { resolution: r } = this.map;
    const w = this.map.width * r;
    const h = this.map.height * r;
    this.scale = 0.95 * Math.min(width / w, height / h);
    this.centre = { x: this.map.origin_x + w / 2, y: this.map.origin_y + h / 2 };
    this.fitted = true;
    this.draw();
  }

  zoom(factor, at = null) {
    const { width, height } = this.canvas.getBoundingClientRect();
    const screen = at || { x: width / 2, y: height / 2 };
    const before = this.toWorld(screen.x, screen.y);
    this.scale = Math.min(2000, Math.max(2, this.scale * factor));
    const after = this.toWorld(screen.x, screen.y);
    this.centre.x += before.x - after.x;
    this.centre.y += before.y - after.y;
    this.draw();
  }

  toScreen(x, y) {
    const { width, height } = this.canvas.getBoundingClientRect();
    return { x: width / 2 + (x - this.centre.x) * this.scale,
             y: height / 2 - (y - this.centre.y) * this.scale };
  }

  toWorld(sx, sy) {
    const { width, height } = this.canvas.getBoundingClientRect();
    return { x: this.centre.x + (sx - width / 2) / this.scale,
             y: this.centre.y - (sy - height / 2) / this.scale };
  }

  // ---- drawing ----------------------------------------------------------------------------

  draw() {
    const ratio = window.devicePixelRatio || 1;
    const c = this.context;
    c.setTransform(ratio, 0, 0, ratio, 0, 0);
    c.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.canvas.dataset.view = `${this.scale},${this.centre.x},${this.centre.y}`;
    if (this.image !== null) {
      const m = this.map;
      const corner = this.toScreen(m.origin_x, m.origin_y + m.height * m.resolution);
      c.imageSmoothingEnabled = false;
      c.drawImage(this.image, corner.x, corner.y, m.width * m.resolution * this.scale,
                  m.height * m.resolution * this.scale);
    }
    this.drawPath(c);
    this.drawGoals(c);
    this.drawWaypoints(c);
    this.drawRobot(c);
    if (this.pressMark !== null) {
      c.strokeStyle = '#bf8700';
      c.lineWidth = 3;
      c.beginPath();
      c.arc(this.pressMark.x, this.pressMark.y, 22, 0, 2 * Math.PI);
      c.stroke();
    }
  }

  drawPath(c) {
    if (this.path.length < 2) {
      return;
    }
    c.strokeStyle = '#8250df';
    c.lineWidth = 2.5;
    c.beginPath();
    this.path.forEach(([x, y], i) => {
      const p = this.toScreen(x, y);
      if (i === 0) {
        c.moveTo(p.x, p.y);
      } else {
        c.lineTo(p.x, p.y);
      }
    });
    c.stroke();
  }

  drawGoals(c) {
    c.fillStyle = '#bf8700';
    for (const [x, y] of this.goals) {
      const p = this.toScreen(x, y);
      c.fillRect(p.x - 3, p.y - 3, 6, 6);
    }
  }

  drawWaypoints(c) {
    c.font = 'bold 11px system-ui, sans-serif';
    c.textAlign = 'center';
    c.textBaseline = 'middle';
    for (const w of this.waypoints) {
      const p = this.toScreen(w.x, w.y);
      c.fillStyle = COLOURS[w.status] || COLOURS.pending;
      c.strokeStyle = w.id === this.selected ? '#f6c343' : '#ffffff';
      c.lineWidth = w.id === this.selected ? 4 : 2;
      c.beginPath();
      c.arc(p.x, p.y, 10, 0, 2 * Math.PI);
      c.fill();
      c.stroke();
      c.fillStyle = '#ffffff';
      c.fillText(String(w.index), p.x, p.y + 0.5);
    }
  }

  drawRobot(c) {
    if (this.robot === null) {
      return;
    }
    const p = this.toScreen(this.robot.x, this.robot.y);
    const size = Math.max(9, 0.2 * this.scale);
    c.save();
    c.translate(p.x, p.y);
    c.rotate(-this.robot.yaw);
    c.fillStyle = '#24292f';
    c.strokeStyle = '#f6c343';
    c.lineWidth = 2;
    c.beginPath();
    c.moveTo(size, 0);
    c.lineTo(-0.7 * size, 0.65 * size);
    c.lineTo(-0.4 * size, 0);
    c.lineTo(-0.7 * size, -0.65 * size);
    c.closePath();
    c.fill();
    c.stroke();
    c.restore();
  }

  // ---- gestures ---------------------------------------------------------------------------

  point(event) {
    const box = this.canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  hit(screen) {
    let best = null;
    let bestDistance = HIT_PX;
    for (const w of this.waypoints) {
      const p = this.toScreen(w.x, w.y);
      const distance = Math.hypot(p.x - screen.x, p.y - screen.y);
      if (distance <= bestDistance) {
        best = w;
        bestDistance = distance;
      }
    }
    return best;
  }

  down(event) {
    event.preventDefault();
    this.canvas.setPointerCapture(event.pointerId);
    const at = this.point(event);
    this.pointers.set(event.pointerId, at);
    if (this.pointers.size === 2) {
      this.startPinch();
      return;
    }
    const waypoint = this.hit(at);
    this.gesture = { kind: waypoint ? 'waypoint' : 'press', start: at, last: at, waypoint,
                     timer: null, moved: false };
    if (!waypoint && this.handlers.onLongPress) {
      this.gesture.timer = setTimeout(() => this.longPress(), LONG_PRESS_MS);
    }
  }

  longPress() {
    const g = this.gesture;
    if (g === null || g.moved) {
      return;
    }
    g.kind = 'done';
    this.pressMark = g.start;
    this.draw();
    setTimeout(() => {
      this.pressMark = null;
      this.draw();
    }, 700);
    if (navigator.vibrate) {
      navigator.vibrate(40);
    }
    const world = this.toWorld(g.start.x, g.start.y);
    this.handlers.onLongPress(world.x, world.y);
  }

  move(event) {
    if (!this.pointers.has(event.pointerId)) {
      return;
    }
    const at = this.point(event);
    this.pointers.set(event.pointerId, at);
    const g = this.gesture;
    if (g === null) {
      return;
    }
    if (g.kind === 'pinch') {
      this.pinch();
      return;
    }
    if (!g.moved && Math.hypot(at.x - g.start.x, at.y - g.start.y) > TAP_SLOP_PX) {
      g.moved = true;
      clearTimeout(g.timer);
      if (g.kind === 'waypoint') {
        g.kind = 'drag';
      } else if (g.kind === 'press') {
        g.kind = 'pan';
      }
    }
    if (g.kind === 'drag') {
      const world = this.toWorld(at.x, at.y);
      g.waypoint = { ...g.waypoint, x: world.x, y: world.y };
      this.waypoints = this.waypoints.map((w) => (w.id === g.waypoint.id ? g.waypoint : w));
      this.draw();
    } else if (g.kind === 'pan') {
      this.centre.x -= (at.x - g.last.x) / this.scale;
      this.centre.y += (at.y - g.last.y) / this.scale;
      this.draw();
    }
    g.last = at;
  }

  up(event) {
    this.pointers.delete(event.pointerId);
    const g = this.gesture;
    if (g === null) {
      return;
    }
    if (g.kind === 'pinch') {
      if (this.pointers.size === 0) {
        this.gesture = null;
      }
      return;
    }
    clearTimeout(g.timer);
    this.gesture = null;
    const world = this.toWorld(g.last.x, g.last.y);
    if (g.kind === 'drag') {
      this.handlers.onMove(g.waypoint.id, world.x, world.y);
    } else if (g.kind === 'waypoint') {
      this.handlers.onSelect(g.waypoint.id);
    } else if (g.kind === 'press') {
      this.handlers.onTap(world.x, world.y);
    }
  }

  cancel(event) {
    this.pointers.delete(event.pointerId);
    if (this.gesture !== null) {
      clearTimeout(this.gesture.timer);
    }
    this.gesture = null;
    this.draw();
  }

  startPinch() {
    if (this.gesture !== null) {
      clearTimeout(this.gesture.timer);
    }
    const [a, b] = [...this.pointers.values()];
    this.gesture = { kind: 'pinch', distance: Math.hypot(a.x - b.x, a.y - b.y) };
  }

  pinch() {
    const [a, b] = [...this.pointers.values()];
    const distance = Math.hypot(a.x - b.x, a.y - b.y);
    if (this.gesture.distance > 0) {
      this.zoom(distance / this.gesture.distance, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
    }
    this.gesture.distance = distance;
  }

  wheel(event) {
    event.preventDefault();
    this.zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, this.point(event));
  }
}
