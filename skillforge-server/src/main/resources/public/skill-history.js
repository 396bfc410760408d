// A skill's history in its view: every version, newest first, with when and where it was made, what changed (a diff
// against the version before it) and a restore, which makes a new version and never removes one.

import { api } from './api.js';
import { element, scrollable } from './render.js';

const SOURCES = {
  model: 'by the model',
  api: 'on this page or the API',
  mcp: 'by an MCP client',
  import: 'imported from a zip',
  disk: 'from the old skills folder',
};

const when = millis => new Date(millis).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export class SkillHistory {
  constructor(onError, onRestored) {
    this.onError = onError;
    this.onRestored = onRestored;
    this.section = document.getElementById('skill-history');
    this.list = document.getElementById('skill-versions');
  }

  async show(name) {
    this.name = name;
    let history;
    try {
      history = await api.skillVersions(name);
    } catch (e) {
      this.onError('Could not load the history of ' + name + ': ' + e.message);
      return;
    }
    this.list.replaceChildren(...history.versions.map((version, i) => this.item(version, history.versions[i + 1], i === 0)));
    this.section.hidden = false;
  }

  hide() {
    this.section.hidden = true;
  }

  item(version, before, newest) {
    const li = element('li', 'skill-version' + (version.deleted ? ' deleted' : ''));
    li.dataset.version = version.version;
    const head = element('div', 'skill-version-head');
    head.append(element('strong', null, 'Version ' + version.version), element('span', 'skill-version-when', when(version.createdAt)));
    const source = element('p', 'skill-version-source', SOURCES[version.source] || version.source);
    if (version.conversationId) {
      source.append(' in ');
      const link = element('a', null, 'a conversation');
      link.href = '#/c/' + encodeURIComponent(version.conversationId);
      source.append(link);
    }
    if (version.restoredFrom) {
      source.append(`, restoring version ${version.restoredFrom}`);
    }
    const summary = element('p', 'skill-version-summary', version.deleted ? 'Deleted the skill.'
      : `${version.files.length} ${version.files.length === 1 ? 'file' : 'files'}` + (newest ? ' · current' : ''));
    const actions = element('div', 'skill-actions');
    const diff = element('div', 'skill-diff');
    diff.hidden = true;
    const changes = element('button', 'button small', 'Changes');
    changes.type = 'button';
    changes.setAttribute('aria-expanded', 'false');
    changes.setAttribute('aria-label', `Changes in version ${version.version}`);
    changes.addEventListener('click', () => this.toggleDiff(changes, diff, before ? before.version : 0, version.version));
    actions.append(changes);
    if (!version.deleted) {
      const zip = element('a', 'button small', '.zip');
      zip.href = api.skillVersionZipUrl(this.name, version.version);
      zip.download = `${this.name}-v${version.version}.zip`;
      zip.setAttribute('aria-label', `Download version ${version.version} as a zip`);
      actions.append(zip);
      if (!newest) {
        const restore = element('button', 'button small', 'Restore');
        restore.type = 'button';
        restore.setAttribute('aria-label', `Restore version ${version.version}`);
        restore.addEventListener('click', () => this.confirmRestore(li, actions, version.version));
        actions.append(restore);
      }
    }
    li.append(head, source, summary, actions, diff);
    return li;
  }

  async toggleDiff(button, box, from, to) {
    if (!box.hidden) {
      box.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    let diff;
    try {
      diff = await api.skillDiff(this.name, from, to);
    } catch (e) {
      this.onError('Could not compare the versions: ' + e.message);
      return;
    }
    box.replaceChildren(...(diff.files.length ? diff.files.map(file => fileDiff(file)) : [element('p', 'muted', 'No file changed.')]));
    box.hidden = false;
    button.setAttribute('aria-expanded', 'true');
  }

  confirmRestore(li, actions, version) {
    const confirm = element('div', 'confirm');
    confirm.append(element('span', null, `Make version ${version} current again? (A new version; nothing is lost.)`));
    const yes = element('button', 'button primary confirm-yes', 'Restore');
    yes.type = 'button';
    const no = element('button', 'button', 'Keep');
    no.type = 'button';
    confirm.append(yes, no);
    actions.hidden = true;
    li.append(confirm);
    no.focus();
    const keep = () => {
      confirm.remove();
      actions.hidden = false;
    };
    no.addEventListener('click', keep);
    confirm.addEventListener('keydown', event => {
      if (event.key === 'Escape') {
        event.preventDefault();
        keep();
      }
    });
    yes.addEventListener('click', async () => {
      try {
        await api.restoreSkill(this.name, version);
      } catch (e) {
        this.onError('Could not restore version ' + version + ': ' + e.message);
        keep();
        return;
      }
      await this.onRestored(this.name);
    });
  }
}

/** One file's change: its path and kind, then its unified diff with added and removed lines marked (as text). */
function fileDiff(file) {
  const section = element('section', 'skill-diff-file');
  section.dataset.path = file.path;
  section.append(element('h5', 'skill-diff-path', `${file.change} ${file.path}`));
  if (file.diff === null) {
    section.append(element('p', 'muted', `Not compared line by line (not text, or too large): ${file.sizeBefore} → ${file.sizeAfter} bytes.`));
    return section;
  }
  const pre = scrollable(element('pre', 'diff'));
  for (const line of file.diff.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '')) {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+++') || line.startsWith('---') ? 'meta'
      : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'same';
    pre.append(element('span', 'diff-' + kind, line + '\n'));
  }
  section.append(pre);
  return section;
}
