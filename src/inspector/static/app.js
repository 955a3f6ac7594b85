// Groundwork inspector: a plain ES module, no build step, nothing remote (docs/inspector.md).
const DPI = 110;
const view = document.getElementById('view');
const api = async (url, init) => {
  const response = await fetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `${response.status} ${url}`);
  return body;
};
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
    el('td', {}, d.format), el('td', {}, d.pageCount ?? ''), el('td', {}, d.blocks), el('td', {}, d.warnings.length ? d.warnings.join('; ') : '')));
  const jobs = await api('/v1/jobs?limit=50').catch(() => ({ jobs: [] }));
  const rejected = (jobs.jobs ?? []).flatMap((j) => (j.report?.rejected ?? []).map((r) => el('li', {}, `${r.path}: ${r.reason} [${r.code}]`)));
  view.replaceChildren(el('h2', {}, `Library: ${documents.length} documents`),
    el('table', { id: 'documents' }, el('thead', {}, el('tr', {}, ...['document', 'format', 'pages', 'blocks', 'warnings'].map((h) => el('th', {}, h)))), el('tbody', {}, ...rows)),
    el('h3', {}, 'Rejected files'), rejected.length ? el('ul', { id: 'rejected' }, ...rejected) : el('p', {}, 'none'));
}

async function allBlocks(id) {
  const out = [];
  for (let offset = 0; ; offset += 1000) {
    const { blocks, total } = await api(`/v1/documents/${id}/blocks?offset=${offset}&limit=1000`);
    out.push(...blocks);
    if (out.length >= total || blocks.length === 0) return out;
  }
}

async function documentView(id, params) {
  performance.mark('doc-open-start');
  const [{ document: doc, outline }, blocks] = await Promise.all([api(`/v1/documents/${id}`), allBlocks(id)]);
  const isPdf = doc.format === 'pdf';
  let page = Number(params.get('page') ?? blocks.find((b) => b.pageStart)?.pageStart ?? 1);
  let selected = params.has('chunk') ? Number(params.get('chunk')) : -1;
  const textPane = el('div', { class: 'pane', id: 'text', role: 'listbox', 'aria-label': 'chunks', tabindex: '0' });
  const pagePane = el('div', { class: 'pane', id: 'pagepane' });
  const spans = blocks.map((b, i) => {
    const span = el('div', { class: 'chunk', id: `chunk-${b.ordinal}`, role: 'option', 'data-ordinal': b.ordinal, onclick: () => select(i, true) },
      el('div', { class: 'meta' }, `#${b.ordinal} · ${b.headingPath.join(' › ') || '(no heading)'} · pages ${b.pageStart ?? '-'}–${b.pageEnd ?? '-'} · ${b.tokens} tokens · ${b.strategy}`),
      b.text);
    span.style.borderColor = colour(i); // CSSOM, not a style attribute: the CSP allows no inline styles
    return span;
  });
  textPane.append(...spans);
  textPane.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'j') { e.preventDefault(); select(Math.min(blocks.length - 1, selected + 1), true); }
    if (e.key === 'ArrowUp' || e.key === 'k') { e.preventDefault(); select(Math.max(0, selected - 1), true); }
  });

  function regionsFor(p) {
    const out = [];
    blocks.forEach((b, i) => (b.bboxes ?? []).forEach((box) => { if ((box.page ?? b.pageStart) === p) out.push({ i, box }); }));
    return out;
  }
  async function showPage(p) {
    page = p;
    if (!isPdf) return;
    const img = el('img', { alt: `page ${p}`, id: 'page-image' });
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.id = 'regions';
    const wrapper = el('div', { class: 'page' }, img, svg);
    const nav = el('div', { class: 'pages-nav' },
      el('button', { onclick: () => showPage(Math.max(1, page - 1)), 'aria-label': 'previous page' }, '‹'),
      `page ${p} of ${doc.pageCount ?? '?'}`,
      el('button', { onclick: () => showPage(Math.min(doc.pageCount ?? p, page + 1)), 'aria-label': 'next page' }, '›'));
    pagePane.replaceChildren(nav, wrapper);
    await new Promise((resolve, reject) => { img.onload = resolve; img.onerror = reject; img.src = `/v1/documents/${id}/pages/${p}.png?dpi=${DPI}`; });
    const scale = DPI / 72;
    svg.setAttribute('viewBox', `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
    for (const { i, box } of regionsFor(p)) {
      const r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      r.setAttribute('class', `region${i === selected ? ' selected' : ''}`);
      r.dataset.ordinal = String(blocks[i].ordinal);
      r.dataset.box = JSON.stringify(box);
      r.setAttribute('x', box.x0 * scale); r.setAttribute('y', box.y0 * scale);
      r.setAttribute('width', (box.x1 - box.x0) * scale); r.setAttribute('height', (box.y1 - box.y0) * scale);
      r.setAttribute('fill', colour(i)); r.setAttribute('stroke', colour(i));
      r.addEventListener('click', () => select(i, true));
      const title = document.createElementNS('http://www.w3.org/2000/svg', 'title'); title.textContent = `chunk #${blocks[i].ordinal}`; r.append(title);
      svg.append(r);
    }
    pagePane.dataset.page = String(p);
  }
  function select(i, scroll) {
    if (i < 0 || i >= blocks.length) return;
    selected = i;
    spans.forEach((s, j) => { s.classList.toggle('selected', j === i); s.setAttribute('aria-selected', String(j === i)); });
    const b = blocks[i];
    if (scroll) spans[i].scrollIntoView({ block: 'nearest' });
    const target = b.pageStart ?? page;
    if (isPdf && target !== page) showPage(target);
    else pagePane.querySelectorAll('rect.region').forEach((r) => r.classList.toggle('selected', Number(r.dataset.ordinal) === b.ordinal));
    detail.replaceChildren(`chunk #${b.ordinal} · ${b.kind} · ${b.chars} chars · ${b.tokens} tokens · strategy ${b.strategy}\nheadings: ${b.headingPath.join(' › ') || '-'}\nembedded text:\n${b.embedded}`);
    history.replaceState(null, '', `#/doc/${id}?page=${b.pageStart ?? page}&chunk=${i}`);
  }
  const detail = el('div', { class: 'detail', id: 'detail', 'aria-live': 'polite' });
  const outlineList = (nodes) => el('ul', {}, ...nodes.map((n) => el('li', {}, n.title ?? n.text ?? '', n.children?.length ? outlineList(n.children) : null)));
  const left = isPdf ? pagePane : el('div', { class: 'pane', id: 'outline' }, el('h3', {}, 'Outline'), outlineList(outline));
  view.replaceChildren(el('h2', {}, `${doc.title || doc.paths[0] || doc.id} (${doc.format}, ${doc.pageCount ?? '-'} pages, ${blocks.length} chunks)`),
    el('div', { class: 'doc' }, left, el('div', { class: 'side' }, textPane, detail)));
  await showPage(page);
  if (selected >= 0) select(selected, true);
  performance.mark('doc-open-end');
  performance.measure('doc-open', 'doc-open-start', 'doc-open-end');
  document.body.dataset.ready = 'document';
}

async function searchView(params) {
  const query = params.get('q') ?? '';
  const mode = params.get('mode') || undefined;
  const result = await api('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, k: 20, ...(mode && { mode }) }) });
  const hits = result.hits.map((h) => el('li', { class: 'hit' },
    el('a', { href: `#/doc/${h.docId}?page=${h.pageStart ?? 1}&chunk=${h.block.ordinal}`, class: 'hit-link' }, `${h.path ?? h.docId} · ${h.headingPath.join(' › ')} · p. ${h.pageStart ?? '-'}`),
    el('div', {}, h.snippet),
    el('div', { class: 'meta scores' }, `score ${h.score.toFixed(4)} · ` + Object.entries(h.scores).map(([k, v]) => `${k} ${Number(v).toFixed(4)}`).join(' · '))));
  view.replaceChildren(el('h2', {}, `${result.hits.length} hits for “${query}” (${result.mode})`), el('ol', { id: 'hits' }, ...hits));
  document.body.dataset.ready = 'search';
}

async function route() {
  document.body.dataset.ready = '';
  const [path, search] = location.hash.slice(1).split('?');
  const params = new URLSearchParams(search ?? '');
  try {
    if (path?.startsWith('/doc/')) await documentView(decodeURIComponent(path.slice(5)), params);
    else if (path === '/search') await searchView(params);
    else { await libraryView(); document.body.dataset.ready = 'library'; }
  } catch (error) {
    view.replaceChildren(el('p', { role: 'alert' }, `Error: ${error.message}`));
    document.body.dataset.ready = 'error';
  }
}
document.getElementById('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  location.hash = `#/search?${new URLSearchParams({ q: document.getElementById('q').value, mode: document.getElementById('mode').value })}`;
});
window.addEventListener('hashchange', () => route());
route();
