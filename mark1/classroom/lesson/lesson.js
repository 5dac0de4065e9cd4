// mark1 lesson page: plain DOM and SVG, no framework. The data (JSON above) is the
// machine's own record of the run, numbered from 0; the page numbers from 1 for people.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("lesson-data").textContent);
  const M = D.meta, P = D.pres, Q = M.quantum, C = M.colours;
  for (const p of P) {                       // stored as integers in 1/quantum full scale or seconds
    p.w = p.w.map((u) => u.map((v) => (v === null ? null : v / Q)));
    p.mv = p.mv.map(([u, i, ...rest]) => [u, i, ...rest.map((v) => v / Q)]);
  }
  const NS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const fmt = (v, d = 4) => (v >= 0 ? "+" : "\u2212") + Math.abs(v).toFixed(d);
  const sig = (v, d = 3) => (v >= 0 ? "+" : "\u2212") + Math.abs(v).toPrecision(d);
  // durations as mark1._utils.language.duration writes them (the page's fixed ones come from Python;
  // this one is for the running clock): s below 2 min, min below 2 h, else h; one decimal at most
  // from 1 up, none from 100 up, two significant figures below 1
  function dur(seconds) {
    let unit = "s", x = Math.max(0, seconds);
    if (x >= 7200) { unit = "h"; x /= 3600; } else if (x >= 120) { unit = "min"; x /= 60; }
    let text;
    if (x >= 100) text = Math.round(x).toLocaleString("en");
    else if (x >= 1) text = String(Math.round(x * 10) / 10);
    else if (x === 0) text = "0";
    else text = String(parseFloat(x.toPrecision(2)));
    if (/e/.test(text)) text = x.toFixed(Math.max(0, 1 - Math.floor(Math.log10(x)))).replace(/0+$/, "");
    return `${text} ${unit}`;
  }
  // an instant: the clock since the run began, and how far into its card
  const clockText = (t, p) => `machine clock ${dur(t)} \u00b7 ${dur(t - p.t)} into card ${P.indexOf(p) + 1}`;
  // the read noise's scale: of a sum of n pots, or of the mean of n pots a \u03bc-system reads
  const SD_NAME = D.machine.mean ? "\u03c3\u221an / n" : "\u03c3\u221an";
  const N_S = M.rows * M.cols, N_A = M.n_a;
  let cur = 0, playing = false, timer = null, selected = null, hover = null;
  let T = 0;                                   // the machine clock the page shows, s

  // one source for the colours: mark1._utils.language, passed in by Python
  const root = document.documentElement.style;
  root.setProperty("--lit", C.firing); root.setProperty("--off", C.silent);
  root.setProperty("--pos", C.positive); root.setProperty("--neg", C.negative);
  root.setProperty("--mistake", C.mistake);
  const stops = C.weights.map((h) => [1, 3, 5].map((i) => parseInt(h.substr(i, 2), 16)));
  function weightColour(v, vmax) {          // the weights' diverging map: blue - white - red
    const x = Math.max(0, Math.min(1, 0.5 + 0.5 * v / vmax)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
    const c = stops[i].map((a, j) => Math.round(a + (stops[i + 1][j] - a) * f));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, cls, parent, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  const unitName = (k) => "R" + (k + 1);
  const className = (i) => M.classes[i];

  // ---- the machine as trained, for the class's own cards (window.mark1) ---------------
  const plugs = Array.from({ length: N_S }, () => []);         // per S-unit: [A-unit, sign]
  D.wiring.forEach(([exc, inh], a) => {
    exc.forEach((s) => plugs[s].push([a, 1]));
    inh.forEach((s) => plugs[s].push([a, -1]));
  });
  const W = D.machine.wipers, MASK = D.machine.mask;
  const wiring = D.wiring.map(([exc, inh]) => {
    const row = new Array(N_S).fill(0);
    exc.forEach((s) => { row[s] = 1; });
    inh.forEach((s) => { row[s] = -1; });
    return row;
  });

  // the code's decision, as mark1.machine.response.OutputCode.decode makes it
  function decode(sums) {
    const tie = D.machine.tie, T = M.targets;
    const firstMax = (scores, t) => {
      const best = Math.max(...scores);
      return scores.findIndex((s) => s >= best - t);
    };
    if (M.code_kind === "single") return sums[0] > tie ? 1 : 0;
    if (M.code_kind === "one-per-class") return firstMax(sums, tie);
    const lamps = sums.map((s) => (s > tie ? 1 : -1));
    const agree = T.map((t) => t.reduce((acc, v, k) => acc + v * lamps[k], 0));
    const soft = T.map((t) => t.reduce((acc, v, k) => acc + v * sums[k], 0));
    const scale = Math.max(...soft.map(Math.abs)) + 1;
    return firstMax(agree.map((g, c) => g + 0.5 * soft[c] / scale), 0.5 * tie * M.n_units / scale);
  }

  // S-units -> A-units through the patch board -> each R-unit's sum (no read noise) -> lamps
  function respond(bits) {
    if (!bits || bits.length !== N_S) throw new Error(`respond: expected ${N_S} bits (0/1, row order)`);
    const net = new Int32Array(N_A);
    for (let s = 0; s < N_S; s++) if (bits[s]) for (const [a, sign] of plugs[s]) net[a] += sign;
    const a_units = [];
    for (let a = 0; a < N_A; a++) if (net[a] >= D.machine.threshold) a_units.push(a);
    const sums = W.map((w, k) => {
      let sum = 0, count = MASK[k][N_A];
      for (const a of a_units) { sum += w[a]; count += MASK[k][a]; }
      sum += w[N_A];                                          // the bias pot, always on
      return D.machine.mean ? sum / Math.max(count, 1) : sum;
    });
    const lamps = sums.map((s) => s > D.machine.tie);
    return { sums, lamps, a_units, answer: M.classes[decode(sums)] };
  }
  window.mark1 = {
    respond,
    machine: { wiring, threshold: D.machine.threshold, wipers: W, mask: MASK, tie: D.machine.tie,
      classes: M.classes },
  };

  // ---- static parts ------------------------------------------------------------------
  $("title").textContent = M.scene;
  $("retina-size").textContent = `${M.rows}\u00d7${M.cols}`;
  $("subtitle").textContent = `${M.machine} machine: ${N_S} S-units, ${N_A} A-units, ` +
    `${M.n_units} R-unit${M.n_units > 1 ? "s" : ""} in use (${M.code}); rule ${M.rule}, ` +
    `one card every ${M.period_text}; ${M.deck.toLocaleString("en")} training cards \u00d7 ${M.epochs} ` +
    `epoch${M.epochs > 1 ? "s" : ""} = ${M.run_presentations.toLocaleString("en")} presentations` +
    (M.window < M.run_presentations ? ` (the first ${M.window.toLocaleString("en")}, where the learning starts, ` +
      `replayed card by card)` : "") +
    `, seed ${M.seed}. Cards and presentations are numbered from 1.`;
  {
    const note = $("run-note"), code = `<code>${M.command}</code>`;
    const mpe = M.mistakes_per_epoch;        // a long run's: the first epochs and the last, so the note stays short
    const perEpoch = mpe.length <= 12 ? mpe.join(" ") : `${mpe.slice(0, 5).join(" ")} \u2026 ${mpe.slice(-2).join(" ")} ` +
      `(${mpe.length} epochs)`;
    const numbers = `mistakes per epoch ${perEpoch}, train accuracy ` +
      `${M.train_accuracy_text}, test accuracy ${M.test_accuracy_text} on ${M.test_cards} test cards`;
    note.className = M.as_run ? "as-run" : "not-run";
    note.innerHTML = M.as_run ? `This is the run of ${code}: the same cards, the same machine and seed, ` +
      `the same numbers (${numbers}).` : `<b>Not the run of ${code}.</b> This page shows ` +
      `${M.shows_instead}, so its numbers are its own (${numbers}); ${code} differs.`;
    html("span", "judgement", note, " " + M.judgement);
  }

  if (M.window < M.run_presentations) {
    html("small", "", $("clock-panel").querySelector("h2"), " (grey: the run past the replay)");
  }

  // retina
  const CELL = 15, retina = $("retina");
  retina.setAttribute("viewBox", `0 0 ${M.cols * CELL} ${M.rows * CELL}`);
  const sUnits = [];
  for (let i = 0; i < N_S; i++) {
    sUnits.push(el("rect", { x: (i % M.cols) * CELL + 1.5, y: Math.floor(i / M.cols) * CELL + 1.5,
      width: CELL - 3, height: CELL - 3, rx: 2, class: "s-unit", "data-s": i }, retina));
  }

  // A-units laid out as in every figure (mark1._utils.language.unit_grid)
  const [aRows, aCols] = M.a_grid;
  function aGrid(svg, size, onUnit) {
    svg.setAttribute("viewBox", `0 0 ${aCols * size} ${aRows * size}`);
    const out = [];
    for (let a = 0; a < N_A; a++) {
      const r = el("rect", { x: (a % aCols) * size + 1, y: Math.floor(a / aCols) * size + 1,
        width: size - 2, height: size - 2, rx: size / 5, class: "a-unit", "data-a": a }, svg);
      if (onUnit) onUnit(r, a);
      out.push(r);
    }
    return out;
  }
  const AC = 12;
  const aUnits = aGrid($("aunits"), AC, (r, a) => {
    el("title", {}, r, `A-unit ${a + 1}`);
    r.addEventListener("mouseenter", () => { hover = a; highlight(); });
    r.addEventListener("mouseleave", () => { hover = null; highlight(); });
    r.addEventListener("click", () => { selected = selected === a ? null : a; highlight(); });
  });

  // the strip of presentations
  const strip = $("strip"), stripCells = [];
  P.forEach((p, i) => {
    const s = document.createElement("span");
    if (!p.ok) s.classList.add("err");
    if (p.z.length) s.classList.add("zero");
    if (i > 0 && p.e !== P[i - 1].e) s.classList.add("epoch");
    s.title = `presentation ${i + 1} (epoch ${p.e + 1}, deck card ${p.c + 1}): ${p.ok ? "right" : "a mistake"}` +
      (p.z.length ? "; zero margin" : "");
    s.addEventListener("click", () => show(i));
    strip.appendChild(s);
    stripCells.push(s);
  });

  // the sum tracks' scale: a round number that fits this presentation's largest stack, so it
  // changes only now and then as the wipers grow
  function trackSpan(ws, sums) {
    let span = 0;
    for (const w of ws) {
      let pos = 0, neg = 0;
      for (const v of w) if (v !== null) { if (v > 0) pos += v; else neg -= v; }
      span = Math.max(span, pos, neg);
    }
    for (const s of sums) span = Math.max(span, Math.abs(s));
    for (const nice of [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]) if (span <= nice * 0.95) return nice;
    return span * 1.05;
  }

  function drawMistakes() {
    const svg = $("mistakes"), W0 = 260, H = 150, n = M.epochs;
    svg.innerHTML = "";
    svg.setAttribute("viewBox", `0 0 ${W0} ${H}`);
    svg.setAttribute("width", W0);
    svg.setAttribute("height", H);
    const top = Math.max(1, ...M.mistakes_per_epoch);
    const bw = (W0 - 62) / n;
    const pNow = P[cur];
    M.mistakes_per_epoch.forEach((m, e) => {
      // mistakes up to the current presentation in the current epoch; whole epochs before it
      let shown = m;
      // an epoch the replay does not reach is drawn whole, in grey: the run's own count
      const later = e > P[P.length - 1].e || (e === P[P.length - 1].e && M.window < M.run_presentations);
      if (!later && e === pNow.e) shown = P.filter((p, i) => p.e === e && i <= cur && !p.ok).length;
      if (!later && e > pNow.e) shown = 0;
      const h = (H - 50) * shown / top;
      el("rect", { x: 58 + e * bw + 1, y: H - 18 - h, width: Math.max(bw - 2, 0.5), height: h,
        class: "bar" + (later ? " later" : e === pNow.e ? " cur" : "") }, svg);
      if (n <= 12) {
        el("text", { x: 58 + e * bw + bw / 2, y: H - 22 - h, "text-anchor": "middle" }, svg, e <= pNow.e ? shown : "");
        el("text", { x: 58 + e * bw + bw / 2, y: H - 5, "text-anchor": "middle" }, svg, e + 1);
      }
    });
    el("text", { x: 0, y: 14 }, svg, "mistakes");
    el("text", { x: 0, y: H - 5 }, svg, "epoch");
  }

  // ---- the weights: the machine's moves replayed (each pot where its last move left it) ----
  function weightsBefore(i) {
    const w = M.targets[0].map(() => new Array(N_A + 1).fill(0));
    for (let j = 0; j < i; j++) for (const [u, a, , , after] of P[j].mv) w[u][a] = after;
    return w;
  }
  // the weight each S-unit carries: the sum over the A-units it feeds of plug sign x wiper
  function onRetina(w) {
    const img = new Float64Array(N_S);
    D.wiring.forEach(([exc, inh], a) => {
      if (!w[a]) return;
      for (const s of exc) img[s] += w[a];
      for (const s of inh) img[s] -= w[a];
    });
    return img;
  }
  function imageSvg(values, rows, cols, vmax, title, parent, cell) {
    const svg = el("svg", { viewBox: `0 0 ${cols * cell} ${rows * cell}`, class: "wimg", role: "img" }, parent);
    el("title", {}, svg, title);
    values.forEach((v, i) => {
      const r = el("rect", { x: (i % cols) * cell, y: Math.floor(i / cols) * cell, width: cell, height: cell,
        fill: weightColour(v, vmax) }, svg);
      r.dataset.v = v;
    });
    return svg;
  }
  function colourBar(vmax, parent, label) {
    const svg = el("svg", { viewBox: "-20 0 230 40", class: "cbar" }, parent);
    for (let i = 0; i < 40; i++) {
      el("rect", { x: 10 + i * 3.75, y: 4, width: 3.9, height: 10, fill: weightColour((i / 39 * 2 - 1) * vmax, vmax) },
        svg);
    }
    el("text", { x: 10, y: 32, "text-anchor": "middle" }, svg, sig(-vmax, 2));
    el("text", { x: 85, y: 32, "text-anchor": "middle" }, svg, "0");
    el("text", { x: 160, y: 32, "text-anchor": "middle" }, svg, sig(vmax, 2));
    el("title", {}, svg, label);
  }
  function drawWeights(box, w, what) {
    box.innerHTML = "";
    w.forEach((wk, k) => {
      const fig = html("figure", "wfig", box);
      const row = html("div", "wrow", fig);
      const rAxis = html("div", "", row);
      imageSvg(Array.from(onRetina(wk)), M.rows, M.cols, M.s_weights_max,
        `${unitName(k)}: the weight each S-unit carries`, rAxis, 10);
      html("div", "cap", rAxis, "on the retina");
      const aAxis = html("div", "", row);
      imageSvg(wk.slice(0, N_A).map((v, a) => (MASK[k][a] ? v : 0)), aRows, aCols, M.weights_max,
        `${unitName(k)}: each A-unit's pot`, aAxis, 8);
      html("div", "cap", aAxis, `over the A-units \u00b7 bias pot ${fmt(wk[N_A])}`);
      const head = M.code_kind === "single" ? `${unitName(k)}: red pushes the lamp on (\u201c${className(1)}\u201d)` +
        `, blue off (\u201c${className(0)}\u201d)` : `${unitName(k)}`;
      html("figcaption", "", fig, head + (what ? ` \u00b7 ${what}` : ""));
    });
    const bars = html("div", "wrow", box);
    colourBar(M.s_weights_max, html("span", "", bars), "weight an S-unit carries");
    html("span", "key", bars, "retina scale");
    colourBar(M.weights_max, html("span", "", bars), "wiper");
    html("span", "key", bars, "A-unit scale (full-scale wiper)");
  }
  $("weights-text").textContent = `The weight an S-unit carries is the sum, over the A-units it is plugged into, ` +
    `of the plug's sign (+1 excitatory, \u22121 inhibitory) \u00d7 that A-unit's wiper: ink on a red S-unit ` +
    `pushes the sum up, on a blue one down. It is a linear picture of a machine whose A-units are threshold units ` +
    `(an A-unit fires only when ${M.a_threshold} or more net plugs fire). The pictures replay the machine's own ` +
    `moves: each pot where the last move commanded before this presentation left it` +
    (M.decay_time !== null ? " (decay is on: the wipers read have drifted since)." : ".");

  // ---- PRML chapter 4: E_P and Novikoff -------------------------------------------------
  // one or more series over the presentations; the first is marked at the current one
  function lineChart(svg, series, final, opts) {
    const ys = series[0], W0 = 520, H = 190, x0 = 50, y0 = H - 26, n = ys.length;
    svg.innerHTML = "";
    svg.setAttribute("viewBox", `0 0 ${W0} ${H}`);
    svg.setAttribute("width", W0);
    svg.setAttribute("height", H);
    const top = Math.max(opts.top || 0, ...series.map((s) => Math.max(...s)), final || 0) || 1;
    // opts.log: a logarithmic axis (of 1 + v), so bounds far above the curve are drawn on it too
    const f = opts.log ? (v) => Math.log10(1 + v) : (v) => v;
    const X = (i) => x0 + (i / Math.max(n, 1)) * (W0 - x0 - 24), Y = (v) => y0 - (f(v) / f(top)) * (y0 - 24);
    el("line", { x1: x0, x2: W0 - 10, y1: y0, y2: y0, class: "axis" }, svg);
    el("line", { x1: x0, x2: x0, y1: 8, y2: y0, class: "axis" }, svg);
    if (opts.log) {
      for (const v of [1, 10, 100, 1000, 10000]) if (v <= top) {
        el("line", { x1: x0 - 3, x2: x0, y1: Y(v), y2: Y(v), class: "axis" }, svg);
        el("text", { x: x0 - 4, y: Y(v) + 5, "text-anchor": "end" }, svg, v.toLocaleString("en"));
      }
    } else el("text", { x: x0 - 4, y: Y(top) + 4, "text-anchor": "end" }, svg, opts.fmtTop(top));
    el("text", { x: x0 - 4, y: y0 + 4, "text-anchor": "end" }, svg, "0");
    el("text", { x: x0, y: H - 6 }, svg, "presentation 1");
    el("text", { x: X(n - 1), y: H - 6, "text-anchor": "end" }, svg, `${n}`);
    // a title in parts: plain strings, {sub} (lowered, same size: nothing under 16 px) and {bold}
    const title = el("text", { x: x0 + 4, y: 14 }, svg);
    let lowered = false;
    for (const part of [].concat(opts.title)) {
      const t = typeof part === "string" ? { text: part } : part, down = Boolean(t.sub);
      const span = el("tspan", down !== lowered ? { dy: down ? 4 : -4 } : {}, title, t.text || t.sub || t.bold);
      if (t.bold) span.setAttribute("font-weight", "bold");
      lowered = down;
    }
    let lastY = Infinity;
    for (const b of (opts.bounds || []).slice().sort((p, q) => p.value - q.value)) {
      const y = Y(b.value);
      el("line", { x1: x0, x2: W0 - 10, y1: y, y2: y, class: "curve bound" + (b.cls ? " " + b.cls : "") }, svg);
      // below the line near the title; labels of close bounds do not overprint
      const ty = Math.min(y < 40 ? y + 18 : y - 4, lastY - 18);
      el("text", { x: W0 - 12, y: ty, "text-anchor": "end" }, svg, b.label);
      lastY = ty;
    }
    series.forEach((s, j) => el("path", { d: s.map((v, i) => `${i ? "L" : "M"}${X(i)},${Y(v)}`).join(""),
      class: "curve" + (j ? " other" : "") }, svg));
    if (final !== undefined) {
      el("circle", { cx: X(n), cy: Y(final), r: 3, class: "final" }, svg);
      el("title", {}, svg, `after training: ${final}`);
    }
    el("line", { x1: X(cur), x2: X(cur), y1: 8, y2: y0, class: "now" }, svg);
    el("circle", { cx: X(cur), cy: Y(ys[cur]), r: 3.5, class: "marker" }, svg);
  }
  const EP = P.map((p) => p.ep);
  const corrections = M.targets[0].map((_, k) => {
    let n = 0;
    return P.map((p) => (n += p.err.includes(k) ? 1 : 0));
  });
  // MathML Core (Chromium renders it; no fonts or scripts fetched)
  const MML = "http://www.w3.org/1998/Math/MathML";
  function math(parent, markup) {
    const m = document.createElementNS(MML, "math");
    m.innerHTML = markup;
    parent.appendChild(m);
    return m;
  }
  const mn = (v) => `<mn>${v}</mn>`;
  // a vector in PRML's bold upright (MathML Core draws the bold variant as plain italic)
  const bold = (x) => `<mi mathvariant="normal" class="vec">${x}</mi>`;
  function drawPrml() {
    lineChart($("criterion"), [EP], M.ep_final, { title: ["perceptron criterion E", { sub: "P" }, "(", { bold: "w" }, ") over the cards shown so far"],
      fmtTop: (v) => v.toPrecision(2) });
    const p = P[cur];
    const ct = $("criterion-text");
    ct.innerHTML = "";
    ct.append("The perceptron criterion (PRML eq. 4.54) ");
    math(ct, `<mrow><msub><mi>E</mi><mi>P</mi></msub><mo>(</mo>${bold("w")}<mo>)</mo><mo>=</mo>
      <mo>\u2212</mo><munder><mo>\u2211</mo><mrow><mi>n</mi><mo>\u2208</mo><mi>\u2133</mi></mrow></munder>
      <msup>${bold("w")}<mi>T</mi></msup><msub>${bold("\u03c6")}<mi>n</mi></msub><msub><mi>t</mi><mi>n</mi></msub></mrow>`);
    ct.append(` over the deck cards shown so far, \u2133 those the weights read now get wrong: here ${p.ep}, after ` +
      `training ${M.ep_final} (the dot).`);
    const nov = M.novikoff, top = Math.max(...corrections.map((c) => c[c.length - 1]));
    const n0 = nov[0], bounds = [];
    if (n0.bound_best !== undefined) bounds.push({ value: n0.bound_best, label: `(R/\u03b3*)\u00b2 = ${n0.bound_best_text}` });
    if (n0.separates) bounds.push({ value: n0.bound, label: `(R/\u03b3)\u00b2 = ${n0.bound}`, cls: "final-w" });
    lineChart($("novikoff"), corrections, undefined, { title: "corrections so far" +
      (M.n_units > 1 ? ` (${unitName(0)} dark)` : "") + ", log scale",
      fmtTop: (v) => v.toFixed(0), bounds, top: Math.max(0, ...bounds.map((b) => b.value)) * 1.15, log: true });
    const box = $("novikoff-text");
    box.innerHTML = "";
    // at most three short paragraphs: the theorem, the two margins (R1's; the others in a line), the caveat
    const para = () => html("p", "explain", box);
    const p1 = para();
    p1.append("Novikoff: an ideal perceptron makes at most ");
    math(p1, `<mrow><msup><mrow><mo>(</mo><mi>R</mi><mo>/</mo><mi>\u03b3</mi><mo>)</mo></mrow><mn>2</mn></msup></mrow>`);
    p1.append(" corrections, ");
    math(p1, `<mrow><mi>R</mi><mo>=</mo><mo>max</mo><mo>\u2016</mo>${bold("\u03c6")}<mo>\u2016</mo><mo>=</mo>${mn(n0.R)}</mrow>`);
    p1.append(`, \u03b3 the margin of any separating weights. ${M.n_units > 1 ? unitName(0) + " made" : "It made"} ` +
      `${n0.corrections} (so far ${corrections[0][cur]}).`);
    const p2 = para();
    if (n0.gamma_best !== undefined) {
      p2.append("The best margin on these reads ");
      math(p2, `<mrow><msup><mi>\u03b3</mi><mo>*</mo></msup><mo>=</mo>${mn(n0.gamma_best_text)}</mrow>`);
      p2.append(` (exact to the ${n0.digits} digits shown) bounds them by ${n0.bound_best_text} (dashed); `);
    } else {
      p2.append(n0.separable === false ? "The reads are not linearly separable: no weights bound them; " :
        "The best margin is not computed (too many reads); ");
    }
    if (n0.separates) {
      p2.append("the final weights' own margin ");
      math(p2, `<mrow><mi>\u03b3</mi><mo>=</mo>${mn(n0.gamma)}</mrow>`);
      p2.append(` gives ${n0.bound} (dotted).`);
    } else {
      p2.append(`the final weights do not separate the reads (${n0.wrong} of ${P.length} wrong), so give no bound.`);
    }
    if (M.n_units > 1) {
      p2.append(" Others: " + nov.slice(1).map((n, k) => `${unitName(k + 1)} ${n.corrections}` +
        (n.bound_best !== undefined ? ` \u2264 ${Math.floor(n.bound_best)}` : "")).join(", ") + " (corrections \u2264 their bounds, " +
        "whole numbers).");
    }
    para().textContent = "The theorem is about exact sums; the machine decides on noisy reads and its pots " +
      "stop at the end stops, so it may make more.";
  }

  // ---- one presentation --------------------------------------------------------------
  function sBits(hex) {
    const out = new Uint8Array(N_S);
    for (let i = 0; i < out.length; i++) {
      const byte = parseInt(hex.substr(2 * (i >> 3), 2), 16);
      out[i] = (byte >> (7 - (i & 7))) & 1;
    }
    return out;
  }

  function show(i) {
    cur = Math.max(0, Math.min(P.length - 1, i));
    const p = P[cur];
    $("counter").textContent = `presentation ${cur + 1} of ${P.length} \u00b7 epoch ${p.e + 1} of ${M.epochs} ` +
      `\u00b7 deck card ${p.c + 1}`;
    if (!playing || presentationAt(T) !== cur) T = p.tr;      // stepping puts the clock at the card's read
    $("clock").textContent = clockText(T, p);
    stripCells.forEach((s, j) => s.classList.toggle("cur", j === cur));
    $("card").src = D.cards[p.c];
    $("card-text").textContent = `Deck card ${p.c + 1} shows \u201c${className(p.y)}\u201d. ` +
      `The machine answered \u201c${className(p.r)}\u201d: ${p.ok ? "right" : "a mistake"}.`;
    const bits = sBits(p.s);
    let nS = 0;
    sUnits.forEach((r, j) => { r.classList.toggle("lit", bits[j] === 1); nS += bits[j]; });
    $("retina-text").textContent = `${nS} of ${N_S} S-units fire, sampled ${M.settle_text} after ` +
      `the lamps came on.`;
    const lit = new Set(p.a);
    aUnits.forEach((r, a) => r.classList.toggle("lit", lit.has(a)));
    $("a-text").textContent = `${p.a.length} of ${N_A} A-units fire (net excitatory \u2212 inhibitory ` +
      `inputs \u2265 ${M.a_threshold}). Hover or click one to see its patch-board plugs on the retina.`;
    drawSums(p);
    drawWeights($("weights"), weightsBefore(cur), `presentation ${cur + 1}`);
    drawPrml();
    drawPots(p);
    drawMistakes();
    if (MV.card) drawMachine(T);
    // the energy's reckoning (corrections, motor power and time) in the tooltip: the panel stays short
    $("timing-text").textContent = `Read at ${dur(p.tr - p.t)} into the card. Whole run: ` +
      `${M.machine_time_text}, ${M.waited_text} of it waiting for motors; energy ${M.energy_text.split(" (")[0]}. ` +
      `Mistakes so far: ${P.filter((q, j) => j <= cur && !q.ok).length} of ${cur + 1}.`;
    $("timing-text").title = `energy ${M.energy_text}`;
    highlight();
  }

  // one R-unit's sum as a track: the wipers stacked, the threshold at 0, the sum read
  function sumTrack(parent, k, ws, cols, sum, span) {
    // drawn at the width it is shown (one unit a pixel), so its labels are 16 px wherever it sits
    const W0 = Math.max(320, Math.floor(parent.getBoundingClientRect().width) || 900), H = 76, x0 = W0 / 2;
    const sc = (W0 / 2 - 20) / span;
    const X = (v) => x0 + v * sc;
    const svg = el("svg", { viewBox: `0 0 ${W0} ${H}`, width: W0, height: H, class: "track", "data-unit": k },
      parent);
    el("line", { x1: 10, x2: W0 - 10, y1: 40, y2: 40, class: "axis" }, svg);
    for (const t of [-1, -0.5, 0.5, 1]) {
      const v = t * span;
      el("line", { x1: X(v), x2: X(v), y1: 38, y2: 42, class: "axis" }, svg);
      el("text", { x: X(v), y: 72, "text-anchor": t === -1 ? "start" : t === 1 ? "end" : "middle", fill: "#555" }, svg,
        fmt(v, 3));
    }
    let pos = 0, neg = 0;
    cols.forEach((a, j) => {
      const v = ws[j];
      if (v === null || v === 0) return;
      const from = v > 0 ? pos : neg, to = from + v;
      if (v > 0) pos = to; else neg = to;
      const r = el("rect", { x: Math.min(X(from), X(to)), y: 14, width: Math.max(Math.abs(X(to) - X(from)), 0.5),
        height: 22, class: "seg " + (v > 0 ? "pos" : "neg") + (a === N_A ? " bias" : ""), "data-a": a }, svg);
      el("title", {}, r, `${a === N_A ? "bias pot" : "A-unit " + (a + 1)}: wiper ${fmt(v)}`);
      if (a < N_A) {
        r.addEventListener("mouseenter", () => { hover = a; highlight(); });
        r.addEventListener("mouseleave", () => { hover = null; highlight(); });
        r.addEventListener("click", () => { selected = selected === a ? null : a; highlight(); });
      }
    });
    el("line", { x1: X(0), x2: X(0), y1: 4, y2: 46, class: "thr" }, svg);
    el("text", { x: X(0), y: 72, "text-anchor": "middle" }, svg, "threshold 0");    // between the ±half ticks
    const xs = Math.max(12, Math.min(W0 - 12, X(sum)));
    el("path", { d: `M${xs},38 l-6,9 h12 z`, class: "marker" }, svg);
    const right = xs < W0 - 80;
    el("text", { x: xs + (right ? 9 : -9), y: 54, "text-anchor": right ? "start" : "end", "font-weight": "bold" },
      svg, "sum " + sig(sum, 4));
    const single = M.code_kind === "single";
    const words = W0 >= 560 ? "pushes the lamp " : "";                  // narrow: the arrows and classes say it
    el("text", { x: 12, y: 12 }, svg, `\u2190 ${words}off` + (single ? ` (\u201c${className(0)}\u201d)` : ""));
    el("text", { x: W0 - 12, y: 12, "text-anchor": "end" }, svg,
      `${words}on` + (single ? ` (\u201c${className(1)}\u201d)` : "") + " \u2192");
    return svg;
  }

  function drawSums(p) {
    const box = $("runits");
    box.innerHTML = "";
    const span = trackSpan(p.w, p.sums.map(parseFloat));
    const cols = p.a.concat([N_A]);
    for (let k = 0; k < M.n_units; k++) {
      const target = M.targets[p.y][k], sum = parseFloat(p.sums[k]);
      const div = html("div", "runit", box);
      const erred = p.err.includes(k), lampOn = sum > M.tie, zero = p.z.includes(k), flipped = p.f.includes(k);
      const noise = sum - p.clean[k];
      const head = html("div", "head", div);
      head.innerHTML = `<b>${unitName(k)}</b> <span><span class="lamp${lampOn ? " on" : ""}"></span> lamp ` +
        `${lampOn ? "on" : "off"}</span> <span>sum read <span class="sum" id="sum-${k}"></span></span>` +
        `<span class="muted" id="split-${k}"></span>` +
        `<span>target ${target > 0 ? "on (+1)" : "off (\u22121)"}</span>` +
        `<span class="verdict ${erred ? "bad" : "ok"}">${erred ? "\u2717 this unit erred" : "\u2713 right"}</span>`;
      head.querySelector(".sum").textContent = p.sums[k];
      head.querySelector(`#split-${k}`).textContent = `= wipers ${fmt(p.clean[k])} + read noise ${fmt(noise)}`;
      const margin = html("div", "margin" + (zero ? " zero" : ""), div);
      margin.id = `margin-${k}`;
      margin.textContent = `margin t\u00b7(sum \u2212 threshold) = ${target > 0 ? "+1" : "\u22121"} \u00b7 ` +
        `(${fmt(p.clean[k])} \u2212 0) = ${fmt(p.m[k])} from the wipers (threshold 0, the bias pot inside the ` +
        `sum); ${fmt(target * sum)} as read.` + (Math.abs(p.clean[k]) <= M.tie ? ` On the boundary: the wipers this card reaches add up to exactly 0` +
        `${p.e === 0 && cur < 3 ? " (every pot is still at 0)" : ""}, so the card sits on the boundary, and the rule ` +
        `counts a sum of 0 as an error for ${M.rule === "alpha" ? "\u03b1" : M.rule} (it corrects when ` +
        `t\u00b7sum \u2264 0). The sum read, ${fmt(sum)}, is read noise alone: it put the lamp ${lampOn ? "on" : "off"}` +
        (flipped ? `, which happened to be right, so nothing was corrected.` : erred ? `: wrong, and the trainer ` +
          `turns the pots.` : `.`) : zero ? ` Zero margin: |wipers \u2212 threshold| = ` +
        `${Math.abs(p.clean[k]).toFixed(4)} is below the read noise's scale ${SD_NAME} = ${p.sd[k].toFixed(4)}` +
        (flipped ? `, and the read noise ${fmt(noise)} flipped the verdict: the wipers alone would have ` +
          `${erred ? "been right" : "erred"}.` : ", so the read noise could flip it (it did not here).") : "");
      sumTrack(div, k, p.w[k], cols, sum, span);
    }
    html("p", "key", box, `Red: pots of firing A-units with a positive wiper; blue: negative; outlined: the bias ` +
      `pot (always on). The sum read is the machine's own reading (its trace, 4 significant digits), with read ` +
      `noise of ${M.wiper_noise} full scale per wiper, so \u03c3\u221a(pots) for the sum` +
      (D.machine.mean ? ` and \u03c3\u221a(pots) / pots for the mean this \u03bc-system reads` : "") +
      `. Answer: ${M.code}.`);
  }

  function drawPots(p) {
    const box = $("pots");
    box.innerHTML = "";
    if (!p.mv.length) {
      $("motors-text").textContent = p.ok ? "Right answer: the trainer leaves the pots alone." :
        "No pot was commanded.";
      return;
    }
    $("motors-text").textContent = `${p.mv.length} pots commanded (${M.rule}, ${M.increment} full scale ` +
      `towards each erring unit's target). Motors run from ${dur(p.m0 - p.t)} to ${dur(p.m1 - p.t)} after this card's ` +
      `change (${p.md})` + (p.wn ? `; the next card waited ${p.wn}.` : `, within the card's ${M.period_text}.`);
    p.mv.forEach(([u, i, cmd, before, after, slack], j) => {
      const [slackText, runText] = p.mvt[j];
      const row = html("div", "pot", box);
      row.dataset.a = i;
      const who = i === N_A ? "bias pot" : `A-unit ${i + 1}`;
      html("span", "", row, `${unitName(u)} \u00b7 ${who}`);
      row.appendChild(gauge(before, after, cmd));
      const txt = html("span", "", row);
      const stopped = M.end_stops && Math.abs(after) >= 1 && Math.abs(before + cmd) > 1;
      txt.innerHTML = `${fmt(before)} \u2192 ${fmt(after)} <span class="muted">(commanded ${fmt(cmd, 3)}; ` +
        `moved ${fmt(after - before)}; motor ${runText}` +
        (slack > 0 ? `, ${slackText} taking up backlash` : "") + `)</span>` +
        (stopped ? ` <span class="stop">at the end stop</span>` : "");
    });
  }

  // left: the whole travel from end stop to end stop, with the wiper on it; right: a window
  // on this move (before -> after), with the end stops where they fall in it
  function gauge(before, after, cmd) {
    const W0 = 400, H = 34, svg = el("svg", { viewBox: `0 0 ${W0} ${H}`, width: W0, height: H, class: "gauge" });
    const F = (v) => 24 + (v + 1) / 2 * 60;
    el("line", { x1: F(-1), x2: F(1), y1: 13, y2: 13, class: "rail" }, svg);
    for (const e of [-1, 0, 1]) {
      el("line", { x1: F(e), x2: F(e), y1: e ? 5 : 9, y2: e ? 21 : 17, class: e && M.end_stops ? "end" : "rail" }, svg);
    }
    el("text", { x: F(-1) - 3, y: 17, "text-anchor": "end" }, svg, "\u22121");
    el("text", { x: F(1) + 3, y: 17 }, svg, "+1");
    el("circle", { cx: F(after), cy: 13, r: 3, class: "wiper" }, svg);
    const half = Math.max(0.03, 1.6 * Math.abs(cmd), 1.2 * Math.abs(after - before));
    let lo = (before + after) / 2 - half, hi = (before + after) / 2 + half;
    if (hi > 1.05) { lo -= hi - 1.05; hi = 1.05; }
    if (lo < -1.05) { hi += -1.05 - lo; lo = -1.05; }
    const X = (v) => 150 + (v - lo) / (hi - lo) * (W0 - 200);
    el("rect", { x: 112, y: 1, width: W0 - 112, height: H - 2, fill: "#f7f7f7", stroke: "#ddd" }, svg);
    el("line", { x1: X(Math.max(lo, -1)), x2: X(Math.min(hi, 1)), y1: 13, y2: 13, class: "rail" }, svg);
    for (const e of [-1, 1]) if (M.end_stops && e >= lo && e <= hi) {
      el("line", { x1: X(e), x2: X(e), y1: 3, y2: 23, class: "end" }, svg);
      el("text", { x: X(e) + (e > 0 ? -3 : 3), y: 9, "text-anchor": e > 0 ? "end" : "start" }, svg, "stop");
    }
    el("text", { x: 114, y: 30 }, svg, lo.toFixed(2));
    el("text", { x: W0 - 2, y: 30, "text-anchor": "end" }, svg, hi.toFixed(2));
    if (after !== before) {
      const d = after > before ? -5 : 5;
      el("path", { d: `M${X(before)},13 L${X(after)},13 M${X(after) + d},9 L${X(after)},13 L${X(after) + d},17`,
        class: "arrow" }, svg);
    }
    el("circle", { cx: X(before), cy: 13, r: 3.5, class: "from" }, svg);
    el("title", {}, svg, `wiper ${fmt(before)} \u2192 ${fmt(after)}; left: the whole travel between the end ` +
      `stops; right: a close-up from ${lo.toFixed(2)} to ${hi.toFixed(2)}`);
    return svg;
  }

  // the chosen A-unit: its plugs on the retina, its pots in the sums and the moves
  function highlight() {
    const a = hover !== null ? hover : selected;
    aUnits.forEach((r, j) => { r.classList.toggle("sel", j === selected); r.classList.toggle("hot", j === a); });
    sUnits.forEach((r) => r.classList.remove("exc", "inh"));
    document.querySelectorAll(".seg.hot, .pot.hot").forEach((e) => e.classList.remove("hot"));
    const info = $("a-text");
    if (a === null) return;
    const [exc, inh] = D.wiring[a];
    exc.forEach((s) => sUnits[s].classList.add("exc"));
    inh.forEach((s) => sUnits[s].classList.add("inh"));
    document.querySelectorAll(`.seg[data-a="${a}"], .pot[data-a="${a}"]`).forEach((e) => e.classList.add("hot"));
    const bits = sBits(P[cur].s);
    const e = exc.filter((s) => bits[s]).length, i = inh.filter((s) => bits[s]).length;
    info.textContent = `A-unit ${a + 1}: ${exc.length} excitatory plugs (${e} firing), ${inh.length} inhibitory ` +
      `(${i} firing): net ${e - i} ${e - i >= M.a_threshold ? "\u2265" : "<"} threshold ${M.a_threshold}, so it ` +
      `${e - i >= M.a_threshold ? "fires" : "stays silent"}.`;
    info.dataset.a = a;
  }

  // ---- after training: the test cards ----------------------------------------------------
  {
    const T = D.test;
    const some = M.test_shown < M.test_cards ?
      `The first ${M.test_shown.toLocaleString("en")} of them are shown below (the accuracy is over all). ` : "";
    $("test-text").textContent = `The trained machine (its wipers at rest after all ` +
      `${M.run_presentations.toLocaleString("en")} presentations, ` +
      `shown below) answers the ${M.test_cards.toLocaleString("en")} test cards, none of them seen in training: ` +
      `${M.test_right.toLocaleString("en")} of ${M.test_cards.toLocaleString("en")} right, test accuracy ` +
      `${M.test_accuracy_text} (train accuracy ${M.train_accuracy_text}). ` + some +
      `Each sum is read with the read noise a scoring read has (one draw per machine and card, so asking again ` +
      `gives the same answer). Click a card to put it in the editor below.`;
    drawWeights($("final-weights"), W, "after training");
    const box = $("test-cards");
    T.cards.forEach((src, i) => {
      const ok = T.answers[i] === T.labels[i];
      const fig = html("figure", "tcard" + (ok ? "" : " wrong"), box);
      const img = html("img", "", fig);
      img.src = src;
      img.alt = `test card ${i + 1}`;
      html("figcaption", "", fig,
        `${className(T.labels[i])} \u2192 ${className(T.answers[i])} ${ok ? "\u2713" : "\u2717"}`);
      fig.title = `test card ${i + 1}: shows \u201c${className(T.labels[i])}\u201d, the machine answered ` +
        `\u201c${className(T.answers[i])}\u201d; sums read ${T.sums[i].join(", ")}`;
      fig.addEventListener("click", () => { editorSet(sBits(T.s[i]), `test card ${i + 1}`); });
    });
  }

  // ---- the class's own card -------------------------------------------------------------
  const ed = { bits: new Uint8Array(N_S), cells: [], drawing: null, source: "blank" };
  {
    const svg = $("editor"), cell = 16;
    svg.setAttribute("viewBox", `0 0 ${M.cols * cell} ${M.rows * cell}`);
    for (let i = 0; i < N_S; i++) {
      const r = el("rect", { x: (i % M.cols) * cell + 1, y: Math.floor(i / M.cols) * cell + 1, width: cell - 2,
        height: cell - 2, rx: 2, class: "s-unit", "data-s": i }, svg);
      r.addEventListener("pointerdown", (ev) => {
        ev.preventDefault();
        ed.drawing = ed.bits[i] ? 0 : 1;                     // a stroke from a firing unit rubs out
        paint(i);
      });
      r.addEventListener("pointerenter", () => { if (ed.drawing !== null) paint(i); });
      ed.cells.push(r);
    }
    document.addEventListener("pointerup", () => { ed.drawing = null; });
    const sel = $("ed-card");
    D.cards.forEach((src, c) => {
      if (src === null) return;                        // not shown in the replay
      const o = html("option", "", sel, `${c + 1} (\u201c${className(D.labels[c])}\u201d)`);
      o.value = c;
    });
    $("ed-clear").addEventListener("click", () => editorSet(new Uint8Array(N_S), "blank"));
    $("ed-invert").addEventListener("click", () => editorSet(ed.bits.map((b) => 1 - b), "inverted " + ed.source));
    $("ed-load").addEventListener("click", () => {
      const c = parseInt(sel.value, 10);
      let last = -1;
      P.forEach((p, j) => { if (p.c === c) last = j; });
      editorSet(sBits(P[last].s), `deck card ${c + 1} (presentation ${last + 1})`);
    });
  }
  const edA = aGrid($("ed-aunits"), 12);
  function paint(i) {
    ed.bits[i] = ed.drawing;
    ed.source = "drawn";
    editorShow();
  }
  function editorSet(bits, source) {
    ed.bits = Uint8Array.from(bits);
    ed.source = source;
    editorShow();
  }
  function editorShow() {
    ed.cells.forEach((r, i) => r.classList.toggle("lit", ed.bits[i] === 1));
    const out = respond(ed.bits);
    const lit = new Set(out.a_units);
    edA.forEach((r, a) => r.classList.toggle("lit", lit.has(a)));
    const nS = ed.bits.reduce((a, b) => a + b, 0);
    $("ed-a-text").textContent = `${ed.source}: ${nS} of ${N_S} S-units fire; through the patch board ` +
      `${out.a_units.length} of ${N_A} A-units fire.`;
    const box = $("ed-runits");
    box.innerHTML = "";
    const ws = W.map((w) => out.a_units.map((a) => w[a]).concat([w[N_A]]));
    const span = trackSpan(ws, out.sums);
    out.sums.forEach((s, k) => {
      const div = html("div", "runit", box);
      const head = html("div", "head", div);
      head.innerHTML = `<b>${unitName(k)}</b> <span><span class="lamp${out.lamps[k] ? " on" : ""}"></span> lamp ` +
        `${out.lamps[k] ? "on" : "off"}</span> <span>sum <span class="sum"></span></span>`;
      head.querySelector(".sum").textContent = sig(s, 4);
      head.querySelector(".sum").id = `ed-sum-${k}`;
      sumTrack(div, k, ws[k], out.a_units.concat([N_A]), s, span);
    });
    html("p", "answer", box, `The machine answers \u201c${out.answer}\u201d (${M.code}). Sums of the wipers at ` +
      `rest, without read noise.`).id = "ed-answer";
  }
  editorSet(sBits(P[0].s), `deck card ${P[0].c + 1} (presentation 1)`);


  // ---- the machine at work: drawn from the spec, animated from the run's own moves -------
  // Each pot's moves as the rack set them going (Move: time, backlash, run, from, to); between them
  // a wiper is where its last move left it, and during one it turns at an even rate after the
  // backlash is taken up (the law of mark1.machine._kernels.pots.stored_pot).
  const potMoves = new Map();
  P.forEach((p) => p.mv.forEach(([u, a, , before, after, slack, run, t0]) => {
    const key = u * (N_A + 1) + a;
    if (!potMoves.has(key)) potMoves.set(key, []);
    potMoves.get(key).push([t0, t0 + slack, t0 + run, before, after]);
  }));
  function wiperAt(u, a, t) {
    const list = potMoves.get(u * (N_A + 1) + a);
    if (!list) return 0;
    let lo = 0, hi = list.length - 1, m = -1;
    while (lo <= hi) { const mid = (lo + hi) >> 1; if (list[mid][0] <= t) { m = mid; lo = mid + 1; } else hi = mid - 1; }
    if (m < 0) return 0;
    const [, t1, t2, from, to] = list[m];
    if (t < t1) return from;
    if (t < t2) return from + (to - from) * (t - t1) / (t2 - t1);
    return to;
  }
  const SWING = 135;                           // a dial's needle: its stop marks drawn at +-135 degrees
  // the dial zoom: the needles' and faces' scale is the run's largest |wiper|, rounded up to 1, 2 or 5 x 10^k
  // (so the factor is a round number): one correction turns a needle by increment / that scale x 135 degrees
  const DIAL_SCALE = (() => {
    const w = Math.max(M.dial_max, 1e-6);
    const e = Math.pow(10, Math.floor(Math.log10(w)));
    for (const m of [1, 2, 5, 10]) if (m * e >= w * (1 - 1e-9)) return Math.min(1, m * e);
    return 1;
  })();
  const MV = { dials: [], sLamps: [], rLamps: [], wires: null, zoom: true, images: [], width: 0 };
  const dialRange = () => (MV.zoom ? DIAL_SCALE : 1);
  // drawn at the size it is shown (one unit a pixel, the page's type size), to fit one screen below the
  // controls: the hardware across the top, then the rack, a block of dials per R-unit, and beside it what
  // each R-unit has learned to look for (its weights on the retina)
  function buildMachine(cut = 0) {
    const svg = $("machine"), panel = svg.parentElement, ps = getComputedStyle(panel);
    const W = Math.max(480, Math.floor(panel.clientWidth - parseFloat(ps.paddingLeft) - parseFloat(ps.paddingRight)));
    svg.innerHTML = "";
    svg.style.fontSize = "";
    const f = parseFloat(getComputedStyle(document.documentElement).fontSize);
    const pots = [];
    for (let k = 0; k < M.n_units; k++) for (let a = 0; a <= N_A; a++) if (MASK[k][a]) pots.push([k, a]);
    const perUnit = M.targets[0].map((_, k) => pots.filter(([u]) => u === k).length);
    // the height one screen leaves: the controls, the panel's heading and two lines of key below
    const fixed = $("controls").offsetHeight;                 // the sticky controls stay on screen
    const budget = Math.max(160, window.innerHeight - fixed - 5 * f * 1.35 - 24 - cut);
    // the hardware across the top, drawn in a 1200 x 214 design scaled by k (its labels stay at the type size)
    const k0 = Math.min(1, W / 1200, (budget * 0.42) / 214);
    const top = f * 1.3;                               // the labels' line
    const hw = el("g", { transform: `translate(0 ${top}) scale(${k0})` }, svg);
    const labels = [];
    const label = (x, text, anchor) => {
      const t = el("text", { x, y: f, "text-anchor": anchor || "start" }, svg, text);
      labels.push(t);
      return t;
    };
    label(8 * k0, "card & camera");
    el("rect", { x: 8, y: 8, width: 136, height: 136, class: "frame" }, hw);
    MV.card = el("image", { x: 16, y: 16, width: 120, height: 120, preserveAspectRatio: "none",
      style: "image-rendering: pixelated" }, hw);
    MV.flood = [el("circle", { cx: 20, cy: 168, r: 9, class: "lamp-off" }, hw),
      el("circle", { cx: 132, cy: 168, r: 9, class: "lamp-off" }, hw)];
    el("rect", { x: 168, y: 50, width: 52, height: 52, rx: 6, fill: "#333" }, hw);
    el("circle", { cx: 166, cy: 76, r: 12, fill: "#777", stroke: "#222" }, hw);
    el("path", { d: "M144,28 L156,68 M144,124 L156,84", stroke: "#999", fill: "none" }, hw);
    const cs = Math.floor(200 / Math.max(M.rows, M.cols)), sx = 260, sy = 8;
    label(sx * k0, "S-unit lamps");
    el("rect", { x: sx - 4, y: sy - 4, width: M.cols * cs + 8, height: M.rows * cs + 8, fill: "#111" }, hw);
    MV.sLamps = [];
    for (let i = 0; i < N_S; i++) {
      MV.sLamps.push(el("circle", { cx: sx + (i % M.cols + 0.5) * cs, cy: sy + (Math.floor(i / M.cols) + 0.5) * cs,
        r: cs * 0.38, class: "lamp-off" }, hw));
    }
    // the patch board: every jack, the wires of a few A-units
    const bx = 510, by = 8, js = Math.min(9, 200 / Math.max(M.rows, M.cols));
    const ac = Math.min(10, 180 / aCols, 200 / aRows), ax = 790;
    label(bx * k0, "patch board");
    el("rect", { x: bx - 6, y: by - 6, width: ax + aCols * ac - bx + 12, height: 212, class: "frame" }, hw);
    for (let i = 0; i < N_S; i++) el("circle", { cx: bx + (i % M.cols + 0.5) * js, cy: by + (Math.floor(i / M.cols) + 0.5) * js,
      r: 1.6, class: "jack" }, hw);
    for (let a = 0; a < N_A; a++) el("circle", { cx: ax + (a % aCols + 0.5) * ac, cy: by + (Math.floor(a / aCols) + 0.5) * ac,
      r: Math.max(1.2, ac * 0.22), class: "jack" }, hw);
    MV.wires = el("g", {}, hw);
    MV.board = { bx, by, js, ax, ac };
    MV.wiresFor = null;
    // the R-unit lamps, in columns of at most four, labelled at the type size
    const rx = 1000 * k0, lampR = Math.max(7, f * 0.4), rowH = Math.max(f * 1.25, 2.4 * lampR);
    label(W - 8, "R-unit lamps", "end");
    MV.rLamps = [];
    const perCol = Math.min(M.n_units, Math.max(1, Math.floor(214 * k0 / rowH)));
    const lampColW = (W - 8 - rx) / Math.ceil(M.n_units / perCol);
    for (let k = 0; k < M.n_units; k++) {
      const x = rx + Math.floor(k / perCol) * lampColW, y = top + 8 + (k % perCol + 0.5) * rowH;
      MV.rLamps.push(el("circle", { cx: x + lampR + 2, cy: y, r: lampR, class: "lamp-off" }, svg));
      el("text", { x: x + 2 * lampR + 8, y: y + f * 0.35 }, svg, unitName(k));
    }
    // the labels across the top in fewer words where the type is too large for them to stand apart
    const clash = () => labels.some((t, j) => j > 0 && labels[j - 1].getBBox().x + labels[j - 1].getBBox().width +
      f * 0.6 > t.getBBox().x);
    if (clash()) ["card", "S-units", "board", "R-units"].forEach((w, j) => { labels[j].textContent = w; });
    // the rack: a block of dials per R-unit, its learned picture beside it
    const y0 = top + 214 * k0 + f * 0.8, rackH = Math.max(budget - y0, 8 * M.n_units + 60);
    const lw = 2.4 * f, gap = 12;
    const imgW = Math.min(Math.round(W * 0.26), M.n_units === 1 ? rackH - f * 1.4 : W);
    // the learned pictures: the grid of columns that gives the largest picture
    let best = { side: 0, cols: 1 };
    for (let gc = 1; gc <= M.n_units; gc++) {
      const gr = Math.ceil(M.n_units / gc);
      const side = Math.min((imgW - (gc - 1) * 6) / gc, (rackH - gr * (f * 1.3 + 6)) / gr);
      if (side > best.side) best = { side, cols: gc };
    }
    const side = Math.max(20, Math.floor(best.side)), areaW = W - imgW - gap - 8;
    // the blocks of dials, a block per R-unit, in one or more columns: the layout with the largest dials.
    // A block is at least a line of type high, so the R-units' names beside the blocks stand apart.
    const layout = (bc, d) => {
      const dialsW = areaW / bc - lw - 6, perRow = Math.max(1, Math.floor(dialsW / d));
      const hs = perUnit.map((n) => Math.max(Math.ceil(n / perRow) * d, f * 1.2));
      let height = 0;
      for (let r = 0; r < M.n_units; r += bc) height += Math.max(...hs.slice(r, r + bc)) + 6;
      return { bc, d, perRow, hs, height, colW: areaW / bc };
    };
    let rack = null;
    for (let bc = 1; bc <= Math.min(4, M.n_units); bc++) {
      let d = 40;
      while (d > 8 && layout(bc, d).height > rackH) d -= 1;
      const l = layout(bc, d);
      if (!rack || (l.height <= rackH && (rack.height > rackH || l.d > rack.d)) ||
          (rack.height > rackH && l.height < rack.height)) rack = l;
    }
    const { d, perRow, hs, colW } = rack;
    MV.dials = [];
    let y = y0, rowTop = y0;
    M.targets[0].forEach((_, k) => {
      const col = k % rack.bc, x0 = col * colW;
      if (col === 0 && k > 0) rowTop = y;
      const mine = pots.filter(([u]) => u === k);
      el("text", { x: x0 + 4, y: rowTop + Math.min(hs[k], 2 * f) / 2 + f * 0.35 }, svg, unitName(k));
      mine.forEach(([u, a], j) => {
        const cx = x0 + lw + (j % perRow + 0.5) * d, cy = rowTop + (Math.floor(j / perRow) + 0.5) * d, r = d * 0.44;
        const g = el("g", { class: "pot-dial", "data-u": u, "data-a": a }, svg);
        const face = el("circle", { cx, cy, r, class: "dial" }, g);
        if (d >= 16) {
          for (const e of [-1, 1]) {
            const th = (e * SWING - 90) * Math.PI / 180;
            el("line", { x1: cx + r * 0.7 * Math.cos(th), y1: cy + r * 0.7 * Math.sin(th), x2: cx + r * Math.cos(th),
              y2: cy + r * Math.sin(th), class: "stopmark" }, g);
          }
        }
        const needle = el("line", { x1: cx, y1: cy, x2: cx, y2: cy - r * 0.92, class: "needle",
          "stroke-width": Math.max(1.4, d / 12) }, g);
        el("title", {}, g, `${unitName(u)} \u00b7 ${a === N_A ? "bias pot" : "A-unit " + (a + 1)}`);
        MV.dials.push({ u, a, cx, cy, face, needle, g, w: NaN });
      });
      y = Math.max(y, rowTop + hs[k] + 6);
    });
    // what each R-unit has learned to look for: its weights on the retina, one picture a unit
    const ix = W - imgW - 4, cell = side / Math.max(M.rows, M.cols);
    MV.images = [];
    for (let k = 0; k < M.n_units; k++) {
      const gx = ix + (k % best.cols) * (side + 6), gy = y0 + Math.floor(k / best.cols) * (side + f * 1.3 + 6);
      const name = el("text", { x: gx, y: gy + f }, svg, `${unitName(k)} looks for`);
      if (name.getComputedTextLength() > side) name.textContent = unitName(k);
      const g = el("g", { class: "learned", "data-unit": k }, svg);
      el("rect", { x: gx - 1, y: gy + f * 1.3 - 1, width: M.cols * cell + 2, height: M.rows * cell + 2,
        fill: "none", stroke: "#999" }, g);
      const cells = [];
      for (let i = 0; i < N_S; i++) {
        cells.push(el("rect", { x: gx + (i % M.cols) * cell, y: gy + f * 1.3 + Math.floor(i / M.cols) * cell,
          width: cell + 0.3, height: cell + 0.3, fill: "#fff" }, g));
      }
      MV.images.push({ cells, key: null });
    }
    const H = Math.ceil(Math.max(y, y0 + Math.ceil(M.n_units / best.cols) * (side + f * 1.3 + 6)) + 4);
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    MV.width = W;
    MV.dialSize = d;
    rackKey();
  }
  function rackKey() {
    const z = dialRange(), factor = 1 / z;
    const zoomed = z < 1 ? `\u00d7${factor.toLocaleString("en")}, the stop mark at \u00b1${z} full scale ` +
      `(largest wiper ${M.dial_max.toPrecision(2)})` : `not zoomed, the stop mark at \u00b11 full scale`;
    $("rack-text").textContent = `${M.pots.toLocaleString("en")} pots, a dial each; dials ${zoomed}; ` +
      `faces red +, blue \u2212. Right: what each R-unit looks for, the weight each S-unit carries ` +
      `(\u00b1${M.s_dial_max.toPrecision(2)}; ink on red pushes the lamp on). All white: nothing learned yet.`;
    $("dial-zoom").checked = MV.zoom;
    $("dial-zoom-label").textContent = `zoom the dials \u00d7${factor.toLocaleString("en")}`;
    $("dial-zoom-box").hidden = z >= 1;
  }
  function drawMachine(t) {
    const i = presentationAt(t), p = P[i];
    MV.card.setAttribute("href", D.cards[p.c]);
    const lampsOn = t >= p.t + M.card_change, sampled = t >= p.t + M.card_change + M.settle, read = t >= p.tr;
    MV.flood.forEach((c) => c.setAttribute("class", lampsOn ? "lamp-on" : "lamp-off"));
    const bits = sBits(p.s);
    MV.sLamps.forEach((c, j) => c.setAttribute("class", sampled && bits[j] ? "lamp-on" : "lamp-off"));
    p.sums.forEach((v, k) => MV.rLamps[k].setAttribute("class", read && parseFloat(v) > M.tie ? "lamp-on" : "lamp-off"));
    const range = dialRange();
    const w = M.targets[0].map(() => new Array(N_A + 1).fill(0));
    for (const dl of MV.dials) {
      const v = wiperAt(dl.u, dl.a, t);
      w[dl.u][dl.a] = v;
      if (v !== dl.w || dl.range !== range) {
        dl.w = v;
        dl.range = range;
        dl.needle.setAttribute("transform", `rotate(${Math.max(-1.04, Math.min(1.04, v / range)) * SWING} ${dl.cx} ${dl.cy})`);
        dl.needle.dataset.w = v;
        dl.face.style.fill = weightColour(v, range);
      }
      const list = potMoves.get(dl.u * (N_A + 1) + dl.a);
      const moving = Boolean(list && list.some(([t0, , t2]) => t >= t0 && t < t2));
      if (moving !== dl.moving) { dl.moving = moving; dl.face.setAttribute("class", moving ? "dial moving" : "dial"); }
    }
    MV.images.forEach((img, k) => {
      const key = w[k].join(",");
      if (key === img.key) return;
      img.key = key;
      const values = onRetina(w[k].map((v, a) => (a < N_A && MASK[k][a] ? v : 0)));
      img.cells.forEach((r, s) => r.setAttribute("fill", weightColour(values[s], M.s_dial_max)));
    });
    if (MV.wiresFor !== i) drawWires(p, i);
    $("machine-status").textContent = statusText(p.c, className(p.y), read ? className(p.r) : null, p.ok, MV.wireNote);
  }
  function statusText(card, shown, answer, ok, wires) {
    return `Card ${card + 1} (\u201c${shown}\u201d)` +
      (answer !== null ? `: answered \u201c${answer}\u201d, ${ok ? "right" : "a mistake"}. ` : ". ") + wires;
  }
  // the status's height held at its longest text (a mistake, the longest class names, every plug of four
  // A-units), so the panel keeps its height as the run plays and the fit below holds at every presentation
  function holdStatusHeight() {
    const st = $("machine-status"), kept = st.textContent;
    const longest = M.classes.reduce((a, b) => (String(b).length > String(a).length ? b : a), "");
    const card = Math.max(...P.map((p) => p.c));
    st.style.minHeight = "";
    st.textContent = statusText(card, longest, longest, false,
      `Wires: 4 A-units' (${M.plugs.toLocaleString("en")} of ${M.plugs.toLocaleString("en")} plugs).`);
    st.style.minHeight = `${st.getBoundingClientRect().height}px`;
    st.textContent = kept;
  }
  // the wires of a few A-units (those firing first), all their plugs
  function drawWires(p, i) {
    MV.wiresFor = i;
    MV.wires.innerHTML = "";
    const { bx, by, js, ax, ac } = MV.board;
    const chosen = (p.a.length ? p.a : [0]).slice(0, 4);
    let n = 0;
    for (const a of chosen) {
      const [exc, inh] = D.wiring[a];
      const x2 = ax + (a % aCols + 0.5) * ac, y2 = by + (Math.floor(a / aCols) + 0.5) * ac;
      for (const [list, cls] of [[exc, "pos"], [inh, "neg"]]) for (const sIdx of list) {
        const x1 = bx + (sIdx % M.cols + 0.5) * js, y1 = by + (Math.floor(sIdx / M.cols) + 0.5) * js;
        el("path", { d: `M${x1},${y1} C${x1 + 60},${y1 - 30} ${x2 - 60},${y2 + 30} ${x2},${y2}`,
          class: `wire ${cls}` }, MV.wires);
        n++;
      }
    }
    MV.wireNote = `Wires: ${chosen.length} A-units' (${n} of ${M.plugs.toLocaleString("en")} plugs).`;
  }
  function presentationAt(t) {
    let lo = 0, hi = P.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (P[mid].t <= t) lo = mid; else hi = mid - 1; }
    return lo;
  }
  MV.card = true;
  redrawMachine();
  $("dial-zoom").addEventListener("change", (ev) => { MV.zoom = ev.target.checked; rackKey(); drawMachine(T); });
  // drawn at the size it is shown: drawn again when the panel's width, the window's height or the type changes
  function redrawMachine() {
    if (!MV.card) return;
    document.documentElement.style.setProperty("--nav-h", `${$("controls").offsetHeight}px`);
    holdStatusHeight();
    buildMachine();
    // the panel to fit one screen below the controls: drawn again, shorter by what it overflows
    const room = window.innerHeight - $("controls").offsetHeight - 4;
    let cut = 0;
    for (let round = 0; round < 3; round++) {
      const over = $("machine-panel").getBoundingClientRect().height - room;
      if (over <= 0) break;
      cut += over + 2;
      buildMachine(cut);
    }
    drawMachine(T);
  }
  let machineShape = "";
  new ResizeObserver(() => {
    const shape = `${Math.floor($("machine-panel").getBoundingClientRect().width)}x${window.innerHeight}`;
    if (shape !== machineShape) { machineShape = shape; redrawMachine(); }
  }).observe($("machine-panel"));
  window.addEventListener("resize", () => {
    const shape = `${Math.floor($("machine-panel").getBoundingClientRect().width)}x${window.innerHeight}`;
    if (shape !== machineShape) { machineShape = shape; redrawMachine(); }
  });
  $("machine-caption").textContent = `Drawn from the spec of this run's machine (${N_A} A-units, ` +
    `${M.pots.toLocaleString("en")} pots, ${M.drive} drive) and animated from its own record: each dial turns as ` +
    `its motor did, in machine time. From sources: the 20\u00d720 photocell retina in a camera looking at a lit ` +
    `card, the patch board plugged by hand, motor-driven pots, the R-unit lamps (documented); the S-unit lamp ` +
    `panel (one source). Schematic, ours: every shape and place on this drawing; the number of pots (one per ` +
    `A-unit has one secondary source, ${M.n_units > 1 ? "one per A-unit and R-unit is an inference" : "here the scene's"}` +
    `); the drive (continuous motor or ratchet: the sources disagree)` +
    (M.decay_time !== null ? "; decay is on, and the dials show the wipers before it" : "") + ".";

  // ---- controls ----------------------------------------------------------------------
  // the pace: machine seconds per wall second; 1 is real time, the machine's own pace
  const END = P[P.length - 1].t + M.period;
  const paces = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64].filter((r) => r === 1 || r / M.period <= 16);
  {
    const sel = $("pace");
    for (const r of paces) {
      const cps = r / M.period;
      const o = html("option", "", sel, r === 1 ? `real time: 1 card every ${M.period_text}` :
        `\u00d7${r}: ${parseFloat(cps.toPrecision(2))} cards/s`);
      o.value = r;
      if (r === 1) o.selected = true;
    }
  }
  const pace = () => parseFloat($("pace").value);
  let lastFrame = null;
  function frame(now) {
    if (!playing) return;
    if (lastFrame !== null) T = Math.min(END, T + (now - lastFrame) / 1000 * pace());
    lastFrame = now;
    const i = presentationAt(T);
    if (i !== cur) show(i);
    drawMachine(T);
    $("clock").textContent = clockText(T, P[i]);
    if (T >= END) { setPlaying(false); return; }
    timer = requestAnimationFrame(frame);
  }
  function setPlaying(on) {
    playing = on;
    cancelAnimationFrame(timer);
    lastFrame = null;
    $("play").innerHTML = on ? "&#10074;&#10074; pause" : "&#9654; play";
    if (on) {
      if (T >= END - 1e-9) { T = 0; show(0); playing = true; }
      timer = requestAnimationFrame(frame);
    }
  }
  // larger type for a projector: + and - (or the button) step through the scales
  // (kept across reloads in the browser's storage for this page, where the browser allows it)
  const SCALES = [1, 1.25, 1.5], SCALE_KEY = "mark1-lesson-type-scale";
  let scaleAt = 0;
  function setScale(j) {
    scaleAt = (j + SCALES.length) % SCALES.length;
    document.documentElement.style.setProperty("--scale", SCALES[scaleAt]);
    $("bigger").textContent = scaleAt === SCALES.length - 1 ? "A\u2212 default type" : "A+ larger type";
    try { localStorage.setItem(SCALE_KEY, String(SCALES[scaleAt])); } catch (e) { /* storage refused: not kept */ }
    redrawMachine();
    show(cur);
  }
  {
    let kept = null;
    try { kept = parseFloat(localStorage.getItem(SCALE_KEY)); } catch (e) { kept = null; }
    const j = SCALES.indexOf(kept);
    if (j > 0) setScale(j);
  }
  $("bigger").addEventListener("click", () => setScale(scaleAt + 1));
  // put the machine clock at t (s): the page's presentation and the dials as they were then
  // (clamped to the run: before its start is its start, after its end its end; not a number is refused)
  window.mark1.seek = (t) => {
    t = Number(t);
    if (!Number.isFinite(t) && !(Math.abs(t) === Infinity)) throw new Error(`seek: expected machine time in s, got ${t}`);
    t = Math.max(0, Math.min(END, t));
    setPlaying(false);
    show(presentationAt(t));
    T = t;
    drawMachine(t);
    $("clock").textContent = clockText(T, P[cur]);
  };
  function jump(test, none) {
    for (let j = cur + 1; j < P.length; j++) if (test(P[j])) { show(j); return; }
    const c = $("counter"), note = ` \u00b7 ${none}`;          // said once, however often clicked
    if (!c.textContent.endsWith(note)) c.textContent += note;
  }
  const nextError = () => jump((p) => !p.ok, "no more mistakes");
  const nextZero = () => jump((p) => p.z.length > 0, "no more zero margins");
  $("prev").addEventListener("click", () => show(cur - 1));
  $("next").addEventListener("click", () => show(cur + 1));
  $("play").addEventListener("click", () => setPlaying(!playing));
  $("next-error").addEventListener("click", nextError);
  $("next-zero").addEventListener("click", nextZero);
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") show(cur + 1);
    else if (ev.key === "ArrowLeft") show(cur - 1);
    else if (ev.key === " ") { ev.preventDefault(); setPlaying(!playing); }
    else if (ev.key === "e") nextError();
    else if (ev.key === "z") nextZero();
    else if (ev.key === "+" || ev.key === "=") setScale(Math.min(scaleAt + 1, SCALES.length - 1));
    else if (ev.key === "-") setScale(Math.max(scaleAt - 1, 0));
  });

  if (D.devices && D.devices.rack) {
    $("dev-rack").src = D.devices.rack;
    $("dev-photocell").src = D.devices.photocell;
  } else {
    $("device-panel").hidden = true;
  }

  // a link can open the page at a place: #p=N (presentation N), #after (the test cards),
  // #draw=HEX (S-units as hex, row order, into the editor)
  function fromHash() {
    const h = decodeURIComponent(location.hash.slice(1));
    let m;
    if ((m = /^p=(\d+)$/.exec(h))) show(parseInt(m[1], 10) - 1);
    else if (h === "after") { show(P.length - 1); $("test-panel").scrollIntoView(); }
    else if ((m = /^draw=([0-9a-f]+)$/i.exec(h))) {
      editorSet(sBits(m[1].padEnd(Math.ceil(N_S / 8) * 2, "0")), "drawn");
      $("editor-panel").scrollIntoView();
    }
  }
  show(0);
  fromHash();
  window.addEventListener("hashchange", fromHash);
})();
