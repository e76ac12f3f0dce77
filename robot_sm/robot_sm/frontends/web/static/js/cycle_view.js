// The operating cycle, drawn as an SVG from the console's layout of the suite's published cycle
// (robot_sm/cycle): a box per role with its states, arrows for outcomes (solid) and interrupts
// (dashed, red), and lines in a box (or under a group) for the many transitions to Idle and the
// e-stop. The current state's box is highlighted (and its state, when a role has several), the
// last transitions are traced (newest boldest), a paused activity's group is marked. Whatever
// the document holds is drawn: a plugin package's states and roles too.
//
// The SVG carries what it shows for tests and the demo: data-current (the role highlighted),
// data-trail (the roles highlighted so far, in order), and each box's and arrow's data-role,
// data-from, data-to.
import { PanZoom } from './pan_zoom.js';

const SVG = 'http://www.w3.org/2000/svg';
const TRACED = 6;
// The whole cycle is shown first when it is readable so (a laptop); else the current state at a
// readable scale (a phone), the rest a pan away.
const FIT_LEAST = 0.55;
const READABLE = 0.8;
const TRAIL = 200;

function element(name, attributes = {}, text = null) {
  const made = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    made.setAttribute(key, String(value));
  }
  if (text !== null) {
    made.textContent = text;
  }
  return made;
}

export class CycleView {
  constructor(svg, note) {
    this.svg = svg;
    this.note = note;
    this.layout = null;
    this.state = null;
    this.transitions = [];
    this.trail = [];
    this.nodes = new Map();
    this.panZoom = new PanZoom(svg, (target) => this.tapped(target));
    this.placed = false;
  }

  setLayout(layout) {
    this.svg.replaceChildren();
    this.nodes.clear();
    if (layout.error) {
      this.layout = null;
      this.note.textContent = layout.error;
      return;
    }
    this.layout = layout;
    this.note.textContent = '';
    const defs = element('defs');
    for (const kind of ['outcome', 'interrupt', 'traced']) {
      const marker = element('marker', { id: `arrow-${kind}`, viewBox: '0 0 10 10', refX: 9,
                                          refY: 5, markerWidth: 9, markerHeight: 9,
                                          markerUnits: 'userSpaceOnUse',
                                          orient: 'auto-start-reverse' });
      marker.append(element('path', { d: 'M0,0 L10,5 L0,10 z', class: `head ${kind}` }));
      defs.append(marker);
    }
    this.svg.append(defs);
    for (const group of layout.groups) {
      this.svg.append(this.drawGroup(group));
    }
    const edges = element('g', { class: 'edges' });
    for (const edge of layout.edges) {
      edges.append(this.drawEdge(edge));
    }
    for (const node of layout.nodes) {
      const drawn = this.drawNode(node);
      this.nodes.set(node.role, drawn);
      this.svg.append(drawn);
    }
    this.svg.append(edges); // over the boxes: an arrow is never hidden by one
    this.panZoom.setContent(layout.width, layout.height);
    this.placed = false;
    this.refresh();
  }

  drawLines(g, lines, x, y) {
    lines.forEach((line, i) => {
      const cls = ['line', line.class, line.kind || ''].join(' ').trim();
      const text = element('text', { x, y: y + 16 * i, class: cls }, line.text);
      if (line.plugin !== undefined) {
        text.dataset.plugin = line.plugin;
      }
      if (line.to) {
        text.dataset.to = line.to;
      }
      g.append(text);
    });
  }

  drawGroup(group) {
    const g = element('g', { class: 'group' });
    g.dataset.activity = group.key;
    g.append(element('rect', { x: group.x, y: group.y, width: group.width, height: group.height,
                               rx: 8 }));
    g.append(element('text', { x: group.x + 8, y: group.y + 14, class: 'group-title' },
                     group.activity));
    g.append(element('text', { x: group.x + group.width - 8, y: group.y + 14,
                               class: 'paused-mark', 'text-anchor': 'end' }, 'paused'));
    const first = group.y + group.height - 8 - 16 * (group.lines.length - 1);
    this.drawLines(g, group.lines, group.x + 8, first);
    return g;
  }

  drawNode(node) {
    const g = element('g', { class: 'node' });
    g.dataset.role = node.role;
    g.dataset.does = node.does;
    g.append(element('rect', { x: node.x, y: node.y, width: node.width, height: node.height,
                               rx: 6 }));
    g.append(element('text', { x: node.x + 6, y: node.y + 18, class: 'title' }, node.label));
    this.drawLines(g, node.lines, node.x + 6, node.y + 36);
    return g;
  }

  drawEdge(edge) {
    const g = element('g', { class: `edge ${edge.kind}` });
    g.dataset.from = edge.from;
    g.dataset.to = edge.to;
    g.append(element('path', { d: edge.path, 'marker-end': `url(#arrow-${edge.kind})` }));
    const label = element('text', { x: edge.label_x, y: edge.label_y + 3, class: 'label',
                                    'text-anchor': 'middle' }, edge.labels.join(', '));
    if (edge.label_upright) {
      label.setAttribute('transform', `rotate(-90 ${edge.label_x} ${edge.label_y})`);
    }
    g.append(label);
    return g;
  }

  // ---- what is shown ----------------------------------------------------------------------

  setState(state) {
    this.state = state;
    if (state.role && state.role !== this.trail[this.trail.length - 1]) {
      this.trail.push(state.role);
      this.trail.splice(0, Math.max(0, this.trail.length - TRAIL));
      this.svg.dataset.trail = this.trail.join(',');
    }
    this.refresh();
  }

  // The newest transitions first: [{from, to}, ...] (roles).
  setTransitions(transitions) {
    this.transitions = transitions.slice(0, TRACED);
    this.refresh();
  }

  refresh() {
    if (this.layout === null) {
      return;
    }
    const state = this.state || {};
    this.svg.dataset.current = state.role || '';
    for (const [role, g] of this.nodes) {
      const current = role === state.role;
      g.classList.toggle('current', current);
      for (const line of g.querySelectorAll('text.state')) {
        line.classList.toggle('current', current && line.dataset.plugin === state.plugin);
      }
    }
    for (const group of this.svg.querySelectorAll('g.group')) {
      group.classList.toggle('paused', Boolean(state.paused)
                             && group.dataset.activity === state.paused_activity);
    }
    this.trace();
    if (!this.placed) {
      this.place();
    }
  }

  // The last transitions: their arrow, or their line in a box or a group, or a line drawn for
  // a transition the cycle does not name.
  trace() {
    for (const old of this.svg.querySelectorAll('.traced')) {
      old.classList.remove('traced');
      delete old.dataset.age;
    }
    for (const made of this.svg.querySelectorAll('.made')) {
      made.remove();
    }
    this.transitions.forEach(({ from, to }, age) => {
      const found = this.transitionElement(from, to) || this.madeLine(from, to);
      if (found && !found.classList.contains('traced')) {
        found.classList.add('traced');
        found.dataset.age = String(age);
      }
    });
  }

  transitionElement(from, to) {
    const node = this.layout.nodes.find((n) => n.role === from);
    const activity = node ? node.activity : '';
    const key = activity.toLowerCase().replaceAll(' ', '_');
    const arrow = [...this.svg.querySelectorAll('g.edge')].find(
      (e) => e.dataset.to === to
        && (e.dataset.from === from || (activity && e.dataset.from === `group:${activity}`)));
    const target = CSS.escape(to);
    return arrow
      || (this.nodes.has(from) && this.nodes.get(from).querySelector(`text[data-to="${target}"]`))
      || (activity && this.svg.querySelector(
        `g.group[data-activity="${CSS.escape(key)}"] text[data-to="${target}"]`))
      || null;
  }

  madeLine(from, to) {
    const a = this.layout.nodes.find((n) => n.role === from);
    const b = this.layout.nodes.find((n) => n.role === to);
    if (!a || !b || a === b) {
      return null;
    }
    const line = element('line', { x1: a.x + a.width / 2, y1: a.y + a.height / 2,
                                   x2: b.x + b.width / 2, y2: b.y + b.height / 2,
                                   class: 'made', 'marker-end': 'url(#arrow-traced)' });
    this.svg.append(line);
    return line;
  }

  // ---- the view ---------------------------------------------------------------------------

  // The first view: all of it when that is readable, else the current state, readable.
  place() {
    const { width } = this.svg.getBoundingClientRect();
    if (width === 0) {
      return;
    }
    this.placed = true;
    if (this.panZoom.fitScale() >= FIT_LEAST || !this.showCurrent()) {
      this.panZoom.fit();
    }
  }

  showCurrent() {
    const node = this.layout && this.state
      && this.layout.nodes.find((n) => n.role === this.state.role);
    if (!node) {
      return false;
    }
    this.panZoom.show(node.x + node.width / 2, node.y + node.height / 2,
                      Math.max(READABLE, this.panZoom.scale));
    this.placed = true;
    return true;
  }

  tapped(target) {
    const node = target.closest && target.closest('g.node');
    if (node) {
      this.note.textContent = `${node.dataset.role.replaceAll('_', ' ')}: ${node.dataset.does}`;
    }
  }
}
