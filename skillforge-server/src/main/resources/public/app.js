// The chat page's owner of state: which conversation is shown, sending a message and following its turn, stop,
// re-attaching after a reload or a switch, what to do on a change elsewhere, and wiring the modules (composer.js the
// message box and its files, scrolling.js following the chat to its end, live-changes.js the change feed,
// conversation-list.js the sidebar, run-cache.js what a tab saw of a turn, turn.js a turn's view, notices.js toasts,
// settings.js, account.js, skills.js, branches.js, search.js, attachments.js). It talks only to the server's API.

import { Account } from './account.js';
import { api, readEvents } from './api.js';
import { ProviderPicker, describeProvider } from './providers.js';
import { costText, element, formatCount } from './render.js';
import { Settings } from './settings.js';
import { SkillsPanel } from './skills.js';
import { TurnView, markContextCut } from './turn.js';
import { Preview, chip, storedChips } from './attachments.js';
import { Composer } from './composer.js';
import { listenForChanges } from './live-changes.js';
import { StickyScroll } from './scrolling.js';
import { revealFound } from './search.js';
import { ConversationList } from './conversation-list.js';
import { describe, retryable, toast } from './notices.js';
import { clearRunCache, flushSave, readRunCache, saveRunCache, saveSoon } from './run-cache.js';
import { showBranchSwitches } from './branches.js';

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
  provider: $('provider'),
  conversationUsage: $('conversation-usage'),
  simNotice: $('sim-notice'),
  sidebarToggle: $('toggle-sidebar'),
};

const state = {
  id: null, // the conversation shown: one branch of its thread
  threadId: null, // its thread, which the list shows as one row
  lastTurn: -1, // the number of its last turn (the server numbers turns 0, 1, 2, …)
  run: null, // the turn this page is following in the shown conversation
  load: 0, // increases on every switch, so a slow load for an earlier choice is dropped
  opening: null, // the conversation being opened (a promise): a message sent meanwhile waits for it
  chat: null, // the shown conversation's provider and model, once known: {id, provider, model}
};

const preview = new Preview();
const scroll = new StickyScroll(ui.messages, ui.jump, () => ui.input.focus());
const composer = new Composer({
  form: ui.composer, input: ui.input, chat: ui.chat, attach: $('attach'), fileInput: $('file-input'),
  pendingList: $('pending-attachments'), stopButton: ui.stop, examples: document.querySelectorAll('.example'),
}, {
  preview,
  toast: message => toast(message),
  shownProvider: () => shownProvider,
  busy: () => Boolean(state.run),
  send: (text, files) => send(text, files),
  stop: () => stop(),
});

/** What Continue sends after a stopped answer: a new turn asking the model to go on (the stored answer stays as it is). */
const CONTINUE_MESSAGE = 'Continue from where you stopped.';

const actions = {
  retry: message => send(message),
  retryable: code => retryable(code),
  edit: (turnNumber, text) => sendInFork(turnNumber, text),
  continue: () => send(CONTINUE_MESSAGE),
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
const settings = new Settings({
  onError: message => toast(message),
  picker,
  shownChat: () => (state.id && state.chat && state.chat.id === state.id ? state.chat : null),
  newChatOn: name => {
    newChat();
    picker.choose(name);
  },
});

const chatList = new ConversationList({
  state,
  onOpen: () => {
    closeSidebarOnPhone();
    ui.input.focus(); // the next thing a person does is type, not Tab through the list
  },
  onOpenFound: id => openFound(id),
  onShown: conversation => showExport(conversation),
  onDeleted: id => {
    if (state.id === id) {
      newChat();
    }
  },
});

/** Opens a chat at a search result's passage (search.js): by its address, or again when it is the one shown. */
function openFound(id) {
  closeSidebarOnPhone();
  if (idFromHash() === id) {
    openConversation(id);
  } else {
    location.hash = '#/c/' + encodeURIComponent(id);
  }
}

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
  if (state.opening) {
    await state.opening; // sent in the instant of a switch: it goes to the conversation being opened, once shown
    if (state.run) {
      composer.keep(text); // that conversation has a turn running: the message waits in the box
      return;
    }
  }
  if (state.run || (text.trim() === '' && files.length === 0)) {
    return;
  }
  showEmptyState(false);
  const sentChips = files.length ? element('ul', 'attachment-chips sent') : null;
  files.forEach(file => sentChips.append(chip(file, preview)));
  const view = addTurn(new TurnView(text, actions, sentChips));
  scroll.stick = true;
  scroll.toEnd();
  const run = startRun(view, state.id);
  let created = null; // made for this message: not kept when the message is refused
  try {
    if (!run.id) {
      const chosen = picker.several ? picker.chosen() : null;
      created = await api.createConversation(chosen ? chosen.name : undefined);
      run.id = created.id;
      if (!run.detached) {
        state.id = created.id;
        state.threadId = created.threadId;
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
      chatList.refresh();
      return;
    }
    const cache = { turn: state.lastTurn + 1, lastEventId: 0, events: [] };
    view.numbered(cache.turn);
    const response = await api.sendMessage(run.id, text, run.controller.signal, files);
    if (run.stopRequested) {
      api.stop(run.id).catch(() => {}); // the first stop may have come before the turn existed
    }
    saveRunCache(run.id, cache);
    chatList.refresh();
    await follow(run, cache, null, response);
  } catch (e) {
    if (run.detached) {
      return;
    }
    endRun(run);
    if (e.code === 'turn_in_progress' && run.id) {
      // Another tab (or client) runs a turn here: follow it instead of failing; the message waits in the box.
      view.el.remove();
      composer.keep(text);
      toast('A turn is already running in this conversation (in another tab?): showing it. Your message is still in the box.');
      openConversation(run.id);
      return;
    }
    if (e.code === 'budget_spent') {
      account.refreshUsage();
    }
    view.failedToStart(describe(e), retryable(e.code) ? 'retry' : null);
    composer.keep(text); // not sent: it can be changed and sent again
    if (created && e.status >= 400 && e.status < 500) {
      await forgetRefusedChat(created.id);
    }
    chatList.refresh();
  }
}

/**
 * Sends {@code text} as turn {@code turnNumber} of a fork of the shown conversation: an edited message,
 * or (the same message again) a regenerated answer. The fork is a new version in the same conversation
 * (a branch of its thread, shown from now on; the earlier version stays, a switch away); it shares the
 * turns before that one, so the provider's cache still serves them.
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

/**
 * The chat made for a first message the server refused (too large, a budget spent, a file it does not read) holds
 * nothing: it is deleted rather than left in the list as an empty "New chat", and the page is a new chat again, with
 * the refusal still shown and the message still in the box.
 */
async function forgetRefusedChat(id) {
  chatList.deletedHere.add(id); // its change event is not news to this tab
  try {
    await api.remove(id);
  } catch {
    return; // kept: it shows in the list and can be deleted there
  }
  if (state.id === id) {
    state.id = null;
    state.threadId = null;
    state.lastTurn = -1;
    history.replaceState(null, '', location.pathname + location.search);
    showConversationUsage(null);
    showExport(null);
    picker.show(true);
    chatList.markCurrent();
  }
}

/** Shows another version (branch) of the conversation, and makes it the one the list's row opens. */
async function switchBranch(id) {
  if (state.run) {
    toast('Wait for the answer to end (or stop it) before switching versions.');
    return;
  }
  try {
    await api.select(id);
  } catch (e) {
    toast('Could not switch versions: ' + describe(e));
    return;
  }
  history.pushState(null, '', '#/c/' + encodeURIComponent(id));
  await openConversation(id);
  chatList.refresh();
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
  clearRunCache(run.id);
  state.lastTurn = Math.max(state.lastTurn, cache.turn); // with the run's end: the next turn is numbered after it
  endRun(run);
  chatList.refresh();
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
      scroll.contentChanged();
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
  view.onChange = () => scroll.contentChanged();
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
  state.threadId = null;
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
  chatList.markCurrent();
  closeSidebarOnPhone();
  ui.input.focus();
}

/** Shows a stored conversation exactly as stored, and follows its running turn if it has one. */
/** Shows conversation {@code id}; a message sent before it is shown waits for it (else its turn would be wiped). */
function openConversation(id) {
  const opening = loadConversation(id);
  state.opening = opening;
  const settled = () => {
    if (state.opening === opening) {
      state.opening = null;
    }
  };
  opening.then(settled, settled);
  return opening;
}

async function loadConversation(id) {
  detachRun();
  const load = ++state.load;
  state.id = id;
  picker.show(false);
  chatList.markCurrent();
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
  state.threadId = snapshot.threadId;
  chatList.markCurrent();
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
  showBranchSwitches(ui.turns, snapshot.branches, switchBranch);
  scroll.stick = true;
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
  if (revealFound(id, ui.turns, snapshot.entries)) {
    scroll.stick = false; // opened at a search result: stay there
  } else {
    scroll.toEnd();
  }
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
  scroll.toEnd();
  follow(run, cache, signal => api.events(id, cache.lastEventId, signal));
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
      showBranchSwitches(ui.turns, snapshot.branches, switchBranch); // an edit's or a regeneration's switch, once it has its turn
    }
    const stored = snapshot.turns.find(turn => turn.turn === turnNumber);
    if (view && stored) {
      view.showCost(stored.usage);
    }
  } catch {
    // the totals stay as they were; the next turn or switch refreshes them
  }
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
  composer.providerChanged();
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
  state.chat = { id: conversation.id, provider: conversation.provider, model: conversation.model };
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
  if (event.defaultPrevented || document.querySelector('dialog[open]')) {
    return; // handled where it happened (a confirmation, a rename, the skills panel, a dialog)
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
    chatList.focusSearch();
  } else if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === 'o') {
    event.preventDefault(); // Ctrl+Shift+O: a new chat, ChatGPT's shortcut
    newChat();
  } else {
    settings.handleKey(event);
  }
});

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

// ---- live: what other tabs and clients change -------------------------------------------------

let listTimer = null;

/** After (re)connecting: the list as it is now, and the shown chat's turn if one runs there that this tab does not follow. */
async function catchUp() {
  await chatList.refresh();
  if (chatList.running(state.id) && !state.run) {
    openConversation(state.id);
  }
}

function onChange(change) {
  clearTimeout(listTimer);
  listTimer = setTimeout(() => chatList.refresh(), 100);
  if (change.id !== state.id || state.run) {
    return; // another chat, or this tab follows the shown one's turn already
  }
  if (change.change === 'running') {
    openConversation(change.id); // shows it and follows the turn
  } else if (change.change === 'ended' && ui.turns.querySelector('.turn[data-status="running"]')) {
    openConversation(change.id);
  } else if (change.change === 'deleted' && !chatList.deletedHere.has(change.id)) {
    toast('This chat was deleted (in another tab?).');
    newChat();
  }
}

// ---- start ------------------------------------------------------------------------------------

// The whole hint where it fits; at phone width a placeholder cut mid-word says less than a short one.
const narrow = window.matchMedia('(max-width: 520px)');
const placeholder = () => {
  ui.input.placeholder = narrow.matches ? 'Message SkillForge' : 'Message SkillForge — Enter sends, Shift+Enter adds a line';
};
narrow.addEventListener('change', placeholder);
placeholder();
settings.load();
chatList.refresh();
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
listenForChanges({ onOpen: catchUp, onChange, onHidden: () => clearTimeout(listTimer) }); // a change that came just before: caught up when shown
ui.body.dataset.ready = 'true';
