// The provider picker of a new chat: shown only when the server has more than one provider. A
// conversation is fixed to its provider, so the choice applies to the next conversation created.

import { api } from './api.js';
import { element } from './render.js';

/** What a provider is, in words: "name · model", and a note for a simulated one or one without a key. */
export function describeProvider(provider) {
  const label = [provider.name, provider.model].filter(Boolean).join(' · ');
  let note = null;
  if (provider.simulated) {
    note = 'simulated';
  } else if (!provider.keyPresent) {
    note = 'no API key';
  }
  return { label, note };
}

export class ProviderPicker {
  constructor({ box, select, note, onChange }) {
    this.box = box;
    this.select = select;
    this.note = note;
    this.onChange = onChange;
    this.providers = [];
    this.serverDefault = null; // the server's default provider
    this.personalDefault = null; // the one the person chose in their settings, if any
    this.defaultName = null; // what a new chat starts on: theirs while the server has it, else the server's
    this.active = false; // a new chat is shown: the choice is still open
    select.addEventListener('change', () => {
      this.describeChoice();
      this.onChange(this.chosen());
    });
  }

  /** Loads GET /api/providers; resolves to whether it worked. */
  async load() {
    try {
      const answer = await api.providers();
      this.providers = Array.isArray(answer.providers) ? answer.providers : [];
      this.serverDefault = answer.default ?? (this.providers.find(p => p.default) || {}).name ?? null;
    } catch {
      this.providers = [];
      return false;
    }
    this.select.replaceChildren(...this.providers.map(provider => {
      const { label, note } = describeProvider(provider);
      const option = element('option', null, note ? `${label} (${note})` : label);
      option.value = provider.name;
      return option;
    }));
    this.setDefault(this.personalDefault);
    this.describeChoice();
    this.show(this.active);
    return true;
  }

  /** More than one provider configured: the only case with a choice to make. */
  get several() {
    return this.providers.length > 1;
  }

  find(name) {
    return this.providers.find(provider => provider.name === name) || null;
  }

  /** The provider a new conversation gets: the one chosen, else the default. */
  chosen() {
    return this.find(this.several ? this.select.value : this.defaultName) || this.find(this.defaultName);
  }

  /** Shows the picker while a new chat is open (and there is a choice), hides it otherwise. */
  show(active) {
    this.active = active;
    this.box.hidden = !(active && this.several);
  }

  /** The person's own default provider ({@code null}: none): the next new chats start on it while the server has it. */
  setDefault(name) {
    this.personalDefault = name;
    const next = name && this.find(name) ? name : this.serverDefault;
    if (next === this.defaultName) {
      return; // unchanged: a provider picked for the new chat shown stays picked
    }
    this.defaultName = next;
    this.reset();
    if (this.active && this.defaultName) {
      this.onChange(this.chosen()); // the new chat shown says what it will start on
    }
  }

  /** A new chat shown that starts on {@code name}. */
  choose(name) {
    if (this.find(name)) {
      this.select.value = name;
      this.describeChoice();
      this.onChange(this.chosen());
    }
  }

  /** Back to the default, for the next new chat. */
  reset() {
    if (this.defaultName && this.find(this.defaultName)) {
      this.select.value = this.defaultName;
      this.describeChoice();
    }
  }

  describeChoice() {
    const provider = this.find(this.select.value);
    let text = '';
    if (provider && provider.simulated) {
      text = 'Simulated: answers come from a simulated provider, not a real model.';
    } else if (provider && !provider.keyPresent) {
      text = 'No API key is set for this provider: unless its server needs none, its answers will fail.';
    }
    this.note.textContent = text;
    this.note.hidden = text === '';
    this.box.dataset.note = provider && provider.simulated ? 'simulated' : provider && !provider.keyPresent ? 'no-key' : '';
  }
}
