// Versions of a message or an answer. Editing a message or regenerating an answer makes a branch of the
// conversation's thread on the server (a fork: it shares the turns before, so the provider's cache still
// serves them); the list shows the thread as one conversation, and the turn where the versions part
// shows a ‹ 2/3 › switch between them, as the snapshot's `branches` tell.

import { element } from './render.js';

/**
 * Puts a switch on each turn of {@code turnsEl} that has versions (a snapshot's {@code branches}): under the
 * person's message when the versions send different messages, under the answer when only the answer was
 * regenerated. Switches shown before are replaced.
 *
 * @param open called with the id of the branch to show (a version's newest place)
 */
export function showBranchSwitches(turnsEl, branches, open) {
  turnsEl.querySelectorAll('.branch-switch').forEach(old => old.remove());
  for (const at of branches || []) {
    const turnEl = turnsEl.querySelector(`.turn[data-turn="${at.turn}"]`);
    const actions = turnEl && turnEl.querySelector(at.sameMessage ? '.answer-actions' : '.user-actions');
    if (actions) {
      actions.before(branchSwitch(at, at.sameMessage ? 'answer' : 'message', open));
    }
  }
}

/** ‹ n/m ›: the previous and next version, and which one this is. */
function branchSwitch(at, what, open) {
  const count = at.ids.length;
  const nav = element('nav', 'branch-switch');
  nav.setAttribute('aria-label', `Versions of this ${what}`);
  const previous = arrow('‹', `Previous version of this ${what}`, at.index > 0, () => open(at.ids[at.index - 1]));
  const next = arrow('›', `Next version of this ${what}`, at.index < count - 1, () => open(at.ids[at.index + 1]));
  const position = element('span', 'branch-position');
  position.append(element('span', 'visually-hidden', 'Version '),
    document.createTextNode(`${at.index + 1}/${count}`));
  nav.append(previous, position, next);
  return nav;
}

function arrow(symbol, label, enabled, onClick) {
  const button = element('button', 'icon-button branch-arrow', symbol);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.title = label;
  button.disabled = !enabled;
  button.addEventListener('click', onClick);
  return button;
}
