// mark1 lesson page: plain DOM and SVG, no framework. The data (JSON above) is the
// machine's own record of the run, numbered from 0; the page numbers from 1 for people.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("lesson-data").textContent);
  const M = D.meta, P = D.pres, Q = M.quantum;
  for (const p of P) {                       // stored as integers in 1/quantum full scale or seconds
    p.w = p.w.map((u) => u.map((v) => (v === null ? null : v / Q)));
    p.mv = p.mv.map(([u, i, ...rest]) => [u, i, ...rest.map((v) => v / Q)]);
  }
  const NS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const fmt = (v, d = 4) => (v >= 0 ? "+" : "\u2212") + Math.abs(v).toFixed(d);
  const sec = (v) => v.toFixed(3) + " s";
  let cur = 0, playing = false, timer = null, selected = null, hover = null;

  function el(tag, attrs, parent, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function unitName(k) { return M.n_units > 1 ? "R" + (k + 1) : "R1"; }
  function className(i) { return M.classes[i]; }

  // ---- static parts ------------------------------------------------------------------
  $("title").textContent = M.scene;
  $("subtitle").textContent = `${M.machine} machine: ${M.rows * M.cols} S-units, ${M.n_a} A-units, ` +
    `${M.n_units} R-unit${M.n_units > 1 ? "s" : ""} in use (${M.code}); rule ${M.rule}, ` +
    `one card every ${M.period} s; ${M.deck} cards \u00d7 ${M.epochs} epochs, seed ${M.seed}. ` +
    `Cards are numbered from 1.`;

  // retina
  const CELL = 15, retina = $("retina");
  retina.setAttribute("viewBox", `0 0 ${M.cols * CELL} ${M.rows * CELL}`);
  const sUnits = [];
  for (let i = 0; i < M.rows * M.cols; i++) {
    const r = el("rect", { x: (i % M.cols) * CELL + 1.5, y: Math.floor(i / M.cols) * CELL + 1.5,
      width: CELL - 3, height: CELL - 3, rx: 2, class: "s-unit", "data-s": i }, retina);
    sUnits.push(r);
  }

  // A-units on a grid
  const aCols = Math.ceil(Math.sqrt(M.n_a * 2)), aRows = Math.ceil(M.n_a / aCols);
  const AC = Math.max(9, Math.min(26, Math.floor(300 / aCols)));
  const aSvg = $("aunits");
  aSvg.setAttribute("viewBox", `0 0 ${aCols * AC} ${aRows * AC}`);
  const aUnits = [];
  for (let a = 0; a < M.n_a; a++) {
    const r = el("rect", { x: (a % aCols) * AC + 1.5, y: Math.floor(a / aCols) * AC + 1.5,
      width: AC - 3, height: AC - 3, rx: 3, class: "a-unit", "data-a": a }, aSvg);
    el("title", {}, r, `A-unit ${a + 1}`);
    r.addEventListener("mouseenter", () => { hover = a; highlight(); });
    r.addEventListener("mouseleave", () => { hover = null; highlight(); });
    r.addEventListener("click", () => { selected = selected === a ? null : a; highlight(); });
    aUnits.push(r);
  }

  // the strip of presentations
  const strip = $("strip"), stripCells = [];
  P.forEach((p, i) => {
    const s = document.createElement("span");
    if (!p.ok) s.classList.add("err");
    if (i > 0 && p.e !== P[i - 1].e) s.classList.add("epoch");
    s.title = `card ${i + 1} (epoch ${p.e + 1}): ${p.ok ? "right" : "wrong"}`;
    s.addEventListener("click", () => show(i));
    strip.appendChild(s);
    stripCells.push(s);
  });

  // the sum tracks' scale: a round number that fits this presentation's largest stack, so it
  // changes only now and then as the wipers grow
  function trackSpan(p) {
    let span = 0;
    for (const w of p.w) {
      let pos = 0, neg = 0;
      for (const v of w) if (v !== null) { if (v > 0) pos += v; else neg -= v; }
      span = Math.max(span, pos, neg);
    }
    for (const s of p.sums) span = Math.max(span, Math.abs(parseFloat(s)));
    for (const nice of [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]) if (span <= nice * 0.95) return nice;
    return span * 1.05;
  }

  // mistakes per epoch
  function drawMistakes() {
    const svg = $("mistakes"), W = 300, H = 130, n = M.epochs;
    svg.innerHTML = "";
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const top = Math.max(1, ...M.mistakes_per_epoch);
    const bw = (W - 40) / n;
    const pNow = P[cur];
    M.mistakes_per_epoch.forEach((m, e) => {
      // mistakes up to the current card in the current epoch; whole epochs before it
      let shown = m;
      if (e === pNow.e) shown = P.filter((p, i) => p.e === e && i <= cur && !p.ok).length;
      if (e > pNow.e) shown = 0;
      const h = (H - 50) * shown / top;
      el("rect", { x: 36 + e * bw + 2, y: H - 18 - h, width: bw - 4, height: h,
        class: "bar" + (e === pNow.e ? " cur" : "") }, svg);
      el("text", { x: 36 + e * bw + bw / 2, y: H - 22 - h, "text-anchor": "middle" }, svg, e <= pNow.e ? shown : "");
      el("text", { x: 36 + e * bw + bw / 2, y: H - 5, "text-anchor": "middle" }, svg, e + 1);
    });
    el("text", { x: 0, y: 10 }, svg, "wrong answers");
    el("text", { x: 0, y: H - 5 }, svg, "epoch");
  }

  // ---- one presentation --------------------------------------------------------------
  function sBits(hex) {
    const out = new Uint8Array(M.rows * M.cols);
    for (let i = 0; i < out.length; i++) {
      const byte = parseInt(hex.substr(2 * (i >> 3), 2), 16);
      out[i] = (byte >> (7 - (i & 7))) & 1;
    }
    return out;
  }

  function show(i) {
    cur = Math.max(0, Math.min(P.length - 1, i));
    const p = P[cur];
    $("counter").textContent = `card ${cur + 1} of ${P.length} \u00b7 epoch ${p.e + 1} of ${M.epochs} ` +
      `\u00b7 deck card ${p.c + 1}`;
    $("clock").textContent = `machine clock ${sec(p.tr)} (card change at ${sec(p.t)})`;
    stripCells.forEach((s, j) => s.classList.toggle("cur", j === cur));
    $("card").src = D.cards[p.c];
    $("card-text").textContent = `The card shows \u201c${className(p.y)}\u201d. ` +
      `The machine answered \u201c${className(p.r)}\u201d: ${p.ok ? "right" : "wrong"}.`;
    const bits = sBits(p.s);
    let nS = 0;
    sUnits.forEach((r, j) => { r.classList.toggle("lit", bits[j] === 1); nS += bits[j]; });
    $("retina-text").textContent = `${nS} of ${M.rows * M.cols} S-units fire, sampled ${M.settle} s after ` +
      `the lamps came on.`;
    const lit = new Set(p.a);
    aUnits.forEach((r, a) => r.classList.toggle("lit", lit.has(a)));
    $("a-text").textContent = `${p.a.length} of ${M.n_a} A-units fire (net excitatory \u2212 inhibitory ` +
      `inputs \u2265 ${M.a_threshold}). Hover or click one to see its patch-board plugs on the retina.`;
    drawSums(p);
    drawPots(p);
    drawMistakes();
    $("timing-text").textContent = `Machine clock at this read: ${sec(p.tr)}. Whole run: ` +
      `${sec(M.machine_time)}, ${M.waited.toFixed(3)} s of it waiting for motors. Wrong so far: ` +
      `${P.filter((q, j) => j <= cur && !q.ok).length} of ${cur + 1}.`;
    highlight();
  }

  function drawSums(p) {
    const box = $("runits");
    box.innerHTML = "";
    const span = trackSpan(p), W = 900, H = 70, x0 = W / 2, sc = (W / 2 - 20) / span;
    const X = (v) => x0 + v * sc;
    for (let k = 0; k < M.n_units; k++) {
      const target = M.targets[p.y][k], sum = parseFloat(p.sums[k]);
      const div = document.createElement("div");
      div.className = "runit";
      const erred = target * sum <= 0;
      const lampOn = sum > 0;
      const noise = sum - p.clean[k];
      const head = document.createElement("div");
      head.className = "head";
      head.innerHTML = `<b>${unitName(k)}</b> <span><span class="lamp${lampOn ? " on" : ""}"></span> lamp ` +
        `${lampOn ? "on" : "off"}</span> <span>sum read <span class="sum" id="sum-${k}"></span></span>` +
        `<span class="muted" id="split-${k}"></span>` +
        `<span>target ${target > 0 ? "on (+1)" : "off (\u22121)"}</span>` +
        `<span class="verdict ${erred ? "bad" : "ok"}">${erred ? "\u2717 this unit erred" : "\u2713 right"}</span>`;
      div.appendChild(head);
      head.querySelector(".sum").textContent = p.sums[k];
      head.querySelector(`#split-${k}`).textContent = `= wipers ${fmt(p.clean[k])} + read noise ${fmt(noise)}`;
      const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", height: H, class: "track",
        "data-unit": k }, div);
      el("line", { x1: 10, x2: W - 10, y1: 40, y2: 40, class: "axis" }, svg);
      for (const t of [-1, -0.5, 0.5, 1]) {
        const v = t * span;
        el("line", { x1: X(v), x2: X(v), y1: 38, y2: 42, class: "axis" }, svg);
        el("text", { x: X(v), y: 66, "text-anchor": "middle", fill: "#777" }, svg, fmt(v, 3));
      }
      let pos = 0, neg = 0;
      const cols = p.a.concat([M.n_a]);
      cols.forEach((a, j) => {
        const v = p.w[k][j];
        if (v === null || v === 0) return;
        const from = v > 0 ? pos : neg, to = from + v;
        if (v > 0) pos = to; else neg = to;
        const r = el("rect", { x: Math.min(X(from), X(to)), y: 14, width: Math.max(Math.abs(X(to) - X(from)), 0.5),
          height: 22, class: "seg " + (a === M.n_a ? "bias" : v > 0 ? "pos" : "neg"), "data-a": a }, svg);
        el("title", {}, r, `${a === M.n_a ? "bias pot" : "A-unit " + (a + 1)}: wiper ${fmt(v)}`);
        if (a < M.n_a) {
          r.addEventListener("mouseenter", () => { hover = a; highlight(); });
          r.addEventListener("mouseleave", () => { hover = null; highlight(); });
          r.addEventListener("click", () => { selected = selected === a ? null : a; highlight(); });
        }
      });
      el("line", { x1: X(0), x2: X(0), y1: 4, y2: 46, class: "thr" }, svg);
      el("text", { x: X(0) + 4, y: 10 }, svg, "threshold 0");
      const xs = Math.max(12, Math.min(W - 12, X(sum)));
      el("path", { d: `M${xs},38 l-6,9 h12 z`, class: "marker" }, svg);
      const right = xs < W - 80;
      el("text", { x: xs + (right ? 9 : -9), y: 50, "text-anchor": right ? "start" : "end", "font-weight": "bold" },
        svg, "sum " + p.sums[k]);
      const single = M.code_kind === "single";
      el("text", { x: 12, y: 10 }, svg, "\u2190 pushes the lamp off" + (single ? ` (\u201c${className(0)}\u201d)` : ""));
      el("text", { x: W - 12, y: 10, "text-anchor": "end" }, svg,
        "pushes the lamp on" + (single ? ` (\u201c${className(1)}\u201d)` : "") + " \u2192");
      box.appendChild(div);
    }
    const note = document.createElement("p");
    note.className = "key";
    note.textContent = `Green: pots of lit A-units with a positive wiper; red: negative; purple: the bias pot ` +
      `(always on). The sum read is the machine's own reading (its trace, 4 significant digits), ` +
      `with read noise of ${M.wiper_noise} full scale per wiper. Answer: ${M.code}.`;
    box.appendChild(note);
  }

  function drawPots(p) {
    const box = $("pots");
    box.innerHTML = "";
    if (!p.mv.length) {
      $("motors-text").textContent = p.ok ? "Right answer: the trainer leaves the pots alone." :
        "No pot was commanded.";
      return;
    }
    const dur = p.m1 - p.m0;
    const waitNext = cur + 1 < P.length ? P[cur + 1].t - (p.t + M.period) : 0;
    $("motors-text").textContent = `${p.mv.length} pots commanded (${M.rule}, ${M.increment} full scale ` +
      `towards each erring unit's target). Motors run on the machine clock from ${sec(p.m0)} to ${sec(p.m1)} ` +
      `(${(dur * 1000).toFixed(1)} ms)` + (waitNext > 1e-9 ? `; the next card waited ${waitNext.toFixed(3)} s.` :
      `, within the card's ${M.period} s.`);
    for (const [u, i, cmd, before, after, slack, run] of p.mv) {
      const row = document.createElement("div");
      row.className = "pot";
      row.dataset.a = i;
      const who = i === M.n_a ? "bias pot" : `A-unit ${i + 1}`;
      const name = document.createElement("span");
      name.textContent = `${unitName(u)} \u00b7 ${who}`;
      row.appendChild(name);
      row.appendChild(gauge(before, after, cmd));
      const txt = document.createElement("span");
      const stopped = M.end_stops && Math.abs(after) >= 1 && Math.abs(before + cmd) > 1;
      txt.innerHTML = `${fmt(before)} \u2192 ${fmt(after)} <span class="muted">(commanded ${fmt(cmd, 3)}; ` +
        `moved ${fmt(after - before)}; motor ${(run * 1000).toFixed(1)} ms` +
        (slack > 0 ? `, ${(slack * 1000).toFixed(1)} ms taking up backlash` : "") + `)</span>` +
        (stopped ? ` <span class="stop">at the end stop</span>` : "");
      row.appendChild(txt);
      box.appendChild(row);
    }
  }

  // left: the whole travel from end stop to end stop, with the wiper on it; right: a window
  // on this move (before \u2192 after), with the end stops where they fall in it
  function gauge(before, after, cmd) {
    const W = 330, H = 26, svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "gauge" });
    const F = (v) => 16 + (v + 1) / 2 * 56;
    el("line", { x1: F(-1), x2: F(1), y1: 13, y2: 13, class: "rail" }, svg);
    for (const e of [-1, 0, 1]) {
      el("line", { x1: F(e), x2: F(e), y1: e ? 5 : 9, y2: e ? 21 : 17, class: e && M.end_stops ? "end" : "rail" }, svg);
    }
    el("text", { x: F(-1) - 3, y: 17, "text-anchor": "end" }, svg, "\u22121");
    el("text", { x: F(1) + 3, y: 17 }, svg, "+1");
    el("circle", { cx: F(after), cy: 13, r: 3, fill: "#1f5fbf" }, svg);
    const half = Math.max(0.03, 1.6 * Math.abs(cmd), 1.2 * Math.abs(after - before));
    let lo = (before + after) / 2 - half, hi = (before + after) / 2 + half;
    if (hi > 1.05) { lo -= hi - 1.05; hi = 1.05; }
    if (lo < -1.05) { hi += -1.05 - lo; lo = -1.05; }
    const X = (v) => 106 + (v - lo) / (hi - lo) * (W - 114);
    el("rect", { x: 94, y: 1, width: W - 94, height: H - 2, fill: "#f7f9fc", stroke: "#dde" }, svg);
    el("line", { x1: X(Math.max(lo, -1)), x2: X(Math.min(hi, 1)), y1: 13, y2: 13, class: "rail" }, svg);
    for (const e of [-1, 1]) if (M.end_stops && e >= lo && e <= hi) {
      el("line", { x1: X(e), x2: X(e), y1: 3, y2: 23, class: "end" }, svg);
      el("text", { x: X(e) + (e > 0 ? -3 : 3), y: 9, "text-anchor": e > 0 ? "end" : "start" }, svg, "stop");
    }
    el("text", { x: 96, y: 24 }, svg, lo.toFixed(2));
    el("text", { x: W - 2, y: 24, "text-anchor": "end" }, svg, hi.toFixed(2));
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
    info.textContent = `A-unit ${a + 1}: ${exc.length} excitatory plugs (${e} lit), ${inh.length} inhibitory ` +
      `(${i} lit): net ${e - i} ${e - i >= M.a_threshold ? "\u2265" : "<"} threshold ${M.a_threshold}, so it ` +
      `${e - i >= M.a_threshold ? "fires" : "stays off"}.`;
    info.dataset.a = a;
  }

  // ---- controls ----------------------------------------------------------------------
  function speed() { return parseFloat($("speed").value); }
  function tick() {
    if (cur >= P.length - 1) { setPlaying(false); return; }
    show(cur + 1);
    timer = setTimeout(tick, 1000 / speed());
  }
  function setPlaying(on) {
    playing = on;
    clearTimeout(timer);
    $("play").innerHTML = on ? "&#10074;&#10074; pause" : "&#9654; play";
    if (on) timer = setTimeout(tick, 1000 / speed());
  }
  function nextError() {
    for (let j = cur + 1; j < P.length; j++) if (!P[j].ok) { show(j); return; }
    const c = $("counter"), note = " \u00b7 no more errors";      // said once, however often clicked
    if (!c.textContent.endsWith(note)) c.textContent += note;
  }
  $("prev").addEventListener("click", () => show(cur - 1));
  $("next").addEventListener("click", () => show(cur + 1));
  $("play").addEventListener("click", () => setPlaying(!playing));
  $("next-error").addEventListener("click", nextError);
  const speedText = () => { $("speed-text").textContent = `${speed()} card${speed() === 1 ? "" : "s"} a second`; };
  $("speed").addEventListener("input", speedText);
  speedText();
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") show(cur + 1);
    else if (ev.key === "ArrowLeft") show(cur - 1);
    else if (ev.key === " ") { ev.preventDefault(); setPlaying(!playing); }
    else if (ev.key === "e") nextError();
  });

  if (D.devices && D.devices.rack) {
    $("dev-rack").src = D.devices.rack;
    $("dev-photocell").src = D.devices.photocell;
  } else {
    $("device-panel").hidden = true;
  }
  show(0);
})();
