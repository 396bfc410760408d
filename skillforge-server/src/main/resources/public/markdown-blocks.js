// The block structure of Markdown (paragraphs, headings, code, quotes, lists, tables), read line by
// line with CommonMark's algorithm: each line is matched against the open containers, may start new
// blocks, and is added to the innermost one. Work per line is bounded by the line's length and the
// nesting depth, which is capped: a quote or list marker deeper than MAX_NESTING is text.

import { normalizeLabel, unescapeMarkdown } from './markdown-inline.js';
import { delimiterRow, splitRow } from './markdown-tables.js';

/** Block quotes and lists inside each other, at most. */
const MAX_NESTING = 16;

const CODE_INDENT = 4;
const ACCEPTS_LINES = new Set(['paragraph', 'code', 'html', 'table']);
const CAN_CONTAIN = new Set(['document', 'blockquote', 'item']);
// A line whose first character is none of these starts no block.
const MAYBE_SPECIAL = /^[#`~*+_=<>0-9|:-]/;
const ATX_HEADING = /^#{1,6}(?:[ \t]+|$)/;
const OPENING_FENCE = /^`{3,}(?!.*`)|^~{3,}/;
const CLOSING_FENCE = /^(?:`{3,}|~{3,})(?=[ \t]*$)/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const HTML_START = /^<(?:[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|\/[A-Za-z][A-Za-z0-9-]*\s*>|!--|\?|![A-Za-z]|!\[CDATA\[)/;
const BULLET = /^[*+-]/;
const ORDERED = /^(\d{1,9})([.)])/;
const DEFINITION = /^\[((?:[^\\[\]]|\\.){1,999})\]:[ \t]*(<[^<>\n]*>|[^<\s]\S*)(?:[ \t]+("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*$/;

class Block {
  constructor(type, parent, line, offset, decidedLine = line) {
    this.type = type;
    this.parent = parent;
    this.children = [];
    this.open = true;
    this.startLine = line;
    this.decidedLine = decidedLine; // the line that made it this kind of block: a table's is its delimiter row
    this.endLine = line; // the last line with content in it (blank lines do not count): lists use it for looseness
    this.startOffset = offset; // where its first line starts in the text
    this.lines = [];
    this.depth = parent ? parent.depth + (type === 'blockquote' || type === 'list' ? 1 : 0) : 0;
  }

  get lastChild() {
    return this.children[this.children.length - 1];
  }
}

/**
 * Parses Markdown into blocks. {@code references} (normalised label -> {href, title}) is filled with the
 * text's link reference definitions; ones already there are kept.
 *
 * @returns {document, lineCount}: the document block, and how many lines the text has (the last
 *          one possibly unfinished)
 */
export function parseBlocks(text, references = new Map()) {
  const parser = new BlockParser(references);
  const source = text.replaceAll('\0', '\uFFFD'); // the same length: offsets stay the text's
  const ending = /\r\n?|\n/g;
  let start = 0;
  let lineCount = 0;
  for (;;) {
    const match = ending.exec(source);
    const end = match ? match.index : source.length;
    lineCount++;
    if (match || end > start) {
      parser.lineOffset = start;
      parser.incorporateLine(source.slice(start, end));
    }
    if (!match) {
      break;
    }
    start = end + match[0].length;
  }
  while (parser.tip) {
    parser.finalize(parser.tip);
  }
  return { document: parser.document, lineCount };
}

class BlockParser {
  constructor(references) {
    this.references = references;
    this.document = new Block('document', null, 0, 0);
    this.tip = this.document;
    this.oldTip = this.document;
    this.lastMatchedContainer = this.document;
    this.lineNumber = -1;
    this.lineOffset = 0;
    this.line = '';
    this.offset = 0;
    this.column = 0;
    this.nextNonspace = 0;
    this.nextNonspaceColumn = 0;
    this.indent = 0;
    this.indented = false;
    this.blank = false;
    this.partiallyConsumedTab = false;
    this.allClosed = true;
  }

  incorporateLine(line) {
    this.lineNumber++;
    this.line = line;
    this.offset = 0;
    this.column = 0;
    this.blank = false;
    this.partiallyConsumedTab = false;
    this.lineTaken = false; // by a block start that is the whole line (a fence, a table's delimiter row)
    this.oldTip = this.tip;

    // 1. Which open blocks does this line continue?
    let container = this.document;
    let lastChild;
    while ((lastChild = container.lastChild) && lastChild.open) {
      container = lastChild;
      this.findNextNonspace();
      const result = this.continues(container);
      if (result === 2) {
        return; // a closing fence: the line is used up
      }
      if (result === 1) {
        container = container.parent;
        break;
      }
    }
    this.allClosed = container === this.oldTip;
    this.lastMatchedContainer = container;

    // 2. Does it start new blocks?
    let matchedLeaf = container.type !== 'paragraph' && container.type !== 'table' && ACCEPTS_LINES.has(container.type);
    while (!matchedLeaf) {
      this.findNextNonspace();
      if (!this.indented && !MAYBE_SPECIAL.test(this.line[this.nextNonspace] ?? '')) {
        this.advanceNextNonspace();
        break;
      }
      const result = this.startBlock(container);
      if (result === 0) {
        this.advanceNextNonspace();
        break;
      }
      container = this.tip;
      matchedLeaf = result === 2;
    }

    // 3. The rest of the line is text: a lazy continuation of a paragraph, or added to its block.
    if (!this.allClosed && !this.blank && this.tip.type === 'paragraph') {
      this.addLine();
    } else {
      if (line.trim() !== '') {
        this.markContent(container); // a line with only a quote marker is no blank line
      }
      this.closeUnmatchedBlocks();
      if (ACCEPTS_LINES.has(container.type)) {
        if (!this.lineTaken && !(container.type === 'table' && this.blank)) {
          this.addLine();
        }
      } else if (this.offset < line.length && !this.blank) {
        this.addChild('paragraph');
        this.advanceNextNonspace();
        this.addLine();
      }
    }
  }

  /** 0: the line continues the block; 1: it does not; 2: it ended the block and is used up. */
  continues(block) {
    switch (block.type) {
      case 'blockquote':
        if (!this.indented && this.line[this.nextNonspace] === '>') {
          this.advanceNextNonspace();
          this.advanceOffset(1, false);
          if (this.line[this.offset] === ' ' || this.line[this.offset] === '\t') {
            this.advanceOffset(1, true);
          }
          return 0;
        }
        return 1;
      case 'item':
        if (this.blank) {
          if (block.children.length === 0) {
            return 1; // a blank line after an empty item ends it
          }
          this.advanceNextNonspace();
          return 0;
        }
        if (this.indent >= block.markerOffset + block.padding) {
          this.advanceOffset(block.markerOffset + block.padding, true);
          return 0;
        }
        return 1;
      case 'code':
        return block.fenced ? this.continuesFence(block) : this.continuesIndentedCode();
      case 'paragraph':
      case 'html':
      case 'table':
        return this.blank ? 1 : 0;
      case 'list':
        return 0;
      default:
        return 1; // headings and rules are one line
    }
  }

  continuesFence(block) {
    const match = this.indent <= 3 && this.line[this.nextNonspace] === block.fenceChar
      && CLOSING_FENCE.exec(this.line.slice(this.nextNonspace));
    if (match && match[0].length >= block.fenceLength) {
      this.markContent(block);
      this.finalize(block);
      return 2;
    }
    // Up to the fence's own indentation is dropped from each line.
    let i = block.fenceOffset;
    while (i > 0 && (this.line[this.offset] === ' ' || this.line[this.offset] === '\t')) {
      this.advanceOffset(1, true);
      i--;
    }
    return 0;
  }

  continuesIndentedCode() {
    if (this.indent >= CODE_INDENT) {
      this.advanceOffset(CODE_INDENT, true);
      return 0;
    }
    if (this.blank) {
      this.advanceNextNonspace();
      return 0;
    }
    return 1;
  }

  /** Tries each kind of block start at this point: 0 none, 1 a container, 2 a leaf that takes the line. */
  startBlock(container) {
    const line = this.line;
    const at = this.nextNonspace;
    const first = line[at];
    if (!this.indented && first === '>' && this.nestingAllowed(container, false)) {
      this.advanceNextNonspace();
      this.advanceOffset(1, false);
      if (line[this.offset] === ' ' || line[this.offset] === '\t') {
        this.advanceOffset(1, true);
      }
      this.closeUnmatchedBlocks();
      this.addChild('blockquote');
      return 1;
    }
    if (!this.indented && first === '#') {
      const match = ATX_HEADING.exec(line.slice(at, at + 8));
      if (match) {
        this.advanceNextNonspace();
        this.advanceOffset(match[0].length, false);
        this.closeUnmatchedBlocks();
        const heading = this.addChild('heading');
        heading.level = match[0].trim().length;
        heading.text = withoutClosingHashes(line.slice(this.offset));
        this.advanceOffset(line.length - this.offset, false);
        return 2;
      }
    }
    if (!this.indented && (first === '`' || first === '~')) {
      const match = OPENING_FENCE.exec(line.slice(at));
      if (match) {
        this.closeUnmatchedBlocks();
        const code = this.addChild('code');
        code.fenced = true;
        code.fenceChar = first;
        code.fenceLength = match[0].length;
        code.fenceOffset = this.indent;
        code.info = unescapeMarkdown(line.slice(at + match[0].length).trim());
        this.lineTaken = true;
        return 2;
      }
    }
    if (!this.indented && first === '<' && container.type !== 'paragraph' && HTML_START.test(line.slice(at, at + 12))) {
      this.closeUnmatchedBlocks();
      this.addChild('html');
      return 2; // the line itself is added below
    }
    if (!this.indented && container.type === 'paragraph' && (first === '=' || first === '-')
        && SETEXT_UNDERLINE.test(line.slice(at)) && this.setextHeading(container, first === '=' ? 1 : 2)) {
      return 2;
    }
    if (!this.indented && container.type === 'paragraph' && this.startTable(container)) {
      return 2;
    }
    if (!this.indented && isThematicBreak(line, at)) {
      this.closeUnmatchedBlocks();
      this.addChild('hr');
      this.advanceOffset(line.length - this.offset, false);
      return 2;
    }
    if ((!this.indented || container.type === 'list') && this.nestingAllowed(container, true)) {
      const marker = this.listMarker(container);
      if (marker) {
        this.closeUnmatchedBlocks();
        if (this.tip.type !== 'list' || !sameList(this.tip, marker)) {
          const list = this.addChild('list');
          Object.assign(list, { ordered: marker.ordered, bullet: marker.bullet, delimiter: marker.delimiter, start: marker.start });
        }
        const item = this.addChild('item');
        item.markerOffset = marker.markerOffset;
        item.padding = marker.padding;
        return 1;
      }
    }
    if (this.indented && this.tip.type !== 'paragraph' && this.tip.type !== 'table' && !this.blank) {
      this.advanceOffset(CODE_INDENT, true);
      this.closeUnmatchedBlocks();
      const code = this.addChild('code');
      code.fenced = false;
      return 2;
    }
    return 0;
  }

  /** Whether a new quote (or list, {@code list}) may open here without going past MAX_NESTING. */
  nestingAllowed(container, list) {
    const holder = container.type === 'paragraph' || container.type === 'table' ? container.parent : container;
    return (list && holder.type === 'list' ? holder.depth : holder.depth + 1) <= MAX_NESTING;
  }

  setextHeading(paragraph, level) {
    this.closeUnmatchedBlocks();
    this.takeDefinitions(paragraph);
    if (paragraph.lines.length === 0) {
      return false;
    }
    const heading = new Block('heading', paragraph.parent, paragraph.startLine, paragraph.startOffset, this.lineNumber);
    heading.level = level;
    heading.text = paragraph.lines.join('\n').trim();
    this.replace(paragraph, heading);
    this.markContent(heading);
    this.advanceOffset(this.line.length - this.offset, false);
    return true;
  }

  /** A GFM table: the paragraph's last line is the header when this line is a delimiter row with as many cells. */
  startTable(paragraph) {
    const aligns = delimiterRow(this.line.slice(this.nextNonspace));
    const header = paragraph.lines[paragraph.lines.length - 1];
    if (!aligns || header === undefined) {
      return false;
    }
    const headerCells = splitRow(header);
    if (headerCells.length !== aligns.length) {
      return false;
    }
    this.closeUnmatchedBlocks();
    paragraph.lines.pop();
    const table = new Block('table', paragraph.parent, paragraph.lastLineNumber, paragraph.lastLineOffset, this.lineNumber);
    table.aligns = aligns;
    table.header = headerCells;
    if (paragraph.lines.length === 0) {
      this.replace(paragraph, table);
    } else {
      this.finalize(paragraph);
      table.parent.children.push(table);
      this.tip = table;
    }
    this.markContent(table);
    this.lineTaken = true;
    return true;
  }

  replace(old, block) {
    const siblings = old.parent.children;
    siblings[siblings.length - 1] = block;
    this.tip = block;
  }

  /** CommonMark's list marker: bullet or number, the spaces after it, and the item's content column. */
  listMarker(container) {
    if (this.indent >= CODE_INDENT) {
      return null;
    }
    const line = this.line;
    const rest = line.slice(this.nextNonspace, this.nextNonspace + 12);
    let marker;
    let length;
    const bullet = BULLET.exec(rest);
    const ordered = !bullet && ORDERED.exec(rest);
    if (bullet) {
      marker = { ordered: false, bullet: bullet[0] };
      length = 1;
    } else if (ordered && (container.type !== 'paragraph' || ordered[1] === '1')) {
      marker = { ordered: true, start: Number(ordered[1]), delimiter: ordered[2] };
      length = ordered[0].length;
    } else {
      return null;
    }
    const after = line[this.nextNonspace + length];
    if (!(after === undefined || after === ' ' || after === '\t')) {
      return null;
    }
    // An empty item cannot interrupt a paragraph.
    if (container.type === 'paragraph' && line.slice(this.nextNonspace + length).trim() === '') {
      return null;
    }
    marker.markerOffset = this.indent;
    this.advanceNextNonspace();
    this.advanceOffset(length, true);
    const spacesStartColumn = this.column;
    const spacesStartOffset = this.offset;
    let next;
    do {
      this.advanceOffset(1, true);
      next = line[this.offset];
    } while (this.column - spacesStartColumn < 5 && (next === ' ' || next === '\t'));
    const spaces = this.column - spacesStartColumn;
    if (spaces >= 5 || spaces < 1 || next === undefined) {
      marker.padding = length + 1;
      this.column = spacesStartColumn;
      this.offset = spacesStartOffset;
      if (line[this.offset] === ' ' || line[this.offset] === '\t') {
        this.advanceOffset(1, true);
      }
    } else {
      marker.padding = length + spaces;
    }
    return marker;
  }

  findNextNonspace() {
    const line = this.line;
    let i = this.offset;
    let columns = this.column;
    let c;
    while ((c = line[i]) !== undefined) {
      if (c === ' ') {
        i++;
        columns++;
      } else if (c === '\t') {
        i++;
        columns += 4 - (columns % 4);
      } else {
        break;
      }
    }
    this.blank = c === undefined;
    this.nextNonspace = i;
    this.nextNonspaceColumn = columns;
    this.indent = columns - this.column;
    this.indented = this.indent >= CODE_INDENT;
  }

  advanceNextNonspace() {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partiallyConsumedTab = false;
  }

  /** Moves on {@code count} characters, or columns (a tab counts to the next stop of four). */
  advanceOffset(count, columns) {
    const line = this.line;
    let c;
    while (count > 0 && (c = line[this.offset]) !== undefined) {
      if (c === '\t') {
        const toTab = 4 - (this.column % 4);
        if (columns) {
          this.partiallyConsumedTab = toTab > count;
          const advance = Math.min(toTab, count);
          this.column += advance;
          this.offset += this.partiallyConsumedTab ? 0 : 1;
          count -= advance;
        } else {
          this.partiallyConsumedTab = false;
          this.column += toTab;
          this.offset += 1;
          count -= 1;
        }
      } else {
        this.partiallyConsumedTab = false;
        this.offset += 1;
        this.column += 1;
        count -= 1;
      }
    }
  }

  addLine() {
    let text = this.line.slice(this.offset);
    if (this.partiallyConsumedTab) {
      this.offset += 1;
      text = ' '.repeat(4 - (this.column % 4)) + this.line.slice(this.offset);
    }
    const tip = this.tip;
    if (tip.type === 'table') {
      tip.lines.push(splitRow(text));
    } else {
      tip.lines.push(text);
    }
    tip.lastLineNumber = this.lineNumber;
    tip.lastLineOffset = this.lineOffset;
    if (!this.blank || (tip.type === 'code' && tip.fenced)) {
      this.markContent(tip);
    }
  }

  /** This line has content in {@code block} and its containers. */
  markContent(block) {
    for (let b = block; b; b = b.parent) {
      b.endLine = this.lineNumber;
    }
  }

  addChild(type) {
    while (!CAN_CONTAIN.has(this.tip.type) && !(this.tip.type === 'list' && type === 'item')) {
      this.finalize(this.tip);
    }
    const block = new Block(type, this.tip, this.lineNumber, this.lineOffset);
    this.tip.children.push(block);
    this.tip = block;
    this.markContent(block);
    return block;
  }

  closeUnmatchedBlocks() {
    if (!this.allClosed) {
      while (this.oldTip !== this.lastMatchedContainer) {
        const parent = this.oldTip.parent;
        this.finalize(this.oldTip);
        this.oldTip = parent;
      }
      this.allClosed = true;
    }
  }

  finalize(block) {
    block.open = false;
    if (block.type === 'paragraph') {
      this.takeDefinitions(block);
      if (block.lines.length === 0) {
        block.parent.children.splice(block.parent.children.lastIndexOf(block), 1);
      }
    } else if (block.type === 'code' && !block.fenced) {
      while (block.lines.length > 0 && block.lines[block.lines.length - 1].trim() === '') {
        block.lines.pop();
      }
    } else if (block.type === 'list') {
      block.loose = isLoose(block);
    }
    this.tip = block.parent;
  }

  /** Link reference definitions at the start of a paragraph go into the references, not the text. */
  takeDefinitions(paragraph) {
    let taken = 0;
    let match;
    while (taken < paragraph.lines.length && paragraph.lines[taken][0] === '['
        && (match = DEFINITION.exec(paragraph.lines[taken]))) {
      const label = normalizeLabel(match[1]);
      if (label !== '' && !this.references.has(label)) {
        const destination = match[2][0] === '<' ? match[2].slice(1, -1) : match[2];
        const title = match[3] ? unescapeMarkdown(match[3].slice(1, -1)) : null;
        this.references.set(label, { href: unescapeMarkdown(destination), title });
      }
      taken++;
    }
    if (taken > 0) {
      paragraph.lines = paragraph.lines.slice(taken);
    }
  }
}

function sameList(list, marker) {
  return list.ordered === marker.ordered && list.bullet === marker.bullet && list.delimiter === marker.delimiter;
}

/** Loose when items, or the blocks inside an item, are apart by a blank line. */
function isLoose(list) {
  const apart = blocks => blocks.some((block, i) => i > 0 && block.startLine > blocks[i - 1].endLine + 1);
  return apart(list.children) || list.children.some(item => apart(item.children));
}

function isThematicBreak(line, at) {
  const c = line[at];
  if (c !== '-' && c !== '*' && c !== '_') {
    return false;
  }
  let count = 0;
  for (let i = at; i < line.length; i++) {
    if (line[i] === c) {
      count++;
    } else if (line[i] !== ' ' && line[i] !== '\t') {
      return false;
    }
  }
  return count >= 3;
}

/** An ATX heading's text without its closing run of "#" (written after a space, or alone). */
function withoutClosingHashes(text) {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) {
    end--;
  }
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === '#') {
    hashes--;
  }
  if (hashes < end && (hashes === 0 || text[hashes - 1] === ' ' || text[hashes - 1] === '\t')) {
    end = hashes;
  }
  return text.slice(0, end).trim();
}
