// Search that shows where: a found chat's row in the list shows the passages that matched
// (GET /api/conversations/search gives each result's snippets: seq, kind, text, matches), the matched
// words marked; opening a passage opens the chat scrolled to the message, answer, command output or
// attached document it came from, with the words marked there too.

import { element } from './render.js';

const LABELS = { user: 'Message', assistant: 'Answer', tool: 'Command output', attachment: 'Document' };

/** {@code text} as nodes, each [start, end] of {@code matches} (offsets into it, in order) in a <mark>. */
export function markedText(text, matches) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const [start, end] of matches || []) {
    if (start < at || end > text.length) {
      continue; // never trust offsets blindly: a bad pair is skipped, the text still shows
    }
    fragment.append(text.slice(at, start), element('mark', null, text.slice(start, end)));
    at = end;
  }
  fragment.append(text.slice(at));
  return fragment;
}

/** The words a snippet marks, in lower case: what opening it marks in the chat. */
function markedWords(snippet) {
  return [...new Set((snippet.matches || []).map(([start, end]) => snippet.text.slice(start, end).toLowerCase()))];
}

let pending = null; // {id, snippet}: the passage to show once its chat is open

/**
 * Adds where a search found {@code conversation} to its row: the title's matches marked, and a link per passage that
 * opens the chat at it. {@code open(id)} opens (or reopens) the chat; the chat then calls {@link revealFound}.
 */
export function decorateResult(li, titleEl, conversation, open) {
  if (!Array.isArray(conversation.snippets)) {
    return;
  }
  if (conversation.title && conversation.titleMatches && conversation.titleMatches.length) {
    titleEl.replaceChildren(markedText(conversation.title, conversation.titleMatches));
  }
  if (conversation.snippets.length === 0) {
    return;
  }
  li.dataset.found = 'true';
  const list = element('ul', 'search-snippets');
  list.setAttribute('aria-label', 'Where “' + (conversation.title || 'New chat') + '” matches');
  for (const snippet of conversation.snippets) {
    const link = element('a', 'search-snippet');
    link.href = '#/c/' + encodeURIComponent(conversation.id);
    link.dataset.seq = String(snippet.seq);
    link.dataset.kind = snippet.kind;
    const label = snippet.kind === 'attachment' ? '📎 ' + snippet.name : LABELS[snippet.kind] || snippet.kind;
    link.append(element('span', 'search-snippet-kind', label), element('span', 'search-snippet-text'));
    link.lastChild.append(markedText(snippet.text, snippet.matches));
    link.addEventListener('click', event => {
      event.preventDefault();
      pending = { id: conversation.id, snippet };
      open(conversation.id);
    });
    const item = element('li');
    item.append(link);
    list.append(item);
  }
  li.append(list);
}

/**
 * After chat {@code id} is shown: when a search result was opened for it, scrolls its passage's message into view,
 * marks the words there and answers true; else false (the chat scrolls as usual).
 *
 * @param turnsEl the element holding the turns
 * @param entries the chat's stored entries (seq, turn, role), which place a seq in its turn
 */
export function revealFound(id, turnsEl, entries) {
  if (!pending || pending.id !== id) {
    return false;
  }
  const { snippet } = pending;
  pending = null;
  const target = findTarget(turnsEl, entries, snippet);
  if (!target) {
    return false;
  }
  for (const old of turnsEl.querySelectorAll('.search-target')) {
    old.classList.remove('search-target');
  }
  markWords(target, markedWords(snippet));
  target.classList.add('search-target');
  target.scrollIntoView({ block: 'center' });
  return true;
}

/** The element that shows the passage's text: the message, the answer's step, the command, the document's chip. */
function findTarget(turnsEl, entries, snippet) {
  const entry = entries.find(e => e.seq === snippet.seq);
  const turnEl = entry && turnsEl.querySelector(`.turn[data-turn="${entry.turn}"]`);
  if (!turnEl) {
    return null;
  }
  if (snippet.kind === 'attachment') {
    const chips = [...turnEl.querySelectorAll('.attachment-chip')];
    return chips.find(chip => chip.querySelector('.chip-name')?.textContent === snippet.name) || chips[0] || turnEl;
  }
  if (snippet.kind === 'user') {
    return turnEl.querySelector('.message.user') || turnEl;
  }
  // An answer is its turn's n-th step; command output belongs to the step whose commands made it.
  const before = entries.filter(e => e.turn === entry.turn && e.role === 'assistant' && e.seq < entry.seq).length;
  const step = snippet.kind === 'tool' ? before - 1 : before;
  const iteration = turnEl.querySelector(`.iteration[data-iteration="${step}"]`);
  if (!iteration) {
    return turnEl;
  }
  if (snippet.kind === 'tool') {
    const words = markedWords(snippet);
    const commands = [...iteration.querySelectorAll('details.command')];
    const command = commands.find(c => words.some(w => c.textContent.toLowerCase().includes(w))) || commands[0];
    if (command) {
      command.open = true; // the output is inside
      return command;
    }
  }
  return iteration;
}

/** Wraps each whole-word occurrence of {@code words} in the text under {@code root} in a <mark>. */
function markWords(root, words) {
  if (words.length === 0) {
    return;
  }
  const escaped = words.map(w => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement.closest('mark, button, textarea, input, .message-actions')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const nodes = [];
  while (walker.nextNode()) {
    nodes.push(walker.currentNode);
  }
  for (const node of nodes) {
    const text = node.nodeValue;
    const found = [...text.matchAll(pattern)];
    if (found.length === 0) {
      continue;
    }
    node.replaceWith(markedText(text, found.map(m => [m.index, m.index + m[0].length])));
  }
}
