// Inline Markdown (emphasis, code, links, autolinks, escapes) to HTML, in time linear in the text.
//
// The text comes from a model and is untrusted: nothing in it becomes markup except what this file
// writes itself, "<" is always text, and every scan ahead is either consumed or remembered, so no
// input can make the work grow faster than its length. CommonMark's algorithms, with its bounds:
// code spans find their closing run through an index of backtick runs, emphasis uses the delimiter
// stack with "openers bottom", link destinations use precomputed parenthesis depths.

/** Inline elements inside each other beyond this are shown as the characters that made them. */
const MAX_INLINE_NESTING = 16;
/** CommonMark's longest link label. */
const MAX_LABEL = 999;

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = text => text.replace(/[&<>"]/g, c => ESCAPES[c]);

const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const isAsciiPunctuation = c => c !== undefined && ASCII_PUNCTUATION.includes(c);
const UNICODE_PUNCTUATION = /[\p{P}\p{S}]/u;
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

/** An HTML tag this renderer writes, and the Markdown that made it (as HTML): shown instead when nested too deep. */
class Tag {
  constructor(html, source, opening = null) {
    this.html = html;
    this.source = source;
    this.opening = opening; // set on a closing tag
    this.dropped = false;
  }
}

/** A run of *, _ or ~: literal characters until emphasis matches it, then tags around what it encloses. */
class Delimiter {
  constructor(char, count, canOpen, canClose, previous) {
    this.order = previous ? previous.order + 1 : 0; // its place among the runs, which removals do not change
    this.char = char;
    this.count = count; // characters left
    this.length = count; // as written (the "rule of 3" uses it)
    this.canOpen = canOpen;
    this.canClose = canClose;
    this.previous = previous;
    this.next = null;
    this.closings = null; // as a closer: its closing tags, innermost first
    this.openings = null; // as an opener: its opening tags, innermost first
    if (previous) {
      previous.next = this;
    }
  }
}

/** Inline Markdown -> HTML. {@code references}: normalised label -> {href, title}. */
export function renderInline(text, references = new Map()) {
  return new InlineParser(text, references).render();
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
  constructor(text, references) {
    this.s = text;
    this.references = references;
    this.out = []; // strings (HTML), Tags and Delimiters, in order
    this.lastDelimiter = null;
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
    this.processEmphasis(null);
    return this.emit();
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
    this.out.push('<code>' + escapeHtml(content) + '</code>');
    return close + length;
  }

  /** A run of *, _ or ~ and whether it can open or close emphasis (CommonMark's flanking rules). */
  delimiterRun(i) {
    const s = this.s;
    const c = s[i];
    let end = i;
    while (s[end] === c) {
      end++;
    }
    const count = end - i;
    if (c === '~' && count > 2) {
      this.out.push(s.slice(i, end));
      return end;
    }
    const before = characterBefore(s, i);
    const after = characterAt(s, end);
    const spaceBefore = isSpace(before);
    const spaceAfter = isSpace(after);
    const punctuationBefore = isPunctuation(before);
    const punctuationAfter = isPunctuation(after);
    const leftFlanking = !spaceAfter && (!punctuationAfter || spaceBefore || punctuationBefore);
    const rightFlanking = !spaceBefore && (!punctuationBefore || spaceAfter || punctuationAfter);
    const canOpen = c === '_' ? leftFlanking && (!rightFlanking || punctuationBefore) : leftFlanking;
    const canClose = c === '_' ? rightFlanking && (!leftFlanking || punctuationAfter) : rightFlanking;
    if (!canOpen && !canClose) {
      this.out.push(s.slice(i, end));
      return end;
    }
    const delimiter = new Delimiter(c, count, canOpen, canClose, this.lastDelimiter);
    this.lastDelimiter = delimiter;
    this.out.push(delimiter);
    return end;
  }

  openBracket(i, image) {
    const at = image ? i + 1 : i;
    this.out.push(image ? '![' : '[');
    this.brackets.push({ image, piece: this.out.length - 1, at, delimiter: this.lastDelimiter });
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
    const empty = opener.piece === this.out.length - 1;
    // An image is shown as a link to it: the CSP would not load one from elsewhere anyway.
    const open = linkTag(target.href, target.title, opener.image ? 'image-link' : null, opener.image ? '![' : '[');
    this.out[opener.piece] = open;
    if (empty) {
      this.out.push(escapeHtml(target.href));
    }
    this.out.push(new Tag('</a>', escapeHtml(this.s.slice(i, target.end)), open));
    this.processEmphasis(opener.delimiter);
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
    const text = s.slice(i, end);
    const open = linkTag(/^www\./i.test(text) ? 'http://' + text : text, null, null, '');
    this.out.push(open, escapeHtml(text), new Tag('</a>', '', open));
    return end;
  }

  /**
   * CommonMark's emphasis pass over the delimiters after {@code bottom}: each closer looks back for the
   * nearest fitting opener, and "openers bottom" remembers where a search failed, so later closers of
   * the same kind never search that stretch again.
   */
  processEmphasis(bottom) {
    const bottomOrder = bottom ? bottom.order : -1;
    const openersBottom = new Map(); // kind of closer -> the order at and below which no opener fits it
    let closer = bottom ? bottom.next : this.firstDelimiterAfter(bottom);
    while (closer) {
      if (!closer.canClose) {
        closer = closer.next;
        continue;
      }
      const kind = closer.char + (closer.char === '~' ? closer.length : closer.length % 3) + (closer.canOpen ? 'o' : '');
      const stop = Math.max(bottomOrder, openersBottom.get(kind) ?? -1);
      let opener = closer.previous;
      while (opener && opener.order > stop && !this.fits(opener, closer)) {
        opener = opener.previous;
      }
      if (opener && opener.order > stop) {
        const used = closer.char === '~' ? closer.count : (closer.count >= 2 && opener.count >= 2 ? 2 : 1);
        const name = closer.char === '~' ? 'del' : used === 2 ? 'strong' : 'em';
        const open = new Tag(`<${name}>`, closer.char.repeat(used));
        (opener.openings ??= []).push(open);
        (closer.closings ??= []).push(new Tag(`</${name}>`, open.source, open));
        opener.count -= used;
        closer.count -= used;
        opener.next = closer; // what was between is text now
        closer.previous = opener;
        if (opener.count === 0) {
          this.unlink(opener);
        }
        if (closer.count === 0) {
          const next = closer.next;
          this.unlink(closer);
          closer = next;
        }
      } else {
        openersBottom.set(kind, closer.previous ? closer.previous.order : -1);
        const next = closer.next;
        if (!closer.canOpen) {
          this.unlink(closer);
        }
        closer = next;
      }
    }
    // Everything after bottom is settled: those runs stay as the text (and tags) they now are.
    if (bottom) {
      bottom.next = null;
    }
    this.lastDelimiter = bottom;
  }

  firstDelimiterAfter(bottom) {
    let first = this.lastDelimiter;
    while (first && first.previous !== bottom) {
      first = first.previous;
    }
    return first;
  }

  fits(opener, closer) {
    if (opener.char !== closer.char || !opener.canOpen) {
      return false;
    }
    if (closer.char === '~') {
      return opener.length === closer.length;
    }
    // The "rule of 3": a run that can both open and close matches only runs that keep the sum off multiples of 3.
    return !((opener.canClose || closer.canOpen) && (opener.length + closer.length) % 3 === 0
      && !(opener.length % 3 === 0 && closer.length % 3 === 0));
  }

  unlink(delimiter) {
    if (delimiter.previous) {
      delimiter.previous.next = delimiter.next;
    }
    if (delimiter.next) {
      delimiter.next.previous = delimiter.previous;
    }
    if (this.lastDelimiter === delimiter) {
      this.lastDelimiter = delimiter.previous;
    }
  }

  /** The pieces as HTML; tags nested deeper than MAX_INLINE_NESTING become their Markdown again. */
  emit() {
    const html = [];
    let depth = 0;
    const tag = t => {
      if (t.opening === null) {
        t.dropped = depth >= MAX_INLINE_NESTING;
        depth += t.dropped ? 0 : 1;
        html.push(t.dropped ? t.source : t.html);
      } else {
        depth -= t.opening.dropped ? 0 : 1;
        html.push(t.opening.dropped ? t.source : t.html);
      }
    };
    for (const piece of this.out) {
      if (typeof piece === 'string') {
        html.push(piece);
      } else if (piece instanceof Tag) {
        tag(piece);
      } else {
        piece.closings?.forEach(tag);
        html.push(piece.char.repeat(piece.count));
        for (let k = (piece.openings?.length ?? 0) - 1; k >= 0; k--) {
          tag(piece.openings[k]);
        }
      }
    }
    return html.join('');
  }
}

/** The character before i, whole when it is the second half of a surrogate pair; '' at the start. */
function characterBefore(s, i) {
  if (i === 0) {
    return '';
  }
  const low = s.charCodeAt(i - 1);
  return low >= 0xDC00 && low <= 0xDFFF && i >= 2 ? s.slice(i - 2, i) : s[i - 1];
}

function characterAt(s, i) {
  return i >= s.length ? '' : s.charCodeAt(i) < 0xD800 ? s[i] : String.fromCodePoint(s.codePointAt(i));
}

/** White space, as emphasis sees it: the start and end of the text count as white space too. */
function isSpace(c) {
  return c === '' || c === ' ' || c === '\n' || (c > '~' && UNICODE_SPACE.test(c)) || (c < ' ');
}

function isPunctuation(c) {
  return c !== '' && (c <= '~' ? isAsciiPunctuation(c) : UNICODE_PUNCTUATION.test(c));
}

/**
 * The backtick runs of a text, found by one forward scan shared by every code span: a run's closing
 * run is the next one of the same length, and a length the scan found nothing for has none.
 */
class BacktickRuns {
  constructor(s) {
    this.s = s;
    this.scanned = 0;
    this.byLength = new Map(); // length -> {starts, head}
  }

  next(length, from) {
    const known = this.byLength.get(length);
    if (known) {
      while (known.head < known.starts.length && known.starts[known.head] < from) {
        known.head++;
      }
      if (known.head < known.starts.length) {
        return known.starts[known.head];
      }
    }
    const s = this.s;
    while (this.scanned < s.length) {
      const start = s.indexOf('`', this.scanned);
      if (start < 0) {
        this.scanned = s.length;
        break;
      }
      let end = start;
      while (s[end] === '`') {
        end++;
      }
      this.scanned = end;
      let runs = this.byLength.get(end - start);
      if (!runs) {
        runs = { starts: [], head: 0 };
        this.byLength.set(end - start, runs);
      }
      runs.starts.push(start);
      if (end - start === length && start >= from) {
        runs.head = runs.starts.length - 1;
        return start;
      }
    }
    return -1;
  }
}

/**
 * For link destinations: depth[i], the unescaped "(" minus ")" before i; nextLower[i], the first
 * j > i where the depth is below depth[i]; nextSpace[i], the first white space or control character
 * at or after i. Each is one pass over the text.
 */
class ParenthesisDepths {
  constructor(s) {
    const n = s.length;
    this.depth = new Int32Array(n + 1);
    let escaped = false;
    for (let i = 0; i < n; i++) {
      const c = s[i];
      this.depth[i + 1] = this.depth[i] + (escaped ? 0 : c === '(' ? 1 : c === ')' ? -1 : 0);
      escaped = !escaped && c === '\\';
    }
    this.nextLower = new Int32Array(n + 1);
    const stack = new Int32Array(n + 1);
    let top = 0;
    for (let i = n; i >= 0; i--) {
      while (top > 0 && this.depth[stack[top - 1]] >= this.depth[i]) {
        top--;
      }
      this.nextLower[i] = top > 0 ? stack[top - 1] : n + 2;
      stack[top++] = i;
    }
    this.nextSpace = new Int32Array(n + 1);
    this.nextSpace[n] = n;
    for (let i = n - 1; i >= 0; i--) {
      this.nextSpace[i] = s.charCodeAt(i) <= 0x20 || s.charCodeAt(i) === 0x7F ? i : this.nextSpace[i + 1];
    }
  }
}
