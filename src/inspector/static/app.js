// Groundwork inspector: a plain ES module, no build step, nothing remote (docs/inspector.md).
import { segmentsOf } from './segments.js';
import { VirtualList } from './virtual-list.js';

const DPI = 110;
const view = document.getElementById('view');

/**
 * The API key, for a server that has keys (docs/inspector.md, "Keys"): asked for on the first 401,
 * kept in this tab's sessionStorage (never in the address), sent as `Authorization: Bearer KEY`.
 */
const KEY_ITEM = 'groundwork.apiKey';
const storedKey = () => sessionStorage.getItem(KEY_ITEM) ?? '';
/** A request the server refused for want of a (valid) key: the view asks for one. */
class KeyNeeded extends Error {}
async function authFetch(url, init = {}) {
  const key = storedKey();
  const response = await fetch(url, key ? { ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } } : init);
  if (response.status === 401) {
    const body = await response.json().catch(() => ({}));
    throw new KeyNeeded(body?.error?.message ?? 'an API key is required');
  }
  return response;
}
const api = async (url, init) => {
  const response = await authFetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `${response.status} ${url}`);
  return body;
};

/**
 * Page images, fetched with the key (an <img src> cannot send one) and shown from blob: URLs
 * (the CSP allows them). Kept per document while it is open; a prefetch fills the same entry.
 */
const images = new Map();
function pageImage(url) {
  let entry = images.get(url);
  if (!entry) {
    entry = authFetch(url).then(async (r) => {
      if (!r.ok) throw new Error((await r.json().catch(() => ({})))?.error?.message ?? `${r.status} ${url}`);
      return URL.createObjectURL(await r.blob());
    });
    entry.catch(() => images.delete(url));
    images.set(url, entry);
  }
  return entry;
}
function dropImages() {
  for (const entry of images.values()) entry.then((u) => URL.revokeObjectURL(u), () => undefined);
  images.clear();
}
const pageUrl = (id, p) => `/v1/documents/${id}/pages/${p}.png?dpi=${DPI}`;

/** The key form: shown instead of the view when the server asks for a key. */
function keyView(message) {
  const input = el('input', { id: 'api-key', type: 'password', autocomplete: 'off', 'aria-label': 'API key', size: '48' });
  view.replaceChildren(el('h2', {}, 'This server needs an API key'),
    el('p', { role: 'alert', id: 'key-message' }, storedKey() ? `The key was refused: ${message}` : message),
    el('form', { id: 'key-form', onsubmit: (e) => {
      e.preventDefault();
      if (input.value.trim() === '') return;
      sessionStorage.setItem(KEY_ITEM, input.value.trim());
      showKeyState();
      route();
    } }, el('label', { for: 'api-key' }, 'Key '), input, ' ', el('button', { type: 'submit' }, 'Use this key')),
    el('p', { class: 'meta' }, 'A read-only key is enough to look; it is kept in this tab only (sessionStorage) and sent to this server alone.'));
  input.focus();
  document.body.dataset.ready = 'key';
}
/** The header's "forget the key" button, shown while a key is kept. */
function showKeyState() {
  document.getElementById('forget-key').hidden = storedKey() === '';
}
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v; else if (k.startsWith('on')) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
};
const colour = (i) => `hsl(${(i * 137.508) % 360} 70% 42%)`;

async function libraryView() {
  const { documents } = await api('/v1/documents?limit=500');
  const rows = documents.map((d) => el('tr', {},
    el('td', {}, el('a', { href: `#/doc/${d.id}` }, d.title || d.paths[0] || d.id)),
    el('td', {}, d.format), el('td', { class: 'num' }, d.pageCount ?? ''), el('td', { class: 'num' }, d.blocks), el('td', { class: 'num' }, d.tokens ?? ''),
    el('td', {}, d.warnings.length ? d.warnings.join('; ') : '')));
  const jobs = await api('/v1/jobs?limit=50').catch(() => ({ jobs: [] }));
  // Files the server's recent uploads rejected: the client's name, the reason and code, what to do.
  const rejected = (jobs.jobs ?? []).flatMap((j) => j.files.filter((f) => f.outcome === 'rejected').map((f) => el('li', {},
    el('strong', {}, f.name), `: ${f.reason ?? 'rejected'} [${f.code ?? '?'}]`, el('div', { class: 'hint' }, `what to do: ${f.hint ?? '-'}`))));
  view.replaceChildren(el('h2', {}, `Library: ${documents.length} documents`),
    el('table', { id: 'documents' }, el('thead', {}, el('tr', {}, ...['document', 'format', 'pages', 'blocks', 'tokens', 'warnings'].map((h) => el('th', {}, h)))), el('tbody', {}, ...rows)),
    el('h3', {}, 'Rejected files'), rejected.length ? el('ul', { id: 'rejected' }, ...rejected) : el('p', {}, 'none'));
}

/** Blocks per request: a small first one (the top of the list and the first page's regions), then large ones. */
const FIRST = 200;
const PAGE = 1000;

/**
 * A document's blocks: a first few at once (the top of the list, the first page's regions); the
 * rest, in parallel requests, once `rest()` is called (after the first draw, so they do not compete
 * with it for the server). `blocks` fills in as pages arrive; `rest()` settles when all are there.
 */
async function loadBlocks(id, onPage) {
  const first = await api(`/v1/documents/${id}/blocks?offset=0&limit=${FIRST}`);
  const blocks = new Array(first.total);
  first.blocks.forEach((b, i) => { blocks[i] = b; });
  let all;
  const rest = () => {
    all ??= (async () => {
      const pending = [];
      for (let offset = first.blocks.length; offset < first.total; offset += PAGE) {
        pending.push(api(`/v1/documents/${id}/blocks?offset=${offset}&limit=${PAGE}`).then(({ blocks: page }) => {
          page.forEach((b, j) => { blocks[offset + j] = b; });
          onPage?.(offset, page.length);
        }));
      }
      await Promise.all(pending);
      return blocks;
    })();
    return all;
  };
  return { blocks, total: first.total, loaded: first.blocks.length, rest };
}

/** Average width of a character of the list's font, for row-height estimates (CJK counts twice). */
const CHAR_PX = 8.2;
const LINE_PX = 19.2;
function estimateText(text, widthPx, extraPx) {
  if (!text) return extraPx + LINE_PX;
  const perLine = Math.max(10, Math.floor((widthPx - 24) / CHAR_PX));
  let lines = 0;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const len = (nl === -1 ? text.length : nl) - start;
    lines += Math.max(1, Math.ceil(len / perLine));
    if (nl === -1) break;
    start = nl + 1;
  }
  // Wide (CJK) text: twice the width per character, judged on a sample.
  const sample = text.slice(0, 200);
  const wide = (sample.match(/[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/g)?.length ?? 0) / Math.max(1, sample.length);
  return extraPx + LINE_PX * lines * (1 + wide);
}

/** The chunk list's row: colour bar, meta line, text. */
function chunkRow(b, i, { idPrefix = 'chunk', selected = false, marked = false, onclick } = {}) {
  const row = el('div', { class: `chunk${selected ? ' selected' : ''}${marked ? ' marked' : ''}`, id: `${idPrefix}-${b.ordinal ?? b.index}`, role: 'option', 'aria-selected': String(selected), 'data-ordinal': b.ordinal ?? b.index, onclick },
    el('div', { class: 'meta' }, [`#${b.ordinal ?? b.index}`, b.headingPath.join(' › ') || '(no heading)', b.pageStart == null ? null : b.pageEnd != null && b.pageEnd !== b.pageStart ? `pages ${b.pageStart}–${b.pageEnd}` : `page ${b.pageStart}`, `${b.tokens} tokens`, b.strategy].filter(Boolean).join(' · ')),
    b.text);
  row.style.borderLeftColor = colour(i); // CSSOM, not a style attribute: the CSP allows no inline styles
  return row;
}

const SVG = 'http://www.w3.org/2000/svg';

/**
 * A page image (`GET /v1/documents/{id}/pages/{n}.png`) with chunk regions drawn over it: every box
 * of every chunk on that page (`bboxes`, times `scale`: PDF points by DPI/72), in the chunk's colour. The
 * Chunks view draws the stored blocks with it; each side of Compare its strategy's chunks.
 * `chunks` may have holes (blocks still loading); `isSelected(i)` draws a region selected;
 * `onSelect(i)` is called when a region is clicked. `suffix` tells the ids apart (`regions-a`).
 */
function pageRegions(id, chunks, { scale = DPI / 72, isSelected = () => false, onSelect = () => {}, suffix = '' } = {}) {
  const img = el('img', { alt: '', id: `page-image${suffix}` });
  const svg = document.createElementNS(SVG, 'svg');
  svg.id = `regions${suffix}`;
  const element = el('div', { class: 'page' }, img, svg);
  const ordinalOf = (c) => c.ordinal ?? c.index;
  function regionsFor(p) {
    const out = [];
    chunks.forEach((c, i) => (c?.bboxes ?? []).forEach((box) => { if ((box.page ?? c.pageStart) === p) out.push({ i, box }); }));
    return out;
  }
  let shown = 0;
  function draw(p = shown) {
    svg.setAttribute('viewBox', `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
    const rects = [];
    for (const { i, box } of regionsFor(p)) {
      const r = document.createElementNS(SVG, 'rect');
      r.setAttribute('class', `region${isSelected(i) ? ' selected' : ''}`);
      r.dataset.ordinal = String(ordinalOf(chunks[i]));
      r.dataset.index = String(i);
      r.dataset.box = JSON.stringify(box);
      r.setAttribute('x', box.x0 * scale); r.setAttribute('y', box.y0 * scale);
      r.setAttribute('width', (box.x1 - box.x0) * scale); r.setAttribute('height', (box.y1 - box.y0) * scale);
      r.setAttribute('fill', colour(i)); r.setAttribute('stroke', colour(i));
      r.addEventListener('click', () => onSelect(i));
      const title = document.createElementNS(SVG, 'title'); title.textContent = `chunk #${ordinalOf(chunks[i])}`; r.append(title);
      rects.push(r);
    }
    svg.replaceChildren(...rects);
    shown = p;
  }
  /** Loads page `p`'s image (settles when it is there; the regions are drawn by `draw`). */
  function load(p) {
    img.alt = `page ${p}`;
    return pageImage(pageUrl(id, p)).then((src) => new Promise((resolve, reject) => {
      if (img.src === src && img.complete && img.naturalWidth > 0) { resolve(); return; }
      img.onload = resolve; img.onerror = reject; img.src = src;
    }));
  }
  /** Marks the regions selected again (after a selection changed), without drawing them anew. */
  function refresh() {
    svg.querySelectorAll('rect.region').forEach((r) => r.classList.toggle('selected', isSelected(Number(r.dataset.index))));
  }
  return { element, img, draw, load, refresh };
}

/** Documents whose pages the server serves as images (`pages/{n}.png`): PDFs, scans among them, and images. */
const hasPages = (doc) => doc.format === 'pdf' || doc.format === 'image';
/** Image pixels per box unit: PDF boxes are in points (rendered at DPI), an image's in its own pixels (served as they are). */
const pageScale = (doc) => (doc.format === 'pdf' ? DPI / 72 : 1);

/** ‹ page N of M › */
function pageNav(p, pageCount, go, label = '') {
  return el('div', { class: 'pages-nav' },
    el('button', { onclick: () => go(Math.max(1, p - 1)), 'aria-label': `previous page${label}` }, '‹'),
    `page ${p} of ${pageCount ?? '?'}`,
    el('button', { onclick: () => go(Math.min(pageCount ?? p, p + 1)), 'aria-label': `next page${label}` }, '›'));
}

/** The outline (heading tree) as rows, parents before children, each with its depth (0 for a root). */
function flattenOutline(roots) {
  const rows = [];
  const stack = [...roots].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop();
    rows.push({ title: node.title, depth, level: node.level, page: node.page, firstOrdinal: node.firstOrdinal, path: node.path });
    for (let c = (node.children?.length ?? 0) - 1; c >= 0; c--) stack.push({ node: node.children[c], depth: depth + 1 });
  }
  return rows;
}

/** One heading of the outline pane, indented by its depth. */
function outlineRow(h, k, onclick) {
  const row = el('div', { class: 'heading', role: 'listitem', id: `heading-${k}`, 'data-depth': h.depth, 'data-level': h.level, title: h.path.join(' › '), onclick },
    h.title, h.page !== undefined ? el('span', { class: 'meta' }, ` p. ${h.page}`) : null);
  row.style.paddingLeft = `${0.4 + h.depth}em`; // CSSOM: the CSP allows no style attributes
  return row;
}

function docTabs(id, current) {
  const tab = (href, label, name) => el('a', { href, class: `tab${current === name ? ' current' : ''}`, ...(current === name && { 'aria-current': 'page' }) }, label);
  return el('nav', { class: 'tabs', 'aria-label': 'document views' },
    tab(`#/doc/${id}`, 'Chunks', 'doc'), tab(`#/text/${id}`, 'Canonical text', 'text'), tab(`#/compare/${id}`, 'Compare strategies', 'compare'));
}

let lists = [];
function dropLists() {
  for (const list of lists) list.destroy();
  lists = [];
}

async function documentView(id, params) {
  performance.mark('doc-open-start');
  let list;
  const loading = loadBlocks(id, (offset, n) => {
    for (let i = offset; i < offset + n; i++) list?.refresh(i);
  });
  const metadata = api(`/v1/documents/${id}`).then((d) => {
    // The page image is fetched beside the blocks (into the browser's cache), not after them.
    if (hasPages(d.document)) pageImage(pageUrl(id, Number(params.get('page') ?? 1))).catch(() => undefined);
    return d;
  });
  const [{ document: doc, outline }, { blocks, total, loaded, rest: all }] = await Promise.all([metadata, loading]);
  const isPdf = hasPages(doc); // PDFs (scans too) and images: a page image with regions
  let selected = params.has('chunk') ? Number(params.get('chunk')) : -1;
  // A chunk or page beyond the first blocks fetched needs them all before it is drawn.
  if (selected >= loaded || (loaded < total && Number(params.get('page') ?? 1) >= (blocks[loaded - 1]?.pageEnd ?? Infinity))) await all();
  let page = Number(params.get('page') ?? blocks.find((b) => b?.pageStart)?.pageStart ?? 1);
  const textPane = el('div', { class: 'pane', id: 'text', role: 'listbox', 'aria-label': 'chunks', tabindex: '0' });
  const pagePane = el('div', { class: 'pane', id: 'pagepane' });
  textPane.addEventListener('keydown', (e) => {
    const to = { ArrowDown: selected + 1, j: selected + 1, ArrowUp: selected - 1, k: selected - 1, Home: 0, End: total - 1, PageDown: selected + 10, PageUp: selected - 10 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(Math.max(0, Math.min(total - 1, to)), true);
  });

  const regions = pageRegions(id, blocks, { scale: pageScale(doc), isSelected: (i) => i === selected, onSelect: (i) => select(i, true) });
  const drawRegions = (p) => regions.draw(p);
  async function showPage(p) {
    page = p;
    if (!isPdf) return;
    pagePane.replaceChildren(pageNav(p, doc.pageCount, showPage), regions.element);
    await regions.load(p);
    if (page !== p) return; // another page was asked for meanwhile
    drawRegions(p);
    pagePane.dataset.page = String(p);
  }
  function select(i, scroll) {
    if (i < 0 || i >= total) return;
    const before = selected;
    selected = i;
    list.refresh(before);
    list.refresh(i);
    const b = blocks[i];
    if (!b) {
      if (scroll) list.scrollToIndex(i);
      all().then(() => { if (selected === i) select(i, scroll); });
      return;
    }
    // The detail first: the list is scrolled in the space that is left.
    detail.replaceChildren(`chunk #${b.ordinal} · ${b.kind} · ${b.chars} chars · ${b.tokens} tokens · strategy ${b.strategy}\nheadings: ${b.headingPath.join(' › ') || '-'}\nembedded text:\n${b.embedded}`);
    if (scroll) list.scrollToIndex(i);
    const target = b.pageStart ?? page;
    if (isPdf && target !== page) showPage(target);
    else regions.refresh();
    history.replaceState(null, '', `#/doc/${id}?page=${b.pageStart ?? page}&chunk=${i}`);
  }
  const detail = el('div', { class: 'detail', id: 'detail', 'aria-live': 'polite' });
  const headings = isPdf ? [] : flattenOutline(outline);
  const outlinePane = el('div', { class: 'pane list', id: 'outline-list', role: 'list', 'aria-label': 'outline', tabindex: '0' });
  const left = isPdf ? pagePane : el('div', { class: 'pane outline', id: 'outline' }, el('h3', {}, `Outline (${headings.length} headings)`), outlinePane);
  view.replaceChildren(el('h2', {}, `${doc.title || doc.paths[0] || doc.id} (${doc.format}, ${doc.pageCount ?? '-'} pages, ${total} chunks)`), docTabs(id, 'doc'),
    el('div', { class: 'doc' }, left, el('div', { class: 'side' }, textPane, detail)));
  list = new VirtualList(textPane, {
    count: total,
    estimate: (i) => estimateText(blocks[i]?.text ?? 'x'.repeat(400), textPane.clientWidth || 600, 30),
    render: (i) => (blocks[i] ? chunkRow(blocks[i], i, { selected: i === selected, onclick: () => select(i, true) }) : el('div', { class: 'chunk pending', role: 'option', 'aria-busy': 'true' }, `#${i} …`)),
  });
  lists.push(list);
  if (!isPdf) {
    // The heading tree as a flat list (parents before children), virtualised like the chunks: a
    // document with thousands of headings draws only the rows in view. A heading selects the first
    // chunk of its section.
    const outlineRows = new VirtualList(outlinePane, {
      count: headings.length,
      estimate: (k) => estimateText(headings[k].title, (outlinePane.clientWidth || 600) - 16 * headings[k].depth, 4),
      render: (k) => outlineRow(headings[k], k, () => { if (headings[k].firstOrdinal !== undefined) select(headings[k].firstOrdinal, true); }),
    });
    lists.push(outlineRows);
  }
  await showPage(page);
  if (selected >= 0) select(selected, true);
  performance.mark('doc-open-end');
  performance.measure('doc-open', 'doc-open-start', 'doc-open-end');
  document.body.dataset.ready = 'document';
  all().then(() => {
    if (isPdf && pagePane.dataset.page === String(page)) drawRegions(page);
    performance.mark('doc-loaded-end');
    performance.measure('doc-loaded', 'doc-open-start', 'doc-loaded-end');
    document.body.dataset.loaded = id;
  });
}

async function textView(id) {
  const [{ document: doc }, text, { rest }] = await Promise.all([
    api(`/v1/documents/${id}`),
    authFetch(`/v1/documents/${id}/text`).then(async (r) => { if (!r.ok) throw new Error((await r.json()).error?.message ?? `${r.status}`); return r.text(); }),
    loadBlocks(id),
  ]);
  const blocks = await rest();
  const segments = segmentsOf(text, blocks);
  const pane = el('div', { class: 'pane tall', id: 'canonical', role: 'list', 'aria-label': 'canonical text' });
  view.replaceChildren(el('h2', {}, `${doc.title || doc.paths[0] || doc.id}: canonical text (${text.length} characters, ${blocks.length} chunks, ${segments.length} segments)`), docTabs(id, 'text'), pane);
  const list = new VirtualList(pane, {
    count: segments.length,
    estimate: (i) => estimateText(text.slice(segments[i].start, Math.min(segments[i].end, segments[i].start + 4000)), pane.clientWidth || 900, 6),
    render: (i) => {
      const s = segments[i];
      const row = el('div', { class: `seg${s.chunk < 0 ? ' outside' : ''}`, role: 'listitem', 'data-start': s.start, 'data-end': s.end, 'data-chunk': s.chunk },
        ...s.starting.map((c) => el('a', { class: 'boundary', id: `boundary-${c}`, href: `#/doc/${id}?chunk=${c}`, title: `chunk #${c} starts here` }, `▸ #${c}`)),
        text.slice(s.start, s.end).replace(/\n+$/, ''));
      if (s.chunk >= 0) row.style.borderLeftColor = colour(s.chunk);
      return row;
    },
  });
  lists.push(list);
  document.body.dataset.ready = 'text';
}

/** The built-in strategies (any registered name may be typed). */
const STRATEGIES = ['structure', 'recursive', 'sentence', 'token', 'chisel', 'qwen'];

function stats(chunks) {
  const tokens = chunks.map((c) => c.tokens).sort((a, b) => a - b);
  const sum = tokens.reduce((a, b) => a + b, 0);
  return {
    count: chunks.length, tokens: sum, min: tokens[0] ?? 0, median: tokens[Math.floor(tokens.length / 2)] ?? 0, max: tokens.at(-1) ?? 0,
    chars: Math.round(chunks.reduce((a, c) => a + c.chars, 0) / Math.max(1, chunks.length)),
  };
}

/** A histogram of chunk sizes (tokens) on a scale shared by both sides. */
function histogram(chunks, maxTokens, bins = 24) {
  const counts = new Array(bins).fill(0);
  for (const c of chunks) counts[Math.min(bins - 1, Math.floor((c.tokens / Math.max(1, maxTokens)) * bins))]++;
  const top = Math.max(1, ...counts);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${bins * 10} 50`);
  svg.setAttribute('class', 'histogram');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `chunk sizes from 0 to ${maxTokens} tokens in ${bins} bins: ${counts.join(', ')}`);
  counts.forEach((n, i) => {
    const r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
    const h = (n / top) * 48;
    r.setAttribute('x', i * 10 + 1); r.setAttribute('width', 8); r.setAttribute('y', 50 - h); r.setAttribute('height', h);
    r.dataset.count = String(n);
    svg.append(r);
  });
  return svg;
}

/** Where each side's chunks begin along the canonical text: one tick per chunk, in one path. */
function boundaryStrip(sides, length) {
  const W = 1000;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${sides.length * 14}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('class', 'strip');
  svg.id = 'boundaries';
  sides.forEach(({ chunks, name }, row) => {
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', chunks.map((c) => `M${((c.start / Math.max(1, length)) * W).toFixed(2)} ${row * 14 + 1}v12`).join(''));
    path.setAttribute('class', `ticks ticks-${name}`);
    path.dataset.ticks = String(chunks.length);
    svg.append(path);
  });
  return svg;
}

async function compareView(id, params) {
  const { document: doc } = await api(`/v1/documents/${id}`);
  const isPdf = hasPages(doc); // PDFs (scans too) and images: a page image with regions
  const parseSide = (name, fallback) => {
    try { return params.has(name) ? JSON.parse(params.get(name)) : fallback; } catch { return fallback; }
  };
  const sides = [
    { name: 'a', request: parseSide('a', { strategy: doc.strategy }) },
    { name: 'b', request: parseSide('b', { strategy: doc.strategy === 'sentence' ? 'token' : 'sentence' }) },
  ];
  if (isPdf) pageImage(pageUrl(id, Number(params.get('page') ?? 1))).catch(() => undefined);
  const results = await Promise.all(sides.map(({ request }) => api(`/v1/documents/${id}/chunk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }).then((r) => ({ ok: r }), (e) => ({ error: e.message }))));
  const length = results.find((r) => r.ok)?.ok.canonicalLength ?? 1;
  const maxTokens = Math.max(1, ...results.flatMap((r) => (r.ok ? r.ok.chunks.map((c) => c.tokens) : [])));
  const starts = results.map((r) => new Set(r.ok?.chunks.map((c) => c.start) ?? []));
  const shared = [...starts[0]].filter((s) => starts[1].has(s)).length;
  const columns = [];
  const sideLists = [];
  sides.forEach(({ name, request }, k) => {
    const result = results[k];
    const strategy = el('input', { name: 'strategy', list: 'strategies', value: request.strategy ?? '', 'aria-label': `strategy ${name.toUpperCase()}` });
    const { strategy: _s, ...rest } = request;
    const options = el('input', { name: 'options', class: 'options', value: JSON.stringify(rest.chunkOptions || rest.tokenizer ? rest : {}), 'aria-label': `options ${name.toUpperCase()} (JSON: chunkOptions, tokenizer)` });
    const form = el('form', { class: 'side-form', onsubmit: (e) => {
      e.preventDefault();
      const next = new URLSearchParams(params);
      let extra = {};
      try { extra = JSON.parse(options.value || '{}'); } catch { options.setCustomValidity('not JSON'); options.reportValidity(); return; }
      next.set(name, JSON.stringify({ strategy: strategy.value, ...extra }));
      if (!next.has(k === 0 ? 'b' : 'a')) next.set(k === 0 ? 'b' : 'a', JSON.stringify(sides[1 - k].request));
      location.hash = `#/compare/${id}?${next}`;
    } }, el('strong', {}, name.toUpperCase()), ' ', strategy, ' ', options, ' ', el('button', { type: 'submit' }, 'Chunk'));
    const column = el('section', { class: 'compare-side', id: `compare-${name}` }, form);
    if (result.error) {
      column.append(el('p', { role: 'alert', class: 'error' }, `Error: ${result.error}`));
      columns.push(column);
      return;
    }
    const { chunks } = result.ok;
    const st = stats(chunks);
    column.dataset.count = String(st.count);
    column.append(
      el('p', { class: 'summary' }, `${st.count} chunks · ${st.tokens} tokens · tokens per chunk min ${st.min} / median ${st.median} / max ${st.max} · ${st.chars} chars on average · ${result.ok.strategy} (${result.ok.tokenizer})`),
      histogram(chunks, maxTokens),
    );
    const side = { name, chunks, marked: new Set() };
    if (isPdf) {
      // This strategy's chunks over the page, drawn as the Chunks view draws the stored blocks.
      side.regions = pageRegions(id, chunks, { scale: pageScale(doc), isSelected: (i) => side.marked.has(i), onSelect: (i) => mark(side, i, true), suffix: `-${name}` });
      side.pagePane = el('div', { class: 'pane compare-page', id: `page-${name}` }, side.regions.element);
      column.append(side.pagePane);
    }
    side.pane = el('div', { class: 'pane list', id: `list-${name}`, role: 'listbox', 'aria-label': `chunks of ${name.toUpperCase()}`, tabindex: '0' });
    column.append(side.pane);
    columns.push(column);
    sideLists.push(side);
  });

  // PDFs: one page shown on both sides (the page buttons turn both).
  const nav = el('div', { id: 'compare-pages' });
  let page = 0;
  async function showPage(p) {
    page = p;
    nav.replaceChildren(pageNav(p, doc.pageCount, showPage));
    await Promise.all(sideLists.map((s) => s.regions.load(p)));
    if (page !== p) return; // another page was asked for meanwhile
    for (const s of sideLists) {
      s.regions.draw(p);
      s.pagePane.dataset.page = String(p);
    }
    nav.dataset.page = String(p);
  }
  /** Marks chunk `i` of `side` and, on the other side, the chunks that overlap its span; on a PDF, shows its page. */
  function mark(side, i, scrollOwn = false) {
    const c = side.chunks[i];
    for (const s of sideLists) { const old = [...s.marked]; s.marked.clear(); old.forEach((j) => s.list.refresh(j)); }
    side.marked.add(i);
    side.list.refresh(i);
    if (scrollOwn) side.list.scrollToIndex(i);
    const o = sideLists.find((s) => s !== side);
    if (o) {
      o.chunks.forEach((d, j) => { if (d.start < c.end && d.end > c.start) o.marked.add(j); });
      o.marked.forEach((j) => o.list.refresh(j));
      if (o.marked.size) o.list.scrollToIndex(Math.min(...o.marked), 'start');
    }
    if (!isPdf) return;
    if (c.pageStart !== undefined && c.pageStart !== page) showPage(c.pageStart);
    else for (const s of sideLists) s.regions.refresh();
  }

  view.replaceChildren(el('h2', {}, `${doc.title || doc.paths[0] || doc.id}: compare strategies`), docTabs(id, 'compare'),
    el('datalist', { id: 'strategies' }, ...STRATEGIES.map((s) => el('option', { value: s }))),
    el('p', { class: 'meta', id: 'shared' }, `${shared} chunk starts in common (of ${starts[0].size} in A, ${starts[1].size} in B) over ${length} characters of canonical text`),
    boundaryStrip(sideLists.map(({ name, chunks }) => ({ name, chunks })), length),
    isPdf && sideLists.length > 0 ? nav : null,
    el('div', { class: `compare${isPdf ? ' with-pages' : ''}` }, ...columns));
  for (const side of sideLists) {
    side.list = new VirtualList(side.pane, {
      count: side.chunks.length,
      estimate: (i) => estimateText(side.chunks[i].text, side.pane.clientWidth || 500, 30),
      render: (i) => chunkRow(side.chunks[i], i, { idPrefix: `${side.name}-chunk`, marked: side.marked.has(i), onclick: () => mark(side, i) }),
    });
    lists.push(side.list);
  }
  if (isPdf && sideLists.length > 0) {
    const first = sideLists.flatMap((s) => s.chunks).find((c) => c.pageStart !== undefined)?.pageStart ?? 1;
    await showPage(Number(params.get('page') ?? first));
  }
  document.body.dataset.ready = 'compare';
}

/** The search's filter from the page's address: `format` and `path` (a glob), as `POST /v1/search` takes them. */
function filterOf(params) {
  const filter = {};
  if (params.get('format')) filter.format = params.get('format');
  if (params.get('path')) filter.path = params.get('path');
  return Object.keys(filter).length ? filter : undefined;
}

async function searchView(params) {
  const query = params.get('q') ?? '';
  const mode = params.get('mode') || undefined;
  const filter = filterOf(params);
  // The header's form shows the search being shown (after a reload or a followed link too).
  document.getElementById('q').value = query;
  document.getElementById('mode').value = mode ?? '';
  document.getElementById('path').value = params.get('path') ?? '';
  await listFormats();
  document.getElementById('format').value = params.get('format') ?? '';
  const result = await api('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 20, ...(mode && { mode }), ...(filter && { filter }) }) });
  const hits = result.hits.map((h) => el('li', { class: 'hit' },
    el('a', { href: `#/doc/${h.docId}?page=${h.pageStart ?? 1}&chunk=${h.block.ordinal}`, class: 'hit-link' }, `${h.path ?? h.docId} · ${h.headingPath.join(' › ')} · p. ${h.pageStart ?? '-'}`),
    el('div', {}, h.snippet),
    el('div', { class: 'meta scores' }, `score ${h.score.toFixed(4)} · ` + Object.entries(h.scores).map(([k, v]) => `${k} ${Number(v).toFixed(4)}`).join(' · '))));
  const within = filter ? ` within ${Object.entries(filter).map(([k, v]) => `${k} ${v}`).join(', ')}` : '';
  view.replaceChildren(el('h2', {}, `${result.hits.length} hits for “${query}” (${result.mode})${within}`), el('ol', { id: 'hits' }, ...hits));
  document.body.dataset.ready = 'search';
}

async function route() {
  document.body.dataset.ready = '';
  delete document.body.dataset.loaded;
  dropLists();
  dropImages();
  listFormats();
  const [path, search] = location.hash.slice(1).split('?');
  const params = new URLSearchParams(search ?? '');
  try {
    if (path?.startsWith('/doc/')) await documentView(decodeURIComponent(path.slice(5)), params);
    else if (path?.startsWith('/text/')) await textView(decodeURIComponent(path.slice(6)));
    else if (path?.startsWith('/compare/')) await compareView(decodeURIComponent(path.slice(9)), params);
    else if (path === '/search') await searchView(params);
    else { await libraryView(); document.body.dataset.ready = 'library'; }
  } catch (error) {
    if (error instanceof KeyNeeded) keyView(error.message);
    else {
      view.replaceChildren(el('p', { role: 'alert' }, `Error: ${error.message}`));
      document.body.dataset.ready = 'error';
    }
  }
  // When the view was drawn, ms after navigation (bench/inspector.ts reads it).
  performance.mark(`ready:${document.body.dataset.ready}`);
}
/** The format filter offers the library's formats (`GET /v1/stats`, byFormat); listed again once a key is given. */
let formatsListed = Promise.resolve();
function listFormats() {
  const select = document.getElementById('format');
  if (select.options.length > 1) return formatsListed;
  formatsListed = api('/v1/stats').then((stats) => {
    if (select.options.length > 1) return;
    for (const [format, n] of Object.entries(stats.byFormat ?? {})) select.append(el('option', { value: format }, `${format} (${n})`));
  }, () => undefined);
  return formatsListed;
}
document.getElementById('forget-key').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_ITEM);
  showKeyState();
  route();
});
showKeyState();
document.getElementById('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = (name) => document.getElementById(name).value.trim();
  const params = { q: document.getElementById('q').value, mode: value('mode') };
  for (const name of ['format', 'path']) if (value(name)) params[name] = value(name);
  location.hash = `#/search?${new URLSearchParams(params)}`;
});
window.addEventListener('hashchange', () => route());
route();
