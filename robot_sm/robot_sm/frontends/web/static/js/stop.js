// The Software Stop: the first script of the page, needing nothing but the link, so that it
// works while everything else is still loading. A press engages the robot's e-stop; it never
// releases it (release is a deliberate step of its own, in the e-stop banner). Every press sends
// a stop, even while an earlier one still waits for its answer; the note shows the newest.
import { link } from './link.js';

const button = document.getElementById('stop');
const note = document.getElementById('stop-note');
let presses = 0;

async function press(event) {
  event.preventDefault();
  presses += 1;
  const pressed = presses;
  button.classList.add('pressed');
  note.textContent = 'stopping…';
  note.className = 'note';
  const answer = await link.stop();
  if (pressed !== presses) {
    return; // a newer press tells
  }
  note.textContent = answer.success ? 'stop sent' : `NOT STOPPED: ${answer.message}`;
  note.className = answer.success ? 'note' : 'note refused';
  button.classList.remove('pressed');
}

// A touch stops on contact; a click from the keyboard (Enter, Space) stops too.
button.addEventListener('pointerdown', press);
button.addEventListener('click', (event) => {
  if (event.detail === 0) {
    press(event);
  }
});
link.start();
