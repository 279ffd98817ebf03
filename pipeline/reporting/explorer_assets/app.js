"use strict";
// The pair explorer. Data come from data-<split>.js files added as <script> tags on demand (fetch() of a
// local file fails under file://); each calls explorerData(split, data). All text goes in through
// textContent, never innerHTML, since answers are model output.
(function () {
  const META = JSON.parse(document.getElementById("meta").textContent);
  const DATA = {};
  const waiting = {};
  const ROW = 46;
  const $ = (id) => document.getElementById(id);
  const state = { split: null, rows: [], filtered: [], sample: null, selected: null };

  window.explorerData = function (split, data) {
    DATA[split] = prepare(data);
    (waiting[split] || []).forEach((f) => f.resolve(DATA[split]));
    delete waiting[split];
  };

  function loadSplit(split) {
    if (DATA[split]) return Promise.resolve(DATA[split]);
    if (!META.files[split]) return Promise.reject(new Error("no split " + split));
    return new Promise((resolve, reject) => {
      const first = !waiting[split];
      (waiting[split] = waiting[split] || []).push({ resolve, reject });
      if (!first) return;
      const tag = document.createElement("script");
      tag.src = META.files[split];
      tag.onerror = () => (waiting[split] || []).forEach((f) => f.reject(new Error("cannot load " + tag.src)));
      document.head.appendChild(tag);
    });
  }

  // One row per pair and corpus it is in.
  function prepare(data) {
    data.rows = [];
    data.pairs.forEach((p, i) => {
      if (p.o) data.rows.push({ i, c: "pairs" });
      if (p.u) data.rows.push({ i, c: "pairs_aug" });
    });
    data.byId = new Map(data.pairs.map((p, i) => [p.id, i]));
    return data;
  }

  function texts(p, corpus) {
    return corpus === "pairs_aug" && p.u && p.u.x ? p.u.x : (p.o || p.u).x;
  }
  function tokens(p, corpus) {
    return (corpus === "pairs_aug" ? p.u : p.o).t;
  }
  function lang(data, p) { return data.qas[p.qa][2]; }

  // ---------------------------------------------------------------------------------------- filters
  const SELECTS = {
    corpus: ["both", ...META.corpora], dimension: ["any", ...META.dimensions], variant: ["any", ...META.options.variant],
    lang: ["any", ...META.options.lang], generator: ["any", ...META.options.generator],
    transition: ["any", ...META.options.transition], rewritten: ["any", "yes", "no"],
    wrong: ["nobody", ...META.models], scoring: META.scorings, noise: ["any", "flagged"],
  };

  function fill(select, values) {
    select.textContent = "";
    for (const v of values) {
      const o = document.createElement("option");
      o.value = o.textContent = v;
      select.appendChild(o);
    }
  }

  function filters() {
    const f = {};
    for (const k of Object.keys(SELECTS)) f[k] = $("f-" + k).value;
    f.search = $("f-search").value.trim().toLowerCase();
    return f;
  }

  const haystacks = new Map();
  function haystack(data, row) {
    const key = state.split + "|" + row.i + "|" + row.c;
    let h = haystacks.get(key);
    if (h === undefined) {
      const p = data.pairs[row.i];
      h = [data.qas[p.qa][0], ...texts(p, row.c)].join("\n").toLowerCase();
      haystacks.set(key, h);
    }
    return h;
  }

  function keep(data, row, f) {
    const p = data.pairs[row.i];
    if (f.corpus !== "both" && row.c !== f.corpus) return false;
    if (f.dimension !== "any" && p.d !== f.dimension) return false;
    if (f.variant !== "any" && p.v !== f.variant) return false;
    if (f.lang !== "any" && lang(data, p) !== f.lang) return false;
    if (f.generator !== "any" && !p.g.includes(f.generator)) return false;
    if (f.transition !== "any" && p.tr !== f.transition) return false;
    if (f.rewritten !== "any" && (f.rewritten === "yes") !== Boolean(p.u && p.u.rw)) return false;
    if (f.noise === "flagged" && !p.nz) return false;
    if (f.wrong !== "nobody") {
      const m = ((p.m[row.c] || {})[f.wrong] || [])[META.scorings.indexOf(f.scoring)];
      if (m === undefined || m === null || m > 0) return false;  // ties count as wrong, as in the report
    }
    if (f.search && !haystack(data, row).includes(f.search)) return false;
    return true;
  }

  function applyFilters() {
    const data = DATA[state.split];
    const f = filters();
    state.filtered = data.rows.filter((row) => keep(data, row, f));
    state.sample = null;
    renderList();
  }

  // Seeded, so "random 20" with the same seed and filters gives the same pairs on every machine.
  function mulberry32(seed) {
    let a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function random20() {
    const rand = mulberry32(Number($("f-seed").value) || 0);
    const pool = state.filtered.slice();
    for (let i = 0; i < Math.min(20, pool.length); i++) {
      const j = i + Math.floor(rand() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    state.sample = pool.slice(0, 20);
    renderList();
  }

  // ---------------------------------------------------------------------------------- virtual list
  function shown() { return state.sample || state.filtered; }

  function renderList() {
    const rows = shown();
    const total = DATA[state.split].rows.length;
    const count = $("count");
    count.dataset.n = String(rows.length);
    count.textContent = state.sample
      ? `${rows.length} random of ${state.filtered.length} (seed ${$("f-seed").value})`
      : `${rows.length} of ${total} (pair x corpus, ${state.split})`;
    $("list-spacer").style.height = rows.length * ROW + "px";
    $("list").scrollTop = 0;
    drawRows();
  }

  // Only the rows in sight (and a margin) exist in the DOM, so 10,000 pairs scroll as lightly as 20.
  function drawRows() {
    const data = DATA[state.split];
    const rows = shown();
    const list = $("list");
    const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
    const last = Math.min(rows.length, first + Math.ceil(list.clientHeight / ROW) + 10);
    const box = $("list-rows");
    box.style.transform = `translateY(${first * ROW}px)`;
    box.textContent = "";
    for (let k = first; k < last; k++) {
      const row = rows[k];
      const p = data.pairs[row.i];
      const div = el("div", { class: "row" + (state.selected === p.id + "|" + row.c ? " sel" : "") });
      div.dataset.id = p.id;
      div.dataset.corpus = row.c;
      div.appendChild(el("div", { class: "meta" }, `${p.id} · ${row.c} · ${p.d}${p.u && p.u.rw ? " · rewritten" : ""}`));
      div.appendChild(el("div", { class: "q", lang: lang(data, p) }, data.qas[p.qa][0]));
      div.addEventListener("click", () => go(p.id, row.c));
      box.appendChild(div);
    }
  }

  // ------------------------------------------------------------------------------------- pair view
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  }

  function answer(side, p, corpus, data) {
    const k = side === "chosen" ? 0 : 1;
    const t = tokens(p, corpus);
    const text = texts(p, corpus)[k];
    const box = el("div", { class: "answer " + side },
      el("h3", {}, `${side} · ${p.g[k]} · ${t[k]} tokens · ${[...text].length} chars`),
      el("div", { class: "text", lang: lang(data, p) }, text));
    const orig = (p.o || {}).x;
    if (corpus === "pairs_aug" && orig && text !== orig[k]) {
      box.appendChild(el("div", { class: "orig" }, el("b", {}, "rewritten; the original (pairs): "),
        el("span", { class: "text", lang: lang(data, p) }, orig[k])));
    } else if (corpus === "pairs" && p.u && p.u.x && p.u.x[k] !== text) {
      box.appendChild(el("div", { class: "orig" }, el("b", {}, "rewritten in pairs_aug as: "),
        el("span", { class: "text", lang: lang(data, p) }, p.u.x[k])));
    }
    return box;
  }

  function show(data, id, corpus) {
    const i = data.byId.get(id);
    const view = $("view");
    view.textContent = "";
    if (i === undefined) {
      view.append(el("p", { class: "hint" }, `No pair ${id} in ${state.split}.`));
      return;
    }
    const p = data.pairs[i];
    if (!(corpus === "pairs_aug" ? p.u : p.o)) corpus = p.o ? "pairs" : "pairs_aug";
    state.selected = p.id + "|" + corpus;
    const [question, reference, lg] = data.qas[p.qa];
    view.dataset.id = p.id;
    view.dataset.corpus = corpus;
    const tags = el("div", { class: "tags" });
    for (const t of [p.id, state.split, corpus, p.d, p.v, p.a ? "answerable" : "unanswerable", lg, p.tr,
      p.u && p.u.rw ? "rewritten" : "not rewritten"]) tags.append(el("span", {}, t));
    view.append(tags, el("div", { class: "q", lang: lg }, question));
    if (reference) view.append(el("div", { class: "ref" }, "reference answer: ", el("span", { lang: lg }, reference)));
    // Label noise (pipeline/reporting/label_noise.py): a reason to read the item, not a label.
    for (const note of p.nz || []) view.append(el("div", { class: "noise" }, "⚠ label noise: ", el("span", { lang: lg }, note)));
    view.append(el("div", { class: "answers" }, answer("chosen", p, corpus, data), answer("rejected", p, corpus, data)));

    view.append(el("h2", {}, "Judges' labels"));
    const labels = el("table", {}, el("tr", {}, el("th", {}, "judge"), el("th", {}, "chosen"), el("th", {}, "rejected")));
    META.judges.forEach((j, k) => {
      if (p.L[k]) labels.append(el("tr", {}, el("td", {}, j), el("td", {}, data.labels[p.L[k][0]]), el("td", {}, data.labels[p.L[k][1]])));
    });
    view.append(labels);
    if (p.u && p.u.rw) view.append(el("p", { class: "hint" }, "Labels are of the generators' original answers; each rewrite was re-judged by the first judge and kept only when the pair kept its direction."));

    view.append(el("h2", {}, "Margins (chosen − rejected) and rules"));
    const margins = (p.m || {})[corpus];
    if (margins) {
      const table = el("table", { class: "margins" }, el("tr", {}, el("th", {}, "model"), ...META.scorings.map((s) => el("th", {}, s + (s === META.main_scoring ? " (main)" : "")))));
      for (const m of META.models) {
        if (!margins[m]) continue;
        table.append(el("tr", {}, el("td", {}, m), ...margins[m].map((v) => v === null
          ? el("td", {}, "–") : el("td", { class: "num " + (v > 0 ? "ok" : "wrong") }, (v > 0 ? "+" : "") + v + (v > 0 ? " ✓" : " ✗")))));
      }
      view.append(table);
    } else {
      view.append(el("p", { class: "hint" }, `Not scored (the score stage scores a sample of ${corpus}).`));
    }
    const r = p.r[corpus];
    if (r) {
      const unit = r[5] === "model" ? "model tokens" : "count_tokens units";
      const rules = el("table", { class: "rules" }, el("tr", {}, el("th", {}, "rule"), el("th", {}, "verdict")));
      META.rules.forEach((name, k) => rules.append(el("tr", {}, el("td", {}, name),
        el("td", { class: r[k] ? "ok" : "wrong" }, r[k] ? "prefers chosen ✓" : "prefers rejected ✗"))));
      view.append(rules, el("p", { class: "hint" }, `lengths: chosen ${r[3]}, rejected ${r[4]} (${unit})`));
    }

    view.append(el("h2", {}, "Passages"));
    if (p.gs === null || p.gs === undefined) view.append(el("p", { class: "gold-mark" }, "unanswerable: no passage holds the answer"));
    const ol = el("ol", { class: "passages" });
    p.p.forEach((b, k) => {
      const li = el("li", { class: "passage" + (k === p.gs ? " gold" : ""), lang: lg });
      if (k === p.gs) li.append(el("span", { class: "gold-mark", lang: "en" }, "★ gold passage · "));
      li.append(data.blocks[b]);
      ol.append(li);
    });
    view.append(ol);
    drawRows();
  }

  // Label noise of the whole corpus (pipeline/reporting/label_noise.py): contexts built unanswerable whose
  // passage answers, references failing the importer's checks; paired or not, since a leaking context whose
  // answers all attempt makes no pair.
  function showNoise() {
    const view = $("view");
    view.textContent = "";
    view.dataset.id = "";
    view.append(el("h2", {}, `Label noise (${META.noise.length}): a reason to read the item, not a label`));
    for (const n of META.noise) {
      const box = el("div", { class: "noise-item" }, el("div", { class: "tags" }, el("span", {}, n.kind), el("span", {}, n.ctx)),
        el("div", { class: "q", lang: n.lg }, n.q), el("div", { class: "ref" }, "reference answer: ", el("span", { lang: n.lg }, n.ref || "(empty)")),
        el("div", { class: "noise" }, n.kind === "leak" ? `built unanswerable, but passage [${n.slot}] says: ` : "its paragraph: ",
          el("span", { lang: n.lg }, n.s)));
      if (n.ans && n.ans.length) {
        const table = el("table", {}, el("tr", {}, el("th", {}, "generator"), el("th", {}, "answer"), el("th", {}, "label")));
        for (const [g, text, label] of n.ans) table.append(el("tr", {}, el("td", {}, g), el("td", { lang: n.lg }, text), el("td", {}, label)));
        box.append(table);
      }
      view.append(box);
    }
  }

  // ------------------------------------------------------------------------------- links and start
  function parseHash() {
    const out = {};
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      const at = part.indexOf("=");
      if (at > 0) out[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1));
    }
    return out;
  }

  function splitOf(id) {
    const qa = id.split("/").slice(0, -2).join("/");
    return META.qa_split[qa];
  }

  function go(id, corpus) {
    const hash = "#pair=" + encodeURI(id) + (corpus ? "&corpus=" + corpus : "");
    if (location.hash !== hash) location.hash = hash; else onHash();
  }

  async function useSplit(split) {
    if (state.split === split) return DATA[split];
    const data = await loadSplit(split);
    state.split = split;
    $("f-split").value = split;
    applyFilters();
    return data;
  }

  async function onHash() {
    const h = parseHash();
    if (!h.pair) return;
    let split = splitOf(h.pair);
    if (!split) {  // an id of another shape: look in every split
      for (const s of META.splits) if ((await loadSplit(s)).byId.has(h.pair)) { split = s; break; }
    }
    if (!split) { $("view").textContent = `No pair ${h.pair}.`; return; }
    show(await useSplit(split), h.pair, h.corpus || "pairs");
  }

  async function start() {
    fill($("f-split"), META.splits);
    for (const [k, values] of Object.entries(SELECTS)) fill($("f-" + k), values);
    $("f-scoring").value = META.main_scoring;
    $("f-seed").value = META.seed;
    for (const k of Object.keys(SELECTS)) $("f-" + k).addEventListener("change", applyFilters);
    $("f-split").addEventListener("change", () => useSplit($("f-split").value));
    let timer = null;
    $("f-search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(applyFilters, 150); });
    $("random20").addEventListener("click", random20);
    $("noise").textContent = `label noise (${META.noise.length})`;
    $("noise").disabled = !META.noise.length;
    $("noise").addEventListener("click", showNoise);
    // Each filter back to its first choice by hand: form.reset() left a changed <select> as it was.
    $("reset").addEventListener("click", () => {
      for (const [k, values] of Object.entries(SELECTS)) $("f-" + k).value = values[0];
      $("f-search").value = "";
      $("f-scoring").value = META.main_scoring;
      $("f-seed").value = META.seed;
      applyFilters();
    });
    $("filters").addEventListener("submit", (e) => e.preventDefault());
    $("list").addEventListener("scroll", () => requestAnimationFrame(drawRows));
    window.addEventListener("resize", () => requestAnimationFrame(drawRows));
    window.addEventListener("hashchange", onHash);
    if (!META.splits.length) { $("count").textContent = "No pairs."; return; }
    const linked = parseHash().pair && splitOf(parseHash().pair);
    await useSplit(linked || (META.splits.includes("test") ? "test" : META.splits[0]));
    await onHash();
  }

  // Tests and the screenshot script wait on this, and drive the page through the same functions a click does.
  window.explorer = { ready: start(), state, go, random20, applyFilters, useSplit, showNoise, meta: META };
})();
