// Settings: this chat's provider (fixed once it started, so the provider's cache keeps serving it: a new chat on
// another one is a click away), and what the person chose for themselves, kept on the server so it follows them
// from browser to browser: the provider new chats start on, the colour theme, and instructions for the model in
// the chats they start from now on. Also the keyboard shortcuts (?).

import { api } from './api.js';
import { describeProvider } from './providers.js';
import { element } from './render.js';

const THEMES = ['auto', 'light', 'dark'];
const THEME_SYMBOL = { auto: '◐', light: '☀', dark: '☾' };
const THEME_KEY = 'skillforge.theme';

/** The theme this browser last showed: applied before the server answers, so the page does not flash. */
function rememberedTheme() {
  try {
    const theme = localStorage.getItem(THEME_KEY);
    return THEMES.includes(theme) ? theme : 'auto';
  } catch {
    return 'auto';
  }
}

export class Settings {
  /**
   * @param onError       shows a message (the page's toast)
   * @param picker        the new chat's ProviderPicker: the providers, and the choice a new chat starts with
   * @param shownChat     () => the conversation shown ({id, provider, model}) or null for a new chat
   * @param newChatOn     name => shows a new chat that will start on that provider
   */
  constructor({ onError, picker, shownChat, newChatOn }) {
    this.onError = onError;
    this.picker = picker;
    this.shownChat = shownChat;
    this.newChatOn = newChatOn;
    this.saved = { defaultProvider: null, theme: rememberedTheme(), instructions: '' };
    this.dialog = document.getElementById('settings-dialog');
    this.form = document.getElementById('settings-form');
    this.defaultProvider = document.getElementById('settings-default-provider');
    this.instructions = document.getElementById('settings-instructions');
    this.count = document.getElementById('settings-instructions-count');
    this.status = document.getElementById('settings-status');
    this.themeButton = document.getElementById('theme');
    this.shortcuts = document.getElementById('shortcuts-dialog');
    document.getElementById('open-settings').addEventListener('click', () => this.open());
    document.getElementById('close-settings').addEventListener('click', () => this.dialog.close());
    document.getElementById('open-shortcuts').addEventListener('click', () => this.showShortcuts());
    document.getElementById('close-shortcuts').addEventListener('click', () => this.shortcuts.close());
    document.getElementById('settings-new-chat').addEventListener('click', () => {
      this.dialog.close();
      this.newChatOn(document.getElementById('settings-chat-provider').value);
    });
    this.form.addEventListener('submit', event => {
      event.preventDefault();
      this.save();
    });
    this.form.addEventListener('input', () => {
      this.status.textContent = '';
      this.countInstructions();
    });
    this.themeButton.addEventListener('click', () => this.cycleTheme());
    this.applyTheme(this.saved.theme);
  }

  /** The person's settings from the server: their theme shown, their default provider chosen for the next new chat. */
  async load() {
    try {
      this.saved = await api.settings();
    } catch {
      return; // the page works on this browser's theme and the server's default provider
    }
    this.applyTheme(this.saved.theme);
    if (this.saved.defaultProvider) {
      this.picker.setDefault(this.saved.defaultProvider);
    }
  }

  applyTheme(theme) {
    if (theme === 'auto') {
      delete document.documentElement.dataset.theme;
    } else {
      document.documentElement.dataset.theme = theme;
    }
    this.themeButton.textContent = THEME_SYMBOL[theme];
    this.themeButton.setAttribute('aria-label', 'Colour theme: ' + (theme === 'auto' ? 'automatic' : theme));
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      // not remembered here; the server keeps it
    }
  }

  /** The top bar's theme button: the next theme, shown at once and kept with the rest of the settings. */
  async cycleTheme() {
    const next = THEMES[(THEMES.indexOf(this.saved.theme) + 1) % THEMES.length];
    this.applyTheme(next);
    await this.store({ ...this.saved, theme: next });
  }

  async open() {
    this.showChat();
    const server = this.picker.find(this.picker.serverDefault);
    this.defaultProvider.replaceChildren(this.option('', 'The server\'s default' + (server ? ` (${this.label(server)})` : '')),
      ...this.picker.providers.map(provider => this.option(provider.name, this.label(provider))));
    this.defaultProvider.value = this.saved.defaultProvider || '';
    this.form.elements.theme.value = this.saved.theme;
    this.instructions.value = this.saved.instructions;
    this.countInstructions();
    this.status.textContent = '';
    this.dialog.showModal();
  }

  /** This chat's provider, fixed; a new chat on another, offered. Hidden while a new chat is shown (its picker is there). */
  showChat() {
    const chat = this.shownChat();
    const section = document.getElementById('settings-chat');
    section.hidden = !chat;
    if (!chat) {
      return;
    }
    const current = this.picker.find(chat.provider) || { name: chat.provider, model: chat.model };
    document.getElementById('settings-chat-current').textContent = describeProvider({ ...current, model: chat.model || current.model }).label;
    const others = this.picker.providers.filter(provider => provider.name !== chat.provider);
    document.getElementById('settings-chat-change').hidden = others.length === 0;
    document.getElementById('settings-chat-provider').replaceChildren(...others.map(provider => this.option(provider.name, this.label(provider))));
  }

  option(value, text) {
    const option = element('option', null, text);
    option.value = value;
    return option;
  }

  label(provider) {
    const { label, note } = describeProvider(provider);
    return note ? `${label} (${note})` : label;
  }

  countInstructions() {
    this.count.textContent = `${this.instructions.value.length} / ${this.instructions.maxLength}`;
  }

  async save() {
    const chosen = {
      defaultProvider: this.defaultProvider.value || null,
      theme: this.form.elements.theme.value,
      instructions: this.instructions.value,
    };
    if (await this.store(chosen)) {
      this.applyTheme(this.saved.theme);
      this.picker.setDefault(this.saved.defaultProvider);
      this.status.textContent = 'Saved. New chats start with these; a chat already started keeps what it began with.';
    }
  }

  /** Saves {@code chosen} on the server; resolves to whether it worked (a refusal is shown, the form keeps what was typed). */
  async store(chosen) {
    try {
      this.saved = await api.saveSettings(chosen);
      return true;
    } catch (e) {
      this.onError('Settings not saved: ' + e.message);
      return false;
    }
  }

  showShortcuts() {
    if (this.dialog.open) {
      this.dialog.close();
    }
    this.shortcuts.showModal();
  }

  /** ? anywhere but in a text box shows the shortcuts, as in Gmail or GitHub. */
  handleKey(event) {
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
    if (event.key === '?' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      this.showShortcuts();
    }
  }
}
