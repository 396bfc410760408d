// Renders /openapi.json as a readable page: every operation with its parameters, body and answers, then the schemas.
// Text goes in with textContent only: nothing from the document is parsed as HTML.

const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
};

const refName = ref => ref.split('/').pop();

function schemaText(schema) {
  if (!schema) return '';
  if (schema.$ref) return refName(schema.$ref);
  return JSON.stringify(schema, null, 2);
}

function contentBlock(content) {
  const list = el('div');
  for (const [type, media] of Object.entries(content ?? {})) {
    list.append(el('div', type + ': ' + schemaText(media['x-event-schema'] ?? media.schema)));
    if (media.example !== undefined) list.append(el('pre', JSON.stringify(media.example, null, 2)));
  }
  return list;
}

function operation(doc, path, method, op, shared) {
  const box = el('section', undefined, 'operation');
  const head = el('h3');
  head.append(el('span', method, 'method'), el('span', path, 'path'));
  box.append(head, el('p', op.summary ?? ''));
  if (op.description) box.append(el('p', op.description));
  const parameters = [...shared, ...(op.parameters ?? [])];
  if (parameters.length) {
    const table = el('table');
    table.append(el('tr'));
    table.firstChild.append(el('th', 'parameter'), el('th', 'in'), el('th', 'schema'));
    for (const p of parameters) {
      const row = el('tr');
      row.append(el('td', p.name), el('td', p.in), el('td', JSON.stringify(p.schema)));
      table.append(row);
    }
    box.append(table);
  }
  if (op.requestBody) {
    box.append(el('h4', 'Body'), contentBlock(op.requestBody.content));
  }
  box.append(el('h4', 'Answers'));
  for (const [status, answer] of Object.entries(op.responses)) {
    const resolved = answer.$ref ? doc.components.responses[refName(answer.$ref)] : answer;
    const line = el('div');
    line.append(el('strong', status + ' '), el('span', resolved.description));
    box.append(line, contentBlock(resolved.content));
  }
  return box;
}

async function render() {
  const main = document.getElementById('doc');
  const doc = await (await fetch('/openapi.json')).json();
  main.replaceChildren(el('h1', doc.info.title), el('p', doc.info.description));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
      if (item[method]) main.append(operation(doc, path, method, item[method], item.parameters ?? []));
    }
  }
  main.append(el('h2', 'Schemas'));
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    main.append(el('h3', name), el('pre', JSON.stringify(schema, null, 2)));
  }
  document.body.dataset.ready = 'true';
}

render().catch(error => document.getElementById('doc').append(el('p', 'Could not read /openapi.json: ' + error)));
