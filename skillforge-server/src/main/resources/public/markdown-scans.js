// Forward scans over an inline text that every construct shares, each made once: the backtick runs
// (where a code span closes) and the parenthesis depths (where a link destination ends). A search
// started anew at each opener would make the work grow with the square of the text.

/**
 * The backtick runs of a text, found by one forward scan shared by every code span: a run's closing
 * run is the next one of the same length, and a length the scan found nothing for has none.
 */
export class BacktickRuns {
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
export class ParenthesisDepths {
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
