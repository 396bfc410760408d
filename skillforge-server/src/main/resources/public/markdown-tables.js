// GFM tables' rows: a row's cells, and whether a line is the delimiter row under a header.

/** The alignment of each column ('left', 'center', 'right' or null) when the line is a table's delimiter row. */
export function delimiterRow(line) {
  if (!line.includes('|') || !line.includes('-')) {
    return null;
  }
  const aligns = [];
  for (const cell of splitRow(line)) {
    const c = cell.trim();
    let start = 0;
    let end = c.length;
    const left = c[0] === ':';
    const right = c.length > 1 && c[end - 1] === ':';
    start += left ? 1 : 0;
    end -= right ? 1 : 0;
    if (end <= start) {
      return null;
    }
    for (let i = start; i < end; i++) {
      if (c[i] !== '-') {
        return null;
      }
    }
    aligns.push(left && right ? 'center' : right ? 'right' : left ? 'left' : null);
  }
  return aligns;
}

/** A table row's cells: split at unescaped "|", the outer ones dropped; "\|" is a "|" in a cell. */
export function splitRow(line) {
  const text = line.trim();
  const cells = [];
  let cell = '';
  let start = text[0] === '|' ? 1 : 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && text[i + 1] === '|') {
      cell += text.slice(start, i) + '|';
      start = i + 2;
      i++;
    } else if (c === '|') {
      cells.push(cell + text.slice(start, i));
      cell = '';
      start = i + 1;
    }
  }
  if (start < text.length || cell !== '') {
    cells.push(cell + text.slice(start));
  }
  return cells.map(c => c.trim());
}
