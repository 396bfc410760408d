// Inline Markdown (emphasis, code, links, autolinks, escapes) to HTML, in time linear in the text.
//
// The text comes from a model and is untrusted: nothing in it becomes markup except what this file
// writes itself, "<" is always text, and every scan ahead is either consumed or remembered, so no
// input can make the work grow faster than its length. CommonMark's algorithms, with its bounds:
// code spans find their closing run through an index of backtick runs and link destinations their
// end through precomputed parenthesis depths (markdown-scans.js), emphasis is matched by the
// delimiter pass (markdown-emphasis.js).

import { DelimiterRuns, Tag, isAsciiPunctuation, piecesHtml } from './markdown-emphasis.js';
import { BacktickRuns, ParenthesisDepths } from './markdown-scans.js';

/** CommonMark's longest link label. */
const MAX_LABEL = 999;

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = text => text.replace(/[&<>"]/g, c => ESCAPES[c]);

const UNICODE_SPACE = /\s/u;
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/y;
// The body stops at the next "<", so tries from different "<" never scan the same text twice.
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*)>/y;
const BARE_URL = /(?:https?:\/\/|www\.)[A-Za-z0-9]/iy;

// Characters that may start something; everything else is copied as text.
const SPECIAL = new Uint8Array(128);
for (const c of '\\`*_~[]!<>&"\nhHwW') {
  SPECIAL[c.charCodeAt(0)] = 1;
}

/** Thrown when a text holds more markup than the renderer may still write (the message's budget). */
export class OverBudget extends Error {
}

/**
 * Inline Markdown -> HTML. {@code references}: normalised label -> {href, title}. Past {@code limit}
 * pieces of markup (emphasis runs, code spans, links), it gives up with OverBudget: each costs the
 * budget at least a unit.
 */
export function renderInline(text, references = new Map(), limit = Infinity) {
  return new InlineParser(text, references, limit).render();
}

/** A link label as CommonMark compares them: trimmed, inner whitespace collapsed, case folded. */
export function normalizeLabel(label) {
  return label.trim().replace(/[ \t\r\n]+/g, ' ').toLowerCase().toUpperCase();
}

/** Backslash escapes removed (a destination or title as written -> as meant). */
export function unescapeMarkdown(text) {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** Only web, mail and same-site links are links; anything else (javascript:, data:, …) is shown without a target. */
function safeHref(href) {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(href.replace(/[\x00-\x20]/g, ''));
  return !scheme || /^(?:https?|mailto)$/i.test(scheme[1]) ? href : null;
}

function linkTag(href, title, className, source) {
  const safe = safeHref(href);
  return new Tag('<a' + (className ? ` class="${className}"` : '') + (safe === null ? '' : ` href="${escapeHtml(safe)}"`)
    + (title ? ` title="${escapeHtml(title)}"` : '') + '>', escapeHtml(source));
}

class InlineParser {
  constructor(text, references, limit) {
    this.s = text;
    this.references = references;
    this.markupLeft = limit;
    this.out = []; // strings (HTML), Tags and delimiter runs, in order
    this.runs = new DelimiterRuns();
    this.brackets = []; // open "[" and "![": {image, piece, at, delimiter}
    this.lastBracketAt = -1; // where the last "[" or "]" was: a label holds none
    this.backticks = new BacktickRuns(text);
    this.scans = new Map(); // character -> the last forward search for it, reused while it still answers
    this.depths = null; // parenthesis depths for link destinations, computed at the first "]("
  }

  render() {
    const s = this.s;
    const n = s.length;
    let i = 0;
    while (i < n) {
      const c = s[i];
      const code = s.charCodeAt(i);
      if (code >= 128 || !SPECIAL[code] || ((c === 'h' || c === 'H' || c === 'w' || c === 'W') && !this.bareUrlAt(i))) {
        i = this.text(i);
        continue;
      }
      switch (c) {
        case '\\': i = this.backslash(i); break;
        case '`': i = this.codeSpan(i); break;
        case '*': case '_': case '~': i = this.delimiterRun(i); break;
        case '[': i = this.openBracket(i, false); break;
        case '!': i = s[i + 1] === '[' ? this.openBracket(i, true) : this.literal(i, '!'); break;
        case ']': i = this.closeBracket(i); break;
        case '<': i = this.angle(i); break;
        case '&': i = this.ampersand(i); break;
        case '\n': i = this.lineBreak(i); break;
        case '>': i = this.literal(i, '&gt;'); break;
        case '"': i = this.literal(i, '&quot;'); break;
        default: i = this.bareUrl(i); break; // h, w where a bare link starts
      }
    }
    this.runs.process(null);
    return piecesHtml(this.out);
  }

  literal(i, html) {
    this.out.push(html);
    return i + 1;
  }

  /** Plain characters up to the next one that may start something. */
  text(i) {
    const s = this.s;
    let j = i + 1;
    while (j < s.length) {
      const code = s.charCodeAt(j);
      if (code < 128 && SPECIAL[code]) {
        const c = s[j];
        if (!((c === 'h' || c === 'H' || c === 'w' || c === 'W') && !this.bareUrlAt(j))) {
          break;
        }
      }
      j++;
    }
    this.out.push(s.slice(i, j));
    return j;
  }

  backslash(i) {
    const next = this.s[i + 1];
    if (next === '\n') {
      this.out.push('<br>\n');
      return i + 2;
    }
    if (isAsciiPunctuation(next)) {
      this.out.push(ESCAPES[next] || next);
      return i + 2;
    }
    return this.literal(i, '\\');
  }

  codeSpan(i) {
    const s = this.s;
    let end = i;
    while (s[end] === '`') {
      end++;
    }
    const length = end - i;
    const close = this.backticks.next(length, end);
    if (close < 0) {
      this.out.push(s.slice(i, end));
      return end;
    }
    let content = s.slice(end, close).replaceAll('\n', ' ');
    if (content.length > 1 && content[0] === ' ' && content[content.length - 1] === ' ' && content.trim() !== '') {
      content = content.slice(1, -1);
    }
    this.markup();
    this.out.push('<code>' + escapeHtml(content) + '</code>');
    return close + length;
  }

  delimiterRun(i) {
    const { end, piece } = this.runs.at(this.s, i);
    if (typeof piece !== 'string') {
      this.markup();
    }
    this.out.push(piece);
    return end;
  }

  /** One more piece of markup, within the limit. */
  markup() {
    if (--this.markupLeft < 0) {
      throw new OverBudget();
    }
  }

  openBracket(i, image) {
    const at = image ? i + 1 : i;
    this.out.push(image ? '![' : '[');
    this.brackets.push({ image, piece: this.out.length - 1, at, delimiter: this.runs.last });
    this.lastBracketAt = at;
    return at + 1;
  }

  /** "]": a link or image when an opener and a destination (or a known reference) fit, else text. */
  closeBracket(i) {
    const previousBracketAt = this.lastBracketAt;
    this.lastBracketAt = i;
    const opener = this.brackets.pop();
    if (!opener) {
      return this.literal(i, ']');
    }
    const target = this.inlineLink(i + 1) || this.referenceLink(opener, i, previousBracketAt);
    if (!target) {
      return this.literal(i, ']');
    }
    this.markup();
    const empty = opener.piece === this.out.length - 1;
    // An image is shown as a link to it: the CSP would not load one from elsewhere anyway.
    const open = linkTag(target.href, target.title, opener.image ? 'image-link' : null, opener.image ? '![' : '[');
    this.out[opener.piece] = open;
    if (empty) {
      this.out.push(escapeHtml(target.href));
    }
    this.out.push(new Tag('</a>', escapeHtml(this.s.slice(i, target.end)), open));
    this.runs.process(opener.delimiter); // emphasis inside the link is settled now
    // A link holds no other link: the brackets before this one stay text.
    this.brackets.length = 0;
    return target.end;
  }

  /** "(destination "title")" at i, or null. */
  inlineLink(i) {
    const s = this.s;
    if (s[i] !== '(') {
      return null;
    }
    let at = this.skipSpace(i + 1);
    let destination;
    if (s[at] === '<') {
      const close = this.nextUnescaped('>', at + 1);
      if (close < 0 || this.before('<', at + 1, close) || this.before('\n', at + 1, close)) {
        return null;
      }
      destination = s.slice(at + 1, close);
      at = close + 1;
    } else {
      const end = this.bareDestinationEnd(at);
      if (end < 0) {
        return null;
      }
      destination = s.slice(at, end);
      at = end;
    }
    const afterDestination = at;
    at = this.skipSpace(at);
    let title = null;
    const quote = s[at];
    if (at > afterDestination && (quote === '"' || quote === '\'' || quote === '(')) {
      const close = this.nextUnescaped(quote === '(' ? ')' : quote, at + 1);
      if (close < 0 || (quote === '(' && this.before('(', at + 1, close))) {
        return null;
      }
      title = unescapeMarkdown(s.slice(at + 1, close));
      at = this.skipSpace(close + 1);
    }
    if (s[at] !== ')') {
      return null;
    }
    return { href: unescapeMarkdown(destination), title, end: at + 1 };
  }

  /** "[label]", "[]" or nothing after the brackets, naming a reference definition; or null. */
  referenceLink(opener, close, previousBracketAt) {
    if (this.references.size === 0) {
      return null;
    }
    const s = this.s;
    let label = null;
    let end = close + 1;
    if (s[close + 1] === '[') {
      const labelEnd = this.nextUnescaped(']', close + 2);
      const nested = this.nextUnescaped('[', close + 2);
      if (labelEnd >= 0 && (nested < 0 || nested > labelEnd) && labelEnd - close - 2 <= MAX_LABEL) {
        label = s.slice(close + 2, labelEnd);
        end = labelEnd + 1;
      }
    }
    if (label === null || label.trim() === '') {
      // "[text]" or "[text][]": the text is the label, when it holds no brackets.
      if (previousBracketAt !== opener.at || close - opener.at - 1 > MAX_LABEL) {
        return null;
      }
      label = s.slice(opener.at + 1, close);
    }
    const definition = this.references.get(normalizeLabel(label));
    return definition ? { href: definition.href, title: definition.title, end } : null;
  }

  skipSpace(i) {
    const s = this.s;
    let newline = false;
    while (s[i] === ' ' || s[i] === '\t' || (s[i] === '\n' && !newline)) {
      newline ||= s[i] === '\n';
      i++;
    }
    return i;
  }

  /**
   * The first unescaped {@code char} from {@code from}, or -1. Searches go forward as the parse does,
   * so the last answer is reused while it still holds and no stretch of text is searched twice.
   */
  nextUnescaped(char, from) {
    const last = this.scans.get(char);
    if (last && from >= last.from && (last.at < 0 || from <= last.at)) {
      return last.at;
    }
    let at = this.s.indexOf(char, from);
    while (at > 0 && this.escaped(at)) {
      at = this.s.indexOf(char, at + 1);
    }
    this.scans.set(char, { from, at });
    return at;
  }

  /** Whether an unescaped {@code char} comes in [from, to). */
  before(char, from, to) {
    const at = this.nextUnescaped(char, from);
    return at >= 0 && at < to;
  }

  escaped(at) {
    let backslashes = 0;
    while (at - backslashes - 1 >= 0 && this.s[at - backslashes - 1] === '\\') {
      backslashes++;
    }
    return backslashes % 2 === 1;
  }

  /**
   * Where a destination without <> that starts at i ends: at the ")" that closes the link (the first
   * place its parentheses go below zero) or at white space with them balanced; -1 when neither.
   */
  bareDestinationEnd(i) {
    if (this.depths === null) {
      this.depths = new ParenthesisDepths(this.s);
    }
    const { depth, nextLower, nextSpace } = this.depths;
    const closing = nextLower[i] - 1; // index of the ")" that takes the depth below where i starts
    const space = nextSpace[i];
    if (closing < space) {
      return closing;
    }
    return depth[space] === depth[i] && space > i ? space : -1;
  }

  angle(i) {
    AUTOLINK.lastIndex = i;
    const match = AUTOLINK.exec(this.s);
    if (!match) {
      return this.literal(i, '&lt;');
    }
    this.markup();
    const open = linkTag(match[1], null, null, '<');
    this.out.push(open, escapeHtml(match[1]), new Tag('</a>', '&gt;', open));
    return i + match[0].length;
  }

  ampersand(i) {
    ENTITY.lastIndex = i;
    const match = ENTITY.exec(this.s);
    if (match) {
      this.out.push(match[0]); // the browser reads it as the character it names, as text
      return i + match[0].length;
    }
    return this.literal(i, '&amp;');
  }

  /** A line break: hard after two spaces, soft (a newline) otherwise; the spaces are dropped. */
  lineBreak(i) {
    const last = this.out[this.out.length - 1];
    let hard = false;
    if (typeof last === 'string') {
      const trimmed = last.replace(/ +$/, '');
      hard = last.length - trimmed.length >= 2;
      this.out[this.out.length - 1] = trimmed;
    }
    this.out.push(hard ? '<br>\n' : '\n');
    return i + 1;
  }

  /** GFM's bare links (http://, https://, www.) where a word starts, outside brackets (a link holds no link). */
  bareUrlAt(i) {
    if (this.brackets.length > 0) {
      return false;
    }
    const before = this.s[i - 1];
    if (!(before === undefined || before === '*' || before === '_' || before === '~' || before === '(' || UNICODE_SPACE.test(before))) {
      return false;
    }
    BARE_URL.lastIndex = i;
    return BARE_URL.test(this.s);
  }

  bareUrl(i) {
    const s = this.s;
    let end = i;
    while (end < s.length && s[end] !== '<' && !UNICODE_SPACE.test(s[end])) {
      end++;
    }
    // Trailing punctuation ends the sentence, not the link; so does a ")" the link did not open.
    let opened = 0;
    for (let k = i; k < end; k++) {
      opened += s[k] === '(' ? 1 : s[k] === ')' ? -1 : 0;
    }
    while (end > i) {
      const last = s[end - 1];
      if ('?!.,:*_~\'"'.includes(last)) {
        end--;
      } else if (last === ')' && opened < 0) {
        opened++;
        end--;
      } else {
        break;
      }
    }
    this.markup();
    const text = s.slice(i, end);
    const open = linkTag(/^www\./i.test(text) ? 'http://' + text : text, null, null, '');
    this.out.push(open, escapeHtml(text), new Tag('</a>', '', open));
    return end;
  }
}
