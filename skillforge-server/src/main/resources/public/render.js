// Rendering untrusted text: Markdown (markdown.js, linear in the text's length) -> sanitised DOM
// (DOMPurify) -> highlighted code (highlight.js), and splitting <shell> tags out of an assistant's raw
// text for display only. The raw text itself is never changed: these functions only read it.

import DOMPurify from '/webjars/dompurify/3.3.3/dist/purify.es.mjs';
import { LAYOUT_UNITS, markdownToHtml, plainTextChunks } from './markdown.js';

// Links from the model open in a new tab and leak nothing; DOMPurify has already dropped
// javascript:, data: and other unsafe URLs by the time this runs.
DOMPurify.addHook('afterSanitizeAttributes', node => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  // No forms or styles from the model: the CSP would block inline styles anyway, and a form could
  // imitate the page's own controls.
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option'],
  FORBID_ATTR: ['style'],
  SANITIZE_NAMED_PROPS: true,
};

if (window.hljs) {
  window.hljs.configure({ ignoreUnescapedHTML: true });
}

/** HTML (from markdown.js) -> a sanitised DocumentFragment. */
export const sanitize = html => DOMPurify.sanitize(html, PURIFY);

// highlight.js takes about a microsecond a character for a named language, and 15 to 90 when it has
// to guess one (every grammar is tried), plus a fixed cost per block: a message gets HIGHLIGHT_UNITS.
const HIGHLIGHT_UNITS = 100_000;
const GUESS_FACTOR = 20;
const BLOCK_UNITS = 100;

/** What one message may cost the page, shared by its parts: sanitising and layout, highlighting. */
export const renderBudget = () => ({ layout: LAYOUT_UNITS, highlight: HIGHLIGHT_UNITS });

/**
 * Markdown text -> a sanitised DocumentFragment with highlighted code blocks. Never throws: text that
 * cannot be rendered is shown as the plain text it is, so the rest of the page still shows.
 */
export function renderMarkdown(text, budget = renderBudget()) {
  try {
    const fragment = sanitize(markdownToHtml(text, budget));
    fragment.querySelectorAll('pre, table').forEach(scrollable);
    highlight(fragment, budget);
    return fragment;
  } catch {
    return plainText(text);
  }
}

/** The text exactly as written, as text (laid out a chunk at a time), after a note that says why. */
export function plainText(text, note = 'This text could not be rendered; it is shown as written.') {
  const fragment = document.createDocumentFragment();
  const plain = element('div', 'plain-text');
  for (const chunk of plainTextChunks(text)) {
    plain.append(element('div', 'chunk', chunk));
  }
  fragment.append(element('p', 'render-note', note), plain);
  return fragment;
}

/** Highlights the code blocks in {@code root} while {@code budget.highlight} lasts; the rest stay plain. */
export function highlight(root, budget) {
  const hljs = window.hljs;
  if (!hljs) {
    return;
  }
  for (const code of root.querySelectorAll('pre code')) {
    const language = [...code.classList].find(c => c.startsWith('language-'));
    const known = language && hljs.getLanguage(language.slice('language-'.length));
    if (language && !known) {
      code.classList.remove(language); // unknown language: let highlight.js guess instead of warning
    }
    const cost = (code.textContent.length + BLOCK_UNITS) * (known ? 1 : GUESS_FACTOR);
    if (cost > budget.highlight) {
      continue;
    }
    budget.highlight -= cost;
    try {
      hljs.highlightElement(code);
    } catch {
      // leave it plain
    }
  }
}

const OPEN = '<shell>';
const CLOSE = '</shell>';
// Java's String.strip(): Character.isWhitespace, which (unlike JavaScript's trim) excludes
// non-breaking spaces. The server's scanner strips this way, so command indices agree with its ids.
const JAVA_WHITESPACE = /[\t\n\u000B\f\r\u001C-\u001F \u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]/;

/** Java's strip(), one character at a time: a regular expression anchored at the end is quadratic in a run of spaces. */
function javaStrip(text) {
  let start = 0;
  let end = text.length;
  while (start < end && JAVA_WHITESPACE.test(text[start])) {
    start++;
  }
  while (end > start && JAVA_WHITESPACE.test(text[end - 1])) {
    end--;
  }
  return text.slice(start, end);
}

/**
 * Splits an assistant's raw text into Markdown pieces and commands, as the server's scanner reads it:
 * the first </shell> closes a tag, an opening tag inside a body is text, empty tags are not commands,
 * and command i of the iteration is cmd-{iteration}-{i}.
 *
 * @param streaming true while the text is still arriving: an unclosed tag is a command being written,
 *                  and a trailing "<sh" is held back until it is known whether it opens a tag
 * @returns [{kind: 'markdown', text} | {kind: 'command', index, command} | {kind: 'partial', command}
 *          | {kind: 'unfinished', command}] (partial: still being written; unfinished: the text ended inside the tag)
 */
export function splitShell(raw, streaming) {
  const parts = [];
  let text = '';
  let index = 0;
  let at = 0;
  while (at < raw.length) {
    const open = raw.indexOf(OPEN, at);
    if (open < 0) {
      text += raw.slice(at);
      break;
    }
    text += raw.slice(at, open);
    const bodyStart = open + OPEN.length;
    const close = raw.indexOf(CLOSE, bodyStart);
    if (close < 0) {
      if (streaming) {
        pushText(parts, text);
        parts.push({ kind: 'partial', command: javaStrip(raw.slice(bodyStart)) });
        return parts;
      }
      // Never closed (the turn was stopped while the command was written): not a command, shown as
      // the unfinished command it is, not as Markdown (a front matter's "---" would make a heading).
      pushText(parts, text);
      parts.push({ kind: 'unfinished', command: javaStrip(raw.slice(bodyStart)) });
      return parts;
    }
    const command = javaStrip(raw.slice(bodyStart, close));
    if (command === '') {
      text += raw.slice(open, close + CLOSE.length); // Markdown shows a tag as text
    } else {
      pushText(parts, text);
      text = '';
      parts.push({ kind: 'command', index: index++, command });
    }
    at = close + CLOSE.length;
  }
  if (streaming) {
    // "<", "<s", … "<shell" at the very end may be the start of a tag: wait for the next chunk.
    for (let n = Math.min(OPEN.length - 1, text.length); n > 0; n--) {
      if (OPEN.startsWith(text.slice(text.length - n))) {
        text = text.slice(0, text.length - n);
        break;
      }
    }
  }
  pushText(parts, text);
  return parts;
}

function pushText(parts, text) {
  if (text.trim() !== '') {
    parts.push({ kind: 'markdown', text });
  }
}

/** A URL from untrusted input as a link target, or null when it is not plain http(s). */
export function safeHttpUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * Marks a box that may scroll (code, output, a wide table) as reachable by Tab, so a keyboard can scroll it
 * with the arrows (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function scrollable(node) {
  node.tabIndex = 0;
  return node;
}

/** document.createElement with a class and optional text (always as text, never as HTML). */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined && text !== null) {
    node.textContent = text;
  }
  return node;
}

export const formatCount = n => new Intl.NumberFormat('en').format(n);

/** A cost in US dollars: cents under a dollar to four decimals ($0.0157), else two ($1.25). */
export const formatDollars = dollars => '$' + (dollars < 1 ? dollars.toFixed(4) : dollars.toFixed(2));

/**
 * What a usage's cost says, for the page: its dollars when the server priced it (usage.costUsd), else
 * "cost unknown" (the model has no known prices, or the provider left a figure out); null without usage.
 */
export function costText(usage) {
  if (!usage || typeof usage.inputTokens !== 'number') {
    return null;
  }
  return typeof usage.costUsd === 'number' ? formatDollars(usage.costUsd) : 'cost unknown';
}

/**
 * Copies text to the clipboard: the Clipboard API where the page is a secure context (localhost,
 * https), else the older copy command on a hidden text box (a LAN address over http). Resolves to
 * whether it worked.
 */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // denied: try the old way
    }
  }
  const box = element('textarea', 'visually-hidden');
  box.value = text;
  document.body.append(box);
  box.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  box.remove();
  return copied;
}

/** A small button that copies what {@code text()} gives and says "Copied" for a moment. */
export function copyButton(label, text, className) {
  const button = element('button', 'button copy ' + (className || ''), 'Copy');
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.title = label;
  button.addEventListener('click', async event => {
    event.stopPropagation(); // inside a command's summary-less block or a card: copy only
    const ok = await copyText(text());
    button.textContent = ok ? 'Copied' : 'Copy failed';
    button.dataset.copied = String(ok);
    setTimeout(() => {
      button.textContent = 'Copy';
      delete button.dataset.copied;
    }, 1500);
  });
  return button;
}
