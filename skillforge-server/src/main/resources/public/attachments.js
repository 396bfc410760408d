// Attachments in the page: files picked, dropped or pasted before sending (the composer's chips), and the
// chips of sent messages (name, size, type; click to preview what the model reads).

import { element, scrollable } from './render.js';

/** The server's limits (docs/api.md): checked here too, so a person hears at once, not after an upload. */
export const LIMITS = { files: 10, fileBytes: 5 * 1024 * 1024, messageBytes: 10 * 1024 * 1024 };
/** A paste longer than this becomes an attachment instead of a tall bubble. */
export const PASTE_AS_FILE_CHARS = 2000;
export const PASTE_AS_FILE_LINES = 40;

export const ACCEPT = '.txt,.md,.markdown,.rst,.csv,.tsv,.json,.jsonl,.yaml,.yml,.toml,.xml,.log,.html,.htm,.pdf,'
  + '.java,.kt,.py,.rb,.js,.mjs,.ts,.tsx,.jsx,.go,.rs,.c,.h,.cpp,.hpp,.cs,.swift,.php,.sh,.sql,.css,.scss,text/*,application/pdf';

export function formatSize(bytes) {
  if (bytes < 1024) {
    return bytes + ' B';
  }
  return bytes < 1024 * 1024 ? (bytes / 1024).toFixed(1) + ' KB' : (bytes / (1024 * 1024)).toFixed(1) + ' MB';
}

const shortType = type => (type || 'file').replace(/^application\//, '').replace(/^text\//, '');

/**
 * One chip. {@code file}: {name, size, type} and either {@code text()} (a pending File) or {@code textUrl}
 * (a stored attachment); {@code onRemove} adds a remove button.
 */
export function chip(file, preview, onRemove) {
  const li = element('li', 'attachment-chip');
  const open = element('button', 'chip-open');
  open.type = 'button';
  open.title = 'Preview ' + file.name;
  open.append(element('span', 'chip-name', file.name), element('span', 'chip-meta', formatSize(file.size) + ' · ' + shortType(file.type)));
  open.addEventListener('click', () => preview.show(file));
  li.append(open);
  if (onRemove) {
    const remove = element('button', 'chip-remove', '✕');
    remove.type = 'button';
    remove.setAttribute('aria-label', 'Remove ' + file.name);
    remove.addEventListener('click', onRemove);
    li.append(remove);
  }
  return li;
}

/** The chips of a sent message, from GET /api/conversations/{id} (each with its download url). */
export function storedChips(attachments, preview) {
  const list = element('ul', 'attachment-chips sent');
  for (const a of attachments || []) {
    list.append(chip({ name: a.name, size: a.size, type: a.mediaType, textUrl: a.url + '/text', url: a.url }, preview));
  }
  return list;
}

/** A dialog showing a file's text: a pending text file as it is, a stored one as the model reads it. */
export class Preview {
  constructor() {
    this.dialog = element('dialog', 'attachment-preview');
    this.dialog.setAttribute('aria-label', 'Attachment preview');
    const head = element('div', 'preview-head');
    this.title = element('h2', 'preview-title');
    this.download = element('a', 'button', 'Download');
    this.download.hidden = true;
    const close = element('button', 'icon-button', '✕');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close preview');
    close.addEventListener('click', () => this.dialog.close());
    head.append(this.title, this.download, close);
    this.body = scrollable(element('pre', 'preview-body'));
    this.dialog.append(head, this.body);
    this.dialog.addEventListener('click', event => {
      if (event.target === this.dialog) {
        this.dialog.close(); // a click outside the box
      }
    });
    document.body.append(this.dialog);
  }

  async show(file) {
    this.title.textContent = file.name;
    this.download.hidden = !file.url;
    if (file.url) {
      this.download.href = file.url;
    }
    this.body.textContent = 'Loading…';
    this.dialog.showModal();
    try {
      if (file.textUrl) {
        const response = await fetch(file.textUrl, { headers: { Accept: 'text/plain' } });
        this.body.textContent = response.ok ? await response.text() : 'The preview could not be loaded (' + response.status + ').';
      } else if (file.type === 'application/pdf' || /\.pdf$/i.test(file.name)) {
        this.body.textContent = 'A PDF: its text is read by the server when the message is sent.';
      } else {
        this.body.textContent = await file.text();
      }
    } catch {
      this.body.textContent = 'The preview could not be loaded.';
    }
  }
}

/** The files waiting in the composer, shown as chips above the message box. */
export class PendingAttachments {
  constructor(listEl, preview, complain) {
    this.listEl = listEl;
    this.preview = preview;
    this.complain = complain;
    this.files = [];
    this.pasted = 0;
  }

  /** Adds files, refusing (with a message) what would go over a limit; returns how many were added. */
  add(files) {
    let added = 0;
    for (const file of files) {
      if (this.files.length >= LIMITS.files) {
        this.complain(`At most ${LIMITS.files} files per message.`);
        break;
      }
      if (file.size === 0) {
        this.complain(`${file.name} is empty.`);
        continue;
      }
      if (file.size > LIMITS.fileBytes) {
        this.complain(`${file.name} is ${formatSize(file.size)}; the limit is ${formatSize(LIMITS.fileBytes)} per file.`);
        continue;
      }
      if (this.totalBytes() + file.size > LIMITS.messageBytes) {
        this.complain(`Together the files would be over ${formatSize(LIMITS.messageBytes)} per message.`);
        continue;
      }
      this.files.push(file);
      added++;
    }
    this.render();
    return added;
  }

  /** A long paste, as a text file. */
  addPastedText(text) {
    this.pasted++;
    return this.add([new File([text], `pasted-${this.pasted}.txt`, { type: 'text/plain' })]);
  }

  totalBytes() {
    return this.files.reduce((sum, f) => sum + f.size, 0);
  }

  /** Hands the files over (for a message being sent) and empties the composer's list. */
  take() {
    const files = this.files;
    this.files = [];
    this.render();
    return files;
  }

  render() {
    this.listEl.replaceChildren(...this.files.map((file, i) => chip(file, this.preview, () => {
      this.files.splice(i, 1);
      this.render();
    })));
    this.listEl.hidden = this.files.length === 0;
  }
}

/** Whether a paste is long enough to become an attachment. */
export function isLongPaste(text) {
  return text.length > PASTE_AS_FILE_CHARS || text.split('\n').length > PASTE_AS_FILE_LINES;
}
