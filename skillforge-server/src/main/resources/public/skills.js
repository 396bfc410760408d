// The skills panel: the stored skills with name and description; open one (a click on its card)
// rendered, with its files (previewed as text, downloaded) and its history (what each version
// changed, a restore); edit its SKILL.md (the server validates it and each of its refusals shows
// inline); download it or all of them as a zip, import a zip (dropped or picked); delete one (after
// a confirmation in place, with an undo) and bring back a deleted one.

import { api } from './api.js';
import { element, renderMarkdown } from './render.js';
import { SkillFiles } from './skill-files.js';
import { SkillHistory } from './skill-history.js';
import { SkillImport } from './skill-import.js';

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export class SkillsPanel {
  constructor(onError) {
    this.onError = onError;
    this.panel = document.getElementById('skills-panel');
    this.opener = document.getElementById('open-skills');
    this.list = document.getElementById('skill-list');
    this.empty = document.getElementById('skills-empty');
    this.listView = document.getElementById('skill-list-view');
    this.view = document.getElementById('skill-view');
    this.opener.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close()));
    document.getElementById('close-skills').addEventListener('click', () => this.close());
    document.getElementById('skill-back').addEventListener('click', () => this.showList());
    this.editor = document.getElementById('skill-editor');
    this.source = document.getElementById('skill-source');
    this.error = document.getElementById('skill-error');
    this.rendered = document.getElementById('skill-rendered');
    document.getElementById('skill-edit').addEventListener('click', () => this.edit());
    document.getElementById('skill-cancel').addEventListener('click', () => this.show(this.shown));
    this.editor.addEventListener('submit', event => {
      event.preventDefault();
      this.save();
    });
    this.files = new SkillFiles(onError);
    this.history = new SkillHistory(onError, async name => {
      await this.show(name);
      await this.history.show(name);
      this.refresh();
    });
    this.publisher = document.getElementById('skill-publish');
    this.publisher.addEventListener('click', () => this.publish());
    this.canPublish = false;
    this.historyToggle = document.getElementById('skill-history-toggle');
    this.historyToggle.addEventListener('click', () => this.toggleHistory());
    this.importer = new SkillImport(this.panel, async () => {
      this.showList();
      await this.refresh();
    });
    this.deleted = document.getElementById('skills-deleted');
    this.deletedList = document.getElementById('skill-deleted-list');
    this.panel.addEventListener('keydown', event => {
      if (event.key === 'Escape' && !event.defaultPrevented) {
        event.preventDefault(); // the panel's, not a running answer's
        this.close();
      }
    });
  }

  /** An admin of a server with people may copy their own skills into the team library. */
  allowPublishing(me) {
    this.canPublish = Boolean(me && me.team && me.admin);
  }

  async publish() {
    try {
      await api.publishSkill(this.shown);
    } catch (e) {
      this.onError('Could not publish ' + this.shown + ': ' + e.message);
      return;
    }
    this.onError(this.shown + ' is in the team library now: everyone can read it.'); // the page's toast, for news too
    await this.show(this.shown);
    this.refresh();
  }

  get isOpen() {
    return !this.panel.hidden;
  }

  async open() {
    this.panel.hidden = false;
    this.opener.setAttribute('aria-expanded', 'true');
    document.body.classList.add('skills-open');
    this.showList();
    await this.refresh();
    (this.list.querySelector('button') || document.getElementById('close-skills')).focus();
  }

  close() {
    this.panel.hidden = true;
    this.opener.setAttribute('aria-expanded', 'false');
    document.body.classList.remove('skills-open');
    this.opener.focus();
  }

  showList() {
    this.view.hidden = true;
    this.listView.hidden = false;
  }

  /** Reloads the list (also after a turn, which may have written or deleted a skill). */
  async refresh() {
    if (!this.isOpen) {
      return;
    }
    let skills;
    try {
      skills = (await api.skills()).skills;
    } catch (e) {
      this.onError('Could not load the skills: ' + e.message);
      return;
    }
    const undo = [...this.list.querySelectorAll('.skill-deleted')];
    this.list.replaceChildren(...skills.map(skill => this.item(skill)), ...undo.filter(li => !skills.some(s => s.name === li.dataset.skill)));
    this.empty.hidden = skills.length > 0;
    await this.refreshDeleted();
  }

  /** The person's deleted skills, each with a Restore: nothing the model or a person deletes is gone. */
  async refreshDeleted() {
    let deleted;
    try {
      deleted = (await api.deletedSkills()).skills;
    } catch (e) {
      this.onError('Could not load the deleted skills: ' + e.message);
      return;
    }
    this.deletedList.replaceChildren(...deleted.map(skill => {
      const li = element('li', 'skill deleted');
      li.dataset.skill = skill.name;
      li.append(element('h3', 'skill-name', skill.name), element('p', 'skill-description', skill.description));
      const restore = element('button', 'button', 'Restore');
      restore.type = 'button';
      restore.setAttribute('aria-label', 'Restore ' + skill.name);
      restore.addEventListener('click', () => this.undelete(skill.name, skill.version - 1));
      const actions = element('div', 'skill-actions');
      actions.append(restore);
      li.append(actions);
      return li;
    }));
    this.deleted.hidden = deleted.length === 0;
  }

  /** Brings a deleted skill back: a new version with the files it had before its deletion. */
  async undelete(name, version) {
    try {
      await api.restoreSkill(name, version);
    } catch (e) {
      this.onError('Could not restore ' + name + ': ' + e.message);
      return;
    }
    this.list.querySelectorAll('.skill-deleted').forEach(li => li.dataset.skill === name && li.remove());
    await this.refresh();
  }

  item(skill) {
    const li = element('li', 'skill');
    li.dataset.skill = skill.name;
    const title = element('h3', 'skill-name', skill.name);
    if (skill.library === 'team') {
      title.append(element('span', 'skill-badge', 'team'));
    }
    li.append(title, element('p', 'skill-description', skill.description));
    // The whole card opens the skill (the View button is its keyboard way in).
    li.addEventListener('click', event => {
      if (!event.target.closest('button, a, .confirm')) {
        this.show(skill.name);
      }
    });
    const actions = element('div', 'skill-actions');
    const view = element('button', 'button', 'View');
    view.type = 'button';
    view.setAttribute('aria-label', 'View ' + skill.name);
    view.addEventListener('click', () => this.show(skill.name));
    const download = element('a', 'button', 'Download');
    download.href = api.skillZipUrl(skill.name);
    download.download = skill.name + '.zip';
    download.setAttribute('aria-label', 'Download ' + skill.name + ' as a zip');
    const remove = element('button', 'button danger', 'Delete');
    remove.type = 'button';
    remove.setAttribute('aria-label', 'Delete ' + skill.name);
    remove.addEventListener('click', () => this.confirmDelete(li, actions, skill.name));
    actions.append(view, download, remove);
    li.append(actions);
    return li;
  }

  confirmDelete(li, actions, name) {
    const confirm = element('div', 'confirm');
    confirm.append(element('span', null, `Delete ${name}?`));
    const yes = element('button', 'button danger', 'Delete');
    yes.type = 'button';
    yes.classList.add('confirm-yes');
    const no = element('button', 'button', 'Keep');
    no.type = 'button';
    confirm.append(yes, no);
    actions.hidden = true;
    li.append(confirm);
    no.focus(); // the safe choice
    const keep = () => {
      confirm.remove();
      actions.hidden = false;
      actions.querySelector('.danger').focus();
    };
    no.addEventListener('click', keep);
    confirm.addEventListener('keydown', event => {
      if (event.key === 'Escape') {
        event.preventDefault(); // cancels the confirmation, leaves the panel open
        keep();
      }
    });
    yes.addEventListener('click', async () => {
      try {
        await api.deleteSkill(name);
      } catch (e) {
        if (e.status !== 404) {
          this.onError('Could not delete ' + name + ': ' + e.message);
          return;
        }
      }
      li.replaceWith(this.undoLine(name));
      await this.refresh();
    });
  }

  /** Where a deleted skill's card was: the deletion said, and undone with one click. */
  undoLine(name) {
    const li = element('li', 'skill-deleted');
    li.dataset.skill = name;
    li.append(element('span', null, `Deleted ${name}. `));
    const undo = element('button', 'link-button', 'Undo');
    undo.type = 'button';
    undo.setAttribute('aria-label', 'Undo the deletion of ' + name);
    undo.addEventListener('click', async () => {
      let versions;
      try {
        versions = (await api.skillVersions(name)).versions;
      } catch (e) {
        this.onError('Could not restore ' + name + ': ' + e.message);
        return;
      }
      const before = versions.find(version => !version.deleted);
      await this.undelete(name, before.version);
    });
    li.append(undo);
    setTimeout(() => undo.focus());
    return li;
  }

  async show(name) {
    let skill;
    try {
      skill = await api.skill(name);
    } catch (e) {
      this.onError('Could not open ' + name + ': ' + e.message);
      return;
    }
    const match = FRONT_MATTER.exec(skill.content);
    document.getElementById('skill-view-name').textContent = skill.name;
    const front = document.getElementById('skill-frontmatter');
    front.textContent = match ? match[1] : '';
    front.hidden = !match;
    document.getElementById('skill-body').replaceChildren(renderMarkdown(match ? skill.content.slice(match[0].length) : skill.content));
    const download = document.getElementById('skill-download');
    download.href = api.skillDownloadUrl(skill.name);
    download.download = api.skillFileName(skill.name);
    const zip = document.getElementById('skill-zip');
    zip.href = api.skillZipUrl(skill.name);
    zip.download = skill.name + '.zip';
    const updated = new Date(skill.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    document.getElementById('skill-version-line').textContent = `Version ${skill.version} · ${updated}`
      + (skill.library === 'team' ? ' · team library' : '');
    this.publisher.hidden = !this.canPublish || skill.library === 'team';
    this.files.show(skill);
    if (this.shown !== skill.name) {
      this.history.hide();
      this.historyToggle.setAttribute('aria-expanded', 'false');
    }
    this.shown = skill.name;
    this.content = skill.content;
    this.editor.hidden = true;
    this.rendered.hidden = false;
    this.listView.hidden = true;
    this.view.hidden = false;
    document.getElementById('skill-back').focus();
  }

  /** Shows or hides the shown skill's versions. */
  async toggleHistory() {
    const open = this.historyToggle.getAttribute('aria-expanded') !== 'true';
    this.historyToggle.setAttribute('aria-expanded', String(open));
    if (open) {
      await this.history.show(this.shown);
    } else {
      this.history.hide();
    }
  }

  /** The shown skill's SKILL.md in a text box, exactly as stored. */
  edit() {
    this.source.value = this.content;
    this.error.hidden = true;
    this.rendered.hidden = true;
    this.editor.hidden = false;
    this.source.focus();
  }

  /** Saves the edited SKILL.md; the store's refusal (a bad front matter, a name that differs…) shows inline, the text stays. */
  async save() {
    try {
      await api.saveSkill(this.shown, this.source.value);
    } catch (e) {
      this.error.replaceChildren(element('span', null, e.problems.length ? 'Not saved:' : e.message));
      if (e.problems.length) {
        const list = element('ul', 'skill-problems');
        e.problems.forEach(problem => list.append(element('li', null, problem)));
        this.error.append(list);
      }
      this.error.hidden = false;
      this.source.focus();
      return;
    }
    await this.show(this.shown);
    if (this.historyToggle.getAttribute('aria-expanded') === 'true') {
      await this.history.show(this.shown);
    }
    this.refresh();
  }
}
