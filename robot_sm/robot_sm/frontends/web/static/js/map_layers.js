// The map's layers over the grid: the planned path, the exploration goals, the waypoints (by
// status, the selected one ringed), the robot, and a proposed goal; each drawn on the canvas's
// context ``c`` through the view's toScreen and scale.

export const COLOURS = { pending: '#1f6feb', visited: '#1a7f37', unreachable: '#cf222e' };

export function drawPath(c, view) {
  if (view.path.length < 2) {
    return;
  }
  c.strokeStyle = '#8250df';
  c.lineWidth = 2.5;
  c.beginPath();
  view.path.forEach(([x, y], i) => {
    const p = view.toScreen(x, y);
    if (i === 0) {
      c.moveTo(p.x, p.y);
    } else {
      c.lineTo(p.x, p.y);
    }
  });
  c.stroke();
}

export function drawGoals(c, view) {
  c.fillStyle = '#bf8700';
  for (const [x, y] of view.goals) {
    const p = view.toScreen(x, y);
    c.fillRect(p.x - 3, p.y - 3, 6, 6);
  }
}

export function drawWaypoints(c, view) {
  c.font = 'bold 11px system-ui, sans-serif';
  c.textAlign = 'center';
  c.textBaseline = 'middle';
  for (const w of view.waypoints) {
    const p = view.toScreen(w.x, w.y);
    c.fillStyle = COLOURS[w.status] || COLOURS.pending;
    c.strokeStyle = w.id === view.selected ? '#f6c343' : '#ffffff';
    c.lineWidth = w.id === view.selected ? 4 : 2;
    c.beginPath();
    c.arc(p.x, p.y, 10, 0, 2 * Math.PI);
    c.fill();
    c.stroke();
    c.fillStyle = '#ffffff';
    c.fillText(String(w.index), p.x, p.y + 0.5);
  }
}

export function drawRobot(c, view) {
  if (view.robot === null) {
    return;
  }
  const p = view.toScreen(view.robot.x, view.robot.y);
  const size = Math.max(9, 0.2 * view.scale);
  c.save();
  c.translate(p.x, p.y);
  c.rotate(-view.robot.yaw);
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

export function drawProposal(c, view) {
  if (view.proposal === null) {
    return;
  }
  const p = view.toScreen(view.proposal.x, view.proposal.y);
  c.strokeStyle = '#bf8700';
  c.lineWidth = 3;
  c.beginPath();
  c.arc(p.x, p.y, 16, 0, 2 * Math.PI);
  c.moveTo(p.x - 22, p.y);
  c.lineTo(p.x + 22, p.y);
  c.moveTo(p.x, p.y - 22);
  c.lineTo(p.x, p.y + 22);
  c.stroke();
}
