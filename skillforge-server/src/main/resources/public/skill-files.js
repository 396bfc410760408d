// A skill's files in its view: each with its size, a preview (text shown as text, never rendered) and a download.

import { api } from './api.js';
import { element } from './render.js';

/** Past this many bytes a file is not previewed: its download is there. */
const MAX_PREVIEW_BYTES = 256 * 1024;

export const formatBytes = bytes => bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB`
  : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export class SkillFiles {
  constructor(onError) {
    this.onError = onError;
    this.list = document.getElementById('skill-files');
    this.preview = document.getElementById('skill-file-preview');
    this.previewName = document.getElementById('skill-file-preview-name');
    this.previewBody = document.getElementById('skill-file-preview-body');
    document.getElementById('skill-file-preview-close').addEventListener('click', () => this.closePreview());
  }

  /** Lists the files of {@code skill} (a version as the API gives it). */
  show(skill) {
    this.name = skill.name;
    this.closePreview();
    this.list.replaceChildren(...skill.files.map(file => this.row(file)));
  }

  row(file) {
    const li = element('li', 'skill-file');
    li.dataset.path = file.path;
    const open = element('button', 'link-button skill-file-path', file.path);
    open.type = 'button';
    open.setAttribute('aria-label', 'Preview ' + file.path);
    open.addEventListener('click', () => this.open(file));
    const download = element('a', 'button small', 'Download');
    download.href = api.skillFileUrl(this.name, file.path);
    download.download = file.path.slice(file.path.lastIndexOf('/') + 1);
    download.setAttribute('aria-label', 'Download ' + file.path);
    li.append(open, element('span', 'skill-file-size', formatBytes(file.size)), download);
    return li;
  }

  /** Shows a text file's content as text (a page or a script is shown, never run); any other file by its size. */
  async open(file) {
    this.previewName.textContent = file.path;
    this.preview.hidden = false;
    if (file.size > MAX_PREVIEW_BYTES) {
      this.previewBody.textContent = `${formatBytes(file.size)}: too large to preview here; download it.`;
      return;
    }
    let response;
    try {
      response = await fetch(api.skillFileUrl(this.name, file.path));
    } catch (e) {
      this.onError('Could not read ' + file.path + ': ' + e.message);
      return;
    }
    if (!response.ok) {
      this.onError('Could not read ' + file.path + ': the server answered ' + response.status);
      return;
    }
    const text = (response.headers.get('Content-Type') || '').startsWith('text/plain');
    this.previewBody.textContent = text ? await response.text() : `A binary file of ${formatBytes(file.size)}: download it to open it.`;
    this.previewBody.classList.toggle('binary', !text);
  }

  closePreview() {
    this.preview.hidden = true;
    this.previewBody.textContent = '';
  }
}
