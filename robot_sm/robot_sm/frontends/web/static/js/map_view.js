// The map: the occupancy grid, the robot, its path, the waypoints and the exploration goals,
// drawn on a canvas, north up (a grid whose origin is rotated is drawn turned by its origin's
// yaw, so that every cell is where it is in the map frame), and the gestures an operator makes
// on it:
//   tap on free space    -> onTap(x, y)                (add a waypoint there)
//   tap on a waypoint    -> onSelect(id)
//   drag a waypoint      -> onMove(id, x, y)           (move it)
//   long press (0.6 s)   -> onLongPress(x, y)          (propose a simple goal: setProposal
//                                                      marks it until it is sent or dropped)
//   drag elsewhere, two fingers, wheel: pan and zoom (the "fit" button fits the map again)
// Positions are in the map frame, metres. The canvas carries its view in data attributes
// (data-view = "scale,centre x,centre y" in CSS pixels per metre and metres; data-robot =
// "x,y,yaw"), which tests and the demo read to know where things are on the screen.

import { drawGoals, drawPath, drawProposal, drawRobot, drawWaypoints } from './map_layers.js';

const TAP_SLOP_PX = 8;
const LONG_PRESS_MS = 600;
const HIT_PX = 18;

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
    this.proposal = null;
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

  // A goal proposed by a long press ({x, y} in the map frame), or null.
  setProposal(point) {
    this.proposal = point;
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
    const corners = this.mapCorners();
    const xs = corners.map((p) => p.x);
    const ys = corners.map((p) => p.y);
    const w = Math.max(...xs) - Math.min(...xs);
    const h = Math.max(...ys) - Math.min(...ys);
    this.scale = 0.95 * Math.min(width / w, height / h);
    this.centre = { x: Math.min(...xs) + w / 2, y: Math.min(...ys) + h / 2 };
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

  // The map's corners in the map frame: its origin, turned by the origin's yaw.
  mapCorners() {
    const m = this.map;
    const w = m.width * m.resolution;
    const h = m.height * m.resolution;
    const cos = Math.cos(m.origin_yaw || 0);
    const sin = Math.sin(m.origin_yaw || 0);
    return [[0, 0], [w, 0], [w, h], [0, h]].map(([u, v]) => (
      { x: m.origin_x + cos * u - sin * v, y: m.origin_y + sin * u + cos * v }));
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
      // The grid's first row is at its origin (the picture's last row): with the origin at
      // (0, 0) and turned by its yaw, the picture stands above it, its bottom on the x axis.
      const m = this.map;
      const origin = this.toScreen(m.origin_x, m.origin_y);
      const w = m.width * m.resolution * this.scale;
      const h = m.height * m.resolution * this.scale;
      c.save();
      c.translate(origin.x, origin.y);
      c.rotate(-(m.origin_yaw || 0));
      c.imageSmoothingEnabled = false;
      c.drawImage(this.image, 0, -h, w, h);
      c.restore();
    }
    drawPath(c, this);
    drawGoals(c, this);
    drawWaypoints(c, this);
    drawRobot(c, this);
    drawProposal(c, this);
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
