// A virtualised list for the inspector (docs/inspector.md, "Large documents"): only the rows in and
// near the viewport are in the DOM, whatever the row count. Rows may have any height: each starts
// at an estimate, is measured once drawn, and the offsets are prefix sums in a Fenwick tree
// (O(log n) to update a height or find the row at a scroll offset). When a row above the viewport
// turns out taller or shorter than estimated, the scroll position moves by as much, so what is on
// screen does not jump.

/** Prefix sums over row heights, with point updates and a search by offset. */
export class Fenwick {
  constructor(values) {
    const n = values.length;
    this.n = n;
    this.tree = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) this.tree[i + 1] = values[i];
    for (let i = 1; i <= n; i++) {
      const j = i + (i & -i);
      if (j <= n) this.tree[j] += this.tree[i];
    }
    this.top = 1;
    while (this.top * 2 <= n) this.top *= 2;
  }
  add(i, delta) {
    for (let j = i + 1; j <= this.n; j += j & -j) this.tree[j] += delta;
  }
  /** Sum of the first `i` values. */
  prefix(i) {
    let sum = 0;
    for (let j = i; j > 0; j -= j & -j) sum += this.tree[j];
    return sum;
  }
  /** The index whose span holds `offset` (clamped to the rows). */
  find(offset) {
    let pos = 0;
    let rest = offset;
    for (let step = this.top; step > 0; step >>= 1) {
      if (pos + step <= this.n && this.tree[pos + step] <= rest) {
        pos += step;
        rest -= this.tree[pos];
      }
    }
    return Math.min(pos, this.n - 1);
  }
}

export class VirtualList {
  /**
   * @param {HTMLElement} container the scrolling element (overflow: auto); the list owns its content
   * @param {{ count: number, estimate: (i: number) => number, render: (i: number) => HTMLElement, overscan?: number }} options
   */
  constructor(container, { count, estimate, render, overscan = 600 }) {
    this.container = container;
    this.render = render;
    this.overscan = overscan;
    this.inner = document.createElement('div');
    this.inner.className = 'vlist';
    this.inner.setAttribute('role', 'none');
    container.replaceChildren(this.inner);
    /** index -> drawn row */
    this.rows = new Map();
    this.first = -1;
    this.last = -1;
    this.reset(count, estimate);
    this.scheduled = false;
    container.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(container);
  }

  /** New rows (a new count or new content): everything is estimated and drawn again. */
  reset(count, estimate = this.estimate) {
    this.count = count;
    this.estimate = estimate;
    this.heights = new Float64Array(count);
    for (let i = 0; i < count; i++) this.heights[i] = Math.max(1, estimate(i));
    this.tree = new Fenwick(this.heights);
    for (const node of this.rows.values()) node.remove();
    this.rows.clear();
    this.first = this.last = -1;
    this.update();
  }

  offsetOf(i) {
    return this.tree.prefix(i);
  }

  get totalHeight() {
    return this.tree.prefix(this.count);
  }

  /** The drawn row of index `i`, if it is drawn. */
  rowOf(i) {
    return this.rows.get(i);
  }

  /** Draws a row again (its content changed, e.g. selection), keeping its place. */
  refresh(i) {
    const old = this.rows.get(i);
    if (!old) return;
    const node = this.decorate(i, this.render(i));
    old.replaceWith(node);
    this.rows.set(i, node);
    this.update();
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.update();
    });
  }

  decorate(i, node) {
    node.classList.add('vrow');
    node.setAttribute('aria-posinset', String(i + 1));
    node.setAttribute('aria-setsize', String(this.count));
    node.dataset.index = String(i);
    return node;
  }

  /**
   * Draws the rows in and near the viewport, measures them and places them (a few passes while
   * heights settle). `keepAnchor`: when rows above the viewport change height, scroll by as much.
   */
  update(keepAnchor = true) {
    if (this.count === 0) {
      this.inner.style.height = '0px';
      return;
    }
    for (let pass = 0; pass < 4; pass++) {
      const top = this.container.scrollTop;
      const view = this.container.clientHeight || 600;
      const first = this.tree.find(Math.max(0, top - this.overscan));
      const last = this.tree.find(top + view + this.overscan);
      const anchor = this.tree.find(top);
      for (const [i, node] of this.rows) {
        if (i < first || i > last) {
          node.remove();
          this.rows.delete(i);
        }
      }
      const overlaps = this.first !== -1 && !(last < this.first || first > this.last);
      if (!overlaps) {
        const fragment = document.createDocumentFragment();
        for (let i = first; i <= last; i++) {
          const node = this.decorate(i, this.render(i));
          this.rows.set(i, node);
          fragment.append(node);
        }
        this.inner.append(fragment);
      } else {
        // Keep the DOM in row order (reading order for assistive technology): new rows go before or after.
        for (let i = Math.max(first, this.first) - 1; i >= first; i--) {
          const node = this.decorate(i, this.render(i));
          this.rows.set(i, node);
          this.inner.prepend(node);
        }
        for (let i = Math.min(last, this.last) + 1; i <= last; i++) {
          const node = this.decorate(i, this.render(i));
          this.rows.set(i, node);
          this.inner.append(node);
        }
      }
      this.first = first;
      this.last = last;
      // Measure (one layout for all the rows), then place.
      let changed = false;
      let shift = 0;
      for (const [i, node] of this.rows) {
        const h = node.offsetHeight;
        if (h > 0 && h !== this.heights[i]) {
          const delta = h - this.heights[i];
          this.heights[i] = h;
          this.tree.add(i, delta);
          changed = true;
          if (i < anchor) shift += delta;
        }
      }
      for (const [i, node] of this.rows) node.style.transform = `translateY(${this.offsetOf(i)}px)`;
      this.inner.style.height = `${this.totalHeight}px`;
      if (keepAnchor && shift !== 0 && top > 0) this.container.scrollTop = top + shift;
      if (!changed) break;
    }
  }

  /** Scrolls so that row `i` is in view (`nearest`: the least scrolling; `start`: at the top). */
  scrollToIndex(i, align = 'nearest') {
    if (i < 0 || i >= this.count) return;
    for (let pass = 0; pass < 8; pass++) {
      const top = this.offsetOf(i);
      const h = this.heights[i];
      const view = this.container.clientHeight;
      const current = this.container.scrollTop;
      let target = current;
      if (align === 'start' || top < current || h > view) target = top;
      else if (top + h > current + view) target = top + h - view;
      if (Math.abs(target - current) < 1 && this.rows.has(i)) break;
      this.container.scrollTop = target;
      // The target is worked out again from the new heights: no anchoring meanwhile.
      this.update(false);
    }
  }

  destroy() {
    this.resize.disconnect();
  }
}
