// The report page's script: draws the plots and the trajectory viewer from the embedded JSON.
// Runs offline in any modern browser; d3 and Observable Plot are inlined before it.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('acon-data').textContent);
  const pct = (x) => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);
  const int = (x) => (x === null || x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));
  const usd = (x) => `$${x.toFixed(4)}`;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /** Puts a Plot figure in the slot `name`; the browser test checks each one drew marks. */
  function mount(name, figure) {
    const slot = document.querySelector(`[data-plot="${name}"]`);
    slot.replaceChildren(figure);
    slot.classList.add('drawn');
  }

  /**
   * The definition of a metric column, from src/metrics/definitions.ts as embedded in the data
   * (`definitions.condition.meanPeakTokens`, …): the page never words a metric itself (issue #58).
   * `keys` is one `record.field` or several, joined as the CLI footnote joins them.
   */
  function metricAttrs(keys) {
    if (!keys) return {};
    const list = Array.isArray(keys) ? keys : [keys];
    const text = list
      .map((k) => {
        const [record, field] = k.split('.');
        const t = data.definitions[record][field];
        if (t === undefined) throw new Error(`no definition for ${k}`);
        return t;
      })
      .join(', ');
    return { title: text, 'data-metric': list.join(' ') };
  }

  function table(headers, rows, numeric, metrics = []) {
    const head = el(
      'tr',
      {},
      ...headers.map((h, i) =>
        el('th', { ...(numeric[i] ? { class: 'num' } : {}), ...metricAttrs(metrics[i]) }, h),
      ),
    );
    return el(
      'table',
      {},
      el('thead', {}, head),
      el(
        'tbody',
        {},
        ...rows.map((r) =>
          el('tr', {}, ...r.map((c, i) => el('td', numeric[i] ? { class: 'num' } : {}, c))),
        ),
      ),
    );
  }

  const splits = [...new Set(data.conditions.map((c) => c.split))];
  // `split\u0000condition` → the name the terminal gave the row, where it gave one.
  const names = new Map(
    data.conditions
      .filter((c) => c.name !== c.condition)
      .map((c) => [`${c.split}\u0000${c.condition}`, c.name.replace(` ${c.condition}`, '')]),
  );

  // ---- Pareto view: accuracy vs mean peak tokens with 95% CI bars, one plot per split ----
  const SVG = 'http://www.w3.org/2000/svg';
  // `acon[obs-0003,hist-0000]` reads as `obs-0003 hist-0000`; `acon[-,hist-0002]` (only the
  // history compressor on) as `hist-0002`.
  const shortLabel = (c) =>
    c
      .replace(/^acon\[(.*)\]$/, '$1')
      .split(',')
      .filter((v) => v !== '-')
      .join(' ');
  const overlaps = (a, b) =>
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const grow = (b, p) => ({
    x: b.x - p,
    y: b.y - p,
    width: b.width + 2 * p,
    height: b.height + 2 * p,
  });

  /**
   * Labels each point where its text hits no other label and no dot, trying positions around
   * the point at growing distances (frontier points first); a point with no free spot is left
   * unlabelled and returned, for the legend under the plot. Labels never overlap (issue #24).
   */
  function placeLabels(svg, rows) {
    const x = svg.scale('x');
    const y = svg.scale('y');
    const [x0, x1] = x.range;
    const [y1, y0] = y.range;
    const g = document.createElementNS(SVG, 'g');
    g.setAttribute('aria-label', 'labels');
    g.setAttribute('font-size', '10');
    g.setAttribute('font-family', 'system-ui, sans-serif');
    svg.append(g);
    const at = (r) => [x.apply(r.meanPeakTokens), y.apply(r.acc)];
    const taken = rows.map((r) => {
      const [px, py] = at(r);
      return { x: px - 6, y: py - 6, width: 12, height: 12 };
    });
    const spots = [];
    for (const k of [1, 2, 3.5, 5]) {
      for (const [dx, dy, anchor] of [
        [8, -5, 'start'],
        [8, 12, 'start'],
        [-8, -5, 'end'],
        [-8, 12, 'end'],
        [0, -10, 'middle'],
        [0, 20, 'middle'],
      ]) {
        spots.push([dx * k, dy === 12 || dy === 20 ? dy + 10 * (k - 1) : dy * k, anchor]);
      }
    }
    const unlabelled = [];
    const order = [...rows].sort((a, b) => Number(b.pareto) - Number(a.pareto) || b.acc - a.acc);
    for (const r of order) {
      const [px, py] = at(r);
      const t = document.createElementNS(SVG, 'text');
      t.textContent = r.label;
      g.append(t);
      const free = spots.find(([dx, dy, anchor]) => {
        t.setAttribute('x', String(px + dx));
        t.setAttribute('y', String(py + dy));
        t.setAttribute('text-anchor', anchor);
        const b = t.getBBox();
        const inside = b.x >= x0 && b.x + b.width <= x1 && b.y >= y0 && b.y + b.height <= y1;
        return inside && !taken.some((o) => overlaps(o, b));
      });
      if (free) taken.push(grow(t.getBBox(), 1));
      else {
        t.remove();
        unlabelled.push(r);
      }
    }
    return unlabelled;
  }

  // The name the terminal gave the row (`UTCO both`, `v0 obs`, report/stored-verdicts.ts),
  // without the guideline pair the final row's name carries; else the shortened label.
  const displayName = (c) =>
    c.name === c.condition ? shortLabel(c.condition) : c.name.replace(` ${c.condition}`, '');

  function paretoRows(split) {
    return data.conditions
      .filter((c) => c.split === split)
      .map((c) => ({
        ...c,
        label: displayName(c),
        acc: 100 * c.accuracy,
        lo: 100 * c.accuracyCi[0],
        hi: 100 * c.accuracyCi[1],
      }));
  }

  function paretoPlot(split, maxPeak) {
    const rows = paretoRows(split);
    const front = rows.filter((r) => r.pareto).sort((a, b) => a.meanPeakTokens - b.meanPeakTokens);
    const svg = Plot.plot({
      width: 900,
      height: 340,
      marginLeft: 60,
      marginRight: 30,
      marginTop: 20,
      grid: true,
      marginBottom: 48,
      x: { label: 'mean peak input tokens →', domain: [0, maxPeak * 1.08], labelOffset: 40 },
      y: { label: '↑ accuracy (%)', domain: [0, 105] },
      marks: [
        Plot.frame({ stroke: '#d8dee4' }),
        Plot.ruleX(rows, {
          x: 'meanPeakTokens',
          y1: 'lo',
          y2: 'hi',
          stroke: '#9aa5b1',
          strokeWidth: 2,
        }),
        // The frontier: the best accuracy reached with at most that many peak tokens.
        Plot.line(front, {
          x: 'meanPeakTokens',
          y: 'acc',
          curve: 'step-after',
          stroke: '#1a7f37',
          strokeWidth: 1.5,
          strokeDasharray: '5,3',
        }),
        Plot.dot(rows, {
          x: 'meanPeakTokens',
          y: 'acc',
          fill: (d) => (d.pareto ? '#1a7f37' : '#4269d0'),
          r: 5,
          title: (d) =>
            `${d.label} · ${d.condition} (${d.split})${d.pareto ? ' · Pareto-optimal' : ''}\naccuracy ${d.acc.toFixed(1)}% [${d.lo.toFixed(1)}–${d.hi.toFixed(1)}]\nmean peak ${int(d.meanPeakTokens)} tokens`,
        }),
      ],
    });
    const box = el('div', { class: 'pareto-split', 'data-split': split }, el('h3', {}, split));
    box.append(svg);
    return { box, svg, rows };
  }

  function pareto() {
    const maxPeak = Math.max(1, ...data.conditions.map((c) => c.meanPeakTokens));
    const slot = document.querySelector('[data-plot="pareto"]');
    slot.replaceChildren();
    slot.classList.add('drawn');
    for (const split of splits) {
      const { box, svg, rows } = paretoPlot(split, maxPeak);
      slot.append(box);
      const unlabelled = placeLabels(svg, rows);
      if (unlabelled.length > 0) {
        box.append(
          el(
            'p',
            { class: 'note unlabelled' },
            `Not labelled (too close to other points; hover a dot for its name): ${unlabelled
              .map((r) => `${r.label} ${r.acc.toFixed(1)}% at ${int(r.meanPeakTokens)}`)
              .join(' · ')}`,
          ),
        );
      }
    }
    conditionsTable();
  }

  function conditionsTable() {
    const sim = data.run.simulated;
    // Under sim every call is billed $0: show what the calls would cost if sent, and say so.
    const costHead = sim ? 'full $/task' : 'billed $/task';
    const cost = (c) =>
      sim ? (c.fullCostPerTask === null ? '—' : usd(c.fullCostPerTask)) : usd(c.costPerTask);
    const rows = data.conditions.map((c) => [
      c.split,
      displayName(c),
      c.condition,
      c.pareto ? '★' : '',
      c.tasks,
      `${pct(c.accuracy)} [${pct(c.accuracyCi[0])}, ${pct(c.accuracyCi[1])}]`,
      int(c.meanPeakTokens),
      c.peakReductionVsRaw === null
        ? '—'
        : `${c.peakReductionVsRaw >= 0 ? '−' : '+'}${pct(Math.abs(c.peakReductionVsRaw))}`,
      c.meanSteps.toFixed(1),
      cost(c),
    ]);
    // The metrics are defined under the table (#definitions, from src/metrics/definitions.ts).
    const note = sim
      ? el(
          'p',
          { class: 'note' },
          'SIMULATED: simulated calls are billed $0, so full $/task prices every call as if it were sent.',
        )
      : null;
    document
      .getElementById('conditions-table')
      .replaceChildren(
        ...(note ? [note] : []),
        table(
          [
            'split',
            'name',
            'condition',
            'Pareto',
            'tasks',
            'accuracy [95% CI]',
            'mean peak',
            'peak vs raw',
            'steps',
            costHead,
          ],
          rows,
          [false, false, false, false, true, true, true, true, true, true],
          [
            null,
            null,
            null,
            'condition.pareto',
            'condition.tasks',
            ['condition.accuracy', 'condition.accuracyCi'],
            'condition.meanPeakTokens',
            'condition.peakReductionVsRaw',
            'condition.meanSteps',
            sim ? 'condition.fullCostPerTask' : 'condition.costPerTask',
          ],
        ),
      );
  }

  // ---- Win/loss grid against raw, per task ----
  function winLoss() {
    const cells = [];
    for (const split of splits) {
      const raw = new Map(
        data.rollouts
          .filter((r) => r.split === split && r.condition === 'raw')
          .map((r) => [r.taskId, r.success]),
      );
      if (raw.size === 0) continue;
      for (const r of data.rollouts) {
        if (r.split !== split || r.condition === 'raw' || !raw.has(r.taskId)) continue;
        const base = raw.get(r.taskId);
        const outcome =
          r.success && !base
            ? 'win'
            : !r.success && base
              ? 'loss'
              : r.success
                ? 'both succeeded'
                : 'both failed';
        const label = names.get(`${split}\u0000${r.condition}`) ?? shortLabel(r.condition);
        cells.push({ split, task: r.taskId, condition: r.condition, label, outcome, id: r.id });
      }
    }
    const slot = document.querySelector('[data-plot="winloss"]');
    if (cells.length === 0) {
      slot.replaceWith(
        el('p', { class: 'note' }, 'No raw condition in this run: nothing to compare against.'),
      );
      return;
    }
    const tasks = new Set(cells.map((c) => `${c.split}/${c.task}`)).size;
    // Every facet shares the x domain: one column per label and split. Upright labels 10 px
    // high need 16 px a column, so the plot grows with the columns and the labels never overlap
    // (an optimize's dev split holds every candidate, issue #58); the margin fits the longest.
    const columns = new Set(cells.map((c) => c.label)).size * splits.length;
    const longest = Math.max(...cells.map((c) => c.label.length));
    mount(
      'winloss',
      Plot.plot({
        width: 230 + Math.max(670, 16 * columns),
        // 18 px a task row: a 10 px label with room to spare (labels never overlap, issue #24).
        height: 18 * tasks + 130 + 6 * longest,
        marginTop: 30,
        marginLeft: 230,
        marginBottom: 30 + 6 * longest,
        x: { label: null, tickRotate: -90 },
        y: { label: null },
        fx: splits.length > 1 ? { label: null } : undefined,
        color: {
          legend: true,
          domain: ['win', 'loss', 'both succeeded', 'both failed'],
          range: ['#1a7f37', '#c62828', '#c8e6c9', '#bdbdbd'],
        },
        marks: [
          Plot.cell(cells, {
            x: 'label',
            y: (d) => `${d.split}/${d.task}`,
            fill: 'outcome',
            title: (d) => `${d.task} · ${d.label} ${d.condition}: ${d.outcome} (vs raw)`,
            inset: 0.5,
          }),
        ],
      }),
    );
  }

  // ---- Distributions of peak tokens and steps ----
  function distributions() {
    const conditions = [...new Set(data.rollouts.map((r) => r.condition))];
    const h = Math.max(140, 28 * conditions.length + 60);
    for (const [name, field, label] of [
      ['peaks', 'peakInputTokens', 'peak input tokens per rollout →'],
      ['steps', 'steps', 'steps per rollout →'],
    ]) {
      mount(
        name,
        Plot.plot({
          width: 900,
          height: h,
          marginLeft: 200,
          marginBottom: 48,
          // The axis label sits under the tick labels, not beside them.
          x: { label, grid: true, labelOffset: 40 },
          y: { label: null, domain: conditions },
          marks: [Plot.boxX(data.rollouts, { x: field, y: 'condition' })],
        }),
      );
    }
  }

  // ---- Cost and tokens by role ----
  function costByRole() {
    const flat = data.costByRole.flatMap((r) => [
      { role: r.role, kind: 'input', tokens: r.inputTokens },
      { role: r.role, kind: 'output', tokens: r.outputTokens },
    ]);
    if (flat.length === 0) {
      document
        .querySelector('[data-plot="cost"]')
        .replaceWith(el('p', { class: 'note' }, 'No LLM calls recorded.'));
      return;
    }
    mount(
      'cost',
      Plot.plot({
        width: 900,
        height: 40 * data.costByRole.length + 70,
        marginLeft: 130,
        marginBottom: 48,
        x: { label: 'tokens →', grid: true, labelOffset: 40 },
        y: { label: null },
        color: { legend: true },
        marks: [
          Plot.barX(flat, { x: 'tokens', y: 'role', fill: 'kind', tip: true }),
          Plot.ruleX([0]),
        ],
      }),
    );
    document.getElementById('cost-table').replaceChildren(
      el(
        'p',
        { class: 'note' },
        data.run.simulated
          ? 'SIMULATED: simulated calls are billed $0; the full $/task column above prices each call as if it were sent.'
          : 'billed USD (call-cache hits cost $0).',
      ),
      table(
        [
          'role',
          'calls',
          'input tokens',
          'output tokens',
          data.run.simulated ? 'billed $ (SIMULATED)' : 'billed $',
        ],
        data.costByRole.map((r) => [
          r.role,
          int(r.calls),
          int(r.inputTokens),
          int(r.outputTokens),
          usd(r.costUsd),
        ]),
        [false, true, true, true, true],
        [
          null,
          'roleCost.calls',
          'roleCost.inputTokens',
          'roleCost.outputTokens',
          'roleCost.costUsd',
        ],
      ),
    );
  }

  // ---- Guideline lineage ----
  function diffBlock(text) {
    const pre = el('pre', {});
    for (const line of text.split('\n')) {
      const cls =
        line.startsWith('+') && !line.startsWith('+++')
          ? 'diff-add'
          : line.startsWith('-') && !line.startsWith('---')
            ? 'diff-del'
            : '';
      pre.append(el('span', cls ? { class: cls } : {}, `${line}\n`));
    }
    return pre;
  }

  function lineage() {
    const section = document.getElementById('lineage');
    if (data.lineage.length === 0) {
      document
        .querySelector('[data-plot="lineage"]')
        .replaceWith(
          el(
            'p',
            { class: 'note' },
            'This run created no guideline versions (lineage comes from acon optimize).',
          ),
        );
      return;
    }
    const nodes = data.lineage.map((v) => ({ ...v, treePath: `guidelines/${v.path}` }));
    mount(
      'lineage',
      Plot.plot({
        width: 900,
        height: Math.max(200, 24 * nodes.length + 40),
        marginTop: 20,
        marginBottom: 20,
        marginLeft: 80,
        marginRight: 320,
        axis: null,
        marks: [
          Plot.tree(nodes, {
            path: 'treePath',
            delimiter: '/',
            // Implied nodes (the synthetic root) have no datum.
            fill: (d) =>
              !d
                ? '#555'
                : d.status === 'accepted'
                  ? '#1a7f37'
                  : d.status === 'rejected'
                    ? '#c62828'
                    : '#555',
            title: (d) => (d ? `${d.id}: ${d.status}${d.reason ? ` — ${d.reason}` : ''}` : ''),
          }),
        ],
      }),
    );
    const list = el('div', { id: 'lineage-list' });
    list.append(
      table(
        ['version', 'parent', 'phase', 'status', 'accuracy', 'mean peak', 'why'],
        data.lineage.map((v) => [
          v.id,
          v.parent ?? '—',
          v.phase,
          v.status,
          pct(v.accuracy),
          int(v.peakTokens),
          v.reason ?? '—',
        ]),
        [false, false, false, false, true, true, false],
        [null, null, null, null, 'condition.accuracy', 'condition.meanPeakTokens', null],
      ),
    );
    for (const v of data.lineage) {
      if (!v.diff) continue;
      list.append(
        el(
          'details',
          {},
          el('summary', {}, `diff ${v.parent} → ${v.id} (${v.status})`),
          diffBlock(v.diff),
        ),
      );
    }
    section.append(list);
  }

  // ---- Trajectory viewer ----
  // The trajectories travel gzipped (src/report/html/pack.ts); decoded once, on first use.
  let trajectories = null;
  async function loadTrajectories() {
    if (trajectories) return trajectories;
    const node = document.getElementById('acon-trajectories');
    const bytes = Uint8Array.from(atob(node.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    const packed = JSON.parse(await new Response(stream).text());
    const unpack = (v) => {
      if (Array.isArray(v)) return v.map(unpack);
      if (v && typeof v === 'object') {
        const keys = Object.keys(v);
        if (keys.length === 1 && keys[0] === '$' && Array.isArray(v.$)) {
          return v.$.map((i) => packed.lines[i]).join('\n');
        }
        return Object.fromEntries(keys.map((k) => [k, unpack(v[k])]));
      }
      return v;
    };
    trajectories = unpack(packed.value);
    return trajectories;
  }

  function textBlock(label, text) {
    return el('div', {}, el('div', { class: 'label' }, label), el('pre', {}, text));
  }

  async function showRollout(id) {
    const viewer = document.getElementById('viewer');
    const t = data.trajectoryIds.includes(id) ? (await loadTrajectories())[id] : undefined;
    document
      .querySelectorAll('#rollout-list tr.selected')
      .forEach((tr) => tr.classList.remove('selected'));
    document.querySelector(`#rollout-list tr[data-id="${id}"]`)?.classList.add('selected');
    if (!t) {
      viewer.replaceChildren(
        el(
          'p',
          { class: 'note' },
          `The trajectory of ${id} is not embedded in this file; run: acon rollout show ${id}`,
        ),
      );
      return;
    }
    const r = t.rollout;
    const parts = [
      el(
        'h3',
        {},
        `${r.condition} · ${r.taskId} · `,
        el('span', { class: r.success ? 'ok' : 'bad' }, r.success ? '✓ succeeded' : '✗ failed'),
      ),
      el(
        'p',
        { class: 'meta' },
        `rollout ${r.id} · ${r.steps} steps · peak ${int(r.peakInputTokens)} tokens · ${r.compressionEvents} compressions · ${rolloutCost(r)}`,
      ),
    ];
    if (r.reason) parts.push(textBlock('failure reason', r.reason));
    parts.push(textBlock('task', t.task));
    for (const s of t.steps) {
      const step = el('div', { class: 'step', 'data-step': String(s.index) });
      step.append(el('h4', {}, `step ${s.index} · prompt ${int(s.promptTokens)} tokens`));
      for (const c of s.compressions) {
        step.append(
          el(
            'div',
            { class: 'label' },
            `compression ${c.kind}: ${int(c.inputTokens)} → ${int(c.outputTokens)} tokens${c.guidelineId ? ` (${c.guidelineId})` : ''}${c.failed ? ' — failed, uncompressed text kept' : ''}`,
          ),
          el('div', { class: 'side' }, textBlock('input', c.input), textBlock('output', c.output)),
        );
      }
      if (s.thought) step.append(textBlock('thought', s.thought));
      for (const a of s.actions) step.append(textBlock('action', a));
      for (const o of s.observations) step.append(textBlock('observation', o));
      parts.push(step);
    }
    viewer.replaceChildren(...parts);
  }

  function rolloutCost(r) {
    if (!data.run.simulated) return `${usd(r.costUsd)} billed`;
    return r.fullCostUsd === null
      ? '$0 billed (SIMULATED)'
      : `${usd(r.fullCostUsd)} full (SIMULATED: billed $0)`;
  }

  function rolloutList() {
    const filter = document.getElementById('rollout-filter');
    const failedOnly = document.getElementById('rollout-failed');
    const body = el('tbody', {});
    const render = () => {
      const q = filter.value.trim().toLowerCase();
      const rows = data.rollouts.filter(
        (r) =>
          (!failedOnly.checked || !r.success) &&
          (!q || `${r.condition} ${r.taskId} ${r.id}`.toLowerCase().includes(q)),
      );
      body.replaceChildren(
        ...rows.map((r) =>
          el(
            'tr',
            { class: 'clickable', 'data-id': r.id, onclick: () => showRollout(r.id) },
            el('td', {}, r.id.slice(0, 8)),
            el('td', {}, r.condition),
            el('td', { class: 'nowrap' }, r.taskId),
            el('td', { class: r.success ? 'ok' : 'bad' }, r.success ? '✓' : '✗'),
            el('td', { class: 'num' }, r.steps),
            el('td', { class: 'num' }, int(r.peakInputTokens)),
            el('td', { class: 'reason' }, r.reason ?? ''),
          ),
        ),
      );
    };
    filter.addEventListener('input', render);
    failedOnly.addEventListener('change', render);
    const head = el(
      'tr',
      {},
      ...[
        ['rollout'],
        ['condition'],
        ['task'],
        ['ok'],
        ['steps', 'rollout.steps'],
        ['peak', 'rollout.peakInputTokens'],
        ['failure reason'],
      ].map(([h, metric]) => el('th', metricAttrs(metric), h)),
    );
    document
      .getElementById('rollout-list')
      .replaceChildren(el('table', {}, el('thead', {}, head), body));
    render();
  }

  pareto();
  winLoss();
  distributions();
  costByRole();
  lineage();
  rolloutList();
  document.body.dataset.ready = 'true';
})();
