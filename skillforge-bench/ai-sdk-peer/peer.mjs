// The load benchmark's second peer: the same agent loop as the LangChain4j peer (LangChain4jPeer.java), written as a
// Vercel AI SDK 7 streamText route on Node 22 with node:http (./skillforge bench load --peer ai-sdk). POST /api/agent
// takes the history, streams the model's answer from the OpenAI-compatible upstream, relays each piece as a `text`
// event, runs a <shell>skill list</shell> in the answer (the skills folder's names, in process), sends the output back
// as the next message, up to 10 calls, and ends with `done`: the events the load client reads, in SkillForge's wire
// form. It stores nothing, checks no cache prefix, runs no sandbox, keeps no event log and counts no metrics.
// Arguments: the port (0: any) and the upstream's base URL (http://127.0.0.1:N/v1); prints "port N".
import http from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const [port, upstream] = process.argv.slice(2);
const provider = createOpenAICompatible({ name: 'paced', baseURL: upstream, apiKey: 'sk-load-bench-not-a-real-key' });
const model = provider('paced-1');
const system = 'You are SkillForge, an agent that learns skills. '.repeat(40);
const skills = mkdtempSync(join(tmpdir(), 'ai-sdk-peer-skills-'));
const SHELL = /<shell>([\s\S]*?)<\/shell>/;
const MAX_CALLS = 10;

function send(res, event) {
  res.write(`data: ${JSON.stringify(event)}\n\n`);
}

function run(command) {
  if (command !== 'skill list') return 'unknown command';
  const names = readdirSync(skills).sort();
  return names.length === 0 ? 'No skills yet.' : names.join('\n');
}

async function agent(req, res) {
  let body = '';
  for await (const piece of req) body += piece;
  const messages = JSON.parse(body).messages.map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: String(m.content),
  }));
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  try {
    for (let call = 1; call <= MAX_CALLS; call++) {
      const result = streamText({ model, system, messages });
      for await (const delta of result.textStream) send(res, { type: 'text', delta });
      const answer = await result.text;
      messages.push({ role: 'assistant', content: answer });
      send(res, { type: 'raw-content', rawContent: answer });
      const command = SHELL.exec(answer);
      if (!command) break;
      const output = `[Shell Output]\n$ ${command[1].trim()}\n${run(command[1].trim())}`;
      messages.push({ role: 'user', content: output });
      send(res, { type: 'tool-output', toolOutput: output });
    }
    send(res, { type: 'done' });
  } catch (error) {
    send(res, { type: 'error', message: String(error?.message ?? error) });
  }
  res.end();
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.end('ok');
  } else if (req.method === 'POST' && req.url === '/api/agent') {
    agent(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: String(error?.message ?? error) }));
    });
  } else {
    res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`port ${server.address().port}`));
