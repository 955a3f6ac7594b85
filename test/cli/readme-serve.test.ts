import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers.js';
import { runCli, SAMPLES, spawnServe } from './cli.js';

/**
 * The README's third command (issue 13): `groundwork serve` on the demo library, the `curl` search
 * beside it, then the inspector at `/`. The commands are read from the README itself, so a README
 * that drifts from the CLI fails here. The library is a fresh one made as `npm run demo` makes it
 * (`groundwork ingest samples`), and the port is any free one (`--port 0` appended) instead of 7700.
 */
const DEMO_LIBRARY = '.groundwork-demo';

function thirdCommand(): { serve: string[]; curl: { path: string; body: unknown } } {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const at = readme.indexOf('The third command a new user runs');
  expect(at, 'README names the third command').toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))![1]!;
  const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
  const serveLine = lines.find((l) => l.startsWith('groundwork serve'));
  const curlLine = lines.find((l) => l.startsWith('curl'));
  expect(serveLine, block).toBeDefined();
  expect(curlLine, block).toBeDefined();
  const path = /localhost:7700(\/\S+)/.exec(curlLine!)![1]!;
  const body = JSON.parse(/-d '([^']+)'/.exec(curlLine!)![1]!);
  return { serve: serveLine!.split(/\s+/).slice(1), curl: { path, body } };
}

describe('README: the third command', () => {
  it('serves the demo library: the README\'s curl search answers, and the inspector is at /', async () => {
    const { serve, curl } = thirdCommand();
    expect(serve).toEqual(['serve', '--library', DEMO_LIBRARY]);
    const library = join(mkdtempSync(join(tmpdir(), 'gw-readme-')), DEMO_LIBRARY);
    const ingest = await runCli(['ingest', SAMPLES, '--library', library]);
    expect(ingest.code, ingest.stderr).toBe(0);

    const args = serve.slice(1).map((a) => (a === DEMO_LIBRARY ? library : a));
    const server = await spawnServe(args);
    try {
      const { url } = server;
      // curl -s localhost:7700/v1/search -H 'content-type: application/json' -d '{...}'
      const response = await fetch(`${url}${curl.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(curl.body) });
      expect(response.status).toBe(200);
      const result = await response.json() as { hits: { text?: string; snippet: string; path: string; block: { text: string } }[] };
      expect(result.hits.length).toBe((curl.body as { k: number }).k);
      expect(result.hits[0]!.block.text.toLowerCase()).toMatch(/late/);
      expect(result.hits[0]!.path).toContain('samples');
      // "then open the page": the inspector, and the API it uses, with the demo's documents
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>Groundwork inspector</title>');
      const documents = await (await fetch(`${url}/v1/documents`)).json() as { total: number };
      expect(documents.total).toBeGreaterThanOrEqual(8);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 180_000);
});
