// Attachments in the page: files picked, dropped or pasted before sending (the composer's chips), and the
// chips of sent messages (name, size, type; an image with its thumbnail; click to preview what the model reads or sees).

import { element, scrollable } from './render.js';

/** The server's limits (docs/api.md): checked here too, so a person hears at once, not after an upload. */
export const LIMITS = { files: 10, fileBytes: 5 * 1024 * 1024, messageBytes: 10 * 1024 * 1024 };
/** A paste longer than this becomes an attachment instead of a tall bubble. */
export const PASTE_AS_FILE_CHARS = 2000;
export const PASTE_AS_FILE_LINES = 40;

export const ACCEPT = '.txt,.md,.markdown,.rst,.csv,.tsv,.json,.jsonl,.yaml,.yml,.toml,.xml,.log,.html,.htm,.pdf,'
  + '.java,.kt,.py,.rb,.js,.mjs,.ts,.tsx,.jsx,.go,.rs,.c,.h,.cpp,.hpp,.cs,.swift,.php,.sh,.sql,.css,.scss,text/*,application/pdf,'
  + '.png,.jpg,.jpeg,.webp,.gif,image/png,image/jpeg,image/webp,image/gif';

/** The image formats the server accepts, by media type, as people name them (docs/api.md). */
const IMAGE_FORMATS = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP', 'image/gif': 'GIF' };
const IMAGE_EXTENSIONS = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', jfif: 'image/jpeg',
  webp: 'image/webp', gif: 'image/gif' };
/** Pixels on a side the server takes of any image (DocumentLimits.MAX_IMAGE_SIDE). */
const MAX_IMAGE_SIDE = 8000;

/**
 * The image type a file is meant as, as the server reads it: its type, or without one (or a generic one) the type its
 * name's extension says; null for a document. The server checks the bytes; the page goes by what it is told.
 */
export function imageType(file) {
  const type = (file.type || '').toLowerCase().split(';')[0].trim();
  if (type === 'image/jpg' || type === 'image/pjpeg') {
    return 'image/jpeg';
  }
  if (type.startsWith('image/')) {
    return type;
  }
  if (type === '' || type === 'application/octet-stream') {
    const extension = /\.([^.]+)$/.exec(file.name || '');
    return extension ? IMAGE_EXTENSIONS[extension[1].toLowerCase()] || null : null;
  }
  return null;
}

/**
 * Why an image ({@code file}, of {@code type}) cannot go to {@code provider}'s model, in words, or null when it can as far
 * as GET /api/providers says (a provider without a {@code vision} listing is left to the server).
 */
export function imageRefusal(file, type, provider) {
  if (!IMAGE_FORMATS[type]) {
    return type === 'image/svg+xml'
      ? `${file.name} is an SVG, which is not accepted as an image (it can run scripts): attach a PNG of it instead.`
      : `${file.name} is ${type}: SkillForge accepts PNG, JPEG, WebP or GIF images.`;
  }
  const vision = provider && provider.vision;
  if (!vision) {
    return null;
  }
  const model = provider.model || provider.name;
  if (!vision.sees) {
    return `The model ${model} does not see images, so ${file.name} cannot be sent to it. `
      + 'Describe it in words, or start a new chat with a provider whose model sees images.';
  }
  if (Array.isArray(vision.mediaTypes) && !vision.mediaTypes.includes(type)) {
    return `${file.name} is a ${IMAGE_FORMATS[type]}, which ${model} does not take: send it as `
      + vision.mediaTypes.map(t => IMAGE_FORMATS[t] || t).join(', ') + '.';
  }
  if (vision.maxImageBytes && file.size > vision.maxImageBytes) {
    return `${file.name} is ${formatSize(file.size)}; ${model} takes images of at most ${formatSize(vision.maxImageBytes)}.`;
  }
  return null;
}

const thumbnails = new WeakMap();

/** A pending image as a data: URL (what the page's CSP lets an <img> show), read once per file. */
function thumbnail(file) {
  if (!thumbnails.has(file)) {
    thumbnails.set(file, new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    }));
  }
  return thumbnails.get(file);
}

/** An image's size in pixels as the browser decodes it, or null when it cannot (the server then says why). */
function pixels(url) {
  return new Promise(resolve => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => resolve(null);
    img.src = url;
  });
}

export function formatSize(bytes) {
  if (bytes < 1024) {
    return bytes + ' B';
  }
  return bytes < 1024 * 1024 ? (bytes / 1024).toFixed(1) + ' KB' : (bytes / (1024 * 1024)).toFixed(1) + ' MB';
}

const shortType = type => (type || 'file').replace(/^application\//, '').replace(/^text\//, '');

const chipMeta = (file, size) => (size ? size.width + '×' + size.height + ' · ' : '') + formatSize(file.size) + ' · ' + shortType(file.type);

/**
 * One chip. {@code file}: {name, size, type} and either {@code text()} (a pending File) or {@code textUrl}
 * (a stored attachment; an image has {@code url}, {@code width} and {@code height}); {@code onRemove} adds a remove
 * button. An image shows its thumbnail.
 */
export function chip(file, preview, onRemove) {
  const li = element('li', 'attachment-chip');
  const open = element('button', 'chip-open');
  open.type = 'button';
  open.title = 'Preview ' + file.name;
  const meta = element('span', 'chip-meta', chipMeta(file, file.width ? file : null));
  const text = element('span', 'chip-text');
  text.append(element('span', 'chip-name', file.name), meta);
  if (imageType(file)) {
    li.classList.add('image');
    const img = element('img', 'chip-thumb');
    img.alt = ''; // the chip's text names it
    img.decoding = 'async';
    if (file.url) {
      img.src = file.url;
    } else {
      thumbnail(file).then(async url => {
        img.src = url;
        const size = await pixels(url);
        if (size) {
          meta.textContent = chipMeta(file, size);
        }
      }).catch(() => {});
    }
    open.append(img);
  }
  open.append(text);
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
    list.append(chip({ name: a.name, size: a.size, type: a.mediaType, textUrl: a.url + '/text', url: a.url, width: a.width,
      height: a.height }, preview));
  }
  return list;
}

/** A dialog showing a file's text (a pending text file as it is, a stored one as the model reads it) or an image. */
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
    this.image = element('img', 'preview-image');
    this.image.hidden = true;
    this.dialog.append(head, this.body, this.image);
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
    this.body.hidden = false;
    this.image.hidden = true;
    this.image.removeAttribute('src');
    this.dialog.showModal();
    if (imageType(file)) {
      this.showImage(file);
      return;
    }
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

  /** An image as the model sees it: the stored bytes, or a pending file's. */
  async showImage(file) {
    this.image.alt = file.name;
    try {
      this.image.src = file.url || await thumbnail(file);
      this.body.hidden = true;
      this.image.hidden = false;
    } catch {
      this.body.textContent = 'The image could not be loaded.';
    }
  }
}

/**
 * The files waiting in the composer, shown as chips above the message box. {@code provider()} is the provider the
 * message would go to (a listing of GET /api/providers, or null): an image its model does not see is refused when it
 * is picked, dropped or pasted, with the reason, not after Send.
 */
export class PendingAttachments {
  constructor(listEl, preview, complain, provider = () => null) {
    this.listEl = listEl;
    this.preview = preview;
    this.complain = complain;
    this.provider = provider;
    this.files = [];
    this.pasted = 0;
  }

  /** Adds files, refusing (with a message) what would go over a limit or what the model cannot see; returns how many were added. */
  add(files) {
    let added = 0;
    for (const file of files) {
      const type = imageType(file);
      const refusal = type ? imageRefusal(file, type, this.provider()) : null;
      if (refusal) {
        this.complain(refusal);
        continue;
      }
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
      if (type) {
        this.checkPixels(file);
      }
    }
    this.render();
    return added;
  }

  /** Takes an image off the list when it has more pixels on a side than the model takes (known once it is decoded). */
  async checkPixels(file) {
    const size = await thumbnail(file).then(pixels).catch(() => null);
    const provider = this.provider();
    const vision = provider && provider.vision;
    const limit = Math.min(MAX_IMAGE_SIDE, (vision && vision.maxSide) || MAX_IMAGE_SIDE);
    if (size && (size.width > limit || size.height > limit) && this.files.includes(file)) {
      this.files.splice(this.files.indexOf(file), 1);
      this.render();
      this.complain(`${file.name} is ${size.width}×${size.height} pixels; ${provider && provider.model ? provider.model : 'the server'}`
        + ` takes at most ${limit} on a side: scale it down.`);
    }
  }

  /** An image pasted from the clipboard (which names every one image.png), named as the pastes before it. */
  addPastedImage(file) {
    this.pasted++;
    const extension = (imageType(file) || 'image/png').split('/')[1].replace('jpeg', 'jpg');
    return this.add([new File([file], `pasted-${this.pasted}.${extension}`, { type: file.type })]);
  }

  /** After the provider changed (another chat shown, another one picked): takes off the images its model cannot see. */
  recheck() {
    const provider = this.provider();
    const refused = this.files.filter(file => imageType(file) && imageRefusal(file, imageType(file), provider));
    if (refused.length) {
      this.files = this.files.filter(file => !refused.includes(file));
      this.render();
      this.complain(imageRefusal(refused[0], imageType(refused[0]), provider)
        + (refused.length > 1 ? ` (${refused.length} images were taken off.)` : ''));
    }
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
