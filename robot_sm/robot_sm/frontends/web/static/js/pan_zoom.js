// Pan and zoom of an SVG drawing through its viewBox, for a mouse and for fingers:
//   mouse drag        -> pan                 Ctrl + wheel (a trackpad's pinch) -> zoom
//   one finger        -> pan sideways (an upward or downward swipe scrolls the page, as the
//                        box's touch-action lets the browser have it)
//   two fingers       -> pinch to zoom, move to pan
//   tap               -> onTap(the element tapped)
// The view is a scale (screen pixels per drawing unit) and the drawing point at the centre.

const TAP_SLOP_PX = 8;

export class PanZoom {
  constructor(svg, onTap = () => {}) {
    this.svg = svg;
    this.onTap = onTap;
    this.width = 1;
    this.height = 1;
    this.scale = 1;
    this.centre = { x: 0.5, y: 0.5 };
    this.pointers = new Map();
    this.gesture = null;
    svg.addEventListener('pointerdown', (event) => this.down(event));
    svg.addEventListener('pointermove', (event) => this.move(event));
    svg.addEventListener('pointerup', (event) => this.up(event));
    svg.addEventListener('pointercancel', (event) => this.cancel(event));
    svg.addEventListener('wheel', (event) => this.wheel(event), { passive: false });
    new ResizeObserver(() => this.apply()).observe(svg);
  }

  // The size of what is drawn, in drawing units.
  setContent(width, height) {
    this.width = width;
    this.height = height;
  }

  box() {
    const { width, height } = this.svg.getBoundingClientRect();
    return { width: Math.max(1, width), height: Math.max(1, height) };
  }

  fitScale() {
    const { width, height } = this.box();
    return Math.min(width / this.width, height / this.height);
  }

  fit() {
    this.scale = this.fitScale();
    this.centre = { x: this.width / 2, y: this.height / 2 };
    this.apply();
  }

  show(x, y, scale) {
    this.scale = scale;
    this.centre = { x, y };
    this.apply();
  }

  zoom(factor, at = null) {
    const { width, height } = this.box();
    const screen = at || { x: width / 2, y: height / 2 };
    const before = this.toDrawing(screen);
    this.scale = Math.min(8, Math.max(0.5 * this.fitScale(), this.scale * factor));
    const after = this.toDrawing(screen);
    this.centre.x += before.x - after.x;
    this.centre.y += before.y - after.y;
    this.apply();
  }

  toDrawing(screen) {
    const { width, height } = this.box();
    return { x: this.centre.x + (screen.x - width / 2) / this.scale,
             y: this.centre.y + (screen.y - height / 2) / this.scale };
  }

  apply() {
    const { width, height } = this.box();
    const w = width / this.scale;
    const h = height / this.scale;
    this.svg.setAttribute('viewBox', `${this.centre.x - w / 2} ${this.centre.y - h / 2} ${w} ${h}`);
    this.svg.dataset.view = `${this.scale},${this.centre.x},${this.centre.y}`;
  }

  point(event) {
    const box = this.svg.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  down(event) {
    const at = this.point(event);
    this.pointers.set(event.pointerId, at);
    if (event.pointerType === 'mouse') {
      this.svg.setPointerCapture(event.pointerId);
    }
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      this.gesture = { kind: 'pinch', distance: Math.hypot(a.x - b.x, a.y - b.y),
                       middle: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
      return;
    }
    this.gesture = { kind: 'press', start: at, last: at, target: event.target };
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
    if (g.kind === 'pinch' && this.pointers.size === 2) {
      event.preventDefault();
      const [a, b] = [...this.pointers.values()];
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      const middle = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      this.centre.x -= (middle.x - g.middle.x) / this.scale;
      this.centre.y -= (middle.y - g.middle.y) / this.scale;
      if (g.distance > 0) {
        this.zoom(distance / g.distance, middle);
      }
      g.distance = distance;
      g.middle = middle;
      this.apply();
      return;
    }
    if (g.kind === 'press' && Math.hypot(at.x - g.start.x, at.y - g.start.y) > TAP_SLOP_PX) {
      g.kind = 'pan';
    }
    if (g.kind === 'pan') {
      this.centre.x -= (at.x - g.last.x) / this.scale;
      this.centre.y -= (at.y - g.last.y) / this.scale;
      this.apply();
    }
    g.last = at;
  }

  up(event) {
    this.pointers.delete(event.pointerId);
    const g = this.gesture;
    if (g !== null && g.kind === 'press') {
      this.onTap(g.target);
    }
    if (this.pointers.size === 0) {
      this.gesture = null;
    }
  }

  cancel(event) {
    this.pointers.delete(event.pointerId);
    if (this.pointers.size === 0) {
      this.gesture = null;
    }
  }

  wheel(event) {
    if (!event.ctrlKey) {
      return; // the page scrolls; Ctrl + wheel (and a trackpad's pinch) zooms
    }
    event.preventDefault();
    this.zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, this.point(event));
  }
}
