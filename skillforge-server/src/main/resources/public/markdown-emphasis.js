// Emphasis (*, _ and ~): CommonMark's delimiter runs and the pass that matches them, in time linear
// in the text ("openers bottom" remembers where a search for an opener failed, so no stretch is
// searched twice for the same kind of closer); and an inline text's pieces as HTML, with its
// elements nested at most MAX_INLINE_NESTING deep.

/** Inline elements inside each other beyond this are shown as the characters that made them. */
const MAX_INLINE_NESTING = 16;

const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
export const isAsciiPunctuation = c => c !== undefined && ASCII_PUNCTUATION.includes(c);
const UNICODE_PUNCTUATION = /[\p{P}\p{S}]/u;
const UNICODE_SPACE = /\s/u;

/** An HTML tag the renderer writes, and the Markdown that made it (as HTML): shown instead when nested too deep. */
export class Tag {
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

/** The delimiter runs of one inline text that may still match, in order. */
export class DelimiterRuns {
  constructor() {
    this.last = null;
  }

  /**
   * The run of *, _ or ~ at i, and whether it can open or close emphasis (CommonMark's flanking
   * rules): {end, piece}, the piece a Delimiter added to the runs, or the run's text when it can do
   * neither (or is a "~" run longer than two).
   */
  at(s, i) {
    const c = s[i];
    let end = i;
    while (s[end] === c) {
      end++;
    }
    const count = end - i;
    if (c === '~' && count > 2) {
      return { end, piece: s.slice(i, end) };
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
      return { end, piece: s.slice(i, end) };
    }
    this.last = new Delimiter(c, count, canOpen, canClose, this.last);
    return { end, piece: this.last };
  }

  /**
   * CommonMark's emphasis pass over the runs after {@code bottom} (null: all of them): each closer
   * looks back for the nearest fitting opener. Afterwards those runs are settled, as the text and
   * tags they now are.
   */
  process(bottom) {
    const bottomOrder = bottom ? bottom.order : -1;
    const openersBottom = new Map(); // kind of closer -> the order at and below which no opener fits it
    let closer = bottom ? bottom.next : this.first();
    while (closer) {
      if (!closer.canClose) {
        closer = closer.next;
        continue;
      }
      const kind = closer.char + (closer.char === '~' ? closer.length : closer.length % 3) + (closer.canOpen ? 'o' : '');
      const stop = Math.max(bottomOrder, openersBottom.get(kind) ?? -1);
      let opener = closer.previous;
      while (opener && opener.order > stop && !fits(opener, closer)) {
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
    if (bottom) {
      bottom.next = null;
    }
    this.last = bottom;
  }

  first() {
    let first = this.last;
    while (first && first.previous) {
      first = first.previous;
    }
    return first;
  }

  unlink(delimiter) {
    if (delimiter.previous) {
      delimiter.previous.next = delimiter.next;
    }
    if (delimiter.next) {
      delimiter.next.previous = delimiter.previous;
    }
    if (this.last === delimiter) {
      this.last = delimiter.previous;
    }
  }
}

function fits(opener, closer) {
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

/** An inline text's pieces (HTML, Tags, Delimiters) as HTML; tags nested too deep become their Markdown again. */
export function piecesHtml(pieces) {
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
  for (const piece of pieces) {
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
