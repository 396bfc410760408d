// The chat page: conversations, sending a message and following its turn, stop, re-attaching after
// a reload or a switch, the provider picker and label, theme and layout. It talks only to the server's API.

import { Account } from './account.js';
import { api, readEvents } from './api.js';
import { ProviderPicker, describeProvider } from './providers.js';
import { costText, element, formatCount } from './render.js';
import { SkillsPanel } from './skills.js';
import { TurnView, markContextCut } from './turn.js';
import { ACCEPT, PendingAttachments, Preview, chip, isLongPaste, storedChips } from './attachments.js';

const $ = id => document.getElementById(id);
const ui = {
  body: document.body,
  messages: $('messages'),
  turns: $('turns'),
  empty: $('empty-state'),
  jump: $('jump-latest'),
  chat: $('chat'),
  composer: $('composer'),
  input: $('input'),
  send: $('send'),
  stop: $('stop'),
  list: $('conversation-list'),
  listEmpty: $('conversation-list-empty'),
  provider: $('provider'),
  conversationUsage: $('conversation-usage'),
  simNotice: $('sim-notice'),
  toast: $('toast'),
  sidebarToggle: $('toggle-sidebar'),
  theme: $('theme'),
};

const state = {
  id: null, // the conversation shown
  lastTurn: -1, // the number of its last turn (the server numbers turns 0, 1, 2, …)
  run: null, // the turn this page is following in the shown conversation
  load: 0, // increases on every switch, so a slow load for an earlier choice is dropped
  stick: true, // follow the stream to the bottom unless the person scrolled up
};

const preview = new Preview();

const actions = {
  retry: message => send(message),
  retryable: code => retryable(code),
  edit: (turnNumber, text) => sendInFork(turnNumber, text),
  chips: attachments => storedChips(attachments, preview),
  reconnect: () => {
    if (state.id) {
      openConversation(state.id); // shows what is stored and follows the turn if it still runs
    }
  },
};

const skills = new SkillsPanel(message => toast(message));
const account = new Account(message => toast(message));

// A new chat's provider: chosen before its first message (a conversation keeps its provider for good).
const picker = new ProviderPicker({
  box: $('provider-picker'),
  select: $('provider-select'),
  note: $('provider-note'),
  onChange: provider => showProvider(provider),
});

// ---- the run cache: what this tab saw of a running turn, so a reload shows it at once and asks the
// server only for what it missed (Last-Event-ID). sessionStorage: per tab, gone with the tab.

const CACHE_PREFIX = 'skillforge.run.';
let pendingSave = null;

function readRunCache(id) {
  try {
    const value = sessionStorage.getItem(CACHE_PREFIX + id);
    return value ? JSON.parse(value) : null;
  } catch {
    return null;
  }
}

function saveRunCache(id, cache) {
  try {
    sessionStorage.setItem(CACHE_PREFIX + id, JSON.stringify(cache));
  } catch {
    clearRunCache(id); // too big for storage: a reload then replays the whole turn from the server
  }
}

function clearRunCache(id) {
  try {
    sessionStorage.removeItem(CACHE_PREFIX + id);
  } catch {
    // storage unavailable: nothing to clear
  }
}

function saveSoon(id, cache) {
  pendingSave = () => saveRunCache(id, cache);
  if (!saveSoon.timer) {
    saveSoon.timer = setTimeout(flushSave, 250);
  }
}

function flushSave() {
  clearTimeout(saveSoon.timer);
  saveSoon.timer = null;
  if (pendingSave) {
    pendingSave();
    pendingSave = null;
  }
}

window.addEventListener('pagehide', flushSave);

// ---- runs -------------------------------------------------------------------------------------

function startRun(view, id) {
  const run = { id, view, controller: new AbortController(), stopRequested: false, ended: false };
  state.run = run;
  setBusy(true);
  return run;
}

function endRun(run) {
  run.ended = true;
  if (state.run === run) {
    state.run = null;
    setBusy(false);
    focusBoxIfIdle();
  }
}

/** The box gets the focus when nothing else has it (the person is not renaming, reading a panel, …). */
function focusBoxIfIdle() {
  const active = document.activeElement;
  if (!active || active === document.body || active === ui.send || active === ui.stop || active === ui.messages) {
    ui.input.focus();
  }
}

/** Stops following the shown run (the turn goes on at the server); its cache stays for re-attaching. */
function detachRun() {
  const run = state.run;
  if (run) {
    run.detached = true;
    run.controller.abort();
    flushSave();
    endRun(run);
  }
}

function setBusy(busy) {
  ui.body.dataset.busy = String(busy);
  ui.send.hidden = busy;
  ui.send.disabled = busy;
  ui.stop.hidden = !busy;
  ui.stop.disabled = false;
}

/** Sends the person's message (and files) as a new turn of the shown conversation (created first if needed). */
async function send(text, files = []) {
  if (state.run || (text.trim() === '' && files.length === 0)) {
    return;
  }
  showEmptyState(false);
  const sentChips = files.length ? element('ul', 'attachment-chips sent') : null;
  files.forEach(file => sentChips.append(chip(file, preview)));
  const view = addTurn(new TurnView(text, actions, sentChips));
  state.stick = true;
  scrollToEnd();
  const run = startRun(view, state.id);
  try {
    if (!run.id) {
      const chosen = picker.several ? picker.chosen() : null;
      const created = await api.createConversation(chosen ? chosen.name : undefined);
      run.id = created.id;
      if (!run.detached) {
        state.id = created.id;
        state.lastTurn = -1;
        history.pushState(null, '', '#/c/' + created.id);
        picker.show(false);
        showConversationProvider(created);
        showExport(created);
      }
    }
    if (run.stopRequested) {
      view.finish('cancelled', 'cancelled', null, 0); // stopped before anything was sent
      endRun(run);
      refreshConversations();
      return;
    }
    const cache = { turn: state.lastTurn + 1, lastEventId: 0, events: [] };
    view.numbered(cache.turn);
    const response = await api.sendMessage(run.id, text, run.controller.signal, files);
    if (run.stopRequested) {
      api.stop(run.id).catch(() => {}); // the first stop may have come before the turn existed
    }
    saveRunCache(run.id, cache);
    refreshConversations();
    await follow(run, cache, null, response);
  } catch (e) {
    if (run.detached) {
      return;
    }
    endRun(run);
    if (e.code === 'turn_in_progress' && run.id) {
      // Another tab (or client) runs a turn here: follow it instead of failing; the message waits in the box.
      view.el.remove();
      keepInBox(text);
      toast('A turn is already running in this conversation (in another tab?): showing it. Your message is still in the box.');
      openConversation(run.id);
      return;
    }
    if (e.code === 'budget_spent') {
      account.refreshUsage();
    }
    view.failedToStart(describe(e), retryable(e.code) ? 'retry' : null);
    keepInBox(text); // not sent: it can be changed and sent again
    refreshConversations();
  }
}

/**
 * Sends {@code text} as turn {@code turnNumber} of a fork of the shown conversation: an edited message,
 * or (the same message again) a regenerated answer. The conversation shown stays as it was; the fork
 * shares its turns before that one, so the provider's cache still serves them.
 */
async function sendInFork(turnNumber, text) {
  if (state.run) {
    toast('Wait for the answer to end (or stop it) before editing a message.');
    return;
  }
  let fork;
  try {
    fork = await api.fork(state.id, turnNumber);
  } catch (e) {
    toast('Could not edit: ' + describe(e));
    return;
  }
  history.pushState(null, '', '#/c/' + encodeURIComponent(fork.id));
  await openConversation(fork.id);
  send(text);
}

/** Puts a message that was not sent back into the empty box, so it is not lost. */
function keepInBox(text) {
  if (ui.input.value.trim() === '') {
    ui.input.value = text;
    autosize();
  }
  ui.input.focus();
}

/**
 * Reads a turn's events into its view until done or error. When the stream is cut before that,
 * re-attaches with Last-Event-ID (a few times), then offers to reconnect.
 *
 * The run ends at its done or error event, not when the server closes the stream a moment later:
 * the server has recorded the turn by then, so the next message can go at once (Enter in between is
 * not lost), and the late close of this stream then changes nothing (the next turn may be running).
 */
async function follow(run, cache, reopen, firstResponse) {
  let response = firstResponse;
  let finished = false;
  let noRun = false;
  for (let attempt = 0; !finished && attempt < 4 && !run.detached; attempt++) {
    try {
      if (!response) {
        if (attempt > 0) {
          await new Promise(resolve => setTimeout(resolve, 300 * attempt));
        }
        response = await (reopen || (signal => api.events(run.id, cache.lastEventId, signal)))(run.controller.signal);
        if (response === null) {
          noRun = true; // nothing (more) to follow: the turn ended meanwhile, or the server restarted
          break;
        }
      }
      await readEvents(response, ({ id, data }) => {
        if (finished) {
          return; // nothing comes after the last event; were it to, it is not this turn's
        }
        if (id !== null) {
          if (id <= cache.lastEventId) {
            return; // seen already
          }
          cache.lastEventId = id;
        }
        cache.events.push(data);
        saveSoon(run.id, cache);
        run.view.apply(data);
        if (data.type === 'context-cut') {
          markLiveContextCut(run.id, data);
        }
        if (data.type === 'done' || data.type === 'error') {
          finished = true;
          turnEnded(run, cache);
        }
      });
    } catch (e) {
      if (run.detached) {
        return;
      }
    }
    response = null;
    reopen = null;
  }
  if (run.detached || finished) {
    return; // left, or ended at its last event (turnEnded)
  }
  if (noRun && Date.now() - (reloadedAfterNoRun.get(run.id) || 0) > 5000) {
    // What is stored is the whole story now: show it (once; a second time in a row offers Reconnect).
    reloadedAfterNoRun.set(run.id, Date.now());
    pendingSave = null;
    clearRunCache(run.id);
    endRun(run);
    openConversation(run.id);
  } else {
    flushSave(); // keep what was seen: reconnecting asks only for the rest
    endRun(run);
    run.view.finish('interrupted', null, null, run.view.iterations.length);
    run.view.showError('The connection to the server was lost.', 'reconnect');
  }
}

const reloadedAfterNoRun = new Map();

/** A followed turn's last event arrived: the page is ready for the next message at once. */
function turnEnded(run, cache) {
  if (run.detached) {
    return;
  }
  pendingSave = null;
  clearRunCache(run.id);
  state.lastTurn = Math.max(state.lastTurn, cache.turn); // with the run's end: the next turn is numbered after it
  endRun(run);
  refreshConversations();
  refreshConversationUsage(run.id, run.view, cache.turn);
  skills.refresh();
  account.refreshUsage();
}

/** Marks a cut made in the followed turn; where its kept entry is shown comes from the stored entries. */
async function markLiveContextCut(id, cut) {
  const load = state.load;
  try {
    const snapshot = await api.conversation(id);
    if (load === state.load && state.id === id && markContextCut(ui.turns, snapshot.entries, cut.keptFrom, cut.note)) {
      contentChanged();
    }
  } catch {
    // the mark shows when the conversation is next opened
  }
}

async function stop() {
  const run = state.run;
  if (!run || run.stopRequested) {
    return;
  }
  run.stopRequested = true;
  ui.stop.disabled = true;
  run.view.setProgress('Stopping…');
  if (run.id) {
    try {
      await api.stop(run.id);
    } catch (e) {
      toast('Could not stop the turn: ' + describe(e));
      ui.stop.disabled = false;
      run.stopRequested = false;
      return;
    }
  }
  // The server ends the turn with done(cancelled) at once; if that never arrives, stop waiting.
  setTimeout(() => {
    if (!run.ended && state.run === run) {
      detachRun();
      openConversation(run.id);
    }
  }, 5000);
}

// ---- conversations ----------------------------------------------------------------------------

function idFromHash() {
  const match = /^#\/c\/([^/]+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

function addTurn(view) {
  view.onChange = contentChanged;
  ui.turns.append(view.el);
  return view;
}

function showEmptyState(show) {
  ui.empty.hidden = !show;
}

function newChat() {
  detachRun();
  state.load++;
  state.id = null;
  state.lastTurn = -1;
  ui.turns.replaceChildren();
  showConversationUsage(null);
  showExport(null);
  picker.reset();
  picker.show(true);
  showProvider(picker.chosen());
  showEmptyState(true);
  if (location.hash) {
    history.pushState(null, '', location.pathname + location.search);
  }
  markCurrent();
  closeSidebarOnPhone();
  ui.input.focus();
}

/** Shows a stored conversation exactly as stored, and follows its running turn if it has one. */
async function openConversation(id) {
  detachRun();
  const load = ++state.load;
  state.id = id;
  picker.show(false);
  markCurrent();
  closeSidebarOnPhone();
  let snapshot;
  try {
    snapshot = await api.conversation(id);
  } catch (e) {
    if (load === state.load) {
      ui.turns.replaceChildren();
      showEmptyState(true);
      toast(e.status === 404 ? 'That conversation no longer exists.' : 'Could not open the conversation: ' + describe(e));
      if (e.status === 404) {
        clearRunCache(id);
        newChat();
      }
    }
    return;
  }
  if (load !== state.load) {
    return;
  }
  ui.turns.replaceChildren();
  showConversationUsage(snapshot.usage);
  showExport(snapshot);
  showConversationProvider(snapshot);
  state.lastTurn = -1;
  let running = null;
  for (const turn of snapshot.turns) {
    state.lastTurn = Math.max(state.lastTurn, turn.turn);
    if (turn.status === 'running') {
      running = turn;
    } else {
      addTurn(TurnView.fromStored(turn, snapshot.entries, actions));
    }
  }
  showEmptyState(snapshot.turns.length === 0);
  state.stick = true;
  if (running) {
    reattach(id, running);
  } else {
    clearRunCache(id);
  }
  for (const turn of snapshot.turns) {
    if (turn.contextCut) {
      markContextCut(ui.turns, snapshot.entries, turn.contextCut.keptFromSeq, turn.contextCut.note);
    }
  }
  scrollToEnd();
}

/** Follows a running turn: what this tab already saw comes from its cache, the rest from the server. */
function reattach(id, turn) {
  const view = addTurn(new TurnView(turn.userMessage ?? '', actions, turn.attachments ? actions.chips(turn.attachments) : null)
    .numbered(turn.turn));
  const run = startRun(view, id);
  let cache = readRunCache(id);
  if (cache && cache.turn === turn.turn && Array.isArray(cache.events)) {
    for (const event of cache.events) {
      view.apply(event);
    }
    view.flush();
  } else {
    cache = { turn: turn.turn, lastEventId: 0, events: [] }; // nothing seen here: replay the whole turn
  }
  scrollToEnd();
  follow(run, cache, signal => api.events(id, cache.lastEventId, signal));
}

const search = $('search');
let searchTimer = null;

search.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(refreshConversations, 200);
});
search.addEventListener('keydown', event => {
  if (event.key === 'Escape' && search.value) {
    event.preventDefault(); // clears the search, nothing else
    search.value = '';
    refreshConversations();
  } else if (event.key === 'ArrowDown') {
    const first = ui.list.querySelector('.conversation-open');
    if (first) {
      event.preventDefault();
      first.focus();
    }
  }
});

/** The list, or with words in the search box the chats whose title or messages have them (searched in the database). */
async function refreshConversations() {
  const query = search.value.trim();
  let answer;
  try {
    answer = query ? await api.search(query) : await api.listConversations();
    if (query !== search.value.trim()) {
      return; // typed on meanwhile: the next answer shows
    }
  } catch (e) {
    toast('Could not load the conversations: ' + describe(e));
    return;
  }
  showConversationList(answer.conversations, query);
}

/** The list in groups by the last activity (Today, Yesterday, Previous 7 days, Older), newest first. */
function showConversationList(conversations, query) {
  if (listEditing) {
    return; // the rename or confirmation reloads the list when it ends
  }
  const focusedId = document.activeElement && document.activeElement.closest('.conversation')
    ? document.activeElement.closest('.conversation').dataset.id : null;
  const groups = new Map();
  for (const conversation of conversations) {
    const group = dayGroup(conversation.updatedAt);
    if (!groups.has(group)) {
      groups.set(group, []);
    }
    groups.get(group).push(conversationItem(conversation));
  }
  ui.list.replaceChildren(...[...groups].map(([name, items]) => {
    const section = element('section', 'conversation-group');
    const list = element('ul', 'conversation-group-list');
    list.append(...items);
    section.append(element('h2', 'conversation-group-name', name), list);
    return section;
  }));
  ui.listEmpty.hidden = conversations.length > 0;
  ui.listEmpty.textContent = query ? `No chat has “${query}”.` : 'No conversations yet.';
  const shown = conversations.find(c => c.id === state.id);
  if (shown) {
    showExport(shown); // its title may be new (the first message names it)
  }
  markCurrent();
  if (focusedId) {
    const again = ui.list.querySelector(`.conversation[data-id="${CSS.escape(focusedId)}"] .conversation-open`);
    if (again) {
      again.focus(); // a refresh does not throw the keyboard's place away
    }
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function dayGroup(millis) {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const start = today.getTime();
  if (millis >= start) {
    return 'Today';
  }
  if (millis >= start - DAY_MS) {
    return 'Yesterday';
  }
  return millis >= start - 7 * DAY_MS ? 'Previous 7 days' : 'Older';
}

/** When a chat was last active: the time today, else the date (with the year when it is not this one). */
function shortWhen(millis) {
  const when = new Date(millis);
  const now = new Date();
  if (when.toDateString() === now.toDateString()) {
    return when.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  return when.toLocaleDateString(undefined, when.getFullYear() === now.getFullYear()
    ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
}

/**
 * One row: a single tab stop (the link). Its buttons are reached with the mouse, or from the link with
 * F2 (rename) and Delete; ArrowUp and ArrowDown move between rows.
 */
function conversationItem(conversation) {
  const li = element('li', 'conversation');
  li.dataset.id = conversation.id;
  li.dataset.running = String(conversation.running);
  const title = conversation.title || 'New chat';
  const open = element('a', 'conversation-open');
  open.href = '#/c/' + encodeURIComponent(conversation.id);
  open.title = title + '\nLast active ' + new Date(conversation.updatedAt).toLocaleString()
    + '\nF2 renames, Delete deletes';
  open.setAttribute('aria-keyshortcuts', 'F2 Delete');
  open.append(element('span', 'conversation-title', title));
  // The date (and a fork's mark) come from CSS: the link's text stays the title alone.
  open.dataset.when = shortWhen(conversation.updatedAt);
  if (conversation.forkedFrom) {
    li.dataset.fork = 'true';
  }
  open.addEventListener('click', closeSidebarOnPhone); // also when it is the conversation shown
  const rename = iconButton('✎', 'Rename ' + title, 'rename');
  rename.addEventListener('click', () => startRename(li, open, conversation));
  const remove = iconButton('✕', 'Delete ' + title, 'delete');
  remove.addEventListener('click', () => confirmDelete(li, conversation));
  open.addEventListener('keydown', event => {
    if (event.key === 'F2') {
      event.preventDefault();
      startRename(li, open, conversation);
    } else if (event.key === 'Delete') {
      event.preventDefault();
      confirmDelete(li, conversation);
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const links = [...ui.list.querySelectorAll('.conversation-open')];
      const next = links[links.indexOf(open) + (event.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        next.focus();
      }
    }
  });
  li.append(open, rename, remove);
  return li;
}

function iconButton(symbol, label, className) {
  const button = element('button', 'icon-button ' + className, symbol);
  button.type = 'button';
  button.tabIndex = -1; // one tab stop per row: the keyboard uses F2 and Delete on the row's link
  button.setAttribute('aria-label', label);
  button.title = label;
  return button;
}

/** A rename or a delete confirmation is under way in the list: a refresh would throw it away, so refreshes wait for its end. */
let listEditing = false;

function startRename(li, open, conversation) {
  listEditing = true;
  const input = element('input', 'rename-input');
  input.value = conversation.title || '';
  input.setAttribute('aria-label', 'New title');
  input.maxLength = 200;
  li.replaceChildren(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async save => {
    if (done) {
      return;
    }
    done = true;
    listEditing = false;
    const title = input.value.trim();
    if (save && title && title !== conversation.title) {
      try {
        await api.rename(conversation.id, title);
      } catch (e) {
        toast('Could not rename: ' + describe(e));
      }
    }
    await refreshConversations();
    const again = ui.list.querySelector(`li[data-id="${CSS.escape(conversation.id)}"] .conversation-open`);
    if (again) {
      again.focus();
    }
  };
  input.addEventListener('keydown', event => {
    if (event.key === 'Enter') {
      event.preventDefault();
      finish(true);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      finish(false);
    }
  });
  input.addEventListener('blur', () => finish(true));
}

function confirmDelete(li, conversation) {
  const title = conversation.title || 'New chat';
  const box = element('div', 'confirm');
  box.append(element('span', null, `Delete “${title}”?`));
  const yes = element('button', 'button danger confirm-yes', 'Delete');
  yes.type = 'button';
  const no = element('button', 'button', 'Keep');
  no.type = 'button';
  box.append(yes, no);
  li.replaceChildren(box);
  listEditing = true;
  no.focus(); // the safe choice: Enter right after Delete keeps the chat
  const keep = async () => {
    listEditing = false;
    await refreshConversations();
    const row = ui.list.querySelector(`li[data-id="${CSS.escape(conversation.id)}"] .conversation-open`);
    (row || ui.input).focus();
  };
  no.addEventListener('click', keep);
  box.addEventListener('keydown', event => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation(); // cancels the confirmation only, not a running answer
      keep();
    }
  });
  yes.addEventListener('click', async () => {
    deletedHere.add(conversation.id); // its change event is not news to this tab
    try {
      await api.remove(conversation.id);
    } catch (e) {
      listEditing = false;
      toast(e.status === 409 ? 'A turn is running in that conversation: stop it first.' : 'Could not delete: ' + describe(e));
      refreshConversations();
      return;
    }
    listEditing = false;
    clearRunCache(conversation.id);
    if (state.id === conversation.id) {
      newChat();
    }
    refreshConversations();
  });
}

/** The export links for the shown conversation (hidden for a new chat): Markdown and JSON, named by its title. */
function showExport(conversation) {
  const box = $('export');
  box.hidden = !conversation;
  if (!conversation) {
    return;
  }
  const name = (conversation.title || 'conversation').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'conversation';
  const markdown = $('export-markdown');
  markdown.href = api.exportUrl(conversation.id, 'markdown');
  markdown.download = name + '.md';
  const json = $('export-json');
  json.href = api.exportUrl(conversation.id, 'json');
  json.download = name + '.json';
}

/** The conversation's totals in the top bar: tokens in and out, the cached share of the prompt, cache writes, the cost. */
function showConversationUsage(usage) {
  const parts = [];
  if (usage && typeof usage.inputTokens === 'number') {
    parts.push('in ' + formatCount(usage.inputTokens));
  }
  if (usage && typeof usage.outputTokens === 'number') {
    parts.push('out ' + formatCount(usage.outputTokens));
  }
  if (usage && typeof usage.cacheShare === 'number') {
    parts.push('cache ' + Math.round(100 * usage.cacheShare) + '%');
  }
  if (usage && typeof usage.cacheWriteTokens === 'number') {
    parts.push('written ' + formatCount(usage.cacheWriteTokens));
  }
  const cost = costText(usage);
  if (cost) {
    parts.push(cost);
  }
  ui.conversationUsage.textContent = parts.length ? 'conversation: ' + parts.join(' · ') : '';
  ui.conversationUsage.hidden = parts.length === 0;
}

/** After a turn: the conversation's totals, and the turn's cost as the server priced it. */
async function refreshConversationUsage(id, view, turnNumber) {
  try {
    const snapshot = await api.conversation(id);
    if (state.id === id) {
      showConversationUsage(snapshot.usage);
    }
    const stored = snapshot.turns.find(turn => turn.turn === turnNumber);
    if (view && stored) {
      view.showCost(stored.usage);
    }
  } catch {
    // the totals stay as they were; the next turn or switch refreshes them
  }
}

function markCurrent() {
  for (const li of ui.list.querySelectorAll('.conversation')) {
    const link = li.querySelector('.conversation-open');
    if (link) {
      if (li.dataset.id === state.id) {
        link.setAttribute('aria-current', 'page');
      } else {
        link.removeAttribute('aria-current');
      }
    }
  }
}

// ---- scrolling --------------------------------------------------------------------------------

function nearBottom() {
  const m = ui.messages;
  return m.scrollHeight - m.scrollTop - m.clientHeight < 48;
}

function scrollToEnd() {
  ui.messages.scrollTop = ui.messages.scrollHeight;
  ui.jump.hidden = true;
}

function contentChanged() {
  if (state.stick) {
    scrollToEnd();
  } else {
    ui.jump.hidden = false;
  }
}

// Only the person scrolling up stops the following: content that grows or shrinks also moves the
// scroll position, and that must not count as "scrolled up to read".
let lastUserScroll = 0;
const userScrolls = () => { lastUserScroll = Date.now(); };
ui.messages.addEventListener('wheel', userScrolls, { passive: true });
ui.messages.addEventListener('touchmove', userScrolls, { passive: true });
ui.messages.addEventListener('pointerdown', userScrolls); // the scroll bar
ui.messages.addEventListener('keydown', event => {
  if (['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' '].includes(event.key)) {
    userScrolls();
  }
});

ui.messages.addEventListener('scroll', () => {
  if (nearBottom()) {
    state.stick = true;
    ui.jump.hidden = true;
  } else if (Date.now() - lastUserScroll < 1000) {
    state.stick = false;
  } else if (state.stick) {
    scrollToEnd();
  }
});

ui.jump.addEventListener('click', () => {
  state.stick = true;
  scrollToEnd();
  ui.input.focus();
});

// ---- composer ---------------------------------------------------------------------------------

function autosize() {
  ui.input.style.height = 'auto';
  ui.input.style.height = Math.min(ui.input.scrollHeight, 220) + 'px';
}

ui.composer.addEventListener('submit', event => {
  event.preventDefault();
  const text = ui.input.value;
  if (state.run || (text.trim() === '' && pending.files.length === 0)) {
    return;
  }
  ui.input.value = '';
  autosize();
  send(text, pending.take());
});

// Files: picked (+), dropped anywhere on the chat, pasted images, or a long paste turned into a text file. An image
// the shown provider's model does not see is refused at once, with the reason (GET /api/providers says which see).
const pending = new PendingAttachments($('pending-attachments'), preview, message => toast(message), () => shownProvider);
const fileInput = $('file-input');
fileInput.accept = ACCEPT;
$('attach').addEventListener('click', () => fileInput.click());
fileInput.addEventListener('change', () => {
  pending.add([...fileInput.files]);
  fileInput.value = ''; // the same file may be picked again
  ui.input.focus();
});
ui.chat.addEventListener('dragover', event => {
  if (event.dataTransfer && [...event.dataTransfer.types].includes('Files')) {
    event.preventDefault();
    ui.chat.classList.add('dropping');
  }
});
ui.chat.addEventListener('dragleave', event => {
  if (event.target === ui.chat || !ui.chat.contains(event.relatedTarget)) {
    ui.chat.classList.remove('dropping');
  }
});
ui.chat.addEventListener('drop', event => {
  ui.chat.classList.remove('dropping');
  if (event.dataTransfer && event.dataTransfer.files.length) {
    event.preventDefault();
    pending.add([...event.dataTransfer.files]);
    ui.input.focus();
  }
});
ui.input.addEventListener('paste', event => {
  const images = event.clipboardData ? [...event.clipboardData.files].filter(file => file.type.startsWith('image/')) : [];
  if (images.length) {
    event.preventDefault(); // a screenshot or a copied picture becomes a chip (a copied image may carry its URL as text too)
    images.forEach(image => pending.addPastedImage(image));
    return;
  }
  const text = event.clipboardData ? event.clipboardData.getData('text/plain') : '';
  if (text && isLongPaste(text)) {
    event.preventDefault(); // a long document becomes a chip, not a bubble thousands of pixels tall
    if (pending.addPastedText(text)) {
      toast('The long paste was attached as a text file.');
    }
  }
});

ui.input.addEventListener('keydown', event => {
  if (event.key === 'Enter' && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey && !event.isComposing) {
    event.preventDefault(); // Enter sends; Shift+Enter keeps its default: a new line
    ui.composer.requestSubmit();
  }
});
ui.input.addEventListener('input', autosize);
ui.stop.addEventListener('click', stop);

for (const example of document.querySelectorAll('.example')) {
  example.addEventListener('click', () => {
    send(example.textContent.trim());
    ui.input.focus(); // the next message can be typed at once
  });
}

// ---- chrome: provider label, theme, sidebar, notices ------------------------------------------

/** The provider the next message goes to (a listing of GET /api/providers), or null while unknown. */
let shownProvider = null;

/**
 * The provider in the top bar: the shown conversation's, or the one a new chat will get. With one
 * provider configured it reads as it always did; with several it names the provider and its model.
 */
function showProvider(provider) {
  shownProvider = provider && provider.name ? provider : null;
  pending.recheck();
  ui.provider.classList.remove('simulated', 'offline', 'several');
  ui.provider.removeAttribute('title');
  ui.simNotice.hidden = !(provider && provider.simulated);
  if (!provider) {
    ui.provider.textContent = '';
    return;
  }
  const { label, note } = describeProvider(provider);
  if (!picker.several) {
    if (provider.simulated) {
      ui.provider.textContent = 'Simulated provider · offline demo';
      ui.provider.classList.add('simulated');
      ui.provider.title = 'No real model is answering: the server runs a simulated provider (no key configured).';
    } else {
      ui.provider.textContent = label;
    }
    return;
  }
  ui.provider.classList.add('several');
  ui.provider.textContent = note ? label + ' · ' + note : label;
  ui.provider.title = (state.id ? 'This conversation\'s provider: ' : 'A new chat goes to: ') + label
      + (provider.simulated ? ' (simulated: not a real model)' : note ? ' (' + note + ')' : '');
  if (provider.simulated) {
    ui.provider.classList.add('simulated');
  }
}

/** The top bar for a stored conversation: its own provider and model (a summary or a snapshot). */
function showConversationProvider(conversation) {
  if (state.id !== conversation.id) {
    return;
  }
  const configured = picker.find(conversation.provider);
  if (configured || conversation.provider) {
    showProvider({ ...configured, name: conversation.provider, model: conversation.model || (configured && configured.model) });
  }
}

/** Loads the providers, then labels what is shown; falls back to /healthz's one provider. */
async function loadProviders() {
  if (await picker.load()) {
    if (state.id === null) {
      showProvider(picker.chosen());
    } else {
      refreshConversationProvider(state.id);
    }
    return;
  }
  try {
    const health = await api.health();
    showProvider(health.provider || {});
  } catch {
    ui.provider.textContent = 'Server unreachable';
    ui.provider.classList.add('offline');
  }
}

async function refreshConversationProvider(id) {
  try {
    showConversationProvider(await api.conversation(id));
  } catch {
    // the label comes with the next open
  }
}

const THEMES = ['auto', 'light', 'dark'];
const THEME_SYMBOL = { auto: '◐', light: '☀', dark: '☾' };

function applyTheme(theme) {
  if (theme === 'auto') {
    delete document.documentElement.dataset.theme;
  } else {
    document.documentElement.dataset.theme = theme;
  }
  ui.theme.textContent = THEME_SYMBOL[theme];
  ui.theme.setAttribute('aria-label', 'Colour theme: ' + (theme === 'auto' ? 'automatic' : theme));
}

function storedTheme() {
  try {
    const theme = localStorage.getItem('skillforge.theme');
    return THEMES.includes(theme) ? theme : 'auto';
  } catch {
    return 'auto';
  }
}

ui.theme.addEventListener('click', () => {
  const next = THEMES[(THEMES.indexOf(storedTheme()) + 1) % THEMES.length];
  try {
    localStorage.setItem('skillforge.theme', next);
  } catch {
    // not remembered, still applied
  }
  applyTheme(next);
});

function closeSidebarOnPhone() {
  ui.body.classList.remove('sidebar-open');
  ui.sidebarToggle.setAttribute('aria-expanded', 'false');
}

ui.sidebarToggle.addEventListener('click', () => {
  const open = ui.body.classList.toggle('sidebar-open');
  ui.sidebarToggle.setAttribute('aria-expanded', String(open));
  if (open) {
    $('new-chat').focus();
  }
});

$('new-chat').addEventListener('click', newChat);

// On a phone the list is a drawer: a tap beside it or Escape closes it.
$('chat').addEventListener('click', () => {
  if (ui.body.classList.contains('sidebar-open')) {
    closeSidebarOnPhone();
  }
});
document.addEventListener('keydown', event => {
  if (event.defaultPrevented) {
    return; // handled where it happened (a confirmation, a rename, the skills panel)
  }
  if (event.key === 'Escape' && ui.body.classList.contains('sidebar-open')) {
    closeSidebarOnPhone();
    ui.sidebarToggle.focus();
  } else if (event.key === 'Escape' && state.run && !skills.isOpen) {
    event.preventDefault();
    stop(); // as ChatGPT and Open WebUI do: Escape stops the answer being written
  } else if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === 'k') {
    event.preventDefault(); // Ctrl+K: search the chats
    ui.body.classList.add('sidebar-open');
    search.focus();
    search.select();
  } else if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === 'o') {
    event.preventDefault(); // Ctrl+Shift+O: a new chat, ChatGPT's shortcut
    newChat();
  }
});

let toastTimer = null;

function toast(message) {
  ui.toast.textContent = message;
  ui.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { ui.toast.hidden = true; }, 6000);
}

function describe(error) {
  if (error instanceof TypeError) {
    // fetch's own words ("Failed to fetch", "NetworkError…") say nothing to a person
    return 'The server cannot be reached: is it running? Check the terminal where you started it.';
  }
  return error && error.message ? error.message : String(error);
}

/** Whether sending the same message again can help: not for a message that is too long, a missing key, … */
function retryable(code) {
  return !NOT_RETRYABLE.has(code);
}

const NOT_RETRYABLE = new Set(['message_too_large', 'body_too_large', 'invalid_request', 'invalid_json', 'provider_no_key',
  'provider_not_configured', 'provider_prompt_blocked', 'provider_finish_content_filter', 'not_found']);

window.addEventListener('hashchange', () => {
  const id = idFromHash();
  if (id === state.id) {
    return;
  }
  if (id) {
    openConversation(id);
  } else {
    newChat();
  }
});

// ---- live: one stream of conversation changes per page ---------------------------------------

let listTimer = null;
const deletedHere = new Set();

/**
 * Every tab sees what the others (and other clients) change: the list follows, and a turn started
 * elsewhere in the chat shown here is followed as it runs. EventSource reconnects by itself. A hidden
 * tab closes its stream (a browser allows only six connections to a server over HTTP/1.1, and each
 * open stream holds one); shown again, it reopens it and catches up with what it missed.
 */
function listenForChanges() {
  if (!window.EventSource) {
    return;
  }
  let changes = null;
  const open = () => {
    changes = new EventSource('/api/conversations/changes');
    changes.addEventListener('open', catchUp);
    changes.addEventListener('message', event => {
      let change;
      try {
        change = JSON.parse(event.data);
      } catch {
        return;
      }
      onChange(change);
    });
  };
  document.addEventListener('visibilitychange', () => {
    if (document.hidden && changes) {
      changes.close();
      changes = null;
      clearTimeout(listTimer); // a change that came just before: caught up with the rest when shown
    } else if (!document.hidden && !changes) {
      open();
    }
  });
  if (!document.hidden) {
    open();
  }
}

/** After (re)connecting: the list as it is now, and the shown chat's turn if one runs there that this tab does not follow. */
async function catchUp() {
  await refreshConversations();
  const row = state.id && ui.list.querySelector(`.conversation[data-id="${CSS.escape(state.id)}"]`);
  if (row && row.dataset.running === 'true' && !state.run) {
    openConversation(state.id);
  }
}

function onChange(change) {
  clearTimeout(listTimer);
  listTimer = setTimeout(refreshConversations, 100);
  if (change.id !== state.id || state.run) {
    return; // another chat, or this tab follows the shown one's turn already
  }
  if (change.change === 'running') {
    openConversation(change.id); // shows it and follows the turn
  } else if (change.change === 'ended' && ui.turns.querySelector('.turn[data-status="running"]')) {
    openConversation(change.id);
  } else if (change.change === 'deleted' && !deletedHere.has(change.id)) {
    toast('This chat was deleted (in another tab?).');
    newChat();
  }
}

// ---- start ------------------------------------------------------------------------------------

applyTheme(storedTheme());
refreshConversations();
ui.input.focus(); // the person can type at once
const initial = idFromHash();
if (initial) {
  openConversation(initial);
} else {
  picker.show(true);
  showEmptyState(true);
}
loadProviders();
account.load().then(() => skills.allowPublishing(account.me));
listenForChanges();
ui.body.dataset.ready = 'true';
