// Markdown -> HTML for untrusted text, in time linear in its length: the blocks (markdown-blocks.js)
// and their inline text (markdown-inline.js). HTML in the text is shown as text; the only markup is
// what this renderer writes. Its output still goes through DOMPurify (render.js).
//
// What the browser then does with it is bounded too: each block is charged, as it is rendered, an
// estimate of what it costs Chromium to sanitise and lay out, and a message renders as Markdown only
// while its budget lasts. The rest is shown as written, in chunks the browser lays out only when they
// are on screen.

import { parseBlocks } from './markdown-blocks.js';
import { OverBudget, escapeHtml, renderInline } from './markdown-inline.js';

/**
 * What one message may cost the browser, in units of about 5 microseconds (measured in Chromium on
 * the page's styles, sanitising and layout together): an inline tag 1 and a link 3 more (the
 * sanitiser's hook sets its target), a block element (paragraph, heading, list item, row) 10, a table
 * cell 4, a code block 20 (with its bar) and 2 a line, a tab in preformatted text 3. About 300 ms in
 * all; 200,000 characters of "*a" would be 200,000 units.
 */
export const LAYOUT_UNITS = 60_000;

const BLOCK = 10;
const CODE_BLOCK = 20;
const CODE_LINE = 2;
const TAB = 3;
const CELL = 4;
const LINK = 3;

/** Plain text is cut into chunks of at most this many lines or characters (see plainTextChunks). */
const CHUNK_LINES = 200;
const CHUNK_CHARS = 10_000;

/**
 * Markdown -> HTML, taking its cost from {@code budget.layout}; from the first top-level block that
 * does not fit, the rest of the text is shown as written.
 */
export function markdownToHtml(text, budget = { layout: LAYOUT_UNITS }) {
  const references = new Map();
  const { blocks } = parseMarkdown(text, references);
  const { html, fit } = renderWithin(blocks, references, budget);
  return fit < blocks.length ? html + plainTextHtml(text.slice(blocks[fit].start)) : html;
}

/**
 * Markdown -> its top-level blocks, each with where it starts in the text, and how many of them more
 * text can no longer change (see settledBlocks). Rendering them is a step of its own (renderWithin),
 * taken only while the budget lasts.
 *
 * @param references link reference definitions known from text before this (normalised label ->
 *                   {href, title}); the text's own are added to it
 */
export function parseMarkdown(text, references) {
  const { document, lineCount } = parseBlocks(text, references);
  const blocks = document.children.map(block => ({ block, start: block.startOffset }));
  return { blocks, settled: settledBlocks(document.children, lineCount) };
}

/**
 * The HTML of the blocks, from the first, while {@code budget.layout} lasts (their cost is taken from
 * it), and how many fit. A block is given up as soon as it costs more than is left, so a hostile one
 * is not rendered in full only to be shown as written.
 */
export function renderWithin(blocks, references, budget) {
  let html = '';
  let fit = 0;
  for (; fit < blocks.length; fit++) {
    const rendering = { references, cost: 0, limit: budget.layout };
    try {
      html += blockHtml(blocks[fit].block, rendering, false);
    } catch (e) {
      if (!(e instanceof OverBudget)) {
        throw e;
      }
      budget.layout = 0;
      break;
    }
    budget.layout -= rendering.cost;
  }
  return { html, fit };
}

export const BUDGET_NOTE = 'The rest is shown as written: it has more formatting than the page shows at once.';

/** Text past the budget (or not rendered yet): as written, after a note that says why. */
export function plainTextHtml(text, note = BUDGET_NOTE) {
  return `<p class="render-note">${escapeHtml(note)}</p>\n`
    + '<div class="plain-text">' + plainTextChunks(text).map(chunk => `<div class="chunk">${escapeHtml(chunk)}</div>`).join('')
    + '</div>\n';
}

/**
 * Text cut into chunks for the browser to lay out one by one, and only when on screen (CSS
 * content-visibility): one text of many lines costs it more than linear time (200,000 lines, 2.6 s).
 * A chunk ends after a newline where it can, else after a space.
 */
export function plainTextChunks(text) {
  const chunks = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    let lines = 0;
    let newline = -1;
    let space = -1;
    for (let i = start; i < end; i++) {
      if (text[i] === '\n') {
        newline = i;
        if (++lines === CHUNK_LINES) {
          end = i + 1;
          break;
        }
      } else if (text[i] === ' ') {
        space = i;
      }
    }
    if (lines < CHUNK_LINES && end < text.length) {
      // In the second half of the window only, so each chunk is long and no text is scanned twice.
      const half = start + CHUNK_CHARS / 2;
      end = newline >= half ? newline + 1 : space >= half ? space + 1 : end;
    }
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

/**
 * How many top-level blocks are final whatever text is appended: each one followed by a block decided
 * on a finished line (a line still being written may still turn into anything, a heading's underline
 * or a table's delimiter row, which decides that the line above is a table's header). References
 * defined later are the exception, which is why a finished answer is rendered whole once more.
 */
function settledBlocks(blocks, lineCount) {
  let settled = 0;
  while (settled + 1 < blocks.length && blocks[settled + 1].decidedLine < lineCount - 1) {
    settled++;
  }
  return settled;
}

/** Adds to the block's cost; past its limit, the block is given up. */
function charge(rendering, units) {
  rendering.cost += units;
  if (rendering.cost > rendering.limit) {
    throw new OverBudget();
  }
}

function inline(text, rendering) {
  const html = renderInline(text, rendering.references, rendering.limit - rendering.cost);
  charge(rendering, countOf('<', html) + LINK * countOf('<a', html));
  return html;
}

function blockHtml(block, rendering, tight) {
  const children = (list, childTight) => list.map(child => blockHtml(child, rendering, childTight)).join('');
  if (block.type === 'code' || block.type === 'html') {
    charge(rendering, (block.type === 'code' ? CODE_BLOCK : BLOCK) + CODE_LINE * block.lines.length
      + TAB * block.lines.reduce((tabs, line) => tabs + countOf('\t', line), 0));
  } else if (!(block.type === 'paragraph' && tight)) {
    charge(rendering, BLOCK);
  }
  switch (block.type) {
    case 'paragraph': {
      const html = inline(block.lines.join('\n').trimEnd(), rendering);
      return tight ? html : `<p>${html}</p>\n`;
    }
    case 'heading':
      return `<h${block.level}>${inline(block.text, rendering)}</h${block.level}>\n`;
    case 'code': {
      const language = block.fenced ? block.info.split(/\s/, 1)[0] : '';
      const className = language ? ` class="language-${escapeHtml(language)}"` : '';
      const content = block.lines.length ? block.lines.join('\n') + '\n' : '';
      return `<pre><code${className}>${escapeHtml(content)}</code></pre>\n`;
    }
    case 'html':
      // HTML written by the model is shown as the text it is: "<b>" reads "<b>".
      return `<p class="literal-html">${escapeHtml(block.lines.join('\n').trimEnd())}</p>\n`;
    case 'hr':
      return '<hr>\n';
    case 'blockquote':
      return `<blockquote>\n${children(block.children, false)}</blockquote>\n`;
    case 'list': {
      const open = block.ordered ? (block.start === 1 ? '<ol>' : `<ol start="${block.start}">`) : '<ul>';
      charge(rendering, BLOCK * block.children.length);
      const items = block.children.map(item => `<li>${children(item.children, !block.loose)}</li>\n`).join('');
      return `${open}\n${items}${block.ordered ? '</ol>' : '</ul>'}\n`;
    }
    case 'table':
      return tableHtml(block, rendering);
    default:
      return '';
  }
}

function tableHtml(table, rendering) {
  const cell = (tag, text, i) => {
    const align = table.aligns[i] ? ` align="${table.aligns[i]}"` : '';
    charge(rendering, CELL);
    return `<${tag}${align}>${inline(text, rendering)}</${tag}>`;
  };
  const head = table.header.map((text, i) => cell('th', text, i)).join('');
  // Rows keep the cells they have, fewer or more than the header's: padding short rows would let a
  // wide header and many short rows make a table far larger than its text.
  charge(rendering, BLOCK * table.lines.length);
  const rows = table.lines.map(cells => '<tr>' + cells.map((text, i) => cell('td', text, i)).join('') + '</tr>\n');
  return `<table>\n<thead>\n<tr>${head}</tr>\n</thead>\n${rows.length ? `<tbody>\n${rows.join('')}</tbody>\n` : ''}</table>\n`;
}

/** How often {@code char} (or a string) is in {@code text}: every "<" in this renderer's HTML is a tag's, text has them escaped. */
function countOf(char, text) {
  let count = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) {
    count++;
  }
  return count;
}
