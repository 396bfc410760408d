// The list of conversations in the sidebar: grouped by day, one row per conversation (its versions are one thread),
// rename and delete in the row, and the search box above it (search.js draws a result's passages).

import { api } from './api.js';
import { element } from './render.js';
import { clearRunCache } from './run-cache.js';
import { describe, toast } from './notices.js';
import { decorateResult } from './search.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export class ConversationList {
  /**
   * @param state       the page's state: which conversation and thread are shown (read, never written here)
   * @param onOpen      a row was clicked (the page closes the phone's drawer and puts the focus in the box)
   * @param onOpenFound opens a chat at a search result's passage
   * @param onShown     the shown conversation's row as the server listed it (its title may be new)
   * @param onDeleted   a conversation was deleted from this tab
   */
  constructor({ state, onOpen, onOpenFound, onShown, onDeleted }) {
    this.list = document.getElementById('conversation-list');
    this.empty = document.getElementById('conversation-list-empty');
    this.search = document.getElementById('search');
    this.input = document.getElementById('input');
    this.state = state;
    this.onOpen = onOpen;
    this.onOpenFound = onOpenFound;
    this.onShown = onShown;
    this.onDeleted = onDeleted;
    /** A rename or a delete confirmation is under way: a refresh would throw it away, so refreshes wait for its end. */
    this.editing = false;
    /** Conversations this tab deleted: their change events are not news here. */
    this.deletedHere = new Set();
    let searchTimer = null;
    this.search.addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => this.refresh(), 200);
    });
    this.search.addEventListener('keydown', event => {
      if (event.key === 'Escape' && this.search.value) {
        event.preventDefault(); // clears the search, nothing else
        this.search.value = '';
        this.refresh();
      } else if (event.key === 'ArrowDown') {
        const first = this.list.querySelector('.conversation-open');
        if (first) {
          event.preventDefault();
          first.focus();
        }
      }
    });
  }

  /** Ctrl+K: the search box, its words selected. */
  focusSearch() {
    this.search.focus();
    this.search.select();
  }

  /** Whether the list says a turn runs in conversation {@code id}. */
  running(id) {
    const row = id && this.list.querySelector(`.conversation[data-id="${CSS.escape(id)}"]`);
    return Boolean(row && row.dataset.running === 'true');
  }

  /** The list, or with words in the search box the chats whose title or messages have them (searched in the database). */
  async refresh() {
    const query = this.search.value.trim();
    let answer;
    try {
      answer = query ? await api.search(query) : await api.listConversations();
      if (query !== this.search.value.trim()) {
        return; // typed on meanwhile: the next answer shows
      }
    } catch (e) {
      toast('Could not load the conversations: ' + describe(e));
      return;
    }
    this.show(answer.conversations, query);
  }

  /** The list in groups by the last activity (Today, Yesterday, Previous 7 days, Older), newest first. */
  show(conversations, query) {
    if (this.editing) {
      return; // the rename or confirmation reloads the list when it ends
    }
    const focusedId = document.activeElement && document.activeElement.closest('.conversation')
      ? document.activeElement.closest('.conversation').dataset.id : null;
    const groups = new Map();
    for (const conversation of conversations) {
      const group = this.dayGroup(conversation.updatedAt);
      if (!groups.has(group)) {
        groups.set(group, []);
      }
      groups.get(group).push(this.item(conversation));
    }
    this.list.replaceChildren(...[...groups].map(([name, items]) => {
      const section = element('section', 'conversation-group');
      const list = element('ul', 'conversation-group-list');
      list.append(...items);
      section.append(element('h2', 'conversation-group-name', name), list);
      return section;
    }));
    this.empty.hidden = conversations.length > 0;
    this.empty.textContent = query ? `No chat has “${query}”.` : 'No conversations yet.';
    const shown = conversations.find(c => c.id === this.state.id);
    if (shown) {
      this.onShown(shown); // its title may be new (the first message names it)
    }
    this.markCurrent();
    if (focusedId) {
      const again = this.list.querySelector(`.conversation[data-id="${CSS.escape(focusedId)}"] .conversation-open`);
      if (again) {
        again.focus(); // a refresh does not throw the keyboard's place away
      }
    }
  }

  dayGroup(millis) {
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
  shortWhen(millis) {
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
  item(conversation) {
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
    // The date comes from CSS: the link's text stays the title alone.
    open.dataset.when = this.shortWhen(conversation.updatedAt);
    li.dataset.thread = conversation.threadId;
    open.addEventListener('click', () => {
      this.onOpen(); // also when it is the conversation shown
    });
    const rename = this.iconButton('✎', 'Rename ' + title, 'rename');
    rename.addEventListener('click', () => this.startRename(li, open, conversation));
    const remove = this.iconButton('✕', 'Delete ' + title, 'delete');
    remove.addEventListener('click', () => this.confirmDelete(li, conversation));
    open.addEventListener('keydown', event => {
      if (event.key === 'F2') {
        event.preventDefault();
        this.startRename(li, open, conversation);
      } else if (event.key === 'Delete') {
        event.preventDefault();
        this.confirmDelete(li, conversation);
      } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const links = [...this.list.querySelectorAll('.conversation-open')];
        const next = links[links.indexOf(open) + (event.key === 'ArrowDown' ? 1 : -1)];
        if (next) {
          next.focus();
        }
      }
    });
    li.append(open, rename, remove);
    decorateResult(li, open.querySelector('.conversation-title'), conversation, this.onOpenFound);
    return li;
  }

  iconButton(symbol, label, className) {
    const button = element('button', 'icon-button ' + className, symbol);
    button.type = 'button';
    button.tabIndex = -1; // one tab stop per row: the keyboard uses F2 and Delete on the row's link
    button.setAttribute('aria-label', label);
    button.title = label;
    return button;
  }

  startRename(li, open, conversation) {
    this.editing = true;
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
      this.editing = false;
      const title = input.value.trim();
      if (save && title && title !== conversation.title) {
        try {
          await api.rename(conversation.id, title);
        } catch (e) {
          toast('Could not rename: ' + describe(e));
        }
      }
      await this.refresh();
      const again = this.list.querySelector(`li[data-id="${CSS.escape(conversation.id)}"] .conversation-open`);
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

  confirmDelete(li, conversation) {
    const title = conversation.title || 'New chat';
    const box = element('div', 'confirm');
    box.append(element('span', null, `Delete “${title}”?`));
    const yes = element('button', 'button danger confirm-yes', 'Delete');
    yes.type = 'button';
    const no = element('button', 'button', 'Keep');
    no.type = 'button';
    box.append(yes, no);
    li.replaceChildren(box);
    this.editing = true;
    no.focus(); // the safe choice: Enter right after Delete keeps the chat
    const keep = async () => {
      this.editing = false;
      await this.refresh();
      const row = this.list.querySelector(`li[data-id="${CSS.escape(conversation.id)}"] .conversation-open`);
      (row || this.input).focus();
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
      this.deletedHere.add(conversation.id); // its change event is not news to this tab
      try {
        await api.remove(conversation.id);
      } catch (e) {
        this.editing = false;
        toast(e.status === 409 ? 'A turn is running in that conversation: stop it first.' : 'Could not delete: ' + describe(e));
        this.refresh();
        return;
      }
      this.editing = false;
      clearRunCache(conversation.id);
      this.onDeleted(conversation.id);
      this.refresh();
    });
  }

  markCurrent() {
    for (const li of this.list.querySelectorAll('.conversation')) {
      const link = li.querySelector('.conversation-open');
      if (link) {
        if (li.dataset.id === this.state.id || (this.state.threadId && li.dataset.thread === this.state.threadId)) {
          link.setAttribute('aria-current', 'page');
        } else {
          link.removeAttribute('aria-current');
        }
      }
    }
  }
}
